/**
 * The one place that reads the gateway's environment; it reads no file. Everything else receives
 * a typed config object, so tests can build any configuration without touching process.env. The
 * embedded service's variables are read by the service's own loader (src/commerce-service/
 * config.ts), which loadConfig calls so that `npm start` refuses a bad environment at once.
 */
import {
  type ClientCredentials,
  ConfigError,
  connectionLimitsFromEnv,
  defaultHost,
  type Env,
  loadEmbeddedServiceConfig,
  parseBool,
  parsePort,
  type ServiceConfig,
} from './commerce-service/config.ts';
import type { ConnectionLimits } from './commerce-service/connection-limits.ts';
import {
  parseCatalogCacheSeconds,
  parseCorsOrigins,
  parseCount,
  parseForwardHeaders,
  parseKeyValueList,
  parseLogLevel,
  parseUrl,
  SAMPLERS,
} from './config-values.ts';
import type { CorsOrigins } from './gateway/cors.ts';
import type { LogThreshold } from './gateway/logging.ts';
import type { TracesSampler, TracingConfig } from './gateway/otel.ts';
import { DEFAULT_CALL_BUDGET } from './upstream/budget.ts';
import { DEFAULT_CALLS_PER_OPERATION, DEFAULT_POOL_CONNECTIONS } from './upstream/call-slots.ts';
import { DEFAULT_PAGING_LIMITS } from './upstream/paging/plan.ts';

// The service's config is the lower floor: the gateway's re-exports what its callers use.
export {
  type ClientCredentials,
  ConfigError,
  parseCorsOrigins,
  parseForwardHeaders,
  type ServiceConfig,
  type TracingConfig,
};

