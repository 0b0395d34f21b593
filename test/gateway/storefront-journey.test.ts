/**
 * The storefront's whole journey through the gateway only, as a signed-in customer: a read-only
 * (implicit) token plus a customer token from `createCustomerToken`; create a cart, add items,
 * an item discount and a cart discount, update and delete, read the totals back, check out as
 * the customer, and find the order under `viewer.orders`, and not under another customer's.
 * (The two customers are made by the store over REST, as a store's back office would.)
 * docs/storefront.md's own journey block is run as written, against `npm start`, by
 * test/build/readme-examples.test.ts; this one goes further than the page shows (a removed
 * item, an updated cart discount, every payload's totals, another customer's view, deletion).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';

let stack: Stack;
let implicit: string;

beforeAll(async () => {
  stack = await startStack();
  implicit = await stack.implicitToken();
  const admin = await stack.token();
  for (const [name, email, password] of [
    ['Ada Lovelace', 'ada@example.com', 'ada-password'],
    ['Grace Hopper', 'grace@example.com', 'grace-password'],
  ]) {
    const response = await fetch(`${stack.serviceUrl}/v2/customers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ data: { type: 'customer', name, email, password } }),
    });
    expect(response.status).toBe(201);
  }
});
afterAll(() => stack?.close());

type Json = any;

/** One operation as the storefront sends it: the implicit token, and the customer's token. */
async function shopper(customerToken: string | null, query: string, variables?: object) {
  const { status, body } = await stack.graphql(query, variables as Record<string, unknown>, {
    token: implicit,
    headers: customerToken ? { 'x-moltin-customer-token': customerToken } : {},
  });
  expect(status).toBe(200);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data as Json;
}

const SIGN_IN = `mutation($input: CreateCustomerTokenInput!) {
  createCustomerToken(input: $input) { token expiresAt customer { upstreamId name email } }
}`;

const CART_FIELDS = `upstreamId name customDiscountsEnabled
  totals { withTax { amount currency formatted } discount { amount } withoutDiscount { amount } }
  items { id name sku quantity totals { withTax { amount } discount { amount } }
          customDiscounts { id amount { amount formatted } } }
  customDiscounts { id amount { amount currency formatted } description }`;

const VIEWER = `{
  viewer {
    customer { upstreamId email }
    orders(first: 10) { totalCount nodes { upstreamId customerId customerEmail total { amount } } }
    carts(first: 10) { totalCount nodes { upstreamId name } }
  }
}`;

const discount = (n: number) => ({
  description: `Discount ${n}`,
  discountCode: `CODE${n}`,
  discountEngine: 'storefront-engine',
  externalId: `ext-${n}`,
});

