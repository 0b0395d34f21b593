/**
 * Money that a client cannot receive (issue 20 #6), end to end: gateway → fault proxy → embedded
 * service on a SQLite file, which the tests also open directly to put rows an older version could
 * have written. `Money.amount` is a 32-bit Int, so every price, discount and total is bounded
 * (±(2^31 − 1) minor units) before any write; a write that did happen is never answered as
 * failed (WRITE_COMMITTED); a stored order that cannot be represented fails alone, not its page.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../../src/commerce-service/db.ts';
import { storeIdForClient } from '../../src/commerce-service/ids.ts';
import type { FaultUpstream } from '../support/fault-upstream.ts';
import { type HardeningStack, startHardeningStack } from '../support/hardening-stack.ts';
import { codes, type Json, userError } from './fixtures.ts';

const MAX = 2 ** 31 - 1;
const STORE = storeIdForClient('demo');
const ADDRESS = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  line1: '1 Road',
  region: 'London',
  postcode: 'N1',
  country: 'GB',
};

let dir: string;
let stack: HardeningStack;
let fault: FaultUpstream;
let db: Db;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'money-bounds-'));
  const dbPath = join(dir, 'commerce.sqlite');
  stack = await startHardeningStack({ dbPath });
  fault = stack.fault as FaultUpstream;
  db = openDatabase(dbPath);
});
afterAll(async () => {
  db?.close();
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

const CART = `query($id: ID!) {
  cart(id: $id) { totals { withTax { amount } } items { id sku quantity } }
}`;

async function createCart(): Promise<string> {
  const { body } = await stack.graphql(
    'mutation { createCart(input: { name: "c" }) { cart { upstreamId } } }',
  );
  expect(body.errors).toBeUndefined();
  return body.data.createCart.cart.upstreamId;
}

const ADD = `mutation($i: AddCartCustomItemInput!) {
  addCartCustomItem(input: $i) { cart { totals { withTax { amount } } items { id } }
    userErrors { code field message } }
}`;

function addItem(cartId: string, amount: number, quantity: number, sku = 'S') {
  return stack.graphql(ADD, {
    i: { cartId, name: `item ${sku}`, sku, quantity, price: { amount, includesTax: true } },
  });
}

const CHECKOUT = `mutation($i: CheckoutCartInput!) {
  checkoutCart(input: $i) { order { upstreamId total { amount formatted } }
    userErrors { code field message } }
}`;

function checkout(cartId: string) {
  return stack.graphql(CHECKOUT, {
    i: { cartId, customer: { email: 'ada@example.com', name: 'Ada' }, billingAddress: ADDRESS },
  });
}

const orderCount = () => db.prepare('SELECT count(*) FROM orders').pluck().get() as number;

/** A cart line as an older version, which bounded nothing, could have stored it. */
function insertLegacyItem(cartId: string, unitAmount: number, quantity: number): string {
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  db.prepare(
    `INSERT INTO cart_items (id, store_id, cart_id, name, sku, description, quantity, unit_amount,
       includes_tax, created_at, updated_at)
     VALUES (?, ?, ?, 'legacy', 'LEGACY', '', ?, ?, 1, ?, ?)`,
  ).run(id, STORE, cartId, quantity, unitAmount, now, now);
  return id;
}

