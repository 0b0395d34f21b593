/**
 * `createGateway(options)` builds the Yoga app (it never listens): the schema, the upstream's
 * front door (src/upstream/index.ts: one pool, a session per request, the observers of its
 * attempts), and error masking that lets only the gateway's own error family through with its
 * code. Construction goes one way: the gateway builds (or is given) the front door and hands it
 * its observers; the upstream knows nothing of the gateway.
 */
import type { Tracer } from '@opentelemetry/api';
import { GraphQLError } from 'graphql';
import {
  createYoga,
  isAsyncIterable,
  type Plugin,
  type YogaServerInstance,
  maskError as yogaMaskError,
} from 'graphql-yoga';
import type { RedisConnection } from '../redis/connection.ts';
import { NoSubgraphSdlRule } from '../schema/federation.ts';
import { schema } from '../schema/index.ts';
import { EVENT_FEED_KEY } from '../schema/subscription-feed.ts';
import { findGatewayError } from '../upstream/errors.ts';
import {
  createUpstream,
  type GatewayContext,
  type PagingLimits,
  type ResilienceConfig,
  type SendAttempt,
  type Upstream,
  type UpstreamObserver,
  type UpstreamPoolOptions,
} from '../upstream/index.ts';
import {
  createSecurityPlugins,
  DEFAULT_MAX_BODY_BYTES,
  type QueryLimits,
  securityYogaOptions,
} from './armor.ts';
import { createCallerLimit } from './caller-limit.ts';
import { committedWritesPlugin } from './committed-writes.ts';
import type { LaneSettings } from './compiled/lane.ts';
import {
  type CompiledStats,
  compiledDocumentsPlugin,
  compileManifest,
  createCompiledStats,
  createPlanRegistry,
} from './compiled/plugin.ts';
import { type CorsOrigins, corsPlugin } from './cors.ts';
import type { EventBus } from './events/bus.ts';
import { createMemoryBus } from './events/memory-bus.ts';
import { webhookReceiverPlugin } from './events/webhook-receiver.ts';
import { type GraphiQLToken, graphiqlPlugin, renderGraphiQLPage } from './graphiql.ts';
import { createHealth, type Health } from './health.ts';
import { inContextPlugin } from './in-context.ts';
import { incrementalDeliveryPlugin, withIncrementalDelivery } from './incremental.ts';
import { type JitStats, jitPlugin } from './jit.ts';
import { createYogaLogger, type Logger, requestLogPlugin } from './logging.ts';
import { createMetrics, type Metrics, type MetricsOptions } from './metrics.ts';
import { operationLimitsPlugin } from './operation-limits.ts';
import { type PersistedDocuments, persistedDocumentsPlugin } from './persisted-documents.ts';
import { credentialsOf } from './request-checks.ts';
import { subscriptionsPlugin } from './subscriptions.ts';
import { createTracing } from './tracing.ts';
import type { SchemaSource } from './typed-schema-source.ts';
import { createParseCache, validationCachePlugin } from './validation-cache.ts';

/** Where the gateway's upstream comes from: a URL, or a front door built beforehand. */
export type GatewayOptions = GatewayOptionsBase &
  (
    | {
        /** Base URL of the v2 service, without `/v2` (e.g. `http://127.0.0.1:4010`). */
        upstreamUrl: string;
        upstream?: Upstream;
      }
    | {
        /**
         * The upstream's front door (src/upstream/index.ts), built beforehand to share its one
         * pool with the typed schema's reader and the gateway's own tokens (src/main.ts does).
         * The caller closes it, after the gateway. Without it the gateway builds one from
         * `upstreamUrl` and the upstream options (`callBudget` … `resilience`), and closes it on
         * dispose; with it, those are the front door's and are not read here.
         */
        upstream: Upstream;
        upstreamUrl?: string;
      }
  );

