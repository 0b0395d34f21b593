/**
 * `npm start`: the only module that listens. Config → the embedded v2 service (unless
 * UPSTREAM_URL points elsewhere) → the upstream's front door → demo tokens through it → the
 * gateway → drain on SIGTERM/SIGINT. The Node version is checked first (./check-node.ts), and the
 * embedded service (fastify over `node:sqlite`) is loaded only when it runs.
 *
 * `WORKERS=<n>` (n > 1) runs the same gateway in n node:cluster workers sharing the port: this
 * file is then the primary (the embedded service — SQLite has one writer —, the demo tokens, the
 * metrics port, the banner, the drain: ./gateway/cluster/supervisor.ts keeps the workers) and,
 * in each worker, the gateway alone, on the primary's service as its upstream.
 */
import './check-node.ts';
import cluster from 'node:cluster';
import { mkdirSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { dirname } from 'node:path';
import type { createCommerceService } from './commerce-service/app.ts';
import { loadEmbeddedServiceConfig } from './commerce-service/config.ts';
import { applyConnectionLimits } from './commerce-service/connection-limits.ts';
import type { DevelopmentCertificate } from './commerce-service/tls.ts';
import { type Config, loadConfig } from './config/index.ts';
import type { DemoTokens } from './gateway/cluster/protocol.ts';
import { joinCluster } from './gateway/cluster/worker.ts';
import { createGateway, gatewaySettings } from './gateway/create-gateway.ts';
import type { EventBus } from './gateway/events/bus.ts';
import { createRequestListener } from './gateway/fast-path.ts';
import { demoTokenChooser } from './gateway/graphiql.ts';
import { createHealth } from './gateway/health.ts';
import { createLogger, type Logger } from './gateway/logging.ts';
import { metricsListener } from './gateway/metrics.ts';
import { loadPersistedDocuments, type PersistedDocuments } from './gateway/persisted-documents.ts';
import { installGracefulShutdown } from './gateway/shutdown.ts';
import { createTypedSchemaSource, type TypedSchemaSource } from './gateway/typed-schema-source.ts';
import { portOf, printBanner } from './main-banner.ts';
import {
  connectShared,
  redisEventBus,
  type SharedState,
  webhookSecretFor,
  wireStoreEvents,
} from './main-shared.ts';
import { schema as baseSchema } from './schema/index.ts';
import { createUpstream, type Upstream } from './upstream/index.ts';

const DEMO_TOKEN_RENEW_MS = 50 * 60 * 1000;
/** Where the embedded service's development certificate authority is kept (COMMERCE_HTTPS). */
const SERVICE_TLS_DIR = '.cache/commerce-tls';

type ServiceConfig = ReturnType<typeof loadEmbeddedServiceConfig>;
type Service = Awaited<ReturnType<typeof createCommerceService>>;

/** The embedded service, started here unless UPSTREAM_URL is set; where the gateway reaches it. */
interface Origin {
  url: string;
  service: Service | undefined;
  tls: DevelopmentCertificate | undefined;
  demo: { id: string; secret: string } | undefined;
}

async function startOrigin(config: Config, serviceConfig: ServiceConfig): Promise<Origin> {
  if (config.upstream.url !== undefined) {
    return { url: config.upstream.url, service: undefined, tls: undefined, demo: undefined };
  }
  // The embedded service's request lines go out as the gateway's own JSON lines.
  const serviceLog = createLogger({ level: config.logging.level });
  const { dbPath, clients, seed, port, signInLimits } = serviceConfig;
  if (dbPath !== ':memory:') mkdirSync(dirname(dbPath), { recursive: true });
  const { createCommerceService } = await import('./commerce-service/app.ts');
  // COMMERCE_HTTPS: the service serves TLS (for storefronts that reach it as https://), and the
  // gateway trusts the authority that signed it.
  const tls = serviceConfig.https
    ? (await import('./commerce-service/tls.ts')).developmentCertificate(SERVICE_TLS_DIR)
    : undefined;
  const service = await createCommerceService({
    dbPath,
    clients,
    seed,
    signInLimits,
    ...(tls ? { https: { key: tls.key, cert: tls.cert } } : {}),
    ...(serviceConfig.logRequests
      ? { requestLog: (entry) => serviceLog.log('info', 'service request', { ...entry }) }
      : {}),
  });
  await service.listen({ port, host: '127.0.0.1' });
  const address = service.server.address();
  const servicePort = typeof address === 'object' && address ? address.port : port;
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${servicePort}`;
  return { url, service, tls, demo: serviceConfig.clients[0] };
}

/** The front door to the upstream: its one pool carries every call to the origin. */
function upstreamFor(
  config: Config,
  url: string,
  ca: string | undefined,
  shared?: SharedState,
): Upstream {
  return createUpstream({
    ...config.upstream,
    url,
    pool: { ...config.upstream.pool, ...(ca ? { ca } : {}) },
    rateLimit: config.limits.upstreamRate,
    ...(shared?.redis
      ? { redis: shared.redis, onSharedStateChange: shared.onSharedStateChange }
      : {}),
  });
}

/**
 * The demo store's read-write token, and its storefront (implicit) token for GraphiQL pages
 * asked for from elsewhere (src/gateway/graphiql.ts, demoTokenChooser); renewed well within
 * their hour, so a page opened later still works.
 */
async function keepDemoTokens(
  upstream: Upstream,
  demo: { id: string; secret: string },
  renewed: (tokens: DemoTokens) => void,
): Promise<DemoTokens> {
  const read = async (): Promise<DemoTokens> => {
    const [readWrite, storefront] = await Promise.all([
      upstream.token({ clientId: demo.id, clientSecret: demo.secret }),
      upstream.token({ clientId: demo.id }),
    ]);
    return { readWrite, storefront };
  };
  const first = await read();
  setInterval(() => {
    read().then(renewed, (error: unknown) =>
      console.error(`demo token renewal failed: ${String(error)}`),
    );
  }, DEMO_TOKEN_RENEW_MS).unref();
  return first;
}

interface GatewayServer {
  server: Server;
  /** The gateway's own metrics (undefined: METRICS=0). */
  render: (() => Promise<string>) | undefined;
  graphqlEndpoint: string;
  health: ReturnType<typeof createHealth>;
  /**
   * Ends open subscriptions (their clients reconnect elsewhere with Last-Event-ID) and answers a
   * webhook arriving meanwhile 503, so the store delivers it again: called when the drain starts.
   */
  endEvents(): void;
  /** Closes what the gateway holds, the upstream last. */
  close(): Promise<void>;
}

/**
 * The gateway on its own options (METRICS_PORT: collected here, served by another listener),
 * with what only this process has: the front door, tokens, manifest, log, health; listening.
 * `metricsHere` answers `GET /metrics` on the gateway's port (a worker: every worker's).
 */
async function listenGateway(
  config: Config,
  serviceConfig: ServiceConfig,
  own: {
    upstream: Upstream;
    demo: { id: string; secret: string } | undefined;
    tokens: () => DemoTokens | undefined;
    persistedDocuments: PersistedDocuments | undefined;
    logger: Logger;
    shared: SharedState;
    /** The bus this process publishes to (undefined: the gateway's own, in this process). */
    bus: EventBus | undefined;
    webhookSecret: string | undefined;
  },
  metricsHere?: () => Promise<string>,
): Promise<GatewayServer> {
  const { listen } = config;
  const { upstream, tokens, persistedDocuments, logger, shared, bus, webhookSecret } = own;
  const health = createHealth({ upstream });
  // The typed schema reads definitions with the gateway's own credential: SCHEMA_CLIENT_ID, or
  // the embedded service's demo client. Without one, only the generic API is served.
  const demo = own.demo;
  const schemaCredentials =
    config.typedSchema.credentials ??
    (demo ? { clientId: demo.id, clientSecret: demo.secret } : undefined);
  let schemaSource: TypedSchemaSource | undefined;
  if (schemaCredentials) {
    schemaSource = createTypedSchemaSource({
      base: baseSchema,
      reader: upstream.definitions(schemaCredentials),
      refreshMs: config.typedSchema.refreshMs,
      logger,
    });
    // A failed first read is logged and retried on the timer: startup never fails over it.
    await schemaSource.start();
  }
  // Tracing only when configured: the SDK is not even loaded otherwise.
  const tracing = config.tracing
    ? await (await import('./gateway/otel.ts')).createTracerSetup(config.tracing, { logger })
    : undefined;
  const gateway = createGateway({
    ...config.gateway,
    ...(metricsHere && config.gateway.metrics ? { metrics: { path: false } } : {}),
    events: {
      ...config.gateway.events,
      ...(webhookSecret ? { webhookSecret } : {}),
      ...(bus ? { bus } : {}),
    },
    upstream,
    demoToken: demoTokenChooser({
      bindHost: listen.host,
      readWrite: () => tokens()?.readWrite,
      storefront: () => tokens()?.storefront,
    }),
    persistedDocuments,
    callerRateLimit: config.limits.callerRate,
    callerRateBurst: config.limits.callerBurst,
    ...(shared.redis
      ? { redis: shared.redis, onSharedStateChange: shared.onSharedStateChange }
      : {}),
    logger: config.logging.requests ? logger : undefined,
    health,
    ...(schemaSource ? { schemaSource } : {}),
    ...(tracing
      ? { tracer: tracing.tracer, traceGraphqlDocument: config.tracing?.graphqlDocument }
      : {}),
  });
  const settings = gatewaySettings(gateway);
  if (persistedDocuments && config.gateway.compiledDocuments !== false && settings) {
    // Which trusted documents run as compiled plans, and why the others do not
    // (docs/compiled-documents.md).
    logger.log('info', 'trusted documents compiled', {
      documents: persistedDocuments.size,
      notCompiled: settings.notCompiled.slice(0, 20),
    });
  }
  const requests = createRequestListener(gateway, { fastPath: listen.fastPath });
  let listener: RequestListener = requests;
  if (metricsHere && config.gateway.metrics && config.gateway.metrics.path !== false) {
    // A worker answers a scrape with every worker's metrics (the primary merges them).
    const scrape = metricsListener({ render: metricsHere });
    listener = (req, res) => {
      const url = req.url ?? '';
      if (url === '/metrics' || url.startsWith('/metrics?')) scrape(req, res);
      else requests(req, res);
    };
  }
  const server = createServer(listener);
  applyConnectionLimits(server, serviceConfig.connections);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, resolve);
  });
  const metrics = settings?.metrics;
  return {
    server,
    render: metrics ? () => metrics.render() : undefined,
    graphqlEndpoint: gateway.graphqlEndpoint,
    health,
    endEvents: () => void settings?.events.close(),
    async close() {
      await gateway.dispose();
      await tracing?.shutdown();
      await schemaSource?.close();
      await upstream.close();
      await shared.redis?.close();
    },
  };
}

/** A listener of the metrics alone (METRICS_PORT), on METRICS_HOST or HOST. */
async function listenMetrics(
  config: Config,
  serviceConfig: ServiceConfig,
  render: () => Promise<string>,
): Promise<Server | undefined> {
  const { listen } = config;
  if (!config.gateway.metrics || listen.metricsPort === undefined) return undefined;
  const server = createServer(metricsListener({ render }));
  applyConnectionLimits(server, serviceConfig.connections);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.metricsPort, listen.metricsHost ?? listen.host, resolve);
  });
  return server;
}

/** `WORKERS=1` (the default): everything in this one process. */
async function runSingle(config: Config, serviceConfig: ServiceConfig): Promise<void> {
  // Read before anything starts: a manifest that cannot be used stops startup with the reason.
  const persistedDocuments = loadPersistedDocuments(config.persistedDocumentsPath);
  const started = Date.now();
  const logger = createLogger({ level: config.logging.level });
  const shared = await connectShared(config, logger);
  const origin = await startOrigin(config, serviceConfig);
  // The one front door: the demo tokens and the typed schema's reads go through its pool too.
  const upstream = upstreamFor(config, origin.url, origin.tls?.ca, shared);
  let tokens: DemoTokens | undefined;
  if (origin.demo) {
    tokens = await keepDemoTokens(upstream, origin.demo, (renewed) => {
      tokens = renewed;
    });
  }
  const webhookSecret = webhookSecretFor(config, tokens !== undefined);
  const gateway = await listenGateway(config, serviceConfig, {
    upstream,
    demo: origin.demo,
    tokens: () => tokens,
    persistedDocuments,
    logger,
    shared,
    bus: await redisEventBus(config, shared, logger),
    webhookSecret,
  });
  const port = portOf(gateway.server, config.listen.port);
  const events = await wireStoreEvents({
    secret: webhookSecret,
    demoToken: tokens?.readWrite,
    apiUrl: origin.url,
    ca: origin.tls?.ca,
    dispatcher: upstream.dispatcher,
    host: config.listen.host,
    port,
  });
  const metricsServer = gateway.render
    ? await listenMetrics(config, serviceConfig, gateway.render)
    : undefined;
  printBanner(config, {
    started,
    port,
    endpoint: gateway.graphqlEndpoint,
    origin,
    metricsServer,
    tokens,
    events,
  });
  // SIGTERM/SIGINT: /readyz turns 503, no new connections, in-flight requests finish, then
  // the pool and the embedded service close and the process exits 0.
  installGracefulShutdown(gateway.server, {
    timeoutMs: config.listen.shutdownTimeoutMs,
    onDraining: () => {
      gateway.health.setDraining();
      gateway.endEvents();
    },
    cleanup: async () => {
      metricsServer?.close();
      await gateway.close();
      await origin.service?.close();
    },
    log: (msg, fields) => logger.log('info', msg, fields),
  });
}

/** `WORKERS=<n>`: this process holds the service and keeps the n workers (./cluster/). */
async function runPrimary(config: Config, serviceConfig: ServiceConfig): Promise<void> {
  const started = Date.now();
  const logger = createLogger({ level: config.logging.level });
  const log = (msg: string, fields?: Record<string, unknown>) => logger.log('info', msg, fields);
  // A manifest that cannot be used stops startup here, once, rather than in every worker.
  loadPersistedDocuments(config.persistedDocumentsPath);
  const origin = await startOrigin(config, serviceConfig);
  const ca = origin.tls?.ca;
  const { startSupervisor } = await import('./gateway/cluster/supervisor.ts');
  let tokens: DemoTokens | undefined;
  let supervisor: ReturnType<typeof startSupervisor> | undefined;
  const tokenDoor = origin.demo ? upstreamFor(config, origin.url, ca) : undefined;
  if (tokenDoor && origin.demo) {
    tokens = await keepDemoTokens(tokenDoor, origin.demo, (renewed) => {
      tokens = renewed;
      supervisor?.tokens(renewed);
    });
  }
  // Without Redis the workers' events meet in one bus here (relayed: ./gateway/events/
  // cluster-bus.ts); with it, every worker reads and writes the Redis stream itself.
  const bus =
    config.redis.url === undefined
      ? (await import('./gateway/events/memory-bus.ts')).createMemoryBus({
          replaySeconds: config.gateway.events.replaySeconds,
          replayMax: config.gateway.events.replayMax,
        })
      : undefined;
  const webhookSecret = webhookSecretFor(config, tokens !== undefined);
  let metricsServer: Server | undefined;
  let stopping: Promise<void> | undefined;
  const stop = (code: number, reason: string) => {
    stopping ??= (async () => {
      log('shutdown: draining workers', { reason, workers: supervisor?.size });
      await supervisor?.drain();
      await bus?.close();
      metricsServer?.close();
      await tokenDoor?.close();
      await origin.service?.close();
      log('shutdown: done');
      process.exit(code);
    })();
    return stopping;
  };
  supervisor = startSupervisor({
    workers: config.listen.workers,
    ...(bus ? { bus } : {}),
    setup: () => ({
      upstreamUrl: origin.url,
      ...(webhookSecret ? { webhookSecret } : {}),
      ...(ca ? { ca } : {}),
      ...(origin.demo ? { demoClient: origin.demo } : {}),
      ...(tokens ? { tokens } : {}),
    }),
    shutdownTimeoutMs: config.listen.shutdownTimeoutMs,
    log: (level, msg, fields) => logger.log(level, msg, fields),
    onGiveUp: (reason) => void stop(1, reason),
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) {
        log('shutdown: second signal, exiting now', { signal });
        supervisor?.kill();
        process.exit(1);
      }
      void stop(0, signal);
    });
  }
  let ready: Awaited<typeof supervisor.ready>;
  try {
    ready = await supervisor.ready;
  } catch (error) {
    // The worker said why on stderr; the rest stop, and so does startup.
    console.error(error instanceof Error ? error.message : error);
    await stop(1, 'startup failed');
    return;
  }
  const render = supervisor.renderMetrics;
  metricsServer = await listenMetrics(config, serviceConfig, render);
  const events = await wireStoreEvents({
    secret: webhookSecret,
    demoToken: tokens?.readWrite,
    apiUrl: origin.url,
    ca,
    dispatcher: tokenDoor?.dispatcher,
    host: config.listen.host,
    port: ready.port,
  });
  printBanner(config, {
    started,
    port: ready.port,
    endpoint: ready.endpoint,
    origin,
    metricsServer,
    tokens,
    events,
  });
}

/** One of the n workers: the gateway alone, on the primary's setup. */
async function runWorker(config: Config, serviceConfig: ServiceConfig): Promise<void> {
  const id = cluster.worker?.id ?? 0;
  const joined = await joinCluster(id);
  const { setup } = joined;
  let tokens = setup.tokens;
  joined.onTokens((renewed) => {
    tokens = renewed;
  });
  // Every line says which worker wrote it; they share the primary's stdout.
  const logger = createLogger({ level: config.logging.level, fields: { worker: id } });
  const shared = await connectShared(config, logger);
  const gateway = await listenGateway(
    config,
    serviceConfig,
    {
      upstream: upstreamFor(config, setup.upstreamUrl, setup.ca, shared),
      demo: setup.demoClient,
      tokens: () => tokens,
      persistedDocuments: loadPersistedDocuments(config.persistedDocumentsPath),
      logger,
      shared,
      // Every worker's events meet in Redis, or else in the primary's bus.
      bus:
        (await redisEventBus(config, shared, logger)) ??
        (await import('./gateway/events/cluster-bus.ts')).createClusterBus(),
      webhookSecret: setup.webhookSecret,
    },
    joined.clusterMetrics,
  );
  const render = gateway.render;
  if (render) joined.onRender(render);
  // Ctrl-C reaches every process of the terminal's group: the primary alone decides, and tells
  // each worker to drain. A SIGTERM sent to this worker alone drains it (the primary replaces it).
  process.on('SIGINT', () => {});
  const shutdown = installGracefulShutdown(gateway.server, {
    timeoutMs: config.listen.shutdownTimeoutMs,
    onDraining: () => {
      gateway.health.setDraining();
      gateway.endEvents();
    },
    cleanup: () => gateway.close(),
    log: (msg, fields) => logger.log('info', msg, fields),
    signals: ['SIGTERM'],
  });
  joined.onDrain(() => {
    void shutdown.shutdown('primary').then(() => process.exit(0));
  });
  joined.ready({
    port: portOf(gateway.server, config.listen.port),
    endpoint: gateway.graphqlEndpoint,
  });
}

async function main(): Promise<void> {
  // The gateway's settings and the embedded service's, each read by its own loader; both refuse
  // a bad environment here, before anything starts.
  const config = loadConfig();
  const serviceConfig = loadEmbeddedServiceConfig();
  if (cluster.isWorker) await runWorker(config, serviceConfig);
  else if (config.listen.workers > 1) await runPrimary(config, serviceConfig);
  else await runSingle(config, serviceConfig);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
