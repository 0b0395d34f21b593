/**
 * Issue 28, findings 1 and 2: a catalog line's price is what the catalog says for its current
 * quantity at the current time, on every cart read, every item write and at checkout; never
 * the price of its first add. The service's clock is injected, so a sale ends between two calls
 * without waiting. Custom items keep the price they were given; a line the catalog no longer
 * prices shows its last price, and checkout (and a change of its quantity) refuses it with a 409
 * naming it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCatalog, post, publish } from './catalog-fixtures.ts';
import { errorOf, type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
let shopper: string;
/** The service's clock: tests move it forward. */
let clock = Date.now();
const SALE_END = clock + 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

let book: string;
let catalog: string;
let hierarchy: string;
let node: string;
const products: Record<string, string> = {};
const prices: Record<string, string> = {};

const usd = (amount: number, extra: Record<string, unknown> = {}) => ({
  USD: { amount, includes_tax: false, ...extra },
});

beforeAll(async () => {
  service = await startService({ now: () => clock });
  hierarchy = (await post(service, '/pcm/hierarchies', 'hierarchy', { name: 'Hardware' })).id;
  node = (await post(service, `/pcm/hierarchies/${hierarchy}/nodes`, 'node', { name: 'All' })).id;
  for (const sku of ['BOLT', 'LAMP', 'GONE', 'EUROLESS']) {
    products[sku] = (
      await post(service, '/pcm/products', 'product', {
        name: sku.toLowerCase(),
        sku,
        slug: sku.toLowerCase(),
        commodity_type: 'physical',
        status: 'live',
      })
    ).id;
  }
  const attach = await service.call(
    'POST',
    `/pcm/hierarchies/${hierarchy}/nodes/${node}/relationships/products`,
    { json: { data: Object.values(products).map((id) => ({ type: 'product', id })) } },
  );
  expect(attach.status).toBeLessThan(300);
  book = (await post(service, '/pcm/pricebooks', 'pricebook', { name: 'Retail' })).id;
  const price = async (sku: string, attributes: Record<string, unknown>) => {
    prices[sku] = (
      await post(service, `/pcm/pricebooks/${book}/prices`, 'product-price', { sku, ...attributes })
    ).id;
  };
  // 50.00 each, 1.00 each from ten.
  await price('BOLT', {
    currencies: usd(5000, { tiers: { ten: { minimum_quantity: 10, amount: 100 } } }),
  });
  // 45.00, on sale at 0.01 until SALE_END.
  await price('LAMP', {
    currencies: usd(4500),
    sales: {
      flash: {
        schedule: { valid_from: iso(clock - 3_600_000), valid_to: iso(SALE_END) },
        currencies: usd(1),
      },
    },
  });
  await price('GONE', { currencies: usd(700) });
  await price('EUROLESS', { currencies: usd(900) });
  catalog = await createCatalog(service, 'Shop', {
    hierarchy_ids: [hierarchy],
    pricebook_id: book,
  });
  await publish(service, catalog);
  shopper = await service.token('alpha', 'implicit');
});
afterAll(() => service?.close());

async function newCart(): Promise<string> {
  const result = await service.call('POST', '/v2/carts', {
    token: shopper,
    json: { data: { name: 'repricing' } },
  });
  expect(result.status).toBe(201);
  return result.body.data.id;
}

const add = (cartId: string, sku: string, quantity: number, headers: Record<string, string> = {}) =>
  service.call('POST', `/v2/carts/${cartId}/items`, {
    token: shopper,
    headers,
    json: { data: { type: 'cart_item', sku, quantity } },
  });

const setQuantity = (cartId: string, itemId: string, quantity: number) =>
  service.call('PUT', `/v2/carts/${cartId}/items/${itemId}`, {
    token: shopper,
    json: { data: { type: 'cart_item', quantity } },
  });

const checkout = (cartId: string) =>
  service.call('POST', `/v2/carts/${cartId}/checkout`, {
    token: shopper,
    json: {
      data: {
        customer: { name: 'Pat', email: 'pat@example.com' },
        billing_address: {
          first_name: 'P',
          last_name: 'Q',
          line_1: '1 Road',
          region: 'R',
          postcode: 'P1',
          country: 'GB',
        },
      },
    },
  });

interface Line {
  sku: string;
  quantity: number;
  unit: number;
  value: number;
}

