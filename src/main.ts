/**
 * `npm start`: the only module that listens. Config → the embedded v2 service (unless
 * UPSTREAM_URL points elsewhere) → the upstream's front door → demo tokens through it → the
 * gateway → drain on SIGTERM/SIGINT. The Node version is checked first (./check-node.ts), and the
 * embedded service (fastify over `node:sqlite`) is loaded only when it runs.
 */
import './check-node.ts';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { dirname } from 'node:path';
import type { createCommerceService } from './commerce-service/app.ts';
import { applyConnectionLimits } from './commerce-service/connection-limits.ts';
import type { DevelopmentCertificate } from './commerce-service/tls.ts';
import { loadConfig } from './config.ts';
import { createGateway, gatewaySettings } from './gateway/create-gateway.ts';
import { createRequestListener } from './gateway/fast-path.ts';
import { demoTokenChooser, isLoopbackAddress } from './gateway/graphiql.ts';
import { createHealth } from './gateway/health.ts';
import { createLogger } from './gateway/logging.ts';
import { metricsListener } from './gateway/metrics.ts';
import { loadPersistedDocuments } from './gateway/persisted-documents.ts';
import { installGracefulShutdown } from './gateway/shutdown.ts';
import { createTypedSchemaSource, type TypedSchemaSource } from './gateway/typed-schema-source.ts';
import { schema as baseSchema } from './schema/index.ts';
import { createUpstream } from './upstream/index.ts';

const DEMO_TOKEN_RENEW_MS = 50 * 60 * 1000;
/** Where the embedded service's development certificate authority is kept (COMMERCE_HTTPS). */
const SERVICE_TLS_DIR = '.cache/commerce-tls';

