/**
 * Orders as the reference storefront's order history reads them (issue 30, items 9 and 11):
 * `getCustomerOrders` with `include: ["items"]` answers `included.items` with every item of
 * every order on the page, order items carry the catalog `product_id` they were ordered from
 * (what the storefront loads images by), and `include` is read in both forms, the comma list
 * and the SDK's repeated parameter, on every route that takes one.
 */
import { createClient, getAnOrder, getCustomerOrders } from '@epcc-sdk/sdks-shopper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildCatalogFixture,
  type CatalogFixture,
  createCatalog,
  publish,
} from './catalog-fixtures.ts';
import { errorOf, type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
let fx: CatalogFixture;
let shopper: string;
let customerToken: string;
const seen: string[] = [];
const orders: string[] = [];
/** Checkout's answer for the first order. */
let checkedOut: any;

const address = {
  first_name: 'A',
  last_name: 'B',
  line_1: '1 Road',
  region: 'R',
  postcode: 'P1',
  country: 'GB',
};

async function order(items: unknown[], headers: Record<string, string>, customer?: unknown) {
  const cart = await service.call('POST', '/v2/carts', {
    token: shopper,
    headers,
    json: { data: { name: 'c' } },
  });
  for (const data of items) {
    const added = await service.call('POST', `/v2/carts/${cart.body.data.id}/items`, {
      token: shopper,
      headers,
      json: { data },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
  }
  const done = await service.call('POST', `/v2/carts/${cart.body.data.id}/checkout`, {
    token: shopper,
    headers,
    json: { data: { ...(customer ? { customer } : {}), billing_address: address } },
  });
  expect(done.status, JSON.stringify(done.body)).toBe(201);
  return done.body;
}

beforeAll(async () => {
  service = await startService();
  fx = await buildCatalogFixture(service);
  await publish(
    service,
    await createCatalog(service, 'Shop', { hierarchy_ids: [fx.apparel], pricebook_id: fx.book }),
  );
  shopper = await service.token('alpha', 'implicit');
  await service.call('POST', '/v2/customers', {
    json: {
      data: { type: 'customer', name: 'Ann', email: 'ann@example.com', password: 'ann-pass-1' },
    },
  });
  const signedIn = await service.call('POST', '/v2/customers/tokens', {
    token: shopper,
    json: { data: { type: 'token', email: 'ann@example.com', password: 'ann-pass-1' } },
  });
  customerToken = signedIn.body.data.token;
  const mine = { 'x-moltin-customer-token': customerToken };
  const wrap = {
    type: 'custom_item',
    name: 'Wrap',
    sku: 'WRAP',
    quantity: 1,
    price: { amount: 300 },
  };
  const first = await order([{ type: 'cart_item', id: fx.shirt, quantity: 2 }, wrap], mine);
  checkedOut = first;
  orders.push(first.data.id);
  orders.push((await order([{ type: 'cart_item', sku: 'TEE-S', quantity: 1 }], mine)).data.id);
  // Someone else's order, which Ann's list never shows.
  await order([wrap], {}, { name: 'Guest', email: 'guest@example.com' });
});
afterAll(() => service?.close());

function sdk() {
  return createClient({
    baseUrl: service.url,
    headers: { Authorization: `Bearer ${shopper}`, 'X-Moltin-Customer-Token': customerToken },
    fetch: async (request: Request) => {
      seen.push(`${request.method} ${request.url.slice(service.url.length)}`);
      return fetch(request);
    },
  } as never);
}

type Item = { id: string; sku: string; product_id?: string; relationships: any };

describe('the order history with its lines', () => {
  it('lists the customer’s orders with included.items, each line with its product', async () => {
    const history = await getCustomerOrders({ client: sdk(), query: { include: ['items'] } });
    expect(seen.at(-1)).toBe('GET /v2/orders?include=items');
    expect(history.response.status).toBe(200);
    const body = history.data as any;
    expect(new Set(body.data.map((o: { id: string }) => o.id))).toEqual(new Set(orders));
    const items = body.included.items as Item[];
    expect(items.map((i) => [i.sku, i.product_id]).sort()).toEqual([
      ['SHIRT-1', fx.shirt],
      ['TEE-S', expect.any(String)],
      ['WRAP', undefined],
    ]);
    // Every listed order's items, and each item names its order.
    for (const o of body.data as { id: string; relationships: any }[]) {
      const ids = o.relationships.items.data.map((r: { id: string }) => r.id).sort();
      const mine = items.filter((i) => i.relationships.order.data.id === o.id);
      expect(mine.map((i) => i.id).sort()).toEqual(ids);
    }
    expect(body.meta.results.total).toBe(2);
  });

  it('includes only the items of the page’s orders, and nothing without the include', async () => {
    const page = await service.call('GET', '/v2/orders?page[limit]=1&include=items', {
      token: shopper,
      headers: { 'x-moltin-customer-token': customerToken },
    });
    const [only] = page.body.data as { id: string; relationships: any }[];
    expect(page.body.included.items.map((i: Item) => i.relationships.order.data.id)).toEqual(
      only?.relationships.items.data.map(() => only.id),
    );
    const plain = await service.call('GET', '/v2/orders', {
      token: shopper,
      headers: { 'x-moltin-customer-token': customerToken },
    });
    expect(plain.body.included).toBeUndefined();
  });

  it('shows each line’s product in checkout’s answer too', () => {
    expect(
      checkedOut.included.items.map((i: { sku: string; product_id?: string }) => [
        i.sku,
        i.product_id,
      ]),
    ).toEqual(
      expect.arrayContaining([
        ['SHIRT-1', fx.shirt],
        ['WRAP', undefined],
      ]),
    );
  });

  it('reads one order with its lines through the SDK', async () => {
    const one = await getAnOrder({
      client: sdk(),
      path: { orderID: orders[0] ?? '' },
      query: { include: ['items'] },
    });
    expect(one.response.status).toBe(200);
    const items = (one.data as any).included.items as Item[];
    expect(items.find((i) => i.sku === 'SHIRT-1')?.product_id).toBe(fx.shirt);
  });
});

describe('include in both forms, everywhere', () => {
  it('takes include=a,b and include=a&include=b alike, and names an unknown one', async () => {
    const customer = { 'x-moltin-customer-token': customerToken };
    const get = (path: string, headers: Record<string, string> = {}) =>
      service.call('GET', path, { token: shopper, headers });
    const id = orders[0] ?? '';
    for (const query of ['include=items&include=items', 'include=items,', 'include=%20items']) {
      expect((await get(`/v2/orders?${query}`, customer)).body.included.items).toHaveLength(3);
      expect((await get(`/v2/orders/${id}?${query}`, customer)).body.included.items).toHaveLength(
        2,
      );
    }
    for (const path of [
      `/v2/orders?include=items&include=lines`,
      `/v2/orders/${id}?include=lines`,
    ]) {
      const refused = await get(path, customer);
      expect([refused.status, errorOf(refused).source]).toEqual([400, 'include']);
      expect(errorOf(refused).detail).toMatch(/"lines".*"items"/);
    }
    // Price books (the store's token) and account memberships read the same parser.
    const book = await service.call(
      'GET',
      `/pcm/pricebooks/${fx.book}?include=prices&include=prices`,
    );
    expect(book.status).toBe(200);
    expect(book.body.included.length).toBeGreaterThan(0);
    const account = await service.call('POST', '/v2/accounts', {
      json: { data: { type: 'account', name: 'Acme' } },
    });
    const memberships = `/v2/accounts/${account.body.data.id}/account-memberships`;
    expect(
      (await service.call('GET', `${memberships}?include=account_member&include=account_members`))
        .status,
    ).toBe(200);
    const badMember = await service.call('GET', `${memberships}?include=account_member,x`);
    expect([badMember.status, errorOf(badMember).source]).toEqual([400, 'include']);
  });
});
