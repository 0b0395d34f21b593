/**
 * Stock (`/v2/inventories`) over real HTTP: every route in the basic form and the
 * multi-location form the reference storefront uses, every refused body with a JSON:API error
 * naming the field and nothing written, who may read stock, and the invariant
 * total = available + allocated (never below zero) under a burst of concurrent allocations.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, type ServiceUnderTest, startService } from './service-helpers.ts';

const STOCK = '/v2/inventories';
const MULTI = { 'ep-inventories-multi-location': 'true' };

let service: ServiceUnderTest;
beforeAll(async () => {
  service = await startService();
});
afterAll(() => service?.close());

/** A PXM product (stock is managed only for the store's products). */
async function product(): Promise<string> {
  const result = await service.call('POST', '/pcm/products', {
    json: {
      data: {
        type: 'product',
        attributes: { name: 'Stocked', commodity_type: 'physical', status: 'live' },
      },
    },
  });
  if (result.status !== 201) throw new Error(JSON.stringify(result.body));
  return result.body.data.id;
}

async function stocked(quantity: number): Promise<string> {
  const id = await product();
  const result = await service.call('POST', `${STOCK}/${id}`, { json: { data: { quantity } } });
  if (result.status !== 201) throw new Error(JSON.stringify(result.body));
  return id;
}

const transact = (id: string, action: string, quantity: unknown, headers = {}) =>
  service.call('POST', `${STOCK}/${id}/transactions`, {
    json: { data: { type: 'stock-transaction', action, quantity } },
    headers,
  });

async function stockOf(id: string) {
  return (await service.call('GET', `${STOCK}/${id}`)).body.data;
}