async function main(): Promise<void> {
  const config = loadConfig();
  // Read before anything starts: a manifest that cannot be used stops startup with the reason.
  const persistedDocuments = loadPersistedDocuments(config.gateway.persistedDocumentsPath);
  const started = Date.now();

  let upstreamUrl = config.gateway.upstreamUrl;
  let service: Awaited<ReturnType<typeof createCommerceService>> | undefined;
  // The demo store's read-write token, and its storefront (implicit) token for GraphiQL pages
  // asked for from elsewhere (src/gateway/graphiql.ts, demoTokenChooser).
  let demoToken: string | undefined;
  let storefrontToken: string | undefined;
  let serviceTls: DevelopmentCertificate | undefined;
  // The embedded service's request lines go out as the gateway's own JSON lines.
  const serviceLog = createLogger({ level: config.gateway.logLevel });
  if (upstreamUrl === undefined) {
    const { dbPath, clients, seed, port, signInLimits } = config.service;
    if (dbPath !== ':memory:') mkdirSync(dirname(dbPath), { recursive: true });
    const { createCommerceService } = await import('./commerce-service/app.ts');
    // COMMERCE_HTTPS: the service serves TLS (for storefronts that reach it as https://), and the
    // gateway trusts the authority that signed it.
    serviceTls = config.service.https
      ? (await import('./commerce-service/tls.ts')).developmentCertificate(SERVICE_TLS_DIR)
      : undefined;
    service = await createCommerceService({
      dbPath,
      clients,
      seed,
      signInLimits,
      ...(serviceTls ? { https: { key: serviceTls.key, cert: serviceTls.cert } } : {}),
      ...(config.service.logRequests
        ? { requestLog: (entry) => serviceLog.log('info', 'service request', { ...entry }) }
        : {}),
    });
    await service.listen({ port, host: '127.0.0.1' });
    const address = service.server.address();
    const servicePort = typeof address === 'object' && address ? address.port : port;
    upstreamUrl = `${serviceTls ? 'https' : 'http'}://127.0.0.1:${servicePort}`;
  }

  const g = config.gateway;
  // The front door to the upstream: its one pool carries every call to the origin, the demo
  // tokens and the typed schema's reads included (src/upstream/index.ts).
  const upstream = createUpstream({
    url: upstreamUrl,
    callBudget: g.callBudget,
    paging: g.paging,
    forwardHeaders: g.forwardHeaders,
    sharedReadsTtlMs:
      g.catalogCacheSeconds === undefined ? undefined : g.catalogCacheSeconds * 1000,
    operationDeadlineMs: g.resilience?.operationDeadlineMs,
    resilience: {
      attemptTimeoutMs: g.resilience?.attemptTimeoutMs,
      maxAttempts: g.resilience?.maxAttempts,
      breaker: {
        failureRatio:
          g.resilience?.breakerFailureRate === undefined
            ? undefined
            : g.resilience.breakerFailureRate / 100,
        minimumCalls: g.resilience?.breakerMinCalls,
        windowMs: g.resilience?.breakerWindowMs,
        cooldownMs: g.resilience?.breakerCooldownMs,
      },
    },
    pool: {
      perOperation: g.resilience?.operationConcurrency,
      ...(serviceTls ? { ca: serviceTls.ca } : {}),
    },
  });
  const demo = service ? config.service.clients[0] : undefined;
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

  const logger = createLogger({ level: g.logLevel });
  const health = createHealth({ upstream });
  // The typed schema reads definitions with the gateway's own credential: SCHEMA_CLIENT_ID, or
  // the embedded service's demo client. Without one, only the generic API is served.
  const schemaCredentials =
    g.typedSchema?.credentials ??
    (demo ? { clientId: demo.id, clientSecret: demo.secret } : undefined);
  let schemaSource: TypedSchemaSource | undefined;
  if (schemaCredentials) {
    schemaSource = createTypedSchemaSource({
      base: baseSchema,
      reader: upstream.definitions(schemaCredentials),
      refreshMs: g.typedSchema?.refreshMs,
      logger,
    });
    // A failed first read is logged and retried on the timer: startup never fails over it.
    await schemaSource.start();
  }
  // Tracing only when configured: the SDK is not even loaded otherwise.
  const tracing = g.tracing
    ? await (await import('./gateway/otel.ts')).createTracerSetup(g.tracing, { logger })
    : undefined;
  const gateway = createGateway({
    upstream,
    demoToken: demoTokenChooser({
      bindHost: config.gateway.host,
      readWrite: () => demoToken,
      storefront: () => storefrontToken,
    }),
    graphiql: g.graphiql,
    introspection: g.introspection,
    federationSdl: g.federationSdl,
    csrfPrevention: g.csrfPrevention,
    corsOrigins: g.corsOrigins,
    production: g.production,
    maxBodyBytes: g.maxBodyBytes,
    queryLimits: g.queryLimits,
    persistedDocuments,
    logger: g.logRequests === false ? undefined : logger,
    jit: g.jit,
    health,
    // METRICS_PORT: collected here, served by their own server below.
    metrics:
      g.metrics === false ? false : { path: g.metricsPort === undefined ? '/metrics' : false },
    ...(schemaSource ? { schemaSource } : {}),
    ...(tracing
      ? { tracer: tracing.tracer, traceGraphqlDocument: g.tracing?.graphqlDocument }
      : {}),
  });
  const server: Server = createServer(createRequestListener(gateway, { fastPath: g.fastPath }));
  applyConnectionLimits(server, g.connections);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.gateway.port, config.gateway.host, resolve);
  });
  const metrics = gatewaySettings(gateway)?.metrics;
  let metricsServer: Server | undefined;
  if (metrics && g.metricsPort !== undefined) {
    const listening = createServer(metricsListener(metrics));
    applyConnectionLimits(listening, g.connections);
    metricsServer = listening;
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(g.metricsPort, g.metricsHost ?? config.gateway.host, resolve);
    });
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.gateway.port;
  const loopback = isLoopbackAddress(config.gateway.host);
  const shownHost =
    config.gateway.host === '0.0.0.0' || config.gateway.host === '::'
      ? 'localhost'
      : config.gateway.host.includes(':')
        ? `[${config.gateway.host}]`
        : config.gateway.host;

  console.log(`GraphQL gateway ready in ${Date.now() - started} ms (Node ${process.version})`);
  const endpoint = `http://${shownHost}:${port}${gateway.graphqlEndpoint}`;
  // Without GraphiQL a browser's GET of the endpoint is answered 406: say so, not "GraphiQL".
  console.log(
    g.graphiql === false
      ? `  GraphQL endpoint:    ${endpoint} (GraphiQL off; GRAPHIQL=1 serves it)`
      : `  GraphiQL / endpoint: ${endpoint}`,
  );
  console.log(`  upstream v2 API:     ${upstreamUrl}${service ? ' (embedded)' : ''}`);
  if (serviceTls)
    console.log(`  its TLS authority:   ${serviceTls.caPath} (trust it once: NODE_EXTRA_CA_CERTS)`);
  if (g.tracing)
    console.log(
      `  traces exported to: ${g.tracing.exporter === 'otlp' ? g.tracing.endpoint : 'console'}`,
    );
  if (metrics) {
    const where = metricsServer?.address();
    const metricsPort = typeof where === 'object' && where ? where.port : port;
    // Unauthenticated: operation names and upstream routes for anyone who reaches the port.
    const exposed = metricsServer === undefined && !loopback;
    const own = metricsServer && g.metricsHost;
    const metricsHost = own ? (own.includes(':') ? `[${own}]` : own) : shownHost;
    console.log(
      `  Prometheus metrics:  http://${metricsHost}:${metricsPort}/metrics${exposed ? ' (public on the gateway’s port: METRICS_PORT moves them)' : ''}`,
    );
  }
  if (demoToken !== undefined) {
    // The one token ever printed: the local demo store's own, for the person who started it.
    console.log('  demo token (read-write, valid 1 hour):');
    console.log(`    Authorization: Bearer ${demoToken}`);
    if (g.graphiql !== false)
      console.log(
        loopback
          ? `  GraphiQL at http://${shownHost}:${port}${gateway.graphqlEndpoint} already sends it (renewed every 50 min)`
          : `  listening on ${config.gateway.host}, beyond this machine: GraphiQL sends only the demo store's storefront (implicit) token`,
      );
  } else {
    console.log('  send your v2 token as "Authorization: Bearer <token>"; it is forwarded as is');
  }

  // SIGTERM/SIGINT: /readyz turns 503, no new connections, in-flight requests finish, then
  // the pool and the embedded service close and the process exits 0.
  installGracefulShutdown(server, {
    timeoutMs: g.shutdownTimeoutMs,
    onDraining: () => health.setDraining(),
    cleanup: async () => {
      metricsServer?.close();
      await gateway.dispose();
      await tracing?.shutdown();
      await schemaSource?.close();
      await upstream.close();
      await service?.close();
    },
    log: (msg, fields) => logger.log('info', msg, fields),
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
