/**
 * What each kind of token may do, route by route: the table of docs/security.md's security model.
 * The production API scopes an implicit token (it needs only the client id, which storefronts
 * publish) to shopper work: carts, checkout, signing in, and, with the customer's
 * `X-Moltin-Customer-Token`, that customer's own record and orders, or with an account member's
 * `EP-Account-Management-Authentication-Token`, that account's carts, orders and record and the
 * member's own record. Everything else of the store (settings, Custom APIs and their entries,
 * accounts, account members and memberships, authentication realms, private files, every store-wide
 * list) needs the store's client_credentials token.
 *
 * Every /v2 and /pcm route has an entry in ROUTE_SCOPES: app.ts refuses to register a route without
 * one, so a new route cannot go live without a decision. The check runs in the /v2 onRequest
 * hook, after the bearer, customer and account tokens are resolved and before the body is read.
 */
import type { FastifyRequest } from 'fastify';
import { forbidden } from './errors.ts';

/**
 * - `store`: client_credentials only.
 * - `shopper`: any token of the store. Carts guard a customer's cart themselves (carts.ts:
 *   only that customer, or the store's token without a customer token, may use it).
 * - `customer`: client_credentials, or an implicit token with `X-Moltin-Customer-Token`; the
 *   route then answers for that customer only (another customer's record is a 404).
 * - `buyer`: as `customer`, or an implicit token with `EP-Account-Management-Authentication-Token`;
 *   the route then answers for that account only (another account's cart or order is a 404).
 * - `account`: client_credentials, or an implicit token with an account token; the route answers
 *   for the token's own account or member only (any other id is a 404, so existence does not
 *   leak).
 */
export type RouteScope = 'store' | 'shopper' | 'customer' | 'buyer' | 'account';

const ENTRIES_BY_ID = '/v2/settings/extensions/custom-apis/:customApiId/entries';

/**
 * The Product Experience Manager's catalog routes (/pcm products, variations, builds,
 * hierarchies, nodes): the store's admin API, so every one is client_credentials only
 * (production keeps shoppers to the published catalog, /catalog). In ROUTE_SCOPES below.
 */
const PCM_PRODUCT = '/pcm/products/:productId';
const PCM_OPTION = '/pcm/variations/:variationId/options/:optionId';
const PCM_NODE = '/pcm/hierarchies/:hierarchyId/nodes/:nodeId';
const PCM_ROUTES = [
  'POST /pcm/products',
  'GET /pcm/products',
  `GET ${PCM_PRODUCT}`,
  `PUT ${PCM_PRODUCT}`,
  `DELETE ${PCM_PRODUCT}`,
  `GET ${PCM_PRODUCT}/children`,
  `POST ${PCM_PRODUCT}/build`,
  `GET ${PCM_PRODUCT}/nodes`,
  ...['variations', 'files', 'main_image'].flatMap((rel) =>
    ['GET', 'POST', 'PUT', 'DELETE'].map((m) => `${m} ${PCM_PRODUCT}/relationships/${rel}`),
  ),
  'POST /pcm/variations',
  'GET /pcm/variations',
  'GET /pcm/variations/:variationId',
  'PUT /pcm/variations/:variationId',
  'DELETE /pcm/variations/:variationId',
  'POST /pcm/variations/:variationId/options',
  'GET /pcm/variations/:variationId/options',
  `GET ${PCM_OPTION}`,
  `PUT ${PCM_OPTION}`,
  `DELETE ${PCM_OPTION}`,
  `POST ${PCM_OPTION}/modifiers`,
  `GET ${PCM_OPTION}/modifiers`,
  `GET ${PCM_OPTION}/modifiers/:modifierId`,
  `PUT ${PCM_OPTION}/modifiers/:modifierId`,
  `DELETE ${PCM_OPTION}/modifiers/:modifierId`,
  'GET /pcm/jobs',
  'GET /pcm/jobs/:jobId',
  'GET /pcm/jobs/:jobId/errors',
  'POST /pcm/jobs/:jobId/cancel',
  'POST /pcm/hierarchies',
  'GET /pcm/hierarchies',
  'GET /pcm/hierarchies/nodes',
  'GET /pcm/hierarchies/:hierarchyId',
  'PUT /pcm/hierarchies/:hierarchyId',
  'DELETE /pcm/hierarchies/:hierarchyId',
  'GET /pcm/hierarchies/:hierarchyId/children',
  'POST /pcm/hierarchies/:hierarchyId/nodes',
  'GET /pcm/hierarchies/:hierarchyId/nodes',
  `GET ${PCM_NODE}`,
  `PUT ${PCM_NODE}`,
  `DELETE ${PCM_NODE}`,
  `GET ${PCM_NODE}/children`,
  `POST ${PCM_NODE}/relationships/children`,
  `PUT ${PCM_NODE}/relationships/parent`,
  `DELETE ${PCM_NODE}/relationships/parent`,
  `POST ${PCM_NODE}/relationships/products`,
  `DELETE ${PCM_NODE}/relationships/products`,
  `GET ${PCM_NODE}/products`,
];