describe('amounts are bounded before any write', () => {
  it('refuses a 2^31−1 price × 1,000,000 line with BAD_USER_INPUT before any call, and writes nothing', async () => {
    const cartId = await createCart();
    const posts = fault.count('POST', /\/items$/);
    const { status, body } = await addItem(cartId, MAX, 1_000_000);
    expect(status).toBe(200);
    expect(codes(body)).toEqual(['BAD_USER_INPUT']);
    expect(userError(body, 'addCartCustomItem')?.field).toBe('input.quantity');
    expect(userError(body, 'addCartCustomItem')?.message).toContain(String(MAX));
    expect(fault.count('POST', /\/items$/)).toBe(posts);
    const read = await stack.graphql(CART, { id: cartId });
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.cart.items).toEqual([]);
  });

  it('the service refuses a cart total above 2^31−1 (400 → BAD_USER_INPUT) and keeps the cart as it was', async () => {
    const cartId = await createCart();
    const half = 2 ** 30;
    const first = await addItem(cartId, half, 1, 'A');
    expect(first.body.errors).toBeUndefined();
    const second = await addItem(cartId, half, 1, 'B');
    expect(codes(second.body)).toEqual(['BAD_USER_INPUT']);
    expect(userError(second.body, 'addCartCustomItem')?.message).toContain('cart total');
    const read = await stack.graphql(CART, { id: cartId });
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.cart.items.map((i: Json) => i.sku)).toEqual(['A']);
    expect(read.body.data.cart.totals.withTax.amount).toBe(half);

    // A quantity that would take the line past the bound: refused, the quantity kept.
    const itemId = read.body.data.cart.items[0].id;
    const update = await stack.graphql(
      `mutation($i: UpdateCartItemInput!) { updateCartItem(input: $i) { cart { upstreamId } userErrors { code } } }`,
      { i: { cartId, cartItemId: itemId, quantity: 2 } },
    );
    expect(codes(update.body)).toEqual(['BAD_USER_INPUT']);
    const after = await stack.graphql(CART, { id: cartId });
    expect(after.body.data.cart.items[0].quantity).toBe(1);
  });

  it('refuses a discount below −(2^31−1) before any call', async () => {
    const { body } = await stack.graphql(
      `mutation($i: AddCartCustomDiscountInput!) { addCartCustomDiscount(input: $i) { customDiscount { id } userErrors { code field message } } }`,
      {
        i: {
          cartId: '11111111-1111-4111-8111-111111111111',
          amount: -(2 ** 31),
          description: 'd',
          discountCode: 'c',
          discountEngine: 'e',
          externalId: 'x',
        },
      },
    );
    expect(codes(body)).toEqual(['BAD_USER_INPUT']);
    expect(userError(body, 'addCartCustomDiscount')?.field).toBe('input.amount');
  });

  it('checkout cannot place an order from a cart an older version let overflow', async () => {
    const cartId = await createCart();
    insertLegacyItem(cartId, MAX, 1_000_000);
    const before = orderCount();
    const { body } = await checkout(cartId);
    expect(codes(body)).toEqual(['BAD_USER_INPUT']);
    expect(orderCount()).toBe(before);
  });
});

describe('a write that happened is never answered as failed', () => {
  it('removeCartItem on a legacy cart: the item is removed, the unreadable cart is a WRITE_COMMITTED error on `cart`', async () => {
    const cartId = await createCart();
    const added = await addItem(cartId, 100, 1, 'SMALL');
    expect(added.body.errors).toBeUndefined();
    const smallId = added.body.data.addCartCustomItem.cart.items[0].id;
    insertLegacyItem(cartId, MAX, 1_000_000);
    const { status, body } = await stack.graphql(
      `mutation($i: RemoveCartItemInput!) {
         removeCartItem(input: $i) { cart { totals { withTax { amount } } } }
       }`,
      { i: { cartId, cartItemId: smallId } },
    );
    expect(status).toBe(200);
    expect(codes(body)).toEqual(['WRITE_COMMITTED']);
    expect(body.errors[0].extensions.causeCode).toBe('VALUE_OUT_OF_RANGE');
    expect(body.errors[0].path.slice(0, 2)).toEqual(['removeCartItem', 'cart']);
    expect(body.data).toEqual({ removeCartItem: { cart: null } });
    const left = db.prepare('SELECT sku FROM cart_items WHERE cart_id = ?').pluck().all(cartId);
    expect(left).toEqual(['LEGACY']);
  });

  it('checkout whose answer is unusable: the order is placed and the client is told so, not to retry', async () => {
    const cartId = await createCart();
    expect((await addItem(cartId, 2500, 2)).body.errors).toBeUndefined();
    const before = orderCount();
    const remove = fault.add({
      method: 'POST',
      path: /\/checkout$/,
      otherwise: { kind: 'rewrite', body: () => '{"data":{"type":"order"}}' },
    });
    const { status, body } = await checkout(cartId);
    remove();
    expect(status).toBe(200);
    expect(codes(body)).toEqual(['WRITE_COMMITTED']);
    expect(body.errors[0].extensions.causeCode).toBe('UPSTREAM_UNAVAILABLE');
    expect(body.errors[0].message).toMatch(/do not repeat the write/);
    expect(body.data).toEqual({ checkoutCart: { order: null, userErrors: [] } });
    expect(orderCount()).toBe(before + 1);
  });

  it('checkout answered with an amount beyond 32 bits: the order shows, its total is a field error', async () => {
    const cartId = await createCart();
    expect((await addItem(cartId, 2500, 2)).body.errors).toBeUndefined();
    const remove = fault.add({
      method: 'POST',
      path: /\/checkout$/,
      otherwise: {
        kind: 'rewrite',
        body: (text) => {
          const doc = JSON.parse(text);
          doc.data.meta.display_price.with_tax.amount = 2 ** 40;
          return JSON.stringify(doc);
        },
      },
    });
    const { body } = await checkout(cartId);
    remove();
    expect(codes(body)).toEqual(['WRITE_COMMITTED']);
    expect(body.errors[0].extensions.causeCode).toBe('VALUE_OUT_OF_RANGE');
    expect(body.errors[0].path).toEqual(['checkoutCart', 'order', 'total']);
    const order = body.data.checkoutCart.order;
    expect(order.total).toBeNull();
    const stored = db.prepare('SELECT id FROM orders WHERE cart_id = ?').pluck().all(cartId);
    expect(stored).toEqual([order.upstreamId]);
  });
});

