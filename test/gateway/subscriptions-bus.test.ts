/**
 * The in-process event bus (src/gateway/events/memory-bus.ts) and the webhook reader, in
 * process: ids that sort as published, replay after an id, the window's two bounds (age and
 * count), what counts as missed, a subscriber too far behind cut off, and iteration that ends
 * when the client goes away even while it waits for an event.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import type { StoreEvent } from '../../src/gateway/events/bus.ts';
import { compareEventIds, createMemoryBus } from '../../src/gateway/events/memory-bus.ts';
import { readWebhook, WebhookRefusal } from '../../src/gateway/events/webhook-receiver.ts';

const cart = (cartId: string) => ({
  type: 'cart.updated',
  subject: { cartId },
  receivedAt: '2026-01-01T00:00:00.000Z',
});

async function take(iterable: AsyncIterable<StoreEvent>, count: number): Promise<StoreEvent[]> {
  const taken: StoreEvent[] = [];
  for await (const event of iterable) {
    taken.push(event);
    if (taken.length === count) break;
  }
  return taken;
}

describe('the memory bus', () => {
  it('numbers events <ms>-<seq>, increasing even within a millisecond or when the clock goes back', async () => {
    let now = 5_000;
    const bus = createMemoryBus({ now: () => now });
    const a = await bus.publish(cart('a'));
    const b = await bus.publish(cart('b'));
    now = 4_000;
    const c = await bus.publish(cart('c'));
    now = 6_000;
    const d = await bus.publish(cart('d'));
    expect([a.id, b.id, c.id, d.id]).toEqual(['5000-0', '5000-1', '5000-2', '6000-0']);
    expect(compareEventIds('5000-10', '5000-9')).toBeGreaterThan(0);
    expect(compareEventIds('999-5', '1000-0')).toBeLessThan(0);
  });

  it('publishes a webhook delivered twice once while its event is retained (WORKERS relay here)', async () => {
    let now = 1_000;
    const bus = createMemoryBus({ now: () => now, replaySeconds: 60 });
    const first = await bus.publish(cart('a'), { deliveryId: 'webhook-1' });
    now += 10;
    const repeat = await bus.publish(cart('a'), { deliveryId: 'webhook-1' });
    const other = await bus.publish(cart('a'), { deliveryId: 'webhook-2' });
    expect(repeat).toBe(first);
    expect(other.id).not.toBe(first.id);
    const replayed = await take(
      bus.subscribe({ after: '0-0', signal: new AbortController().signal }),
      2,
    );
    expect(replayed.map((event) => event.id)).toEqual([first.id, other.id]);
    // Once its event has left the window, a delivery is a new event again.
    now += 61_000;
    await bus.publish(cart('b'));
    const later = await bus.publish(cart('a'), { deliveryId: 'webhook-1' });
    expect(later.id).not.toBe(first.id);
  });

  it('replays the retained events after an id, then live ones, each once', async () => {
    const bus = createMemoryBus();
    const first = await bus.publish(cart('1'));
    await bus.publish(cart('2'));
    await bus.publish(cart('3'));
    const stop = new AbortController();
    const iterator = bus
      .subscribe({ after: first.id, signal: stop.signal })
      [Symbol.asyncIterator]();
    const live = bus.publish(cart('4'));
    const got = [];
    for (let i = 0; i < 3; i += 1) got.push((await iterator.next()).value?.subject.cartId);
    await live;
    stop.abort();
    expect(got).toEqual(['2', '3', '4']);
    expect((await iterator.next()).done).toBe(true);
  });

  it('keeps a window bounded by age and by count, and says when an id is before it', async () => {
    let now = 1_000_000;
    const bus = createMemoryBus({ now: () => now, replaySeconds: 60, replayMax: 3 });
    const ids = [];
    for (let i = 0; i < 5; i += 1) ids.push((await bus.publish(cart(String(i)))).id);
    // Count: the last 3 are kept; after the second, nothing was dropped.
    expect(await bus.isBeforeWindow(ids[0] ?? '')).toBe(true);
    expect(await bus.isBeforeWindow(ids[1] ?? '')).toBe(false);
    const replayed = await take(
      bus.subscribe({ after: ids[1], signal: new AbortController().signal }),
      3,
    );
    expect(replayed.map((e) => e.subject.cartId)).toEqual(['2', '3', '4']);
    // Age: a minute later everything has left the window.
    now += 61_000;
    expect(await bus.isBeforeWindow(ids[3] ?? '')).toBe(true);
    expect(await bus.isBeforeWindow(ids[4] ?? '')).toBe(false);
    // An id from before this bus existed (another process's) may have missed events.
    expect(await bus.isBeforeWindow('999-0')).toBe(true);
    expect(await bus.isBeforeWindow('not an id')).toBe(true);
  });

  it('ends a waiting iteration when it is returned or its signal aborts', async () => {
    const bus = createMemoryBus();
    const iterator = bus
      .subscribe({ signal: new AbortController().signal })
      [Symbol.asyncIterator]();
    const waiting = iterator.next();
    await iterator.return?.();
    expect(await waiting).toEqual({ done: true, value: undefined });

    const stop = new AbortController();
    const other = bus.subscribe({ signal: stop.signal })[Symbol.asyncIterator]();
    const pending = other.next();
    stop.abort();
    expect((await pending).done).toBe(true);
  });

  it('cuts off a subscriber that falls a whole window behind, and ends everyone on close', async () => {
    const bus = createMemoryBus({ replayMax: 3 });
    const slow = bus.subscribe({ signal: new AbortController().signal })[Symbol.asyncIterator]();
    for (let i = 0; i < 4; i += 1) await bus.publish(cart(String(i)));
    expect((await slow.next()).done).toBe(true);
    const waiting = bus.subscribe({ signal: new AbortController().signal })[Symbol.asyncIterator]();
    const pending = waiting.next();
    await bus.close();
    expect((await pending).done).toBe(true);
    await expect(bus.publish(cart('x'))).rejects.toThrow('closed');
  });
});

describe('reading a webhook', () => {
  const body = (triggered: string, data: unknown) => ({
    id: 'job-1',
    triggered_by: triggered,
    payload: { data },
  });

  it('maps each followed event to the ids it is about', () => {
    expect(readWebhook(body('order.created', { id: 'o1', type: 'order' }))?.event).toEqual({
      type: 'order.created',
      subject: { orderId: 'o1' },
    });
    expect(
      readWebhook(body('stock-transaction.created', { id: 't', product_id: 'p1' }))?.event.subject,
    ).toEqual({ productIds: ['p1'] });
    // The multi-location form carries the product in attributes.
    expect(
      readWebhook(body('stock-transaction.created', { id: 't', attributes: { product_id: 'p2' } }))
        ?.event.subject,
    ).toEqual({ productIds: ['p2'] });
    expect(
      readWebhook(body('catalog-release.created', { id: 'r1', attributes: { catalog_id: 'c1' } }))
        ?.event.subject,
    ).toEqual({ releaseId: 'r1', catalogId: 'c1' });
    expect(readWebhook(body('customer.created', { id: 'x' }))).toBeUndefined();
  });

  it('refuses what is not a webhook of the upstream’s form', () => {
    const refusal = (value: unknown) => {
      try {
        readWebhook(value);
      } catch (error) {
        return error instanceof WebhookRefusal ? `${error.status} ${error.message}` : 'other';
      }
      return 'accepted';
    };
    expect(refusal(null)).toBe('400 The webhook body must be a JSON object');
    expect(refusal({ payload: {} })).toBe('400 The webhook body has no `triggered_by` event');
    expect(refusal(body('catalog-release.created', { id: 'r1' }))).toBe(
      '400 The catalog-release.created event carries no catalog_id',
    );
    expect(refusal(body('cart.updated', { id: 'x'.repeat(200) }))).toBe(
      '400 The cart.updated event carries no id',
    );
  });
});

describe('the settings', () => {
  it('reads the replay window and the secret, refusing a short secret without echoing it', () => {
    expect(loadConfig({}).gateway.events).toEqual({ replaySeconds: 300, replayMax: 10_000 });
    expect(
      loadConfig({
        EVENT_REPLAY_SECONDS: '60',
        EVENT_REPLAY_MAX: '500',
        WEBHOOK_SECRET: 'a-long-enough-secret',
      }).gateway.events,
    ).toEqual({ replaySeconds: 60, replayMax: 500, webhookSecret: 'a-long-enough-secret' });
    expect(() => loadConfig({ WEBHOOK_SECRET: 'hunter2' })).toThrow(
      'WEBHOOK_SECRET must be at least 16 characters, got 7',
    );
    expect(() => loadConfig({ EVENT_REPLAY_SECONDS: '0' })).toThrow('EVENT_REPLAY_SECONDS');
  });
});
