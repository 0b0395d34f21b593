/**
 * A shopper's walk through the demo storefront, through the gateway only (issue 31's first
 * acceptance item), over real sockets, with the storefront's implicit token (and, once signed
 * up, the member's account token beside it). Each step asserts what the shopper sees:
 *
 *  1. Search "mug" with three facets (product type, tags, price) sorted by price.
 *  2. Refine by a facet value (the "coffee" tag): its count is what is left.
 *  3. Search "tee" for the variation products, open Tee 1, read its option picker and pick
 *     Size M, Colour Blue: the child it stands for.
 *  4. Open the Tee Starter Kit bundle and pick its options (the same tee, two of an extra).
 *  5. Add the picked child and the configured bundle in one `addCartItems`.
 *  6. Load the images the pages show over HTTP, as a browser does: no token.
 *  7. Sign up (the implicit token), then add a home address to the new account's book.
 *  8. Check the cart out with that address, by id, as the member.
 *  9. Read the order: its lines name the child and the bundle, with their products.
 *
 * No REST call is made to the service here (but the images' loads, which are the browser's).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';
import type { Json } from './fixtures.ts';

let stack: Stack;
let implicit: string;
/** The password profile the storefront signs shoppers up to (kept in its configuration). */
let profileId: string;
const ACCOUNT_HEADER = 'EP-Account-Management-Authentication-Token';
const PICKED = [
  { name: 'Size', value: 'M' },
  { name: 'Colour', value: 'Blue' },
];

beforeAll(async () => {
  stack = await startStack({ seed: true });
  implicit = await stack.implicitToken();
  const { body } = await stack.graphql(
    '{ accountAuthentication { passwordProfiles { upstreamId } } }',
    {},
    { token: await stack.token() },
  );
  profileId = body.data.accountAuthentication.passwordProfiles[0].upstreamId;
});
afterAll(() => stack?.close());

/** One GraphQL operation as the shopper: the implicit token (and the member's headers). */
async function shop(
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Json> {
  const { status, body } = await stack.graphql(query, variables, { token: implicit, headers });
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(status).toBe(200);
  return body.data;
}

const SEARCH = `query($query: String!, $filter: ProductSearchFilter) { catalog {
  search(query: $query, filter: $filter, sort: PRICE, first: 24,
    facets: [{ field: PRODUCT_TYPE }, { field: TAGS }, { field: PRICE }]) {
  totalCount facets { field values { value count } stats { min max } }
  nodes { upstreamId name slug productType price(currency: "USD") { amount { amount } }
    mainImage { url } } } } }`;

const counts = (search: Json, field: string): Record<string, number> =>
  Object.fromEntries(
    search.facets.find((f: Json) => f.field === field).values.map((v: Json) => [v.value, v.count]),
  );
const prices = (nodes: Json[]): number[] => nodes.map((n) => n.price.amount.amount);

/** What a browser does with an `<img src>`: a plain GET, no Authorization, no cookies. */
async function loadImage(url: string): Promise<void> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^image\/png/);
  const bytes = new Uint8Array(await response.arrayBuffer());
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
}

