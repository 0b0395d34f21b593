/**
 * Carts as a storefront fills them, through the gateway only with the implicit token (issue 31,
 * items 3 and 6): several lines in one `addCartItems`, all or nothing (nothing added, the
 * refusal at its line's path) or partly (the other lines added, each refusal at its line); a
 * bundle with its chosen options kept on the cart item and the order item; each item's catalog
 * product with its image, one upstream call for the whole cart; the cart's currency and codes;
 * and at sign-in a guest's cart merged into the shopper's (`mergeCart`) or made theirs
 * (`associateCart`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';
import type { Json } from './fixtures.ts';

let stack: Stack;
let implicit: string;
let kit: Json;
let giftBox: string;
/** Tee 1's children (the kit's `tee` options) and the kit's extras. */
let tees: string[];
let extras: string[];
const ACCOUNT_HEADER = 'ep-account-management-authentication-token';
const CUSTOMER_HEADER = 'x-moltin-customer-token';

async function call(
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Json> {
  const { body } = await stack.graphql(query, variables, { token: implicit, headers });
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

beforeAll(async () => {
  stack = await startStack({ seed: true });
  implicit = await stack.implicitToken();
  const data = await call(`{ catalog {
    kit: product(slug: "tee-starter-kit") { upstreamId components { key options { productId } } }
    gift: product(sku: "BUNDLE-GIFT") { upstreamId } } }`);
  kit = data.catalog.kit;
  giftBox = data.catalog.gift.upstreamId;
  const options = (key: string): string[] =>
    kit.components.find((c: Json) => c.key === key).options.map((o: Json) => o.productId as string);
  tees = options('tee');
  extras = options('extras');
});
afterAll(() => stack?.close());

async function newCart(headers: Record<string, string> = {}): Promise<string> {
  const data = await call(
    'mutation { createCart(input: { name: "Lines" }) { cart { upstreamId } } }',
    {},
    headers,
  );
  return data.createCart.cart.upstreamId;
}

const ADD = `mutation($input: AddCartItemsInput!) { addCartItems(input: $input) {
  cart { upstreamId currency items { type sku quantity productId
    bundleConfiguration { selectedOptions { componentKey productId quantity } } } }
  userErrors { code field message } } }`;

const ITEMS = `query($id: ID!) { cart(id: $id) { items { sku quantity } } }`;

describe('addCartItems', () => {
  it('adds a product by id, one by SKU and a custom line in one call', async () => {
    const cartId = await newCart();
    const before = stack.upstreamRequests.length;
    const data = await call(ADD, {
      input: {
        cartId,
        lines: [
          { productId: tees[1], quantity: 2 },
          { sku: 'SKU-00002', quantity: 1 },
          { custom: { name: 'Gift wrap', sku: 'WRAP', price: { amount: 300 } }, quantity: 1 },
        ],
      },
    });
    expect(data.addCartItems.userErrors).toEqual([]);
    expect(data.addCartItems.cart.currency).toBe('USD');
    const items = data.addCartItems.cart.items;
    expect(items.map((i: Json) => [i.type, i.quantity])).toEqual([
      ['cart_item', 2],
      ['cart_item', 1],
      ['custom_item', 1],
    ]);
    expect(items[0].productId).toBe(tees[1]);
    expect(items[2].productId).toBeNull();
    // One write (the bulk add) and the cart read after it: never a call per line.
    const posts = stack.upstreamRequests.slice(before).filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(1);
  });

  it('all or nothing (the default): one refused line adds none, the refusal at its path', async () => {
    const cartId = await newCart();
    const data = await call(ADD, {
      input: {
        cartId,
        lines: [
          { productId: tees[0], quantity: 1 },
          { sku: 'NO-SUCH-SKU', quantity: 1 },
        ],
      },
    });
    expect(data.addCartItems.cart).toBeNull();
    expect(data.addCartItems.userErrors).toHaveLength(1);
    expect(data.addCartItems.userErrors[0].field.slice(0, 3)).toEqual(['input', 'lines', '1']);
    expect((await call(ITEMS, { id: cartId })).cart.items).toEqual([]);
  });

  it('without all-or-nothing: the other lines are added, each refusal a userError at its line', async () => {
    const cartId = await newCart();
    const data = await call(ADD, {
      input: {
        cartId,
        allOrNothing: false,
        lines: [
          { sku: 'NO-SUCH-SKU', quantity: 1 },
          { sku: 'SKU-00003', quantity: 2 },
          {
            productId: kit.upstreamId,
            quantity: 1,
            bundleConfiguration: {
              selectedOptions: [{ componentKey: 'nope', productId: tees[0], quantity: 1 }],
            },
          },
          { sku: 'SKU-00002', quantity: 999_999 },
        ],
      },
    });
    expect(data.addCartItems.cart.items.map((i: Json) => [i.sku, i.quantity])).toEqual([
      ['SKU-00003', 2],
    ]);
    const errors = data.addCartItems.userErrors;
    expect(errors.map((e: Json) => e.field.slice(0, 3))).toEqual([
      ['input', 'lines', '0'],
      ['input', 'lines', '2'],
      ['input', 'lines', '3'],
    ]);
    expect(errors[0].code).toBe('NOT_FOUND');
    expect(errors[2]).toMatchObject({
      code: 'OUT_OF_STOCK',
      field: ['input', 'lines', '3', 'quantity'],
    });
    expect(errors[1]).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: ['input', 'lines', '2', 'bundleConfiguration'],
    });
  });

  it('judges every line before any call', async () => {
    const before = stack.upstreamRequests.length;
    const bad = async (line: Json, path: string[]) => {
      const data = await call(ADD, { input: { cartId: 'any-cart', lines: [line] } });
      expect(data.addCartItems.userErrors).toMatchObject([{ code: 'BAD_USER_INPUT', field: path }]);
    };
    await bad({ quantity: 1 }, ['input', 'lines', '0', 'productId']);
    await bad({ sku: 'A', productId: tees[0], quantity: 1 }, ['input', 'lines', '0', 'productId']);
    await bad({ sku: 'SKU-00001', quantity: 0 }, ['input', 'lines', '0', 'quantity']);
    await bad({ productId: 'not an id', quantity: 1 }, ['input', 'lines', '0', 'productId']);
    await bad(
      {
        productId: kit.upstreamId,
        quantity: 1,
        bundleConfiguration: {
          selectedOptions: [{ componentKey: 'tee', productId: tees[0], quantity: 0 }],
        },
      },
      ['input', 'lines', '0', 'bundleConfiguration', 'selectedOptions', '0', 'quantity'],
    );
    const none = await call(ADD, { input: { cartId: 'any-cart', lines: [] } });
    expect(none.addCartItems.userErrors).toMatchObject([{ field: ['input', 'lines'] }]);
    expect(stack.upstreamRequests.length).toBe(before);
  });
});

