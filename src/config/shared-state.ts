/**
 * The settings of what replicas share and of the limits (docs/operations.md, "Replicas and
 * Redis" and "Limits per caller and per store"), read for ./index.ts.
 */
import { DEFAULT_REDIS_TIMEOUT_MS } from '../redis/connection.ts';
import { ConfigError, type Env } from './errors.ts';
import { parseCount, parseWhole } from './values.ts';

export const SHARED_STATE_VARIABLES: readonly string[] = [
  'REDIS_URL',
  'REDIS_TIMEOUT_MS',
  'CALLER_RATE_LIMIT',
  'CALLER_RATE_BURST',
  'UPSTREAM_RATE_LIMIT',
];

/**
 * Upstream calls a second per store when `UPSTREAM_RATE_LIMIT` is unset: production's documented
 * rate (about 100 requests a second per store), so the gateway paces itself under it rather than
 * collecting 429s; the embedded service is paced the same, as the stand-in of production it is.
 */
export const DEFAULT_UPSTREAM_RATE_LIMIT = 100;

export interface RedisConfig {
  /** `REDIS_URL` (`redis://` or `rediss://`); undefined: nothing shared, one process as ever. */
  url: string | undefined;
  /** Longest wait for one Redis command, ms. `REDIS_TIMEOUT_MS`, default 500. */
  timeoutMs: number;
}

export interface LimitsConfig {
  /** Requests a second per caller. `CALLER_RATE_LIMIT`, default 0 (no limit). */
  callerRate: number;
  /** Requests at once per caller. `CALLER_RATE_BURST`, default 0: as many as `callerRate`. */
  callerBurst: number;
  /**
   * Upstream calls a second per store. `UPSTREAM_RATE_LIMIT`, default DEFAULT_UPSTREAM_RATE_LIMIT
   * (100: production's documented rate per store); 0 = unpaced.
   */
  upstreamRate: number;
}

/** `REDIS_URL`: a redis:// or rediss:// URL; its password is never echoed. */
export function parseRedisUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError('REDIS_URL must be a URL such as redis://127.0.0.1:6379');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new ConfigError(`REDIS_URL must use redis: or rediss:, got "${url.protocol}"`);
  }
  if (url.hostname === '') throw new ConfigError('REDIS_URL must name a host');
  if (url.pathname !== '' && url.pathname !== '/' && !/^\/\d{1,2}$/.test(url.pathname)) {
    throw new ConfigError('REDIS_URL: the path, when given, is a database number (/0 … /15)');
  }
  return url.href;
}

export function redisFromEnv(env: Env): RedisConfig {
  return {
    url: parseRedisUrl(env.REDIS_URL),
    timeoutMs: parseCount(
      'REDIS_TIMEOUT_MS',
      env.REDIS_TIMEOUT_MS,
      DEFAULT_REDIS_TIMEOUT_MS,
      60_000,
    ),
  };
}

export function limitsFromEnv(env: Env): LimitsConfig {
  const callerRate = parseWhole('CALLER_RATE_LIMIT', env.CALLER_RATE_LIMIT, 0, 0);
  const callerBurst = parseWhole('CALLER_RATE_BURST', env.CALLER_RATE_BURST, 0, 0);
  if (callerBurst > 0 && callerRate === 0) {
    throw new ConfigError('CALLER_RATE_BURST needs CALLER_RATE_LIMIT (requests a second)');
  }
  return {
    callerRate,
    callerBurst,
    upstreamRate: parseWhole(
      'UPSTREAM_RATE_LIMIT',
      env.UPSTREAM_RATE_LIMIT,
      DEFAULT_UPSTREAM_RATE_LIMIT,
      0,
    ),
  };
}
