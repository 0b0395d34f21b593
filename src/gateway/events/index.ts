/**
 * Which event bus a gateway publishes to and subscribes from: over Redis when REDIS_URL gave a
 * connection (./redis-bus.ts: every replica's subscribers, replay on any replica), otherwise in
 * this process (./memory-bus.ts). The Redis bus is loaded only when chosen.
 */
import type { RedisConnection } from '../../redis/connection.ts';
import type { EventBus } from './bus.ts';
import { createMemoryBus } from './memory-bus.ts';

export interface EventBusOptions {
  /** The replicas' Redis (src/main.ts connects it from REDIS_URL); undefined: one process. */
  redis?: RedisConnection | undefined;
  /** How long events are kept for a reconnecting client, ms; each bus's default otherwise. */
  windowMs?: number | undefined;
  /** Told when the Redis bus's reader loses Redis and reads again (for the log). */
  onReaderState?: ((reading: boolean, detail: string) => void) | undefined;
}

/** Makes the in-process bus (./memory-bus.ts's factory, or a test's). */
export type MemoryBusFactory = (options: { windowMs?: number }) => EventBus;

/** The bus for these options: over Redis with a connection, otherwise in this process. */
export async function createEventBus(
  options: EventBusOptions,
  createInProcess?: MemoryBusFactory,
): Promise<EventBus> {
  const windowMs = options.windowMs;
  if (options.redis !== undefined) {
    const { createRedisBus } = await import('./redis-bus.ts');
    const bus = createRedisBus({
      redis: options.redis,
      ...(windowMs === undefined ? {} : { windowMs }),
      ...(options.onReaderState ? { onReaderState: options.onReaderState } : {}),
    });
    // Reading before the gateway listens: no subscription can then register before the reader.
    await bus.ready();
    return bus;
  }
  if (createInProcess !== undefined)
    return createInProcess(windowMs === undefined ? {} : { windowMs });
  return createMemoryBus(windowMs === undefined ? {} : { replaySeconds: windowMs / 1000 });
}