describe('a bundle with its chosen options', () => {
  it('is kept on the cart item and on the order item', async () => {
    const cartId = await newCart();
    const chosen = [
      { componentKey: 'tee', productId: tees[2], quantity: 1 },
      { componentKey: 'extras', productId: extras[1], quantity: 2 },
    ];
    const data = await call(ADD, {
      input: {
        cartId,
        lines: [
          {
            productId: kit.upstreamId,
            quantity: 1,
            bundleConfiguration: { selectedOptions: chosen },
          },
          { productId: giftBox, quantity: 1 },
        ],
      },
    });
    expect(data.addCartItems.userErrors).toEqual([]);
    const [bundle, gift] = data.addCartItems.cart.items;
    expect(bundle.bundleConfiguration.selectedOptions).toEqual(chosen);
    // Without a choice the bundle's own defaults are kept.
    expect(gift.bundleConfiguration.selectedOptions.length).toBeGreaterThan(0);

    const order = await call(
      `mutation($input: CheckoutCartInput!) { checkoutCart(input: $input) {
        order { items { productId
          bundleConfiguration { selectedOptions { componentKey productId quantity } } } }
        userErrors { code field message } } }`,
      {
        input: {
          cartId,
          customer: { email: 'kit@example.com', name: 'Kit Buyer' },
          billingAddress: {
            firstName: 'Kit',
            lastName: 'Buyer',
            line1: '1 Main St',
            region: 'CA',
            postcode: '94000',
            country: 'US',
          },
        },
      },
    );
    expect(order.checkoutCart.userErrors).toEqual([]);
    const ordered = order.checkoutCart.order.items.find(
      (i: Json) => i.productId === kit.upstreamId,
    );
    expect(ordered.bundleConfiguration.selectedOptions).toEqual(chosen);
  });
});

