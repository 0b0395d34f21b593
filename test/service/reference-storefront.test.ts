/**
 * The reference storefront (elasticpath/composable-frontend examples/core/src) replayed against
 * the embedded service with the demo seed: its calls through `@epcc-sdk/sdks-shopper`, unchanged,
 * in the order one shopper's visit makes them (issue 30, "What shows it is done", first item).
 * Every call must answer 2xx, with the fields the storefront's code dereferences.
 *
 * Headers on every SDK call (lib/create-elastic-path-client.ts + packages/sdks/nextjs):
 *   Authorization: Bearer <implicit token from the `_store_ep_credentials` cookie>,
 *   EP-Account-Management-Authentication-Token: <selected account's token> once signed in,
 *   EP-Inventories-Multi-Location: true.
 * Calls marked (cur) also send `Accept-Language: en` and `X-Moltin-Currency:
 * getPreferredCurrency('en', getAllCurrencies())` – no currency header while the store lists no
 * currencies. Raw `fetch` calls (not the SDK) are marked (raw). [feature: X] marks the steps
 * kept in storefront-replay-steps.ts, one per feature (search, variations, bundles, currencies,
 * files, promotions).
 *
 * page → calls
 * middleware.ts (first request)
 *   createAnAccessToken  POST /oauth/access_token grant_type=implicit&client_id
 *   createACart          POST /v2/carts {data:{name:"Cart"}} (Bearer from that answer) → cart cookie
 * every layout (store, checkout, auth): lib/get-store-initial-state.ts
 *   navigation (lib/build-site-navigation.ts):
 *     getByContextAllHierarchies                GET /catalog/hierarchies
 *     per hierarchy (first 4): getByContextHierarchyChildNodes GET /catalog/hierarchies/{h}/children
 *                              getByContextHierarchyNodes      GET /catalog/hierarchies/{h}/nodes
 *   getACart                                    GET /v2/carts/{cart}?include=items
 * every store page's header (components/header): MobileNavBar, NavBar, AccountMenu, Cart
 *   MobileNavBar: navigation; getACart ?include=items; getByContextAllProducts
 *     GET /catalog/products?filter=in(id,<items' product ids>) (`in(id,)` for an empty cart);
 *     getAllCurrencies GET /v2/currencies [feature: currencies]; getV2AccountMembersAccountMemberId
 *     GET /v2/account-members/{member} (signed in)
 *   NavBar: navigation
 *   AccountMenu: getV2AccountMembersAccountMemberId (signed in)
 *   Cart: getAllCurrencies [feature: currencies]; getACart (cur) ?include=items;
 *     getByContextAllProducts (cur) ?filter=in(id,<items' product ids>)
 * home: (store)/page.tsx → featured-products/fetchFeaturedProducts.ts
 *   getByContextAllProducts               GET /catalog/products?include=main_image
 * category page /search/<node>: InstantSearchResults + catalog-search-instantsearch-adapter
 *   postMultiSearch  POST /catalog/multi-search {searches:[{type:"search",q:"*",facet_by,
 *                    filter_by:"meta.search.categories.lvl0:=[`<node>`]",page,per_page,…}, the
 *                    hierarchical menu's unfiltered facet query]}                 [feature: search]
 *   getAllFiles      GET /v2/files?filter=in(id,<hits' main_image ids>)          [feature: files]
 * autocomplete: instant-search/Autocomplete.tsx
 *   postMultiSearch  POST /catalog/multi-search {searches:[{type:"autocomplete",q,
 *                    highlight_full_fields:"name",include_fields:"name"}]}        [feature: search]
 * product page /products/<slug>/<id> (store layout): products/[...productSegment]/page.tsx
 *   (getProduct runs twice: generateMetadata and the page)
 *   getAllCurrencies                      GET /v2/currencies                       [feature: currencies]
 *   getByContextProduct (cur)             GET /catalog/products/{id}?include=main_image,files,component_products
 *   getStock                              GET /v2/inventories/{id}
 *   listLocations                         GET /v2/inventories/locations
 *   parent/child: getByContextProduct (parent) and getByContextChildProducts
 *     GET /catalog/products/{parent}/relationships/children?include=… [feature: variations]
 *   bundle: getAllFiles GET /v2/files?filter=in(id,<components' main images>) [feature: bundles]
 *   add to cart (cart-actions.ts addToCartAction / addToBundleAction)
 *   manageCarts (X-Moltin-Currency) POST /v2/carts/{cart}/items {data:{type:"cart_item",id,quantity}}
 *     (+ bundle_configuration.selected_options for a bundle)
 * cart page (store layout): (store)/cart/page.tsx
 *   getAllCurrencies; getACart (cur) GET /v2/carts/{cart}?include=items,promotions,tax_items,
 *   custom_discounts (the SDK sends it as include=items&include=promotions&…)
 *   per item: getByContextProduct (cur) GET /catalog/products/{item.product_id}
 *   updateACartItem (X-Moltin-Currency) PUT /v2/carts/{cart}/items/{item} {data:{id,quantity}}
 *   deleteACartItem                     DELETE /v2/carts/{cart}/items/{item}
 *   promotion (checkout-sidebar/actions.ts, RemoveCartPromotionXButton)           [feature: promotions]
 *     manageCarts POST /v2/carts/{cart}/items {data:{type:"promotion_item",code}} → the code in
 *     the cart's items (promotion_item.code/sku) or an item's discounts[].code
 *     deleteAPromotionViaPromotionCode DELETE /v2/carts/{cart}/discounts/{code}
 * checkout page (checkout layout): (checkout)/checkout/page.tsx, AccountCheckout.tsx (signed in)
 *   getAllCurrencies; getACart (cur) ?include=items; per item getByContextProduct (cur)
 *   signed in: getV2AccountMembersAccountMemberId, getV2AccountAddresses GET /v2/accounts/{a}/addresses
 * pay: checkout/actions.ts paymentComplete (all (cur))
 *   manageCarts   POST /v2/carts/{cart}/items {data:{type:"custom_item",name:"Shipping",
 *                 sku:"__shipping_standard",quantity:1,price:{amount:0,includes_tax:true}}}
 *   checkoutApi   POST /v2/carts/{cart}/checkout guest {data:{customer:{email,name},
 *                 billing_address,shipping_address}}; account {data:{account:{id,member_id},
 *                 contact:{name,email},billing_address,shipping_address}}
 *   paymentSetup  POST /v2/orders/{order}/payments {data:{gateway:"manual",method:"purchase"}}
 *   getACart ?include=items; getByContextAllProducts ?filter=in(id,<product ids>,)&include=main_image
 *                 (the trailing comma is the shipping item's missing product_id)
 *   deleteAllCartItems DELETE /v2/carts/{cart}/items
 * register (auth layout): (auth)/actions.ts register
 *   postV2AccountMembersTokens POST /v2/account-members/tokens {data:{type:
 *     "account_management_authentication_token",authentication_mechanism:"self_signup",
 *     password_profile_id,username,password,name,email}} → member cookie; then home
 * login page (auth layout): LoginForm.tsx (use-authentication.tsx via app/api/account-auth-settings)
 *   (raw) GET /v2/settings/account-authentication; (raw) GET /v2/authentication-realms/{realm}/oidc-profiles
 *   login: postV2AccountMembersTokens {…authentication_mechanism:"password",password_profile_id,
 *     username,password}; then home
 * account summary (store layout): account/summary/page.tsx, actions.ts
 *   getV2AccountsAccountId GET /v2/accounts/{a}; getV2AccountMembersAccountMemberId
 *   putV2AccountsAccountId PUT /v2/accounts/{a} {data:{type:"account",name,legal_name}}
 * address book (store layout, each page): account/addresses/page.tsx, [addressId]/page.tsx, actions.ts
 *   getV2AccountAddresses; postV2AccountAddress POST /v2/accounts/{a}/addresses {data:{type:
 *   "address",name,first_name,last_name,line_1,…}} → getV2AccountAddress GET …/addresses/{id};
 *   putV2AccountAddress PUT …/addresses/{id}; deleteV2AccountAddress DELETE …/addresses/{id}
 * order history (store layout, each page): account/orders/page.tsx, [orderId]/page.tsx
 *   getCustomerOrders GET /v2/orders?include=items&page[limit]=25&page[offset]=0
 *   getByContextAllProducts ?filter=in(id,<product ids>)&include=main_image
 *   getAnOrder GET /v2/orders/{order}?include=items; getByContextAllProducts again
 *
 * The visit, in order: arrive; [currencies]; home; [category search, autocomplete, images];
 * two standard product pages, each added to the cart; [variation product]; [bundle]; the cart
 * page (a quantity changed, an item removed); [promotion code]; guest checkout and payment;
 * register (then signed out); login; account summary and update; address book; a product page,
 * add to cart, account checkout and payment; order history and the order's page.
 */