describe('an order an older version stored with overflowing totals', () => {
  it('is a field error of that order only: the rest of the orders page is served', async () => {
    const legacyId = crypto.randomUUID();
    const now = new Date().toISOString();
    const huge = MAX * 1_000_000;
    db.prepare(
      `INSERT INTO orders (id, store_id, cart_id, status, payment, shipping, customer_name,
         customer_email, billing_address, shipping_address, currency, with_tax, without_discount,
         discount, customer_id, created_at, updated_at)
       VALUES (?, ?, NULL, 'incomplete', 'unpaid', 'unfulfilled', 'Old', 'old@example.com', '{}',
         NULL, 'USD', ?, ?, 0, NULL, ?, ?)`,
    ).run(legacyId, STORE, huge, huge, now, now);
    db.prepare(
      `INSERT INTO order_items (id, store_id, order_id, name, sku, quantity, unit_amount, discount,
         currency, created_at, updated_at)
       VALUES (?, ?, ?, 'legacy', 'LEGACY', 1000000, ?, 0, 'USD', ?, ?)`,
    ).run(crypto.randomUUID(), STORE, legacyId, MAX, now, now);
    const total = db.prepare('SELECT count(*) FROM orders WHERE store_id = ?').pluck().get(STORE);
    expect(total).toBeGreaterThanOrEqual(3);

    const { status, body } = await stack.graphql(
      `{ orders(first: 50) { totalCount nodes {
           upstreamId customerName total { amount formatted } totals { withTax { amount } }
           items { quantity totals { withTax { amount } } }
         } } }`,
    );
    expect(status).toBe(200);
    const nodes: Json[] = body.data.orders.nodes;
    expect(nodes).toHaveLength(total as number);
    const index = nodes.findIndex((n) => n.upstreamId === legacyId);
    const legacy = nodes[index] as Json;
    expect(legacy).toMatchObject({ customerName: 'Old', total: null, totals: null, items: null });
    for (const other of nodes.filter((n) => n.upstreamId !== legacyId)) {
      expect(other.total.amount).toBeGreaterThan(0);
      expect(other.items.length).toBeGreaterThan(0);
    }
    expect(new Set(codes(body))).toEqual(new Set(['VALUE_OUT_OF_RANGE']));
    for (const error of body.errors) {
      expect(error.path.slice(0, 4)).toEqual(['orders', 'nodes', index, error.path[3]]);
      expect(['total', 'totals', 'items']).toContain(error.path[3]);
    }
    const totalError = body.errors.find((e: Json) => e.path[3] === 'total');
    // The display form is exact at any size, so the error can say what the total is.
    expect(totalError.message).toContain('$21,474,836,470,000.00');
  });
});
