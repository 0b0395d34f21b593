/**
 * `npm start`: the only module that listens. Config → the embedded v2 service (unless
 * UPSTREAM_URL points elsewhere) → the upstream's front door → demo tokens through it → the
 * gateway → drain on SIGTERM/SIGINT. The Node version is checked first (./check-node.ts), and the
 * embedded service (fastify over `node:sqlite`) is loaded only when it runs.
 */
import './check-node.ts';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { dirname } from 'node:path';
import type { createCommerceService } from './commerce-service/app.ts';
import { loadEmbeddedServiceConfig } from './commerce-service/config.ts';
import { applyConnectionLimits } from './commerce-service/connection-limits.ts';
import type { DevelopmentCertificate } from './commerce-service/tls.ts';
import { loadConfig } from './config/index.ts';
import { createGateway, gatewaySettings } from './gateway/create-gateway.ts';
import { createEventBus } from './gateway/events/index.ts';
import { createRequestListener } from './gateway/fast-path.ts';
import { demoTokenChooser, isLoopbackAddress } from './gateway/graphiql.ts';
import { createHealth } from './gateway/health.ts';
import { createLogger } from './gateway/logging.ts';
import { metricsListener } from './gateway/metrics.ts';
import { loadPersistedDocuments } from './gateway/persisted-documents.ts';
import { installGracefulShutdown } from './gateway/shutdown.ts';
import { createTypedSchemaSource, type TypedSchemaSource } from './gateway/typed-schema-source.ts';
import { connectRedis, type RedisConnection } from './redis/connection.ts';
import { schema as baseSchema } from './schema/index.ts';
import { createUpstream } from './upstream/index.ts';
import { ensureWebhookIntegration, INTEGRATION_NAME } from './webhook-integration.ts';

const DEMO_TOKEN_RENEW_MS = 50 * 60 * 1000;
/** Where the embedded service's development certificate authority is kept (COMMERCE_HTTPS). */
const SERVICE_TLS_DIR = '.cache/commerce-tls';