describe('stock in the basic form', () => {
  it('starts managing stock, reads it, lists it and stops', async () => {
    const id = await product();
    const created = await service.call('POST', `${STOCK}/${id}`, {
      json: { data: { quantity: 12 } },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id,
      type: 'stock',
      total: 12,
      available: 12,
      allocated: 0,
    });
    expect(await stockOf(id)).toEqual(created.body.data);
    const again = await service.call('POST', `${STOCK}/${id}`, { json: { data: { quantity: 1 } } });
    expect(errorOf(again).status).toBe(409);
    expect((await stockOf(id)).total).toBe(12);

    const list = await service.call('GET', `${STOCK}?page[limit]=100`);
    expect(list.body.data).toContainEqual(created.body.data);
    expect(list.body.meta.results.total).toBe(list.body.data.length);
    expect(errorOf(await service.call('GET', `${STOCK}?filter=eq(location,main)`)).source).toBe(
      'filter',
    );

    expect((await service.call('DELETE', `${STOCK}/${id}`)).status).toBe(204);
    expect(errorOf(await service.call('GET', `${STOCK}/${id}`)).status).toBe(404);
    expect(errorOf(await service.call('DELETE', `${STOCK}/${id}`)).status).toBe(404);
    expect(errorOf(await service.call('GET', `${STOCK}/not-a-product`)).status).toBe(400);
  });

  it('reads several products’ stock at once, in the order asked, leaving out unmanaged ones', async () => {
    const a = await stocked(1);
    const b = await stocked(2);
    const result = await service.call('POST', `${STOCK}/multiple`, {
      json: { data: [{ id: b }, { id: randomUUID() }, { id: a, type: 'stock' }, { id: b }] },
    });
    expect(result.status).toBe(200);
    expect(result.body.data.map((s: { id: string; total: number }) => [s.id, s.total])).toEqual([
      [b, 2],
      [a, 1],
    ]);
    for (const [json, source] of [
      [{ data: [] }, 'data'],
      [{ data: { id: a } }, 'data'],
      [{ data: Array.from({ length: 101 }, () => ({ id: a })) }, 'data'],
      [{ data: [{ id: 'x' }] }, 'data.0.id'],
      [{ data: [{ id: a, quantity: 1 }] }, 'data.0.quantity'],
    ] as const) {
      expect(errorOf(await service.call('POST', `${STOCK}/multiple`, { json })).source).toBe(
        source,
      );
    }
  });

  it('applies each transaction action and keeps total = available + allocated', async () => {
    const id = await stocked(10);
    const steps: [string, number, { total: number; available: number; allocated: number }][] = [
      ['increment', 5, { total: 15, available: 15, allocated: 0 }],
      ['allocate', 4, { total: 15, available: 11, allocated: 4 }],
      ['decrement', 3, { total: 12, available: 8, allocated: 4 }],
      ['deallocate', 1, { total: 12, available: 9, allocated: 3 }],
      ['set', 20, { total: 20, available: 17, allocated: 3 }],
      ['set', 3, { total: 3, available: 0, allocated: 3 }],
    ];
    const made: string[] = [];
    for (const [action, quantity, expected] of steps) {
      const result = await transact(id, action, quantity);
      expect(result.status, action).toBe(201);
      expect(result.body.data).toMatchObject({
        type: 'stock-transaction',
        action,
        product_id: id,
        quantity,
      });
      expect(result.body.data.timestamps.created_at).toMatch(/Z$/);
      made.push(result.body.data.id);
      expect(await stockOf(id)).toMatchObject(expected);
    }
    const list = await service.call('GET', `${STOCK}/${id}/transactions`);
    expect(list.body.data.map((t: { id: string }) => t.id)).toEqual(made);
    expect(list.body.meta.results.total).toBe(made.length);
    const one = await service.call('GET', `${STOCK}/${id}/transactions/${made[1]}`);
    expect(one.body.data).toEqual(list.body.data[1]);
    expect(
      errorOf(await service.call('GET', `${STOCK}/${id}/transactions/${randomUUID()}`)).status,
    ).toBe(404);
  });

  it('refuses a movement the stock does not allow with a 400, and writes nothing', async () => {
    const id = await stocked(5);
    await transact(id, 'allocate', 2);
    const refused: [string, number, RegExp][] = [
      ['decrement', 4, /only 3 available/],
      ['allocate', 4, /only 3 available/],
      ['deallocate', 3, /only 2 are allocated/],
      ['set', 1, /2 are allocated/],
      ['increment', 2 ** 31 - 1, /may not pass 2147483647/],
    ];
    for (const [action, quantity, detail] of refused) {
      const error = errorOf(await transact(id, action, quantity));
      expect(error, action).toMatchObject({ status: 400, source: 'data.quantity' });
      expect(error.detail).toMatch(detail);
    }
    expect(await stockOf(id)).toEqual({ id, type: 'stock', total: 5, available: 3, allocated: 2 });
    expect((await service.call('GET', `${STOCK}/${id}/transactions`)).body.meta.results.total).toBe(
      1,
    );
  });

  it('refuses bad bodies with a 400 naming the field', async () => {
    const id = await stocked(5);
    const bodies: [unknown, string][] = [
      [{ data: { type: 'stock-transaction', action: 'steal', quantity: 1 } }, 'data.action'],
      [{ data: { type: 'stock-transaction', quantity: 1 } }, 'data.action'],
      [{ data: { type: 'stock-transaction', action: 'increment' } }, 'data.quantity'],
      [{ data: { type: 'stock-transaction', action: 'increment', quantity: 0 } }, 'data.quantity'],
      [
        { data: { type: 'stock-transaction', action: 'increment', quantity: 1.5 } },
        'data.quantity',
      ],
      [
        { data: { type: 'stock-transaction', action: 'increment', quantity: '2' } },
        'data.quantity',
      ],
      [{ data: { type: 'stock-transaction', action: 'set', quantity: -1 } }, 'data.quantity'],
      [{ data: { type: 'stock', action: 'increment', quantity: 1 } }, 'data.type'],
      [
        { data: { type: 'stock-transaction', action: 'increment', quantity: 1, note: 'x' } },
        'data.note',
      ],
      [
        { data: { attributes: { action: 'increment', quantity: 1, location: 'main' } } },
        'data.attributes.location',
      ],
      [
        { data: { attributes: { action: 'increment', quantity: 1, product_id: randomUUID() } } },
        'data.attributes.product_id',
      ],
      [{ data: { attributes: { action: 'increment', quantity: 0 } } }, 'data.attributes.quantity'],
    ];
    for (const [json, source] of bodies) {
      const result = await service.call('POST', `${STOCK}/${id}/transactions`, { json });
      expect(errorOf(result), JSON.stringify(json)).toMatchObject({ status: 400, source });
    }
    expect((await service.call('GET', `${STOCK}/${id}/transactions`)).body.meta.results.total).toBe(
      0,
    );
    for (const [json, source] of [
      [{ data: {} }, 'data.quantity'],
      [{ data: { quantity: -1 } }, 'data.quantity'],
      [{ data: { quantity: 2 ** 31 } }, 'data.quantity'],
      [{ data: { quantity: 1, location: 'x' } }, 'data.location'],
    ] as const) {
      const result = await service.call('POST', `${STOCK}/${randomUUID()}`, { json });
      expect(errorOf(result), JSON.stringify(json)).toMatchObject({ status: 400, source });
    }
    expect(errorOf(await transact(randomUUID(), 'increment', 1)).status).toBe(404);
    // Stock is managed only for a product of the store.
    const unknown = await service.call('POST', `${STOCK}/${randomUUID()}`, {
      json: { data: { quantity: 1 } },
    });
    expect(errorOf(unknown)).toMatchObject({ status: 404 });
  });

  it('never goes below zero under a burst of concurrent allocations', async () => {
    const id = await stocked(40);
    const attempts = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        transact(id, i % 5 === 0 ? 'decrement' : 'allocate', 1),
      ),
    );
    const won = attempts.filter((r) => r.status === 201).length;
    expect(won).toBe(40);
    expect(attempts.every((r) => r.status === 201 || r.status === 400)).toBe(true);
    const stock = await stockOf(id);
    expect(stock.available).toBe(0);
    expect(stock.total).toBe(stock.available + stock.allocated);
    const decremented = attempts.filter(
      (r) => r.status === 201 && r.body.data.action === 'decrement',
    ).length;
    expect(stock.allocated).toBe(40 - decremented);
    expect((await service.call('GET', `${STOCK}/${id}/transactions`)).body.meta.results.total).toBe(
      40,
    );
  });
});

