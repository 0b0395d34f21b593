/**
 * The reference storefront's pages and actions that the steps of reference-storefront.test.ts
 * render or run, each with the SDK calls its file makes: the layout every page has, a product
 * page, the cart and checkout pages, paymentComplete, the sign-in cookie, the login page's fetch.
 */
import {
  checkoutApi,
  deleteAllCartItems,
  getACart,
  getAllCurrencies,
  getByContextAllHierarchies,
  getByContextAllProducts,
  getByContextHierarchyChildNodes,
  getByContextHierarchyNodes,
  getByContextProduct,
  getStock,
  getV2AccountMembersAccountMemberId,
  listLocations,
  manageCarts,
  paymentSetup,
} from '@epcc-sdk/sdks-shopper';
import { expect } from 'vitest';
import {
  type CookieJar,
  expectShape,
  ok,
  price,
  type storefrontClient,
} from './storefront-replay.ts';

type Client = ReturnType<typeof storefrontClient>;
const cur = (jar: CookieJar) => ({ 'Accept-Language': 'en', 'X-Moltin-Currency': jar.currency });

/** getAllCurrencies, as the header, product, cart and checkout pages call it first. */
export async function currencies(client: Client): Promise<void> {
  ok(await getAllCurrencies({ client } as never), 'getAllCurrencies');
}

/** lib/build-site-navigation.ts: hierarchies, then each one's children and nodes (first 4). */
async function navigation(client: Client): Promise<void> {
  const hierarchies = ok(await getByContextAllHierarchies({ client }), 'hierarchies');
  expectShape(
    hierarchies,
    { 'data[].id': 'id', 'data[].attributes.name': 'string', 'data[].attributes.slug': 'string' },
    'navigation',
  );
  let secondLevel = 0;
  for (const hierarchy of hierarchies.data.slice(0, 4)) {
    const path = { hierarchy_id: hierarchy.id };
    const children = ok(await getByContextHierarchyChildNodes({ client, path }), 'child nodes');
    const nodes = ok(await getByContextHierarchyNodes({ client, path }), 'nodes');
    expectShape(children, { 'data[].id': 'id', 'data[].attributes.name': 'string' }, 'children');
    // The second level is found through each node's relationships.parent.data.id.
    secondLevel += nodes.data.filter((n: any) =>
      children.data.some((c: any) => c.id === n.relationships?.parent?.data?.id),
    ).length;
  }
  expect(secondLevel, 'the menu has a second level').toBeGreaterThan(0);
}

/** lib/get-store-initial-state.ts, of every layout (store, checkout, auth). */
export async function initialState(client: Client, jar: CookieJar): Promise<void> {
  await navigation(client);
  const cartID = jar.cart as string;
  ok(await getACart({ client, path: { cartID }, query: { include: ['items'] } } as never), 'cart');
}

/** The header's cart and its products (Cart.tsx sends the currency headers, MobileNavBar not). */
async function headerCart(client: Client, jar: CookieJar, headers?: object): Promise<void> {
  const cart = ok(
    await getACart({
      client,
      path: { cartID: jar.cart as string },
      query: { include: ['items'] },
      ...(headers ? { headers } : {}),
    } as never),
    'header cart',
  );
  expectShape(cart, price('data.meta.display_price.with_tax'), 'header cart');
  const productIds = (cart.included?.items ?? []).map((i: any) => i.product_id).filter(Boolean);
  ok(
    await getByContextAllProducts({
      client,
      query: { filter: `in(id,${productIds.join(',')})` },
      ...(headers ? { headers } : {}),
    } as never),
    'header cart products',
  );
}

/** header/account/AccountMenu.tsx (and MobileNavBar): the signed-in member. */
async function accountMenu(client: Client, jar: CookieJar): Promise<any> {
  if (!jar.member) return undefined;
  const member = ok(
    await getV2AccountMembersAccountMemberId({
      client,
      path: { accountMemberID: jar.member.accountMemberId },
    } as never),
    'account menu',
  );
  expectShape(member, { 'data.id': 'id', 'data.name': 'string', 'data.email': 'string' }, 'menu');
  return member;
}

