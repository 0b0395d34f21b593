/**
 * The commerce REST client (v2, and the /pcm, /catalog and /catalogs roots): `sendUpstreamAttempt` performs exactly one HTTP attempt on the shared
 * transport (./transport.ts) and maps the answer to a typed error (./answers.ts), so resilience
 * (retries, breaker: ./resilience.ts) can wrap it; the per-request client (`createUpstreamClient`)
 * binds the caller's Authorization header, the request id, the call budget, the operation's
 * share of the pool and its abort signal.
 */
import { randomUUID } from 'node:crypto';
import {
  headerValue,
  invalidBody,
  networkError,
  parseSuccessBody,
  statusError,
} from './answers.ts';
import type { CallBudget } from './budget.ts';
import type { CallLane } from './call-slots.ts';
import { BadUserInputError } from './errors.ts';
import type { UpstreamAttempt } from './observer.ts';
import { budgetKey, routeTemplate, splitRoot } from './route-template.ts';
import {
  exchange,
  type RawAnswer,
  type UpstreamMethod,
  type UpstreamTransport,
} from './transport.ts';

/** One call to the v2 API, described without any caller secret. */
export interface UpstreamRequest {
  method: UpstreamMethod;
  /**
   * Path segments, raw; each is percent-encoded here. Below `/v2` unless the first one names
   * another root (`['/pcm', 'products']`, `['/catalog', 'nodes']`: route-template.ts).
   */
  segments: readonly string[];
  /** Query parameters (a list's: ./paging/query.ts); encoded here. */
  query?: Readonly<Record<string, string | undefined>>;
  /** JSON body for POST/PUT. */
  body?: unknown;
  /** `If-Match` for PUT/DELETE (a weak etag `W/"…"`). */
  ifMatch?: string;
  /** Headers of this call alone (e.g. the currency of a new cart); judged by the caller. */
  headers?: Readonly<Record<string, string>>;
  /**
   * `buildPath('', segments, query)` when the caller made it already (the session's GET cache
   * keys on it), so it is not built twice.
   */
  path?: string;
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

/**
 * Builds `/v2/a/b?x=y` (or `/pcm/a`, `/catalog/a`, `/catalogs/a` when the first segment names
 * that root) from raw segments, refusing segments that could change the path.
 */
export function buildPath(
  basePath: string,
  segments: readonly string[],
  query?: Readonly<Record<string, string | undefined>>,
): string {
  const { root, below } = splitRoot(segments);
  let path = `${basePath}${root}`;
  for (const segment of below) {
    // encodeURIComponent leaves '.' alone, so '.' and '..' would still walk up the tree.
    if (segment === '' || segment === '.' || segment === '..') {
      throw new BadUserInputError(`"${segment}" is not a valid path segment`);
    }
    path += `/${encodeURIComponent(segment)}`;
  }
  if (query) {
    let search = '';
    for (const key in query) {
      const value = query[key];
      if (value === undefined) continue;
      search += `${search === '' ? '?' : '&'}${formEncode(key)}=${formEncode(value)}`;
    }
    path += search;
  }
  return path;
}

const FORM_SAFE = /^[A-Za-z0-9*._-]*$/;
const FORM_EXTRA = /%20|[!'()~]/g;
const FORM_EXTRA_CODES: Record<string, string> = {
  '%20': '+',
  '!': '%21',
  "'": '%27',
  '(': '%28',
  ')': '%29',
  '~': '%7E',
};
/** `%XX` of every ASCII code a form encodes, '+' for the space; '' where it is kept as it is. */
const ASCII_FORM = Array.from({ length: 128 }, (_, code) => {
  const c = String.fromCharCode(code);
  if (/[A-Za-z0-9*._-]/.test(c)) return '';
  if (c === ' ') return '+';
  return `%${code.toString(16).toUpperCase().padStart(2, '0')}`;
});
/** Encoded non-ASCII keys and values seen lately (a search text, a name) recur. */
const encoded = new Map<string, string>();
const ENCODED_MAX = 1_000;

/**
 * application/x-www-form-urlencoded, byte for byte as URLSearchParams writes it (space as `+`,
 * every other character but `*-._` and alphanumerics percent-encoded), without building one
 * per request; most values (numbers, ids) need no encoding at all. ASCII text (a filter with its
 * pinned timestamp, new every millisecond) is encoded in one pass and not remembered: a cache
 * of values that never recur only grew, was cleared and grew again.
 */
function formEncode(text: string): string {
  if (FORM_SAFE.test(text)) return text;
  let result = '';
  let from = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code >= 128) return formEncodeAny(text);
    const escaped = ASCII_FORM[code] as string;
    if (escaped === '') continue;
    result += text.slice(from, i) + escaped;
    from = i + 1;
  }
  return result + text.slice(from);
}