/**
 * Catalogs, releases and rules: the store's admin API, under production's /catalogs and the
 * older docs' /pcm/catalogs (both served).
 */
const CATALOG_ADMIN_ROUTES = ['/catalogs', '/pcm/catalogs'].flatMap((base) => [
  `POST ${base}`,
  `GET ${base}`,
  `GET ${base}/:catalogId`,
  `PUT ${base}/:catalogId`,
  `DELETE ${base}/:catalogId`,
  `POST ${base}/:catalogId/releases`,
  `GET ${base}/:catalogId/releases`,
  `DELETE ${base}/:catalogId/releases`,
  `GET ${base}/:catalogId/releases/:releaseId`,
  `DELETE ${base}/:catalogId/releases/:releaseId`,
  `POST ${base}/rules`,
  `GET ${base}/rules`,
  `GET ${base}/rules/:ruleId`,
  `PUT ${base}/rules/:ruleId`,
  `DELETE ${base}/rules/:ruleId`,
]);

/** The shopper catalog's tree, under /catalog and under a release (/catalogs/{c}/releases/{r}). */
const CATALOG_TREE = [
  '/hierarchies',
  '/hierarchies/:hierarchyId',
  '/hierarchies/:hierarchyId/nodes',
  '/hierarchies/:hierarchyId/children',
  '/hierarchies/:hierarchyId/products',
  '/hierarchies/:hierarchyId/relationships/products',
  '/nodes',
  '/nodes/:nodeId',
  '/nodes/:nodeId/relationships/children',
  '/nodes/:nodeId/relationships/products',
  '/products',
  '/products/:productId',
  '/products/:productId/relationships/children',
  '/products/:productId/relationships/component_products',
];
const RELEASE_TREE_ROUTES = ['/catalogs', '/pcm/catalogs'].flatMap((base) =>
  CATALOG_TREE.map((path) => `GET ${base}/:catalogId/releases/:releaseId${path}`),
);

/** Promotions of both engines, their codes and usages: the store's own (merchandisers'). */
const PROMOTION_ROUTES = ['/v2/promotions', '/v2/rule-promotions'].flatMap((base) => [
  `POST ${base}`,
  `GET ${base}`,
  `GET ${base}/:promotionId`,
  `PUT ${base}/:promotionId`,
  `DELETE ${base}/:promotionId`,
  `POST ${base}/:promotionId/codes`,
  `GET ${base}/:promotionId/codes`,
  `DELETE ${base}/:promotionId/codes`,
  `DELETE ${base}/:promotionId/codes/:codeId`,
  `GET ${base}/:promotionId/usages`,
  `GET ${base}/:promotionId/codes/:code/usages`,
  `POST ${base}/usages/anonymize`,
]);

/**
 * The account-authentication realm (settings, password profiles, user-authentication-info and
 * their passwords), account members and memberships: the store's (client_credentials) only.
 */
