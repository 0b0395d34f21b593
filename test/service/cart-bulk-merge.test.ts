/**
 * Several items in one request and merging carts (issue 30, item 10), as production's carts
 * specification has them and the reference storefront sends them: `data` as an array with
 * `options.add_all_or_nothing` (all or nothing refuses the whole request and writes nothing;
 * otherwise 201 with what was added and `errors` for the rest), a merge `{type:"cart_items",
 * cart_id}` after sign-in (catalog lines priced for the target cart, custom items kept, the
 * merged cart left as it was), the bounds, and a cart's `meta.timestamps.expires_at` (7 days
 * after its last change, then gone). The storefront's own calls go through
 * `@epcc-sdk/sdks-shopper`, whose `include` arrays arrive as `include=a&include=b`.
 */
import { createClient, getACart, manageCarts } from '@epcc-sdk/sdks-shopper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildCatalogFixture,
  type CatalogFixture,
  createCatalog,
  publish,
} from './catalog-fixtures.ts';
import {
  type CallOptions,
  errorOf,
  type ServiceUnderTest,
  startService,
} from './service-helpers.ts';

const DAY = 86_400_000;
/** The service's clock: the expiry test moves it. */
let clock = Date.now();
let service: ServiceUnderTest;
let fx: CatalogFixture;
let shopper: string;
let customerToken: string;
const seen: string[] = [];

beforeAll(async () => {
  service = await startService({ now: () => clock });
  fx = await buildCatalogFixture(service);
  const catalog = await createCatalog(service, 'Shop', {
    hierarchy_ids: [fx.apparel, fx.brands],
    pricebook_id: fx.book,
  });
  await publish(service, catalog);
  shopper = await service.token('alpha', 'implicit');
  const customer = await service.call('POST', '/v2/customers', {
    json: {
      data: { type: 'customer', name: 'Ann', email: 'ann@example.com', password: 'ann-pass-1' },
    },
  });
  expect(customer.status).toBe(201);
  const signedIn = await service.call('POST', '/v2/customers/tokens', {
    token: shopper,
    json: { data: { type: 'token', email: 'ann@example.com', password: 'ann-pass-1' } },
  });
  customerToken = signedIn.body.data.token;
});
afterAll(() => service?.close());

/** The storefront's SDK client: the shopper's token, every request recorded. */
function sdk(headers: Record<string, string> = {}) {
  return createClient({
    baseUrl: service.url,
    headers: { Authorization: `Bearer ${shopper}`, ...headers },
    fetch: async (request: Request) => {
      seen.push(`${request.method} ${request.url.slice(service.url.length)}`);
      return fetch(request);
    },
  } as never);
}

const asCustomer = (): CallOptions => ({ headers: { 'x-moltin-customer-token': customerToken } });

async function newCart(options: CallOptions = {}, currency = 'USD'): Promise<string> {
  const result = await service.call('POST', '/v2/carts', {
    token: shopper,
    ...options,
    headers: { ...options.headers, 'X-MOLTIN-CURRENCY': currency },
    json: { data: { name: 'c' } },
  });
  if (result.status !== 201) throw new Error(JSON.stringify(result.body));
  return result.body.data.id;
}

const post = (cartId: string, json: unknown, options: CallOptions = {}) =>
  service.call('POST', `/v2/carts/${cartId}/items`, { token: shopper, ...options, json });
const lines = async (cartId: string, options: CallOptions = {}) =>
  (
    (await service.call('GET', `/v2/carts/${cartId}/items`, { token: shopper, ...options })).body
      .data as { type: string; sku: string; quantity: number; unit_price: { amount: number } }[]
  ).map((i) => [i.type, i.sku, i.quantity, i.unit_price.amount]);

const wrap = {
  type: 'custom_item',
  name: 'Gift wrap',
  sku: 'WRAP',
  quantity: 1,
  price: { amount: 300 },
};

