/**
 * The v2 REST client. One undici Pool per upstream origin is created once per gateway
 * (`createUpstreamTransport`) and shared by every request, its connections handed out fairly
 * between operations (./call-slots.ts); the per-request client (`createUpstreamClient`) binds
 * the caller's Authorization header, the request id, the call budget, the operation's share of
 * the pool and its abort signal. `sendUpstreamAttempt` performs exactly one HTTP attempt and
 * maps the answer to a typed error, so resilience (retries, breaker) can wrap it.
 */
import { randomUUID } from 'node:crypto';
import { type Dispatcher, Pool } from 'undici';
import type { CallBudget } from './budget.ts';
import {
  type CallLane,
  type CallSlots,
  createCallLane,
  createCallSlots,
  DEFAULT_POOL_CONNECTIONS,
} from './call-slots.ts';
import {
  BadUserInputError,
  ConflictError,
  EntryTooLargeError,
  ForbiddenError,
  type GatewayError,
  isGatewayError,
  NotFoundError,
  PreconditionFailedError,
  RateLimitedError,
  UnauthenticatedError,
  UpstreamUnavailableError,
} from './errors.ts';

/** Connection settings of the shared pool; every value has a default. */
export interface UpstreamPoolOptions {
  /** Maximum sockets to the upstream origin. Default 64. */
  connections?: number;
  /**
   * Most upstream calls one operation has in flight at once; its further calls wait for a slot,
   * taking turns with other operations' calls (src/upstream/call-slots.ts). Default: a quarter
   * of `connections` (16 of 64), so no one operation ever holds the whole pool.
   */
  perOperation?: number;
  /** Time to establish a TCP (and TLS) connection. Default 2,000 ms. */
  connectTimeoutMs?: number;
  /** Time from sending a request until the response headers arrive. Default 10,000 ms. */
  headersTimeoutMs?: number;
  /** Maximum idle time between two chunks of a response body. Default 10,000 ms. */
  bodyTimeoutMs?: number;
  /** How long an idle keep-alive socket is kept. Default 4,000 ms. */
  keepAliveTimeoutMs?: number;
  /** Largest response body accepted; a bigger one is an unusable answer. Default 8 MiB. */
  maxResponseBytes?: number;
}

/** The shared, token-free connection to one upstream. */
export interface UpstreamTransport {
  /** `scheme://host:port` of the upstream; the only place a token is ever sent. */
  readonly origin: string;
  /** Path prefix of the configured base URL ('' or e.g. '/commerce'), without trailing slash. */
  readonly basePath: string;
  readonly pool: Pool;
  /** The pool's connections, shared fairly between operations (src/upstream/call-slots.ts). */
  readonly slots: CallSlots;
  readonly maxResponseBytes: number;
  /**
   * Told of every attempt sent on this transport (metrics, traces: src/gateway/metrics.ts,
   * src/gateway/tracing.ts); set once by the gateway, before the first request.
   */
  observer?: AttemptObserver | undefined;
  close(): Promise<void>;
}

/**
 * What watches upstream attempts. `start` (only when tracing) runs just before an attempt is
 * sent and may add headers (W3C `traceparent`); `end` runs once when its answer, or failure, is
 * known: `status` is the HTTP status, 0 when none came (then `error` says why).
 */
export interface AttemptObserver {
  start?(
    request: UpstreamRequest,
    headers: Record<string, string>,
    context: AttemptContext,
  ): unknown;
  end(
    request: UpstreamRequest,
    status: number,
    error: GatewayError | undefined,
    context: AttemptContext,
    started: unknown,
  ): void;
}

export function createUpstreamTransport(
  baseUrl: string,
  options: UpstreamPoolOptions = {},
): UpstreamTransport {
  const url = new URL(baseUrl);
  const connections = options.connections ?? DEFAULT_POOL_CONNECTIONS;
  const pool = new Pool(url.origin, {
    connections,
    connect: { timeout: options.connectTimeoutMs ?? 2_000 },
    headersTimeout: options.headersTimeoutMs ?? 10_000,
    bodyTimeout: options.bodyTimeoutMs ?? 10_000,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
    // A Pool never follows redirects by itself (no redirect interceptor is composed in): a 3xx
    // reaches sendUpstreamAttempt and becomes an error, so a token can never follow a Location.
  });
  return {
    origin: url.origin,
    basePath: url.pathname.replace(/\/+$/, ''),
    pool,
    slots: createCallSlots(
      connections,
      Math.min(connections, options.perOperation ?? Math.max(1, Math.floor(connections / 4))),
    ),
    maxResponseBytes: options.maxResponseBytes ?? 8 * 1024 * 1024,
    close: () => pool.close(),
  };
}

