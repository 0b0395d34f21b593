/**
 * A catalog rule's own price books (production's price segmentation): the rule that resolves
 * the shopper's catalog prices every product under /catalog and every cart add from its
 * `pricebook_ids` by priority, a product none of them has from the catalog's books, with
 * `meta.pricebook_id` naming the book; the books are the release's snapshot (a book a rule
 * names after the publish waits for the next one). And `meta.sales`: every currency's sale,
 * with its end, whatever the display currency.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildCatalogFixture,
  type CatalogFixture,
  createCatalog,
  post,
  publish,
} from './catalog-fixtures.ts';
import { type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
let fx: CatalogFixture;
let guest: string;
let vipToken: string;
let vipBook: string;
let partnerBook: string;
let lateBook: string;
let channelRule: string;

async function book(name: string, prices: Record<string, Record<string, number>>) {
  const id = (await post(service, '/pcm/pricebooks', 'pricebook', { name })).id as string;
  for (const [sku, currencies] of Object.entries(prices)) {
    await post(service, `/pcm/pricebooks/${id}/prices`, 'product-price', {
      sku,
      currencies: Object.fromEntries(
        Object.entries(currencies).map(([c, amount]) => [c, { amount, includes_tax: false }]),
      ),
    });
  }
  return id;
}

beforeAll(async () => {
  service = await startService();
  fx = await buildCatalogFixture(service);
  const catalog = await createCatalog(service, 'Shop', {
    hierarchy_ids: [fx.apparel, fx.brands],
    pricebook_id: fx.book,
  });
  vipBook = await book('VIP', { 'SHIRT-1': { USD: 111 }, 'TEE-S': { USD: 1111 } });
  partnerBook = await book('Partner', {
    'SHIRT-1': { USD: 222 },
    'PANTS-1': { USD: 6000 },
  });
  lateBook = await book('Late', { 'SHIRT-1': { USD: 333 } });
  const customer = (
    await service.call('POST', '/v2/customers', {
      json: {
        data: {
          type: 'customer',
          name: 'Vera',
          email: 'vera@example.com',
          password: 'vera-password',
        },
      },
    })
  ).body.data;
  guest = await service.token('alpha', 'implicit');
  const signIn = await service.call('POST', '/v2/customers/tokens', {
    token: guest,
    json: { data: { type: 'token', email: 'vera@example.com', password: 'vera-password' } },
  });
  vipToken = signIn.body.data.token;
  await post(service, '/catalogs/rules', 'catalog_rule', {
    name: 'vip',
    catalog_id: catalog,
    customer_ids: [customer.id],
    pricebook_ids: [
      { id: partnerBook, priority: 1 },
      { id: vipBook, priority: 2 },
    ],
  });
  channelRule = (
    await post(service, '/catalogs/rules', 'catalog_rule', {
      name: 'b2b',
      catalog_id: catalog,
      channels: ['b2b'],
      pricebook_ids: [{ id: partnerBook, priority: 1 }],
    })
  ).id;
  await publish(service, catalog);
});
afterAll(() => service?.close());

const as = (who: 'guest' | 'vip' | 'b2b', headers: Record<string, string> = {}) => ({
  token: guest,
  headers: {
    ...headers,
    ...(who === 'vip' ? { 'x-moltin-customer-token': vipToken } : {}),
    ...(who === 'b2b' ? { 'ep-channel': 'b2b' } : {}),
  },
});

/** sku → [USD amount, meta.pricebook_id] of a list answer. */
function priced(body: { data: any[] }) {
  return Object.fromEntries(
    body.data.map((p) => [
      p.attributes.sku,
      [p.attributes.price?.USD?.amount, p.meta.pricebook_id],
    ]),
  );
}

