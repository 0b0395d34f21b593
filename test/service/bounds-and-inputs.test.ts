/**
 * Inputs the service used to take and could not honour (issue 20 #6 and #11), over real HTTP:
 * amounts and quantities beyond what a client can receive (every total must fit a 32-bit Int:
 * 400 naming the field, nothing written), a Custom API field slug `__proto__` that could never
 * hold a value, an If-Match header that lists no entity tag, and impossible calendar dates.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../../src/commerce-service/db.ts';
import { storeIdForClient } from '../../src/commerce-service/ids.ts';
import {
  CUSTOM_APIS,
  createCustomApi,
  errorOf,
  type ServiceUnderTest,
  startService,
} from './service-helpers.ts';

const MAX = 2 ** 31 - 1;

let dir: string;
let service: ServiceUnderTest;
let db: Db;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'service-bounds-'));
  const dbPath = join(dir, 'commerce.sqlite');
  service = await startService({ dbPath });
  db = openDatabase(dbPath);
});
afterAll(async () => {
  db?.close();
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function newCart(): Promise<string> {
  const created = await service.call('POST', '/v2/carts', {
    json: { data: { name: 'c', discount_settings: { custom_discounts_enabled: true } } },
  });
  expect(created.status).toBe(201);
  return created.body.data.id;
}

const item = (amount: unknown, quantity: unknown, sku = 'S') => ({
  json: {
    data: { type: 'custom_item', name: `n ${sku}`, sku, quantity, price: { amount } },
  },
});

const itemCount = (cartId: string) =>
  db.prepare('SELECT count(*) FROM cart_items WHERE cart_id = ?').pluck().get(cartId);

describe('cart amounts: every total fits a 32-bit Int, judged before any write', () => {
  it('refuses a unit price above 2^31−1, a quantity above 1,000,000 and a line total above 2^31−1', async () => {
    const cartId = await newCart();
    const path = `/v2/carts/${cartId}/items`;
    for (const [body, source] of [
      [item(MAX + 1, 1), 'data.price.amount'],
      [item(100, 1_000_001), 'data.quantity'],
      [item(MAX, 1_000_000), 'data.quantity'],
      [item(MAX, 2), 'data.quantity'],
    ] as const) {
      const result = await service.call('POST', path, body);
      expect(result.status).toBe(400);
      const error = errorOf(result);
      expect(error).toMatchObject({ status: 400, title: 'Bad Request', source });
    }
    expect(itemCount(cartId)).toBe(0);
    // The largest line that fits is taken.
    expect((await service.call('POST', path, item(MAX, 1))).status).toBe(201);
  });

  it('refuses an item or a quantity that takes the cart total past 2^31−1, and keeps the cart', async () => {
    const cartId = await newCart();
    const path = `/v2/carts/${cartId}/items`;
    const first = await service.call('POST', path, item(2 ** 30, 1, 'A'));
    expect(first.status).toBe(201);
    const itemId = first.body.data[0].id;
    const second = await service.call('POST', path, item(2 ** 30, 1, 'B'));
    expect(second.status).toBe(400);
    expect(errorOf(second).source).toBe('data.quantity');
    expect(errorOf(second).detail).toContain('cart total');
    const put = await service.call('PUT', `${path}/${itemId}`, {
      json: { data: { type: 'cart_item', quantity: 2 } },
    });
    expect(put.status).toBe(400);
    expect(errorOf(put).source).toBe('data.quantity');
    const items = await service.call('GET', path);
    expect(items.body.data.map((i: { quantity: number }) => i.quantity)).toEqual([1]);
    expect(items.body.meta.display_price.with_tax.amount).toBe(2 ** 30);
  });

  it('refuses a custom discount below −(2^31−1)', async () => {
    const cartId = await newCart();
    await service.call('POST', `/v2/carts/${cartId}/items`, item(100, 1));
    const result = await service.call('POST', `/v2/carts/${cartId}/custom-discounts`, {
      json: {
        data: {
          type: 'custom_discount',
          amount: -MAX - 1,
          description: 'd',
          discount_code: 'c',
          discount_engine: 'e',
          external_id: 'x',
        },
      },
    });
    expect(result.status).toBe(400);
    expect(errorOf(result).source).toBe('data.amount');
  });

  it('checkout refuses a cart an older version let overflow, and places no order', async () => {
    const cartId = await newCart();
    const now = new Date().toISOString();
    db.prepare(
      `INSERT INTO cart_items (id, store_id, cart_id, name, sku, description, quantity,
         unit_amount, includes_tax, created_at, updated_at)
       VALUES (?, ?, ?, 'legacy', 'L', '', 1000000, ?, 1, ?, ?)`,
    ).run(crypto.randomUUID(), storeIdForClient('alpha'), cartId, MAX, now, now);
    const result = await service.call('POST', `/v2/carts/${cartId}/checkout`, {
      json: {
        data: {
          customer: { name: 'Ada', email: 'ada@example.com' },
          billing_address: {
            first_name: 'Ada',
            last_name: 'L',
            line_1: '1 Road',
            region: 'London',
            postcode: 'N1',
            country: 'GB',
          },
        },
      },
    });
    expect(result.status).toBe(400);
    expect(errorOf(result).source).toBe('cart');
    expect(db.prepare('SELECT count(*) FROM orders').pluck().get()).toBe(0);
  });
});

describe('Custom API field slugs and entry keys', () => {
  it('refuses the field slug __proto__ (no body can carry its value), keeps constructor faithfully', async () => {
    const apiId = await createCustomApi(service, { slug: 'protos', api_type: 'proto_ext' });
    const fields = `${CUSTOM_APIS}/${apiId}/fields`;
    const proto = await service.call('POST', fields, {
      json: { data: { type: 'custom_field', name: 'p', slug: '__proto__', field_type: 'string' } },
    });
    expect(proto.status).toBe(400);
    expect(errorOf(proto).source).toBe('data.slug');
    const listed = await service.call('GET', fields);
    expect(listed.body.data).toEqual([]);

    for (const slug of ['constructor', 'prototype']) {
      const created = await service.call('POST', fields, {
        json: { data: { type: 'custom_field', name: slug, slug, field_type: 'string' } },
      });
      expect(created.status).toBe(201);
    }
    const entry = await service.call('POST', `${CUSTOM_APIS}/${apiId}/entries`, {
      json: { data: { type: 'proto_ext', constructor: 'c', prototype: 'p' } },
    });
    expect(entry.status).toBe(201);
    const read = await service.call('GET', `${CUSTOM_APIS}/${apiId}/entries/${entry.body.data.id}`);
    expect(read.body.data).toMatchObject({ constructor: 'c', prototype: 'p' });
  });
});

describe('If-Match that lists no entity tag', () => {
  it('is a 400 on PUT and DELETE, and the entry is unchanged', async () => {
    const apiId = await createCustomApi(service, { slug: 'ifmatch', api_type: 'ifmatch_ext' });
    const entries = `${CUSTOM_APIS}/${apiId}/entries`;
    const created = await service.call('POST', entries, {
      json: { data: { type: 'ifmatch_ext', n: 1 } },
    });
    const id = created.body.data.id;
    for (const value of ['', ' ', ',', ' , ']) {
      const put = await service.call('PUT', `${entries}/${id}`, {
        json: { data: { n: 2 } },
        headers: { 'if-match': value },
      });
      expect(put.status).toBe(400);
      expect(errorOf(put).source).toBe('If-Match');
      const del = await service.call('DELETE', `${entries}/${id}`, {
        headers: { 'if-match': value },
      });
      expect(del.status).toBe(400);
    }
    const read = await service.call('GET', `${entries}/${id}`);
    expect(read.body.data).toMatchObject({ n: 1, meta: { resource_version: 0 } });
  });
});

describe('impossible calendar dates in list filters', () => {
  it('are refused with a 400 naming the filter', async () => {
    for (const date of ['2024-02-30', '2023-02-29T00:00:00Z', '2024-04-31T10:00:00Z']) {
      const result = await service.call(
        'GET',
        `/v2/orders?filter=${encodeURIComponent(`gt(created_at,${date})`)}`,
      );
      expect(result.status).toBe(400);
      expect(errorOf(result).source).toBe('filter');
    }
  });
});
