/**
 * The one place that reads the gateway's environment (`npm start`); it reads no file. It returns
 * the factories' own options: `upstream` for createUpstream (src/upstream/index.ts), `gateway`
 * for createGateway (src/gateway/create-gateway.ts), `listen` for src/main.ts's listeners, and
 * the few settings only startup reads. Every setting has one variable name, one default (the
 * factory's own, imported from it) and one unit from the environment to the code that uses it.
 *
 * The embedded service's variables are read by the service's own loader
 * (src/commerce-service/config.ts), which src/main.ts calls beside this one: nothing here imports
 * the service, so the library entry (src/index.ts) never loads it. The listeners' connection
 * limits (`HEADERS_TIMEOUT_MS`, `REQUEST_TIMEOUT_MS`, `KEEP_ALIVE_TIMEOUT_MS`,
 * `MAX_CONNECTIONS`) are read there, once, for the gateway's listeners too.
 *
 * GATEWAY_VARIABLES lists every variable read here; docs/operations.md's tables document each
 * (test/build/config-table.test.ts compares them).
 */
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_QUERY_LIMITS,
  type QueryLimits,
} from '../gateway/armor.ts';
import type { GatewayOptionsBase } from '../gateway/create-gateway.ts';
import type { LogThreshold } from '../gateway/logging.ts';
import type { TracesSampler, TracingConfig } from '../gateway/otel.ts';
import { DEFAULT_SHUTDOWN_TIMEOUT_MS } from '../gateway/shutdown.ts';
import { DEFAULT_SCHEMA_REFRESH_MS } from '../gateway/typed-schema-source.ts';
import { DEFAULT_BREAKER_OPTIONS } from '../upstream/breaker.ts';
import { DEFAULT_CALL_BUDGET } from '../upstream/budget.ts';
import { DEFAULT_CALLS_PER_OPERATION, DEFAULT_POOL_CONNECTIONS } from '../upstream/call-slots.ts';
import type { UpstreamOptions } from '../upstream/index.ts';
import { DEFAULT_PAGING_LIMITS, type PagingLimits } from '../upstream/paging/plan.ts';
import { DEFAULT_RESILIENCE_OPTIONS, type ResilienceConfig } from '../upstream/resilience.ts';
import { DEFAULT_OPERATION_DEADLINE_MS } from '../upstream/session.ts';
import { ConfigError, type Env } from './errors.ts';
import { type EventsConfig, eventsFromEnv } from './events.ts';
import {
  type LimitsConfig,
  limitsFromEnv,
  type RedisConfig,
  redisFromEnv,
  SHARED_STATE_VARIABLES,
} from './shared-state.ts';
import {
  parseBool,
  parseCatalogCacheSeconds,
  parseCorsOrigins,
  parseCount,
  parseForwardHeaders,
  parseKeyValueList,
  parseLogLevel,
  parsePort,
  parseUrl,
  parseWorkers,
  SAMPLERS,
} from './values.ts';

export { type EventsConfig, MIN_WEBHOOK_SECRET_LENGTH } from './events.ts';
export {
  ConfigError,
  type Env,
  type LimitsConfig,
  parseCorsOrigins,
  parseForwardHeaders,
  type RedisConfig,
  type TracingConfig,
};

/** The port of the gateway when `PORT` is unset. */
export const DEFAULT_PORT = 4000;

/**
 * Every variable ./index.ts reads (the OpenTelemetry ones only when tracing is asked for).
 * `BREAKER_FAILURES` is read only to be refused (breakerFromEnv).
 */