describe('stock in the multi-location form', () => {
  it('answers nested stock and transactions under EP-Inventories-Multi-Location: true', async () => {
    const created = await service.call('POST', STOCK, {
      json: { data: { id: await product(), type: 'stock', attributes: { available: 7 } } },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect(created.body.data).toMatchObject({
      type: 'stock',
      attributes: { available: 7, allocated: 0, total: 7, locations: {} },
      meta: { stock_id: expect.any(String), timestamps: { created_at: expect.any(String) } },
    });
    const read = await service.call('GET', `${STOCK}/${id}`, { headers: MULTI });
    expect(read.body.data).toEqual(created.body.data);
    // Without the header the same stock is flat.
    expect(await stockOf(id)).toEqual({ id, type: 'stock', total: 7, available: 7, allocated: 0 });
    const move = await service.call('POST', `${STOCK}/${id}/transactions`, {
      headers: MULTI,
      json: {
        data: {
          attributes: {
            type: 'stock-transaction',
            action: 'allocate',
            quantity: 2,
            product_id: id,
          },
        },
      },
    });
    expect(move.body.data).toMatchObject({
      type: 'stock-transaction',
      attributes: { action: 'allocate', product_id: id, quantity: 2 },
      meta: { timestamps: { created_at: expect.any(String) } },
    });
    const list = await service.call('GET', `${STOCK}?page[limit]=100`, { headers: MULTI });
    expect(list.body.data).toContainEqual(
      expect.objectContaining({
        id,
        attributes: { available: 5, allocated: 2, total: 7, locations: {} },
      }),
    );
    const bad = await service.call('GET', `${STOCK}/${id}`, {
      headers: { 'ep-inventories-multi-location': 'yes' },
    });
    expect(errorOf(bad)).toMatchObject({
      status: 400,
      source: 'headers.ep-inventories-multi-location',
    });
    const perLocation = await service.call('POST', STOCK, {
      json: {
        data: {
          id: randomUUID(),
          type: 'stock',
          attributes: { locations: { main: { available: 3 } } },
        },
      },
    });
    expect(errorOf(perLocation)).toMatchObject({
      status: 400,
      source: 'data.attributes.locations',
    });
    expect(errorOf(perLocation).detail).toContain('per-location stock is not supported');
    const noId = await service.call('POST', STOCK, {
      json: { data: { type: 'stock', attributes: {} } },
    });
    expect(errorOf(noId).source).toBe('data.id');
  });

  it('manages inventory locations', async () => {
    const locations = `${STOCK}/locations`;
    const body = (attributes: Record<string, unknown>) => ({
      json: { data: { type: 'inventory_location', attributes } },
    });
    const created = await service.call(
      'POST',
      locations,
      body({
        name: 'York warehouse',
        slug: 'york',
        address: ['1 Lane', 'York'],
        geolocation: { lat: 53.96, lon: -1.08 },
      }),
    );
    expect(created.status).toBe(201);
    const location = created.body.data;
    expect(location).toMatchObject({
      type: 'inventory_location',
      attributes: {
        name: 'York warehouse',
        slug: 'york',
        address: ['1 Lane', 'York'],
        geolocation: { lat: 53.96, lon: -1.08 },
      },
    });
    expect(
      errorOf(await service.call('POST', locations, body({ name: 'Again', slug: 'york' }))).status,
    ).toBe(409);
    for (const [attributes, source] of [
      [{ slug: 'a' }, 'data.attributes.name'],
      [{ name: 'ab', slug: 'a' }, 'data.attributes.name'],
      [{ name: 'Depot' }, 'data.attributes.slug'],
      [{ name: 'Depot', slug: 'has space' }, 'data.attributes.slug'],
      [{ name: 'Depot', slug: 'd', address: [] }, 'data.attributes.address'],
      [
        { name: 'Depot', slug: 'd', geolocation: { lat: 91, lon: 0 } },
        'data.attributes.geolocation.lat',
      ],
    ] as const) {
      expect(errorOf(await service.call('POST', locations, body(attributes)))).toMatchObject({
        status: 400,
        source,
      });
    }
    const implicit = await service.token('alpha', 'implicit');
    const listed = await service.call('GET', locations, { token: implicit, headers: MULTI });
    expect(listed.body.data).toEqual([location]);
    const updated = await service.call('PUT', `${locations}/${location.id}`, {
      json: {
        data: {
          type: 'inventory_location',
          id: location.id,
          attributes: { name: 'York depot', geolocation: null },
        },
      },
    });
    expect(updated.body.data.attributes).toEqual({
      name: 'York depot',
      slug: 'york',
      address: ['1 Lane', 'York'],
    });
    expect((await service.call('GET', `${locations}/${location.id}`)).body.data).toEqual(
      updated.body.data,
    );
    expect((await service.call('DELETE', `${locations}/${location.id}`)).status).toBe(204);
    expect((await service.call('GET', `${locations}/${location.id}`)).status).toBe(404);
  });
});

describe('who may read and move stock', () => {
  it('lets a shopper read one product’s stock and several at once, nothing else', async () => {
    const id = await stocked(3);
    const implicit = await service.token('alpha', 'implicit');
    const as = { token: implicit };
    expect((await service.call('GET', `${STOCK}/${id}`, as)).body.data.available).toBe(3);
    expect(
      (await service.call('GET', `${STOCK}/${id}`, { ...as, headers: MULTI })).body.data.attributes
        .available,
    ).toBe(3);
    expect(
      (await service.call('POST', `${STOCK}/multiple`, { ...as, json: { data: [{ id }] } })).status,
    ).toBe(200);
    for (const [method, path] of [
      ['GET', STOCK],
      ['GET', `${STOCK}/${id}/transactions`],
      ['POST', `${STOCK}/${id}/transactions`],
      ['POST', `${STOCK}/${randomUUID()}`],
      ['DELETE', `${STOCK}/${id}`],
      ['POST', `${STOCK}/locations`],
    ] as const) {
      const json = method === 'GET' ? undefined : { data: { action: 'decrement', quantity: 1 } };
      const result = await service.call(method, path, { ...as, json });
      expect(result.status, `${method} ${path}`).toBe(403);
    }
    expect((await stockOf(id)).available).toBe(3);
    expect((await service.call('GET', `${STOCK}/${id}`, { token: null })).status).toBe(401);
    const beta = await service.token('beta');
    expect((await service.call('GET', `${STOCK}/${id}`, { token: beta })).status).toBe(404);
  });
});