const REALM = '/v2/authentication-realms/:realmId';
const UAI = `${REALM}/user-authentication-info/:uaiId`;
const MEMBERSHIPS = '/v2/accounts/:accountId/account-memberships';
const ACCOUNT_MEMBER_ROUTES = [
  'PUT /v2/settings/account-authentication',
  `POST ${REALM}/password-profiles`,
  `GET ${REALM}/password-profiles`,
  `GET ${REALM}/password-profiles/:profileId`,
  `POST ${REALM}/user-authentication-info`,
  `GET ${REALM}/user-authentication-info`,
  `GET ${UAI}`,
  `PUT ${UAI}`,
  `DELETE ${UAI}`,
  `POST ${UAI}/user-authentication-password-profile-info`,
  `GET ${UAI}/user-authentication-password-profile-info`,
  `GET ${UAI}/user-authentication-password-profile-info/:infoId`,
  `PUT ${UAI}/user-authentication-password-profile-info/:infoId`,
  `DELETE ${UAI}/user-authentication-password-profile-info/:infoId`,
  'GET /v2/account-members/:memberId/account-memberships',
  `POST ${MEMBERSHIPS}`,
  `GET ${MEMBERSHIPS}`,
  `GET ${MEMBERSHIPS}/unassigned-account-members`,
  `GET ${MEMBERSHIPS}/:membershipId`,
  `PUT ${MEMBERSHIPS}/:membershipId`,
  `DELETE ${MEMBERSHIPS}/:membershipId`,
];