export type UpstreamMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One call to the v2 API, described without any caller secret. */
export interface UpstreamRequest {
  method: UpstreamMethod;
  /** Path segments below `/v2`, raw; each is percent-encoded here. */
  segments: readonly string[];
  /** Query parameters, e.g. `page[limit]`; encoded here. */
  query?: Readonly<Record<string, string | undefined>>;
  /** JSON body for POST/PUT. */
  body?: unknown;
  /** `If-Match` for PUT/DELETE (a weak etag `W/"…"`). */
  ifMatch?: string;
  /** Headers of this call alone (e.g. the currency of a new cart); judged by the caller. */
  headers?: Readonly<Record<string, string>>;
}

export interface UpstreamResponse {
  status: number;
  /** Parsed JSON body; undefined for 204 and other empty answers. */
  body: unknown;
  /** The ETag response header, when sent. */
  etag: string | undefined;
}

/** What one attempt needs beside the request: the caller's credentials and the deadline. */
export interface AttemptContext {
  /** The caller's `Authorization` header value, forwarded verbatim. */
  authorization: string;
  requestId: string;
  signal: AbortSignal | undefined;
  /** Epoch ms of the operation deadline, so retries never wait past it (resilience.ts). */
  deadlineAt?: number | undefined;
  /** The caller's allow-listed headers (forwarded-headers.ts), already judged; secrets too. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** 0 for the first attempt of a call, n for its n-th retry (set by resilience.ts). */
  attempt?: number | undefined;
  /** The operation's share of the transport's slots; calls without one share a lane of their own. */
  lane?: CallLane | undefined;
  /**
   * Told `true` when the attempt has to wait for a free slot and `false` when it gets one (not
   * called when a slot was free): resilience.ts starts the attempt's timeout only once it is sent.
   */
  onSlotWait?: ((waiting: boolean) => void) | undefined;
  /** The operation's trace span (src/gateway/tracing.ts), opaque here; unset when not tracing. */
  trace?: unknown;
}

/** Signature of one attempt; resilience wraps a function of this shape. */
export type SendAttempt = (
  transport: UpstreamTransport,
  request: UpstreamRequest,
  context: AttemptContext,
) => Promise<UpstreamResponse>;

/** Builds `/v2/a/b?x=y` from raw segments, refusing segments that could change the path. */
export function buildPath(
  basePath: string,
  segments: readonly string[],
  query?: Readonly<Record<string, string | undefined>>,
): string {
  let path = `${basePath}/v2`;
  for (const segment of segments) {
    // encodeURIComponent leaves '.' alone, so '.' and '..' would still walk up the tree.
    if (segment === '' || segment === '.' || segment === '..') {
      throw new BadUserInputError(`"${segment}" is not a valid path segment`);
    }
    path += `/${encodeURIComponent(segment)}`;
  }
  if (query) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) params.append(key, value);
    }
    const search = params.toString();
    if (search !== '') path += `?${search}`;
  }
  return path;
}

/** Lane of the calls made without an operation (e.g. reading Custom API definitions). */
const sharedLanes = new WeakMap<UpstreamTransport, CallLane>();

function laneOf(transport: UpstreamTransport, context: AttemptContext): CallLane {
  if (context.lane !== undefined) return context.lane;
  let lane = sharedLanes.get(transport);
  if (lane === undefined) {
    lane = createCallLane();
    sharedLanes.set(transport, lane);
  }
  return lane;
}

/**
 * One HTTP attempt: wait for a slot of the transport, send, read the whole body, map the
 * status. Never retries.
 */
export const sendUpstreamAttempt: SendAttempt = async (transport, request, context) => {
  const path = buildPath(transport.basePath, request.segments, request.query);
  const headers: Record<string, string> = {
    authorization: context.authorization,
    'x-request-id': context.requestId,
    accept: 'application/json',
  };
  let body: string | undefined;
  if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    headers['content-type'] = 'application/json';
  }
  if (request.ifMatch !== undefined) headers['if-match'] = request.ifMatch;
  if (context.headers !== undefined) Object.assign(headers, context.headers);
  if (request.headers !== undefined) Object.assign(headers, request.headers);

  const lane = laneOf(transport, context);
  const waiting = transport.slots.acquire(lane, context.signal);
  if (waiting !== undefined) {
    context.onSlotWait?.(true);
    // Rejects with the signal's reason when it aborts first: then nothing was sent.
    await waiting;
    context.onSlotWait?.(false);
  }
  const observer = transport.observer;
  const started = observer?.start?.(request, headers, context);
  let answer: RawAnswer;
  try {
    answer = await exchange(transport, request.method, path, headers, body, context.signal);
  } catch (error) {
    const failure = networkError(error, request.method);
    observer?.end(request, 0, failure, context, started);
    throw failure;
  } finally {
    // The socket is free once the answer is read (or the exchange failed).
    transport.slots.release(lane);
  }
  const { status, headers: responseHeaders, text } = answer;
  const etag = headerValue(responseHeaders['etag']);
  if (status >= 200 && status < 300) {
    observer?.end(request, status, undefined, context, started);
    return { status, body: parseSuccessBody(status, responseHeaders, text), etag };
  }
  const failure = statusError(status, responseHeaders, text, context);
  observer?.end(request, status, failure, context, started);
  throw failure;
};

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One request on the pool through undici's dispatch API: the body is collected straight from
 * the parser's chunks into one string, bounded in size, so the socket goes back to the pool at
 * its end. No Readable stream, no request handler object of undici's request API: list pages
 * are read for every connection field, and that machinery cost more than the bytes themselves.
 * The operation's signal aborts the request in flight (and one never sent).
 */