export interface GatewayOptionsBase {
  /**
   * A token put into GraphiQL's default headers, so a newcomer's first query works. A function is
   * asked on every GraphiQL page load, with the page's request, so a renewed token reaches the
   * next reload and the token can depend on who asks (./graphiql.ts, demoTokenChooser).
   */
  demoToken?: string | ((request: Request) => string | GraphiQLToken | undefined);
  /** Serve GraphiQL on GET /graphql, its assets under /graphiql/ (./graphiql.ts). Default true. */
  graphiql?: boolean;
  /** GraphQL endpoint path. Default `/graphql`. */
  graphqlEndpoint?: string;
  /** Upstream calls allowed per operation. Default DEFAULT_CALL_BUDGET (src/upstream/budget.ts). */
  callBudget?: number;
  /**
   * Limits of the pagination planner (maxFirst, concurrency, consistency buffer…). With
   * `upstream` given, its own limits count.
   */
  paging?: Partial<PagingLimits>;
  /** Deadline of one operation; its upstream calls are aborted after it. Default 15,000 ms. */
  operationDeadlineMs?: number;
  /** Settings of the shared upstream connection pool. */
  pool?: UpstreamPoolOptions;
  /**
   * Caller headers forwarded upstream besides Authorization (lowercase names), with the bearer
   * token's guarantees. Default: X-Moltin-Customer-Token, EP-Account-Management-Authentication-
   * Token, X-Moltin-Currency, EP-Channel, EP-Context-Tag and Accept-Language
   * (src/upstream/forwarded-headers.ts).
   */
  forwardHeaders?: readonly string[];
  /**
   * How long a product's breadcrumb nodes and children's pages are shared between callers of
   * one catalog and release, seconds (`CATALOG_CACHE_SECONDS`, src/upstream/shared-reads.ts).
   * Default 60; 0 keeps none.
   */
  catalogCacheSeconds?: number;
  /** The attempt function, for resilience to wrap; default: one plain HTTP attempt. */
  send?: SendAttempt;
  /**
   * Timeouts, retries and circuit breaker around `send` (src/upstream/resilience.ts); `false`
   * sends every call exactly once. Defaults: 5 s per attempt, 3 attempts for GET, breaker on.
   */
  resilience?: ResilienceConfig | false;
  /** Production: error masks carry no dev details whatever NODE_ENV says. Default false. */
  production?: boolean;
  /** Allow introspection. Default true. */
  introspection?: boolean;
  /**
   * Serve Federation's `_service { sdl }` (the whole schema, for a federation router's
   * composition). Default: as `introspection`.
   */
  federationSdl?: boolean;
  /** CSRF prevention (src/gateway/request-checks.ts). Default true. */
  csrfPrevention?: boolean;
  /**
   * Origins whose pages may call the gateway from a browser (src/gateway/cors.ts): exact origins
   * (with credentials), or `'*'` (any, without). Default none: no CORS headers.
   */
  corsOrigins?: CorsOrigins;
  /** Query limits (src/gateway/armor.ts); defaults there. */
  queryLimits?: Partial<QueryLimits>;
  /**
   * Trusted documents by id (src/gateway/persisted-documents.ts): when given, only these run and
   * anything else is refused before parsing. Default: any document runs.
   */
  persistedDocuments?: PersistedDocuments;
  /** Largest request body, bytes. Default 512 KiB. */
  maxBodyBytes?: number;
  /** Structured log for request lines and Yoga's own messages; `false` = silent. */
  logger?: Logger | false;
  /** /healthz and /readyz; pass one to drive readiness (shutdown). Default: created here. */
  health?: Health;
  /** Compiled execution of queries (src/gateway/jit.ts). Default true. */
  jit?: boolean;
  /**
   * With `persistedDocuments`: compile each trusted document once, at startup, into a plan that
   * runs instead of the executor (src/gateway/compiled/; documents it cannot prove equal run as
   * usual). Default true.
   */
  compiledDocuments?: boolean;
  /**
   * Where each request's schema comes from (the typed Custom API schema, swapped on refresh:
   * src/gateway/typed-schema-source.ts). Default: the static schema.
   */
  schemaSource?: SchemaSource;
  /**
   * Prometheus metrics (src/gateway/metrics.ts). Default: collected and served on `GET /metrics`;
   * `{ path: false }` collects them for another listener (`gatewaySettings(g).metrics`);
   * `false`: none, no hook runs.
   */
  metrics?: boolean | MetricsOptions;
  /**
   * An OpenTelemetry tracer (src/gateway/tracing.ts, src/gateway/otel.ts): a span per request and
   * per upstream attempt, W3C trace context to the upstream. Default: none, no tracing code runs.
   */
  tracer?: Tracer;
  /**
   * Requests a second one caller may send (`CALLER_RATE_LIMIT`, ./caller-limit.ts): a token
   * bucket per bearer token (or address without one); over it, RATE_LIMITED with HTTP 429 and
   * `Retry-After`, before any upstream call. Default 0: no limit.
   */
  callerRateLimit?: number;
  /** Requests one caller may send at once (`CALLER_RATE_BURST`). Default: `callerRateLimit`. */
  callerRateBurst?: number;
  /**
   * Upstream calls a second to the store (`UPSTREAM_RATE_LIMIT`, src/upstream/shaper.ts): calls
   * beyond it wait their turn. With `upstream` given, its own counts. Default 0: unpaced.
   */
  upstreamRateLimit?: number;
  /**
   * Redis shared by the replicas (`REDIS_URL`, src/redis/connection.ts): the per-caller limit
   * then holds across them (and, without `upstream`, the front door built here shares the
   * catalog reads and the store's rate). The caller connects and closes it. Default none.
   */
  redis?: RedisConnection;
  /**
   * Told when a limit shared through `redis` falls back to this process (Redis not answering)
   * and when it is shared again. Default: the `logger`'s warning and info lines.
   */
  onSharedStateChange?: (degraded: boolean, detail: string) => void;
  /**
   * With `tracer`: record each request's document as sent, literal values included, as
   * `graphql.document` (TRACE_GRAPHQL_DOCUMENT). Default false.
   */
  traceGraphqlDocument?: boolean;
  /** The store's events for subscriptions (docs/subscriptions.md). */
  events?: GatewayEventsOptions;
}