/** The lines of an items answer (a write's or a read's), with their unit price and value. */
function lines(body: any): Line[] {
  return (body.data as any[]).map((item) => {
    // Every price of a line says the same thing.
    expect(item.meta.display_price.without_discount.unit.amount).toBe(item.unit_price.amount);
    expect(item.value.amount).toBe(item.unit_price.amount * item.quantity);
    return {
      sku: item.sku,
      quantity: item.quantity,
      unit: item.unit_price.amount,
      value: item.value.amount,
    };
  });
}

/**
 * Every read of the cart (GET items, GET cart with its items included), checked to agree with
 * each other: the lines, and the cart's total. Returns the lines and the total.
 */
async function readCart(cartId: string): Promise<{ lines: Line[]; total: number }> {
  const items = await service.call('GET', `/v2/carts/${cartId}/items`, { token: shopper });
  expect(items.status).toBe(200);
  const cart = await service.call('GET', `/v2/carts/${cartId}?include=items`, { token: shopper });
  expect(cart.status).toBe(200);
  const fromItems = lines(items.body);
  expect(lines({ data: cart.body.included.items })).toEqual(fromItems);
  const total = cart.body.data.meta.display_price.with_tax.amount;
  expect(items.body.meta.display_price.with_tax.amount).toBe(total);
  return { lines: fromItems, total };
}

describe('a catalog line is priced for its quantity now (issue 28, finding 1)', () => {
  it('leaves a volume tier when a PUT drops the quantity below it, and the order is placed at the list price', async () => {
    const cartId = await newCart();
    const added = await add(cartId, 'BOLT', 10);
    expect(added.status).toBe(201);
    expect(lines(added.body)).toEqual([{ sku: 'BOLT', quantity: 10, unit: 100, value: 1000 }]);
    const itemId = added.body.data[0].id;

    const dropped = await setQuantity(cartId, itemId, 1);
    expect(dropped.status).toBe(200);
    expect(lines(dropped.body)).toEqual([{ sku: 'BOLT', quantity: 1, unit: 5000, value: 5000 }]);
    expect(dropped.body.meta.display_price.with_tax.amount).toBe(5000);
    expect(await readCart(cartId)).toEqual({
      lines: [{ sku: 'BOLT', quantity: 1, unit: 5000, value: 5000 }],
      total: 5000,
    });

    // Back across the tier, then down again: the unit price follows each time.
    const raised = await setQuantity(cartId, itemId, 12);
    expect(lines(raised.body)).toEqual([{ sku: 'BOLT', quantity: 12, unit: 100, value: 1200 }]);
    await setQuantity(cartId, itemId, 2);

    const order = await checkout(cartId);
    expect(order.status).toBe(201);
    expect(order.body.data.meta.display_price.with_tax.amount).toBe(10_000);
    expect(order.body.included.items).toMatchObject([
      { sku: 'BOLT', quantity: 2, unit_price: { amount: 5000 }, value: { amount: 10_000 } },
    ]);
  });

  it('reaches the tier when more of the same product is added', async () => {
    const cartId = await newCart();
    expect(lines((await add(cartId, 'BOLT', 9)).body)).toEqual([
      { sku: 'BOLT', quantity: 9, unit: 5000, value: 45_000 },
    ]);
    const more = await add(cartId, 'BOLT', 1);
    expect(more.status).toBe(201);
    expect(lines(more.body)).toEqual([{ sku: 'BOLT', quantity: 10, unit: 100, value: 1000 }]);
    expect((await readCart(cartId)).total).toBe(1000);
    const order = await checkout(cartId);
    expect(order.status).toBe(201);
    expect(order.body.data.meta.display_price.with_tax.amount).toBe(1000);
  });

  it('computes promotions from the repriced lines', async () => {
    const promotion = await service.call('POST', '/v2/promotions', {
      json: {
        data: {
          type: 'promotion',
          name: 'ten off',
          description: 'test',
          enabled: true,
          automatic: true,
          promotion_type: 'percent_discount',
          schema: { percent: 10 },
          start: '2020-01-01T00:00:00Z',
          end: '2099-01-01T00:00:00Z',
        },
      },
    });
    expect(promotion.status).toBe(201);
    try {
      const cartId = await newCart();
      const itemId = (await add(cartId, 'BOLT', 10)).body.data[0].id;
      const dropped = await setQuantity(cartId, itemId, 1);
      // 10% of 50.00, not of the 1.00 the tier gave.
      expect(dropped.body.meta.display_price.discount.amount).toBe(-500);
      expect(dropped.body.meta.display_price.with_tax.amount).toBe(4500);
      const cart = await service.call('GET', `/v2/carts/${cartId}`, { token: shopper });
      expect(cart.body.data.meta.display_price).toMatchObject({
        without_discount: { amount: 5000 },
        discount: { amount: -500 },
        with_tax: { amount: 4500 },
      });
      const order = await checkout(cartId);
      expect(order.body.data.meta.display_price).toMatchObject({
        with_tax: { amount: 4500 },
        discount: { amount: -500 },
      });
    } finally {
      await service.call('DELETE', `/v2/promotions/${promotion.body.data.id}`);
    }
  });
});

