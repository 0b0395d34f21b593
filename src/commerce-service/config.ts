/**
 * The service's own settings and the one place that reads them from the environment, so the
 * service imports nothing from the rest of src/: `npm run service` and `npm run seed` load no
 * gateway code. `npm start` (src/main.ts) calls `loadEmbeddedServiceConfig` for the service it
 * starts beside the gateway, whose own settings src/config/ reads; the listeners' connection
 * limits are read here once for both.
 */
import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from './connection-limits.ts';

/** A client of the embedded commerce service; each client owns one store. */
export interface ClientCredentials {
  id: string;
  secret: string;
}

/** Settings of the embedded v2 commerce service. */
export interface ServiceConfig {
  /** Port of the service. `COMMERCE_PORT` beside the gateway (default 4010), `PORT` when run alone. */
  port: number;
  /**
   * Host to bind: always `127.0.0.1` beside the gateway; alone, `HOST`, default `127.0.0.1`
   * (`0.0.0.0` when `NODE_ENV=production`).
   */
  host: string;
  /** SQLite database path, or `:memory:`. `COMMERCE_DB`, default `.data/commerce.db`. */
  dbPath: string;
  /** Configured clients, one store each; the first is the demo store. `COMMERCE_CLIENTS`. */
  clients: ClientCredentials[];
  /** Seed the demo store when the database is empty. `COMMERCE_SEED=0` turns it off. Default on. */
  seed: boolean;
  /** Failed sign-in limits of `POST /v2/customers/tokens`. */
  signInLimits: SignInLimits;
  /** Timeouts and connection cap of `npm run service`'s listener (./connection-limits.ts). */
  connections?: ConnectionLimits;
  /**
   * Serve HTTPS with a development certificate the service makes itself, its authority kept in
   * `.cache/commerce-tls/ca.pem` (./tls.ts). `COMMERCE_HTTPS`, default off.
   */
  https: boolean;
  /** One line per answered request. `LOG_REQUESTS` (the gateway's switch too), default on. */
  logRequests: boolean;
}

/**
 * Failed sign-ins (`POST /v2/customers/tokens`) the service takes within a window before it
 * answers 429 until enough of them are older than the window. 0 turns a limit off.
 */
export interface SignInLimits {
  /** Per email, per store. `COMMERCE_SIGNIN_EMAIL_FAILURES`, default 10. */
  perEmail: number;
  /** Per client (source address), per store. `COMMERCE_SIGNIN_CLIENT_FAILURES`, default 100. */
  perClient: number;
  /** The window, ms. `COMMERCE_SIGNIN_WINDOW_MS`, default 900,000 (15 minutes). */
  windowMs: number;
}

export const DEFAULT_SIGN_IN_LIMITS: Readonly<SignInLimits> = {
  perEmail: 10,
  perClient: 100,
  windowMs: 15 * 60 * 1000,
};

/**
 * How the outbox deliverer posts integration events (integrations/deliverer.ts). Defaults follow
 * production's documented rules (an attempt fails past 10 s); tests shorten every delay.
 */
export interface WebhookDelivery {
  /** An attempt that has not answered within this many ms fails. Default 10,000. */
  timeoutMs: number;
  /** Attempts per event and integration, the first included. Default 6. */
  maxAttempts: number;
  /** Wait before the second attempt, ms; each later one waits 4× the one before. Default 1,000. */
  retryDelayMs: number;
  /** How often the outbox is read for due deliveries besides the nudge of each event, ms. Default 1,000. */
  pollMs: number;
}

export const DEFAULT_WEBHOOK_DELIVERY: Readonly<WebhookDelivery> = {
  timeoutMs: 10_000,
  maxAttempts: 6,
  retryDelayMs: 1_000,
  pollMs: 1_000,
};

/** A variable of the environment that cannot be used; the message names it. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly code = 'INVALID_CONFIG';
}

export type Env = Record<string, string | undefined>;

/**
 * Every variable this module reads (docs/operations.md's configuration table documents each;
 * test/build/config-table.test.ts compares them). `PORT` and `HOST` only when run alone.
 */
export const SERVICE_VARIABLES: readonly string[] = [
  'NODE_ENV',
  'PORT',
  'HOST',
  'COMMERCE_PORT',
  'COMMERCE_DB',
  'COMMERCE_CLIENTS',
  'COMMERCE_SEED',
  'COMMERCE_SIGNIN_EMAIL_FAILURES',
  'COMMERCE_SIGNIN_CLIENT_FAILURES',
  'COMMERCE_SIGNIN_WINDOW_MS',
  'COMMERCE_HTTPS',
  'HEADERS_TIMEOUT_MS',
  'REQUEST_TIMEOUT_MS',
  'KEEP_ALIVE_TIMEOUT_MS',
  'MAX_CONNECTIONS',
  'LOG_REQUESTS',
];

export const DEFAULT_CLIENTS: ClientCredentials[] = [{ id: 'demo', secret: 'demo-secret' }];