describe('a rule’s price books', () => {
  it('price every product under /catalog by priority, else from the catalog’s books', async () => {
    const all = async (who: 'guest' | 'vip' | 'b2b') =>
      priced((await service.call('GET', '/catalog/products', as(who))).body);
    expect(await all('guest')).toMatchObject({
      'SHIRT-1': [4000, fx.book],
      'PANTS-1': [7000, fx.book],
      'TEE-S': [1500, fx.book],
    });
    // VIP (priority 2) over Partner (1); PANTS-1 only in Partner; TEE-M in neither.
    expect(await all('vip')).toMatchObject({
      'SHIRT-1': [111, vipBook],
      'PANTS-1': [6000, partnerBook],
      'TEE-S': [1111, vipBook],
      'TEE-M': [1600, fx.book],
    });
    expect(await all('b2b')).toMatchObject({ 'SHIRT-1': [222, partnerBook] });

    const one = await service.call('GET', `/catalog/products/${fx.shirt}`, as('vip'));
    expect(one.body.data.meta).toMatchObject({
      pricebook_id: vipBook,
      display_price: { without_tax: { amount: 111 } },
    });
    // The catalog's own sale is not the VIP's price: no "was" price from another book.
    expect(one.body.data.meta.original_price).toBeUndefined();
    const children = await service.call(
      'GET',
      `/catalog/products/${fx.parent}/relationships/children`,
      as('vip'),
    );
    expect(priced(children.body)).toEqual({
      'TEE-S': [1111, vipBook],
      'TEE-M': [1600, fx.book],
    });
    const node = await service.call(
      'GET',
      `/catalog/nodes/${fx.shirts}/relationships/products`,
      as('b2b'),
    );
    expect(priced(node.body)).toEqual({ 'SHIRT-1': [222, partnerBook] });
    const hierarchy = await service.call(
      'GET',
      `/catalog/hierarchies/${fx.apparel}/products`,
      as('vip'),
    );
    expect(priced(hierarchy.body)['PANTS-1']).toEqual([6000, partnerBook]);
  });

  it('price a cart add as the catalog showed it', async () => {
    for (const [who, amount] of [
      ['guest', 4000],
      ['vip', 111],
      ['b2b', 222],
    ] as const) {
      const cart = await service.call('POST', '/v2/carts', {
        ...as(who),
        json: { data: { name: who } },
      });
      const added = await service.call('POST', `/v2/carts/${cart.body.data.id}/items`, {
        ...as(who),
        json: { data: { type: 'cart_item', id: fx.shirt, quantity: 2 } },
      });
      expect(added.status, JSON.stringify(added.body)).toBe(201);
      expect(added.body.data[0].unit_price.amount, who).toBe(amount);
      // A line is repriced on every read, write and at checkout (cart-repricing.test.ts) from
      // the rule it was added under: the rule's price stays the line's, and the order's.
      const read = await service.call('GET', `/v2/carts/${cart.body.data.id}/items`, as(who));
      expect(read.body.data[0].unit_price.amount, `${who} read`).toBe(amount);
      const more = await service.call(
        'PUT',
        `/v2/carts/${cart.body.data.id}/items/${added.body.data[0].id}`,
        {
          ...as(who),
          json: { data: { quantity: 3 } },
        },
      );
      expect(more.body.data[0].unit_price.amount, `${who} quantity`).toBe(amount);
      const order = await service.call('POST', `/v2/carts/${cart.body.data.id}/checkout`, {
        ...as(who),
        json: {
          data: {
            customer: { name: 'Shopper', email: `${who}@example.com` },
            billing_address: {
              first_name: 'A',
              last_name: 'B',
              line_1: '1 Road',
              region: 'R',
              postcode: 'P1',
              country: 'GB',
            },
          },
        },
      });
      expect(order.status, JSON.stringify(order.body)).toBe(201);
      expect(order.body.data.meta.display_price.with_tax.amount, `${who} order`).toBe(3 * amount);
    }
  });

  it('are the release’s snapshot: a book a rule names after the publish waits for the next', async () => {
    const changed = await service.call('PUT', `/catalogs/rules/${channelRule}`, {
      json: {
        data: {
          type: 'catalog_rule',
          attributes: { pricebook_ids: [{ id: lateBook, priority: 9 }] },
        },
      },
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const before = await service.call('GET', `/catalog/products/${fx.shirt}`, as('b2b'));
    expect(before.body.data.meta.pricebook_id).toBe(fx.book);
    const catalog = before.body.data.meta.catalog_id as string;
    await publish(service, catalog);
    const after = await service.call('GET', `/catalog/products/${fx.shirt}`, as('b2b'));
    expect(after.body.data.attributes.price.USD.amount).toBe(333);
    expect(after.body.data.meta.pricebook_id).toBe(lateBook);
  });
});

describe('meta.sales', () => {
  it('tells every currency’s sale and its end, whatever the display currency', async () => {
    const ends = '2099-01-01T00:00:00.000Z';
    const shirtPrice = await service.call('GET', `/pcm/pricebooks/${fx.book}/prices`);
    const row = (shirtPrice.body.data as any[]).find((p) => p.attributes.sku === 'SHIRT-1');
    const updated = await service.call('PUT', `/pcm/pricebooks/${fx.book}/prices/${row.id}`, {
      json: {
        data: {
          type: 'product-price',
          id: row.id,
          attributes: {
            sales: {
              euro: {
                schedule: { valid_from: '2020-01-01T00:00:00.000Z', valid_to: ends },
                currencies: { EUR: { amount: 4100, includes_tax: false } },
              },
            },
          },
        },
      },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    const catalog = (await service.call('GET', '/catalog', as('guest'))).body.data.attributes
      .catalog_id as string;
    await publish(service, catalog);
    const usd = await service.call(
      'GET',
      `/catalog/products/${fx.shirt}`,
      as('guest', { 'x-moltin-currency': 'USD' }),
    );
    const meta = usd.body.data.meta;
    // Shown in USD (not on sale): no sale_expires for it, but the EUR sale and its end are told.
    expect(meta.sale_expires).toBeUndefined();
    expect(usd.body.data.attributes.price.EUR.amount).toBe(4100);
    expect(meta.sales).toEqual({
      euro: {
        schedule: { valid_from: '2020-01-01T00:00:00.000Z', valid_to: ends },
        currencies: { EUR: { amount: 4100, includes_tax: false } },
      },
    });
  });
});