describe('where a line is repriced from', () => {
  it('is the catalog it was added through, whatever catalog a later read resolves to', async () => {
    const mobileBook = (await post(service, '/pcm/pricebooks', 'pricebook', { name: 'Mobile' })).id;
    await post(service, `/pcm/pricebooks/${mobileBook}/prices`, 'product-price', {
      sku: 'BOLT',
      currencies: usd(4000),
    });
    const mobile = await createCatalog(service, 'Mobile', {
      hierarchy_ids: [hierarchy],
      pricebook_id: mobileBook,
    });
    await publish(service, mobile);
    await post(service, '/catalogs/rules', 'catalog_rule', {
      name: 'mobile',
      catalog_id: mobile,
      channels: ['mobile'],
    });
    const cartId = await newCart();
    const added = await add(cartId, 'BOLT', 1, { 'EP-Channel': 'mobile' });
    expect(added.body.data[0]).toMatchObject({ catalog_id: mobile, unit_price: { amount: 4000 } });
    // Read, changed and checked out without the channel: still the mobile catalog's price
    // (for the line's current quantity: the mobile price has no tier).
    expect((await readCart(cartId)).total).toBe(4000);
    const raised = await setQuantity(cartId, added.body.data[0].id, 10);
    expect(lines(raised.body)).toEqual([{ sku: 'BOLT', quantity: 10, unit: 4000, value: 40_000 }]);
    // More of it added through the default catalog: that catalog prices the line from now on.
    const more = await add(cartId, 'BOLT', 1);
    expect(more.body.data[0]).toMatchObject({ catalog_id: catalog, quantity: 11 });
    expect(lines(more.body)).toEqual([{ sku: 'BOLT', quantity: 11, unit: 100, value: 1100 }]);
    expect((await checkout(cartId)).body.data.meta.display_price.with_tax.amount).toBe(1100);
  });
});

describe('a sale price ends with the sale (issue 28, finding 2)', () => {
  it('prices units added after the end, every read and the order at the list price', async () => {
    const cartId = await newCart();
    const custom = await service.call('POST', `/v2/carts/${cartId}/items`, {
      token: shopper,
      json: {
        data: { type: 'custom_item', name: 'Wrap', sku: 'WRAP', quantity: 1, price: { amount: 3 } },
      },
    });
    expect(custom.status).toBe(201);
    const during = await add(cartId, 'LAMP', 1);
    expect(lines(during.body)).toContainEqual({ sku: 'LAMP', quantity: 1, unit: 1, value: 1 });
    expect((await readCart(cartId)).total).toBe(1 + 3);

    clock = SALE_END + 1_000;
    // A read after the end: the lamp is 45.00 again; the custom item keeps its price.
    expect(await readCart(cartId)).toEqual({
      lines: [
        { sku: 'WRAP', quantity: 1, unit: 3, value: 3 },
        { sku: 'LAMP', quantity: 1, unit: 4500, value: 4500 },
      ],
      total: 4503,
    });
    const after = await add(cartId, 'LAMP', 4);
    expect(after.status).toBe(201);
    expect(lines(after.body)).toContainEqual({
      sku: 'LAMP',
      quantity: 5,
      unit: 4500,
      value: 22_500,
    });

    const order = await checkout(cartId);
    expect(order.status).toBe(201);
    expect(order.body.data.meta.display_price.with_tax.amount).toBe(22_503);
    // Order items are listed by id (random), not in the cart's order.
    expect(order.body.included.items).toHaveLength(2);
    expect(order.body.included.items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          sku: 'WRAP',
          unit_price: expect.objectContaining({ amount: 3 }),
        }),
        expect.objectContaining({
          sku: 'LAMP',
          quantity: 5,
          unit_price: expect.objectContaining({ amount: 4500 }),
        }),
      ]),
    );
  });

  it('prices an order placed after the sale ended at the list price, with no read in between', async () => {
    clock = SALE_END - 10_000;
    const cartId = await newCart();
    expect(lines((await add(cartId, 'LAMP', 2)).body)).toEqual([
      { sku: 'LAMP', quantity: 2, unit: 1, value: 2 },
    ]);
    clock = SALE_END;
    const order = await checkout(cartId);
    expect(order.status).toBe(201);
    expect(order.body.data.meta.display_price.with_tax.amount).toBe(9000);
  });
});