describe('several items in one request', () => {
  it('adds an array of items through the SDK, and the cart page reads it with four includes', async () => {
    const cartId = await newCart();
    const added = await manageCarts({
      client: sdk(),
      path: { cartID: cartId },
      body: {
        data: [
          { type: 'cart_item', id: fx.shirt, quantity: 2 },
          wrap,
          { type: 'cart_item', sku: 'TEE-S', quantity: 1 },
        ],
        options: { add_all_or_nothing: true },
      } as never,
    });
    expect(added.response.status).toBe(201);
    expect((added.data as any).errors).toBeUndefined();
    expect(await lines(cartId)).toEqual([
      ['cart_item', 'SHIRT-1', 2, 4000],
      ['custom_item', 'WRAP', 1, 300],
      ['cart_item', 'TEE-S', 1, 1500],
    ]);
    // The reference storefront's cart page: four includes, sent as a repeated parameter.
    const page = await getACart({
      client: sdk(),
      path: { cartID: cartId },
      query: { include: ['items', 'promotions', 'tax_items', 'custom_discounts'] },
    });
    expect(seen.at(-1)).toBe(
      `GET /v2/carts/${cartId}?include=items&include=promotions&include=tax_items&include=custom_discounts`,
    );
    expect(page.response.status).toBe(200);
    const body = page.data as any;
    expect(body.included.items).toHaveLength(3);
    expect(body.included).toMatchObject({ promotions: [], tax_items: [], custom_discounts: [] });
    const { created_at, updated_at, expires_at } = body.data.meta.timestamps;
    expect(created_at).toEqual(expect.any(String));
    expect(Date.parse(expires_at) - Date.parse(updated_at)).toBe(7 * DAY);
    // The comma form reads the same; an unknown name is a 400 naming include.
    const comma = await service.call('GET', `/v2/carts/${cartId}?include=items,custom_discounts`, {
      token: shopper,
    });
    expect(comma.body.included.items).toHaveLength(3);
    const unknown = await service.call('GET', `/v2/carts/${cartId}?include=items&include=coupons`, {
      token: shopper,
    });
    expect([unknown.status, errorOf(unknown).source]).toEqual([400, 'include']);
    expect(errorOf(unknown).detail).toMatch(
      /"coupons".*items, custom_discounts, promotions, tax_items/,
    );
  });

  it('all or nothing: one refused item refuses the request and writes nothing', async () => {
    const cartId = await newCart();
    await post(cartId, { data: wrap });
    const before = await lines(cartId);
    const refused = await post(cartId, {
      data: [
        { type: 'cart_item', id: fx.shirt, quantity: 1 },
        { type: 'cart_item', sku: 'NOPE', quantity: 1 },
      ],
      options: { add_all_or_nothing: true },
    });
    expect(refused.status).toBe(404);
    expect(errorOf(refused)).toMatchObject({ source: 'data[1]' });
    expect(errorOf(refused).detail).toMatch(/^Nothing was added .*SKU NOPE/);
    expect(await lines(cartId)).toEqual(before);
  });

  it('otherwise adds what it can and reports the rest in errors, as production’s 201 does', async () => {
    const stock = await service.call('POST', `/v2/inventories/${fx.pants}`, {
      json: { data: { quantity: 1 } },
    });
    expect(stock.status).toBe(201);
    const cartId = await newCart();
    const partial = await post(cartId, {
      data: [
        { type: 'cart_item', id: fx.shirt, quantity: 1 },
        { type: 'cart_item', sku: 'NOPE', quantity: 1 },
        { type: 'cart_item', id: fx.pants, quantity: 5 },
        { type: 'promotion_item', code: 'NO-SUCH-CODE' },
        wrap,
      ],
      options: { add_all_or_nothing: false },
    });
    expect(partial.status).toBe(201);
    expect(partial.body.data.map((i: { sku: string }) => i.sku)).toEqual(['SHIRT-1', 'WRAP']);
    expect(partial.body.meta.display_price.with_tax.amount).toBe(4000 + 300);
    expect(partial.body.errors).toMatchObject([
      { status: 404, source: 'data[1]', meta: { sku: 'NOPE' } },
      { status: 400, source: 'data[2].quantity', meta: { id: fx.pants } },
      { status: 422, meta: { code: 'NO-SUCH-CODE' } },
    ]);
    expect(partial.body.errors[1].detail).toMatch(/Insufficient stock/);
    // The default is the same (production's default is false).
    const byDefault = await post(cartId, {
      data: [{ type: 'cart_item', sku: 'NOPE', quantity: 1 }],
    });
    expect(byDefault.status).toBe(201);
    expect(byDefault.body.errors).toHaveLength(1);
    expect(await lines(cartId)).toEqual([
      ['cart_item', 'SHIRT-1', 1, 4000],
      ['custom_item', 'WRAP', 1, 300],
    ]);
  });

  it('judges every entry and the options first: a malformed request writes nothing', async () => {
    const cartId = await newCart();
    const cases: [unknown, string][] = [
      [{ data: [] }, 'data'],
      [{ data: Array.from({ length: 101 }, () => wrap) }, 'data'],
      [{ data: [wrap, { ...wrap, quantity: 0 }] }, 'data[1].quantity'],
      [{ data: [wrap, 'x'] }, 'data[1]'],
      [{ data: [{ type: 'cart_item', id: 'x', quantity: 1 }] }, 'data[0].id'],
      [{ data: [{ type: 'bundle', id: fx.shirt }] }, 'data[0].type'],
      [{ data: [{ type: 'order_items', order_id: fx.shirt }] }, 'data[0].type'],
      [{ data: [{ type: 'promotion_item', code: '' }] }, 'data[0].code'],
      [{ data: [wrap], options: { add_all_or_nothing: 'yes' } }, 'options.add_all_or_nothing'],
      [{ data: [wrap], options: { all: true } }, 'options.all'],
      [{ data: [wrap], options: [] }, 'options'],
      [{ data: wrap, options: { add_all_or_nothing: 1 } }, 'options.add_all_or_nothing'],
      [
        { data: { type: 'promotion_item', code: 'X' }, options: { add_all_or_nothing: 'no' } },
        'options.add_all_or_nothing',
      ],
      [{ data: { type: 'cart_items', cart_id: 'nope' } }, 'data.cart_id'],
      [{ data: { type: 'cart_items', cart_id: cartId, extra: 1 } }, 'data.extra'],
      [{ data: [{ type: 'cart_items' }] }, 'data[0].cart_id'],
      [
        { data: Array.from({ length: 6 }, () => ({ type: 'cart_items', cart_id: fx.shirt })) },
        'data',
      ],
    ];
    for (const [json, source] of cases) {
      const result = await post(cartId, json);
      expect([result.status, errorOf(result).source], JSON.stringify(json)).toEqual([400, source]);
    }
    expect(await lines(cartId)).toEqual([]);
  });

  it('answers odd bodies and includes with a 4xx or a reported error, never a 5xx', async () => {
    const cartId = await newCart();
    const unknownCart = '00000000-0000-4000-8000-000000000000';
    const bodies: unknown[] = [
      { data: [null] },
      { data: [[wrap]] },
      { data: [{}] },
      { data: [{ type: 'cart_item', id: fx.shirt, quantity: 2 ** 53 }] },
      { data: [{ type: 'cart_item', sku: 'x'.repeat(100_000), quantity: 1 }] },
      { data: [{ type: 'custom_item', name: 'n', sku: 's', quantity: 1, price: { amount: -1 } }] },
      { data: [{ type: { nested: true } }] },
      { data: { type: 'cart_items', cart_id: unknownCart }, options: null },
      { data: [{ type: 'cart_items', cart_id: unknownCart.toUpperCase() }] },
      { data: { type: 'cart_items', cart_id: unknownCart }, options: { add_all_or_nothing: true } },
      { data: [wrap], options: 'all' },
      { data: 'items' },
      [wrap],
    ];
    for (const json of bodies) {
      const result = await post(cartId, json);
      expect(result.status, JSON.stringify(json).slice(0, 200)).toBeLessThan(500);
      if (result.status === 201) expect(result.body.errors.length).toBeGreaterThan(0);
    }
    for (const query of [
      'include=',
      'include=,,',
      'include[]=items',
      'include=items&include=',
      `include=${'i,'.repeat(40)}`,
    ]) {
      const result = await service.call('GET', `/v2/carts/${cartId}?${query}`, { token: shopper });
      expect(result.status, query).toBeLessThan(500);
    }
    expect(await lines(cartId)).toEqual([]);
  });

  it('holds at most 100 distinct items', async () => {
    const cartId = await newCart();
    const hundred = Array.from({ length: 100 }, (_, i) => ({ ...wrap, sku: `W-${i}` }));
    expect((await post(cartId, { data: hundred })).status).toBe(201);
    const full = await post(cartId, { data: { ...wrap, sku: 'W-100' } });
    expect([full.status, errorOf(full).detail]).toEqual([
      400,
      expect.stringMatching(/at most 100 distinct items/),
    ]);
    expect(await lines(cartId)).toHaveLength(100);
  });
});

