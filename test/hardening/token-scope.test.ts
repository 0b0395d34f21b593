/**
 * The scope of each kind of token, route by route: every GET route the service registered
 * (fastify's own list, through serviceRoutes) is called with each token kind and answers as
 * docs/security.md's token-scope table says. A route missing from TABLE fails the walk, so a new
 * route cannot go live without a decision; an answer a shopper gets never carries another
 * customer’s data. Over real HTTP, against a store with two customers, a guest, a Custom API
 * of member emails, two accounts with a signed-in account member each (the `account` kind is
 * one of them, under the implicit token) and a file.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommerceService, serviceRoutes } from '../../src/commerce-service/app.ts';

/** The kinds of token a caller may hold. */
const KINDS = ['store', 'guest', 'account', 'ann'] as const;
type Kind = (typeof KINDS)[number];
type Expect = Record<Kind, number>;

/** client_credentials only. */
const STORE: Expect = { store: 200, guest: 403, account: 403, ann: 403 };
/** The store's token, or a signed-in customer (for their own data). */
const CUSTOMER: Expect = { store: 200, guest: 403, account: 403, ann: 200 };
/** Anyone with a token of the store (a guest cart by its id). */
const ANYONE: Expect = { store: 200, guest: 200, account: 200, ann: 200 };
/** Ann's own record, cart or order. */
const ANNS: Expect = { store: 200, guest: 403, account: 403, ann: 200 };
/** Someone else's record, cart or order, as Ann sees it: it does not exist. */
const NOT_ANNS: Expect = { store: 200, guest: 403, account: 403, ann: 404 };
/** The store's token, a signed-in customer or an account member (their own carts, orders). */
const BUYER: Expect = { store: 200, guest: 403, account: 200, ann: 200 };
/** The account member's own account or record. */
const THE_MEMBERS: Expect = { store: 200, guest: 403, account: 200, ann: 403 };
/** Another account or member, as the account member sees it: it does not exist. */
const NOT_THE_MEMBERS: Expect = { store: 200, guest: 403, account: 404, ann: 403 };
/** The store's private file: the store's token reads it; for any other it does not exist. */
const PRIVATE_FILE: Expect = { store: 200, guest: 404, account: 404, ann: 404 };
/** What exists for nobody (an OpenID Connect profile: this service has no identity provider). */
const NONE_SUCH: Expect = { store: 404, guest: 404, account: 404, ann: 404 };
const REALM = '/v2/authentication-realms/:realmId';
const UAI = `${REALM}/user-authentication-info/:uaiId`;
const MEMBERSHIPS = '/v2/accounts/:accountId/account-memberships';

/** Fixture names a case's params refer to; resolved once the fixtures exist. */
type Ref =
  | 'api'
  | 'field'
  | 'entry'
  | 'slug'
  | 'account'
  | 'otherAccount'
  | 'realm'
  | 'profile'
  | 'member'
  | 'otherMember'
  | 'passwordInfo'
  | 'membership'
  | 'file'
  | 'fileName'
  | 'publicFile'
  | 'publicFileName'
  | 'currency'
  | 'ann'
  | 'bob'
  | 'annCart'
  | 'bobCart'
  | 'guestCart'
  | 'annOrder'
  | 'bobOrder'
  | 'guestOrder'
  | 'stockProduct'
  | 'transaction'
  | 'location'
  | 'pricebook'
  | 'price'
  | 'priceModifier'
  | 'product'
  | 'variation'
  | 'option'
  | 'optionModifier'
  | 'job'
  | 'hierarchy'
  | 'node'
  | 'catalog'
  | 'release'
  | 'rule'
  | 'publicHierarchy'
  | 'publicNode'
  | 'publicProduct'
  | 'promotion'
  | 'rulePromotion'
  | 'promoCode'
  | 'integration'
  | 'integrationJob'
  | 'exportJob'
  | 'accountAddress'
  | 'otherAccountAddress'
  | 'annAddress'
  | 'bobAddress';

interface Case {
  params?: Record<string, Ref>;
  expect: Expect;
}

const API = '/v2/settings/extensions/custom-apis';
const BOOKS = '/pcm/pricebooks';

