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
 */
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

export function createTracing(options: { tracer: Tracer; graphqlEndpoint: string }): Tracing {
  const { tracer, graphqlEndpoint } = options;
  const propagator = new W3CTraceContextPropagator();
  const spans = new WeakMap<Request, RequestSpan>();

  const plugin: Plugin = {
    onRequest({ request, url }) {
      // Health probes, GraphiQL and scrapes are not operations: POSTs and GETs of the endpoint
      // with a query string are traced. On the fast path (POSTs only) `url` is never parsed.
      if (request.method !== 'POST' && (url.pathname !== graphqlEndpoint || url.search === '')) {
        return;
      }
      const parent = propagator.extract(ROOT_CONTEXT, request.headers, getter);
      const span = tracer.startSpan(
        'graphql',
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method } },
        parent,
      );
      spans.set(request, { span, errorCode: undefined });
    },
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
            'url.template': attempt.route,
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
