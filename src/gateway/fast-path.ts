/**
 * The node:http listener of the gateway, with a fast path for the common request: `POST` of a
 * JSON body to the GraphQL endpoint.
 *
 * Yoga serves Node through @whatwg-node's adapter, which turns every request into Fetch API
 * objects (URL, Headers, an AbortController and three listeners on the response, a
 * ReadableStream body that the body-size limit pipes through a TransformStream into a second
 * Request) and every result into a Response that is written back. For a JSON POST none of that
 * changes what the client gets, and it is a large share of the gateway's CPU per request
 * (measured in docs/benchmarks.md: the hot path against other gateways).
 *
 * The fast path keeps Yoga as the server: it runs Yoga's own pipeline (./fast-path-pipeline.ts)
 * — every plugin's `onRequest`, `onRequestParse` (CSRF, request shape, the schema factory),
 * `onParams`, envelop's parse/validate/context/execute with masking and armor,
 * `onExecutionResult`, `onResultProcess` with Yoga's result processor, and `onResponse` (CORS,
 * request log) — on light request and response objects (./fast-path-shims.ts), and writes the
 * response itself. This module picks the requests that take it and reads their bodies; a body
 * naming a compiled trusted document goes first to the direct lane (./compiled/lane.ts), which
 * answers it without the pipeline or leaves it here.
 * Everything else (GET, GraphiQL, health, other content types, bodies without a Content-Length
 * or over the limit, streaming Accept types) goes to Yoga's handler untouched.
 * test/gateway/fast-path.test.ts sends one corpus through both paths and compares status,
 * headers and body byte for byte.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createLane } from './compiled/lane.ts';
import { type Gateway, gatewaySettings } from './create-gateway.ts';
import { createPipeline, type YogaInternals } from './fast-path-pipeline.ts';
import { BufferedRequest, BufferedResponse, writeResponse } from './fast-path-shims.ts';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** The listener, and how many requests it served on the fast path (for tests and benches). */
export interface GatewayRequestListener extends Listener {
  readonly fastPathRequests: number;
}

const CONTENT_LENGTH = /^\d+$/;

/** Whether Yoga would parse this content type as JSON (its isContentTypeMatch, for POST). */
function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const first = value.split(',')[0] ?? '';
  return (
    first === 'application/json' ||
    first.startsWith('application/json;') ||
    first === 'application/graphql+json' ||
    first.startsWith('application/graphql+json;')
  );
}

export interface RequestListenerOptions {
  /** Serve JSON POSTs on the fast path. Default true; false = every request through Yoga. */
  fastPath?: boolean;
}

/**
 * The listener for `http.createServer`: JSON POSTs to the endpoint on the fast path, every
 * other request through Yoga's own Node handler.
 */
export function createRequestListener(
  gateway: Gateway,
  options: RequestListenerOptions = {},
): GatewayRequestListener {
  const yoga = gateway as unknown as YogaInternals;
  const yogaListener = gateway as unknown as Listener;
  const masking = yoga.maskedErrorsOpts;
  // Only gateways built by createGateway (whose plugins the fast path knows) take it; with Yoga
  // instrumentation configured, Yoga's handler is the one that runs it.
  const settings = gatewaySettings(gateway);
  if (options.fastPath === false || !settings || yoga.instrumentation || !masking) {
    return Object.assign((req: IncomingMessage, res: ServerResponse) => yogaListener(req, res), {
      fastPathRequests: 0,
    });
  }
  const maxBodyBytes = settings.maxBodyBytes;
  const endpoint = gateway.graphqlEndpoint;
  const respond = createPipeline(yoga, masking);
  const waitUntil = (promise: Promise<unknown>) => yoga.waitUntil(promise);
  // Trusted documents whose plans compiled skip the pipeline (./compiled/lane.ts).
  const lane = settings.lane ? createLane({ ...settings.lane, masking }) : undefined;

  let fastPathRequests = 0;
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const headers = req.headers;
    const length = headers['content-length'];
    const accept = headers.accept;
    if (
      req.method !== 'POST' ||
      req.url !== endpoint ||
      length === undefined ||
      !CONTENT_LENGTH.test(length) ||
      Number(length) > maxBodyBytes ||
      headers['transfer-encoding'] !== undefined ||
      !isJsonContentType(headers['content-type']) ||
      (accept !== undefined && (accept.includes('event-stream') || accept.includes('multipart')))
    ) {
      yogaListener(req, res);
      return;
    }
    fastPathRequests += 1;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString(
        'utf-8',
      );
      const ordinary = () => {
        const request = new BufferedRequest(
          `http://${headers.host ?? 'localhost'}${endpoint}`,
          req,
          res,
          text,
        );
        const serverContext = { req, res, waitUntil };
        respond(request, serverContext).then(
          (response) => writeResponse(res, response),
          (error: unknown) => {
            // What Yoga's adapter answers when its own handler throws.
            const failure = error as { stack?: string; message?: string; status?: number };
            writeResponse(
              res,
              new BufferedResponse(String(failure?.stack ?? failure?.message ?? error), {
                status: failure?.status ?? 500,
              }),
            );
          },
        );
      };
      if (lane === undefined || !lane(req, res, text, ordinary)) ordinary();
    });
    req.on('error', () => res.destroy());
  };
  return Object.defineProperty(listener, 'fastPathRequests', {
    get: () => fastPathRequests,
  }) as GatewayRequestListener;
}