import {
  createACart,
  createAnAccessToken,
  deleteACartItem,
  deleteV2AccountAddress,
  getAnOrder,
  getByContextAllProducts,
  getCustomerOrders,
  getV2AccountAddress,
  getV2AccountAddresses,
  getV2AccountMembersAccountMemberId,
  getV2AccountsAccountId,
  manageCarts,
  postV2AccountAddress,
  postV2AccountMembersTokens,
  putV2AccountAddress,
  putV2AccountsAccountId,
  updateACartItem,
} from '@epcc-sdk/sdks-shopper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SeededService, startSeededService } from './seeded-service.ts';
import { DEFAULT_TEST_CLIENTS } from './service-helpers.ts';
import {
  type CookieJar,
  expectShape,
  ok,
  price,
  recordingFetch,
  type SentRequest,
  storefrontClient,
} from './storefront-replay.ts';
import {
  cartPage,
  checkoutPage,
  initialState,
  layout,
  paymentComplete,
  productPage,
  raw,
  SHIPPING,
  signedIn,
} from './storefront-replay-pages.ts';
import { featureSteps } from './storefront-replay-steps.ts';

let service: SeededService;
let client: ReturnType<typeof storefrontClient>;
/** NEXT_PUBLIC_PASSWORD_PROFILE_ID: read once by the developer, not by the visit. */
let passwordProfileId: string;
/** Standard products with stock and a price (the admin's view, not a call of the visit). */
let stockedStandard: string[] = [];
const jar: CookieJar = {};
const sent: SentRequest[] = [];
const CLIENT_ID = DEFAULT_TEST_CLIENTS[0]?.id ?? '';
/** What the visit carries from page to page. */
const visit: { products: any[]; guestOrder?: string; accountOrder?: string; address?: string } = {
  products: [],
};

