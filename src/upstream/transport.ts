/**
 * The one connection to an upstream origin: one undici Pool, created once per gateway by the
 * front door (./index.ts) and shared by every call to that origin — the resolvers' calls, the
 * typed schema's definitions, the gateway's own token, the readiness probe — its connections
 * handed out fairly between operations (./call-slots.ts). `exchange` is one request on the pool,
 * its body read whole; what the answer means is ./answers.ts's, who may send what ./client.ts's.
 */
import { rootCertificates } from 'node:tls';
import { type Dispatcher, Pool } from 'undici';
import {
  type CallLane,
  type CallSlots,
  createCallLane,
  createCallSlots,
  DEFAULT_POOL_CONNECTIONS,
} from './call-slots.ts';
import { UpstreamUnavailableError } from './errors.ts';
import type { AttemptWatch, UpstreamMethod } from './observer.ts';
import type { Shaper } from './shaper.ts';

export type { UpstreamMethod } from './observer.ts';

/** Connection settings of the shared pool; every value has a default. */
export interface UpstreamPoolOptions {
  /**
   * Sockets to the upstream origin for calls (operations', tokens, definitions). Default 64. The
   * pool keeps one more for the readiness probe, so a pool busy with slow calls still probes at
   * once.
   */
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
  /**
   * Certificate authorities (PEM) trusted for an https upstream besides the system's: the
   * embedded service's development authority when it serves HTTPS (COMMERCE_HTTPS).
   */
  ca?: string;
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
  /** The lane of calls made outside any operation (definitions, tokens, the probe). */
  readonly sharedLane: CallLane;
  readonly maxResponseBytes: number;
  /**
   * What watches the attempts sent on this transport (metrics, traces), combined from the
   * observers given to the front door (./observer.ts); undefined when nothing watches.
   */
  watch: AttemptWatch | undefined;
  /**
   * Paces the calls sent with a token under the store's rate (`UPSTREAM_RATE_LIMIT`,
   * ./shaper.ts); undefined: unpaced.
   */
  shaper: Shaper | undefined;
  close(): Promise<void>;
}

export function createUpstreamTransport(
  baseUrl: string,
  options: UpstreamPoolOptions = {},
): UpstreamTransport {
  const url = new URL(baseUrl);
  const connections = options.connections ?? DEFAULT_POOL_CONNECTIONS;
  const pool = new Pool(url.origin, {
    // The slots below never let more than `connections` calls out; the one beyond is the probe's.
    connections: connections + 1,
    connect: {
      timeout: options.connectTimeoutMs ?? 2_000,
      ...(options.ca === undefined ? {} : { ca: [...rootCertificates, options.ca] }),
    },
    headersTimeout: options.headersTimeoutMs ?? 10_000,
    bodyTimeout: options.bodyTimeoutMs ?? 10_000,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000,
    // A Pool never follows redirects by itself (no redirect interceptor is composed in): a 3xx
    // reaches the client and becomes an error, so a token can never follow a Location.
  });
  return {
    origin: url.origin,
    basePath: url.pathname.replace(/\/+$/, ''),
    pool,
    slots: createCallSlots(
      connections,
      Math.min(connections, options.perOperation ?? Math.max(1, Math.floor(connections / 4))),
    ),
    sharedLane: createCallLane(),
    maxResponseBytes: options.maxResponseBytes ?? 8 * 1024 * 1024,
    watch: undefined,
    shaper: undefined,
    close: () => pool.close(),
  };
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One request on the pool through undici's dispatch API: the body is collected straight from
 * the parser's chunks into one string, bounded in size, so the socket goes back to the pool at
 * its end. No Readable stream, no request handler object of undici's request API: list pages
 * are read for every connection field, and that machinery cost more than the bytes themselves.
 * The signal aborts the request in flight (and one never sent).
 */
export function exchange(
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

/**
 * One request made outside any operation (the gateway's own token, the typed schema's
 * definitions): it takes its turn for a connection on the shared lane, like every call, and
 * carries only the headers given here (never a caller's).
 */
export async function exchangeOnSharedLane(
  transport: UpstreamTransport,
  method: UpstreamMethod,
  path: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal | undefined,
): Promise<RawAnswer> {
  const paced = transport.shaper?.acquire(signal);
  if (paced !== undefined) await paced;
  const lane = transport.sharedLane;
  const waiting = transport.slots.acquire(lane, signal);
  if (waiting !== undefined) await waiting;
  try {
    return await exchange(transport, method, `${transport.basePath}${path}`, headers, body, signal);
  } finally {
    transport.slots.release(lane);
  }
}

/**
 * Whether the origin answers HTTP at all: an unauthenticated `GET /v2` (a 401 proves it as well
 * as a 200) within `timeoutMs`. It takes no slot: it goes on the pool's connection beyond the
 * slots' capacity, so readiness says whether the origin answers, not whether the gateway's own
 * calls keep every connection busy.
 */
export async function probeOrigin(
  transport: UpstreamTransport,
  timeoutMs: number,
): Promise<boolean> {
  try {
    await exchange(
      transport,
      'GET',
      `${transport.basePath}/v2`,
      { accept: 'application/json' },
      undefined,
      AbortSignal.timeout(timeoutMs),
    );
    return true;
  } catch {
    return false;
  }
}
