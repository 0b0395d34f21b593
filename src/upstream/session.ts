/**
 * Everything that belongs to one GraphQL request is born here and dies with it: the caller's
 * Authorization header, the upstream client bound to it, the call budget, the abort signal, the
 * per-request GET cache and the DataLoaders. Nothing here is module-level, so no request can see
 * another request's data or token.
 */
import { randomUUID } from 'node:crypto';
import DataLoader from 'dataloader';
import { type CallBudget, createCallBudget, DEFAULT_CALL_BUDGET } from './budget.ts';
import { createCallLane } from './call-slots.ts';
import {
  buildPath,
  createUpstreamClient,
  expectList,
  type JsonObject,
  type SendAttempt,
  type UpstreamClient,
  type UpstreamRequest,
  type UpstreamResponse,
} from './client.ts';
import {
  BadUserInputError,
  ClientClosedRequestError,
  UnauthenticatedError,
  UpstreamUnavailableError,
} from './errors.ts';
import { DEFAULT_FORWARDED_HEADERS, readForwardedHeaders } from './forwarded-headers.ts';
import { LightAbortSignal } from './light-signal.ts';
import type { PagingLimits } from './paging/plan.ts';
import { inClause, listQuery } from './paging/query.ts';
import { SharedReads } from './shared-reads.ts';
import type { UpstreamTransport } from './transport.ts';

/** The most ids one `in(id,…)` call asks for: the upstream's maximum page length. */
export const ID_BATCH_SIZE = 100;

/** How long one GraphQL operation may take by default, ms (`OPERATION_DEADLINE_MS`). */
export const DEFAULT_OPERATION_DEADLINE_MS = 15_000;

export interface GatewayContext {
  readonly requestId: string;
  readonly budget: CallBudget;
  /** Limits for the pagination planner, from the gateway options. */
  readonly paging: Partial<PagingLimits>;
  /**
   * Answers callers may share for a while (./shared-reads.ts): the gateway's one cache beyond
   * the operation, for what the schema can key by what served it.
   */
  readonly shared: SharedReads;
  /** A GET, made at most once per operation for one path and query. */
  get(
    segments: readonly string[],
    query?: Record<string, string | undefined>,
  ): Promise<UpstreamResponse>;
  /** A write (POST/PUT/DELETE); afterwards cached reads are forgotten, they may be stale. */
  write(request: UpstreamRequest): Promise<UpstreamResponse>;
  /**
   * Rows of one v2 list (e.g. ['orders']) by id, batched into `filter=in(id,…)` calls of up to
   * 100 ids; null when the store has no such row.
   */
  byIdLoader(listSegments: readonly string[]): DataLoader<string, JsonObject | null>;
  /**
   * Rows of one list by another unique attribute (`sku`, `slug`), batched into
   * `filter=in(<attribute>,…)` calls of up to 100 values, with `query` (e.g. `include`) on each;
   * the value is read from the row's `attributes` (PXM, catalog) or beside its id (v2). Values
   * must be judged by the caller; one that would change the filter (`, ( ) : "` or a space, or
   * over 255 characters) is BAD_USER_INPUT. Null when no row has it.
   */
  byAttributeLoader(
    listSegments: readonly string[],
    attribute: string,
    query?: Readonly<Record<string, string>>,
  ): DataLoader<string, JsonObject | null>;
  /**
   * A read the upstream takes as a POST (`/v2/inventories/multiple`): not cached, and unlike
   * `write` it leaves the cached reads alone.
   */
  postRead(request: Omit<UpstreamRequest, 'method'>): Promise<UpstreamResponse>;
  /**
   * The operation's batch loader under `key`, made by `create` on first use: fields of many rows
   * that need one more upstream read each (a product's stock) share one call per batch.
   */
  batchLoader<K, V>(key: string, create: () => DataLoader<K, V>): DataLoader<K, V>;
  /**
   * The operation's result is final: every upstream call it still has in flight or waiting for a
   * slot is aborted (a field that failed can settle the answer while its siblings' calls are
   * still out; nobody will read what they bring), and its deadline timer goes now rather than
   * when it would have fired, so a finished request leaves nothing behind to outlive it (at
   * hundreds of requests a second, 15 s of live timers and signals was what the garbage
   * collector spent its time on).
   */
  finish(): void;
  /** The caller's request headers: read them only through `forwardedHeaders(context)`. */
  readonly callerHeaders: RequestLike['headers'];
  /**
   * What the operation itself says of the shopper's context (`@inContext`, set before any
   * resolver runs: src/schema/in-context.ts): headers over the caller's. A holder, so the copies
   * of the context a GraphQL server makes share it.
   */
  readonly operation: {
    headers?: Readonly<Record<string, string>> | undefined;
    /** The operation's language for money's `formatted` (src/schema/money.ts), once read. */
    locale?: string | null;
    /**
     * The operation answers in parts (`@defer`/`@stream`, src/gateway/incremental.ts): its
     * connections hand out their edges page by page as the upstream answers them.
     */
    incremental?: boolean;
  };
  /** The allow-list of caller headers forwarded upstream (lowercase names). */
  readonly forwardHeaderNames: readonly string[];
  /**
   * A new session with this one's caller (Authorization, forwarded headers, the operation's
   * `@inContext`): its own budget, deadline, caches and loaders. A subscription outlives any
   * deadline and must not serve one event from another's cache, so each of its events is read
   * in a fork (src/gateway/subscriptions.ts), finished when that event's answer is.
   */
  fork(): GatewayContext;
}