export const GATEWAY_VARIABLES: readonly string[] = [
  'NODE_ENV',
  'PORT',
  'HOST',
  'UPSTREAM_URL',
  'GRAPHIQL',
  'INTROSPECTION',
  'FEDERATION_SDL',
  'CSRF_PREVENTION',
  'CORS_ORIGINS',
  'MAX_BODY_BYTES',
  'MAX_DEPTH',
  'MAX_ALIASES',
  'MAX_TOKENS',
  'MAX_DIRECTIVES',
  'MAX_COST',
  'MAX_LIST_ITEMS',
  'UPSTREAM_TIMEOUT_MS',
  'OPERATION_DEADLINE_MS',
  'UPSTREAM_MAX_ATTEMPTS',
  'BREAKER_FAILURES',
  'BREAKER_FAILURE_RATE',
  'BREAKER_MIN_CALLS',
  'BREAKER_WINDOW_MS',
  'BREAKER_COOLDOWN_MS',
  'UPSTREAM_OPERATION_CONCURRENCY',
  'LOG_REQUESTS',
  'LOG_LEVEL',
  'FAST_PATH',
  'JIT',
  'COMPILED_DOCUMENTS',
  'SHUTDOWN_TIMEOUT_MS',
  'WORKERS',
  'UPSTREAM_CALL_BUDGET',
  'PAGING_MAX_FIRST',
  'PAGING_CONCURRENCY',
  'PAGING_CONSISTENCY_BUFFER_MS',
  'SCHEMA_CLIENT_ID',
  'SCHEMA_CLIENT_SECRET',
  'SCHEMA_REFRESH_MS',
  'PERSISTED_DOCUMENTS',
  'FORWARD_HEADERS',
  'CATALOG_CACHE_SECONDS',
  'METRICS',
  'METRICS_PORT',
  'METRICS_HOST',
  'OTEL_SDK_DISABLED',
  'OTEL_TRACES_EXPORTER',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT',
  'OTEL_EXPORTER_OTLP_TIMEOUT',
  'OTEL_SERVICE_NAME',
  'OTEL_RESOURCE_ATTRIBUTES',
  'OTEL_TRACES_SAMPLER',
  'OTEL_TRACES_SAMPLER_ARG',
  'TRACE_GRAPHQL_DOCUMENT',
  ...SHARED_STATE_VARIABLES,
  'EVENT_REPLAY_SECONDS',
  'EVENT_REPLAY_MAX',
  'WEBHOOK_SECRET',
];

/** Where `npm start` listens (src/main.ts), and how it drains. */
export interface ListenConfig {
  /** Port of the gateway. `PORT`, default DEFAULT_PORT (4000). */
  port: number;
  /**
   * Host to bind. `HOST`, default `127.0.0.1` (this machine only), `0.0.0.0` when
   * `NODE_ENV=production` (a container's port is reached from outside it).
   */
  host: string;
  /**
   * Serve JSON POSTs to the endpoint on the node:http fast path (src/gateway/fast-path.ts).
   * `FAST_PATH`, default on; off sends every request through Yoga's Fetch adapter.
   */
  fastPath: boolean;
  /**
   * Serve `GET /metrics` on this port (same host) instead of the gateway's. `METRICS_PORT`,
   * default unset: on the gateway's port.
   */
  metricsPort: number | undefined;
  /**
   * Host the metrics port binds (`METRICS_HOST`, only with `METRICS_PORT`): e.g. `127.0.0.1` for
   * a scraper on the same machine while the gateway listens on `0.0.0.0`. Default: `HOST`.
   */
  metricsHost: string | undefined;
  /** How long SIGTERM waits for in-flight requests, ms. `SHUTDOWN_TIMEOUT_MS`, default 10000. */
  shutdownTimeoutMs: number;
  /**
   * Gateway processes sharing the port (node:cluster), the embedded service staying one process
   * beside them. `WORKERS`, a count from 1 to 64 or `auto` (one per core); default 1: one
   * process, no cluster.
   */
  workers: number;
}

/**
 * createUpstream's own options as the environment sets them; `url` is `UPSTREAM_URL`, undefined
 * when the embedded service is to be started (src/main.ts then gives its address).
 */
export type UpstreamConfig = Omit<UpstreamOptions, 'url' | 'send' | 'pool'> & {
  /** Base URL of the v2 service, without `/v2`. `UPSTREAM_URL`. */
  url: string | undefined;
  /** Upstream calls in flight at once for one operation. `UPSTREAM_OPERATION_CONCURRENCY`. */
  pool: { perOperation: number };
  callBudget: number;
  paging: Pick<PagingLimits, 'maxFirst' | 'concurrency' | 'consistencyBufferMs'>;
  operationDeadlineMs: number;
  forwardHeaders: readonly string[];
  catalogCacheSeconds: number;
  resilience: ResilienceConfig;
};