/** Where subscriptions' events come from, and how the store's webhooks reach them. */
export interface GatewayEventsOptions {
  /**
   * The bus events are published to and subscribed from (./events/bus.ts): a shared one (Redis)
   * for replicas. The caller closes it. Default: one in this process (./events/memory-bus.ts),
   * closed on dispose.
   */
  bus?: EventBus;
  /** The default bus's replay window, seconds (`EVENT_REPLAY_SECONDS`). Default 300. */
  replaySeconds?: number;
  /** The default bus's replay window, events at most (`EVENT_REPLAY_MAX`). Default 10,000. */
  replayMax?: number;
  /**
   * The secret the store's webhook integration sends in `X-Moltin-Secret-Key`
   * (`WEBHOOK_SECRET`). Without it there is no receiver: its path answers 404 like any other.
   */
  webhookSecret?: string;
  /** Where the receiver listens. Default `/webhooks/commerce`. */
  webhookPath?: string;
}

export type Gateway = YogaServerInstance<Record<string, unknown>, GatewayContext>;

/** What the node:http listener (src/gateway/fast-path.ts) must know of a gateway it serves. */
export interface GatewaySettings {
  maxBodyBytes: number;
  /** Operations run compiled or not (src/gateway/jit.ts); all normal when jit is off. */
  jit: JitStats;
  /** Operations of trusted documents that ran their compiled plan (src/gateway/compiled/). */
  compiled: CompiledStats;
  /** Trusted documents not compiled, with the reason (they run on the ordinary path). */
  notCompiled: readonly { id: string; reason: string }[];
  /** The gateway's metrics, unless turned off. */
  metrics?: Metrics | undefined;
  /** The bus its subscriptions follow (given, or its own). */
  events: EventBus;
  /**
   * The direct lane of compiled documents (./compiled/lane.ts), when there are plans and no
   * tracer; the listener adds Yoga's masking.
   */
  lane?: LaneSettings | undefined;
}
const settingsOf = new WeakMap<Gateway, GatewaySettings>();

/** The settings a gateway was built with (createGateway registers them). */
export function gatewaySettings(gateway: Gateway): GatewaySettings | undefined {
  return settingsOf.get(gateway);
}

/**
 * A GraphQLError made by another copy of graphql, as ours: graphql-armor depends on graphql 16,
 * so beside an application's graphql 17 npm gives armor a copy of its own, and Yoga, which knows
 * a GraphQLError by `instanceof`, would mask armor's refusals as a 500. One that wraps an
 * unexpected error (`originalError`) is left to the mask.
 */
function fromAnotherGraphql(error: unknown): GraphQLError | undefined {
  if (!(error instanceof Error) || error instanceof GraphQLError || error.name !== 'GraphQLError') {
    return undefined;
  }
  const foreign = error as Error &
    Partial<
      Pick<GraphQLError, 'nodes' | 'source' | 'positions' | 'path' | 'extensions' | 'originalError'>
    >;
  if (foreign.originalError != null) return undefined;
  return new GraphQLError(foreign.message, {
    nodes: foreign.nodes,
    source: foreign.source,
    positions: foreign.positions,
    path: foreign.path,
    extensions: foreign.extensions,
  });
}