/** Settings of the GraphQL gateway. */
export interface GatewayConfig {
  /** Port of the gateway. `PORT`, default 4000. */
  port: number;
  /**
   * Host to bind. `HOST`, default `127.0.0.1` (this machine only), `0.0.0.0` when
   * `NODE_ENV=production` (a container's port is reached from outside it).
   */
  host: string;
  /**
   * Base URL of the v2 service, without `/v2`. `UPSTREAM_URL`; when unset the embedded service
   * is started and used.
   */
  upstreamUrl: string | undefined;
  // The fields below are optional so that configs built in code (tests, library use) need not
  // list them; loadConfig always fills them, and their consumers apply the same defaults.
  /** `NODE_ENV=production`: GraphiQL and introspection default to off, errors carry no dev detail. */
  production?: boolean;
  /** Serve GraphiQL at /graphql. `GRAPHIQL`, default on (off in production). */
  graphiql?: boolean;
  /** Allow introspection queries. `INTROSPECTION`, default on (off in production). */
  introspection?: boolean;
  /**
   * Serve Federation's `_service { sdl }` (the whole schema). `FEDERATION_SDL`, default: as
   * `INTROSPECTION`; a federation router composing this subgraph needs it.
   */
  federationSdl?: boolean;
  /** Refuse requests a browser could send cross-site unpreflighted. `CSRF_PREVENTION`, default on. */
  csrfPrevention?: boolean;
  /**
   * Origins whose pages may call the gateway from a browser (src/gateway/cors.ts). `CORS_ORIGINS`
   * (see parseCorsOrigins); default none: no CORS headers.
   */
  corsOrigins?: CorsOrigins;
  /** Largest request body, bytes. `MAX_BODY_BYTES`, default 524288 (512 KiB). */
  maxBodyBytes?: number;
  /**
   * Header, request and keep-alive timeouts and the connection cap of every listener
   * (src/commerce-service/connection-limits.ts): `HEADERS_TIMEOUT_MS`, `REQUEST_TIMEOUT_MS`,
   * `KEEP_ALIVE_TIMEOUT_MS`, `MAX_CONNECTIONS`.
   */
  connections?: ConnectionLimits;
  /** Limits on one GraphQL document (see src/gateway/armor.ts). */
  queryLimits?: Partial<QueryLimitsConfig>;
  /** Timeouts, retries and circuit breaker of upstream calls (see src/upstream/resilience.ts). */
  resilience?: Partial<ResilienceConfigValues>;
  /** One JSON log line per request on stdout. `LOG_REQUESTS`, default on. */
  logRequests?: boolean;
  /** The lowest level of log line written. `LOG_LEVEL`, default `info` (request lines are info). */
  logLevel?: LogThreshold;
  /**
   * Serve JSON POSTs to the endpoint on the node:http fast path (src/gateway/fast-path.ts).
   * `FAST_PATH`, default on; off sends every request through Yoga's Fetch adapter.
   */
  fastPath?: boolean;
  /**
   * Run queries compiled (graphql-jit, src/gateway/jit.ts). `JIT`, default on; off runs every
   * operation on Yoga's executor.
   */
  jit?: boolean;
  /** How long SIGTERM waits for in-flight requests before closing them. `SHUTDOWN_TIMEOUT_MS`, default 10000. */
  shutdownTimeoutMs?: number;
  /** Upstream calls one GraphQL operation may make. `UPSTREAM_CALL_BUDGET`, default DEFAULT_CALL_BUDGET. */
  callBudget?: number;
  /** Limits of the pagination planner (see src/upstream/paging/plan.ts). */
  paging?: Partial<PagingConfigValues>;
  /** The typed Custom API schema (src/schema/typed/). */
  typedSchema?: TypedSchemaConfig;
  /**
   * Path of the trusted-documents manifest (Apollo or Relay format), `PERSISTED_DOCUMENTS`: read
   * at start by loadPersistedDocuments (src/gateway/persisted-documents.ts); only its operations
   * run. Default: unset, any document runs.
   */
  persistedDocumentsPath?: string | undefined;
  /**
   * Caller headers forwarded upstream besides Authorization. `FORWARD_HEADERS` (see
   * parseForwardHeaders); default the v2 customer, account-member and currency headers.
   */
  forwardHeaders?: readonly string[];
  /**
   * How long a product's breadcrumb nodes and children's pages are served to other callers of the
   * same catalog and release (src/schema/catalog/shared-catalog.ts), seconds.
   * `CATALOG_CACHE_SECONDS`, default 60, at most 3600; 0 off.
   */
  catalogCacheSeconds?: number;
  /** Prometheus metrics (src/gateway/metrics.ts). `METRICS`, default on. */
  metrics?: boolean;
  /**
   * Serve `GET /metrics` on this port (same host) instead of the gateway's. `METRICS_PORT`,
   * default unset: on the gateway's port.
   */
  metricsPort?: number | undefined;
  /**
   * Host the metrics port binds (`METRICS_HOST`, only with `METRICS_PORT`): e.g. `127.0.0.1` for
   * a scraper on the same machine while the gateway listens on `0.0.0.0`. Default: `HOST`.
   */
  metricsHost?: string | undefined;
  /** OpenTelemetry traces (docs/operations.md "Traces"); undefined: off. From the `OTEL_*` variables. */
  tracing?: TracingConfig | undefined;
}

/** Where the typed schema's definitions come from, and how often they are re-read. */
export interface TypedSchemaConfig {
  /**
   * The gateway's own credential for reading Custom API definitions (client_credentials):
   * `SCHEMA_CLIENT_ID` and `SCHEMA_CLIENT_SECRET`, both or neither. Unset: with the embedded
   * service the demo client is used; with UPSTREAM_URL only the generic API is served.
   */
  credentials: { clientId: string; clientSecret: string } | undefined;
  /** Re-read interval. `SCHEMA_REFRESH_MS`, default 60000, at least 1000. */
  refreshMs: number;
}

/** Pagination planner settings that deployments tune; the planner applies the same defaults. */
export interface PagingConfigValues {
  /** Largest `first`/`last` of a connection field. `PAGING_MAX_FIRST`, default 1000, at most 10000. */
  maxFirst: number;
  /** Upstream list calls in flight at once for one connection field. `PAGING_CONCURRENCY`, default 10. */
  concurrency: number;
  /**
   * How far behind now a walk's pinned upper bound lies. `PAGING_CONSISTENCY_BUFFER_MS`, default
   * 0; raise it against an eventually consistent upstream or one whose clock runs ahead.
   */
  consistencyBufferMs: number;
}

