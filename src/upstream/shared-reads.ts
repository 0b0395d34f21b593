/**
 * Answers every caller may share for a while: the one place the gateway keeps an upstream
 * answer beyond the operation that read it. Only what the schema can key by what served it goes
 * in (a catalog node by the catalog and release the caller's own product answer named, see
 * src/schema/catalog/shared-catalog.ts), so a caller is never given what the upstream would not
 * have given them; an entry lives `catalogCacheSeconds` at most, and the oldest go first past
 * `maxEntries`.
 */
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

  constructor(options: SharedReadsOptions) {
    this.#ttlMs = options.catalogCacheSeconds * 1000;
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#now = options.now ?? Date.now;
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
