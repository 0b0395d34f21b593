/**
 * OpenTelemetry traces: a SERVER span per GraphQL request and a CLIENT span per upstream
 * attempt, its child, whose W3C trace context (`traceparent`, `tracestate`) is sent to the
 * upstream and nowhere else. Only built when a tracer is configured (src/gateway/otel.ts); with
 * none, no hook of this module exists and nothing of OpenTelemetry runs per request.
 *
 * Plain Yoga hooks rather than Yoga's instrumentation API, so the node:http fast path
 * (src/gateway/fast-path.ts) stays on when tracing. Spans are parented explicitly (the request's
 * span rides on the session to each upstream attempt as UpstreamAttempt.trace): no async context
 * manager is installed, nothing is tracked across promises.
 *
 * An incoming `traceparent` is honoured: the gateway's span joins the caller's trace.
 *
 * Attributes follow the stable OpenTelemetry HTTP semantic conventions and the GraphQL ones:
 * - the SERVER span: `http.request.method`, `url.scheme`, `url.path` (never the query string: a
 *   GET carries the document and variables there), `http.route` (the endpoint),
 *   `server.address`/`server.port` (the Host header, else the socket's port),
 *   `client.address` (the socket's peer: no forwarding header is trusted), `user_agent.original`,
 *   `network.protocol.version`, `http.response.status_code`, `graphql.operation.type` and
 *   `graphql.operation.name`. The document (`graphql.document`) only when `graphqlDocument` is
 *   set (TRACE_GRAPHQL_DOCUMENT): its literals may be a customer's values.
 * - each CLIENT span: `http.request.method`, `server.address`/`server.port` of the origin,
 *   `url.template` and `url.full` — the origin and the route TEMPLATE (`/v2/orders/{id}`), never
 *   the real path or query: ids, filters and a customer's values stay out of the trace, and
 *   credentials were never in the URL. `http.response.status_code`, `http.request.resend_count`
 *   on retries, `error.type` on failures.
 */

import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import {
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { Plugin } from 'graphql-yoga';
import type { UpstreamAttempt, UpstreamObserver } from '../upstream/index.ts';
import { requestStates } from './request-state.ts';

export interface Tracing {
  readonly plugin: Plugin;
  /**
   * Starts and ends the upstream attempt spans; adds the trace context to their headers (given
   * to the upstream's front door, src/upstream/index.ts).
   */
  readonly observer: UpstreamObserver;
  /** The request's span, for the session (createContext's `trace`). */
  spanOf(request: Request): Span | undefined;
  /** The trace id of the request, for its log line. */
  traceIdOf(request: Request): string | undefined;
}

interface HeadersLike {
  get(name: string): string | null;
}

const getter: TextMapGetter<HeadersLike> = {
  get: (carrier, key) => carrier.get(key) ?? undefined,
  keys: () => ['traceparent', 'tracestate'],
};
const setter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

interface RequestSpan {
  span: Span;
  errorCode: string | undefined;
}

/** Longest document recorded (TRACE_GRAPHQL_DOCUMENT), characters. */
const MAX_DOCUMENT = 8192;

/** Header values kept in spans are cut here: a client chooses them. */
const MAX_HEADER_VALUE = 256;

/** `host[:port]` of a Host header (`[v6]:port` too), or undefined when malformed. */
function splitHost(value: string): { host: string; port: number | undefined } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(value.trim());
  if (!match) return undefined;
  const port = match[2] === undefined ? undefined : Number(match[2]);
  return { host: (match[1] as string).replace(/^\[|\]$/g, ''), port };
}

/** The conventions' attributes of an incoming request, read from node:http (no URL parsed). */
function serverAttributes(
  req: IncomingMessage | undefined,
  method: string,
  route: string,
): Record<string, string | number> {
  const attributes: Record<string, string | number> = {
    'http.request.method': method,
    'http.route': route,
  };
  if (req === undefined) return attributes;
  const socket = req.socket as Partial<TLSSocket> | undefined;
  const scheme = socket?.encrypted ? 'https' : 'http';
  attributes['url.scheme'] = scheme;
  const target = req.url ?? '/';
  const query = target.indexOf('?');
  attributes['url.path'] = (query === -1 ? target : target.slice(0, query)).slice(0, 2048);
  attributes['network.protocol.version'] = req.httpVersion;
  const host = req.headers.host === undefined ? undefined : splitHost(req.headers.host);
  if (host !== undefined) attributes['server.address'] = host.host.slice(0, MAX_HEADER_VALUE);
  const port = host?.port ?? socket?.localPort;
  if (port !== undefined) attributes['server.port'] = port;
  const agent = req.headers['user-agent'];
  if (agent !== undefined) attributes['user_agent.original'] = agent.slice(0, MAX_HEADER_VALUE);
  const peer = socket?.remoteAddress;
  if (peer !== undefined) attributes['client.address'] = peer;
  return attributes;
}

/** `server.address`, `server.port` and the origin of the upstream, for client spans. */
function originAttributes(origin: string | undefined): {
  origin: string;
  attributes: Record<string, string | number>;
} {
  if (origin === undefined) return { origin: '', attributes: {} };
  const url = new URL(origin);
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return {
    origin: url.origin,
    attributes: {
      'server.address': url.hostname.replace(/^\[|\]$/g, ''),
      'server.port': port,
    },
  };
}