/** `METHOD url` (the url as the route was declared, prefix included) → its scope. */
export const ROUTE_SCOPES: Readonly<Record<string, RouteScope>> = {
  'GET /v2/settings': 'store',
  'PUT /v2/settings': 'store',
  'GET /v2/settings/cart': 'store',
  'PUT /v2/settings/cart': 'store',

  'POST /v2/settings/extensions/custom-apis': 'store',
  'GET /v2/settings/extensions/custom-apis': 'store',
  'GET /v2/settings/extensions/custom-apis/:id': 'store',
  'PUT /v2/settings/extensions/custom-apis/:id': 'store',
  'DELETE /v2/settings/extensions/custom-apis/:id': 'store',
  'POST /v2/settings/extensions/custom-apis/:id/fields': 'store',
  'GET /v2/settings/extensions/custom-apis/:id/fields': 'store',
  'GET /v2/settings/extensions/custom-apis/:id/fields/:fieldId': 'store',
  'PUT /v2/settings/extensions/custom-apis/:id/fields/:fieldId': 'store',
  'DELETE /v2/settings/extensions/custom-apis/:id/fields/:fieldId': 'store',

  // Custom API entries: production opens them to shoppers only where the store configured the
  // Custom API for it; this service has no such setting, so they are the store's.
  [`POST ${ENTRIES_BY_ID}`]: 'store',
  [`GET ${ENTRIES_BY_ID}`]: 'store',
  [`GET ${ENTRIES_BY_ID}/:entryId`]: 'store',
  [`PUT ${ENTRIES_BY_ID}/:entryId`]: 'store',
  [`DELETE ${ENTRIES_BY_ID}/:entryId`]: 'store',
  'POST /v2/extensions/:slug': 'store',
  'GET /v2/extensions/:slug': 'store',
  'GET /v2/extensions/:slug/:entryId': 'store',
  'PUT /v2/extensions/:slug/:entryId': 'store',
  'DELETE /v2/extensions/:slug/:entryId': 'store',

  // The list of carts is a customer's ("get customer carts") or an account's; a cart by id is
  // anyone's who holds the id, unless it is a customer's or an account's (carts.ts).
  'GET /v2/carts': 'buyer',
  'POST /v2/carts': 'shopper',
  'GET /v2/carts/:cartId': 'shopper',
  'PUT /v2/carts/:cartId': 'shopper',
  'DELETE /v2/carts/:cartId': 'shopper',
  'GET /v2/carts/:cartId/items': 'shopper',
  'POST /v2/carts/:cartId/items': 'shopper',
  'DELETE /v2/carts/:cartId/items': 'shopper',
  'PUT /v2/carts/:cartId/items/:itemId': 'shopper',
  'DELETE /v2/carts/:cartId/items/:itemId': 'shopper',
  'POST /v2/carts/:cartId/custom-discounts': 'shopper',
  'PUT /v2/carts/:cartId/custom-discounts/:discountId': 'shopper',
  'DELETE /v2/carts/:cartId/custom-discounts/:discountId': 'shopper',
  'POST /v2/carts/:cartId/items/:itemId/custom-discounts': 'shopper',
  'PUT /v2/carts/:cartId/items/:itemId/custom-discounts/:discountId': 'shopper',
  'DELETE /v2/carts/:cartId/items/:itemId/custom-discounts/:discountId': 'shopper',
  'POST /v2/carts/:cartId/checkout': 'shopper',
  'POST /v2/orders/:orderId/payments': 'shopper',
  'DELETE /v2/carts/:cartId/discounts/:code': 'shopper',
  // A cart's owner (carts/relationships-routes.ts): a customer associates carts with themself,
  // an account member with their account; the store's token with any of the store's.
  'POST /v2/carts/:cartId/relationships/customers': 'customer',
  'DELETE /v2/carts/:cartId/relationships/customers': 'customer',
  'POST /v2/carts/:cartId/relationships/accounts': 'account',
  'DELETE /v2/carts/:cartId/relationships/accounts': 'account',

  'GET /v2/orders': 'buyer',
  'GET /v2/orders/:orderId': 'buyer',

  // Currencies: the store's to change; any token of the store reads them (the reference
  // storefront formats prices with getAllCurrencies and its implicit token).
  'POST /v2/currencies': 'store',
  'GET /v2/currencies': 'shopper',
  'GET /v2/currencies/:currencyId': 'shopper',
  'PUT /v2/currencies/:currencyId': 'store',
  'DELETE /v2/currencies/:currencyId': 'store',

  // Files: the store's to upload and delete. Any token reads the public ones (production's
  // storefront lists product images with getAllFiles and its implicit token); a private file
  // is the store's alone, and does not exist for any other token (files/routes.ts).
  'POST /v2/files': 'store',
  'GET /v2/files': 'shopper',
  'GET /v2/files/:fileId': 'shopper',
  'GET /v2/files/:fileId/content': 'shopper',
  'DELETE /v2/files/:fileId': 'store',

  'POST /v2/accounts': 'store',
  // An account member reads their own account (the reference storefront's getV2AccountsAccountId),
  // and lists it alone: how a client holding only the token learns which account it acts for.
  'GET /v2/accounts': 'account',
  'GET /v2/accounts/:accountId': 'account',
  // Address books: an account's members keep the account's (implicit token and account token),
  // a customer keeps theirs (customer token); the store's token reaches every book.
  'POST /v2/accounts/:accountId/addresses': 'account',
  'GET /v2/accounts/:accountId/addresses': 'account',
  'GET /v2/accounts/:accountId/addresses/:addressId': 'account',
  'PUT /v2/accounts/:accountId/addresses/:addressId': 'account',
  'DELETE /v2/accounts/:accountId/addresses/:addressId': 'account',
  'POST /v2/customers/:customerId/addresses': 'customer',
  'GET /v2/customers/:customerId/addresses': 'customer',
  'GET /v2/customers/:customerId/addresses/:addressId': 'customer',
  'PUT /v2/customers/:customerId/addresses/:addressId': 'customer',
  'DELETE /v2/customers/:customerId/addresses/:addressId': 'customer',
  // A member updates their own account (the reference storefront's account summary page).
  'PUT /v2/accounts/:accountId': 'account',
  'DELETE /v2/accounts/:accountId': 'store',

  // Integrations, their jobs and delivery logs, and order exports: the store's.
  'POST /v2/integrations': 'store',
  'GET /v2/integrations': 'store',
  'GET /v2/integrations/logs': 'store',
  'GET /v2/integrations/:integrationId': 'store',
  'PUT /v2/integrations/:integrationId': 'store',
  'DELETE /v2/integrations/:integrationId': 'store',
  'GET /v2/integrations/:integrationId/logs': 'store',
  'GET /v2/integrations/:integrationId/jobs': 'store',
  'GET /v2/integrations/:integrationId/jobs/:jobId': 'store',
  'GET /v2/integrations/:integrationId/jobs/:jobId/logs': 'store',
  'POST /v2/jobs': 'store',
  'GET /v2/jobs': 'store',
  'GET /v2/jobs/:jobId': 'store',
  'GET /v2/jobs/:jobId/file': 'store',
  'GET /v2/jobs/:jobId/file/content': 'store',

  // Account members (read-only: each is a user-authentication-info record of the account realm)
  // and memberships: the store's. A member reads their own record; signing in is a shopper's.
  ...Object.fromEntries(ACCOUNT_MEMBER_ROUTES.map((route) => [route, 'store' as const])),
  // A member reads their own record, and lists it alone (who the token is, from the token).
  'GET /v2/account-members': 'account',
  'GET /v2/account-members/:memberId': 'account',
  'POST /v2/account-members/tokens': 'shopper',

  'POST /v2/customers': 'store',
  'GET /v2/customers': 'customer',
  'GET /v2/customers/:customerId': 'customer',
  'PUT /v2/customers/:customerId': 'store',
  'DELETE /v2/customers/:customerId': 'store',
  // Signing in: what a shopper's token is for. A login or sign-up page reads the realm it signs
  // members into, whether they may sign themselves up, and its OpenID Connect profiles.
  'GET /v2/settings/account-authentication': 'shopper',
  'GET /v2/authentication-realms/:realmId/openid-connect-profiles': 'shopper',
  'GET /v2/authentication-realms/:realmId/openid-connect-profiles/:profileId': 'shopper',
  'GET /v2/authentication-realms/:realmId/oidc-profiles': 'shopper',
  'GET /v2/authentication-realms/:realmId/oidc-profiles/:profileId': 'shopper',
  'POST /v2/customers/tokens': 'shopper',

  // Stock: a storefront shows whether a product is in stock (production's storefront calls
  // getStock with its implicit token), so one product's stock, several products' stock
  // (POST …/multiple is a read) and the inventory locations are a shopper's to read. The list
  // of all stock, the transactions and every write are the store's.
  'POST /v2/inventories': 'store',
  'GET /v2/inventories': 'store',
  'POST /v2/inventories/multiple': 'shopper',
  'POST /v2/inventories/:productId': 'store',
  'GET /v2/inventories/:productId': 'shopper',
  'DELETE /v2/inventories/:productId': 'store',
  'POST /v2/inventories/:productId/transactions': 'store',
  'GET /v2/inventories/:productId/transactions': 'store',
  'GET /v2/inventories/:productId/transactions/:transactionId': 'store',
  'POST /v2/inventories/locations': 'store',
  'GET /v2/inventories/locations': 'shopper',
  'GET /v2/inventories/locations/:locationId': 'shopper',
  'PUT /v2/inventories/locations/:locationId': 'store',
  'DELETE /v2/inventories/locations/:locationId': 'store',

  // Price books, prices and modifiers (PXM admin): the store's.
  'POST /pcm/pricebooks': 'store',
  'GET /pcm/pricebooks': 'store',
  'GET /pcm/pricebooks/prices': 'store',
  'GET /pcm/pricebooks/:pricebookId': 'store',
  'PUT /pcm/pricebooks/:pricebookId': 'store',
  'DELETE /pcm/pricebooks/:pricebookId': 'store',
  'POST /pcm/pricebooks/:pricebookId/replicate': 'store',
  'POST /pcm/pricebooks/:pricebookId/prices': 'store',
  'GET /pcm/pricebooks/:pricebookId/prices': 'store',
  'GET /pcm/pricebooks/:pricebookId/prices/:priceId': 'store',
  'PUT /pcm/pricebooks/:pricebookId/prices/:priceId': 'store',
  'DELETE /pcm/pricebooks/:pricebookId/prices/:priceId': 'store',
  'POST /pcm/pricebooks/:pricebookId/modifiers': 'store',
  'GET /pcm/pricebooks/:pricebookId/modifiers': 'store',
  'GET /pcm/pricebooks/:pricebookId/modifiers/:modifierId': 'store',
  'PUT /pcm/pricebooks/:pricebookId/modifiers/:modifierId': 'store',
  'DELETE /pcm/pricebooks/:pricebookId/modifiers/:modifierId': 'store',

  // Products, variations, builds, hierarchies and nodes (PXM admin): the store's.
  ...Object.fromEntries(PROMOTION_ROUTES.map((route) => [route, 'store' as const])),
  ...Object.fromEntries(PCM_ROUTES.map((route) => [route, 'store' as const])),
  ...Object.fromEntries(CATALOG_ADMIN_ROUTES.map((route) => [route, 'store' as const])),

  // The shopper catalog: what a storefront browses with its implicit token.
  'GET /catalog': 'shopper',
  ...Object.fromEntries(CATALOG_TREE.map((path) => [`GET /catalog${path}`, 'shopper' as const])),
  // A bundle configured: a read of the catalog with a body (catalogs/bundle-routes.ts).
  'POST /catalog/products/:productId/configure': 'shopper',
  // The same tree of a named release: the store's (a shopper reads the catalog rules give it).
  ...Object.fromEntries(RELEASE_TREE_ROUTES.map((route) => [route, 'store' as const])),

  // Catalog Search: a shopper searches the catalog the rules give it (a multi-search is a POST
  // that only reads); a named release's search is the store's, as its tree is.
  ...Object.fromEntries(
    ['/catalog', '/pcm/catalog'].flatMap((base): [string, RouteScope][] => [
      [`GET ${base}/search`, 'shopper'],
      [`POST ${base}/multi-search`, 'shopper'],
    ]),
  ),
  ...Object.fromEntries(
    ['/catalogs', '/pcm/catalogs'].flatMap((base): [string, RouteScope][] => [
      [`GET ${base}/:catalogId/releases/:releaseId/search`, 'store'],
      [`POST ${base}/:catalogId/releases/:releaseId/multi-search`, 'store'],
    ]),
  ),
};