/** Every GET route of the service → what each kind of token gets. */
const TABLE: Record<string, Case[]> = {
  // Outside /v2: the service's health, for load balancers, needs no token at all.
  '/healthz': [{ expect: ANYONE }],
  '/v2/settings': [{ expect: STORE }],
  '/v2/settings/cart': [{ expect: STORE }],
  [API]: [{ expect: STORE }],
  [`${API}/:id`]: [{ params: { id: 'api' }, expect: STORE }],
  [`${API}/:id/fields`]: [{ params: { id: 'api' }, expect: STORE }],
  [`${API}/:id/fields/:fieldId`]: [{ params: { id: 'api', fieldId: 'field' }, expect: STORE }],
  [`${API}/:customApiId/entries`]: [{ params: { customApiId: 'api' }, expect: STORE }],
  [`${API}/:customApiId/entries/:entryId`]: [
    { params: { customApiId: 'api', entryId: 'entry' }, expect: STORE },
  ],
  '/v2/extensions/:slug': [{ params: { slug: 'slug' }, expect: STORE }],
  '/v2/extensions/:slug/:entryId': [{ params: { slug: 'slug', entryId: 'entry' }, expect: STORE }],
  '/v2/carts': [{ expect: BUYER }],
  '/v2/carts/:cartId': [
    { params: { cartId: 'guestCart' }, expect: ANYONE },
    { params: { cartId: 'annCart' }, expect: { ...ANYONE, guest: 404, account: 404 } },
    { params: { cartId: 'bobCart' }, expect: { ...ANYONE, guest: 404, account: 404, ann: 404 } },
  ],
  '/v2/carts/:cartId/items': [
    { params: { cartId: 'guestCart' }, expect: ANYONE },
    { params: { cartId: 'annCart' }, expect: { ...ANYONE, guest: 404, account: 404 } },
    { params: { cartId: 'bobCart' }, expect: { ...ANYONE, guest: 404, account: 404, ann: 404 } },
  ],
  '/v2/orders': [{ expect: BUYER }],
  // The account member's token is a buyer's: another's order does not exist for it.
  '/v2/orders/:orderId': [
    { params: { orderId: 'annOrder' }, expect: { ...ANNS, account: 404 } },
    { params: { orderId: 'bobOrder' }, expect: { ...NOT_ANNS, account: 404 } },
    { params: { orderId: 'guestOrder' }, expect: { ...NOT_ANNS, account: 404 } },
  ],
  // Files: any token lists and reads the public ones (a storefront's product images); a
  // private file does not exist for a shopper's token.
  '/v2/files': [{ expect: ANYONE }],
  '/v2/files/:fileId': [
    { params: { fileId: 'file' }, expect: PRIVATE_FILE },
    { params: { fileId: 'publicFile' }, expect: ANYONE },
  ],
  '/v2/files/:fileId/content': [
    { params: { fileId: 'file' }, expect: PRIVATE_FILE },
    { params: { fileId: 'publicFile' }, expect: ANYONE },
  ],
  // A public file's bytes at its link.href: no token needed (nor looked at).
  '/files/:fileId/:fileName': [
    { params: { fileId: 'publicFile', fileName: 'publicFileName' }, expect: ANYONE },
    { params: { fileId: 'file', fileName: 'fileName' }, expect: NONE_SUCH },
  ],
  // Currencies: any token of the store reads them (a storefront formats its prices).
  '/v2/currencies': [{ expect: ANYONE }],
  '/v2/currencies/:currencyId': [{ params: { currencyId: 'currency' }, expect: ANYONE }],
  '/v2/integrations': [{ expect: STORE }],
  '/v2/integrations/logs': [{ expect: STORE }],
  '/v2/integrations/:integrationId': [{ params: { integrationId: 'integration' }, expect: STORE }],
  '/v2/integrations/:integrationId/logs': [
    { params: { integrationId: 'integration' }, expect: STORE },
  ],
  '/v2/integrations/:integrationId/jobs': [
    { params: { integrationId: 'integration' }, expect: STORE },
  ],
  '/v2/integrations/:integrationId/jobs/:jobId': [
    { params: { integrationId: 'integration', jobId: 'integrationJob' }, expect: STORE },
  ],
  '/v2/integrations/:integrationId/jobs/:jobId/logs': [
    { params: { integrationId: 'integration', jobId: 'integrationJob' }, expect: STORE },
  ],
  '/v2/jobs': [{ expect: STORE }],
  '/v2/jobs/:jobId': [{ params: { jobId: 'exportJob' }, expect: STORE }],
  '/v2/jobs/:jobId/file': [{ params: { jobId: 'exportJob' }, expect: STORE }],
  '/v2/jobs/:jobId/file/content': [{ params: { jobId: 'exportJob' }, expect: STORE }],
  // The member lists their own account alone (the foreign-data check below holds it to that).
  '/v2/accounts': [{ expect: THE_MEMBERS }],
  '/v2/accounts/:accountId': [
    { params: { accountId: 'account' }, expect: THE_MEMBERS },
    { params: { accountId: 'otherAccount' }, expect: NOT_THE_MEMBERS },
  ],
  // The account-authentication realm, members and memberships: the store's, but for the
  // member's own record.
  // A login page reads the settings and the realm's OpenID Connect profiles (none here).
  '/v2/settings/account-authentication': [{ expect: ANYONE }],
  '/v2/authentication-realms/:realmId/openid-connect-profiles': [
    { params: { realmId: 'realm' }, expect: ANYONE },
  ],
  '/v2/authentication-realms/:realmId/openid-connect-profiles/:profileId': [
    { params: { realmId: 'realm', profileId: 'profile' }, expect: NONE_SUCH },
  ],
  '/v2/authentication-realms/:realmId/oidc-profiles': [
    { params: { realmId: 'realm' }, expect: ANYONE },
  ],
  '/v2/authentication-realms/:realmId/oidc-profiles/:profileId': [
    { params: { realmId: 'realm', profileId: 'profile' }, expect: NONE_SUCH },
  ],
  [`${REALM}/password-profiles`]: [{ params: { realmId: 'realm' }, expect: STORE }],
  [`${REALM}/password-profiles/:profileId`]: [
    { params: { realmId: 'realm', profileId: 'profile' }, expect: STORE },
  ],
  [`${REALM}/user-authentication-info`]: [{ params: { realmId: 'realm' }, expect: STORE }],
  [UAI]: [{ params: { realmId: 'realm', uaiId: 'member' }, expect: STORE }],
  [`${UAI}/user-authentication-password-profile-info`]: [
    { params: { realmId: 'realm', uaiId: 'member' }, expect: STORE },
  ],
  [`${UAI}/user-authentication-password-profile-info/:infoId`]: [
    { params: { realmId: 'realm', uaiId: 'member', infoId: 'passwordInfo' }, expect: STORE },
  ],
  '/v2/account-members': [{ expect: THE_MEMBERS }],
  '/v2/account-members/:memberId': [
    { params: { memberId: 'member' }, expect: THE_MEMBERS },
    { params: { memberId: 'otherMember' }, expect: NOT_THE_MEMBERS },
  ],
  '/v2/account-members/:memberId/account-memberships': [
    { params: { memberId: 'member' }, expect: STORE },
  ],
  [MEMBERSHIPS]: [{ params: { accountId: 'account' }, expect: STORE }],
  [`${MEMBERSHIPS}/unassigned-account-members`]: [
    { params: { accountId: 'account' }, expect: STORE },
  ],
  [`${MEMBERSHIPS}/:membershipId`]: [
    { params: { accountId: 'account', membershipId: 'membership' }, expect: STORE },
  ],
  '/v2/customers': [{ expect: CUSTOMER }],
  // The Product Experience Manager is the store's admin API: client_credentials only.
  '/pcm/products': [{ expect: STORE }],
  '/pcm/products/:productId': [{ params: { productId: 'product' }, expect: STORE }],
  '/pcm/products/:productId/children': [{ params: { productId: 'product' }, expect: STORE }],
  '/pcm/products/:productId/nodes': [{ params: { productId: 'product' }, expect: STORE }],
  '/pcm/products/:productId/relationships/variations': [
    { params: { productId: 'product' }, expect: STORE },
  ],
  '/pcm/products/:productId/relationships/files': [
    { params: { productId: 'product' }, expect: STORE },
  ],
  '/pcm/products/:productId/relationships/main_image': [
    { params: { productId: 'product' }, expect: STORE },
  ],
  '/pcm/variations': [{ expect: STORE }],
  '/pcm/variations/:variationId': [{ params: { variationId: 'variation' }, expect: STORE }],
  '/pcm/variations/:variationId/options': [{ params: { variationId: 'variation' }, expect: STORE }],
  '/pcm/variations/:variationId/options/:optionId': [
    { params: { variationId: 'variation', optionId: 'option' }, expect: STORE },
  ],
  '/pcm/variations/:variationId/options/:optionId/modifiers': [
    { params: { variationId: 'variation', optionId: 'option' }, expect: STORE },
  ],
  '/pcm/variations/:variationId/options/:optionId/modifiers/:modifierId': [
    {
      params: { variationId: 'variation', optionId: 'option', modifierId: 'optionModifier' },
      expect: STORE,
    },
  ],
  '/pcm/jobs': [{ expect: STORE }],
  '/pcm/jobs/:jobId': [{ params: { jobId: 'job' }, expect: STORE }],
  '/pcm/jobs/:jobId/errors': [{ params: { jobId: 'job' }, expect: STORE }],
  '/pcm/hierarchies': [{ expect: STORE }],
  '/pcm/hierarchies/nodes': [{ expect: STORE }],
  '/pcm/hierarchies/:hierarchyId': [{ params: { hierarchyId: 'hierarchy' }, expect: STORE }],
  '/pcm/hierarchies/:hierarchyId/children': [
    { params: { hierarchyId: 'hierarchy' }, expect: STORE },
  ],
  '/pcm/hierarchies/:hierarchyId/nodes': [{ params: { hierarchyId: 'hierarchy' }, expect: STORE }],
  '/pcm/hierarchies/:hierarchyId/nodes/:nodeId': [
    { params: { hierarchyId: 'hierarchy', nodeId: 'node' }, expect: STORE },
  ],
  '/pcm/hierarchies/:hierarchyId/nodes/:nodeId/children': [
    { params: { hierarchyId: 'hierarchy', nodeId: 'node' }, expect: STORE },
  ],
  '/pcm/hierarchies/:hierarchyId/nodes/:nodeId/products': [
    { params: { hierarchyId: 'hierarchy', nodeId: 'node' }, expect: STORE },
  ],
  '/v2/customers/:customerId': [
    { params: { customerId: 'ann' }, expect: ANNS },
    { params: { customerId: 'bob' }, expect: NOT_ANNS },
  ],
  // Address books: an account's is its members', a customer's is theirs.
  '/v2/accounts/:accountId/addresses': [
    { params: { accountId: 'account' }, expect: THE_MEMBERS },
    { params: { accountId: 'otherAccount' }, expect: NOT_THE_MEMBERS },
  ],
  '/v2/accounts/:accountId/addresses/:addressId': [
    { params: { accountId: 'account', addressId: 'accountAddress' }, expect: THE_MEMBERS },
    {
      params: { accountId: 'otherAccount', addressId: 'otherAccountAddress' },
      expect: NOT_THE_MEMBERS,
    },
  ],
  '/v2/customers/:customerId/addresses': [
    { params: { customerId: 'ann' }, expect: ANNS },
    { params: { customerId: 'bob' }, expect: NOT_ANNS },
  ],
  '/v2/customers/:customerId/addresses/:addressId': [
    { params: { customerId: 'ann', addressId: 'annAddress' }, expect: ANNS },
    { params: { customerId: 'bob', addressId: 'bobAddress' }, expect: NOT_ANNS },
  ],
  // A storefront shows one product's stock and the inventory locations; the rest is the store's.
  '/v2/inventories': [{ expect: STORE }],
  '/v2/inventories/:productId': [{ params: { productId: 'stockProduct' }, expect: ANYONE }],
  '/v2/inventories/:productId/transactions': [
    { params: { productId: 'stockProduct' }, expect: STORE },
  ],
  '/v2/inventories/:productId/transactions/:transactionId': [
    { params: { productId: 'stockProduct', transactionId: 'transaction' }, expect: STORE },
  ],
  '/v2/inventories/locations': [{ expect: ANYONE }],
  '/v2/inventories/locations/:locationId': [{ params: { locationId: 'location' }, expect: ANYONE }],
  [BOOKS]: [{ expect: STORE }],
  [`${BOOKS}/prices`]: [{ expect: STORE }],
  [`${BOOKS}/:pricebookId`]: [{ params: { pricebookId: 'pricebook' }, expect: STORE }],
  [`${BOOKS}/:pricebookId/prices`]: [{ params: { pricebookId: 'pricebook' }, expect: STORE }],
  [`${BOOKS}/:pricebookId/prices/:priceId`]: [
    { params: { pricebookId: 'pricebook', priceId: 'price' }, expect: STORE },
  ],
  [`${BOOKS}/:pricebookId/modifiers`]: [{ params: { pricebookId: 'pricebook' }, expect: STORE }],
  [`${BOOKS}/:pricebookId/modifiers/:modifierId`]: [
    { params: { pricebookId: 'pricebook', modifierId: 'priceModifier' }, expect: STORE },
  ],
  // Catalogs, releases and rules (both paths) are the store's; the shopper catalog is anyone's.
  ...Object.fromEntries(
    ['/catalogs', '/pcm/catalogs'].flatMap((base): [string, Case[]][] => [
      [base, [{ expect: STORE }]],
      [`${base}/:catalogId`, [{ params: { catalogId: 'catalog' }, expect: STORE }]],
      [`${base}/:catalogId/releases`, [{ params: { catalogId: 'catalog' }, expect: STORE }]],
      [
        `${base}/:catalogId/releases/:releaseId`,
        [{ params: { catalogId: 'catalog', releaseId: 'release' }, expect: STORE }],
      ],
      [`${base}/rules`, [{ expect: STORE }]],
      [`${base}/rules/:ruleId`, [{ params: { ruleId: 'rule' }, expect: STORE }]],
    ]),
  ),
  '/catalog': [{ expect: ANYONE }],
  // Catalog Search: the shopper's search is anyone's (the catalog the rules give them); a named
  // release's search is the store's, as its tree is.
  '/catalog/search': [{ expect: ANYONE }],
  '/pcm/catalog/search': [{ expect: ANYONE }],
  '/catalogs/:catalogId/releases/:releaseId/search': [
    { params: { catalogId: 'catalog', releaseId: 'release' }, expect: STORE },
  ],
  '/pcm/catalogs/:catalogId/releases/:releaseId/search': [
    { params: { catalogId: 'catalog', releaseId: 'release' }, expect: STORE },
  ],
  // Promotions of both engines, their codes and usages: the store's (a shopper only applies a
  // code to a cart).
  ...Object.fromEntries(
    (
      [
        ['/v2/promotions', 'promotion'],
        ['/v2/rule-promotions', 'rulePromotion'],
      ] as const
    ).flatMap(([base, ref]): [string, Case[]][] => [
      [base, [{ expect: STORE }]],
      [`${base}/:promotionId`, [{ params: { promotionId: ref }, expect: STORE }]],
      [`${base}/:promotionId/codes`, [{ params: { promotionId: ref }, expect: STORE }]],
      [`${base}/:promotionId/usages`, [{ params: { promotionId: ref }, expect: STORE }]],
      [
        `${base}/:promotionId/codes/:code/usages`,
        [{ params: { promotionId: ref, code: 'promoCode' }, expect: STORE }],
      ],
    ]),
  ),
  // The catalog tree: anyone's under /catalog, the store's under a named release.
  ...Object.fromEntries(
    [
      '/catalog',
      '/catalogs/:catalogId/releases/:releaseId',
      '/pcm/catalogs/:catalogId/releases/:releaseId',
    ].flatMap((base): [string, Case[]][] => {
      const shared = base === '/catalog';
      const ok = shared ? ANYONE : STORE;
      const release: Record<string, Ref> = shared
        ? {}
        : { catalogId: 'catalog', releaseId: 'release' };
      const h: Record<string, Ref> = { ...release, hierarchyId: 'publicHierarchy' };
      const n: Record<string, Ref> = { ...release, nodeId: 'publicNode' };
      const p: Record<string, Ref> = { ...release, productId: 'publicProduct' };
      return [
        [`${base}/hierarchies`, [{ params: release, expect: ok }]],
        [`${base}/hierarchies/:hierarchyId`, [{ params: h, expect: ok }]],
        [`${base}/hierarchies/:hierarchyId/nodes`, [{ params: h, expect: ok }]],
        [`${base}/hierarchies/:hierarchyId/children`, [{ params: h, expect: ok }]],
        [`${base}/hierarchies/:hierarchyId/products`, [{ params: h, expect: ok }]],
        [`${base}/hierarchies/:hierarchyId/relationships/products`, [{ params: h, expect: ok }]],
        [`${base}/nodes`, [{ params: release, expect: ok }]],
        [`${base}/nodes/:nodeId`, [{ params: n, expect: ok }]],
        [`${base}/nodes/:nodeId/relationships/children`, [{ params: n, expect: ok }]],
        [`${base}/nodes/:nodeId/relationships/products`, [{ params: n, expect: ok }]],
        [`${base}/products`, [{ params: release, expect: ok }]],
        [`${base}/products/:productId`, [{ params: p, expect: ok }]],
        // The product is no parent: a 422 for whoever may read the tree.
        [
          `${base}/products/:productId/relationships/children`,
          [
            {
              params: p,
              expect: shared
                ? { store: 422, guest: 422, account: 422, ann: 422 }
                : { ...STORE, store: 422 },
            },
          ],
        ],
        // The product is no bundle: an empty list of component products.
        [
          `${base}/products/:productId/relationships/component_products`,
          [{ params: p, expect: ok }],
        ],
      ];
    }),
  ),
};