/** createGateway's own options, those the environment sets (src/main.ts adds the rest). */
export type GatewayConfig = Required<
  Pick<
    GatewayOptionsBase,
    | 'production'
    | 'graphiql'
    | 'introspection'
    | 'federationSdl'
    | 'csrfPrevention'
    | 'corsOrigins'
    | 'maxBodyBytes'
    | 'jit'
    | 'compiledDocuments'
  >
> & {
  /** Limits on one GraphQL document (src/gateway/armor.ts): `MAX_DEPTH` … `MAX_LIST_ITEMS`. */
  queryLimits: QueryLimits;
  /**
   * Prometheus metrics (src/gateway/metrics.ts). `METRICS`, default on: served on the gateway's
   * `/metrics`, or collected for the metrics port (`path: false`) when `METRICS_PORT` is set.
   */
  metrics: false | { path: '/metrics' | false };
  /**
   * Subscriptions' events (docs/subscriptions.md): the replay window of the bus,
   * `EVENT_REPLAY_SECONDS` (default 300) and `EVENT_REPLAY_MAX` (default 10,000 events), and the
   * webhook receiver's secret, `WEBHOOK_SECRET` (unset: no receiver, unless `npm start` wires
   * the embedded service's integration with one of its own).
   */
  events: EventsConfig;
};

/** Where the typed schema's definitions come from, and how often they are re-read. */
export interface TypedSchemaConfig {
  /**
   * The gateway's own credential for reading Custom API definitions (client_credentials):
   * `SCHEMA_CLIENT_ID` and `SCHEMA_CLIENT_SECRET`, both or neither. Unset: with the embedded
   * service the demo client is used; with UPSTREAM_URL only the generic API is served.
   */
  credentials: { clientId: string; clientSecret: string } | undefined;
  /** Re-read interval, ms. `SCHEMA_REFRESH_MS`, default 60000, at least 1000. */
  refreshMs: number;
}

/** The gateway's log. */
export interface LoggingConfig {
  /** The lowest level of log line written. `LOG_LEVEL`, default `info` (request lines are info). */
  level: LogThreshold;
  /** One JSON log line per request on stdout. `LOG_REQUESTS`, default on. */
  requests: boolean;
}

/** Configuration of the gateway `npm start` runs. */
export interface Config {
  listen: ListenConfig;
  upstream: UpstreamConfig;
  gateway: GatewayConfig;
  logging: LoggingConfig;
  /** The typed Custom API schema (src/schema/typed/). */
  typedSchema: TypedSchemaConfig;
  /**
   * Path of the trusted-documents manifest (Apollo or Relay format), `PERSISTED_DOCUMENTS`: read
   * at start by loadPersistedDocuments (src/gateway/persisted-documents.ts); only its operations
   * run. Default: unset, any document runs.
   */
  persistedDocumentsPath: string | undefined;
  /** OpenTelemetry traces (docs/operations.md "Traces"); undefined: off. From the `OTEL_*` variables. */
  tracing: TracingConfig | undefined;
  /** What replicas share through Redis (`REDIS_URL`, `REDIS_TIMEOUT_MS`). */
  redis: RedisConfig;
  /** The per-caller limit and the per-store shaper (`CALLER_RATE_*`, `UPSTREAM_RATE_LIMIT`). */
  limits: LimitsConfig;
}

