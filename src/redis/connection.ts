/**
 * The gateway's one connection to Redis (`REDIS_URL`), for what replicas share: the event bus's
 * stream (src/gateway/events/redis-bus.ts), the shared catalog reads
 * (src/upstream/shared-reads.ts) and the limits' buckets (src/limits/). ioredis is loaded only
 * here and only when a URL is given: without REDIS_URL nothing of it runs.
 *
 * What a Redis that is down does:
 * - at startup, `connectRedis` fails within `timeoutMs` with an error naming REDIS_URL (and the
 *   address, never the password): a replica that was told to share must not start alone;
 * - later, every command fails within `timeoutMs` (no offline queue: a command sent while the
 *   connection is down fails at once), and each user of the connection degrades on its own
 *   terms (limits per process, catalog reads not shared, the bus's reader retrying), while
 *   ioredis reconnects in the background. No request ever waits on Redis longer than that.
 */
import type { Redis, RedisOptions } from 'ioredis';

/** Every key the gateway writes in Redis starts with this (`KEYS commerce-gateway:*` finds them). */
export const REDIS_PREFIX = 'commerce-gateway:';

/** How long one Redis command may take before it fails, ms (`REDIS_TIMEOUT_MS`). */
export const DEFAULT_REDIS_TIMEOUT_MS = 500;

export interface RedisConnectionOptions {
  /** Longest wait for one command, and for the connection at startup, ms. Default 500. */
  timeoutMs?: number;
  /** Told when the connection is lost or comes back (once per change), for the log. */
  onStateChange?: (up: boolean, detail: string) => void;
}

export interface RedisConnection {
  /** The commands' connection: never blocks, every command bounded by the timeout. */
  readonly client: Redis;
  /** `redis://host:port/db` without credentials: what logs and errors may show. */
  readonly address: string;
  readonly timeoutMs: number;
  /**
   * A connection of its own for a blocking reader (XREAD BLOCK): its commands may wait
   * `blockMs` plus the timeout. Closed with this one.
   */
  blocking(name: string, blockMs: number): Redis;
  close(): Promise<void>;
}

/** The URL without user or password, for messages. */
export function redisAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return 'redis://?';
  }
}

function baseOptions(timeoutMs: number, name: string): RedisOptions {
  return {
    lazyConnect: true,
    connectTimeout: Math.max(timeoutMs, 1_000),
    commandTimeout: timeoutMs,
    // A command sent while the connection is down fails at once instead of waiting for it.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // Reconnect forever, at most every 2 s: Redis coming back is noticed without a restart.
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), 2_000),
    connectionName: name,
  };
}

/**
 * Connects and checks Redis answers (PING) within `timeoutMs`; rejects with an error naming
 * REDIS_URL otherwise.
 */
export async function connectRedis(
  url: string,
  options: RedisConnectionOptions = {},
): Promise<RedisConnection> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
  const address = redisAddress(url);
  const { Redis } = await import('ioredis');
  const client = new Redis(url, baseOptions(timeoutMs, 'commerce-gateway'));
  const extra: Redis[] = [];
  // Changes are told once the first connection is made: startup itself says nothing.
  let up = false;
  let started = false;
  client.on('error', (error: Error) => {
    if (!started || !up) return;
    up = false;
    options.onStateChange?.(false, error.message);
  });
  client.on('ready', () => {
    if (!started || up) return;
    up = true;
    options.onStateChange?.(true, address);
  });
  try {
    await withTimeout(
      (async () => {
        await client.connect();
        await client.ping();
      })(),
      Math.max(timeoutMs, 1_000) * 2,
    );
    up = true;
    started = true;
  } catch (error) {
    client.disconnect();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`REDIS_URL: Redis at ${address} does not answer (${reason})`, {
      cause: error,
    });
  }
  return {
    client,
    address,
    timeoutMs,
    blocking(name, blockMs) {
      const reader = new Redis(url, {
        ...baseOptions(timeoutMs, name),
        commandTimeout: blockMs + timeoutMs + 1_000,
        // The reader's loop waits for the connection itself (see redis-bus.ts).
        enableOfflineQueue: true,
        lazyConnect: false,
      });
      reader.on('error', () => {});
      extra.push(reader);
      return reader;
    },
    async close() {
      for (const reader of extra) reader.disconnect();
      try {
        await withTimeout(client.quit(), timeoutMs);
      } catch {
        client.disconnect();
      }
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
