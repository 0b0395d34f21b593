/**
 * A guest shops through the gateway with nothing but the storefront's implicit token (no
 * customer token): creates a cart, adds and changes items, checks out with a name and an email,
 * and gets the order with its lines, and then cannot read that order, nor any other, nor the
 * store's customers; a signed-in customer does not see it either. Only the store's own token
 * reads it back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';

let stack: Stack;
let guest: string;
let adaToken: string;
let adaId: string;

beforeAll(async () => {
  stack = await startStack();
  guest = await stack.implicitToken();
  const admin = await stack.token();
  const response = await fetch(`${stack.serviceUrl}/v2/customers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      data: { type: 'customer', name: 'Ada', email: 'ada@example.com', password: 'ada-password' },
    }),
  });
  expect(response.status).toBe(201);
  const signIn = await stack.graphql(
    `mutation($i: CreateCustomerTokenInput!) {
      createCustomerToken(input: $i) { token customer { upstreamId } }
    }`,
    { i: { email: 'ada@example.com', password: 'ada-password' } },
    { token: guest },
  );
  adaToken = signIn.body.data.createCustomerToken.token;
  adaId = signIn.body.data.createCustomerToken.customer.upstreamId;
});
afterAll(() => stack?.close());

type Json = any;

/** One operation with the guest's token only; it must succeed. */
async function asGuest(query: string, variables: Record<string, unknown>): Promise<Json> {
  const { status, body } = await stack.graphql(query, variables, { token: guest });
  expect(status).toBe(200);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

const codes = (body: Json): string[] => (body.errors ?? []).map((e: Json) => e.extensions?.code);

const ADDRESS = {
  firstName: 'Gus',
  lastName: 'Guest',
  line1: '1 High Street',
  region: 'Kent',
  postcode: 'CT1 1AA',
  country: 'GB',
};

const CHECKOUT = `mutation($i: CheckoutCartInput!) {
  checkoutCart(input: $i) {
    order { upstreamId customerId customerEmail total { amount formatted }
            items { name sku quantity totals { withTax { amount } } } }
  }
}`;

describe('a guest with only the implicit token', () => {
  it('creates a cart, adds and changes items, and checks out', async () => {
    const cart = (
      await asGuest(
        'mutation($i: CreateCartInput!) { createCart(input: $i) { cart { upstreamId name } } }',
        { i: { name: 'Gus’s cart', currency: 'GBP' } },
      )
    ).createCart.cart;
    expect(cart.name).toBe('Gus’s cart');
    const cartId: string = cart.upstreamId;

    const ADD = `mutation($i: AddCartCustomItemInput!) {
      addCartCustomItem(input: $i) { cart { items { id name quantity } } }
    }`;
    await asGuest(ADD, {
      i: { cartId, name: 'Tea', sku: 'TEA-1', quantity: 1, price: { amount: 450 } },
    });
    const items = (
      await asGuest(ADD, {
        i: { cartId, name: 'Cup', sku: 'CUP-1', quantity: 1, price: { amount: 1200 } },
      })
    ).addCartCustomItem.cart.items as { id: string; name: string }[];
    const tea = items.find((item) => item.name === 'Tea')?.id;
    const cup = items.find((item) => item.name === 'Cup')?.id;

    const changed = await asGuest(
      `mutation($i: UpdateCartItemInput!) {
        updateCartItem(input: $i) { cart { items { name quantity } totals { withTax { amount } } } }
      }`,
      { i: { cartId, cartItemId: tea, quantity: 3 } },
    );
    expect(changed.updateCartItem.cart.totals.withTax.amount).toBe(3 * 450 + 1200);
    await asGuest(
      'mutation($i: RemoveCartItemInput!) { removeCartItem(input: $i) { cart { items { name } } } }',
      { i: { cartId, cartItemId: cup } },
    );
    const read = await asGuest(
      'query($id: ID!) { cart(id: $id) { items { name quantity } totals { withTax { formatted } } } }',
      { id: cartId },
    );
    expect(read.cart).toEqual({
      items: [{ name: 'Tea', quantity: 3 }],
      totals: { withTax: { formatted: '£13.50' } },
    });

    const callsBefore = stack.upstreamRequests.length;
    const order = (
      await asGuest(CHECKOUT, {
        i: {
          cartId,
          customer: { name: 'Gus Guest', email: 'gus@example.com' },
          billingAddress: ADDRESS,
        },
      })
    ).checkoutCart.order;
    expect(order).toMatchObject({
      customerId: null,
      customerEmail: 'gus@example.com',
      total: { amount: 1350, formatted: '£13.50' },
      items: [{ name: 'Tea', sku: 'TEA-1', quantity: 3, totals: { withTax: { amount: 1350 } } }],
    });
    // The lines came with the checkout's answer: the guest's token never read the order.
    const calls = stack.upstreamRequests.slice(callsBefore).map((r) => `${r.method} ${r.url}`);
    expect(calls).toEqual([`POST /v2/carts/${cartId}/checkout`]);

    // …and cannot read it afterwards, nor list the store's orders or customers.
    const own = await stack.graphql(
      `query($id: ID!) { order(id: $id) { customerEmail } }`,
      { id: order.upstreamId },
      { token: guest },
    );
    expect(codes(own.body)).toEqual(['FORBIDDEN']);
    expect(own.body.data?.order ?? null).toBeNull();
    for (const query of [
      '{ orders(first: 5) { totalCount nodes { customerEmail } } }',
      '{ customers(first: 5) { nodes { email } } }',
    ]) {
      const { body } = await stack.graphql(query, undefined, { token: guest });
      expect(codes(body), query).toEqual(['FORBIDDEN']);
      expect(JSON.stringify(body)).not.toContain('@example.com');
    }

    // A signed-in customer does not see it either; the store's own token does.
    const ada = await stack.graphql(
      `query($id: ID!) { order(id: $id) { upstreamId } viewer { orders(first: 5) { totalCount } } }`,
      { id: order.upstreamId },
      { token: guest, headers: { 'x-moltin-customer-token': adaToken } },
    );
    expect(ada.body.errors).toBeUndefined();
    expect(ada.body.data).toEqual({ order: null, viewer: { orders: { totalCount: 0 } } });
    const store = await stack.graphql(`query($id: ID!) { order(id: $id) { customerEmail } }`, {
      id: order.upstreamId,
    });
    expect(store.body.data.order).toEqual({ customerEmail: 'gus@example.com' });
  });

  it('cannot check out as an existing customer by naming their id, and places no order', async () => {
    const cartId = (
      await asGuest(
        'mutation($i: CreateCartInput!) { createCart(input: $i) { cart { upstreamId } } }',
        { i: { name: 'Borrowed identity' } },
      )
    ).createCart.cart.upstreamId;
    await asGuest(
      'mutation($i: AddCartCustomItemInput!) { addCartCustomItem(input: $i) { cart { upstreamId } } }',
      { i: { cartId, name: 'Pen', sku: 'PEN-1', quantity: 1, price: { amount: 100 } } },
    );
    const count = async () =>
      (await stack.graphql('{ orders(first: 1) { totalCount } }')).body.data.orders.totalCount;
    const before = await count();
    const { body } = await stack.graphql(
      CHECKOUT,
      { i: { cartId, customerId: adaId, billingAddress: ADDRESS } },
      { token: guest },
    );
    expect(codes(body)).toEqual(['FORBIDDEN']);
    // Ada's name and email would have come back in the order.
    expect(JSON.stringify(body)).not.toContain('ada@example.com');
    expect(await count()).toBe(before);
  });
});