/**
 * `MAX_DEPTH` (10), `MAX_ALIASES` (15), `MAX_TOKENS` (2000), `MAX_DIRECTIVES` (20), `MAX_COST`
 * (5000), `MAX_LIST_ITEMS` (1000, list items in one operation's arguments, all lists together).
 */
export interface QueryLimitsConfig {
  maxDepth: number;
  maxAliases: number;
  maxTokens: number;
  maxDirectives: number;
  maxCost: number;
  maxListItems: number;
}

export interface ResilienceConfigValues {
  /** One upstream attempt, ms. `UPSTREAM_TIMEOUT_MS`, default 5000. */
  attemptTimeoutMs: number;
  /** One GraphQL operation, ms. `OPERATION_DEADLINE_MS`, default 15000. */
  operationDeadlineMs: number;
  /** Attempts of an upstream GET/HEAD, first included. `UPSTREAM_MAX_ATTEMPTS`, default 3. */
  maxAttempts: number;
  /**
   * Percentage of the upstream calls finished in the window that failed at which the breaker
   * opens. `BREAKER_FAILURE_RATE`, 1–100, default 50.
   */
  breakerFailureRate: number;
  /** Calls finished in the window before the rate counts. `BREAKER_MIN_CALLS`, default 20. */
  breakerMinCalls: number;
  /** The breaker's sliding window, ms. `BREAKER_WINDOW_MS`, default 10000. */
  breakerWindowMs: number;
  /** How long an open breaker fails fast before a probe, ms. `BREAKER_COOLDOWN_MS`, default 5000. */
  breakerCooldownMs: number;
  /** Upstream calls in flight at once for one operation. `UPSTREAM_OPERATION_CONCURRENCY`, default 16, at most 64. */
  operationConcurrency: number;
}

export interface Config {
  gateway: GatewayConfig;
  service: ServiceConfig;
}

/**
 * The breaker opens on a failure rate over a sliding window. `BREAKER_FAILURES` (consecutive
 * failures) meant something the breaker no longer does: a deployment that still sets it is told
 * so at startup rather than silently getting another breaker than it asked for.
 */
function breakerFromEnv(
  env: Env,
): Pick<ResilienceConfigValues, 'breakerFailureRate' | 'breakerMinCalls' | 'breakerWindowMs'> {
  if (env.BREAKER_FAILURES !== undefined && env.BREAKER_FAILURES !== '') {
    throw new ConfigError(
      'BREAKER_FAILURES is no longer read: the circuit breaker opens on a failure rate, not on ' +
        'consecutive failures. Remove it and set BREAKER_FAILURE_RATE (percent, default 50), ' +
        'BREAKER_MIN_CALLS (default 20) and BREAKER_WINDOW_MS (default 10000) instead',
    );
  }
  return {
    breakerFailureRate: parseCount('BREAKER_FAILURE_RATE', env.BREAKER_FAILURE_RATE, 50, 100),
    breakerMinCalls: parseCount('BREAKER_MIN_CALLS', env.BREAKER_MIN_CALLS, 20),
    breakerWindowMs: parseCount('BREAKER_WINDOW_MS', env.BREAKER_WINDOW_MS, 10_000),
  };
}

/** Configuration of `npm start`: the gateway, and the embedded service beside it. */
export function loadConfig(env: Env = process.env): Config {
  return {
    gateway: {
      port: parsePort('PORT', env.PORT, 4000),
      host: env.HOST || defaultHost(env),
      upstreamUrl: parseUrl('UPSTREAM_URL', env.UPSTREAM_URL),
      ...hardeningFromEnv(env),
    },
    service: loadEmbeddedServiceConfig(env),
  };
}

