/**
 * Token buckets by key: `rate` tokens a second, at most `burst` kept. The per-caller limit
 * (src/gateway/caller-limit.ts) and the per-store shaper (src/upstream/shaper.ts) both take
 * their tokens here, per process (createLocalBuckets) or shared by every replica through Redis
 * (createSharedBuckets).
 *
 * `take(key)` answers 0 when a token was taken, else how long until one may be, ms. Locally
 * that is a few arithmetic operations and no allocation once the key is known. Shared, each
 * replica leases a few tokens at a time from the Redis bucket (one atomic Lua script, Redis's
 * own clock) and spends them locally, so a caller well under the limit costs one round trip
 * per lease, not per request; a lease lives `leaseMs` at most. A lease only ever holds tokens
 * the Redis bucket gave up, so replicas together never admit more than the bucket allows (a
 * lease that expires unused admits less: the error is on the safe side, and bounded by the
 * lease size times the replicas). A key refused by Redis is refused locally until the time
 * Redis named, without asking again. While Redis does not answer, the shared buckets fall back
 * to this process's own (the limit then holds per replica) and say so once.
 */

import { createHash } from 'node:crypto';

/** A verdict: 0 = a token was taken; n > 0 = none, the next in n ms. */
export type Wait = number;

export interface Buckets {
  readonly rate: number;
  readonly burst: number;
  take(key: string): Wait | Promise<Wait>;
  close?(): void;
}

export interface BucketOptions {
  /** Tokens added a second. */
  rate: number;
  /** Most tokens a bucket holds (what an idle key may spend at once). */
  burst: number;
  /** Keys kept at most; full buckets go first past it. Default 100,000. */
  maxKeys?: number;
  now?: () => number;
}

interface LocalBucket {
  tokens: number;
  at: number;
}

export function createLocalBuckets(options: BucketOptions): Buckets {
  const { rate, burst } = options;
  const maxKeys = options.maxKeys ?? 100_000;
  const now = options.now ?? Date.now;
  const buckets = new Map<string, LocalBucket>();
  const msPerToken = 1_000 / rate;

  /** Past maxKeys: drop the buckets that are full by now (the same as no bucket), else the oldest. */
  const sweep = (at: number) => {
    for (const [key, bucket] of buckets) {
      if (bucket.tokens + (at - bucket.at) / msPerToken >= burst) buckets.delete(key);
    }
    while (buckets.size >= maxKeys) {
      const oldest = buckets.keys().next();
      if (oldest.done) break;
      buckets.delete(oldest.value);
    }
  };

  return {
    rate,
    burst,
    take(key) {
      const at = now();
      let bucket = buckets.get(key);
      if (bucket === undefined) {
        if (buckets.size >= maxKeys) sweep(at);
        bucket = { tokens: burst, at };
        buckets.set(key, bucket);
      } else if (at > bucket.at) {
        bucket.tokens = Math.min(burst, bucket.tokens + (at - bucket.at) / msPerToken);
        bucket.at = at;
      }
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - bucket.tokens) * msPerToken));
    },
  };
}

/**
 * Takes up to `want` tokens from the bucket at KEYS[1] (ARGV: rate a second, burst, want) on
 * Redis's clock. Returns {granted, wait ms until the next token when fewer than wanted}. The
 * bucket expires once it would be full again: an absent bucket is a full one.
 */
export const TAKE_SCRIPT = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local kept = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(kept[1])
local at = tonumber(kept[2])
if tokens == nil or at == nil then
  tokens = burst
  at = now
end
if now > at then
  tokens = math.min(burst, tokens + (now - at) * rate / 1000)
  at = now