describe('addCartProductItem with a bundle’s options', () => {
  it('keeps them, and answers refused options at input.bundleConfiguration', async () => {
    const cartId = await newCart();
    const ADD_ONE = `mutation($input: AddCartProductItemInput!) { addCartProductItem(input: $input) {
      cart { items { bundleConfiguration { selectedOptions { componentKey productId quantity } } } }
      userErrors { code field message } } }`;
    const chosen = [
      { componentKey: 'tee', productId: tees[3], quantity: 1 },
      { componentKey: 'extras', productId: extras[2], quantity: 3 },
    ];
    const done = await call(ADD_ONE, {
      input: {
        cartId,
        productId: kit.upstreamId,
        quantity: 1,
        bundleConfiguration: { selectedOptions: chosen },
      },
    });
    expect(done.addCartProductItem.userErrors).toEqual([]);
    expect(done.addCartProductItem.cart.items[0].bundleConfiguration.selectedOptions).toEqual(
      chosen,
    );
    const refused = await call(ADD_ONE, {
      input: {
        cartId,
        productId: kit.upstreamId,
        quantity: 1,
        bundleConfiguration: {
          selectedOptions: [{ componentKey: 'tee', productId: extras[0], quantity: 1 }],
        },
      },
    });
    expect(refused.addCartProductItem.userErrors).toMatchObject([
      { code: 'BAD_USER_INPUT', field: ['input', 'bundleConfiguration'] },
    ]);
  });
});

describe('each item’s product', () => {
  it('comes with its image, one upstream call for the whole cart', async () => {
    const cartId = await newCart();
    await call(ADD, {
      input: {
        cartId,
        lines: [
          { productId: tees[0], quantity: 1 },
          { sku: 'SKU-00001', quantity: 1 },
          { sku: 'SKU-00002', quantity: 1 },
          { sku: 'SKU-00003', quantity: 1 },
          { custom: { name: 'Note', sku: 'NOTE', price: { amount: 0 } }, quantity: 1 },
        ],
      },
    });
    const before = stack.upstreamRequests.length;
    const data = await call(
      `query($id: ID!) { cart(id: $id) { currency promotionCodes
        items { sku product { upstreamId sku name mainImage { url } } } } }`,
      { id: cartId },
    );
    const calls = stack.upstreamRequests.slice(before);
    expect(calls.filter((r) => r.url.includes('/catalog/products'))).toHaveLength(1);
    // The cart, its items, the products: three calls for five lines.
    expect(calls).toHaveLength(3);
    const items = data.cart.items;
    expect(items.map((i: Json) => i.product?.sku ?? null)).toEqual([
      items[0].sku,
      'SKU-00001',
      'SKU-00002',
      'SKU-00003',
      null,
    ]);
    expect(data.cart.currency).toBe('USD');
    expect(data.cart.promotionCodes).toEqual([]);
    // The demo's items carry a public image a browser loads without a token.
    const url = items[1].product.mainImage.url as string;
    expect(url).toMatch(/sku-00001\.png$/);
    expect((await fetch(url)).status).toBe(200);
  });
});