/**
 * The caller's allow-listed headers (e.g. `x-moltin-customer-token`), judged, or undefined when
 * none was sent; a bad value throws BAD_USER_INPUT (and no upstream call is made). A function,
 * not a context method: a request that never asks costs no closure.
 */
export function forwardedHeaders(
  context: GatewayContext,
): Readonly<Record<string, string>> | undefined {
  return withOperationContext(
    readForwardedHeaders(context.callerHeaders, context.forwardHeaderNames),
    context.operation.headers,
  );
}

/** The caller's forwarded headers with the operation's own context laid over them. */
function withOperationContext(
  caller: Readonly<Record<string, string>> | undefined,
  operation: Readonly<Record<string, string>> | undefined,
): Readonly<Record<string, string>> | undefined {
  return operation === undefined ? caller : { ...caller, ...operation };
}

export interface ContextFactoryOptions {
  transport: UpstreamTransport;
  /** Upstream calls allowed per operation. Default DEFAULT_CALL_BUDGET (./budget.ts). */
  callBudget?: number;
  /** Limits for the pagination planner (defaults in ./paging/plan.ts). */
  paging?: Partial<PagingLimits>;
  /** Deadline of one operation, after which its upstream calls are aborted. Default 15,000 ms. */
  operationDeadlineMs?: number;
  /** The attempt function (resilience wraps the default one). */
  send?: SendAttempt;
  /** Caller headers forwarded upstream (lowercase names). Default DEFAULT_FORWARDED_HEADERS. */
  forwardHeaders?: readonly string[];
  /** Answers callers may share for a while; default: none kept. */
  shared?: SharedReads;
}

/**
 * The part of an abort signal the context relies on. Server adapters hand over signals that are
 * not Node's own: @whatwg-node's is an object that only inherits from AbortSignal, and Node 26's
 * `AbortSignal.any` refuses anything but the real thing.
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
}

export interface RequestLike {
  headers: { get(name: string): string | null };
  signal?: AbortSignalLike | undefined;
}

/** The reason of the deadline's abort: AbortSignal.timeout's own message. */
const DEADLINE_MESSAGE = 'The operation was aborted due to timeout';

/**
 * The reason calls still out when the operation's result is final are aborted with. Nobody reads
 * it (the answer is written already); it is one shared object because it carries nothing of any
 * request, and the breaker counts it as neither success nor failure ('aborted').
 */
const FINISHED = new UpstreamUnavailableError(
  'The operation had its answer; its remaining upstream calls were cancelled',
  { reason: 'aborted' },
);

// RFC 6750 b64token after exactly one space; anything else is not a bearer credential.
const BEARER = /^Bearer [A-Za-z0-9\-._~+/]+=*$/i;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Why the caller cannot reach the upstream, or their verbatim Authorization value. */
export function readAuthorization(
  header: string | null,
): { ok: true; authorization: string } | { ok: false; reason: string } {
  if (header === null || header.trim() === '') {
    return { ok: false, reason: 'Send an Authorization: Bearer <token> header' };
  }
  if (header.length > 4096 || !BEARER.test(header)) {
    return { ok: false, reason: 'The Authorization header is not of the form "Bearer <token>"' };
  }
  return { ok: true, authorization: header };
}