beforeAll(async () => {
  service = await startSeededService(0);
  client = storefrontClient(service.url, jar, sent);
  const settings = await service.call('GET', '/v2/settings/account-authentication');
  const realm = settings.body.data.relationships.authentication_realm.data.id;
  const profiles = await service.call(
    'GET',
    `/v2/authentication-realms/${realm}/password-profiles`,
  );
  passwordProfileId = profiles.body.data[0].id;
  // Only some demo products have stock (a finding): the visit's product pages are theirs.
  const stock = await service.call('GET', '/v2/inventories?page[limit]=100');
  const ids = stock.body.data.map((s: { id: string }) => s.id).join(',');
  const stocked = await service.call('GET', `/catalog/products?filter=in(id,${ids})`);
  stockedStandard = stocked.body.data
    .filter((p: any) => p.meta.product_types[0] === 'standard' && p.meta.display_price)
    .map((p: { id: string }) => p.id);
}, 60_000);
afterAll(() => service?.close());

describe("the reference storefront's visit, call by call", () => {
  it('arrives: the middleware takes an implicit token and makes the cart', async () => {
    const auth = ok(
      await createAnAccessToken({
        baseUrl: service.url,
        fetch: recordingFetch(service.url, sent),
        body: { grant_type: 'implicit', client_id: CLIENT_ID },
      } as never),
      'createAnAccessToken',
    );
    expectShape(auth, { access_token: 'string', expires: 'number', token_type: 'string' }, 'token');
    jar.credentials = { access_token: auth.access_token, expires: auth.expires };
    const cart = ok(
      await createACart({
        baseUrl: service.url,
        fetch: recordingFetch(service.url, sent),
        headers: { Authorization: `Bearer ${auth.access_token}` },
        body: { data: { name: 'Cart' } },
      } as never),
      'createACart',
    );
    expectShape(cart, { 'data.id': 'id', 'data.meta.timestamps.expires_at': 'string' }, 'cart');
    expect(Number.isNaN(Date.parse(cart.data.meta.timestamps.expires_at))).toBe(false);
    jar.cart = cart.data.id;
  });

  featureSteps.currencies(it, () => ({ client, jar }));

  it('home: navigation, the header cart, featured products', async () => {
    await layout(client, jar);
    const featured = ok(
      await getByContextAllProducts({ client, query: { include: ['main_image'] } as never }),
      'featured products',
    );
    expectShape(
      featured,
      {
        'data[].id': 'id',
        'data[].attributes.name': 'string',
        'data[].attributes.slug': 'string',
        'data[].meta.product_types': 'array',
      },
      'featured products',
    );
    visit.products = featured.data;
  });

  it('standard product page, then add to cart', async () => {
    // Featured products in stock first, then others reached by their links.
    const featured = visit.products.map((p) => p.id).filter((id) => stockedStandard.includes(id));
    const chosen = [...new Set([...featured, ...stockedStandard])].slice(0, 2);
    expect(chosen).toHaveLength(2);
    visit.products = [];
    for (const id of chosen) {
      const product = await productPage(client, jar, id);
      visit.products.push(product.data);
      await layout(client, jar);
      const added = ok(
        await manageCarts({
          client,
          path: { cartID: jar.cart as string },
          body: { data: { type: 'cart_item', id, quantity: 1 } },
          headers: { 'X-Moltin-Currency': jar.currency },
        } as never),
        'addToCartAction',
      );
      expect(added.data.map((i: any) => i.product_id)).toContain(id);
    }
  });

  featureSteps.catalog(it, () => ({ client, jar }));

  it('cart page: items, a quantity changed, an item removed', async () => {
    const cart = await cartPage(client, jar);
    const [first, second] = cart.included.items;
    const updated = ok(
      await updateACartItem({
        client,
        path: { cartID: jar.cart as string, cartitemID: first.id },
        body: { data: { id: first.id, quantity: 3 } },
        headers: { 'X-Moltin-Currency': jar.currency },
      } as never),
      'updateCartItemAction',
    );
    expect(updated.data.find((i: any) => i.id === first.id).quantity).toBe(3);
    ok(
      await deleteACartItem({
        client,
        path: { cartID: jar.cart as string, cartitemID: second.id },
      } as never),
      'removeCartItemAction',
    );
    const after = await cartPage(client, jar);
    // (The variation child and the bundle are in the cart too, from their steps.)
    const ids = after.included.items.map((i: any) => i.id);
    expect(ids).toContain(first.id);
    expect(ids).not.toContain(second.id);
    expect(after.included.items.find((i: any) => i.id === first.id).quantity).toBe(3);
  });

  featureSteps.promotion(it, () => ({ client, jar }));

  it('guest checkout and payment', async () => {
    await checkoutPage(client, jar);
    visit.guestOrder = await paymentComplete(client, jar, {
      customer: {
        email: 'guest@example.com',
        name: `${SHIPPING.first_name} ${SHIPPING.last_name}`,
      },
    });
  });

  it('self sign-up: a new member with an account of their own', async () => {
    await initialState(client, jar); // the register page's layout
    const result = ok(
      await postV2AccountMembersTokens({
        client,
        body: {
          data: {
            type: 'account_management_authentication_token',
            authentication_mechanism: 'self_signup',
            password_profile_id: passwordProfileId,
            username: 'new.shopper@example.com',
            password: 'a-long-password',
            name: 'New Shopper',
            email: 'New.Shopper@example.com',
          },
        },
      } as never),
      'register',
    );
    signedIn(jar, result);
    const member = await layout(client, jar);
    expect(member?.data.email).toBe('New.Shopper@example.com');
    jar.member = undefined; // logout: the member cookie is deleted
  });

  it('sign-in: the login page, then a password sign-in', async () => {
    await initialState(client, jar); // the login page's layout
    const settings = await raw(service.url, jar, '/v2/settings/account-authentication');
    expectShape(
      settings,
      { 'data.relationships.authentication_realm.data.id': 'id', 'data.meta.client_id': 'string' },
      'account-authentication settings',
    );
    const realm = settings.data.relationships.authentication_realm.data.id;
    const oidc = await raw(service.url, jar, `/v2/authentication-realms/${realm}/oidc-profiles`);
    expect(oidc.data).toEqual([]);
    const result = ok(
      await postV2AccountMembersTokens({
        client,
        body: {
          data: {
            type: 'account_management_authentication_token',
            authentication_mechanism: 'password',
            password_profile_id: passwordProfileId,
            username: 'ada@example.com',
            password: 'ada-password',
          },
        },
      } as never),
      'login',
    );
    signedIn(jar, result);
    const member = await layout(client, jar);
    expect(member?.data.name).toBeTypeOf('string');
  });

  it('account summary, and the account renamed', async () => {
    const accountId = jar.member?.selected as string;
    await layout(client, jar);
    const account = ok(
      await getV2AccountsAccountId({ client, path: { accountID: accountId } } as never),
      'account',
    );
    expectShape(
      account,
      { 'data.id': 'id', 'data.name': 'string', 'data.meta.timestamps.created_at': 'string' },
      'account',
    );
    expect(account.data.type).toBe('account');
    const member = ok(
      await getV2AccountMembersAccountMemberId({
        client,
        path: { accountMemberID: jar.member?.accountMemberId },
      } as never),
      'account member',
    );
    expectShape(member, { 'data.name': 'string', 'data.email': 'string' }, 'account member');
    expect([member.data.id, member.data.type]).toEqual([
      jar.member?.accountMemberId,
      'account_member',
    ]);
    const renamed = `${account.data.name} (renamed)`;
    ok(
      await putV2AccountsAccountId({
        client,
        path: { accountID: accountId },
        body: { data: { type: 'account', name: renamed, legal_name: renamed } },
      } as never),
      'updateAccount',
    );
    const again = ok(
      await getV2AccountsAccountId({ client, path: { accountID: accountId } } as never),
      'account after update',
    );
    expect([again.data.name, again.data.legal_name]).toEqual([renamed, renamed]);
  });

  it('address book: list, add, read, update, delete', async () => {
    const accountID = jar.member?.selected as string;
    await layout(client, jar);
    ok(await getV2AccountAddresses({ client, path: { accountID } } as never), 'addresses');
    const body = { type: 'address', name: 'Home', ...SHIPPING, phone_number: '555-123-4567' };
    const created = ok(
      await postV2AccountAddress({ client, path: { accountID }, body: { data: body } } as never),
      'addAddress',
    );
    const addressID = created.data.id;
    await layout(client, jar); // the redirect to /account/addresses/{id}
    const read = ok(
      await getV2AccountAddress({ client, path: { accountID, addressID } } as never),
      'address page',
    );
    expectShape(
      read,
      {
        'data.id': 'id',
        'data.name': 'string',
        'data.first_name': 'string',
        'data.last_name': 'string',
        'data.line_1': 'string',
        'data.postcode': 'string',
        'data.country': 'string',
        // The specification's AccountAddressResponse.
        'data.meta.timestamps.created_at': 'string',
        'data.links.self': 'string',
        'data.relationships.account.id': 'id',
      },
      'address',
    );
    expect([read.data.type, read.data.relationships.account.id]).toEqual(['address', accountID]);
    ok(
      await putV2AccountAddress({
        client,
        path: { accountID, addressID },
        body: { data: { ...body, line_1: '2 Compiler Way' } },
      } as never),
      'updateAddress',
    );
    const spare = ok(
      await postV2AccountAddress({
        client,
        path: { accountID },
        body: { data: { ...body, name: 'Spare' } },
      } as never),
      'addAddress (spare)',
    );
    ok(
      await deleteV2AccountAddress({
        client,
        path: { accountID, addressID: spare.data.id },
      } as never),
      'deleteAddress',
    );
    const list = ok(await getV2AccountAddresses({ client, path: { accountID } } as never), 'list');
    expect(list.data.map((a: any) => [a.id, a.line_1])).toEqual([[addressID, '2 Compiler Way']]);
    visit.address = addressID;
  });

  it('account checkout and payment', async () => {
    const product = visit.products[0];
    await productPage(client, jar, product.id);
    ok(
      await manageCarts({
        client,
        path: { cartID: jar.cart as string },
        body: { data: { type: 'cart_item', id: product.id, quantity: 2 } },
        headers: { 'X-Moltin-Currency': jar.currency },
      } as never),
      'addToCartAction',
    );
    await checkoutPage(client, jar);
    const member = ok(
      await getV2AccountMembersAccountMemberId({
        client,
        path: { accountMemberID: jar.member?.accountMemberId },
      } as never),
      'checkout: account member',
    );
    const addresses = ok(
      await getV2AccountAddresses({ client, path: { accountID: jar.member?.selected } } as never),
      'checkout: addresses',
    );
    expect(addresses.data.map((a: any) => a.id)).toContain(visit.address);
    visit.accountOrder = await paymentComplete(client, jar, {
      account: { id: jar.member?.selected, member_id: jar.member?.accountMemberId },
      contact: { name: member.data.name, email: member.data.email },
    });
  });

  it('order history with lines, and one order', async () => {
    await layout(client, jar);
    const orders = ok(
      await getCustomerOrders({
        client,
        query: { include: ['items'], 'page[limit]': 25, 'page[offset]': 0 },
      } as never),
      'orders',
    );
    expectShape(
      orders,
      {
        'data[].id': 'id',
        'data[].meta.timestamps.created_at': 'string',
        ...price('data[].meta.display_price.with_tax'),
        'data[].relationships.items.data[].id': 'id',
        'included.items[].id': 'id',
        'included.items[].name': 'string',
        'included.items[].quantity': 'number',
        'included.items[].sku': 'string',
        'included.items[].unit_price.amount': 'number', // sortOrderItems
        'meta.results.total': 'number',
      },
      'order history',
    );
    const ids = orders.data.map((o: any) => o.id);
    expect(ids).toContain(visit.accountOrder);
    expect(ids).not.toContain(visit.guestOrder);
    const productIds = orders.included.items.map((i: any) => i.product_id).join(',');
    ok(
      await getByContextAllProducts({
        client,
        query: { filter: `in(id,${productIds})`, include: ['main_image'] },
      } as never),
      'order history products',
    );
    await layout(client, jar); // /account/orders/{id}
    const order = ok(
      await getAnOrder({
        client,
        path: { orderID: visit.accountOrder },
        query: { include: ['items'] },
      } as never),
      'order page',
    );
    expectShape(
      order,
      {
        'data.shipping_address.first_name': 'string',
        'data.shipping_address.line_1': 'string',
        'data.shipping': 'string',
        'data.payment': 'string',
        ...price('data.meta.display_price.without_tax'),
        ...price('data.meta.display_price.tax'),
        ...price('data.meta.display_price.with_tax'),
        'included.items[].sku': 'string',
        ...price('included.items[].meta.display_price.with_tax.value'),
      },
      'order page',
    );
    const lines = order.included.items.filter((i: any) => !i.sku.startsWith('__shipping_'));
    expect(lines.map((i: any) => [i.product_id, i.quantity])).toEqual([[visit.products[0].id, 2]]);
    ok(
      await getByContextAllProducts({
        client,
        query: {
          filter: `in(id,${order.included.items.map((i: any) => i.product_id).join(',')})`,
          include: ['main_image'],
        },
      } as never),
      'order page products',
    );
  });

  it('sent every call with the implicit token and the member token once signed in', () => {
    if (process.env.DUMP_SENT)
      console.log(
        sent
          .map(
            (r) =>
              `${r.status} ${r.method} ${r.path} ${r.headers['ep-account-management-authentication-token'] ? '[acct]' : ''} ${r.headers['x-moltin-currency'] ?? ''}`,
          )
          .join('\n'),
      );
    const sdkCalls = sent.filter((r) => r.path !== '/oauth/access_token');
    for (const request of sdkCalls) {
      expect(request.headers.authorization, request.path).toBe(
        `Bearer ${jar.credentials?.access_token}`,
      );
    }
    expect(sent.filter((r) => r.status >= 300)).toEqual([]);
    expect(
      sent.some((r) => r.headers['ep-account-management-authentication-token'] !== undefined),
    ).toBe(true);
  });
});