describe('at sign-in', () => {
  it('merges a guest’s cart into the member’s, leaving the guest cart as it was', async () => {
    const signIn = await call(
      `mutation { createAccountMemberToken(input: { passwordProfileId: "${await profileId()}",
        username: "ada@example.com", password: "ada-password" }) { tokens { accountName token } } }`,
    );
    const token = signIn.createAccountMemberToken.tokens.find(
      (t: Json) => t.accountName === 'Acme Corp',
    ).token;
    const member = { [ACCOUNT_HEADER]: token };
    const guestCart = await newCart();
    await call(ADD, {
      input: {
        cartId: guestCart,
        lines: [
          { sku: 'SKU-00001', quantity: 2 },
          { sku: 'SKU-00002', quantity: 1 },
        ],
      },
    });
    const memberCart = await newCart(member);
    await call(
      ADD,
      { input: { cartId: memberCart, lines: [{ sku: 'SKU-00001', quantity: 1 }] } },
      member,
    );

    const merged = await call(
      `mutation($input: MergeCartInput!) { mergeCart(input: $input) {
        cart { upstreamId items { sku quantity } } userErrors { code field message } } }`,
      { input: { cartId: memberCart, fromCartId: guestCart } },
      member,
    );
    expect(merged.mergeCart.userErrors).toEqual([]);
    expect(merged.mergeCart.cart.items.map((i: Json) => [i.sku, i.quantity]).sort()).toEqual([
      ['SKU-00001', 3],
      ['SKU-00002', 1],
    ]);
    expect((await call(ITEMS, { id: guestCart })).cart.items).toHaveLength(2);

    const same = await call(
      `mutation($input: MergeCartInput!) { mergeCart(input: $input) { userErrors { code field } } }`,
      { input: { cartId: memberCart, fromCartId: memberCart } },
      member,
    );
    expect(same.mergeCart.userErrors).toMatchObject([
      { code: 'BAD_USER_INPUT', field: ['input', 'fromCartId'] },
    ]);
  });

  it('merges what it can: a custom line of another currency is a userError at fromCartId', async () => {
    const euros = (
      await call(
        'mutation { createCart(input: { name: "EUR", currency: "EUR" }) { cart { upstreamId } } }',
      )
    ).createCart.cart.upstreamId;
    await call(ADD, {
      input: {
        cartId: euros,
        lines: [
          { custom: { name: 'Euro wrap', sku: 'EWRAP', price: { amount: 100 } }, quantity: 1 },
          { sku: 'SKU-00001', quantity: 1 },
        ],
      },
    });
    const dollars = await newCart();
    const merged = await call(
      `mutation($input: MergeCartInput!) { mergeCart(input: $input) {
        cart { currency items { sku quantity } } userErrors { code field message } } }`,
      { input: { cartId: dollars, fromCartId: euros } },
    );
    expect(merged.mergeCart.cart.currency).toBe('USD');
    expect(merged.mergeCart.cart.items.map((i: Json) => i.sku)).toEqual(['SKU-00001']);
    expect(merged.mergeCart.userErrors).toMatchObject([
      { code: 'BAD_USER_INPUT', field: ['input', 'fromCartId'] },
    ]);
  });

  it('makes a guest’s cart the signed-in customer’s', async () => {
    const signIn = await call(
      `mutation { createCustomerToken(input: { email: "ada@example.com", password: "ada-demo-password" }) {
        token customer { upstreamId } } }`,
    );
    const customer = signIn.createCustomerToken;
    const shopper = { [CUSTOMER_HEADER]: customer.token };
    const guestCart = await newCart();
    const ASSOCIATE = `mutation($input: AssociateCartInput!) { associateCart(input: $input) {
      cart { upstreamId } userErrors { code field message } } }`;

    const done = await call(
      ASSOCIATE,
      { input: { cartId: guestCart, customerId: customer.customer.upstreamId } },
      shopper,
    );
    expect(done.associateCart).toEqual({ cart: { upstreamId: guestCart }, userErrors: [] });
    const carts = await call(
      '{ viewer { carts(first: 50) { nodes { upstreamId } } } }',
      {},
      shopper,
    );
    expect(carts.viewer.carts.nodes.map((c: Json) => c.upstreamId)).toContain(guestCart);
    // Again: already theirs, done.
    const again = await call(
      ASSOCIATE,
      { input: { cartId: guestCart, customerId: customer.customer.upstreamId } },
      shopper,
    );
    expect(again.associateCart.userErrors).toEqual([]);

    const before = stack.upstreamRequests.length;
    const neither = await call(ASSOCIATE, { input: { cartId: guestCart } }, shopper);
    expect(neither.associateCart.userErrors).toMatchObject([
      { code: 'BAD_USER_INPUT', field: ['input', 'customerId'] },
    ]);
    expect(stack.upstreamRequests.length).toBe(before);
  });
});

let profile: string | undefined;
async function profileId(): Promise<string> {
  if (profile !== undefined) return profile;
  const { body } = await stack.graphql(
    '{ accountAuthentication { passwordProfiles { upstreamId } } }',
    {},
    { token: await stack.token() },
  );
  profile = body.data.accountAuthentication.passwordProfiles[0].upstreamId as string;
  return profile;
}