describe('the storefront journey through the gateway', () => {
  it('signs in, builds a cart with discounts, checks out, and finds the order as the viewer', async () => {
    // Sign in (implicit token only), each customer.
    const ada = (
      await shopper(null, SIGN_IN, {
        input: { email: 'ada@example.com', password: 'ada-password' },
      })
    ).createCustomerToken;
    expect(ada.customer).toMatchObject({ name: 'Ada Lovelace', email: 'ada@example.com' });
    expect(Date.parse(ada.expiresAt)).toBeGreaterThan(Date.now() + 23 * 3600 * 1000);
    const grace = (
      await shopper(null, SIGN_IN, {
        input: { email: 'grace@example.com', password: 'grace-password' },
      })
    ).createCustomerToken;
    expect((await shopper(null, VIEWER)).viewer).toBeNull();

    // A cart in euros, with discounts enabled.
    const created = (
      await shopper(
        ada.token,
        `mutation($input: CreateCartInput!) { createCart(input: $input) { cart { ${CART_FIELDS} } } }`,
        { input: { name: 'Ada’s cart', customDiscountsEnabled: true, currency: 'eur' } },
      )
    ).createCart.cart;
    expect(created).toMatchObject({ name: 'Ada’s cart', customDiscountsEnabled: true, items: [] });
    expect(created.totals.withTax).toEqual({ amount: 0, currency: 'EUR', formatted: '€0.00' });
    const cartId = created.upstreamId as string;

    const ADD = `mutation($input: AddCartCustomItemInput!) {
      addCartCustomItem(input: $input) { cart { ${CART_FIELDS} } } }`;
    const addItem = async (name: string, sku: string, quantity: number, amount: number) =>
      (
        await shopper(ada.token, ADD, {
          input: { cartId, name, sku, quantity, price: { amount, includesTax: true } },
        })
      ).addCartCustomItem.cart;
    await addItem('Mug', 'MUG-1', 2, 1500);
    await addItem('Poster', 'POS-1', 1, 2500);
    const withThree = await addItem('Sticker', 'STI-1', 5, 100);
    expect(withThree.items.map((i: Json) => i.name)).toEqual(['Mug', 'Poster', 'Sticker']);
    expect(withThree.totals.withTax.amount).toBe(3000 + 2500 + 500);
    const [mug, poster, sticker] = withThree.items;

    // Remove one item, change another's quantity.
    const removed = (
      await shopper(
        ada.token,
        `mutation($input: RemoveCartItemInput!) { removeCartItem(input: $input) { cart { ${CART_FIELDS} } } }`,
        { input: { cartId, cartItemId: sticker.id } },
      )
    ).removeCartItem.cart;
    expect(removed.items.map((i: Json) => i.name)).toEqual(['Mug', 'Poster']);
    const updated = (
      await shopper(
        ada.token,
        `mutation($input: UpdateCartItemInput!) { updateCartItem(input: $input) { cart { ${CART_FIELDS} } } }`,
        { input: { cartId, cartItemId: poster.id, quantity: 2 } },
      )
    ).updateCartItem.cart;
    expect(updated.totals.withTax.amount).toBe(3000 + 5000);

    // An item discount and a cart discount; each payload carries the cart with its totals.
    const itemDiscount = (
      await shopper(
        ada.token,
        `mutation($input: AddCartItemCustomDiscountInput!) {
          addCartItemCustomDiscount(input: $input) {
            customDiscount { id amount { amount currency formatted } discountCode }
            cart { ${CART_FIELDS} } } }`,
        { input: { cartId, cartItemId: mug.id, amount: -500, ...discount(1) } },
      )
    ).addCartItemCustomDiscount;
    expect(itemDiscount.customDiscount.amount).toEqual({
      amount: -500,
      currency: 'EUR',
      formatted: '-€5.00',
    });
    expect(itemDiscount.cart.totals.withTax.amount).toBe(7500);
    const cartDiscount = (
      await shopper(
        ada.token,
        `mutation($input: AddCartCustomDiscountInput!) {
          addCartCustomDiscount(input: $input) { customDiscount { id } cart { ${CART_FIELDS} } } }`,
        { input: { cartId, amount: -300, ...discount(2) } },
      )
    ).addCartCustomDiscount;
    expect(cartDiscount.cart.totals.withTax.amount).toBe(7200);
    expect(cartDiscount.cart.customDiscounts).toHaveLength(1);

    // Update the cart discount, delete the item discount.
    const changed = (
      await shopper(
        ada.token,
        `mutation($input: UpdateCartCustomDiscountInput!) {
          updateCartCustomDiscount(input: $input) {
            customDiscount { id amount { amount } description } cart { ${CART_FIELDS} } } }`,
        {
          input: {
            cartId,
            customDiscountId: cartDiscount.customDiscount.id,
            amount: -400,
            ...discount(3),
          },
        },
      )
    ).updateCartCustomDiscount;
    expect(changed.customDiscount).toMatchObject({
      amount: { amount: -400 },
      description: 'Discount 3',
    });
    expect(changed.cart.totals.withTax.amount).toBe(7100);
    const deleted = (
      await shopper(
        ada.token,
        `mutation($input: DeleteCartItemCustomDiscountInput!) {
          deleteCartItemCustomDiscount(input: $input) { deletedId cart { ${CART_FIELDS} } } }`,
        { input: { cartId, cartItemId: mug.id, customDiscountId: itemDiscount.customDiscount.id } },
      )
    ).deleteCartItemCustomDiscount;
    expect(deleted.deletedId).toBe(itemDiscount.customDiscount.id);

    // Read the totals back.
    const read = (
      await shopper(ada.token, `query($id: ID!) { cart(id: $id) { ${CART_FIELDS} } }`, {
        id: cartId,
      })
    ).cart;
    expect(read.totals).toEqual({
      withTax: { amount: 7600, currency: 'EUR', formatted: '€76.00' },
      discount: { amount: -400 },
      withoutDiscount: { amount: 8000 },
    });
    expect(read.items.map((i: Json) => [i.name, i.quantity, i.customDiscounts.length])).toEqual([
      ['Mug', 2, 0],
      ['Poster', 2, 0],
    ]);
    expect(read.customDiscounts).toEqual([
      {
        id: cartDiscount.customDiscount.id,
        amount: { amount: -400, currency: 'EUR', formatted: '-€4.00' },
        description: 'Discount 3',
      },
    ]);
    // Grace cannot see Ada's cart.
    expect(
      (
        await shopper(grace.token, 'query($id: ID!) { cart(id: $id) { upstreamId } }', {
          id: cartId,
        })
      ).cart,
    ).toBeNull();

    // Check out as the customer.
    const order = (
      await shopper(
        ada.token,
        `mutation($input: CheckoutCartInput!) {
          checkoutCart(input: $input) { order {
            upstreamId status customerId customerName customerEmail
            totals { withTax { amount formatted } discount { amount } withoutDiscount { amount } }
            items { name quantity totals { withTax { amount } } } } } }`,
        {
          input: {
            cartId,
            customerId: ada.customer.upstreamId,
            billingAddress: {
              firstName: 'Ada',
              lastName: 'Lovelace',
              line1: '12 St James’s Square',
              region: 'London',
              postcode: 'SW1Y 4JH',
              country: 'GB',
            },
          },
        },
      )
    ).checkoutCart.order;
    expect(order).toMatchObject({
      status: 'incomplete',
      customerId: ada.customer.upstreamId,
      customerName: 'Ada Lovelace',
      customerEmail: 'ada@example.com',
      totals: {
        withTax: { amount: 7600, formatted: '€76.00' },
        discount: { amount: -400 },
        withoutDiscount: { amount: 8000 },
      },
    });
    // Order items come in the API's order (by id): compare as a set.
    expect(order.items.map((i: Json) => [i.name, i.quantity]).sort()).toEqual([
      ['Mug', 2],
      ['Poster', 2],
    ]);

    // The order is Ada's: under her viewer, not under Grace's.
    const adaView = (await shopper(ada.token, VIEWER)).viewer;
    expect(adaView.customer.email).toBe('ada@example.com');
    expect(adaView.orders.totalCount).toBe(1);
    expect(adaView.orders.nodes).toEqual([
      {
        upstreamId: order.upstreamId,
        customerId: ada.customer.upstreamId,
        customerEmail: 'ada@example.com',
        total: { amount: 7600 },
      },
    ]);
    expect(adaView.carts.nodes).toEqual([{ upstreamId: cartId, name: 'Ada’s cart' }]);
    const graceView = (await shopper(grace.token, VIEWER)).viewer;
    expect(graceView.customer.email).toBe('grace@example.com');
    expect(graceView.orders).toEqual({ totalCount: 0, nodes: [] });
    expect(graceView.carts).toEqual({ totalCount: 0, nodes: [] });
    expect(
      (
        await shopper(grace.token, 'query($id: ID!) { order(id: $id) { upstreamId } }', {
          id: order.upstreamId,
        })
      ).order,
    ).toBeNull();

    // Done with the cart: delete it (the order stays).
    const gone = await shopper(
      ada.token,
      'mutation($input: DeleteCartInput!) { deleteCart(input: $input) { deletedId } }',
      { input: { cartId } },
    );
    expect(gone.deleteCart.deletedId).toBe(cartId);
    expect((await shopper(ada.token, VIEWER)).viewer.orders.totalCount).toBe(1);
  });

  it('refuses a wrong password as INVALID_CREDENTIALS, without echoing it', async () => {
    const { body } = await stack.graphql(
      SIGN_IN,
      { input: { email: 'ada@example.com', password: 'not-adas-password' } },
      { token: implicit },
    );
    expect(body.data).toBeNull();
    expect(body.errors[0].extensions.code).toBe('INVALID_CREDENTIALS');
    expect(JSON.stringify(body)).not.toContain('not-adas-password');
  });

  it('lists customers for the store, and only the customer under a customer token', async () => {
    const all = await stack.graphql('{ customers(first: 10) { totalCount nodes { email } } }');
    expect(all.body.data.customers.totalCount).toBe(2);
    const ada = (
      await shopper(null, SIGN_IN, {
        input: { email: 'ada@example.com', password: 'ada-password' },
      })
    ).createCustomerToken;
    const scoped = await shopper(
      ada.token,
      `query($id: ID!) { customers(first: 10) { totalCount nodes { email } } customer(id: $id) { name } }`,
      { id: ada.customer.upstreamId },
    );
    expect(scoped.customers).toEqual({ totalCount: 1, nodes: [{ email: 'ada@example.com' }] });
    expect(scoped.customer).toEqual({ name: 'Ada Lovelace' });
  });
});