end
local granted = math.min(want, math.floor(tokens))
tokens = tokens - granted
local wait = 0
if granted < want then
  wait = math.max(1, math.ceil((1 - tokens) * 1000 / rate))
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(at))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) * 1000 / rate) + 1000)
return {granted, wait}
`;

/** What the shared buckets need of a Redis client (ioredis's `Redis` has it). */
export interface ScriptRunner {
  evalsha(sha: string, keys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, keys: number, ...args: (string | number)[]): Promise<unknown>;
}

export interface SharedBucketOptions extends BucketOptions {
  redis: ScriptRunner;
  /** The Redis key prefix of these buckets (namespaced by the caller). */
  prefix: string;
  /** Tokens leased at a time. Default: a twentieth of min(rate, burst), at least 1, at most 50. */
  lease?: number;
  /** How long a leased token may be spent, ms. Default 500. */
  leaseMs?: number;
  /** Told once when Redis stops answering (and the buckets go per process), and once when back. */
  onFallback?: (falling: boolean, detail: string) => void;
}

interface LeaseState {
  lease: number;
  leaseExpires: number;
  deniedUntil: number;
  asking: boolean;
  waiters: ((wait: Wait) => void)[];
}

/** The default lease: small beside the limit, so unspent leases cost little of it. */
export function defaultLease(rate: number, burst: number): number {
  return Math.max(1, Math.min(50, Math.floor(Math.min(rate, burst) / 20)));
}

export function createSharedBuckets(options: SharedBucketOptions): Buckets {
  const { rate, burst, redis, prefix } = options;
  const now = options.now ?? Date.now;
  const leaseSize = options.lease ?? defaultLease(rate, burst);
  const leaseMs = options.leaseMs ?? 500;
  const local = createLocalBuckets(options);
  const maxKeys = options.maxKeys ?? 100_000;
  const states = new Map<string, LeaseState>();
  let sha: string | undefined;
  let degraded = false;
  // While Redis does not answer, it is asked again at most once a second (a hung Redis would
  // otherwise cost every request the command timeout).
  let retryAt = 0;

  const run = async (key: string, want: number): Promise<[number, number]> => {
    const args = [1, prefix + key, rate, burst, want] as const;
    let reply: unknown;
    if (sha !== undefined) {
      try {
        reply = await redis.evalsha(sha, ...args);
      } catch (error) {
        if (!String((error as Error)?.message).includes('NOSCRIPT')) throw error;
        reply = undefined;
      }
    }
    if (reply === undefined) {
      reply = await redis.eval(TAKE_SCRIPT, ...args);
      sha ??= createHash('sha1').update(TAKE_SCRIPT).digest('hex');
    }
    const [granted, wait] = reply as [number, number];
    return [Number(granted), Number(wait)];
  };

  const ask = (key: string, state: LeaseState) => {
    state.asking = true;
    const want = Math.max(leaseSize, state.waiters.length);
    run(key, want).then(
      ([granted, wait]) => {
        if (degraded) {
          degraded = false;
          options.onFallback?.(false, 'Redis answers again: limits shared by every replica');
        }
        state.asking = false;
        const at = now();
        state.lease = granted;
        state.leaseExpires = at + leaseMs;
        while (state.lease > 0 && state.waiters.length > 0) {
          state.lease -= 1;
          (state.waiters.shift() as (wait: Wait) => void)(0);
        }
        if (state.waiters.length === 0) return;
        if (granted >= want) {
          ask(key, state);
          return;
        }
        state.deniedUntil = at + wait;
        const waiters = state.waiters.splice(0);
        for (const waiter of waiters) waiter(wait);
      },
      (error: unknown) => {
        retryAt = now() + 1_000;
        if (!degraded) {
          degraded = true;
          options.onFallback?.(
            true,
            `Redis does not answer (${error instanceof Error ? error.message : String(error)}): limits per replica until it does`,
          );
        }
        state.asking = false;
        const waiters = state.waiters.splice(0);
        for (const waiter of waiters) waiter(local.take(key) as Wait);
      },
    );
  };

  return {
    rate,
    burst,
    take(key) {
      let state = states.get(key);
      const at = now();
      if (state === undefined) {
        if (states.size >= maxKeys) {
          for (const [old, kept] of states) {
            if (!kept.asking && kept.waiters.length === 0) states.delete(old);
            if (states.size < maxKeys / 2) break;
          }
        }
        state = { lease: 0, leaseExpires: 0, deniedUntil: 0, asking: false, waiters: [] };
        states.set(key, state);
      }
      if (state.lease > 0 && at < state.leaseExpires && state.waiters.length === 0) {
        state.lease -= 1;
        return 0;
      }
      if (at < state.deniedUntil) return state.deniedUntil - at;
      if (degraded && at < retryAt) return local.take(key);
      const current = state;
      return new Promise<Wait>((resolve) => {
        current.waiters.push(resolve);
        if (!current.asking) ask(key, current);
      });
    },
  };
}