/**
 * Gateway errors reach clients with their message and `extensions.code`; GraphQL's own
 * syntax/validation errors pass as usual; everything else becomes Yoga's masked error.
 */
export function maskGatewayError(error: unknown, message: string, isDev?: boolean): Error {
  const bridged = fromAnotherGraphql(error);
  if (bridged !== undefined) return bridged;
  const gatewayError = findGatewayError(error);
  if (gatewayError !== undefined) {
    const outer = error instanceof GraphQLError ? error : undefined;
    // graphql-js already copied the gateway error's extensions onto its wrapper; returning the
    // wrapper itself tells Yoga nothing was masked, so a caller's mistake is not logged as ours.
    if (outer !== undefined && outer.extensions.code === gatewayError.code) return outer;
    // A variable coercion error keeps its own message, which names the variable.
    const text =
      outer !== undefined && outer.message !== gatewayError.message && outer.path === undefined
        ? outer.message
        : gatewayError.message;
    return new GraphQLError(text, {
      nodes: outer?.nodes,
      source: outer?.source,
      positions: outer?.positions,
      path: outer?.path,
      extensions: gatewayError.extensions,
    });
  }
  return yogaMaskError(error, message, isDev);
}

export function createGateway(options: GatewayOptions): Gateway {
  const upstream = options.upstream ?? createOwnUpstream(options);
  const paging = upstream.paging;
  const metrics =
    options.metrics === false
      ? undefined
      : createMetrics(options.metrics === true ? {} : options.metrics);
  const graphqlEndpoint = options.graphqlEndpoint ?? '/graphql';
  const tracing = options.tracer
    ? createTracing({
        tracer: options.tracer,
        graphqlEndpoint,
        origin: upstream.origin,
        graphqlDocument: options.traceGraphqlDocument,
      })
    : undefined;
  if (metrics) {
    upstream.observe(metrics.observer);
    const breaker = upstream.breaker;
    if (breaker) metrics.breakerState = () => breaker.state;
    const refreshState = options.schemaSource?.refreshState?.bind(options.schemaSource);
    if (refreshState) metrics.schemaRefresh = refreshState;
  }
  if (tracing) upstream.observe(tracing.observer);
  const logger = options.logger;
  if (logger) upstream.observe(breakerLog(logger, upstream.origin));
  const createContext = upstream.createContext;
  const health = options.health ?? createHealth({ upstream });
  const production = options.production ?? false;
  const graphiqlEnabled = options.graphiql ?? true;

  const schemaSource = options.schemaSource;
  const jit: JitStats = { compiled: 0, normal: 0 };
  const compiled: CompiledStats = createCompiledStats();
  // Plans for the static schema are made here; the typed schema gets its own on first use.
  const manifest =
    options.persistedDocuments && options.compiledDocuments !== false
      ? compileManifest(withIncrementalDelivery(schema), options.persistedDocuments)
      : undefined;
  const eventOptions = options.events ?? {};
  const events =
    eventOptions.bus ??
    createMemoryBus({
      replaySeconds: eventOptions.replaySeconds,
      replayMax: eventOptions.replayMax,
    });
  const withEvents = (context: GatewayContext) =>
    Object.assign(context, { [EVENT_FEED_KEY]: events });
  const registry = manifest ? createPlanRegistry(manifest) : undefined;
  const callerLimit = createCallerLimit({
    rate: options.callerRateLimit ?? 0,
    burst: options.callerRateBurst,
    redis: options.redis,
    onSharedStateChange:
      options.onSharedStateChange ??
      ((degraded, detail) =>
        logger ? logger.log(degraded ? 'warn' : 'info', detail, {}) : undefined),
  });
  const operationLimits = operationLimitsPlugin({
    limits: options.queryLimits,
    maxFirst: paging.maxFirst,
  });
  const yoga = createYoga<Record<string, unknown>, GatewayContext>({
    // A factory is asked once per request, which then keeps that schema to its end. Served with
    // @defer and @stream (./incremental.ts).
    schema: schemaSource
      ? () => withIncrementalDelivery(schemaSource.current())
      : withIncrementalDelivery(schema),
    graphqlEndpoint,
    landingPage: false,
    graphiql: graphiqlEnabled
      ? (request: Request) => {
          const given =
            typeof options.demoToken === 'function'
              ? options.demoToken(request)
              : options.demoToken;
          const demo = typeof given === 'string' ? { token: given } : given;
          const headers = demo?.token
            ? JSON.stringify({ Authorization: `Bearer ${demo.token}` })
            : undefined;
          const defaultQuery = demo?.storefront ? STOREFRONT_NOTE + DEFAULT_QUERY : DEFAULT_QUERY;
          return {
            title: 'commerce-gateway',
            headers,
            defaultQuery,
            // The store's tab first (the README's first query), then a shopper's, preset.
            ...(demo?.shopperToken === undefined
              ? {}
              : {
                  defaultTabs: [
                    { query: defaultQuery, ...(headers === undefined ? {} : { headers }) },
                    {
                      query: GRAPHIQL_SHOPPER_QUERY,
                      headers: JSON.stringify({ Authorization: `Bearer ${demo.shopperToken}` }),
                    },
                  ],
                }),
          };
        }
      : false,
    renderGraphiQL: renderGraphiQLPage,
    // Yoga's CORS reflects any origin with credentials; corsPlugin below replaces it.
    cors: false,
    maskedErrors: {
      maskError: (error, message, isDev) =>
        maskGatewayError(error, message, production ? false : isDev),
    },
    ...securityYogaOptions({ maxBodyBytes: options.maxBodyBytes }),
    ...(logger === undefined ? {} : { logging: logger ? createYogaLogger(logger) : false }),
    context: tracing
      ? ({ request }) => withEvents(createContext(credentialsOf(request), tracing.spanOf(request)))
      : ({ request }) => withEvents(createContext(credentialsOf(request))),
    plugins: [
      // First, where Yoga's own CORS was: a preflight is answered before anything counts it.
      corsPlugin(options.corsOrigins ?? []),
      health.plugin,
      ...(eventOptions.webhookSecret
        ? [
            webhookReceiverPlugin({
              bus: events,
              secret: eventOptions.webhookSecret,
              path: eventOptions.webhookPath,
              ...(logger ? { log: (message, fields) => logger.log('warn', message, fields) } : {}),
            }),
          ]
        : []),
      // Before the log: their onRequest starts what the log line reads (the trace id).
      ...(metrics ? [metrics.plugin] : []),
      ...(tracing ? [tracing.plugin] : []),
      ...(graphiqlEnabled ? [graphiqlPlugin()] : []),
      // Before anything reads the request: a caller over its limit costs nothing more.
      ...callerLimit.plugins,
      ...createSecurityPlugins({
        introspection: options.introspection,
        csrfPrevention: options.csrfPrevention,
        limits: options.queryLimits,
        maxFirst: paging.maxFirst,
      }),
      ...((options.federationSdl ?? options.introspection ?? true) ? [] : [noSubgraphSdlPlugin]),
      ...(options.persistedDocuments ? [persistedDocumentsPlugin(options.persistedDocuments)] : []),
      ...(logger
        ? [requestLogPlugin({ logger, ...(tracing ? { traceIdOf: tracing.traceIdOf } : {}) })]
        : []),
      ...(options.jit === false ? [] : [jitPlugin(jit)]),
      // After jit (its plans replace the executor jit chose), before the limits (they wrap it).
      // Before the limits, which wrap whichever subscribe runs as they wrap the executor.
      subscriptionsPlugin,
      // After jit (which compiles no document using @defer/@stream), before the limits.
      incrementalDeliveryPlugin({
        maskError: (error) =>
          maskGatewayError(
            error,
            MASKED_MESSAGE,
            production ? false : globalThis.process?.env?.NODE_ENV === 'development',
          ),
      }),
      ...(registry ? [compiledDocumentsPlugin(registry, compiled)] : []),
      // After jit: it wraps whichever executor runs, judging the variables' values first.
      operationLimits,
      // Before Yoga's masking, which runs after every plugin given here.
      committedWritesPlugin(),
      finishSessionPlugin,
      inContextPlugin,
      // An upstream given by the caller is the caller's to close.
      ...(options.upstream ? [] : [{ onDispose: () => upstream.close() }]),
      ...(eventOptions.bus ? [] : [{ onDispose: () => events.close() }]),
      // After every plugin that adds a validation rule, where Yoga's own cache would be.
      validationCachePlugin(),
    ],
    // Yoga's parse cache stays, over a store without a clock; its validation cache is replaced
    // (./validation-cache.ts).
    parserAndValidationCache: {
      documentCache: createParseCache(),
      errorCache: createParseCache(),
      validationCache: false,
    },
  });
  settingsOf.set(yoga, {
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    jit,
    compiled,
    notCompiled: manifest?.skipped ?? [],
    metrics,
    events,
    lane:
      registry && options.persistedDocuments && !tracing
        ? {
            endpoint: graphqlEndpoint,
            documents: options.persistedDocuments,
            registry,
            // The schema Yoga serves (with @defer/@stream): the plans proven on it are the lane's.
            schema: schemaSource
              ? () => withIncrementalDelivery(schemaSource.current())
              : () => withIncrementalDelivery(schema),
            createContext,
            stats: compiled,
            cors: options.corsOrigins ?? [],
            callerTake: callerLimit.take,
            judge: operationLimits.judge,
            metrics,
            logger: logger || undefined,
          }
        : undefined,
  });
  return yoga;
}