export function createContextFactory(options: ContextFactoryOptions) {
  const budgetLimit = options.callBudget ?? DEFAULT_CALL_BUDGET;
  const deadlineMs = options.operationDeadlineMs ?? DEFAULT_OPERATION_DEADLINE_MS;
  const forwardNames = options.forwardHeaders ?? DEFAULT_FORWARDED_HEADERS;
  const shared = options.shared ?? new SharedReads({ catalogCacheSeconds: 0 });
  // One object for every request: the planner resolves its limits once per object.
  const paging = options.paging ?? {};

  /** `trace`: the operation's span when tracing (AttemptContext.trace), opaque here. */
  return function createContext(request: RequestLike, trace?: unknown): GatewayContext {
    const incomingId = request.headers.get('x-request-id');
    const requestId = incomingId && REQUEST_ID.test(incomingId) ? incomingId : randomUUID();
    const deadlineAt = Date.now() + deadlineMs;
    // Aborts when the client goes away or the operation deadline passes; given to every upstream
    // call. Built on first upstream use only: a timer and a combined signal per request cost
    // measurable CPU, and many operations (introspection, judged-bad input, no token) never call
    // upstream. It is deliberately not a context property: envelop copies the context with
    // Object.assign, which would read a getter and build it for every request.
    let signal: AbortSignal | undefined;
    let abortOperation: ((reason: unknown) => void) | undefined;
    let clearDeadline: (() => void) | undefined;
    const getSignal = (): AbortSignal => {
      if (signal === undefined) {
        // One light signal (./light-signal.ts: no EventTarget, so no listener cap to raise for an
        // operation's many calls in flight) and one unref'd timer: what AbortSignal.timeout +
        // AbortSignal.any do, for a fraction of their cost. Only this closure aborts it, so each
        // way of aborting clears the timer itself (no listener).
        const controller = new LightAbortSignal();
        signal = controller.asSignal;
        const timer = setTimeout(
          () => controller.abort(new DOMException(DEADLINE_MESSAGE, 'TimeoutError')),
          Math.max(1, deadlineAt - Date.now()),
        );
        timer.unref();
        abortOperation = (reason) => {
          clearTimeout(timer);
          controller.abort(reason);
        };
        clearDeadline = () => clearTimeout(timer);
        // The request's own signal aborts when the client goes away: its calls end as a client
        // cancellation (CLIENT_CLOSED_REQUEST in logs and metrics), never as an upstream failure.
        const source = request.signal;
        const clientClosed = () =>
          abortOperation?.(
            new ClientClosedRequestError('The client closed the request', {
              cause: source?.reason,
            }),
          );
        if (source?.aborted) clientClosed();
        else source?.addEventListener('abort', clientClosed, { once: true });
      }
      return signal;
    };
    const budget = createCallBudget(budgetLimit);
    const auth = readAuthorization(request.headers.get('authorization'));

    let client: UpstreamClient | undefined;
    const upstream = (): UpstreamClient => {
      if (!auth.ok) throw new UnauthenticatedError(auth.reason);
      client ??= createUpstreamClient({
        // Read once, with the client: a request that never calls upstream never reads them.
        headers: withOperationContext(
          readForwardedHeaders(request.headers, forwardNames),
          operation.headers,
        ),
        transport: options.transport,
        authorization: auth.authorization,
        requestId,
        budget,
        signal: getSignal(),
        deadlineAt,
        send: options.send,
        trace,
        // The operation's share of the pool: capped, and taking turns with other operations.
        lane: createCallLane(),
      });
      return client;
    };

    // Calls not yet settled (sent, queued for a slot or waiting to retry): finish() aborts only
    // when there is one, since an abort dispatches an event through every listener.
    let open = 0;
    const settled = () => {
      open -= 1;
    };
    const track = (call: Promise<UpstreamResponse>): Promise<UpstreamResponse> => {
      open += 1;
      call.then(settled, settled);
      return call;
    };

    const operation: GatewayContext['operation'] = {};
    const getCache = new Map<string, Promise<UpstreamResponse>>();
    // Made on first use: most operations use no loader.
    let byIdLoaders: Map<string, DataLoader<string, JsonObject | null>> | undefined;
    let batchLoaders: Map<string, DataLoader<unknown, unknown>> | undefined;

    const get: GatewayContext['get'] = (segments, query) => {
      // The path as sent is the identity of a GET (buildPath also refuses a bad segment).
      let key: string;
      try {
        key = buildPath('', segments, query);
      } catch (error) {
        return Promise.reject(error);
      }
      let pending = getCache.get(key);
      if (pending === undefined) {
        pending = track(upstream().request({ method: 'GET', segments, query, path: key }));
        // A failed GET is not remembered: a later field may legitimately try again.
        pending.catch(() => getCache.delete(key));
        getCache.set(key, pending);
      }
      return pending;
    };

    const context: GatewayContext = {
      requestId,
      paging,
      shared,
      budget,
      get,
      callerHeaders: request.headers,
      forwardHeaderNames: forwardNames,
      operation,
      async write(writeRequest) {
        const response = await track(upstream().request(writeRequest));
        getCache.clear();
        if (byIdLoaders) for (const loader of byIdLoaders.values()) loader.clearAll();
        if (batchLoaders) for (const loader of batchLoaders.values()) loader.clearAll();
        return response;
      },
      postRead(readRequest) {
        return track(upstream().request({ ...readRequest, method: 'POST' }));
      },
      batchLoader<K, V>(key: string, create: () => DataLoader<K, V>): DataLoader<K, V> {
        batchLoaders ??= new Map();
        let loader = batchLoaders.get(key) as DataLoader<K, V> | undefined;
        if (loader === undefined) {
          loader = create();
          batchLoaders.set(key, loader as DataLoader<unknown, unknown>);
        }
        return loader;
      },
      byIdLoader(listSegments) {
        const key = listSegments.join('/');
        byIdLoaders ??= new Map();
        let loader = byIdLoaders.get(key);
        if (loader === undefined) {
          loader = new DataLoader<string, JsonObject | null>(
            async (ids) => {
              const response = await get(
                listSegments,
                listQuery({ limit: ids.length, offset: 0, filter: inClause('id', ids) }),
              );
              const byId = new Map(expectList(response).data.map((row) => [row.id, row]));
              return ids.map((id) => byId.get(id) ?? null);
            },
            { maxBatchSize: ID_BATCH_SIZE },
          );
          byIdLoaders.set(key, loader);
        }
        return loader;
      },
      byAttributeLoader(listSegments, attribute, query) {
        const key = JSON.stringify([listSegments, attribute, query ?? {}]);
        byIdLoaders ??= new Map();
        let loader = byIdLoaders.get(key);
        if (loader === undefined) {
          loader = new DataLoader<string, JsonObject | null>(
            async (values) => {
              // A bad value fails alone, before any call; the others are still looked up.
              const refused = values.map((value) => refuseFilterValue(attribute, value));
              const good = values.filter((_, i) => refused[i] === undefined);
              const byValue = new Map<unknown, JsonObject>();
              if (good.length > 0) {
                const response = await get(
                  listSegments,
                  listQuery(
                    { limit: good.length, offset: 0, filter: inClause(attribute, good) },
                    query,
                  ),
                );
                for (const row of expectList(response).data) {
                  const value = attributeOf(row, attribute);
                  if (value !== undefined && !byValue.has(value)) byValue.set(value, row);
                }
              }
              return values.map((value, i) => refused[i] ?? byValue.get(value) ?? null);
            },
            { maxBatchSize: ID_BATCH_SIZE },
          );
          byIdLoaders.set(key, loader);
        }
        return loader;
      },
      finish() {
        if (open > 0) abortOperation?.(FINISHED);
        else clearDeadline?.();
      },
      fork() {
        const forked = createContext(request, trace);
        if (operation.headers !== undefined) forked.operation.headers = operation.headers;
        return forked;
      },
    };
    return context;
  };
}

// A value that would end the `in(…)` list, start another filter (`:`) or quote.
const FILTER_BREAKING = /[\s,():"\\]/;

function refuseFilterValue(attribute: string, value: string): BadUserInputError | undefined {
  if (value.length > 0 && value.length <= 255 && !FILTER_BREAKING.test(value)) return undefined;
  return new BadUserInputError(
    `A ${attribute} must be 1-255 characters without spaces, commas, parentheses, colons or quotes`,
    { field: attribute },
  );
}

function attributeOf(row: JsonObject, attribute: string): unknown {
  if (attribute === 'id') return row.id;
  const attributes = row.attributes;
  if (typeof attributes === 'object' && attributes !== null && attribute in attributes) {
    return (attributes as JsonObject)[attribute];
  }
  return row[attribute];
}