function exchange(
  transport: UpstreamTransport,
  method: UpstreamMethod,
  path: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal | undefined,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new Error('aborted'));
      return;
    }
    const max = transport.maxResponseBytes;
    const chunks: Buffer[] = [];
    let size = 0;
    let status = 0;
    let responseHeaders: RawAnswer['headers'] = {};
    let controller: Dispatcher.DispatchController | undefined;
    let abortedBefore: unknown;
    let settled = false;
    const onAbort = () => {
      const reason = signal?.reason ?? new Error('aborted');
      if (controller) controller.abort(reason);
      else abortedBefore = reason;
    };
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      done();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    transport.pool.dispatch(
      { method, path, headers, body },
      {
        onRequestStart(started) {
          // Aborted before undici began writing it: throwing here makes undici drop the request
          // unsent and keep the connection (its controller's abort would destroy the socket, and
          // a burst of cancelled calls would then make the pool reconnect for each of them).
          if (abortedBefore !== undefined) throw abortedBefore;
          controller = started;
        },
        onResponseStart(_controller, statusCode, received) {
          status = statusCode;
          responseHeaders = received;
        },
        onResponseData(active, chunk) {
          size += chunk.length;
          if (size > max) {
            active.abort(
              new UpstreamUnavailableError('The commerce service sent an oversized response', {
                reason: 'invalid-body',
              }),
            );
            return;
          }
          chunks.push(chunk);
        },
        onResponseEnd() {
          const whole = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
          settle(() => resolve({ status, headers: responseHeaders, text: whole.toString('utf8') }));
        },
        onResponseError(_controller, error) {
          settle(() => reject(error));
        },
      },
    );
  });
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const type = value.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || type.endsWith('+json');
}

function invalidBody(why: string, cause?: unknown): UpstreamUnavailableError {
  return new UpstreamUnavailableError(`The commerce service sent an unusable answer (${why})`, {
    reason: 'invalid-body',
    cause,
  });
}

function parseSuccessBody(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
): unknown {
  if (text === '' && (status === 204 || status === 202)) return undefined;
  if (!isJsonContentType(headerValue(headers['content-type']))) {
    throw invalidBody('not JSON');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalidBody('malformed JSON', error);
  }
}

const NETWORK_REASONS: Record<string, UpstreamUnavailableError['reason']> = {
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ECONNREFUSED: 'connect',
  ENOTFOUND: 'connect',
  EAI_AGAIN: 'connect',
  EHOSTUNREACH: 'connect',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  UND_ERR_SOCKET: 'reset',
  UND_ERR_CLOSED: 'reset',
  UND_ERR_ABORTED: 'aborted',
};