function formEncodeAny(text: string): string {
  const known = encoded.get(text);
  if (known !== undefined) return known;
  let result: string;
  try {
    result = encodeURIComponent(text).replace(FORM_EXTRA, (c) => FORM_EXTRA_CODES[c] as string);
  } catch {
    // A lone surrogate: URLSearchParams writes U+FFFD for it, where encodeURIComponent throws.
    result = new URLSearchParams([['', text]]).toString().slice(1);
  }
  if (encoded.size >= ENCODED_MAX) encoded.clear();
  if (text.length <= 512) encoded.set(text, result);
  return result;
}

/**
 * One HTTP attempt: wait for a slot of the transport, send, read the whole body, map the
 * status. Never retries.
 */
export const sendUpstreamAttempt: SendAttempt = async (transport, request, context) => {
  const path =
    request.path === undefined
      ? buildPath(transport.basePath, request.segments, request.query)
      : transport.basePath + request.path;
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

  // The store's rate first (./shaper.ts): a call waiting its turn holds no connection slot.
  const paced = transport.shaper?.acquire(context.signal, context.deadlineAt);
  if (paced !== undefined) {
    context.onSlotWait?.(true);
    await paced;
    context.onSlotWait?.(false);
  }
  // Calls without an operation share the transport's lane.
  const lane = context.lane ?? transport.sharedLane;
  const waiting = transport.slots.acquire(lane, context.signal);
  if (waiting !== undefined) {
    context.onSlotWait?.(true);
    // Rejects with the signal's reason when it aborts first: then nothing was sent.
    await waiting;
    context.onSlotWait?.(false);
  }
  const watch = transport.watch;
  let attempt: UpstreamAttempt | undefined;
  let started: unknown;
  if (watch !== undefined) {
    attempt = {
      method: request.method,
      route: routeTemplate(request.segments),
      retry: context.attempt ?? 0,
      trace: context.trace,
      status: 0,
      error: undefined,
    };
    started = watch.start?.(attempt, headers);
  }
  let answer: RawAnswer;
  try {
    answer = await exchange(transport, request.method, path, headers, body, context.signal);
  } catch (error) {
    const failure = networkError(error, request.method);
    if (attempt !== undefined) {
      attempt.error = failure;
      watch?.end(attempt, started);
    }
    throw failure;
  } finally {
    // The socket is free once the answer is read (or the exchange failed).
    transport.slots.release(lane);
  }
  const { status, headers: responseHeaders, text } = answer;
  const etag = headerValue(responseHeaders.etag);
  if (attempt !== undefined) attempt.status = status;
  if (status >= 200 && status < 300) {
    if (attempt !== undefined) watch?.end(attempt, started);
    return { status, body: parseSuccessBody(status, responseHeaders, text), etag };
  }
  const failure = statusError(status, responseHeaders, text, context);
  if (attempt !== undefined) {
    attempt.error = failure;
    watch?.end(attempt, started);
  }
  throw failure;
};

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
      options.budget.consume(budgetKey(request.method, request.segments));
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
  if (body.included !== undefined) attachIncluded(body.data as JsonObject[], body.included);
  return { data: body.data as JsonObject[], total };
}

/**
 * The resources an answer carried beside its rows (`include=main_image,files` of the catalog:
 * `included: {main_images: […], files: […]}`, or a JSON:API array), by id, on every row of the
 * answer under this symbol, so a row's reader can resolve its relationships without another call.
 */
export const INCLUDED = Symbol('included');

function attachIncluded(rows: JsonObject[], included: unknown): void {
  const byId = new Map<string, JsonObject>();
  const lists = Array.isArray(included)
    ? [included]
    : isJsonObject(included)
      ? Object.values(included)
      : [];
  for (const list of lists) {
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (isJsonObject(item) && typeof item.id === 'string') byId.set(item.id, item);
    }
  }
  if (byId.size === 0) return;
  for (const row of rows) (row as Record<symbol, unknown>)[INCLUDED] = byId;
}

/** A resource an answer included, by id (see INCLUDED); undefined when it carried none. */
export function includedOf(row: JsonObject, id: string): JsonObject | undefined {
  const byId = (row as Record<symbol, unknown>)[INCLUDED] as Map<string, JsonObject> | undefined;
  return byId?.get(id);
}