describe('merging a cart into another', () => {
  it('moves a guest cart’s lines into the signed-in shopper’s cart; the guest cart stays', async () => {
    const guest = await newCart();
    await post(guest, {
      data: [
        { type: 'cart_item', id: fx.shirt, quantity: 1 },
        { type: 'cart_item', sku: 'TEE-S', quantity: 2 },
        wrap,
      ],
    });
    const mine = await newCart(asCustomer());
    await post(mine, { data: { type: 'cart_item', id: fx.shirt, quantity: 2 } }, asCustomer());
    // The storefront's merge after sign-in, as it sends it.
    const merged = await post(
      mine,
      { data: { type: 'cart_items', cart_id: guest }, options: { add_all_or_nothing: false } },
      asCustomer(),
    );
    expect(merged.status).toBe(201);
    expect(merged.body.errors).toBeUndefined();
    expect(await lines(mine, asCustomer())).toEqual([
      ['cart_item', 'SHIRT-1', 3, 4000],
      ['cart_item', 'TEE-S', 2, 1500],
      ['custom_item', 'WRAP', 1, 300],
    ]);
    // The merged cart is as it was (production keeps the original cart unchanged).
    expect(await lines(guest)).toEqual([
      ['cart_item', 'SHIRT-1', 1, 4000],
      ['cart_item', 'TEE-S', 2, 1500],
      ['custom_item', 'WRAP', 1, 300],
    ]);
    // The answer shows the target's owner as production's cart does.
    const cart = await service.call('GET', `/v2/carts/${mine}`, {
      token: shopper,
      ...asCustomer(),
    });
    expect(cart.body.data.relationships.customers).toEqual({
      data: [{ type: 'customer', id: expect.any(String) }],
    });
    expect(cart.body.data.relationships.accounts).toBeUndefined();
  });

  it('prices catalog lines for the target cart and keeps custom items only in its currency', async () => {
    const guest = await newCart();
    await post(guest, {
      data: [
        { type: 'cart_item', id: fx.shirt, quantity: 1 },
        { type: 'cart_item', sku: 'PANTS-1', quantity: 1 },
        wrap,
      ],
    });
    const euro = await newCart({}, 'EUR');
    const merged = await post(euro, { data: [{ type: 'cart_items', cart_id: guest }] });
    expect(merged.status).toBe(201);
    // The shirt in euros; the pants have no EUR price and the custom item is priced in USD.
    expect(merged.body.data.map((i: any) => [i.sku, i.unit_price.currency])).toEqual([
      ['SHIRT-1', 'EUR'],
    ]);
    expect(merged.body.errors).toMatchObject([
      { status: 400, source: 'data[0].cart_id', meta: { cart_id: guest, sku: 'PANTS-1' } },
      { status: 400, source: 'data[0].cart_id', meta: { cart_id: guest, sku: 'WRAP' } },
    ]);
    expect(merged.body.errors[1].detail).toMatch(/priced in USD/);
    // All or nothing: the same merge refuses and writes nothing.
    const other = await newCart({}, 'EUR');
    const refused = await post(other, {
      data: { type: 'cart_items', cart_id: guest },
      options: { add_all_or_nothing: true },
    });
    expect([refused.status, errorOf(refused).source]).toEqual([400, 'data.cart_id']);
    expect(await lines(other)).toEqual([]);
  });

  it('refuses itself, and a cart the caller may not use as if it did not exist', async () => {
    const mine = await newCart(asCustomer());
    const self = await post(
      mine,
      { data: { type: 'cart_items', cart_id: mine }, options: { add_all_or_nothing: true } },
      asCustomer(),
    );
    expect([self.status, errorOf(self).source]).toEqual([400, 'data.cart_id']);
    // A guest may not merge the customer's cart into theirs.
    const guest = await newCart();
    const foreign = await post(guest, { data: { type: 'cart_items', cart_id: mine } });
    expect(foreign.status).toBe(201);
    expect(foreign.body.errors).toMatchObject([{ status: 404, meta: { cart_id: mine } }]);
    const strict = await post(guest, {
      data: { type: 'cart_items', cart_id: mine },
      options: { add_all_or_nothing: true },
    });
    expect(strict.status).toBe(404);
  });
});