/** The service's port when it runs alone (`PORT`) and beside the gateway (`COMMERCE_PORT`). */
export const DEFAULT_SERVICE_PORT = 4010;

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

export function parseClients(raw: string | undefined): ClientCredentials[] {
  if (raw === undefined || raw.trim() === '') return DEFAULT_CLIENTS;
  const clients = raw.split(',').map((pair) => {
    const at = pair.indexOf(':');
    const id = pair.slice(0, at).trim();
    const secret = pair.slice(at + 1).trim();
    if (at <= 0 || id === '' || secret === '') {
      throw new ConfigError('COMMERCE_CLIENTS must be a comma-separated list of id:secret pairs');
    }
    return { id, secret };
  });
  const ids = new Set(clients.map((c) => c.id));
  if (ids.size !== clients.length) {
    throw new ConfigError('COMMERCE_CLIENTS lists the same client id twice');
  }
  return clients;
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

function signInLimitsFromEnv(env: Env): SignInLimits {
  const d = DEFAULT_SIGN_IN_LIMITS;
  return {
    perEmail: parseWhole(
      'COMMERCE_SIGNIN_EMAIL_FAILURES',
      env.COMMERCE_SIGNIN_EMAIL_FAILURES,
      d.perEmail,
      0,
    ),
    perClient: parseWhole(
      'COMMERCE_SIGNIN_CLIENT_FAILURES',
      env.COMMERCE_SIGNIN_CLIENT_FAILURES,
      d.perClient,
      0,
    ),
    windowMs: parseWhole('COMMERCE_SIGNIN_WINDOW_MS', env.COMMERCE_SIGNIN_WINDOW_MS, d.windowMs, 1),
  };
}

function serviceFromEnv(env: Env, host: string, port: number): ServiceConfig {
  return {
    port,
    host,
    dbPath: env.COMMERCE_DB || '.data/commerce.db',
    clients: parseClients(env.COMMERCE_CLIENTS),
    seed: parseBool('COMMERCE_SEED', env.COMMERCE_SEED, true),
    signInLimits: signInLimitsFromEnv(env),
    connections: connectionLimitsFromEnv(env),
    https: parseBool('COMMERCE_HTTPS', env.COMMERCE_HTTPS, false),
    logRequests: parseBool('LOG_REQUESTS', env.LOG_REQUESTS, true),
  };
}

/**
 * Header, request and keep-alive timeouts and the connection cap (`HEADERS_TIMEOUT_MS`,
 * `REQUEST_TIMEOUT_MS`, `KEEP_ALIVE_TIMEOUT_MS`, `MAX_CONNECTIONS`): the gateway's listeners and
 * the service's alone read the same variables.
 */
export function connectionLimitsFromEnv(env: Env): ConnectionLimits {
  const d = DEFAULT_CONNECTION_LIMITS;
  const count = (name: string, fallback: number) => parseWhole(name, env[name], fallback, 1);
  const limits: ConnectionLimits = {
    headersTimeoutMs: count('HEADERS_TIMEOUT_MS', d.headersTimeoutMs),
    requestTimeoutMs: count('REQUEST_TIMEOUT_MS', d.requestTimeoutMs),
    keepAliveTimeoutMs: count('KEEP_ALIVE_TIMEOUT_MS', d.keepAliveTimeoutMs),
    maxConnections: count('MAX_CONNECTIONS', d.maxConnections),
  };
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ConfigError(
      `HEADERS_TIMEOUT_MS (${limits.headersTimeoutMs}) must not exceed REQUEST_TIMEOUT_MS (${limits.requestTimeoutMs})`,
    );
  }
  return limits;
}

/**
 * The address to bind when `HOST` is unset: this machine only, unless `NODE_ENV=production`. A
 * developer's gateway (and service alone) hands out the demo store's tokens, whose credentials
 * are public (`demo:demo-secret`); a production process usually runs in a container, whose port
 * is reached from outside it.
 */
export function defaultHost(env: Env): string {
  return env.NODE_ENV === 'production' ? '0.0.0.0' : '127.0.0.1';
}

/** Configuration of `npm run service` and `npm run seed`: on `PORT` (default 4010) and `HOST`. */
export function loadServiceConfig(env: Env = process.env): ServiceConfig {
  return serviceFromEnv(
    env,
    env.HOST || defaultHost(env),
    parsePort('PORT', env.PORT, DEFAULT_SERVICE_PORT),
  );
}

/**
 * Configuration of the service `npm start` runs beside the gateway: on `COMMERCE_PORT` (default
 * 4010), always bound to 127.0.0.1 (`PORT` and `HOST` are the gateway's).
 */
export function loadEmbeddedServiceConfig(env: Env = process.env): ServiceConfig {
  return serviceFromEnv(
    env,
    '127.0.0.1',
    parsePort('COMMERCE_PORT', env.COMMERCE_PORT, DEFAULT_SERVICE_PORT),
  );
}
