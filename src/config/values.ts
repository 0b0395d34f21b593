/**
 * Turning one environment variable's text into its value, for ./index.ts (which alone reads the
 * gateway's environment): each parser takes the text, never `process.env`, and refuses a bad
 * value with a ConfigError that names the variable. The gateway's own: the embedded service
 * parses its variables with its own (src/commerce-service/config.ts), so neither loads the other.
 */
import { availableParallelism } from 'node:os';
import type { CorsOrigins } from '../gateway/cors.ts';
import type { LogThreshold } from '../gateway/logging.ts';
import type { TracesSampler } from '../gateway/otel.ts';
import {
  DEFAULT_FORWARDED_HEADERS,
  refuseForwardedHeaderName,
} from '../upstream/forwarded-headers.ts';
import {
  DEFAULT_CATALOG_CACHE_SECONDS,
  MAX_CATALOG_CACHE_SECONDS,
} from '../upstream/shared-reads.ts';
import { ConfigError } from './errors.ts';

export function parsePort(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`${name} must be an integer port between 0 and 65535, got "${raw}"`);
  }
  return port;
}

export function parseBool(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be a boolean (1/0, true/false), got "${raw}"`);
}

/** A whole number of at least `min`; `0` allowed means "off" where a caller says so. */
export function parseWhole(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: 0 | 1,
): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min) {
    const what = min === 0 ? '0 (off) or a positive integer' : 'a positive integer';
    throw new ConfigError(`${name} must be ${what}, got "${raw}"`);
  }
  return value;
}

export function parseCount(
  name: string,
  raw: string | undefined,
  fallback: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const value = parseWhole(name, raw, fallback, 1);
  if (value > max) {
    throw new ConfigError(`${name} must be an integer from 1 to ${max}, got "${raw}"`);
  }
  return value;
}

/** The most gateway processes `WORKERS` may ask for: far beyond any machine's cores it only costs memory. */
export const MAX_WORKERS = 64;

/**
 * `WORKERS`: gateway processes sharing the listen port, `auto` for one per core the process may
 * use (`os.availableParallelism()`, which honours a container's CPU affinity), default 1 (one
 * process, no cluster). `available` is injectable for tests.
 */
export function parseWorkers(
  raw: string | undefined,
  available: number = availableParallelism(),
): number {
  const text = (raw ?? '').trim().toLowerCase();
  if (text === '') return 1;
  if (text === 'auto') return Math.max(1, Math.min(available, MAX_WORKERS));
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1 || value > MAX_WORKERS) {
    throw new ConfigError(
      `WORKERS must be auto (one per core, ${available} here) or an integer from 1 to ${MAX_WORKERS}, got "${raw}"`,
    );
  }
  return value;
}

/** `CATALOG_CACHE_SECONDS`: seconds, 0 (off) to 3600, default DEFAULT_CATALOG_CACHE_SECONDS. */
export function parseCatalogCacheSeconds(raw: string | undefined): number {
  const value = parseWhole('CATALOG_CACHE_SECONDS', raw, DEFAULT_CATALOG_CACHE_SECONDS, 0);
  if (value > MAX_CATALOG_CACHE_SECONDS) {
    throw new ConfigError(
      `CATALOG_CACHE_SECONDS must be from 0 (off) to ${MAX_CATALOG_CACHE_SECONDS}, got "${raw}"`,
    );
  }
  return value;
}

export function parseUrl(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name} must use http or https, got "${url.protocol}"`);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new ConfigError(`${name} must not carry credentials, a query or a fragment`);
  }
  // Keep any base path, drop the trailing slash: paths are appended as `/v2/...`.
  return url.href.replace(/\/+$/, '');
}

const LOG_LEVELS: readonly LogThreshold[] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];

/** `LOG_LEVEL`: one of pino's level names (any case), or `silent`; unset or empty: `info`. */
export function parseLogLevel(raw: string | undefined): LogThreshold {
  if (raw === undefined || raw.trim() === '') return 'info';
  const level = LOG_LEVELS.find((name) => name === raw.trim().toLowerCase());
  if (level === undefined) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${raw}"`);
  }
  return level;
}

/**
 * `CORS_ORIGINS`: a comma-separated list of exact origins (`https://shop.example`, scheme, host
 * and port as the browser sends them; allowed with credentials), or `*` alone (any origin,
 * without credentials). Unset or empty: none.
 */
export function parseCorsOrigins(raw: string | undefined): CorsOrigins {
  if (raw === undefined || raw.trim() === '') return [];
  const items = raw.split(',').map((item) => item.trim());
  if (items.includes('*')) {
    if (items.length > 1) {
      throw new ConfigError('CORS_ORIGINS: `*` (any origin) must stand alone');
    }
    return '*';
  }
  const origins = items.map((item) => {
    let url: URL | undefined;
    try {
      url = new URL(item);
    } catch {
      url = undefined;
    }
    if (
      url === undefined ||
      (url.protocol !== 'http:' && url.protocol !== 'https:') ||
      url.username !== '' ||
      url.password !== '' ||
      url.pathname !== '/' ||
      url.search !== '' ||
      url.hash !== '' ||
      item.endsWith('/')
    ) {
      throw new ConfigError(
        `CORS_ORIGINS: "${item}" is not an origin (scheme://host[:port], e.g. https://shop.example)`,
      );
    }
    return url.origin;
  });
  return [...new Set(origins)];
}

/**
 * `FORWARD_HEADERS`: a comma-separated list of header names (case-insensitive), `none` for
 * none; unset or empty: DEFAULT_FORWARDED_HEADERS. Authorization and the headers the gateway
 * sets or that frame a request cannot be listed.
 */
export function parseForwardHeaders(raw: string | undefined): readonly string[] {
  if (raw === undefined || raw.trim() === '') return DEFAULT_FORWARDED_HEADERS;
  if (raw.trim().toLowerCase() === 'none') return [];
  const names = [...new Set(raw.split(',').map((name) => name.trim().toLowerCase()))];
  for (const name of names) {
    const why = refuseForwardedHeaderName(name);
    if (why !== undefined) throw new ConfigError(`FORWARD_HEADERS: ${why}`);
  }
  return names;
}

export const SAMPLERS: readonly TracesSampler[] = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];

/**
 * A comma-separated list of `key=value` pairs as the OpenTelemetry SDK specification writes them
 * (`OTEL_RESOURCE_ATTRIBUTES`, the OTLP exporter headers): keys and values trimmed, values
 * percent-decoded (a `,` or `=` inside a value is written `%2C`, `%3D`). A malformed list is
 * refused with the variable named, not ignored; a value is never echoed, as it may be a credential.
 */
export function parseKeyValueList(
  name: string,
  raw: string,
  keys: 'as-written' | 'lowercase' = 'as-written',
): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const pair of raw.split(',')) {
    if (pair.trim() === '') continue;
    const at = pair.indexOf('=');
    const key = pair.slice(0, at).trim();
    if (at <= 0 || key === '') {
      // Without a `=` the text holds no value, so it can be shown; otherwise it might be a secret.
      const shown = at < 0 ? `, got "${pair.trim()}"` : '';
      throw new ConfigError(`${name} must be a list of key=value pairs${shown}`);
    }
    try {
      pairs[keys === 'lowercase' ? key.toLowerCase() : key] = decodeURIComponent(
        pair.slice(at + 1).trim(),
      );
    } catch {
      throw new ConfigError(`${name}: the value of "${key}" is not percent-encoded correctly`);
    }
  }
  return pairs;
}
