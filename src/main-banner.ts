/**
 * `npm start`'s startup banner (src/main.ts): printed once, by the one process or by the primary
 * of WORKERS, with the addresses, what is shared, the store's events and the demo tokens.
 */
import type { Server } from 'node:http';
import type { Config } from './config/index.ts';
import type { DemoTokens } from './gateway/cluster/protocol.ts';
import { isLoopbackAddress } from './gateway/graphiql.ts';
import { redisAddress } from './redis/connection.ts';

/** What the banner says of the upstream: the embedded service, or UPSTREAM_URL. */
export interface ShownOrigin {
  url: string;
  service: unknown;
  tls: { caPath: string } | undefined;
}

export const portOf = (server: Server | undefined, fallback: number) => {
  const address = server?.address();
  return typeof address === 'object' && address ? address.port : fallback;
};

/** The startup banner, printed once whatever the number of workers. */
export function printBanner(
  config: Config,
  shown: {
    started: number;
    port: number;
    endpoint: string;
    origin: ShownOrigin;
    metricsServer: Server | undefined;
    tokens: DemoTokens | undefined;
    /** The "store events" line (./main-shared.ts, wireStoreEvents). */
    events: string;
  },
): void {
  const { listen } = config;
  const { port, origin, tokens } = shown;
  const loopback = isLoopbackAddress(listen.host);
  const shownHost =
    listen.host === '0.0.0.0' || listen.host === '::'
      ? 'localhost'
      : listen.host.includes(':')
        ? `[${listen.host}]`
        : listen.host;

  console.log(
    `GraphQL gateway ready in ${Date.now() - shown.started} ms (Node ${process.version})`,
  );
  const endpoint = `http://${shownHost}:${port}${shown.endpoint}`;
  // Without GraphiQL a browser's GET of the endpoint is answered 406: say so, not "GraphiQL".
  console.log(
    config.gateway.graphiql === false
      ? `  GraphQL endpoint:    ${endpoint} (GraphiQL off; GRAPHIQL=1 serves it)`
      : `  GraphiQL / endpoint: ${endpoint}`,
  );
  if (listen.workers > 1)
    console.log(`  worker processes:    ${listen.workers} (WORKERS), sharing port ${port}`);
  console.log(`  upstream v2 API:     ${origin.url}${origin.service ? ' (embedded)' : ''}`);
  if (config.redis.url !== undefined)
    console.log(
      `  shared through Redis: ${redisAddress(config.redis.url)} (events, catalog reads, limits)`,
    );
  const { callerRate, callerBurst, upstreamRate } = config.limits;
  if (callerRate > 0)
    console.log(
      `  per-caller limit:    ${callerRate} requests/s, ${callerBurst || callerRate} at once`,
    );
  if (upstreamRate > 0) console.log(`  per-store pacing:    ${upstreamRate} upstream calls/s`);
  console.log(`  store events:        ${shown.events}`);
  if (origin.tls)
    console.log(`  its TLS authority:   ${origin.tls.caPath} (trust it once: NODE_EXTRA_CA_CERTS)`);
  if (config.tracing)
    console.log(
      `  traces exported to: ${config.tracing.exporter === 'otlp' ? config.tracing.endpoint : 'console'}`,
    );
  if (config.gateway.metrics) {
    const metricsServer = shown.metricsServer;
    const metricsPort = portOf(metricsServer, port);
    // Unauthenticated: operation names and upstream routes for anyone who reaches the port.
    const exposed = metricsServer === undefined && !loopback;
    const own = metricsServer && listen.metricsHost;
    const metricsHost = own ? (own.includes(':') ? `[${own}]` : own) : shownHost;
    console.log(
      `  Prometheus metrics:  http://${metricsHost}:${metricsPort}/metrics${exposed ? ' (public on the gateway’s port: METRICS_PORT moves them)' : ''}`,
    );
  }
  if (tokens !== undefined) {
    // The only tokens ever printed: the local demo store's own, for the person who started it.
    console.log('  demo token (read-write, valid 1 hour):');
    console.log(`    Authorization: Bearer ${tokens.readWrite}`);
    // A shopper's (implicit) token: what a storefront publishes, for trying the API as one.
    console.log("  storefront token (a shopper's, implicit, valid 1 hour):");
    console.log(`    Authorization: Bearer ${tokens.storefront}`);
    if (config.gateway.graphiql !== false)
      console.log(
        loopback
          ? `  GraphiQL at http://${shownHost}:${port}${shown.endpoint} sends it in its first tab, the storefront token in its second (renewed every 50 min)`
          : `  listening on ${listen.host}, beyond this machine: GraphiQL sends only the demo store's storefront (implicit) token`,
      );
  } else {
    console.log('  send your v2 token as "Authorization: Bearer <token>"; it is forwarded as is');
  }
}