/**
 * (store)/layout.tsx: the initial state, then the header: MobileNavBar (navigation, cart,
 * products, currencies, member), NavBar (navigation), AccountMenu (member), Cart (currencies,
 * cart, products). Returns the signed-in member, if any.
 */
export async function layout(client: Client, jar: CookieJar): Promise<any> {
  await initialState(client, jar);
  await navigation(client);
  await headerCart(client, jar);
  await currencies(client);
  await accountMenu(client, jar);
  await navigation(client);
  const member = await accountMenu(client, jar);
  await currencies(client);
  await headerCart(client, jar, cur(jar));
  return member;
}

/** products/[...productSegment]/page.tsx for /products/<slug>/<id> (getProduct runs twice). */
export async function productPage(client: Client, jar: CookieJar, id: string): Promise<any> {
  let product: any;
  for (const _render of ['generateMetadata', 'page']) {
    await currencies(client);
    product = ok(
      await getByContextProduct({
        client,
        path: { product_id: id },
        query: { include: ['main_image', 'files', 'component_products'] },
        headers: cur(jar),
      } as never),
      'product',
    );
  }
  expectShape(
    product,
    {
      'data.id': 'id',
      'data.attributes.name': 'string',
      'data.attributes.sku': 'string',
      'data.attributes.slug': 'string',
      'data.meta.product_types': 'array',
      ...price('data.meta.display_price.without_tax'),
      ...price('data.meta.display_price.with_tax'),
    },
    'product page',
  );
  ok(await getStock({ client, path: { product_uuid: id } } as never), 'getStock');
  ok(await listLocations({ client } as never), 'listLocations');
  return product;
}

/** The address the checkouts and the address book use. */
export const SHIPPING = {
  first_name: 'Grace',
  last_name: 'Hopper',
  line_1: '1 Compiler Way',
  city: 'Arlington',
  region: 'VA',
  postcode: '22201',
  country: 'US',
};

/** cart/page.tsx in the store layout: the cart with its four includes, each item's product. */
export async function cartPage(client: Client, jar: CookieJar): Promise<any> {
  await layout(client, jar);
  await currencies(client);
  const cart = ok(
    await getACart({
      client,
      path: { cartID: jar.cart as string },
      query: { include: ['items', 'promotions', 'tax_items', 'custom_discounts'] },
      headers: cur(jar),
    } as never),
    'cart page',
  );
  expectShape(
    cart,
    {
      'data.id': 'id',
      ...price('data.meta.display_price.with_tax'),
      ...price('data.meta.display_price.without_tax'),
      ...price('data.meta.display_price.tax'),
      'included.items[].id': 'id',
      'included.items[].type': 'string',
      'included.items[].name': 'string',
      'included.items[].quantity': 'number',
      ...price('included.items[].meta.display_price.with_tax.unit'),
      ...price('included.items[].meta.display_price.with_tax.value'),
      'included.items[].unit_price.amount': 'number',
      'included.items[].value.amount': 'number',
    },
    'cart page',
  );
  // The specification's CartItemResponse, for the catalog's items.
  expectShape(
    cart.included.items.filter((i: any) => i.type === 'cart_item'),
    { '[].product_id': 'id', '[].sku': 'string', '[].catalog_id': 'id' },
    'cart items',
  );
  expect(cart.data.type).toBe('cart');
  // lib/group-cart-items.ts sorts the items by these types.
  for (const item of cart.included.items) {
    expect(['cart_item', 'custom_item', 'promotion_item', 'subscription_item']).toContain(
      item.type,
    );
  }
  // Items without a product_id are asked for too (a 404 in production): not replayed.
  for (const item of cart.included.items.filter((i: any) => i.product_id)) {
    ok(
      await getByContextProduct({
        client,
        path: { product_id: item.product_id },
        headers: cur(jar),
      } as never),
      'cart item product',
    );
  }
  return cart;
}

/** checkout/page.tsx in its layout: the cart (include=items) and each item's product. */
export async function checkoutPage(client: Client, jar: CookieJar): Promise<void> {
  await initialState(client, jar);
  await currencies(client);
  const cart = ok(
    await getACart({
      client,
      path: { cartID: jar.cart as string },
      query: { include: ['items'] },
      headers: cur(jar),
    } as never),
    'checkout page cart',
  );
  // The page also asks for items without a product_id (custom, promotion items) as
  // /catalog/products/{product_id}, a 404 in production too: those calls are not replayed.
  for (const item of cart.included.items.filter((i: any) => i.product_id)) {
    ok(
      await getByContextProduct({
        client,
        path: { product_id: item.product_id },
        headers: cur(jar),
      } as never),
      'checkout item product',
    );
  }
}