/** The front door the gateway builds (and closes) when it was given none. */
function createOwnUpstream(options: GatewayOptions): Upstream {
  if (options.upstreamUrl === undefined) {
    throw new TypeError('createGateway needs `upstreamUrl` or `upstream`');
  }
  return createUpstream({
    url: options.upstreamUrl,
    pool: options.pool,
    resilience: options.resilience,
    send: options.send,
    callBudget: options.callBudget,
    paging: options.paging,
    operationDeadlineMs: options.operationDeadlineMs,
    forwardHeaders: options.forwardHeaders,
    catalogCacheSeconds: options.catalogCacheSeconds,
    rateLimit: options.upstreamRateLimit,
    ...(options.redis ? { redis: options.redis } : {}),
    ...(options.onSharedStateChange ? { onSharedStateChange: options.onSharedStateChange } : {}),
  });
}

/** The upstream's circuit breaker opening and closing, in the log: what an operator pages on. */
function breakerLog(logger: Logger, origin: string): UpstreamObserver {
  return {
    breakerChange(state) {
      logger.log(state === 'open' ? 'warn' : 'info', `upstream circuit breaker ${state}`, {
        upstream: origin,
      });
    },
  };
}

/** `_service { sdl }` refused like introspection (src/schema/federation.ts). */
const noSubgraphSdlPlugin: Plugin = {
  onValidate: ({ addValidationRule }) => addValidationRule(NoSubgraphSdlRule),
};

