/**
 * The event bus over a Redis stream (src/gateway/events/redis-bus.ts) against a real
 * redis-server: two buses on one Redis are two replicas. An event published on one reaches a
 * subscriber of the other; a subscriber that comes back with the id it last saw is given every
 * event after it, on either replica; an id older than the replay window is told apart.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EventBus, StoreEvent } from '../../src/gateway/events/bus.ts';
import { createEventBus } from '../../src/gateway/events/index.ts';
import { createRedisBus, EVENT_STREAM_KEY } from '../../src/gateway/events/redis-bus.ts';
import { connectRedis, type RedisConnection } from '../../src/redis/connection.ts';
import { describeWithRedis, type RedisServer, startRedis } from '../support/redis.ts';

const event = (cartId: string): Omit<StoreEvent, 'id'> => ({
  type: 'cart.updated',
  subject: { cartId },
  receivedAt: new Date().toISOString(),
});

/** The next `count` events of a subscription, or what arrived when `ms` ran out. */
async function take(
  iterable: AsyncIterable<StoreEvent>,
  count: number,
  ms = 3_000,
): Promise<StoreEvent[]> {
  const got: StoreEvent[] = [];
  const iterator = iterable[Symbol.asyncIterator]();
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms));
  while (got.length < count) {
    const step = await Promise.race([iterator.next(), timeout]);
    if (step === 'timeout' || step.done) break;
    got.push(step.value);
  }
  return got;
}

describeWithRedis('the event bus over a Redis stream, two replicas', () => {
  let server: RedisServer;
  const connections: RedisConnection[] = [];
  let a: EventBus;
  let b: EventBus;
  const key = `test:events:${process.pid}`;

  beforeAll(async () => {
    server = await startRedis();
    for (let i = 0; i < 2; i++) connections.push(await connectRedis(server.url));
    a = createRedisBus({ redis: connections[0] as RedisConnection, key, windowMs: 60_000 });
    b = createRedisBus({ redis: connections[1] as RedisConnection, key, windowMs: 60_000 });
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    for (const connection of connections) await connection.close();
    await server?.stop();
  });

  it('an event published on replica A reaches a subscriber of replica B, with the stream id', async () => {
    const controller = new AbortController();
    const live = b.subscribe({ signal: controller.signal });
    const iterator = live[Symbol.asyncIterator]();
    const first = iterator.next();
    // Let B's reader start before A publishes: a live subscriber gets what comes after it.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const published = await a.publish(event('cart-1'));
    expect(published.id).toMatch(/^\d+-\d+$/);
    const received = await first;
    expect(received.done).toBe(false);
    expect(received.value).toEqual(published);
    controller.abort();
    expect((await iterator.next()).done).toBe(true);
  });

  it('a client back with the id it last saw is given every event after it, on either replica', async () => {
    const seen = await a.publish(event('cart-2'));
    const missed = [await b.publish(event('cart-3')), await a.publish(event('cart-4'))];
    for (const bus of [a, b]) {
      const controller = new AbortController();
      const replayed = await take(bus.subscribe({ after: seen.id, signal: controller.signal }), 2);
      expect(replayed).toEqual(missed);
      controller.abort();
    }
  });

  it('replay runs into live events without a gap or a repeat', async () => {
    const from = await a.publish(event('cart-5'));
    const before = await a.publish(event('cart-6'));
    const controller = new AbortController();
    const iterable = b.subscribe({ after: from.id, signal: controller.signal });
    const iterator = iterable[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual(before);
    const later = await a.publish(event('cart-7'));
    expect((await iterator.next()).value).toEqual(later);
    controller.abort();
  });

  it('an id older than the replay window is before it; a recent one is not', async () => {
    const recent = await a.publish(event('cart-8'));
    expect(await b.isBeforeWindow(recent.id)).toBe(false);
    expect(await b.isBeforeWindow(`${Date.now() - 120_000}-0`)).toBe(true);
  });

  it('the stream keeps the window and trims what is older', async () => {
    const shortKey = `${key}:short`;
    const short = createRedisBus({
      redis: connections[0] as RedisConnection,
      key: shortKey,
      windowMs: 100,
    });
    // MINID ~ trims whole nodes of the stream: enough entries that one is full.
    for (let i = 0; i < 150; i++) await short.publish(event(`old-${i}`));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await short.publish(event('new'));
    const client = (connections[0] as RedisConnection).client;
    expect(await client.xlen(shortKey)).toBeLessThan(151);
    await short.close();
  });

  it('createEventBus gives the Redis bus with a connection, the in-process one without', async () => {
    const redis = connections[0] as RedisConnection;
    const bus = await createEventBus({ redis });
    const published = await bus.publish(event('cart-9'));
    const [entry] = (await redis.client.xrange(EVENT_STREAM_KEY, published.id, published.id)) as [
      string,
      string[],
    ][];
    expect(entry?.[0]).toBe(published.id);
    await bus.close();
    const inProcess = { close: async () => {} } as unknown as EventBus;
    expect(await createEventBus({}, () => inProcess)).toBe(inProcess);
  });

  it('a delivery repeated to the other replica is published once, answered with its first id', async () => {
    const client = (connections[0] as RedisConnection).client;
    const before = await client.xlen(key);
    const first = await a.publish(event('cart-repeated'), { deliveryId: 'webhook-1' });
    const repeat = await b.publish(event('cart-repeated'), { deliveryId: 'webhook-1' });
    expect(repeat.id).toBe(first.id);
    const other = await b.publish(event('cart-repeated'), { deliveryId: 'webhook-2' });
    expect(other.id).not.toBe(first.id);
    expect(await client.xlen(key)).toBe(before + 2);
  });

  it('a replica’s first subscriber hears an event published before its first next()', async () => {
    // As the gateway subscribes: the stream is opened, the cart read (an upstream call), then the
    // stream is read. An event published during that read must not be lost, on a replica (a
    // bus) that had no subscriber yet.
    const publisher = createRedisBus({ redis: connections[0] as RedisConnection });
    const fresh = await createEventBus({ redis: connections[1] as RedisConnection });
    const controller = new AbortController();
    const iterator = fresh.subscribe({ signal: controller.signal })[Symbol.asyncIterator]();
    const published = await publisher.publish(event('first-subscriber'));
    const got = await take({ [Symbol.asyncIterator]: () => iterator }, 1);
    expect(got).toEqual([published]);
    controller.abort();
    await fresh.close();
    await publisher.close();
  });

  it('a reader whose connection is cut reads on from the last event it saw: nothing is lost', async () => {
    const controller = new AbortController();
    const iterator = b.subscribe({ signal: controller.signal })[Symbol.asyncIterator]();
    const first = iterator.next();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = await a.publish(event('cut-1'));
    expect((await first).value).toEqual(before);
    // Cut every connection of the bus readers, as a network blip would.
    const client = (connections[0] as RedisConnection).client;
    const list = (await client.client('LIST')) as string;
    const readers = list
      .split('\n')
      .filter((line) => line.includes('name=commerce-gateway-events'))
      .map((line) => /id=(\d+)/.exec(line)?.[1]);
    expect(readers.length).toBeGreaterThan(0);
    for (const id of readers) await client.client('KILL', 'ID', id as string);
    const during = [await a.publish(event('cut-2')), await a.publish(event('cut-3'))];
    const got = [(await iterator.next()).value, (await iterator.next()).value];
    expect(got).toEqual(during);
    controller.abort();
  });
});
