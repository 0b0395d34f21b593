/**
 * Which event bus a gateway publishes to and subscribes from: over Redis when REDIS_URL gave a
 * connection (./redis-bus.ts: every replica's subscribers, replay on any replica), otherwise in
 * this process (./memory-bus.ts). Both are loaded only when chosen.
 */
import type { RedisConnection } from '../../redis/connection.ts';
import type { EventBus } from './bus.ts';

export interface EventBusOptions {
  /** The replicas' Redis (src/main.ts connects it from REDIS_URL); undefined: one process. */
  redis?: RedisConnection | undefined;
  /** How long events are kept for a reconnecting client, ms; each bus's default otherwise. */
  windowMs?: number | undefined;
  /** Told when the Redis bus's reader loses Redis and reads again (for the log). */
  onReaderState?: ((reading: boolean, detail: string) => void) | undefined;
}

/** Makes the in-process bus (./memory-bus.ts's factory). */
export type MemoryBusFactory = (options: { windowMs?: number }) => EventBus;

/**
 * The bus for these options. Without Redis, `createMemoryBus` when given, else the factory
 * ./memory-bus.ts exports as `createMemoryBus` (imported by a computed name, so this module
 * type-checks before that one exists).
 */
export async function createEventBus(
  options: EventBusOptions,
  createMemoryBus?: MemoryBusFactory,
): Promise<EventBus> {
  const windowMs = options.windowMs;
  if (options.redis !== undefined) {
    const { createRedisBus } = await import('./redis-bus.ts');
    return createRedisBus({
      redis: options.redis,
      ...(windowMs === undefined ? {} : { windowMs }),
      ...(options.onReaderState ? { onReaderState: options.onReaderState } : {}),
    });
  }
  let factory = createMemoryBus;
  if (factory === undefined) {
    const path = './memory-bus.ts';
    const module = (await import(path)) as { createMemoryBus?: MemoryBusFactory };
    factory = module.createMemoryBus;
    if (factory === undefined) throw new Error('./memory-bus.ts exports no createMemoryBus');
  }
  return factory(windowMs === undefined ? {} : { windowMs });
}
