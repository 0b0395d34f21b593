import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SeededService, startSeededService } from './seeded-service.ts';
import { errorOf } from './service-helpers.ts';

describe('orders over HTTP (seeded store)', () => {
  let service: SeededService;

  beforeAll(async () => {
    service = await startSeededService();
  });
  afterAll(async () => {
    await service.close();
  });

  it('lists with the envelope: default page length, newest first, totals', async () => {
    const result = await service.call('GET', '/v2/orders');
    expect(result.status).toBe(200);
    const { data, meta, links } = result.body;
    expect(data).toHaveLength(25);
    expect(meta).toEqual({
      page: { limit: 25, offset: 0, current: 1, total: 480 },
      results: { total: 12_000 },
    });
    expect(links.next).toMatch(/page\[offset\]=25/);
    expect(links.prev).toBeNull();
    const created = data.map((o: any) => o.meta.timestamps.created_at as string);
    expect(created).toEqual([...created].sort().reverse());
    const order = data[0];
    expect(order).toMatchObject({ type: 'order', anonymized: false });
    expect(['incomplete', 'complete']).toContain(order.status);
    expect(order.customer).toEqual({
      name: expect.any(String),
      email: expect.stringContaining('@'),
    });
    expect(order.billing_address).toMatchObject({
      first_name: expect.any(String),
      country: expect.any(String),
    });
    expect(order.meta.display_price.with_tax).toEqual({
      amount: expect.any(Number),
      currency: 'USD',
      formatted: expect.stringMatching(/^\$[\d,]+\.\d\d$/),
    });
    expect(order.relationships.items.data.length).toBeGreaterThan(0);
    expect(order.relationships.items.data[0]).toEqual({ type: 'item', id: expect.any(String) });
  });

  it('serves page[offset]=10000 and rejects 10001 (hard offset limit) with a 400 naming it', async () => {
    const served = await service.call('GET', '/v2/orders?page[offset]=10000&page[limit]=100');
    expect(served.status).toBe(200);
    expect(served.body.data).toHaveLength(100);
    expect(served.body.meta.page).toEqual({ limit: 100, offset: 10_000, current: 101, total: 120 });
    // The next page would start beyond the limit, so there is no next link.
    expect(served.body.links.next).toBeNull();
    const rejected = await service.call('GET', '/v2/orders?page[offset]=10001');
    expect(rejected.status).toBe(400);
    expect(errorOf(rejected).source).toBe('page[offset]');
    expect(errorOf(rejected).detail).toMatch(/10000/);
    expect((await service.call('GET', '/v2/orders?page[limit]=101')).status).toBe(400);
  });

  it('answers the full envelope for zero results', async () => {
    const result = await service.call(
      'GET',
      '/v2/orders?filter=lt(created_at,2000-01-01T00:00:00.000Z)',
    );
    expect(result.status).toBe(200);
    expect(result.body.data).toEqual([]);
    expect(result.body.meta).toEqual({
      page: { limit: 25, offset: 0, current: 1, total: 0 },
      results: { total: 0 },
    });
    expect(result.body.links).toMatchObject({ next: null, prev: null });
    expect(typeof result.body.links.first).toBe('string');
  });

  it('filters on created_at: a burst shares one timestamp across several pages', async () => {
    const first = await service.call('GET', '/v2/orders?sort=created_at&page[limit]=100');
    const ats = new Map<string, number>();
    // Find a burst from the data itself: walk the first pages until a timestamp repeats a lot.
    let offset = 0;
    let burstAt: string | undefined;
    while (!burstAt && offset < 2000) {
      const page = await service.call(
        'GET',
        `/v2/orders?sort=created_at&page[limit]=100&page[offset]=${offset}`,
      );
      for (const o of page.body.data) {
        const at = o.meta.timestamps.created_at as string;
        ats.set(at, (ats.get(at) ?? 0) + 1);
        if ((ats.get(at) ?? 0) > 100) burstAt = at;
      }
      offset += 100;
    }
    expect(first.status).toBe(200);
    expect(burstAt).toBeDefined();
    const eq = await service.call('GET', `/v2/orders?filter=eq(created_at,${burstAt})`);
    expect(eq.body.meta.results.total).toBeGreaterThanOrEqual(300);
    expect(eq.body.meta.results.total).toBeLessThanOrEqual(600);
    // Any ISO-8601 form of the same instant matches (normalised before comparing).
    const offsetForm = new Date(Date.parse(burstAt as string)).toISOString().replace('Z', '+00:00');
    const same = await service.call(
      'GET',
      `/v2/orders?filter=eq(created_at,${encodeURIComponent(offsetForm)})`,
    );
    expect(same.body.meta.results.total).toBe(eq.body.meta.results.total);
    const bad = await service.call('GET', '/v2/orders?filter=ge(created_at,yesterday)');
    expect(bad.status).toBe(400);
    const unknown = await service.call('GET', '/v2/orders?filter=eq(status,complete)');
    expect(unknown.status).toBe(400);
    expect(errorOf(unknown).detail).toMatch(/created_at/);
  });

  it('reads one order, with include=items; unknown, malformed and foreign ids are 404', async () => {
    const list = await service.call('GET', '/v2/orders?page[limit]=1');
    const order = list.body.data[0];
    const one = await service.call('GET', `/v2/orders/${order.id}`);
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual(order);
    const withItems = await service.call('GET', `/v2/orders/${order.id}?include=items`);
    expect(withItems.body.included.items.map((i: { id: string }) => i.id)).toEqual(
      order.relationships.items.data.map((i: { id: string }) => i.id),
    );
    expect(withItems.body.included.items[0].meta.display_price.with_tax.value.currency).toBe('USD');
    expect(
      (await service.call('GET', '/v2/orders/00000000-0000-4000-8000-000000000000')).status,
    ).toBe(404);
    expect((await service.call('GET', '/v2/orders/nope')).status).toBe(404);

    const beta = await service.token('beta');
    expect((await service.call('GET', `/v2/orders/${order.id}`, { token: beta })).status).toBe(404);
    const betaList = await service.call('GET', '/v2/orders', { token: beta });
    expect(betaList.status).toBe(200);
    expect(betaList.body.data).toEqual([]);
    expect(betaList.body.meta.results.total).toBe(0);
  });

  it('order totals add up: without_discount + discount = with_tax, balance follows payment', async () => {
    const page = await service.call('GET', '/v2/orders?page[limit]=100');
    let discounted = 0;
    for (const order of page.body.data) {
      const p = order.meta.display_price;
      expect(p.without_discount.amount + p.discount.amount).toBe(p.with_tax.amount);
      if (p.discount.amount < 0) discounted++;
      if (order.payment === 'paid') expect(p.balance_owing.amount).toBe(0);
      else expect(p.balance_owing.amount).toBe(p.with_tax.amount);
    }
    expect(discounted).toBeGreaterThan(0);
  });
});