/** Routes under these prefixes are behind the tokens, and each needs a scope here. */
export const SCOPED_PREFIXES: readonly string[] = ['/v2/', '/pcm/', '/catalog'];

/** Whether a route (its url as declared) is behind the tokens and so needs a scope. */
export function needsScope(url: string): boolean {
  return SCOPED_PREFIXES.some((prefix) => url.startsWith(prefix));
}

/** HEAD is served by the GET route of the same url (fastify's exposeHeadRoutes). */
function key(method: string, url: string): string {
  return `${method === 'HEAD' ? 'GET' : method} ${url}`;
}

/** The scope of a route, or undefined when it has none. */
export function scopeOf(method: string, url: string): RouteScope | undefined {
  return ROUTE_SCOPES[key(method, url)];
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Throws 403 when the request's token may not use its route. Call after `request.store`,
 * `request.customer` and `request.accountMember` are set. A request that matched no route passes: it answers 404.
 */
export function checkScope(request: FastifyRequest): void {
  if (request.store.grant === 'client_credentials' || request.is404) return;
  const url = request.routeOptions.url ?? '';
  const scope = scopeOf(request.method, url);
  if (scope === 'shopper') return;
  if (scope === 'customer' && request.customer !== null) return;
  if (scope === 'buyer' && (request.customer !== null || request.accountMember !== null)) return;
  if (scope === 'account' && request.accountMember !== null) return;
  if (!READS.has(request.method)) {
    throw forbidden(
      'This token comes from an implicit grant and is read-only here; use a client_credentials token to write.',
    );
  }
  if (scope === 'customer') {
    throw forbidden(
      'An implicit token reads this only for a signed-in customer: send X-Moltin-Customer-Token (their own data), or use a client_credentials token.',
    );
  }
  if (scope === 'buyer') {
    throw forbidden(
      'An implicit token reads this only for a signed-in customer or account member: send X-Moltin-Customer-Token or EP-Account-Management-Authentication-Token (their own data), or use a client_credentials token.',
    );
  }
  if (scope === 'account') {
    throw forbidden(
      'An implicit token reads this only for a signed-in account member: send EP-Account-Management-Authentication-Token (their own account and record), or use a client_credentials token.',
    );
  }
  throw forbidden(
    'An implicit token cannot read this: it is the store’s own data and needs a client_credentials token.',
  );
}
