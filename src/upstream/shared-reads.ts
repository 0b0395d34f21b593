/**
 * Answers every caller may share for a while: the one place the gateway keeps an upstream
 * answer beyond the operation that read it. Only what the schema can key by what served it goes
 * in (a catalog node by the catalog and release the caller's own product answer named, see
 * src/schema/catalog/shared-catalog.ts), so a caller is never given what the upstream would not
 * have given them; an entry lives `catalogCacheSeconds` at most, and the oldest go first past
 * `maxEntries`.
 *
 * With REDIS_URL the answers are shared by every replica too (`remote`, createRedisReads): an
 * entry missing here is looked for in Redis before the upstream is asked, and what is read from
 * the upstream goes to both. Redis holds the upstream's own JSON (the reader makes the value
 * again from it), under a namespaced SHA-256 of the key (no header or token in clear), for the
 * same time, and only up to `maxBytes`. Without Redis nothing of this runs: `get` stays one Map
 * lookup.
 */
import { createHash } from 'node:crypto';
/**
 * How long a shared answer is served by default, seconds: a minute. The one default of
 * `CATALOG_CACHE_SECONDS`, which keeps its name and unit from the environment (src/config/) through
 * createGateway's and createUpstream's options to here.
 */
export const DEFAULT_CATALOG_CACHE_SECONDS = 60;

/** The most `CATALOG_CACHE_SECONDS` may be: an hour. */
export const MAX_CATALOG_CACHE_SECONDS = 3600;

export interface SharedReadsOptions {
  /** How long an entry is served, seconds (`CATALOG_CACHE_SECONDS`); 0 keeps nothing. */
  catalogCacheSeconds: number;
  /** Entries kept at most (default 10,000). */
  maxEntries?: number;
  /** Milliseconds now (tests move it). */
  now?: () => number;
  /** The replicas' shared entries (createRedisReads); default none. */
  remote?: RemoteReads;
}

/** Entries every replica reads: the upstream's JSON text, until an epoch ms. */
export interface RemoteReads {
  /** The text kept under `key`, with when it stops being served; undefined when none (or Redis fails). */
  get(key: string): Promise<{ text: string; until: number } | undefined>;
  /** Keeps `text` until `until` (epoch ms); a text over the size bound is not kept. Never throws. */
  set(key: string, text: string, until: number): void;
}

/** The commands createRedisReads uses (ioredis's `Redis` has them). */
export interface RedisReadsClient {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, px: 'PX', ms: number): Promise<unknown>;
}

/** The largest text shared through Redis, bytes: a children page of 100 rows fits many times. */
export const MAX_REMOTE_BYTES = 512 * 1024;

/**
 * Shared reads in Redis under `<prefix>catalog:<sha256 of the origin and the key>`: a failing Redis is a miss
 * (the upstream is asked), never an error of the request; commands are bounded by the
 * connection's timeout (src/redis/connection.ts).
 */
export function createRedisReads(
  client: RedisReadsClient,
  options: {
    prefix: string;
    /**
     * The upstream origin the answers came from, hashed into every key: gateways of two
     * upstreams on one Redis never read each other's entries.
     */
    origin: string;
    maxBytes?: number;
    now?: () => number;
  },
): RemoteReads {
  const maxBytes = options.maxBytes ?? MAX_REMOTE_BYTES;
  const now = options.now ?? Date.now;
  const scope = `${options.origin}\u0000`;
  const redisKey = (key: string) =>
    `${options.prefix}catalog:${createHash('sha256').update(scope).update(key).digest('base64url')}`;
  return {
    async get(key) {
      let stored: string | null;
      try {
        stored = await client.get(redisKey(key));
      } catch {
        return undefined;
      }
      if (stored === null) return undefined;
      const newline = stored.indexOf('\n');
      const until = Number(stored.slice(0, newline));
      if (newline < 1 || !Number.isFinite(until) || until <= now()) return undefined;
      return { text: stored.slice(newline + 1), until };
    },
    set(key, text, until) {
      const ms = Math.floor(until - now());
      if (ms <= 0 || text.length > maxBytes || Buffer.byteLength(text) > maxBytes) return;
      client.set(redisKey(key), `${until}\n${text}`, 'PX', ms).catch(() => {});
    },
  };
}

interface Entry {
  value: unknown;
  expires: number;
}

export class SharedReads {
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();
  /** The replicas' shared entries, with REDIS_URL; undefined otherwise. */
  readonly remote: RemoteReads | undefined;

  constructor(options: SharedReadsOptions) {
    this.#ttlMs = options.catalogCacheSeconds * 1000;
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#now = options.now ?? Date.now;
    this.remote = this.#ttlMs > 0 ? options.remote : undefined;
  }

  /**
   * When an entry set now would stop being served (epoch ms): the TTL, or `until` when that
   * comes first; undefined when it would not be kept at all.
   */
  expiry(until?: number): number | undefined {
    if (this.#ttlMs <= 0) return undefined;
    const now = this.#now();
    const expires = Math.min(now + this.#ttlMs, until ?? Number.POSITIVE_INFINITY);
    return expires > now ? expires : undefined;
  }

  /** Whether anything is kept at all (CATALOG_CACHE_SECONDS=0 keeps nothing). */
  get enabled(): boolean {
    return this.#ttlMs > 0;
  }

  /** The value under `key` while it is fresh; undefined otherwise. */
  get(key: string): unknown {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Keeps `value` for the TTL, or until `until` (epoch ms) when that comes first. */
  set(key: string, value: unknown, until?: number): void {
    if (this.#ttlMs <= 0) return;
    const expires = Math.min(this.#now() + this.#ttlMs, until ?? Number.POSITIVE_INFINITY);
    if (expires <= this.#now()) return;
    // Re-inserted keys move to the end: the oldest entry is the Map's first.
    this.#entries.delete(key);
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expires });
  }

  /** Entries held now (fresh or not yet swept). */
  get size(): number {
    return this.#entries.size;
  }
}
