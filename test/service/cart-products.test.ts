/**
 * Catalog products in carts over HTTP: `cart_item` by id and by SKU from the caller's resolved
 * catalog (rules by `EP-Channel` too), priced in the cart's currency (sale price, tiers), beside
 * custom items with totals as before; short stock and a missing price in the cart's currency
 * are 400s that write nothing; checkout re-checks stock without allocating.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildCatalogFixture,
  type CatalogFixture,
  createCatalog,
  post,
  publish,
} from './catalog-fixtures.ts';
import { errorOf, type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
let fx: CatalogFixture;
let catalog: string;
let shopper: string;

beforeAll(async () => {
  service = await startService();
  fx = await buildCatalogFixture(service);
  catalog = await createCatalog(service, 'Shop', {
    hierarchy_ids: [fx.apparel, fx.brands],
    pricebook_id: fx.book,
  });
  await publish(service, catalog);
  shopper = await service.token('alpha', 'implicit');
});
afterAll(() => service?.close());

async function cart(currency = 'USD'): Promise<string> {
  const result = await service.call('POST', '/v2/carts', {
    token: shopper,
    headers: { 'X-MOLTIN-CURRENCY': currency },
    json: { data: { name: 'c' } },
  });
  if (result.status !== 201) throw new Error(JSON.stringify(result.body));
  return result.body.data.id;
}

const add = (cartId: string, data: Record<string, unknown>, headers: Record<string, string> = {}) =>
  service.call('POST', `/v2/carts/${cartId}/items`, {
    token: shopper,
    headers,
    json: { data: { type: 'cart_item', ...data } },
  });
const items = async (cartId: string) =>
  (await service.call('GET', `/v2/carts/${cartId}/items`, { token: shopper })).body;

describe('catalog products in a cart', () => {
  it('adds a product by id and by SKU, priced from the catalog, beside a custom item', async () => {
    const id = await cart();
    const byId = await add(id, { id: fx.shirt, quantity: 2 });
    expect(byId.status).toBe(201);
    expect(byId.body.data[0]).toMatchObject({
      type: 'cart_item',
      product_id: fx.shirt,
      catalog_id: catalog,
      sku: 'SHIRT-1',
      name: 'Oxford Shirt',
      quantity: 2,
      // On sale: 40.00 instead of 50.00.
      unit_price: { amount: 4000, currency: 'USD' },
      value: { amount: 8000, currency: 'USD' },
      meta: { display_price: { with_tax: { unit: { formatted: '$40.00' } } } },
    });
    const bySku = await add(id, { sku: 'TEE-S', quantity: 1 });
    expect(bySku.status).toBe(201);
    const custom = await service.call('POST', `/v2/carts/${id}/items`, {
      token: shopper,
      json: {
        data: {
          type: 'custom_item',
          name: 'Gift wrap',
          sku: 'WRAP',
          quantity: 1,
          price: { amount: 300 },
        },
      },
    });
    expect(custom.status).toBe(201);
    // The same product again adds to its item.
    const again = await add(id, { id: fx.shirt, quantity: 1 });
    const list = again.body.data as { sku: string; quantity: number; type: string }[];
    expect(list.map((i) => [i.type, i.sku, i.quantity])).toEqual([
      ['cart_item', 'SHIRT-1', 3],
      ['cart_item', 'TEE-S', 1],
      ['custom_item', 'WRAP', 1],
    ]);
    expect(again.body.meta.display_price.without_tax.amount).toBe(3 * 4000 + 1500 + 300);
  });

  it('refuses short stock, a missing price in the cart’s currency and unknown products, writing nothing', async () => {
    const stock = await service.call('POST', `/v2/inventories/${fx.pants}`, {
      json: { data: { quantity: 2 } },
    });
    expect(stock.status).toBe(201);
    const id = await cart();
    const short = await add(id, { id: fx.pants, quantity: 3 });
    expect([short.status, errorOf(short).source]).toEqual([400, 'data.quantity']);
    const euro = await cart('EUR');
    const noPrice = await add(euro, { sku: 'PANTS-1', quantity: 1 });
    expect(noPrice.status).toBe(400);
    expect(errorOf(noPrice).detail).toMatch(/no price in EUR/);
    expect((await add(id, { id: fx.draft, quantity: 1 })).status).toBe(404);
    expect((await add(id, { sku: 'NOPE', quantity: 1 })).status).toBe(404);
    expect(errorOf(await add(id, { quantity: 1 })).source).toBe('data.id');
    expect(errorOf(await add(id, { id: 'x', quantity: 1 })).source).toBe('data.id');
    expect(errorOf(await add(id, { id: fx.pants, quantity: 0 })).source).toBe('data.quantity');
    expect((await items(id)).data).toEqual([]);
    expect((await items(euro)).data).toEqual([]);
    // Two fit; raising the item past the stock is refused too.
    const fits = await add(id, { id: fx.pants, quantity: 2 });
    expect(fits.status).toBe(201);
    const itemId = fits.body.data[0].id;
    const raise = await service.call('PUT', `/v2/carts/${id}/items/${itemId}`, {
      token: shopper,
      json: { data: { type: 'cart_item', quantity: 3 } },
    });
    expect(raise.status).toBe(400);
    expect((await items(id)).data[0].quantity).toBe(2);
  });

  it('re-checks stock at checkout without allocating', async () => {
    const id = await cart();
    const stock = await service.call('POST', `/v2/inventories/${fx.shirt}`, {
      json: { data: { quantity: 5 } },
    });
    expect(stock.status).toBe(201);
    expect((await add(id, { id: fx.shirt, quantity: 4 })).status).toBe(201);
    const taken = await service.call('POST', `/v2/inventories/${fx.shirt}/transactions`, {
      json: { data: { type: 'stock-transaction', action: 'decrement', quantity: 2 } },
    });
    expect(taken.status).toBe(201);
    const address = {
      first_name: 'A',
      last_name: 'B',
      line_1: '1 Road',
      region: 'R',
      postcode: 'P1',
      country: 'GB',
    };
    const checkout = (cartId: string) =>
      service.call('POST', `/v2/carts/${cartId}/checkout`, {
        token: shopper,
        json: {
          data: {
            customer: { name: 'Gus', email: 'gus@example.com' },
            billing_address: address,
          },
        },
      });
    const refused = await checkout(id);
    expect(refused.status).toBe(400);
    expect((await service.call('GET', '/v2/orders')).body.data).toEqual([]);
    const other = await cart();
    expect((await add(other, { id: fx.shirt, quantity: 3 })).status).toBe(201);
    expect((await checkout(other)).status).toBe(201);
    const after = await service.call('GET', `/v2/inventories/${fx.shirt}`);
    expect(after.body.data).toMatchObject({ available: 3, allocated: 0, total: 3 });
  });

  it('takes the product from the catalog the caller’s rules resolve', async () => {
    const mobile = await createCatalog(service, 'Mobile', { hierarchy_ids: [fx.brands] });
    await publish(service, mobile);
    await post(service, '/catalogs/rules', 'catalog_rule', {
      name: 'mobile',
      catalog_id: mobile,
      channels: ['mobile'],
    });
    const id = await cart();
    // The mobile catalog has no price book: the shirt has no price there.
    const unpriced = await add(id, { id: fx.shirt, quantity: 1 }, { 'EP-Channel': 'mobile' });
    expect(unpriced.status).toBe(400);
    // Nor the pants at all (not in the Brands hierarchy).
    expect((await add(id, { id: fx.pants, quantity: 1 }, { 'EP-Channel': 'mobile' })).status).toBe(
      404,
    );
    const web = await add(id, { id: fx.shirt, quantity: 1 });
    expect(web.body.data[0].catalog_id).toBe(catalog);
  });
});