export function createTracing(options: {
  tracer: Tracer;
  graphqlEndpoint: string;
  /** The upstream's origin (`http://host:port`), for client spans' server and url attributes. */
  origin?: string;
  /** Record the document as sent, literal values included (`graphql.document`). Default false. */
  graphqlDocument?: boolean;
}): Tracing {
  const { tracer, graphqlEndpoint } = options;
  const recordDocument = options.graphqlDocument === true;
  const upstream = originAttributes(options.origin);
  const propagator = new W3CTraceContextPropagator();
  const spans = requestStates<RequestSpan>('tracing');

  const plugin: Plugin = {
    onRequest({ request, url, serverContext }) {
      // Health probes, GraphiQL and scrapes are not operations: POSTs and GETs of the endpoint
      // with a query string are traced. On the fast path (POSTs only) `url` is never parsed.
      if (request.method !== 'POST' && (url.pathname !== graphqlEndpoint || url.search === '')) {
        return;
      }
      const parent = propagator.extract(ROOT_CONTEXT, request.headers, getter);
      const span = tracer.startSpan(
        'graphql',
        {
          kind: SpanKind.SERVER,
          attributes: serverAttributes(
            (serverContext as { req?: IncomingMessage } | undefined)?.req,
            request.method,
            graphqlEndpoint,
          ),
        },
        parent,
      );
      spans.set(request, { span, errorCode: undefined });
    },
    ...(recordDocument
      ? {
          onParams({ params, request }: { params: { query?: unknown }; request: Request }) {
            const entry = spans.get(request);
            if (entry !== undefined && typeof params.query === 'string') {
              entry.span.setAttribute('graphql.document', params.query.slice(0, MAX_DOCUMENT));
            }
          },
        }
      : {}),
    onExecute({ args }) {
      const request = (args.contextValue as { request?: Request }).request;
      const entry = request ? spans.get(request) : undefined;
      if (entry === undefined) return;
      let type = 'query';
      let name: string | undefined;
      for (const definition of args.document.definitions) {
        if (definition.kind !== 'OperationDefinition') continue;
        const own = definition.name?.value;
        if (args.operationName ? own === args.operationName : true) {
          type = definition.operation;
          name = own;
          break;
        }
      }
      entry.span.updateName(name === undefined ? type : `${type} ${name}`);
      entry.span.setAttribute('graphql.operation.type', type);
      if (name !== undefined) entry.span.setAttribute('graphql.operation.name', name);
    },
    onResultProcess({ request, result }) {
      const entry = spans.get(request);
      if (entry === undefined) return;
      const one = Array.isArray(result) ? result[0] : result;
      const errors = (one as { errors?: readonly { extensions?: { code?: unknown } }[] } | null)
        ?.errors;
      if (errors && errors.length > 0) {
        const code = errors[0]?.extensions?.code;
        entry.errorCode = typeof code === 'string' ? code.slice(0, 64) : 'ERROR';
      }
    },
    onResponse({ request, response }) {
      const entry = spans.get(request);
      if (entry === undefined) return;
      // Kept in the map (a WeakMap: it goes with the request) so the log line can still read it.
      const { span, errorCode } = entry;
      span.setAttribute('http.response.status_code', response.status);
      if (errorCode !== undefined) {
        span.setAttribute('error.type', errorCode);
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorCode });
      } else if (response.status >= 500) {
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    },
  };

  const observer: UpstreamObserver = {
    attemptStart(attempt: UpstreamAttempt, headers: Record<string, string>) {
      const parentSpan = attempt.trace as Span | undefined;
      if (parentSpan === undefined) return undefined;
      const parent: Context = trace.setSpan(ROOT_CONTEXT, parentSpan);
      const span = tracer.startSpan(
        `${attempt.method} ${attempt.route}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            'http.request.method': attempt.method,
            ...upstream.attributes,
            'url.template': attempt.route,
            ...(upstream.origin === '' ? {} : { 'url.full': `${upstream.origin}${attempt.route}` }),
            ...(attempt.retry > 0 ? { 'http.request.resend_count': attempt.retry } : {}),
          },
        },
        parent,
      );
      propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, setter);
      return span;
    },
    attemptEnd(attempt: UpstreamAttempt, started: unknown) {
      const span = started as Span | undefined;
      if (span === undefined) return;
      const { status, error } = attempt;
      if (status > 0) span.setAttribute('http.response.status_code', status);
      if (status === 0 || status >= 400) {
        const reason = (error as { reason?: string } | undefined)?.reason;
        const type = status > 0 ? String(status) : (reason ?? 'error');
        span.setAttribute('error.type', type);
        span.setStatus({ code: SpanStatusCode.ERROR, message: error?.code });
      }
      span.end();
    },
  };

  return {
    plugin,
    observer,
    spanOf: (request) => spans.get(request)?.span,
    traceIdOf: (request) => spans.get(request)?.span.spanContext().traceId,
  };
}