const ADDRESS = {
  first_name: 'A',
  last_name: 'B',
  line_1: '1 Road',
  region: 'R',
  postcode: 'P1',
  country: 'GB',
};

let app: FastifyInstance;
let url: string;
const ids = {} as Record<Ref, string>;
const headersOf = {} as Record<Kind, Record<string, string>>;
/** What each shopper kind must never see: other people's data. */
const foreignTo = {} as Record<Kind, string[]>;

async function call(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; text: string; json: any }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}

/** A write that must succeed; returns `data`. */
async function made(method: string, path: string, headers: Record<string, string>, body: unknown) {
  const result = await call(method, path, headers, body);
  if (result.status >= 300) throw new Error(`${method} ${path} → ${result.status}: ${result.text}`);
  return result.json.data;
}

async function token(grant: 'client_credentials' | 'implicit'): Promise<string> {
  const form = new URLSearchParams({ grant_type: grant, client_id: 'alpha' });
  if (grant === 'client_credentials') form.set('client_secret', 'alpha-secret');
  const response = await fetch(`${url}/oauth/access_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

beforeAll(async () => {
  app = await createCommerceService({
    dbPath: ':memory:',
    clients: [{ id: 'alpha', secret: 'alpha-secret' }],
    seed: false,
  });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
  const admin = { authorization: `Bearer ${await token('client_credentials')}` };
  const implicit = { authorization: `Bearer ${await token('implicit')}` };

  const api = await made('POST', API, admin, {
    data: { type: 'custom_api', name: 'Loyalty', slug: 'loyalty', api_type: 'loyalty_ext' },
  });
  ids.api = api.id;
  ids.slug = 'loyalty';
  ids.field = (
    await made('POST', `${API}/${api.id}/fields`, admin, {
      data: { type: 'custom_field', name: 'Email', slug: 'member_email', field_type: 'string' },
    })
  ).id;
  ids.entry = (
    await made('POST', `${API}/${api.id}/entries`, admin, {
      data: { type: 'loyalty_ext', member_email: 'member@example.com' },
    })
  ).id;
  ids.account = (
    await made('POST', '/v2/accounts', admin, { data: { type: 'account', name: 'Acme Ltd' } })
  ).id;
  ids.otherAccount = (
    await made('POST', '/v2/accounts', admin, { data: { type: 'account', name: 'Other Co' } })
  ).id;
  // An account member of Acme Ltd, signed in: the 'account' kind below.
  ids.realm = (
    await call('GET', '/v2/settings/account-authentication', admin)
  ).json.data.relationships.authentication_realm.data.id;
  ids.profile = (
    await call('GET', `/v2/authentication-realms/${ids.realm}/password-profiles`, admin)
  ).json.data[0].id;
  const uaiBase = `/v2/authentication-realms/${ids.realm}/user-authentication-info`;
  for (const [ref, email] of [
    ['member', 'buyer@example.com'],
    ['otherMember', 'other-buyer@example.com'],
  ] as const) {
    ids[ref] = (
      await made('POST', uaiBase, admin, {
        data: { type: 'user_authentication_info', name: ref, email },
      })
    ).id;
  }
  ids.passwordInfo = (
    await made(
      'POST',
      `${uaiBase}/${ids.member}/user-authentication-password-profile-info`,
      admin,
      {
        data: {
          type: 'user_authentication_password_profile_info',
          username: 'buyer@example.com',
          password: 'buyer-pw-1',
          password_profile_id: ids.profile,
        },
      },
    )
  ).id;
  ids.membership = (
    await made('POST', `/v2/accounts/${ids.account}/account-memberships`, admin, {
      data: { type: 'account_membership', account_member_id: ids.member },
    })
  ).id;
  await made('POST', `/v2/accounts/${ids.otherAccount}/account-memberships`, admin, {
    data: { type: 'account_membership', account_member_id: ids.otherMember },
  });
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array([1, 2, 3])], { type: 'text/plain' }), 'private.txt');
  const upload = await fetch(`${url}/v2/files`, { method: 'POST', headers: admin, body: form });
  ids.file = ((await upload.json()) as { data: { id: string } }).data.id;
  ids.fileName = 'private.txt';
  const publicForm = new FormData();
  publicForm.append('public', 'true');
  publicForm.append('file', new Blob([new Uint8Array([4])], { type: 'image/png' }), 'mug.png');
  const publicUpload = await fetch(`${url}/v2/files`, {
    method: 'POST',
    headers: admin,
    body: publicForm,
  });
  ids.publicFile = ((await publicUpload.json()) as { data: { id: string } }).data.id;
  ids.publicFileName = 'mug.png';
  ids.currency = (await call('GET', '/v2/currencies', admin)).json.data[0].id;

  ids.stockProduct = (
    await made('POST', '/pcm/products', admin, {
      data: {
        type: 'product',
        attributes: { name: 'Stocked mug', commodity_type: 'physical', status: 'draft' },
      },
    })
  ).id;
  await made('POST', `/v2/inventories/${ids.stockProduct}`, admin, { data: { quantity: 5 } });
  ids.transaction = (
    await made('POST', `/v2/inventories/${ids.stockProduct}/transactions`, admin, {
      data: { type: 'stock-transaction', action: 'allocate', quantity: 1 },
    })
  ).id;
  ids.location = (
    await made('POST', '/v2/inventories/locations', admin, {
      data: { type: 'inventory_location', attributes: { name: 'Main depot', slug: 'main' } },
    })
  ).id;
  const window = { start: '2020-01-01', end: '2099-01-01', enabled: true };
  ids.promotion = (
    await made('POST', '/v2/promotions', admin, {
      data: {
        type: 'promotion',
        name: 'Ten off',
        promotion_type: 'percent_discount',
        schema: { percent: 10 },
        ...window,
      },
    })
  ).id;
  ids.rulePromotion = (
    await made('POST', '/v2/rule-promotions', admin, {
      data: {
        type: 'rule_promotion',
        name: 'Five off',
        rule_set: { actions: [{ strategy: 'cart_discount', args: ['fixed', 500] }] },
        ...window,
      },
    })
  ).id;
  ids.promoCode = 'STAFF';
  for (const base of ['/v2/promotions', '/v2/rule-promotions']) {
    const id = base === '/v2/promotions' ? ids.promotion : ids.rulePromotion;
    await made('POST', `${base}/${id}/codes`, admin, { data: { codes: [{ code: 'STAFF' }] } });
  }
  ids.pricebook = (
    await made('POST', BOOKS, admin, {
      data: { type: 'pricebook', attributes: { name: 'Retail' } },
    })
  ).id;
  ids.price = (
    await made('POST', `${BOOKS}/${ids.pricebook}/prices`, admin, {
      data: {
        type: 'product-price',
        attributes: { sku: 'mug', currencies: { USD: { amount: 1 } } },
      },
    })
  ).id;
  ids.priceModifier = (
    await made('POST', `${BOOKS}/${ids.pricebook}/modifiers`, admin, {
      data: {
        type: 'price-modifier',
        attributes: {
          name: 'xl',
          modifier_type: 'price_equals',
          currencies: { USD: { amount: 2 } },
        },
      },
    })
  ).id;

  // A catalog: a live parent product with one variation, built; a hierarchy with a node
  // holding the product.
  ids.variation = (
    await made('POST', '/pcm/variations', admin, {
      data: { type: 'product-variation', attributes: { name: 'Secret size' } },
    })
  ).id;
  ids.option = (
    await made('POST', `/pcm/variations/${ids.variation}/options`, admin, {
      data: { type: 'product-variation-option', attributes: { name: 'Large' } },
    })
  ).id;
  ids.optionModifier = (
    await made('POST', `/pcm/variations/${ids.variation}/options/${ids.option}/modifiers`, admin, {
      data: { type: 'product-variation-modifier', attributes: { type: 'sku_append', value: '-L' } },
    })
  ).id;
  ids.product = (
    await made('POST', '/pcm/products', admin, {
      data: {
        type: 'product',
        attributes: {
          name: 'Unreleased gadget',
          commodity_type: 'physical',
          sku: 'SECRET',
          status: 'live',
        },
        relationships: { variations: { data: [{ type: 'product-variation', id: ids.variation }] } },
      },
    })
  ).id;
  ids.job = (await made('POST', `/pcm/products/${ids.product}/build`, admin, undefined)).id;
  ids.hierarchy = (
    await made('POST', '/pcm/hierarchies', admin, {
      data: { type: 'hierarchy', attributes: { name: 'Secret range' } },
    })
  ).id;
  ids.node = (
    await made('POST', `/pcm/hierarchies/${ids.hierarchy}/nodes`, admin, {
      data: { type: 'node', attributes: { name: 'Secret shelf' } },
    })
  ).id;
  await made(
    'POST',
    `/pcm/hierarchies/${ids.hierarchy}/nodes/${ids.node}/relationships/products`,
    admin,
    {
      data: [{ type: 'product', id: ids.product }],
    },
  );

  // A published catalog of a public hierarchy (the secret one stays unpublished) and a rule.
  const publicRange = (
    await made('POST', '/pcm/hierarchies', admin, {
      data: { type: 'hierarchy', attributes: { name: 'Public range' } },
    })
  ).id;
  ids.publicHierarchy = publicRange;
  ids.publicNode = (
    await made('POST', `/pcm/hierarchies/${publicRange}/nodes`, admin, {
      data: { type: 'node', attributes: { name: 'Public shelf' } },
    })
  ).id;
  ids.publicProduct = (
    await made('POST', '/pcm/products', admin, {
      data: {
        type: 'product',
        attributes: { name: 'Public mug', commodity_type: 'physical', sku: 'MUG', status: 'live' },
      },
    })
  ).id;
  await made(
    'POST',
    `/pcm/hierarchies/${publicRange}/nodes/${ids.publicNode}/relationships/products`,
    admin,
    { data: [{ type: 'product', id: ids.publicProduct }] },
  );
  ids.catalog = (
    await made('POST', '/catalogs', admin, {
      data: {
        type: 'catalog',
        attributes: { name: 'Shop', hierarchy_ids: [publicRange], enable_search: true },
      },
    })
  ).id;
  ids.release = (await made('POST', `/catalogs/${ids.catalog}/releases`, admin, undefined)).id;
  ids.rule = (
    await made('POST', '/catalogs/rules', admin, {
      data: {
        type: 'catalog_rule',
        attributes: { name: 'mobile', catalog_id: ids.catalog, channels: ['mobile'] },
      },
    })
  ).id;

  // A webhook observing orders (nothing listens on port 9: its deliveries fail and are logged).
  ids.integration = (
    await made('POST', '/v2/integrations', admin, {
      data: {
        type: 'integration',
        name: 'Order feed',
        integration_type: 'webhook',
        observes: ['order.created'],
        configuration: { url: 'http://127.0.0.1:9/hooks', secret_key: 'hook-secret' },
      },
    })
  ).id;

  const customerTokens = {} as Record<'ann' | 'bob', string>;
  for (const who of ['ann', 'bob'] as const) {
    ids[who] = (
      await made('POST', '/v2/customers', admin, {
        data: { type: 'customer', name: who, email: `${who}@example.com`, password: `${who}-pw-1` },
      })
    ).id;
    customerTokens[who] = (
      await made('POST', '/v2/customers/tokens', implicit, {
        data: { type: 'token', email: `${who}@example.com`, password: `${who}-pw-1` },
      })
    ).token;
  }
  for (const [ref, path, who] of [
    ['accountAddress', `/v2/accounts/${ids.account}`, 'Acme Ltd'],
    ['otherAccountAddress', `/v2/accounts/${ids.otherAccount}`, 'Other Co'],
    ['annAddress', `/v2/customers/${ids.ann}`, 'ann@example.com'],
    ['bobAddress', `/v2/customers/${ids.bob}`, 'bob@example.com'],
  ] as const) {
    ids[ref] = (
      await made('POST', `${path}/addresses`, admin, {
        data: { ...ADDRESS, type: 'address', name: `${who} office` },
      })
    ).id;
  }
  const shop = async (headers: Record<string, string>, name: string, customer?: unknown) => {
    const cart = await made('POST', '/v2/carts', headers, { data: { name } });
    await made('POST', `/v2/carts/${cart.id}/items`, headers, {
      data: { type: 'custom_item', name, sku: name, quantity: 1, price: { amount: 100 } },
    });
    const order = await made('POST', `/v2/carts/${cart.id}/checkout`, headers, {
      data: { ...(customer ? { customer } : {}), billing_address: ADDRESS },
    });
    return { cart: cart.id as string, order: order.id as string };
  };
  const asAnn = { ...implicit, 'x-moltin-customer-token': customerTokens.ann };
  const asBob = { ...implicit, 'x-moltin-customer-token': customerTokens.bob };
  ({ cart: ids.annCart, order: ids.annOrder } = await shop(asAnn, 'ann-cart'));
  ({ cart: ids.bobCart, order: ids.bobOrder } = await shop(asBob, 'bob-cart'));
  ({ cart: ids.guestCart, order: ids.guestOrder } = await shop(implicit, 'guest-cart', {
    name: 'Gus Guest',
    email: 'guest@example.com',
  }));

  ids.integrationJob = (
    await call('GET', `/v2/integrations/${ids.integration}/jobs`, admin)
  ).json.data[0].id;
  ids.exportJob = (
    await made('POST', '/v2/jobs', admin, { data: { type: 'job', job_type: 'order_export' } })
  ).id;
  for (let i = 0; i < 100; i += 1) {
    const job = await call('GET', `/v2/jobs/${ids.exportJob}`, admin);
    if (job.json.data.status === 'complete') break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }

  headersOf.store = admin;
  headersOf.guest = implicit;
  // A B2B account member of Acme Ltd, signed in, under the implicit token.
  const accountToken = (
    await made('POST', '/v2/account-members/tokens', implicit, {
      data: {
        type: 'account_management_authentication_token',
        authentication_mechanism: 'password',
        password_profile_id: ids.profile,
        username: 'buyer@example.com',
        password: 'buyer-pw-1',
      },
    })
  )[0].token;
  headersOf.account = { ...implicit, 'ep-account-management-authentication-token': accountToken };
  headersOf.ann = asAnn;
  const everyone = [
    'ann@example.com',
    'bob@example.com',
    'guest@example.com',
    'Gus Guest',
    'member@example.com',
    'Acme Ltd',
    'Other Co',
    'buyer@example.com',
    'other-buyer@example.com',
    'private.txt',
    ids.ann,
    ids.bob,
    ids.annOrder,
    ids.bobOrder,
    ids.guestOrder,
    ids.account,
    ids.otherAccount,
    ids.member,
    ids.otherMember,
    'Unreleased gadget',
    'Secret range',
    'Secret shelf',
    'Acme Ltd office',
    'Other Co office',
    'ann@example.com office',
    'bob@example.com office',
  ];
  // An integration's secret key is nobody's to read, the store's token included.
  foreignTo.store = ['hook-secret'];
  foreignTo.guest = [...everyone, 'hook-secret'];
  // The member sees their own record and account, nothing else.
  const theMembers = ['Acme Ltd', 'Acme Ltd office', 'buyer@example.com', ids.account, ids.member];
  foreignTo.account = [...everyone.filter((v) => !theMembers.includes(v)), 'hook-secret'];
  foreignTo.ann = everyone.filter(
    (v) =>
      v !== 'ann@example.com' &&
      v !== 'ann@example.com office' &&
      v !== ids.ann &&
      v !== ids.annOrder,
  );
  foreignTo.ann.push('hook-secret');
});
afterAll(() => app?.close());

function pathOf(route: string, params: Record<string, Ref> = {}): string {
  return route.replace(/:(\w+)/g, (_match, name: string) => {
    const ref = params[name];
    if (ref === undefined) throw new Error(`${route}: no value for :${name}`);
    return ids[ref];
  });
}

describe('the scope of each kind of token, route by route', () => {
  it('has a decision for every GET route the service registered, and no stale one', () => {
    const gets = serviceRoutes(app)
      .filter((route) => route.method === 'GET')
      .map((route) => route.url);
    expect(gets.length).toBeGreaterThan(20);
    expect([...gets].sort()).toEqual(Object.keys(TABLE).sort());
  });

  it('answers every GET route as the table says, and never with another customer’s data', async () => {
    const problems: string[] = [];
    for (const route of serviceRoutes(app).filter((r) => r.method === 'GET')) {
      const cases = TABLE[route.url];
      if (cases === undefined) {
        problems.push(`${route.url}: no scope decision in the test's table`);
        continue;
      }
      for (const { params, expect: expected } of cases) {
        const path = pathOf(route.url, params);
        for (const kind of KINDS) {
          const result = await call('GET', path, headersOf[kind]);
          if (result.status !== expected[kind]) {
            problems.push(`${kind} GET ${path}: ${result.status}, expected ${expected[kind]}`);
          }
          // (A 404 may name the id the caller sent: that is no one's data.)
          for (const value of foreignTo[kind]) {
            if (result.text.includes(value) && !path.includes(value)) {
              problems.push(`${kind} GET ${path}: saw ${value}`);
            }
          }
          if (result.status === 403) {
            const detail: string = result.json?.errors?.[0]?.detail ?? '';
            if (!/client_credentials/.test(detail)) {
              problems.push(`${kind} GET ${path}: 403 without saying what to use: ${detail}`);
            }
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('lists only the signed-in customer’s own orders, carts and record', async () => {
    const idsOf = async (path: string) =>
      ((await call('GET', path, headersOf.ann)).json.data as { id: string }[]).map((r) => r.id);
    expect(await idsOf('/v2/orders')).toEqual([ids.annOrder]);
    expect(await idsOf('/v2/carts')).toEqual([ids.annCart]);
    expect(await idsOf('/v2/customers')).toEqual([ids.ann]);
    // The store's token sees the whole store.
    const all = await call('GET', '/v2/orders', headersOf.store);
    expect(all.json.meta.results.total).toBe(3);
  });

  it('refuses an implicit token every write of the store’s data, before reading the body', async () => {
    // The shopper's writes (carts, checkout, signing in) are walked in test/gateway/guest-shopping;
    // POST /v2/inventories/multiple is a read of several products' stock (inventory.test.ts);
    // paying an order the shopper placed is walked in test/gateway/catalog-journey.test.ts; a
    // member's or customer's own address book in test/service/addresses.test.ts; a multi-search
    // only reads (test/service/catalog-search.test.ts); POST /catalog/products/:productId/configure
    // is a read of the catalog with a body (catalog-bundles.test.ts).
    const shopperWrites =
      /^\/catalog\/products\/:productId\/configure$|^\/v2\/carts(\/|$)|^\/v2\/customers\/tokens$|^\/v2\/account-members\/tokens$|^\/v2\/inventories\/multiple$|^\/v2\/orders\/:orderId\/payments$|^\/v2\/(accounts\/:accountId|customers\/:customerId)\/addresses(\/|$)|^(\/pcm)?\/catalog\/multi-search$/;
    const problems: string[] = [];
    const writes = serviceRoutes(app).filter(
      (r) =>
        !['GET', 'HEAD'].includes(r.method) &&
        (r.url.startsWith('/v2/') || r.url.startsWith('/pcm/') || r.url.startsWith('/catalog')),
    );
    expect(writes.length).toBeGreaterThan(20);
    for (const route of writes) {
      if (shopperWrites.test(route.url)) continue;
      // A member renames their own account (account-signup.test.ts); deleting one is the store's.
      if (route.method === 'PUT' && route.url === '/v2/accounts/:accountId') continue;
      const path = route.url.replace(/:\w+/g, '00000000-0000-4000-8000-000000000000');
      for (const kind of ['guest', 'account', 'ann'] as const) {
        // Not JSON: a route that read the body would answer 400.
        const response = await fetch(`${url}${path}`, {
          method: route.method,
          headers: { ...headersOf[kind], 'content-type': 'application/json' },
          body: '{not json',
        });
        const text = await response.text();
        if (response.status !== 403 || !/read-only/.test(text)) {
          problems.push(`${kind} ${route.method} ${path}: ${response.status} ${text}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
