/**
 * The per-caller limit (`CALLER_RATE_LIMIT` requests a second, `CALLER_RATE_BURST` at once): a
 * token bucket per caller, taken when a GraphQL request is parsed — before its document is read,
 * and so before any upstream call — on Yoga's path and the fast path alike (both run
 * `onRequestParse`). Over it, the request is answered RATE_LIMITED with HTTP 429 and
 * `Retry-After` (CallerRateLimitedError), like the other refusals of a whole request
 * (./request-checks.ts).
 *
 * The caller is its bearer token (the whole Authorization header, hashed: no token is kept or
 * sent to Redis), or, without one, the address the connection comes from (`X-Forwarded-For` is
 * not read: any client can write it; behind a proxy, limit at the proxy or send tokens). The
 * buckets are this process's, or every replica's through Redis (src/limits/buckets.ts); a
 * request under the limit costs a hash lookup and a few arithmetic operations.
 */
import { createHash } from 'node:crypto';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import {
  type Buckets,
  createLocalBuckets,
  createSharedBuckets,
  defaultLease,
  type Wait,
} from '../limits/buckets.ts';
import { REDIS_PREFIX, type RedisConnection } from '../redis/connection.ts';
import { CallerRateLimitedError } from '../upstream/errors.ts';

/** Authorization header → bucket key, for the callers seen lately (hashing is the costly part). */
const KEYS_KEPT = 10_000;

export interface CallerLimitOptions {
  buckets: Buckets;
}

/** Takes a caller's token: 0 when taken, else ms until one may be (refused; none was taken). */
export type CallerTake = (
  authorization: string | null,
  address: string | undefined,
) => Wait | Promise<Wait>;

interface ServerContextLike {
  req?: { socket?: { remoteAddress?: string | undefined } };
}

function refusal(wait: number, rate: number): GraphQLError {
  const error = new CallerRateLimitedError(
    `Too many requests from this caller: the limit is ${rate} a second. Retry after the time ` +
      'Retry-After gives',
    { retryAfterMs: wait },
  );
  return new GraphQLError(error.message, { extensions: error.answerExtensions });
}

/** The caller's bucket key and a take of its token, shared by the plugin and the direct lane. */
export function callerTake(buckets: Buckets): CallerTake {
  const keys = new Map<string, string>();
  const keyOf = (authorization: string | null, address: string | undefined): string => {
    if (authorization !== null && authorization !== '') {
      let key = keys.get(authorization);
      if (key === undefined) {
        key = `t:${createHash('sha256').update(authorization).digest('base64url').slice(0, 32)}`;
        if (keys.size >= KEYS_KEPT) keys.clear();
        keys.set(authorization, key);
      }
      return key;
    }
    return `a:${address ?? 'unknown'}`;
  };
  return (authorization, address) => buckets.take(keyOf(authorization, address));
}

export function callerLimitPlugin(
  options: CallerLimitOptions,
  take = callerTake(options.buckets),
): Plugin {
  const { buckets } = options;
  const judge = (wait: Wait): void => {
    if (wait !== 0) throw refusal(wait, buckets.rate);
  };

  return {
    onRequestParse({ request, serverContext }) {
      const address = (serverContext as ServerContextLike | undefined)?.req?.socket?.remoteAddress;
      const wait = take(request.headers.get('authorization'), address);
      if (typeof wait === 'number') {
        judge(wait);
        return;
      }
      return wait.then(judge);
    },
  };
}

export interface CallerLimitSettings {
  /** Requests a second per caller (`CALLER_RATE_LIMIT`); 0: no limit, no plugin. */
  rate: number;
  /** Requests at once (`CALLER_RATE_BURST`); 0 or undefined: as many as `rate`. */
  burst?: number | undefined;
  /** The replicas' Redis: one bucket per caller for all of them. */
  redis?: RedisConnection | undefined;
  /** Told when the shared buckets fall back to this process and when they are shared again. */
  onSharedStateChange?: ((degraded: boolean, detail: string) => void) | undefined;
}

/** The per-caller limit's plugin when a rate is set: this process's buckets, or every replica's. */
export function callerLimitPlugins(settings: CallerLimitSettings): Plugin[] {
  return createCallerLimit(settings).plugins;
}

/** The per-caller limit: its plugin, and its take for the direct lane (none without a rate). */
export function createCallerLimit(settings: CallerLimitSettings): {
  plugins: Plugin[];
  take: CallerTake | undefined;
} {
  const { rate, redis } = settings;
  if (rate <= 0) return { plugins: [], take: undefined };
  const burst = settings.burst || rate;
  const buckets = redis
    ? createSharedBuckets({
        rate,
        burst,
        redis: redis.client,
        prefix: `${REDIS_PREFIX}limit:caller:`,
        lease: defaultLease(rate, burst),
        ...(settings.onSharedStateChange ? { onFallback: settings.onSharedStateChange } : {}),
      })
    : createLocalBuckets({ rate, burst });
  const take = callerTake(buckets);
  return { plugins: [callerLimitPlugin({ buckets }, take)], take };
}