describe('a shopper walks the storefront, search to order', () => {
  let all: Json;
  let tee: Json;
  let child: Json;
  let kitId: string;
  let kitChoice: Json[];
  /** What the kit costs as picked (a tee and two of an extra), in cents. */
  let kitPrice: number;
  let cartId: string;
  let member: Record<string, string>;
  let accountId: string;
  let homeId: string;
  let orderId: string;

  it('1. searches "mug" with three facets, cheapest first', async () => {
    all = (await shop(SEARCH, { query: 'mug' })).catalog.search;
    // The demo store's twelve mugs, standard products all.
    expect(counts(all, 'PRODUCT_TYPE')).toEqual({ standard: 12 });
    expect(all.totalCount).toBe(12);
    expect(counts(all, 'TAGS').mug).toBe(12);
    expect(all.nodes).toHaveLength(12);
    for (const hit of all.nodes) expect(hit.name.toLowerCase()).toContain('mug');
    const page = prices(all.nodes);
    expect(page).toEqual([...page].sort((a, b) => a - b));
    // The price facet's range is over every hit: the cheapest is the first of the page.
    const priceFacet = all.facets.find((f: Json) => f.field === 'PRICE');
    expect(priceFacet.stats.min).toBe(page[0]);
    expect(priceFacet.stats.max).toBe(page.at(-1));
    for (const hit of all.nodes) expect(hit.mainImage.url).toMatch(/^http:\/\/.+\.png$/);
  });

  it('2. refines by a facet value: the "coffee" tag', async () => {
    const coffee = counts(all, 'TAGS').coffee as number;
    expect(coffee).toBeGreaterThan(0);
    const refined = (await shop(SEARCH, { query: 'mug', filter: { tags: ['coffee'] } })).catalog
      .search;
    expect(refined.totalCount).toBe(coffee);
    expect(refined.totalCount).toBeLessThan(all.totalCount);
    expect(counts(refined, 'TAGS').coffee).toBe(coffee);
    expect(refined.nodes).toHaveLength(coffee);
    const kept = new Set(refined.nodes.map((n: Json) => n.upstreamId));
    for (const id of kept) expect(all.nodes.some((n: Json) => n.upstreamId === id)).toBe(true);
    expect(prices(refined.nodes)).toEqual([...prices(refined.nodes)].sort((a, b) => a - b));
  });

  it('3a. finds the variation products: "tee", refined by the product-type facet', async () => {
    const tees = (await shop(SEARCH, { query: 'tee' })).catalog.search;
    expect(counts(tees, 'PRODUCT_TYPE')).toEqual({ child: 120, parent: 20, bundle: 1 });
    const refined = (await shop(SEARCH, { query: 'tee', filter: { productType: ['parent'] } }))
      .catalog.search;
    expect(refined.totalCount).toBe(20);
    for (const hit of refined.nodes) expect(hit.productType).toBe('parent');
    tee = refined.nodes.find((n: Json) => n.name === 'Tee 1');
    expect(tee).toBeDefined();
  });

  it('3. opens Tee 1 and picks Size M, Colour Blue', async () => {
    const data = await shop(
      `query($slug: String!, $picked: [SelectedOptionInput!]!) { catalog { product(slug: $slug) {
        upstreamId name options { name values } variants(first: 10) { totalCount }
        variantBySelectedOptions(selectedOptions: $picked) {
          upstreamId name sku parentId selectedOptions { name value } mainImage { url }
          price(currency: "USD") { amount { amount } } } } } }`,
      { slug: tee.slug, picked: PICKED },
    );
    const page = data.catalog.product;
    expect(page.options).toEqual([
      { name: 'Size', values: ['S', 'M', 'L'] },
      { name: 'Colour', values: ['Red', 'Blue'] },
    ]);
    expect(page.variants.totalCount).toBe(6);
    child = page.variantBySelectedOptions;
    expect(child.parentId).toBe(tee.upstreamId);
    expect(child.selectedOptions).toEqual(PICKED);
    expect(child.name).toBe('Tee 1 M Blue');
  });

  it('4. opens the Tee Starter Kit and picks its options', async () => {
    const data = await shop(`{ catalog { product(slug: "tee-starter-kit") {
      upstreamId name productType components { key name min max
        options { productId isDefault min max product { name sku price(currency: "USD") { amount { amount } } } } } } } }`);
    const kit = data.catalog.product;
    expect(kit.productType).toBe('bundle');
    kitId = kit.upstreamId;
    const component = (key: string): Json => kit.components.find((c: Json) => c.key === key);
    expect(component('tee')).toMatchObject({ name: 'Your tee', min: 1, max: 1 });
    expect(component('extras')).toMatchObject({ min: 0, max: 2 });
    // The shopper's tee in the kit is the one they picked on Tee 1's page; of the extras, two
    // units of the second (not the default).
    const shirt = component('tee').options.find((o: Json) => o.product.sku === child.sku);
    const extra = component('extras').options[1];
    expect(shirt.productId).toBe(child.upstreamId);
    expect(extra.isDefault).toBe(false);
    kitChoice = [
      { componentKey: 'tee', productId: shirt.productId, quantity: 1 },
      { componentKey: 'extras', productId: extra.productId, quantity: 2 },
    ];
    // The kit has no price of its own: it costs what the shopper picks.
    kitPrice = shirt.product.price.amount.amount + 2 * extra.product.price.amount.amount;
  });

  it('5. adds the picked child and the configured kit in one addCartItems', async () => {
    const created = await shop(
      'mutation { createCart(input: { name: "Walk" }) { cart { upstreamId } userErrors { code } } }',
    );
    expect(created.createCart.userErrors).toEqual([]);
    cartId = created.createCart.cart.upstreamId;
    const data = await shop(
      `mutation($input: AddCartItemsInput!) { addCartItems(input: $input) {
        cart { currency items { name sku quantity productId unitPrice { withTax { amount } }
          product { name selectedOptions { name value } mainImage { url } }
          bundleConfiguration { selectedOptions { componentKey productId quantity } } } }
        userErrors { code field message } } }`,
      {
        input: {
          cartId,
          allOrNothing: true,
          lines: [
            { productId: child.upstreamId, quantity: 1 },
            { productId: kitId, quantity: 1, bundleConfiguration: { selectedOptions: kitChoice } },
          ],
        },
      },
    );
    expect(data.addCartItems.userErrors).toEqual([]);
    const { currency, items } = data.addCartItems.cart;
    expect(currency).toBe('USD');
    expect(items).toHaveLength(2);
    const line = (id: string): Json => items.find((i: Json) => i.productId === id);
    expect(line(child.upstreamId)).toMatchObject({
      quantity: 1,
      sku: child.sku,
      product: { name: 'Tee 1 M Blue', selectedOptions: PICKED },
      bundleConfiguration: null,
    });
    expect(line(kitId)).toMatchObject({
      quantity: 1,
      product: { name: 'Tee Starter Kit' },
      bundleConfiguration: { selectedOptions: kitChoice },
      unitPrice: { withTax: { amount: kitPrice } },
    });
    for (const item of items) expect(item.product.mainImage.url).toMatch(/\.png$/);
  });

  it('6. loads the pages’ images over HTTP without a token', async () => {
    await loadImage(all.nodes[0].mainImage.url);
    await loadImage(tee.mainImage.url);
    await loadImage(child.mainImage.url);
  });

  it('7. signs up and adds a home address to the new account', async () => {
    const signUp = await shop(
      `mutation($profile: ID!) { signUpAccountMember(input: { email: "walker@example.com",
          password: "walker-password", name: "Wendy Walker", passwordProfileId: $profile }) {
        accountMemberId tokens { accountId accountName token } userErrors { code field message } } }`,
      { profile: profileId },
    );
    expect(signUp.signUpAccountMember.userErrors).toEqual([]);
    expect(signUp.signUpAccountMember.tokens).toHaveLength(1);
    const [token] = signUp.signUpAccountMember.tokens;
    expect(token.accountName).toBe('Wendy Walker');
    accountId = token.accountId;
    member = { [ACCOUNT_HEADER]: token.token };

    const created = await shop(
      `mutation($accountId: ID!) { createAddress(input: { accountId: $accountId, name: "Home",
          firstName: "Wendy", lastName: "Walker", line1: "7 Orchard Lane", city: "Portland",
          region: "OR", postcode: "97201", country: "us" }) {
        address { upstreamId name line1 country } userErrors { code field message } } }`,
      { accountId },
      member,
    );
    expect(created.createAddress.userErrors).toEqual([]);
    expect(created.createAddress.address).toMatchObject({ name: 'Home', country: 'US' });
    homeId = created.createAddress.address.upstreamId;
    const book = await shop(
      '{ viewer { account { upstreamId addresses { upstreamId } } } }',
      {},
      member,
    );
    expect(book.viewer.account).toEqual({
      upstreamId: accountId,
      addresses: [{ upstreamId: homeId }],
    });
  });

  it('8. checks the cart out with the home address, as the member', async () => {
    const data = await shop(
      `mutation($input: CheckoutCartInput!) { checkoutCart(input: $input) {
        order { upstreamId accountId status }
        userErrors { code field message } } }`,
      { input: { cartId, billingAddressId: homeId } },
      member,
    );
    expect(data.checkoutCart.userErrors).toEqual([]);
    expect(data.checkoutCart.order).toMatchObject({ accountId, status: 'incomplete' });
    orderId = data.checkoutCart.order.upstreamId;
  });

  it('9. reads the order: its lines name the child and the kit, with their products', async () => {
    const data = await shop(
      `query($id: ID!) { order(id: $id) { upstreamId accountId customerEmail total { amount }
        items { name sku quantity productId product { name productType mainImage { url } }
          bundleConfiguration { selectedOptions { componentKey productId quantity } } } } }`,
      { id: orderId },
      member,
    );
    const order = data.order;
    expect(order).toMatchObject({
      upstreamId: orderId,
      accountId,
      customerEmail: 'walker@example.com',
    });
    // What was in the cart is what the order charges: the tee and the kit as picked.
    expect(order.total.amount).toBe(child.price.amount.amount + kitPrice);
    const line = (id: string): Json => order.items.find((i: Json) => i.productId === id);
    expect(order.items).toHaveLength(2);
    expect(line(child.upstreamId)).toMatchObject({
      name: 'Tee 1 M Blue',
      sku: child.sku,
      quantity: 1,
      product: { name: 'Tee 1 M Blue', productType: 'child' },
    });
    expect(line(kitId)).toMatchObject({
      name: 'Tee Starter Kit',
      quantity: 1,
      product: { name: 'Tee Starter Kit', productType: 'bundle' },
      bundleConfiguration: { selectedOptions: kitChoice },
    });
    await loadImage(line(child.upstreamId).product.mainImage.url);
  });
});