describe('a line the catalog no longer prices', () => {
  it('shows its last price on reads, and checkout and quantity changes refuse it with a 409 naming it', async () => {
    const cartId = await newCart();
    await add(cartId, 'BOLT', 1);
    const gone = await add(cartId, 'GONE', 2);
    const goneId = gone.body.data.find((i: { sku: string }) => i.sku === 'GONE').id;
    const euroless = await add(cartId, 'EUROLESS', 1);
    const eurolessId = euroless.body.data.find((i: { sku: string }) => i.sku === 'EUROLESS').id;

    // GONE leaves the catalog; EUROLESS keeps only a EUR price; BOLT goes up to 60.00.
    const detach = await service.call(
      'DELETE',
      `/pcm/hierarchies/${hierarchy}/nodes/${node}/relationships/products`,
      { json: { data: [{ type: 'product', id: products.GONE }] } },
    );
    expect(detach.status).toBeLessThan(300);
    const put = (sku: string, currencies: Record<string, unknown>) =>
      service.call('PUT', `/pcm/pricebooks/${book}/prices/${prices[sku]}`, {
        json: { data: { type: 'product-price', id: prices[sku], attributes: { currencies } } },
      });
    expect((await put('EUROLESS', { EUR: { amount: 800, includes_tax: false } })).status).toBe(200);
    expect(
      (
        await put('BOLT', {
          USD: {
            amount: 6000,
            includes_tax: false,
            tiers: { ten: { minimum_quantity: 10, amount: 100 } },
          },
        })
      ).status,
    ).toBe(200);
    await publish(service, catalog);

    const read = await readCart(cartId);
    expect(read).toEqual({
      lines: [
        { sku: 'BOLT', quantity: 1, unit: 6000, value: 6000 },
        { sku: 'GONE', quantity: 2, unit: 700, value: 1400 },
        { sku: 'EUROLESS', quantity: 1, unit: 900, value: 900 },
      ],
      total: 8300,
    });
    const items = (await service.call('GET', `/v2/carts/${cartId}/items`, { token: shopper })).body
      .data as { sku: string; meta: { price_unavailable?: string } }[];
    expect(items.map((i) => [i.sku, i.meta.price_unavailable])).toEqual([
      ['BOLT', undefined],
      ['GONE', `Product ${products.GONE} is no longer in catalog ${catalog}.`],
      ['EUROLESS', expect.stringMatching(/no price in USD/)],
    ]);

    const change = await setQuantity(cartId, goneId, 3);
    expect(change.status).toBe(409);
    expect(errorOf(change)).toMatchObject({ source: 'data.quantity' });
    expect(errorOf(change).detail).toContain(goneId);

    const orders = async () =>
      ((await service.call('GET', '/v2/orders')).body.data as unknown[]).length;
    const ordersBefore = await orders();
    const refused = await checkout(cartId);
    expect(refused.status).toBe(409);
    expect(errorOf(refused).source).toBe('cart');
    expect(errorOf(refused).detail).toContain(goneId);
    expect(errorOf(refused).detail).toContain(eurolessId);
    expect(errorOf(refused).detail).not.toContain('BOLT');
    expect(await orders()).toBe(ordersBefore);

    for (const id of [goneId, eurolessId]) {
      const removed = await service.call('DELETE', `/v2/carts/${cartId}/items/${id}`, {
        token: shopper,
      });
      expect(removed.status).toBe(200);
    }
    const order = await checkout(cartId);
    expect(order.status).toBe(201);
    expect(order.body.data.meta.display_price.with_tax.amount).toBe(6000);
  });
});
