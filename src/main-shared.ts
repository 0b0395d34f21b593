/**
 * What `npm start` sets up around each gateway process for replicas and live updates: the Redis
 * connection (REDIS_URL), the event bus a gateway publishes to and subscribes from, and the
 * embedded store's webhook integration that feeds it. Used by src/main.ts in every mode (one
 * process, the primary of WORKERS, each worker).
 */
import { randomBytes } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { Config } from './config/index.ts';
import type { EventBus } from './gateway/events/bus.ts';
import { createEventBus } from './gateway/events/index.ts';
import type { Logger } from './gateway/logging.ts';
import { connectRedis, type RedisConnection } from './redis/connection.ts';
import { ensureWebhookIntegration, INTEGRATION_NAME } from './webhook-integration.ts';

export interface SharedState {
  redis: RedisConnection | undefined;
  /** Told when a shared use (limits, catalog reads) falls back to this process and back. */
  onSharedStateChange: (degraded: boolean, detail: string) => void;
}

/**
 * REDIS_URL: what replicas share. A Redis that does not answer stops startup here, naming
 * REDIS_URL; one lost later degrades each use on its own terms (src/redis/connection.ts).
 */
export async function connectShared(config: Config, logger: Logger): Promise<SharedState> {
  const redis =
    config.redis.url === undefined
      ? undefined
      : await connectRedis(config.redis.url, {
          timeoutMs: config.redis.timeoutMs,
          onStateChange: (up, detail) =>
            logger.log(
              up ? 'info' : 'warn',
              up ? 'Redis answers again' : `Redis connection lost: ${detail}`,
              {},
            ),
        });
  return {
    redis,
    onSharedStateChange: (degraded, detail) => logger.log(degraded ? 'warn' : 'info', detail, {}),
  };
}

/**
 * With REDIS_URL the store's events go through a Redis stream, so a subscriber on any replica
 * hears an event any replica received, and a reconnect to another replica replays what it
 * missed. Undefined without Redis: the caller's own bus (one process's, or the workers' relay).
 */
export async function redisEventBus(
  config: Config,
  shared: SharedState,
  logger: Logger,
): Promise<EventBus | undefined> {
  if (shared.redis === undefined) return undefined;
  return createEventBus({
    redis: shared.redis,
    windowMs: config.gateway.events.replaySeconds * 1000,
    onReaderState: (reading, detail) =>
      logger.log(
        reading ? 'info' : 'warn',
        reading ? 'Redis events read again' : 'Redis events reader lost Redis',
        { detail },
      ),
  });
}

/**
 * The secret the gateway's webhook receiver checks: WEBHOOK_SECRET, or — with the embedded
 * service's demo store to wire — one of this run's own.
 */
export function webhookSecretFor(config: Config, wireEmbedded: boolean): string | undefined {
  return (
    config.gateway.events.webhookSecret ??
    (wireEmbedded ? randomBytes(32).toString('base64url') : undefined)
  );
}

/**
 * Points the embedded demo store's integration at the gateway's receiver once it listens, and
 * answers the banner's "store events" line. A failure is said, never fatal: subscriptions then
 * receive nothing, everything else works.
 */
export async function wireStoreEvents(options: {
  secret: string | undefined;
  /** The demo store's read-write token: the embedded service is there to wire. */
  demoToken: string | undefined;
  apiUrl: string;
  ca: string | undefined;
  /** The gateway's pool to the origin (the only connections that reach it). */
  dispatcher: Dispatcher | undefined;
  host: string;
  port: number;
}): Promise<string> {
  const { secret, host, port } = options;
  // The service posts to the gateway on this machine: a wildcard bind is reached on loopback.
  const reachable =
    host === '0.0.0.0'
      ? '127.0.0.1'
      : host === '::'
        ? '[::1]'
        : host.includes(':')
          ? `[${host}]`
          : host;
  const receiverUrl = `http://${reachable}:${port}/webhooks/commerce`;
  if (secret === undefined) return 'off (set WEBHOOK_SECRET to receive the store’s webhooks)';
  if (options.demoToken === undefined)
    return `POST ${receiverUrl} (WEBHOOK_SECRET; create the store's integration: npm run webhooks:create)`;
  try {
    await ensureWebhookIntegration({
      apiUrl: options.apiUrl,
      token: options.demoToken,
      url: receiverUrl,
      secret,
      ...(options.ca ? { ca: options.ca } : {}),
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    });
    return `${receiverUrl} ← the demo store's integration "${INTEGRATION_NAME}"`;
  } catch (error) {
    return `not wired (${error instanceof Error ? error.message : String(error)})`;
  }
}