/** Configuration of `npm start`'s gateway. */
export function loadConfig(env: Env = process.env): Config {
  const production = env.NODE_ENV === 'production';
  const introspection = parseBool('INTROSPECTION', env.INTROSPECTION, !production);
  const metricsPort =
    env.METRICS_PORT === undefined || env.METRICS_PORT === ''
      ? undefined
      : parsePort('METRICS_PORT', env.METRICS_PORT, 0);
  const q = DEFAULT_QUERY_LIMITS;
  return {
    listen: {
      port: parsePort('PORT', env.PORT, DEFAULT_PORT),
      host: env.HOST || (production ? '0.0.0.0' : '127.0.0.1'),
      fastPath: parseBool('FAST_PATH', env.FAST_PATH, true),
      metricsPort,
      metricsHost: metricsHostFromEnv(env),
      shutdownTimeoutMs: parseCount(
        'SHUTDOWN_TIMEOUT_MS',
        env.SHUTDOWN_TIMEOUT_MS,
        DEFAULT_SHUTDOWN_TIMEOUT_MS,
      ),
      workers: parseWorkers(env.WORKERS),
    },
    upstream: {
      url: parseUrl('UPSTREAM_URL', env.UPSTREAM_URL),
      callBudget: parseCount('UPSTREAM_CALL_BUDGET', env.UPSTREAM_CALL_BUDGET, DEFAULT_CALL_BUDGET),
      paging: pagingFromEnv(env),
      operationDeadlineMs: parseCount(
        'OPERATION_DEADLINE_MS',
        env.OPERATION_DEADLINE_MS,
        DEFAULT_OPERATION_DEADLINE_MS,
      ),
      forwardHeaders: parseForwardHeaders(env.FORWARD_HEADERS),
      catalogCacheSeconds: parseCatalogCacheSeconds(env.CATALOG_CACHE_SECONDS),
      resilience: {
        attemptTimeoutMs: parseCount(
          'UPSTREAM_TIMEOUT_MS',
          env.UPSTREAM_TIMEOUT_MS,
          DEFAULT_RESILIENCE_OPTIONS.attemptTimeoutMs,
        ),
        maxAttempts: parseCount(
          'UPSTREAM_MAX_ATTEMPTS',
          env.UPSTREAM_MAX_ATTEMPTS,
          DEFAULT_RESILIENCE_OPTIONS.maxAttempts,
        ),
        breaker: breakerFromEnv(env),
      },
      pool: {
        perOperation: parseCount(
          'UPSTREAM_OPERATION_CONCURRENCY',
          env.UPSTREAM_OPERATION_CONCURRENCY,
          DEFAULT_CALLS_PER_OPERATION,
          DEFAULT_POOL_CONNECTIONS,
        ),
      },
    },
    gateway: {
      production,
      graphiql: parseBool('GRAPHIQL', env.GRAPHIQL, !production),
      introspection,
      federationSdl: parseBool('FEDERATION_SDL', env.FEDERATION_SDL, introspection),
      csrfPrevention: parseBool('CSRF_PREVENTION', env.CSRF_PREVENTION, true),
      corsOrigins: parseCorsOrigins(env.CORS_ORIGINS),
      maxBodyBytes: parseCount('MAX_BODY_BYTES', env.MAX_BODY_BYTES, DEFAULT_MAX_BODY_BYTES),
      queryLimits: {
        maxDepth: parseCount('MAX_DEPTH', env.MAX_DEPTH, q.maxDepth),
        maxAliases: parseCount('MAX_ALIASES', env.MAX_ALIASES, q.maxAliases),
        maxTokens: parseCount('MAX_TOKENS', env.MAX_TOKENS, q.maxTokens),
        maxDirectives: parseCount('MAX_DIRECTIVES', env.MAX_DIRECTIVES, q.maxDirectives),
        maxCost: parseCount('MAX_COST', env.MAX_COST, q.maxCost),
        maxListItems: parseCount('MAX_LIST_ITEMS', env.MAX_LIST_ITEMS, q.maxListItems),
      },
      jit: parseBool('JIT', env.JIT, true),
      compiledDocuments: parseBool('COMPILED_DOCUMENTS', env.COMPILED_DOCUMENTS, true),
      metrics: parseBool('METRICS', env.METRICS, true)
        ? { path: metricsPort === undefined ? '/metrics' : false }
        : false,
      events: eventsFromEnv(env),
    },
    logging: {
      level: parseLogLevel(env.LOG_LEVEL),
      requests: parseBool('LOG_REQUESTS', env.LOG_REQUESTS, true),
    },
    typedSchema: typedSchemaFromEnv(env),
    persistedDocumentsPath: env.PERSISTED_DOCUMENTS || undefined,
    tracing: tracingFromEnv(env),
    redis: redisFromEnv(env),
    limits: limitsFromEnv(env),
  };
}

