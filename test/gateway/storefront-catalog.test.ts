/**
 * The storefront through the gateway only, as a shopper with the implicit token sees the demo
 * store's published catalog: a listing page with EUR prices and stock, a product page by slug
 * with breadcrumbs and children, the `mobile` channel's catalog chosen by `EP-Channel`, the
 * release form, products added to a cart by SKU with the coded refusals, and the upstream calls a
 * listing page costs whatever its size.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';
import { type Json, userError } from './fixtures.ts';

let stack: Stack;
let guest: string;
beforeAll(async () => {
  stack = await startStack({ seed: true });
  guest = await stack.implicitToken();
});
afterAll(() => stack?.close());

async function ok(
  query: string,
  variables?: Record<string, unknown>,
  headers?: Record<string, string>,
): Promise<Json> {
  const result = await stack.graphql(query, variables, { token: guest, headers });
  expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
  return result.body.data;
}

const LISTING = `query($first: Int!) { catalog { products(first: $first) { totalCount
  pageInfo { hasNextPage endCursor }
  edges { node { id upstreamId name sku slug productType
    price(currency: "EUR") { amount { amount currency formatted } withTax { amount } withoutTax { amount } original { amount } }
    stock { available total }
    mainImage { fileName }
    breadcrumbs { upstreamId name }
  } } } } }`;

describe('a shopper browses the storefront catalog', () => {
  it('lists a page of products with EUR prices, stock and breadcrumbs', async () => {
    const data = await ok(LISTING, { first: 25 });
    const page = data.catalog.products;
    expect(page.totalCount).toBeGreaterThanOrEqual(2000);
    expect(page.edges).toHaveLength(25);
    const first = page.edges[0].node;
    expect(first.price.amount.currency).toBe('EUR');
    expect(first.price.amount.formatted).toMatch(/^€[\d,]+\.\d\d$/);
    const stocked = page.edges.map((e: Json) => e.node).filter((n: Json) => n.stock !== null);
    expect(stocked.length).toBeGreaterThan(0);
    expect(stocked[0].stock.total).toBeGreaterThanOrEqual(stocked[0].stock.available);
    expect(first.breadcrumbs.length).toBeGreaterThan(0);
    expect(first.breadcrumbs.every((n: Json) => typeof n.name === 'string')).toBe(true);
  });

  it('costs the same few upstream calls for 10 and for 100 products', async () => {
    const counts: number[] = [];
    for (const first of [10, 100]) {
      const before = stack.upstreamRequests.length;
      await ok(LISTING, { first });
      const calls = stack.upstreamRequests.slice(before).filter((r) => !r.url.startsWith('/oauth'));
      counts.push(calls.length);
    }
    expect(counts[0]).toBeLessThanOrEqual(4);
    expect(counts[1]).toBeLessThanOrEqual(4);
  });

  it('opens a product by slug, by SKU and by id; a parent shows its children', async () => {
    const list = await ok(
      `{ catalog { products(first: 100) { edges { node { upstreamId slug sku productType } } } } }`,
    );
    const nodes = list.catalog.products.edges.map((e: Json) => e.node);
    const one = nodes.find((n: Json) => n.productType === 'standard');
    const bySlug = await ok(
      `query($s: String!) { catalog { product(slug: $s) { upstreamId sku breadcrumbs { name } } } }`,
      { s: one.slug },
    );
    expect(bySlug.catalog.product.upstreamId).toBe(one.upstreamId);
    const bySku = await ok(`query($s: String!) { catalog { product(sku: $s) { upstreamId } } }`, {
      s: one.sku,
    });
    expect(bySku.catalog.product.upstreamId).toBe(one.upstreamId);
    const byId = await ok(`query($s: ID!) { catalog { product(id: $s) { slug } } }`, {
      s: one.upstreamId,
    });
    expect(byId.catalog.product.slug).toBe(one.slug);
    const none = await ok(`{ catalog { product(slug: "no-such-product") { upstreamId } } }`);
    expect(none.catalog.product).toBeNull();

    const parents = await ok(`{ catalog { product(sku: "TEE-001") { upstreamId productType } } }`);
    const parent = parents.catalog.product;
    expect(parent.productType).toBe('parent');
    const family = await ok(
      `query($id: ID!) { catalog { product(id: $id) { children(first: 10) { totalCount edges { node { productType parent { upstreamId } } } } } } }`,
      { id: parent.upstreamId },
    );
    const children = family.catalog.product.children;
    expect(children.totalCount).toBeGreaterThan(0);
    expect(children.edges[0].node).toEqual({
      productType: 'child',
      parent: { upstreamId: parent.upstreamId },
    });
  });

  it('walks hierarchies → nodes → children → products', async () => {
    const data = await ok(`{ catalog { hierarchies(first: 5) { totalCount edges { node { name
      children(first: 5) { edges { node { name children(first: 5) { totalCount }
      products(first: 3) { totalCount nodes { name } } } } } } } } } }`);
    const hierarchies = data.catalog.hierarchies;
    expect(hierarchies.totalCount).toBeGreaterThanOrEqual(2);
    const top = hierarchies.edges[0].node.children.edges;
    expect(top.length).toBeGreaterThan(0);
  });

  it('the mobile channel sees another catalog (its own prices)', async () => {
    const query = `{ catalog { products(first: 1) { edges { node { sku catalogId price(currency: "USD") { amount { amount } } } } } } }`;
    const web = await ok(query);
    const mobile = await ok(query, undefined, { 'EP-Channel': 'mobile' });
    expect(mobile.catalog.products.edges[0].node.catalogId).not.toBe(
      web.catalog.products.edges[0].node.catalogId,
    );
  });

  it('refuses bad arguments before any upstream call', async () => {
    for (const [query, code] of [
      ['{ catalog { product(slug: "a", sku: "b") { upstreamId } } }', 'BAD_USER_INPUT'],
      ['{ catalog { product(id: "not-a-uuid") { upstreamId } } }', 'BAD_USER_INPUT'],
      [
        '{ catalog { products(first: 1) { edges { node { price(currency: "EURO") { currency } } } } } }',
        'BAD_USER_INPUT',
      ],
      [
        '{ catalogReleaseView(catalogId: "x", releaseId: "latest") { products(first: 1) { totalCount } } }',
        'BAD_USER_INPUT',
      ],
    ] as const) {
      const result = await stack.graphql(query, undefined, { token: guest });
      expect(result.body.errors?.[0]?.extensions?.code, query).toBe(code);
    }
  });
});

describe('catalog products in a cart', () => {
  it('adds a product by SKU and by id at its EUR price; short stock and a missing price are coded', async () => {
    const created = await ok(
      `mutation { createCart(input: { name: "Shop", currency: "EUR" }) { cart { upstreamId } } }`,
    );
    const cartId = created.createCart.cart.upstreamId;
    const list =
      await ok(`{ catalog { products(first: 50) { edges { node { upstreamId sku productType
      price(currency: "EUR") { amount { amount } } stock { available } } } } } }`);
    const products = list.catalog.products.edges
      .map((e: Json) => e.node)
      .filter((n: Json) => n.sku && n.price && n.stock && n.stock.available >= 3);
    const [a, b] = products;
    const add = `mutation($i: AddCartProductItemInput!) { addCartProductItem(input: $i) {
      cart { items { sku quantity } totals { withTax { amount currency } } }
      userErrors { code field message } } }`;
    const one = await ok(add, { i: { cartId, sku: a.sku, quantity: 2 } });
    expect(one.addCartProductItem.cart.items).toEqual([{ sku: a.sku, quantity: 2 }]);
    expect(one.addCartProductItem.cart.totals.withTax).toEqual({
      amount: 2 * a.price.amount.amount,
      currency: 'EUR',
    });
    const two = await ok(add, { i: { cartId, productId: b.upstreamId, quantity: 1 } });
    expect(two.addCartProductItem.cart.totals.withTax.amount).toBe(
      2 * a.price.amount.amount + b.price.amount.amount,
    );

    const short = await stack.graphql(
      add,
      { i: { cartId, sku: a.sku, quantity: a.stock.available + 1000 } },
      { token: guest },
    );
    // A form can put it beside its field: the quantity.
    expect(userError(short.body, 'addCartProductItem')).toMatchObject({
      code: 'OUT_OF_STOCK',
      field: 'input.quantity',
    });

    const yen = await ok(
      `mutation { createCart(input: { name: "Yen", currency: "JPY" }) { cart { upstreamId } } }`,
    );
    const noPrice = await stack.graphql(
      add,
      { i: { cartId: yen.createCart.cart.upstreamId, sku: a.sku, quantity: 1 } },
      { token: guest },
    );
    expect(userError(noPrice.body, 'addCartProductItem')).toMatchObject({
      code: 'PRICE_NOT_FOUND',
      field: 'input.sku',
    });

    const before = stack.upstreamRequests.length;
    const both = await stack.graphql(
      add,
      { i: { cartId, sku: a.sku, productId: a.upstreamId, quantity: 1 } },
      { token: guest },
    );
    expect(userError(both.body, 'addCartProductItem')?.code).toBe('BAD_USER_INPUT');
    const zero = await stack.graphql(
      add,
      { i: { cartId, sku: a.sku, quantity: 0 } },
      { token: guest },
    );
    expect(userError(zero.body, 'addCartProductItem')?.code).toBe('BAD_USER_INPUT');
    expect(stack.upstreamRequests.length).toBe(before);
  });
});