/**
 * The session's deadline timer goes with the operation (src/upstream/session.ts); an answer in
 * parts (@defer/@stream) is done when its last part is, or when the client goes away. One hook
 * object for every operation: it reads the operation from its own arguments.
 */
const finishSession = {
  onExecuteDone: ({ args, result }: { args: { contextValue: unknown }; result: unknown }) => {
    const finish = () => (args.contextValue as Partial<GatewayContext>).finish?.();
    if (isAsyncIterable(result)) return { onEnd: finish };
    finish();
    return undefined;
  },
};
const finishSessionPlugin: Plugin = { onExecute: () => finishSession };

/** Yoga's own words for a masked error. */
const MASKED_MESSAGE = 'Unexpected error.';

const STOREFRONT_NOTE = `# This page came from another machine (or a name other than localhost), so it carries
# the demo store's storefront (implicit) token: a shopper's reads and writes, no more. For the
# whole demo, put the read-write token \`npm start\` printed into the Headers tab.
`;

// GraphiQL's second tab, with the storefront (implicit) token: a shopper's category menu.
export const GRAPHIQL_SHOPPER_QUERY = `# A shopper's page: this tab sends the demo store's storefront (implicit) token, the
# token a storefront publishes. A category menu, two levels deep, with a few products each.
query CategoryMenu {
  catalog {
    hierarchies(first: 3) {
      nodes {
        name
        children(first: 6) {
          nodes { name slug products(first: 2) { nodes { name price(currency: "USD") { amount { formatted } } } } }
        }
      }
    }
  }
}
`;

// The README's first query, character for character (test/build/readme-examples.test.ts).
const DEFAULT_QUERY = `# Your first query: a storefront's search page — the products the shopper's catalog shows for
# "tee", cheapest first, with facets to refine by, images and prices.
query SearchPage {
  catalog {
    search(query: "tee", first: 4, sort: PRICE) {
      totalCount
      facets { field values { value count } }
      nodes {
        name
        slug
        mainImage { url }
        price(currency: "USD") { amount { formatted } }
        options { name values }
      }
    }
  }
}
`;