/**
 * The breaker opens on a failure rate over a sliding window. `BREAKER_FAILURES` (consecutive
 * failures) meant something the breaker no longer does: a deployment that still sets it is told
 * so at startup rather than silently getting another breaker than it asked for.
 * `BREAKER_FAILURE_RATE` is a percentage (1–100), the breaker's own option a ratio: read once
 * here into it.
 */
function breakerFromEnv(env: Env): NonNullable<ResilienceConfig['breaker']> {
  if (env.BREAKER_FAILURES !== undefined && env.BREAKER_FAILURES !== '') {
    throw new ConfigError(
      'BREAKER_FAILURES is no longer read: the circuit breaker opens on a failure rate, not on ' +
        'consecutive failures. Remove it and set BREAKER_FAILURE_RATE (percent, default 50), ' +
        'BREAKER_MIN_CALLS (default 20) and BREAKER_WINDOW_MS (default 10000) instead',
    );
  }
  const d = DEFAULT_BREAKER_OPTIONS;
  const percent = parseCount(
    'BREAKER_FAILURE_RATE',
    env.BREAKER_FAILURE_RATE,
    Math.round(d.failureRatio * 100),
    100,
  );
  return {
    failureRatio: percent / 100,
    minimumCalls: parseCount('BREAKER_MIN_CALLS', env.BREAKER_MIN_CALLS, d.minimumCalls),
    windowMs: parseCount('BREAKER_WINDOW_MS', env.BREAKER_WINDOW_MS, d.windowMs),
    cooldownMs: parseCount('BREAKER_COOLDOWN_MS', env.BREAKER_COOLDOWN_MS, d.cooldownMs),
  };
}

/** `METRICS_HOST`: only where the metrics have a port of their own to bind. */
function metricsHostFromEnv(env: Env): string | undefined {
  const host = (env.METRICS_HOST ?? '').trim();
  if (host === '') return undefined;
  if (env.METRICS_PORT === undefined || env.METRICS_PORT === '') {
    throw new ConfigError(
      'METRICS_HOST needs METRICS_PORT: on the gateway’s own port the metrics share its HOST',
    );
  }
  return host;
}

function typedSchemaFromEnv(env: Env): TypedSchemaConfig {
  const clientId = env.SCHEMA_CLIENT_ID ?? '';
  const clientSecret = env.SCHEMA_CLIENT_SECRET ?? '';
  if ((clientId === '') !== (clientSecret === '')) {
    // Never echo the secret; naming the variables is enough.
    throw new ConfigError('SCHEMA_CLIENT_ID and SCHEMA_CLIENT_SECRET must be set together');
  }
  const refreshMs = parseCount(
    'SCHEMA_REFRESH_MS',
    env.SCHEMA_REFRESH_MS,
    DEFAULT_SCHEMA_REFRESH_MS,
  );
  if (refreshMs < 1000) {
    throw new ConfigError(
      `SCHEMA_REFRESH_MS must be at least 1000, got "${env.SCHEMA_REFRESH_MS}"`,
    );
  }
  return {
    credentials: clientId === '' ? undefined : { clientId, clientSecret },
    refreshMs,
  };
}