async function main(): Promise<void> {
  // The gateway's settings and the embedded service's, each read by its own loader; both refuse
  // a bad environment here, before anything starts.
  const config = loadConfig();
  const serviceConfig = loadEmbeddedServiceConfig();
  const { listen } = config;
  // HEADERS_TIMEOUT_MS … MAX_CONNECTIONS: read once by the service's loader, for every listener.
  const connections = serviceConfig.connections;
  // Read before anything starts: a manifest that cannot be used stops startup with the reason.
  const persistedDocuments = loadPersistedDocuments(config.persistedDocumentsPath);
  const started = Date.now();
  // The embedded service's request lines go out as the gateway's own JSON lines.
  const serviceLog = createLogger({ level: config.logging.level });
  // REDIS_URL: what replicas share. A Redis that does not answer stops startup here, naming
  // REDIS_URL; one lost later degrades each use on its own terms (src/redis/connection.ts).
  let redis: RedisConnection | undefined;
  if (config.redis.url !== undefined) {
    redis = await connectRedis(config.redis.url, {
      timeoutMs: config.redis.timeoutMs,
      onStateChange: (up, detail) =>
        serviceLog.log(
          up ? 'info' : 'warn',
          up ? 'Redis answers again' : `Redis connection lost: ${detail}`,
          {},
        ),
    });
  }
  const onSharedStateChange = (degraded: boolean, detail: string) =>
    serviceLog.log(degraded ? 'warn' : 'info', detail, {});

  let upstreamUrl = config.upstream.url;
  let service: Awaited<ReturnType<typeof createCommerceService>> | undefined;
  // The demo store's read-write token, and its storefront (implicit) token for GraphiQL pages
  // asked for from elsewhere (src/gateway/graphiql.ts, demoTokenChooser).
  let demoToken: string | undefined;
  let storefrontToken: string | undefined;
  let serviceTls: DevelopmentCertificate | undefined;
  if (upstreamUrl === undefined) {
    const { dbPath, clients, seed, port, signInLimits } = serviceConfig;
    if (dbPath !== ':memory:') mkdirSync(dirname(dbPath), { recursive: true });
    const { createCommerceService } = await import('./commerce-service/app.ts');
    // COMMERCE_HTTPS: the service serves TLS (for storefronts that reach it as https://), and the
    // gateway trusts the authority that signed it.
    serviceTls = serviceConfig.https
      ? (await import('./commerce-service/tls.ts')).developmentCertificate(SERVICE_TLS_DIR)
      : undefined;
    service = await createCommerceService({
      dbPath,
      clients,
      seed,
      signInLimits,
      ...(serviceTls ? { https: { key: serviceTls.key, cert: serviceTls.cert } } : {}),
      ...(serviceConfig.logRequests
        ? { requestLog: (entry) => serviceLog.log('info', 'service request', { ...entry }) }
        : {}),
    });
    await service.listen({ port, host: '127.0.0.1' });
    const address = service.server.address();
    const servicePort = typeof address === 'object' && address ? address.port : port;
    upstreamUrl = `${serviceTls ? 'https' : 'http'}://127.0.0.1:${servicePort}`;
  }

  // The front door to the upstream, on its own options: its one pool carries every call to the
  // origin, the demo tokens and the typed schema's reads included (src/upstream/index.ts).
  const upstream = createUpstream({
    ...config.upstream,
    url: upstreamUrl,
    pool: { ...config.upstream.pool, ...(serviceTls ? { ca: serviceTls.ca } : {}) },
    rateLimit: config.limits.upstreamRate,
    ...(redis ? { redis, onSharedStateChange } : {}),
  });
  const demo = service ? serviceConfig.clients[0] : undefined;
  if (demo) {
    const demoTokens = () =>
      Promise.all([
        upstream.token({ clientId: demo.id, clientSecret: demo.secret }),
        upstream.token({ clientId: demo.id }),
      ]);
    [demoToken, storefrontToken] = await demoTokens();
    // Tokens live one hour: renew GraphiQL's well before, so a page opened later still works.
    setInterval(() => {
      demoTokens().then(
        (tokens) => {
          [demoToken, storefrontToken] = tokens;
        },
        (error: unknown) => console.error(`demo token renewal failed: ${String(error)}`),
      );
    }, DEMO_TOKEN_RENEW_MS).unref();
  }

  const logger = createLogger({ level: config.logging.level });
  const health = createHealth({ upstream });
  // The typed schema reads definitions with the gateway's own credential: SCHEMA_CLIENT_ID, or
  // the embedded service's demo client. Without one, only the generic API is served.
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
  // The store's events for subscriptions: with the embedded service and no WEBHOOK_SECRET, a
  // secret of this run's own, given to the demo store's integration once the gateway listens.
  const wireEmbeddedEvents = demo !== undefined && demoToken !== undefined;
  const webhookSecret =
    config.gateway.events.webhookSecret ??
    (wireEmbeddedEvents ? randomBytes(32).toString('base64url') : undefined);
  // The gateway on its own options (METRICS_PORT: collected here, served by their own server
  // below), with what only this process has: the front door, tokens, manifest, log, health.
  // With REDIS_URL the store's events go through a Redis stream, so a subscriber on any replica
  // hears an event any replica received, and a reconnect to another replica replays what it missed.
  const sharedBus = redis
    ? await createEventBus({
        redis,
        windowMs: config.gateway.events.replaySeconds * 1000,
        onReaderState: (reading, detail) =>
          logger.log(
            reading ? 'info' : 'warn',
            reading ? 'Redis events read again' : 'Redis events reader lost Redis',
            { detail },
          ),
      })
    : undefined;
  const gateway = createGateway({
    ...config.gateway,
    events: {
      ...config.gateway.events,
      ...(webhookSecret ? { webhookSecret } : {}),
      ...(sharedBus ? { bus: sharedBus } : {}),
    },
    upstream,
    demoToken: demoTokenChooser({
      bindHost: listen.host,
      readWrite: () => demoToken,
      storefront: () => storefrontToken,
    }),
    persistedDocuments,
    callerRateLimit: config.limits.callerRate,
    callerRateBurst: config.limits.callerBurst,
    ...(redis ? { redis, onSharedStateChange } : {}),
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
  const server: Server = createServer(
    createRequestListener(gateway, { fastPath: listen.fastPath }),
  );
  applyConnectionLimits(server, connections);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, resolve);
  });
  const metrics = settings?.metrics;
  let metricsServer: Server | undefined;
  if (metrics && listen.metricsPort !== undefined) {
    const listening = createServer(metricsListener(metrics));
    applyConnectionLimits(listening, connections);
    metricsServer = listening;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(listen.metricsPort, listen.metricsHost ?? listen.host, resolve);
    });
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  const loopback = isLoopbackAddress(listen.host);
  const shownHost =
    listen.host === '0.0.0.0' || listen.host === '::'
      ? 'localhost'
      : listen.host.includes(':')
        ? `[${listen.host}]`
        : listen.host;

  // The service posts to the gateway on this machine: a wildcard bind is reached on loopback.
  const reachableHost =
    listen.host === '0.0.0.0' ? '127.0.0.1' : listen.host === '::' ? '[::1]' : shownHost;
  const receiverUrl = `http://${reachableHost}:${port}/webhooks/commerce`;
  let eventsLine = webhookSecret
    ? `POST ${receiverUrl} (WEBHOOK_SECRET; create the store's integration: npm run webhooks:create)`
    : 'off (set WEBHOOK_SECRET to receive the store’s webhooks)';
  if (wireEmbeddedEvents && webhookSecret && upstreamUrl !== undefined && demoToken !== undefined) {
    try {
      await ensureWebhookIntegration({
        apiUrl: upstreamUrl,
        token: demoToken,
        url: receiverUrl,
        secret: webhookSecret,
        ...(serviceTls ? { ca: serviceTls.ca } : {}),
      });
      eventsLine = `${receiverUrl} ← the demo store's integration "${INTEGRATION_NAME}"`;
    } catch (error) {
      // Subscriptions then receive nothing; everything else works: say so, do not stop.
      eventsLine = `not wired (${error instanceof Error ? error.message : String(error)})`;
    }
  }

  console.log(`GraphQL gateway ready in ${Date.now() - started} ms (Node ${process.version})`);
  const endpoint = `http://${shownHost}:${port}${gateway.graphqlEndpoint}`;
  // Without GraphiQL a browser's GET of the endpoint is answered 406: say so, not "GraphiQL".
  console.log(
    config.gateway.graphiql === false
      ? `  GraphQL endpoint:    ${endpoint} (GraphiQL off; GRAPHIQL=1 serves it)`
      : `  GraphiQL / endpoint: ${endpoint}`,
  );
  console.log(`  upstream v2 API:     ${upstreamUrl}${service ? ' (embedded)' : ''}`);
  if (redis)
    console.log(`  shared through Redis: ${redis.address} (events, catalog reads, limits)`);
  const { callerRate, callerBurst, upstreamRate } = config.limits;
  if (callerRate > 0)
    console.log(
      `  per-caller limit:    ${callerRate} requests/s, ${callerBurst || callerRate} at once`,
    );
  if (upstreamRate > 0) console.log(`  per-store pacing:    ${upstreamRate} upstream calls/s`);
  console.log(`  store events:        ${eventsLine}`);
  if (serviceTls)
    console.log(`  its TLS authority:   ${serviceTls.caPath} (trust it once: NODE_EXTRA_CA_CERTS)`);
  if (config.tracing)
    console.log(
      `  traces exported to: ${config.tracing.exporter === 'otlp' ? config.tracing.endpoint : 'console'}`,
    );
  if (metrics) {
    const where = metricsServer?.address();
    const metricsPort = typeof where === 'object' && where ? where.port : port;
    // Unauthenticated: operation names and upstream routes for anyone who reaches the port.
    const exposed = metricsServer === undefined && !loopback;
    const own = metricsServer && listen.metricsHost;
    const metricsHost = own ? (own.includes(':') ? `[${own}]` : own) : shownHost;
    console.log(
      `  Prometheus metrics:  http://${metricsHost}:${metricsPort}/metrics${exposed ? ' (public on the gateway’s port: METRICS_PORT moves them)' : ''}`,
    );
  }
  if (demoToken !== undefined) {
    // The only tokens ever printed: the local demo store's own, for the person who started it.
    console.log('  demo token (read-write, valid 1 hour):');
    console.log(`    Authorization: Bearer ${demoToken}`);
    // A shopper's (implicit) token: what a storefront publishes, for trying the API as one.
    console.log("  storefront token (a shopper's, implicit, valid 1 hour):");
    console.log(`    Authorization: Bearer ${storefrontToken}`);
    if (config.gateway.graphiql !== false)
      console.log(
        loopback
          ? `  GraphiQL at http://${shownHost}:${port}${gateway.graphqlEndpoint} sends it in its first tab, the storefront token in its second (renewed every 50 min)`
          : `  listening on ${listen.host}, beyond this machine: GraphiQL sends only the demo store's storefront (implicit) token`,
      );
  } else {
    console.log('  send your v2 token as "Authorization: Bearer <token>"; it is forwarded as is');
  }

  // SIGTERM/SIGINT: /readyz turns 503, no new connections, in-flight requests finish, then
  // the pool and the embedded service close and the process exits 0.
  installGracefulShutdown(server, {
    timeoutMs: listen.shutdownTimeoutMs,
    onDraining: () => {
      health.setDraining();
      // Open subscriptions would hold the drain to its timeout: they end now (their clients
      // reconnect elsewhere with Last-Event-ID), and a webhook arriving meanwhile is answered
      // 503, so the store delivers it again.
      void gatewaySettings(gateway)?.events.close();
    },
    cleanup: async () => {
      metricsServer?.close();
      await gateway.dispose();
      await tracing?.shutdown();
      await schemaSource?.close();
      await upstream.close();
      await redis?.close();
      await service?.close();
    },
    log: (msg, fields) => logger.log('info', msg, fields),
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
