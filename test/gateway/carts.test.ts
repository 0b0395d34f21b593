import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';
import { createCartWithDiscount, type Json, userError } from './fixtures.ts';

let stack: Stack;
let cart: { cartId: string; itemId: string; discountId: string };

beforeAll(async () => {
  stack = await startStack();
  cart = await createCartWithDiscount(stack);
});
afterAll(() => stack?.close());
beforeEach(() => {
  stack.upstreamRequests.length = 0;
});

/** The codes a mutation answered: its userErrors' and any top-level errors'. */
const codes = (body: Json): string[] => [
  ...Object.values(body.data ?? {}).flatMap((payload: Json) =>
    (payload?.userErrors ?? []).map((e: Json) => e.code),
  ),
  ...(body.errors ?? []).map((e: Json) => e.extensions?.code),
];

const CART = `query($id: ID!) {
  cart(id: $id) {
    id upstreamId name customDiscountsEnabled
    totals { withTax { amount currency formatted } discount { amount } withoutDiscount { amount } }
    items {
      id name sku quantity
      unitPrice { withoutDiscount { amount } }
      totals { withTax { amount formatted } discount { amount } }
      customDiscounts { id type amount { amount currency formatted } description discountCode
        discountEngine externalId }
    }
    customDiscounts { id }
  }
}`;

const UPDATE = `mutation($input: UpdateCartItemCustomDiscountInput!) {
  updateCartItemCustomDiscount(input: $input) {
    customDiscount { id type amount { amount currency formatted } description discountCode
      discountEngine externalId }
    userErrors { code field message }
  }
}`;

function input(overrides: Record<string, unknown> = {}) {
  return {
    cartId: cart.cartId,
    cartItemId: cart.itemId,
    customDiscountId: cart.discountId,
    amount: -750,
    description: 'Spring sale',
    discountCode: 'SPRING',
    discountEngine: 'engine-b',
    externalId: 'ext-2',
    ...overrides,
  };
}

describe('cart', () => {
  it('reads a cart with its items, their custom discounts and totals', async () => {
    const { body } = await stack.graphql(CART, { id: cart.cartId });
    expect(body.errors).toBeUndefined();
    const c = body.data.cart;
    expect(c.upstreamId).toBe(cart.cartId);
    expect(c.customDiscountsEnabled).toBe(true);
    expect(c.totals.withoutDiscount.amount).toBe(3000);
    expect(c.totals.discount.amount).toBe(-500);
    expect(c.totals.withTax).toEqual({ amount: 2500, currency: 'USD', formatted: '$25.00' });
    expect(c.items).toHaveLength(1);
    const [item] = c.items;
    expect(item).toMatchObject({ id: cart.itemId, name: 'Mug', sku: 'MUG-1', quantity: 2 });
    expect(item.unitPrice.withoutDiscount.amount).toBe(1500);
    expect(item.totals.withTax).toEqual({ amount: 2500, formatted: '$25.00' });
    expect(item.customDiscounts).toEqual([
      {
        id: cart.discountId,
        type: 'custom_discount',
        amount: { amount: -500, currency: 'USD', formatted: '-$5.00' },
        description: 'Loyalty',
        discountCode: 'LOYAL5',
        discountEngine: 'engine-a',
        externalId: 'ext-1',
      },
    ]);
    expect(c.customDiscounts).toEqual([]);
    // The cart and its items: two GETs.
    expect(stack.upstreamRequests.map((r) => r.method)).toEqual(['GET', 'GET']);
  });

  it('makes identical upstream GETs of one operation once', async () => {
    const { body } = await stack.graphql(
      `query($id: ID!) { a: cart(id: $id) { name } b: cart(id: $id) { totals { withTax { amount } } } }`,
      { id: cart.cartId },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.a.name).toBe('Test cart');
    expect(stack.upstreamRequests).toHaveLength(1);
  });

  it('answers null for a cart that does not exist, and refetches by global id', async () => {
    const { body } = await stack.graphql(
      `query($missing: ID!, $id: ID!) {
        missing: cart(id: $missing) { id }
        found: cart(id: $id) { id }
      }`,
      { missing: '00000000-0000-4000-8000-000000000000', id: cart.cartId },
    );
    expect(body.data.missing).toBeNull();
    const node = await stack.graphql(
      `query($id: ID!) { node(id: $id) { __typename ... on Cart { upstreamId } } }`,
      { id: body.data.found.id },
    );
    expect(node.body.data.node).toEqual({ __typename: 'Cart', upstreamId: cart.cartId });
  });
});

describe('updateCartItemCustomDiscount', () => {
  it('replaces the discount and the change can be read back in the totals', async () => {
    const { body } = await stack.graphql(UPDATE, { input: input() });
    expect(body.errors).toBeUndefined();
    expect(body.data.updateCartItemCustomDiscount.customDiscount).toEqual({
      id: cart.discountId,
      type: 'custom_discount',
      amount: { amount: -750, currency: 'USD', formatted: '-$7.50' },
      description: 'Spring sale',
      discountCode: 'SPRING',
      discountEngine: 'engine-b',
      externalId: 'ext-2',
    });
    const put = stack.upstreamRequests.find((r) => r.method === 'PUT');
    expect(put?.url).toBe(
      `/v2/carts/${cart.cartId}/items/${cart.itemId}/custom-discounts/${cart.discountId}`,
    );
    const read = await stack.graphql(CART, { id: cart.cartId });
    expect(read.body.data.cart.totals.withTax.amount).toBe(2250);
  });

  it('judges amount, required strings and ids before any upstream call', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ amount: 0 }, 'input.amount'],
      [{ amount: 100 }, 'input.amount'],
      [{ description: '' }, 'input.description'],
      [{ discountCode: '   ' }, 'input.discountCode'],
      [{ discountEngine: '' }, 'input.discountEngine'],
      [{ externalId: 'x'.repeat(256) }, 'input.externalId'],
      [{ cartId: '../carts' }, 'input.cartId'],
      [{ cartItemId: 'not-a-uuid' }, 'input.cartItemId'],
      [{ customDiscountId: `${cart.discountId}#x` }, 'input.customDiscountId'],
    ];
    for (const [overrides, field] of cases) {
      const { body } = await stack.graphql(UPDATE, { input: input(overrides) });
      expect(codes(body), field).toEqual(['BAD_USER_INPUT']);
      expect(userError(body, 'updateCartItemCustomDiscount')?.field).toBe(field);
    }
    // A non-integer amount never reaches a resolver: GraphQL's Int refuses it.
    const fractional = await stack.graphql(UPDATE, { input: input({ amount: -1.5 }) });
    expect(fractional.body.errors).toHaveLength(1);
    expect(stack.upstreamRequests).toEqual([]);
  });

  it('maps NOT_FOUND (upstream 400 details: entries and stub suites)', async () => {
    const missing = await stack.graphql(UPDATE, {
      input: input({ customDiscountId: '00000000-0000-4000-8000-000000000000' }),
    });
    expect(codes(missing.body)).toEqual(['NOT_FOUND']);
  });

  it('lets a guest’s implicit token change a guest cart: that is shopping', async () => {
    const guest = await stack.graphql(
      UPDATE,
      { input: input() },
      { token: await stack.implicitToken() },
    );
    expect(guest.body.errors).toBeUndefined();
    expect(guest.body.data.updateCartItemCustomDiscount.customDiscount.id).toBe(cart.discountId);
  });
});