function pagingFromEnv(env: Env): UpstreamConfig['paging'] {
  const maxFirst = parseCount(
    'PAGING_MAX_FIRST',
    env.PAGING_MAX_FIRST,
    DEFAULT_PAGING_LIMITS.maxFirst,
  );
  // Every page of a window must start within the upstream's 10,000-record offset limit.
  if (maxFirst > 10_000) {
    throw new ConfigError(`PAGING_MAX_FIRST must be at most 10000, got "${env.PAGING_MAX_FIRST}"`);
  }
  const rawBuffer = env.PAGING_CONSISTENCY_BUFFER_MS;
  const buffer =
    rawBuffer === undefined || rawBuffer === ''
      ? DEFAULT_PAGING_LIMITS.consistencyBufferMs
      : Number(rawBuffer);
  if (!Number.isSafeInteger(buffer) || buffer < 0) {
    throw new ConfigError(
      `PAGING_CONSISTENCY_BUFFER_MS must be a non-negative integer, got "${rawBuffer}"`,
    );
  }
  return {
    maxFirst,
    concurrency: Math.min(
      parseCount('PAGING_CONCURRENCY', env.PAGING_CONCURRENCY, DEFAULT_PAGING_LIMITS.concurrency),
      64,
    ),
    consistencyBufferMs: buffer,
  };
}

/**
 * The honoured subset of the OpenTelemetry SDK variables (docs/operations.md "Traces"). Off unless
 * `OTEL_TRACES_EXPORTER` is `otlp` or `console`, and `OTEL_SDK_DISABLED` is not true.
 */
function tracingFromEnv(env: Env): TracingConfig | undefined {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return undefined;
  const exporter = (env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase();
  if (exporter === '' || exporter === 'none') return undefined;
  if (exporter !== 'otlp' && exporter !== 'console') {
    throw new ConfigError(
      `OTEL_TRACES_EXPORTER must be otlp, console or none, got "${env.OTEL_TRACES_EXPORTER}"`,
    );
  }
  const protocolName = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = (env[protocolName] ?? '').trim() || 'http/protobuf';
  if (exporter === 'otlp' && protocol !== 'http/protobuf' && protocol !== 'http/json') {
    throw new ConfigError(
      protocol === 'grpc'
        ? `${protocolName}: grpc is not supported; use http/protobuf (the default) or http/json, and the collector's OTLP/HTTP port (4318)`
        : `${protocolName} must be http/protobuf or http/json, got "${protocol}"`,
    );
  }
  const tracesEndpoint = parseUrl(
    'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
  );
  const baseEndpoint = parseUrl('OTEL_EXPORTER_OTLP_ENDPOINT', env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const headersName = env.OTEL_EXPORTER_OTLP_TRACES_HEADERS
    ? 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'
    : 'OTEL_EXPORTER_OTLP_HEADERS';
  const sampler = (env.OTEL_TRACES_SAMPLER ?? '').trim().toLowerCase() || 'parentbased_always_on';
  if (!SAMPLERS.includes(sampler as TracesSampler)) {
    throw new ConfigError(
      `OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}, got "${env.OTEL_TRACES_SAMPLER}"`,
    );
  }
  const resourceAttributes = parseKeyValueList(
    'OTEL_RESOURCE_ATTRIBUTES',
    env.OTEL_RESOURCE_ATTRIBUTES ?? '',
  );
  const rawArg = (env.OTEL_TRACES_SAMPLER_ARG ?? '').trim();
  const samplerArg = rawArg === '' ? 1 : Number(rawArg);
  if (!Number.isFinite(samplerArg) || samplerArg < 0 || samplerArg > 1) {
    throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG must be a number in [0, 1], got "${rawArg}"`);
  }
  return {
    exporter,
    endpoint: tracesEndpoint ?? `${baseEndpoint ?? 'http://localhost:4318'}/v1/traces`,
    protocol: protocol as TracingConfig['protocol'],
    timeoutMs: env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT
      ? parseCount(
          'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT',
          env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT,
          10_000,
        )
      : parseCount('OTEL_EXPORTER_OTLP_TIMEOUT', env.OTEL_EXPORTER_OTLP_TIMEOUT, 10_000),
    headers: parseKeyValueList(headersName, env[headersName] ?? '', 'lowercase'),
    serviceName:
      (env.OTEL_SERVICE_NAME ?? '').trim() ||
      resourceAttributes['service.name'] ||
      'commerce-gateway',
    resourceAttributes,
    sampler: sampler as TracesSampler,
    samplerArg,
    graphqlDocument: parseBool('TRACE_GRAPHQL_DOCUMENT', env.TRACE_GRAPHQL_DOCUMENT, false),
  };
}