function hardeningFromEnv(env: Env): Omit<GatewayConfig, 'port' | 'host' | 'upstreamUrl'> {
  const production = env.NODE_ENV === 'production';
  const introspection = parseBool('INTROSPECTION', env.INTROSPECTION, !production);
  return {
    production,
    graphiql: parseBool('GRAPHIQL', env.GRAPHIQL, !production),
    introspection,
    federationSdl: parseBool('FEDERATION_SDL', env.FEDERATION_SDL, introspection),
    csrfPrevention: parseBool('CSRF_PREVENTION', env.CSRF_PREVENTION, true),
    corsOrigins: parseCorsOrigins(env.CORS_ORIGINS),
    maxBodyBytes: parseCount('MAX_BODY_BYTES', env.MAX_BODY_BYTES, 512 * 1024),
    connections: connectionLimitsFromEnv(env),
    queryLimits: {
      maxDepth: parseCount('MAX_DEPTH', env.MAX_DEPTH, 10),
      maxAliases: parseCount('MAX_ALIASES', env.MAX_ALIASES, 15),
      maxTokens: parseCount('MAX_TOKENS', env.MAX_TOKENS, 2000),
      maxDirectives: parseCount('MAX_DIRECTIVES', env.MAX_DIRECTIVES, 20),
      maxCost: parseCount('MAX_COST', env.MAX_COST, 5000),
      maxListItems: parseCount('MAX_LIST_ITEMS', env.MAX_LIST_ITEMS, 1000),
    },
    resilience: {
      attemptTimeoutMs: parseCount('UPSTREAM_TIMEOUT_MS', env.UPSTREAM_TIMEOUT_MS, 5000),
      operationDeadlineMs: parseCount('OPERATION_DEADLINE_MS', env.OPERATION_DEADLINE_MS, 15000),
      maxAttempts: parseCount('UPSTREAM_MAX_ATTEMPTS', env.UPSTREAM_MAX_ATTEMPTS, 3),
      ...breakerFromEnv(env),
      breakerCooldownMs: parseCount('BREAKER_COOLDOWN_MS', env.BREAKER_COOLDOWN_MS, 5000),
      operationConcurrency: parseCount(
        'UPSTREAM_OPERATION_CONCURRENCY',
        env.UPSTREAM_OPERATION_CONCURRENCY,
        DEFAULT_CALLS_PER_OPERATION,
        DEFAULT_POOL_CONNECTIONS,
      ),
    },
    logRequests: parseBool('LOG_REQUESTS', env.LOG_REQUESTS, true),
    logLevel: parseLogLevel(env.LOG_LEVEL),
    fastPath: parseBool('FAST_PATH', env.FAST_PATH, true),
    jit: parseBool('JIT', env.JIT, true),
    shutdownTimeoutMs: parseCount('SHUTDOWN_TIMEOUT_MS', env.SHUTDOWN_TIMEOUT_MS, 10000),
    callBudget: parseCount('UPSTREAM_CALL_BUDGET', env.UPSTREAM_CALL_BUDGET, DEFAULT_CALL_BUDGET),
    paging: pagingFromEnv(env),
    typedSchema: typedSchemaFromEnv(env),
    persistedDocumentsPath: env.PERSISTED_DOCUMENTS || undefined,
    forwardHeaders: parseForwardHeaders(env.FORWARD_HEADERS),
    catalogCacheSeconds: parseCatalogCacheSeconds(env.CATALOG_CACHE_SECONDS),
    metrics: parseBool('METRICS', env.METRICS, true),
    metricsPort:
      env.METRICS_PORT === undefined || env.METRICS_PORT === ''
        ? undefined
        : parsePort('METRICS_PORT', env.METRICS_PORT, 0),
    metricsHost: metricsHostFromEnv(env),
    tracing: tracingFromEnv(env),
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
  const refreshMs = parseCount('SCHEMA_REFRESH_MS', env.SCHEMA_REFRESH_MS, 60_000);
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

function pagingFromEnv(env: Env): PagingConfigValues {
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
  const buffer = rawBuffer === undefined || rawBuffer === '' ? 0 : Number(rawBuffer);
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