/** checkout/actions.ts paymentComplete: shipping item, checkout, payment, images, clear. */
export async function paymentComplete(
  client: Client,
  jar: CookieJar,
  who: Record<string, unknown>,
): Promise<string> {
  const cartID = jar.cart as string;
  ok(
    await manageCarts({
      client,
      path: { cartID },
      body: {
        data: {
          type: 'custom_item',
          name: 'Shipping',
          sku: '__shipping_standard',
          quantity: 1,
          price: { amount: 0, includes_tax: true },
        },
      },
      headers: cur(jar),
    } as never),
    'shipping item',
  );
  const order = ok(
    await checkoutApi({
      client,
      path: { cartID },
      body: { data: { ...who, billing_address: SHIPPING, shipping_address: SHIPPING } },
      headers: cur(jar),
    } as never),
    'checkoutApi',
  );
  expectShape(
    order,
    {
      'data.id': 'id',
      'data.status': 'string',
      'data.payment': 'string',
      'data.shipping': 'string',
      'data.shipping_address.line_1': 'string',
      'data.billing_address.line_1': 'string',
      'data.relationships.items.data[].id': 'id',
      ...price('data.meta.display_price.with_tax'),
    },
    'order',
  );
  expect([order.data.type, order.data.payment]).toEqual(['order', 'unpaid']);
  const payment = ok(
    await paymentSetup({
      client,
      path: { orderID: order.data.id },
      body: { data: { gateway: 'manual', method: 'purchase' } },
      headers: cur(jar),
    } as never),
    'paymentSetup',
  );
  expectShape(payment, { 'data.id': 'id', 'data.status': 'string' }, 'transaction');
  // The specification's TransactionResponse (cart_checkout.yaml).
  expectShape(
    payment,
    {
      'data.transaction-type': 'string',
      'data.gateway': 'string',
      'data.amount': 'number',
      'data.refunded_amount': 'number',
      'data.currency': 'string',
      'data.relationships.order.data.id': 'id',
      ...price('data.meta.display_price'),
      ...price('data.meta.display_refunded_amount'),
    },
    'transaction',
  );
  expect(payment.data).toMatchObject({
    'transaction-type': 'purchase',
    status: 'complete',
    amount: order.data.meta.display_price.with_tax.amount,
    relationships: { order: { data: { id: order.data.id } } },
  });
  const cart = ok(
    await getACart({
      client,
      path: { cartID },
      query: { include: ['items'] },
      headers: cur(jar),
    } as never),
    'cart after payment',
  );
  const productIds = cart.included.items.map((i: any) => i.product_id).join(',');
  ok(
    await getByContextAllProducts({
      client,
      query: { filter: `in(id,${productIds})`, include: ['main_image'] },
      headers: cur(jar),
    } as never),
    'confirmation products',
  );
  ok(
    await deleteAllCartItems({ client, path: { cartID }, headers: cur(jar) } as never),
    'deleteAllCartItems',
  );
  return order.data.id;
}

/** createCookieFromGenerateTokenResponse: one token per account, the first selected. */
export function signedIn(jar: CookieJar, result: any): void {
  expectShape(
    result,
    {
      'data[].account_id': 'id',
      'data[].account_name': 'string',
      'data[].token': 'string',
      'data[].expires': 'string',
      'data[].type': 'string',
      'meta.account_member_id': 'id',
    },
    'account member tokens',
  );
  jar.member = {
    accounts: Object.fromEntries(result.data.map((t: any) => [t.account_id, t])),
    selected: result.data[0].account_id,
    accountMemberId: result.meta.account_member_id,
  };
}

/** The login page's own fetches (not the SDK): Bearer of the credentials cookie only. */
export async function raw(baseUrl: string, jar: CookieJar, path: string): Promise<any> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'GET',
    headers: { Authorization: `Bearer ${jar.credentials?.access_token}` },
  });
  expect(response.status, path).toBe(200);
  return response.json();
}