function networkError(error: unknown, method: UpstreamMethod): GatewayError {
  // Our own abort reasons (an attempt's timeout, a client that went away, a finished operation)
  // come back as they were given.
  if (isGatewayError(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const name = (error as { name?: unknown } | null)?.name;
  let reason: UpstreamUnavailableError['reason'] =
    typeof code === 'string' ? (NETWORK_REASONS[code] ?? 'connect') : 'connect';
  if (name === 'AbortError' || name === 'TimeoutError') reason = 'aborted';
  const what =
    reason === 'timeout'
      ? 'did not answer in time'
      : reason === 'aborted'
        ? 'call was cancelled'
        : 'could not be reached';
  return new UpstreamUnavailableError(`The commerce service ${what} (${method})`, {
    reason,
    cause: error,
  });
}

interface UpstreamErrorObject {
  status?: unknown;
  title?: unknown;
  detail?: unknown;
  source?: unknown;
}

/** The JSON:API error details a client can act on, without any of the caller's credentials. */
function upstreamDetail(text: string, context: AttemptContext): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const errors = (parsed as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors)) return undefined;
  const parts: string[] = [];
  for (const item of errors as UpstreamErrorObject[]) {
    const detail = typeof item?.detail === 'string' ? item.detail : item?.title;
    if (typeof detail === 'string' && detail !== '') parts.push(detail);
  }
  if (parts.length === 0) return undefined;
  let detail = parts.join('; ').slice(0, 1000);
  const secrets = [context.authorization.replace(/^Bearer\s+/i, '')];
  if (context.headers !== undefined) secrets.push(...Object.values(context.headers));
  for (const secret of secrets) {
    if (secret.length >= 8) detail = detail.split(secret).join('[redacted]');
  }
  return detail;
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function statusError(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
  context: AttemptContext,
): GatewayError {
  const detail = upstreamDetail(text, context);
  const options = { upstreamStatus: status };
  switch (status) {
    case 400:
    case 422:
      return new BadUserInputError(detail ?? 'The commerce service rejected the input', options);
    case 401:
      return new UnauthenticatedError(
        'The bearer token was not accepted by the commerce service (missing, unknown or expired)',
        options,
      );
    case 403:
      return new ForbiddenError(
        detail ?? 'This token may not perform this operation (implicit tokens are read-only)',
        options,
      );
    case 404:
      return new NotFoundError(detail ?? 'Not found in this store', options);
    case 409:
      return new ConflictError(detail ?? 'The write conflicts with an existing resource', options);
    case 412:
      return new PreconditionFailedError(
        'The resource changed since that etag was read; read it again and retry',
        options,
      );
    case 413:
      return new EntryTooLargeError(detail ?? 'The entry exceeds the 64 KB limit', options);
    case 429: {
      const retryAfterMs = parseRetryAfter(headerValue(headers['retry-after']));
      return new RateLimitedError(
        retryAfterMs === undefined
          ? 'The commerce service is rate-limiting this store; retry later'
          : `The commerce service is rate-limiting this store; retry in ${Math.ceil(retryAfterMs / 1000)} s`,
        { ...options, retryAfterMs },
      );
    }
    default: {
      const message =
        status >= 300 && status < 400
          ? `The commerce service answered with a redirect (${status}), which is not followed`
          : `The commerce service failed (${status})`;
      return new UpstreamUnavailableError(message, { ...options, reason: 'status' });
    }
  }
}

/** The per-request client: binds the caller, the budget and the signal to the shared pool. */
export interface UpstreamClient {
  /** Sends one call (one budget unit), returning the parsed answer or throwing a GatewayError. */
  request(request: UpstreamRequest): Promise<UpstreamResponse>;
}

export interface UpstreamClientOptions {
  transport: UpstreamTransport;
  /** The caller's `Authorization` header value, forwarded verbatim and only to the transport. */
  authorization: string;
  requestId?: string;
  budget: CallBudget;
  signal?: AbortSignal;
  /** Epoch ms of the operation deadline (see AttemptContext). */
  deadlineAt?: number;
  /** The attempt function; resilience passes a wrapped `sendUpstreamAttempt`. */
  send?: SendAttempt;
  /** The caller's allow-listed headers, judged (forwarded-headers.ts); sent on every call. */
  headers?: Readonly<Record<string, string>> | undefined;
  /** The operation's trace span (AttemptContext.trace), when tracing. */
  trace?: unknown;
  /** The operation's share of the transport's slots (AttemptContext.lane). */
  lane?: CallLane;
}

export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const send = options.send ?? sendUpstreamAttempt;
  const context: AttemptContext = {
    authorization: options.authorization,
    requestId: options.requestId ?? randomUUID(),
    signal: options.signal,
    deadlineAt: options.deadlineAt,
    headers: options.headers,
    trace: options.trace,
    lane: options.lane,
  };
  return {
    request(request) {
      options.budget.consume(`${request.method} /v2/${request.segments[0] ?? ''}`);
      return send(options.transport, request, context);
    },
  };
}

// ---- shape checks: a 2xx that is not the documented envelope is an unusable answer ----

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `{data: {id: string, …}}` → data. */
export function expectResource(response: UpstreamResponse): JsonObject {
  const data = isJsonObject(response.body) ? response.body.data : undefined;
  if (!isJsonObject(data) || typeof data.id !== 'string') throw invalidBody('not a resource');
  return data;
}

/** The list envelope → its rows and `meta.results.total`. */
export function expectList(response: UpstreamResponse): { data: JsonObject[]; total: number } {
  const body = response.body;
  if (!isJsonObject(body) || !Array.isArray(body.data)) throw invalidBody('not a list');
  const meta = body.meta;
  const results = isJsonObject(meta) ? meta.results : undefined;
  const total = isJsonObject(results) ? results.total : undefined;
  if (typeof total !== 'number' || !Number.isInteger(total) || total < 0) {
    throw invalidBody('list without results.total');
  }
  for (const row of body.data) {
    if (!isJsonObject(row) || typeof row.id !== 'string') throw invalidBody('list row without id');
  }
  return { data: body.data as JsonObject[], total };
}