describe('a cart’s lifetime', () => {
  it('expires 7 days after its last change: then it is gone, and creating a cart purges it', async () => {
    const start = clock;
    // Tokens live an hour by the same clock: a fresh one after every move.
    const at = async (ms: number) => {
      clock = ms;
      shopper = await service.token('alpha', 'implicit');
      return service.token('alpha', 'client_credentials');
    };
    const cartId = await newCart();
    await post(cartId, { data: wrap });
    await at(start + DAY);
    const touched = await post(cartId, { data: { ...wrap, sku: 'W2' } });
    const { updated_at, expires_at } = touched.body.meta.timestamps;
    expect(Date.parse(updated_at)).toBe(start + DAY);
    expect(Date.parse(expires_at)).toBe(start + 8 * DAY);
    await at(start + 8 * DAY - 1);
    expect((await service.call('GET', `/v2/carts/${cartId}`, { token: shopper })).status).toBe(200);
    const admin = await at(start + 8 * DAY);
    const gone = await service.call('GET', `/v2/carts/${cartId}`, { token: shopper });
    expect(gone.status).toBe(404);
    expect(errorOf(gone).detail).toMatch(/expired at .*7 days after their last change/);
    expect((await post(cartId, { data: wrap })).status).toBe(404);
    const listed = await service.call('GET', '/v2/carts?page[limit]=100', { token: admin });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((c: { id: string }) => c.id)).not.toContain(cartId);
    // Creating a cart deletes the expired ones: back in time, it is still gone.
    await newCart();
    await at(start + DAY);
    expect((await service.call('GET', `/v2/carts/${cartId}`, { token: shopper })).status).toBe(404);
  });
});
