/**
 * The bad-input corpus, end to end over real sockets: gateway → fault proxy (pass-through, as a
 * recorder) → embedded service. Each case is a hostile or broken request. For every case:
 * - never a 5xx, and the gateway keeps running;
 * - a JSON body whose errors all carry a string `extensions.code` (except the few answers that
 *   are not GraphQL responses at all, e.g. 404 for a path that is not the endpoint), and whose
 *   messages are at most 1,001 characters however large the input;
 * - zero upstream calls when the gateway can judge the input itself;
 * - whatever upstream calls are made go only to known v2 routes, each id one clean segment.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_QUERY_LIMITS } from '../../src/gateway/armor.ts';
import type { FaultUpstream } from '../support/fault-upstream.ts';
import {
  createEntries,
  type HardeningStack,
  startHardeningStack,
} from '../support/hardening-stack.ts';

interface RawRequest {
  method?: string;
  /** Path on the gateway; default /graphql. */
  path?: string;
  headers?: Record<string, string>;
  /** Raw body text; a `{query, variables}` object is JSON-encoded. */
  body?: string | { query: string; variables?: unknown; operationName?: unknown };
  /** Send no Authorization header (default: a valid token). */
  noToken?: boolean;
}

interface Case {
  name: string;
  request: RawRequest;
  /** The gateway can tell the input is bad by itself: no upstream call allowed. Default true. */
  judged?: boolean;
  /** Not a GraphQL response (e.g. 404 for a foreign path): a JSON errors body is not required. */
  notGraphql?: boolean;
  /** Expected code(s) of the first error, when the case pins one. */
  code?: string | string[];
  /** Text of the request the answer must never contain (a password in a broken body). */
  secret?: string;
}

let stack: HardeningStack;
let fault: FaultUpstream;
let token: string;
let customApiId: string;
let entryId: string;
let apisCursor: string;
let entriesCursor: string;

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** Every path the gateway may ever call: known v2 routes with ids as single clean segments. */
const ALLOWED_PATHS = [
  /^\/v2$/,
  new RegExp(`^/v2/settings/extensions/custom-apis(/${UUID}(/entries(/${UUID})?)?)?$`),
  new RegExp(`^/v2/(orders|files|accounts)(/${UUID})?$`),
  new RegExp(`^/v2/carts/${UUID}(/items(/${UUID}(/custom-discounts(/${UUID})?)?)?)?$`),
  new RegExp(`^/v2/carts(/${UUID}(/custom-discounts(/${UUID})?|/checkout)?)?$`),
  new RegExp(`^/v2/customers(/${UUID}|/tokens)?$`),
];

beforeAll(async () => {
  stack = await startHardeningStack();
  fault = stack.fault as FaultUpstream;
  token = await stack.token();
  const created = await createEntries(stack, token, 'corpus', 3);
  customApiId = created.customApiId;
  entryId = created.entryIds[0] as string;
  await createEntries(stack, token, 'corpustwo', 1);
  const apis = await stack.graphql('{ customApis(first: 1) { edges { cursor } } }');
  apisCursor = apis.body.data.customApis.edges[0].cursor;
  const entries = await stack.graphql(
    'query($c: ID!) { customApiEntries(customApiId: $c, first: 1) { edges { cursor } } }',
    { c: customApiId },
  );
  entriesCursor = entries.body.data.customApiEntries.edges[0].cursor;
});
afterAll(() => stack.close());

/**
 * A mutation of the corpus selects its payload's `userErrors` (added before the payload's closing
 * brace): a refusal the caller can fix is answered there since issue 29, and the runner reads
 * those errors as it reads top-level ones.
 */
const withUserErrors = (query: string) =>
  /^\s*mutation\b/.test(query) && !query.includes('userErrors')
    ? query.replace(/\}\s*\}\s*$/, ' userErrors { code field message } } }')
    : query;

const gql = (query: string, variables?: unknown, operationName?: unknown): RawRequest => ({
  body: { query: withUserErrors(query), variables, operationName },
});

const ADDRESS = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  line1: '1 Road',
  region: 'London',
  postcode: 'N1',
  country: 'GB',
};

/** The storefront mutations with valid defaults (well-formed ids of nothing): one bad field each. */
const journey = (() => {
  const ids = {
    cartId: '11111111-1111-4111-8111-111111111111',
    cartItemId: '22222222-2222-4222-8222-222222222222',
    customDiscountId: '33333333-3333-4333-8333-333333333333',
  };
  const disc = {
    amount: -100,
    description: 'd',
    discountCode: 'c',
    discountEngine: 'e',
    externalId: 'x',
  };
  const m =
    (name: string, type: string, selection: string, defaults: Record<string, unknown>) =>
    (fields: Record<string, unknown>): RawRequest =>
      gql(`mutation($i: ${type}!) { ${name}(input: $i) { ${selection} } }`, {
        i: { ...defaults, ...fields },
      });
  return {
    createCart: m('createCart', 'CreateCartInput', 'cart { upstreamId }', { name: 'c' }),
    addItem: m('addCartCustomItem', 'AddCartCustomItemInput', 'cart { upstreamId }', {
      cartId: ids.cartId,
      name: 'n',
      sku: 's',
      quantity: 1,
      price: { amount: 100, includesTax: true },
    }),
    updateItem: m('updateCartItem', 'UpdateCartItemInput', 'cart { upstreamId }', {
      cartId: ids.cartId,
      cartItemId: ids.cartItemId,
      quantity: 1,
    }),
    removeItem: m('removeCartItem', 'RemoveCartItemInput', 'cart { upstreamId }', {
      cartId: ids.cartId,
      cartItemId: ids.cartItemId,
    }),
    addItemDiscount: m(
      'addCartItemCustomDiscount',
      'AddCartItemCustomDiscountInput',
      'customDiscount { id }',
      { cartId: ids.cartId, cartItemId: ids.cartItemId, ...disc },
    ),
    deleteItemDiscount: m(
      'deleteCartItemCustomDiscount',
      'DeleteCartItemCustomDiscountInput',
      'deletedId',
      ids,
    ),
    addCartDiscount: m(
      'addCartCustomDiscount',
      'AddCartCustomDiscountInput',
      'customDiscount { id }',
      { cartId: ids.cartId, ...disc },
    ),
    updateCartDiscount: m(
      'updateCartCustomDiscount',
      'UpdateCartCustomDiscountInput',
      'customDiscount { id }',
      { cartId: ids.cartId, customDiscountId: ids.customDiscountId, ...disc },
    ),
    deleteCartDiscount: m(
      'deleteCartCustomDiscount',
      'DeleteCartCustomDiscountInput',
      'deletedId',
      { cartId: ids.cartId, customDiscountId: ids.customDiscountId },
    ),
    checkout: m('checkoutCart', 'CheckoutCartInput', 'order { upstreamId }', {
      cartId: ids.cartId,
      customer: { email: 'ada@example.com', name: 'Ada' },
      billingAddress: ADDRESS,
    }),
    deleteCart: m('deleteCart', 'DeleteCartInput', 'deletedId', { cartId: ids.cartId }),
    createIntegration: m('createIntegration', 'CreateIntegrationInput', 'integration { id }', {
      name: 'Feed',
      observes: ['order.created'],
      url: 'http://127.0.0.1:9/hooks',
      secretKey: 'hook-s3cret',
    }),
    updateIntegration: m('updateIntegration', 'UpdateIntegrationInput', 'integration { id }', {
      integrationId: ids.cartId,
      name: 'Feed',
    }),
  };
})();

/** The corpus, built once the ids and cursors of the store are known. */
function buildCases(): Case[] {
  const cases: Case[] = [];
  const add = (c: Case) => cases.push(c);

  // --- 1. Malformed JSON and wrong body shapes -------------------------------------------
  const bodies = [
    '',
    '{',
    '}',
    '{"query":',
    '{"query": "{ __typename }"',
    'null',
    'true',
    '0',
    '"a string"',
    '[]',
    '[{"query":"{ __typename }"},{"query":"{ __typename }"}]',
    '{"query": 1}',
    '{"query": null}',
    '{"query": true}',
    '{"query": ["{ __typename }"]}',
    '{"query": {"nested": 1}}',
    '{"variables": {}}',
    '{"query": "{ __typename }", "variables": "not an object"}',
    '{"query": "{ __typename }", "variables": [1]}',
    '{"query": "{ __typename }", "variables": 5}',
    '{"query": "{ __typename }", "operationName": 5}',
    '{"query": "{ __typename }", "operationName": {}}',
    '{"query": "{ __typename }", "extensions": "x"}',
    '{"query": "{ __typename }"} trailing',
    '\uFEFF{"query": "{ __typename }"',
    '{"query": "{ __typename }",}',
    "{'query': '{ __typename }'}",
    '{"query": "\\u0000"}',
    '{"query": "{ __typename }", "query": 2}',
    `${'['.repeat(5000)}${']'.repeat(5000)}`,
    `{"a":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}`,
    '\u0000\u0001\u0002',
    'query { orders { totalCount } }',
    `{"query": "${'x'.repeat(50_000)}"}`,
  ];
  bodies.forEach((body, i) => {
    add({ name: `malformed body #${i}: ${JSON.stringify(body.slice(0, 40))}`, request: { body } });
  });
  // Yoga quoted the whole body back in `extensions.originalError`, production included.
  for (const body of [
    '{"query": "mutation { createCustomerToken(input: {email: \\"a@b.c\\", password: \\"s3cret-pw\\"}) { token } }"',
    '{"variables": {"password": "s3cret-pw"} "query": "{ __typename }"}',
    'password=s3cret-pw',
  ]) {
    add({
      name: `malformed body with a password: ${JSON.stringify(body.slice(0, 40))}`,
      request: { body },
      code: 'BAD_REQUEST',
      secret: 's3cret-pw',
    });
  }

  // --- 2. Content types -----------------------------------------------------------------
  const json = JSON.stringify({ query: '{ customApis(first: 1) { totalCount } }' });
  for (const type of [
    'text/plain',
    'text/plain; charset=utf-8',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml',
    'image/png',
    'application/octet-stream',
    'text/html',
    '*/*',
  ]) {
    add({
      name: `content type ${type}`,
      request: { headers: { 'content-type': type }, body: json },
      code:
        type.startsWith('text/plain') ||
        type.startsWith('application/x-www') ||
        type.startsWith('multipart')
          ? 'CSRF_PREVENTED'
          : 'UNSUPPORTED_MEDIA_TYPE',
    });
  }
  add({ name: 'no content type', request: { headers: { 'content-type': '' }, body: json } });

  // --- 3. Methods, GET rules and foreign paths -------------------------------------------
  for (const method of ['PUT', 'DELETE', 'PATCH']) {
    add({ name: `method ${method}`, request: { method, body: json } });
  }
  const q = (s: string) => `/graphql?query=${encodeURIComponent(s)}`;
  add({
    name: 'GET query without the CSRF header',
    request: { method: 'GET', path: q('{ customApis(first: 1) { totalCount } }') },
    code: 'CSRF_PREVENTED',
  });
  add({
    name: 'mutation over GET',
    request: {
      method: 'GET',
      path: q(
        `mutation { deleteCustomApiEntry(input: {customApiId: "${UUID}", entryId: "x"}) { deletedId } }`,
      ),
      headers: { 'x-graphql-yoga-csrf': '1' },
    },
  });
  add({
    name: 'GET with no query',
    request: {
      method: 'GET',
      path: '/graphql',
      headers: { 'x-graphql-yoga-csrf': '1', accept: 'application/json' },
    },
  });
  add({
    name: 'GET with variables that are not JSON',
    request: {
      method: 'GET',
      path: `${q('query($n: Int) { customApis(first: $n) { totalCount } }')}&variables=%7Bnope`,
      headers: { 'x-graphql-yoga-csrf': '1' },
    },
  });
  for (const path of [
    '/v2/orders',
    '/graphql/../v2/orders',
    '/%2e%2e/v2/orders',
    '/graphql%00',
    '/graphql/x',
    '/GRAPHQL',
  ]) {
    add({ name: `foreign path ${path}`, request: { path, body: json }, notGraphql: true });
  }

  // --- 4. Documents that do not parse or validate ----------------------------------------
  const documents = [
    '',
    ' ',
    '# only a comment',
    '{',
    '}}}',
    'query {',
    'query Q { customApis(first: 1) { totalCount }',
    '{ customApis(first: 1) { totalCount } } }',
    '{ nope }',
    '{ customApis(first: 1) { nope } }',
    '{ customApis(nope: 1) { totalCount } }',
    '{ customApis }',
    '{ customApis(first: 1) { totalCount { deeper } } }',
    'query Q { customApis(first: 1) { totalCount } } query Q { customApis(first: 1) { totalCount } }',
    '{ customApis(first: 1) { totalCount } } { customApis(first: 2) { totalCount } }',
    'subscription { customApis(first: 1) { totalCount } }',
    'fragment F on Query { ...F } { ...F }',
    'fragment F on Nope { x } { ...F }',
    '{ ...Missing }',
    'query($unused: Int) { customApis(first: 1) { totalCount } }',
    '{ customApis(first: $undefined) { totalCount } }',
    'query($a: Int, $a: Int) { customApis(first: $a) { totalCount } }',
    'query($a: Nope) { customApis(first: 1) { totalCount } }',
    '{ customApis(first: 1) @nope { totalCount } }',
    '{ customApis(first: 1) @include { totalCount } }',
    '{ customApis(first: 1) @skip(if: "yes") { totalCount } }',
    '{ __type(name: 1) { name } }',
    '{ customApis(first: 1, first: 2) { totalCount } }',
    'mutation { nope }',
    '{ "string" }',
    '{ customApis(first: 1) { totalCount } ',
    '\u0000{ customApis(first: 1) { totalCount } }',
    '{ customApis(first: 1) { totalCount } } \u0007',
  ];
  for (const [i, doc] of documents.entries()) {
    add({ name: `document #${i}: ${JSON.stringify(doc.slice(0, 50))}`, request: gql(doc) });
  }

  // --- 5. Unknown or ambiguous operations --------------------------------------------------
  const two =
    'query A { customApis(first: 1) { totalCount } } query B { customApis(first: 2) { totalCount } }';
  add({ name: 'two operations, no operationName', request: gql(two) });
  add({ name: 'operationName that does not exist', request: gql(two, undefined, 'C') });
  add({
    name: 'operationName on a single anonymous op',
    request: gql('{ customApis(first: 1) { totalCount } }', undefined, 'A'),
  });
  add({ name: 'operationName of wrong case', request: gql(two, undefined, 'a') });
  add({ name: 'operationName with CRLF', request: gql(two, undefined, 'A\r\nX: y') });
  add({ name: 'operationName huge', request: gql(two, undefined, 'A'.repeat(20_000)) });

  // --- 6. Variables of the wrong type and oversized numbers --------------------------------
  const firstQuery = 'query($n: Int) { customApis(first: $n) { totalCount } }';
  for (const n of [
    '10',
    1.5,
    2 ** 31,
    -(2 ** 31) - 1,
    1e308,
    true,
    {},
    [1],
    'NaN',
    -1,
    1001,
    1_000_000,
    Number.MAX_SAFE_INTEGER,
  ]) {
    add({ name: `first = ${JSON.stringify(n)}`, request: gql(firstQuery, { n }) });
  }
  const idQuery =
    'query($c: ID!, $id: ID!) { customApiEntry(customApiId: $c, id: $id) { upstreamId } }';
  for (const id of [1.5, true, {}, [], null, ['a', 'b'], { id: 'x' }]) {
    add({
      name: `ID variable = ${JSON.stringify(id)}`,
      request: gql(idQuery, { c: customApiId, id }),
    });
  }
  add({ name: 'missing required variable', request: gql(idQuery, { c: customApiId }) });
  add({ name: 'variables for another query', request: gql(idQuery, { other: 1 }) });
  const sortQuery =
    'query($s: CustomApiSortKey) { customApis(first: 1, sortKey: $s) { totalCount } }';
  for (const s of ['BOGUS', 'created_at', 1, '', 'CREATED_AT; DROP']) {
    add({ name: `sortKey = ${JSON.stringify(s)}`, request: gql(sortQuery, { s }) });
  }
  const revQuery = 'query($r: Boolean) { customApis(first: 1, reverse: $r) { totalCount } }';
  for (const r of ['true', 1, 'yes'])
    add({ name: `reverse = ${JSON.stringify(r)}`, request: gql(revQuery, { r }) });
  const createQuery =
    'mutation($i: CreateCustomApiEntryInput!) { createCustomApiEntry(input: $i) { entry { upstreamId } } }';
  for (const attributes of ['a string', [1, 2], 5, null, true]) {
    add({
      name: `attributes = ${JSON.stringify(attributes)}`,
      request: gql(createQuery, { i: { customApiId, attributes } }),
    });
  }
  add({
    name: 'attributes over 64 KB',
    request: gql(createQuery, { i: { customApiId, attributes: { blob: 'x'.repeat(70_000) } } }),
    code: ['ENTRY_TOO_LARGE', 'BAD_USER_INPUT'],
  });
  add({
    name: 'unknown input field',
    request: gql(createQuery, { i: { customApiId, attributes: {}, sneaky: 1 } }),
  });
  // Issue 20 #11: a `__proto__` attribute could never be stored; an empty ifMatch would drop
  // the precondition.
  for (const attributes of ['{"__proto__": {"x": 1}}', '{"__proto__": "v", "a": 1}']) {
    add({
      name: `attributes = ${attributes}`,
      request: gql(createQuery, { i: { customApiId, attributes: JSON.parse(attributes) } }),
      code: 'BAD_USER_INPUT',
    });
  }
  add({
    name: 'updateCustomApiEntry ifMatch ""',
    request: gql(
      'mutation($i: UpdateCustomApiEntryInput!) { updateCustomApiEntry(input: $i) { entry { upstreamId } } }',
      { i: { customApiId, entryId, attributes: { a: 1 }, ifMatch: '' } },
    ),
    code: 'BAD_USER_INPUT',
  });
  add({
    name: 'deleteCustomApiEntry ifMatch ""',
    request: gql(
      'mutation($i: DeleteCustomApiEntryInput!) { deleteCustomApiEntry(input: $i) { deletedId } }',
      { i: { customApiId, entryId, ifMatch: '' } },
    ),
    code: 'BAD_USER_INPUT',
  });
  for (const date of [
    '2024-02-30T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '2024-06-31T12:00:00+02:00',
    '2024-01-01T24:00:00Z',
    '2024-01-01T00:60:00Z',
    '2024-01-01T00:00:00+25:00',
  ]) {
    add({
      name: `orders filter createdAt.gt = ${date}`,
      request: gql('query($f: OrderFilter) { orders(first: 1, filter: $f) { totalCount } }', {
        f: { createdAt: { gt: date } },
      }),
      code: 'BAD_USER_INPUT',
    });
  }
  const discount = (fields: Record<string, unknown>) =>
    gql(
      'mutation($i: UpdateCartItemCustomDiscountInput!) { updateCartItemCustomDiscount(input: $i) { customDiscount { id } } }',
      {
        i: {
          cartId: '11111111-1111-4111-8111-111111111111',
          cartItemId: '22222222-2222-4222-8222-222222222222',
          customDiscountId: '33333333-3333-4333-8333-333333333333',
          amount: -100,
          description: 'd',
          discountCode: 'c',
          discountEngine: 'e',
          externalId: 'x',
          ...fields,
        },
      },
    );
  for (const amount of [0, 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 1e20, -1.5, '-100', null]) {
    add({ name: `amount = ${JSON.stringify(amount)}`, request: discount({ amount }) });
  }
  for (const field of ['description', 'discountCode', 'discountEngine', 'externalId']) {
    add({ name: `missing ${field}`, request: discount({ [field]: undefined }) });
    add({ name: `${field} as a number`, request: discount({ [field]: 42 }) });
  }
  add({
    name: 'a 300 KB description (the upstream judges the cart)',
    request: discount({ description: 'd'.repeat(300_000) }),
    judged: false,
  });
  add({
    name: 'a body over the size limit',
    request: discount({ description: 'd'.repeat(600_000) }),
    code: 'REQUEST_ENTITY_TOO_LARGE',
  });

  // --- 7. Hostile ids in every position ---------------------------------------------------
  const hostileIds = [
    '../',
    '../../etc/passwd',
    '..',
    '.',
    '?',
    'a?b=c',
    '#',
    'a#frag',
    '%2e%2e',
    '%2e%2e%2f',
    '..%2f',
    '%2F',
    'a/b',
    '\r\n',
    'a\r\nX-Injected: 1',
    '\u0000',
    'a\u0000b',
    '',
    ' ',
    'x'.repeat(10_000),
    '\\..\\',
    'eq(id,x)',
    `${UUID}`,
    '11111111-1111-4111-8111-111111111111/../../orders',
    '11111111-1111-4111-8111-11111111111%2f',
  ];
  const idTargets: [string, (id: string) => RawRequest][] = [
    ['customApiEntry.id', (id) => gql(idQuery, { c: customApiId, id })],
    [
      'customApiEntries.customApiId',
      (id) =>
        gql('query($c: ID!) { customApiEntries(customApiId: $c, first: 1) { totalCount } }', {
          c: id,
        }),
    ],
    ['order.id', (id) => gql('query($id: ID!) { order(id: $id) { upstreamId } }', { id })],
    ['cart.id', (id) => gql('query($id: ID!) { cart(id: $id) { upstreamId } }', { id })],
    ['node.id', (id) => gql('query($id: ID!) { node(id: $id) { id } }', { id })],
    [
      'deleteCustomApiEntry.entryId',
      (id) =>
        gql(
          'mutation($c: ID!, $id: ID!) { deleteCustomApiEntry(input: {customApiId: $c, entryId: $id}) { deletedId } }',
          { c: customApiId, id },
        ),
    ],
    ['updateCartItemCustomDiscount.cartId', (id) => discount({ cartId: id })],
    ['addCartCustomItem.cartId', (id) => journey.addItem({ cartId: id })],
    ['updateCartItem.cartItemId', (id) => journey.updateItem({ cartItemId: id })],
    ['removeCartItem.cartItemId', (id) => journey.removeItem({ cartItemId: id })],
    ['addCartItemCustomDiscount.cartItemId', (id) => journey.addItemDiscount({ cartItemId: id })],
    [
      'deleteCartItemCustomDiscount.customDiscountId',
      (id) => journey.deleteItemDiscount({ customDiscountId: id }),
    ],
    [
      'updateCartCustomDiscount.customDiscountId',
      (id) => journey.updateCartDiscount({ customDiscountId: id }),
    ],
    ['deleteCartCustomDiscount.cartId', (id) => journey.deleteCartDiscount({ cartId: id })],
    ['checkoutCart.cartId', (id) => journey.checkout({ cartId: id })],
    ['checkoutCart.customerId', (id) => journey.checkout({ customer: undefined, customerId: id })],
    ['deleteCart.cartId', (id) => journey.deleteCart({ cartId: id })],
    ['customer.id', (id) => gql('query($id: ID!) { customer(id: $id) { upstreamId } }', { id })],
  ];
  for (const [where, build] of idTargets) {
    for (const id of hostileIds) {
      add({
        name: `${where} = ${JSON.stringify(id.slice(0, 40))}`,
        request: build(id),
        code: 'BAD_USER_INPUT',
      });
    }
  }
  // The same as literals in the document rather than variables.
  for (const id of ['../', 'a?b', '#x', '%2e%2e', 'a\\r\\nb']) {
    add({
      name: `literal order id ${JSON.stringify(id)}`,
      request: gql(`{ order(id: "${id}") { upstreamId } }`),
      code: 'BAD_USER_INPUT',
    });
  }

  // --- 8. Forged cursors and contradictory paging ------------------------------------------
  const pageQuery =
    'query($c: ID!, $after: String, $before: String, $first: Int, $last: Int) { customApiEntries(customApiId: $c, first: $first, after: $after, last: $last, before: $before) { totalCount } }';
  const flip = (s: string) => s.slice(0, 10) + (s[10] === 'A' ? 'B' : 'A') + s.slice(11);
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const forged = [
    'garbage',
    '',
    '!!!',
    'x'.repeat(5_000),
    flip(entriesCursor),
    entriesCursor.slice(0, -3),
    `${entriesCursor}AAAA`,
    apisCursor,
    b64({ v: 99 }),
    b64({}),
    b64([]),
    b64({ v: 1, o: -5 }),
    b64({ v: 1, k: 'gt(id,x):eq(created_at,y)' }),
    Buffer.from('{"v":1,"offset":"0) or 1=1"}').toString('base64'),
    Buffer.from('\u0000\u0001').toString('base64'),
  ];
  forged.forEach((cursor, i) => {
    add({
      name: `forged after #${i}`,
      request: gql(pageQuery, { c: customApiId, first: 2, after: cursor }),
      code: 'BAD_USER_INPUT',
    });
    add({
      name: `forged before #${i}`,
      request: gql(pageQuery, { c: customApiId, last: 2, before: cursor }),
      code: 'BAD_USER_INPUT',
    });
  });
  add({
    name: 'first and last together',
    request: gql(pageQuery, { c: customApiId, first: 1, last: 1 }),
    code: 'BAD_USER_INPUT',
  });
  add({
    name: 'negative last',
    request: gql(pageQuery, { c: customApiId, last: -3 }),
    code: 'BAD_USER_INPUT',
  });

  // --- 9. Filter values that try to change the filter's structure --------------------------
  const filterQuery =
    'query($c: ID!, $f: CustomApiEntryFilter) { customApiEntries(customApiId: $c, first: 1, filter: $f) { totalCount } }';
  const filters: unknown[] = [
    { id: { eq: 'x)' } },
    { id: { eq: `${entryId}):gt(id,0` } },
    { id: { in: ['a,b'] } },
    { id: { in: Array.from({ length: 2000 }, () => entryId) } },
    { id: { gt: '(' } },
    { createdAt: { gt: 'not a date' } },
    { createdAt: { gt: '2020-13-45T99:00:00Z' } },
    { createdAt: { gt: 12345 } },
    { createdAt: { eq: '2024-01-01T00:00:00Z):eq(id,x' } },
    { updatedAt: { in: 'not a list' } },
    { nope: { eq: 'x' } },
    { id: { like: '*' } },
  ];
  for (const [i, f] of filters.entries()) {
    add({
      name: `filter #${i}: ${JSON.stringify(f).slice(0, 60)}`,
      request: gql(filterQuery, { c: customApiId, f }),
    });
  }

  // --- 10. Authorization headers ---------------------------------------------------------
  const list = { query: '{ customApis(first: 1) { totalCount } }' };
  add({
    name: 'no Authorization',
    request: { body: list, noToken: true },
    code: 'UNAUTHENTICATED',
  });
  for (const value of [
    'Basic dXNlcjpwYXNz',
    'Bearer',
    'Bearer ',
    'Bearer  two',
    'Bearer a b',
    `Bearer ${'a'.repeat(5_000)}`,
    'Token abc',
    'Bearer abc"def',
    'Bearer <script>',
  ]) {
    add({
      name: `Authorization ${JSON.stringify(value.slice(0, 30))}`,
      request: { body: list, noToken: true, headers: { authorization: value } },
      code: 'UNAUTHENTICATED',
    });
  }
  add({
    name: 'a well-formed but unknown token (the upstream judges it)',
    request: { body: list, noToken: true, headers: { authorization: 'Bearer abcdefghijklmnop' } },
    code: 'UNAUTHENTICATED',
    judged: false,
  });

  // --- 12. The storefront journey: amounts, quantities, strings, addresses ------------------
  for (const currency of ['EURO', 'E1R', '', '€€€', 'US D', 'usd)', 'x'.repeat(300)]) {
    add({
      name: `createCart currency ${JSON.stringify(currency.slice(0, 20))}`,
      request: journey.createCart({ currency }),
      code: 'BAD_USER_INPUT',
    });
  }
  for (const [field, value] of [
    ['name', ''],
    ['name', '   '],
    ['name', 'n'.repeat(300)],
    ['name', 42],
    ['name', null],
    ['description', 'd'.repeat(300)],
    ['customDiscountsEnabled', 'yes'],
  ] as const) {
    add({
      name: `createCart ${field} = ${JSON.stringify(value).slice(0, 20)}`,
      request: journey.createCart({ [field]: value }),
    });
  }
  for (const quantity of [0, -1, 1_000_001, 1.5, '2', null, 2 ** 31, -(2 ** 31) - 1]) {
    add({
      name: `addCartCustomItem quantity = ${JSON.stringify(quantity)}`,
      request: journey.addItem({ quantity }),
    });
  }
  for (const amount of [-1, 1.5, 2 ** 31, '100', null, 1e20]) {
    add({
      name: `addCartCustomItem price.amount = ${JSON.stringify(amount)}`,
      request: journey.addItem({ price: { amount, includesTax: true } }),
    });
  }
  // Issue 20 #6: a line whose total a client could not receive (Money.amount is a 32-bit Int).
  for (const [amount, quantity] of [
    [2 ** 31 - 1, 1_000_000],
    [2 ** 31 - 1, 2],
    [3_000, 1_000_000],
  ]) {
    add({
      name: `addCartCustomItem ${amount} × ${quantity}`,
      request: journey.addItem({ quantity, price: { amount, includesTax: true } }),
      code: 'BAD_USER_INPUT',
    });
  }
  for (const [field, value] of [
    ['price', null],
    ['price', { includesTax: true }],
    ['price', { amount: 100, includesTax: 'yes' }],
    ['price', 100],
    ['name', ''],
    ['sku', ''],
    ['sku', 's'.repeat(300)],
    ['description', 'd'.repeat(300)],
    ['sneaky', 1],
  ] as const) {
    add({
      name: `addCartCustomItem ${field} = ${JSON.stringify(value).slice(0, 30)}`,
      request: journey.addItem({ [field]: value }),
    });
  }
  for (const quantity of [-1, 1_000_001, 1.5, null, 'x']) {
    add({
      name: `updateCartItem quantity = ${JSON.stringify(quantity)}`,
      request: journey.updateItem({ quantity }),
    });
  }
  const discountWrites: [string, (fields: Record<string, unknown>) => RawRequest][] = [
    ['addCartItemCustomDiscount', journey.addItemDiscount],
    ['addCartCustomDiscount', journey.addCartDiscount],
    ['updateCartCustomDiscount', journey.updateCartDiscount],
  ];
  for (const [mutation, build] of discountWrites) {
    for (const amount of [0, 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 1e20, -1.5, '-100', null]) {
      add({ name: `${mutation} amount = ${JSON.stringify(amount)}`, request: build({ amount }) });
    }
    for (const field of ['description', 'discountCode', 'discountEngine', 'externalId']) {
      add({ name: `${mutation} missing ${field}`, request: build({ [field]: undefined }) });
      add({ name: `${mutation} empty ${field}`, request: build({ [field]: ' ' }) });
      add({ name: `${mutation} ${field} over 255`, request: build({ [field]: 'x'.repeat(256) }) });
      add({ name: `${mutation} ${field} as a number`, request: build({ [field]: 42 }) });
    }
  }
  // --- 13. Integrations: URLs, events, names and the secret, judged before any call ---------
  for (const [field, value] of [
    ['url', 'ftp://example.com/'],
    ['url', 'javascript:alert(1)'],
    ['url', 'file:///etc/passwd'],
    ['url', 'not a url'],
    ['url', 'http://user:hook-s3cret@example.com/'],
    ['url', `http://example.com/${'a'.repeat(2100)}`],
    ['url', null],
    ['observes', []],
    ['observes', ['order.exploded']],
    ['observes', ['Order.Created']],
    ['observes', Array.from({ length: 51 }, () => 'order.created')],
    ['name', ' '],
    ['name', 'n'.repeat(256)],
    ['description', 'd'.repeat(1001)],
    ['secretKey', ''],
    ['secretKey', 's'.repeat(256)],
    ['enabled', 'yes'],
    ['integrationType', 'webhook'],
  ] as const) {
    add({
      name: `createIntegration ${field} = ${JSON.stringify(value).slice(0, 30)}`,
      request: journey.createIntegration({ [field]: value }),
      secret: 'hook-s3cret',
    });
  }
  for (const [field, value] of [
    ['integrationId', 'not-a-uuid'],
    ['name', undefined],
    ['url', 'gopher://example.com/'],
  ] as const) {
    add({
      name: `updateIntegration ${field} = ${JSON.stringify(value ?? 'nothing to change')}`,
      request: journey.updateIntegration({ [field]: value }),
    });
  }

  add({
    name: 'checkoutCart without a customer (and no customer token)',
    request: journey.checkout({ customer: undefined }),
    code: 'BAD_USER_INPUT',
  });
  add({
    name: 'checkoutCart with both customer and customerId',
    request: journey.checkout({ customerId: '44444444-4444-4444-8444-444444444444' }),
    code: 'BAD_USER_INPUT',
  });
  for (const email of ['not-an-email', '', ' ', 'a@b', 'a b@example.com', 'x'.repeat(300)]) {
    add({
      name: `checkoutCart customer.email = ${JSON.stringify(email.slice(0, 20))}`,
      request: journey.checkout({ customer: { email, name: 'N' } }),
      code: 'BAD_USER_INPUT',
    });
  }
  add({
    name: 'checkoutCart customer.name empty',
    request: journey.checkout({ customer: { email: 'a@example.com', name: '' } }),
    code: 'BAD_USER_INPUT',
  });
  const addressFields = ['firstName', 'lastName', 'line1', 'region', 'postcode', 'country'];
  for (const field of addressFields) {
    add({
      name: `checkoutCart billingAddress.${field} missing`,
      request: journey.checkout({ billingAddress: { ...ADDRESS, [field]: undefined } }),
    });
    add({
      name: `checkoutCart billingAddress.${field} empty`,
      request: journey.checkout({ billingAddress: { ...ADDRESS, [field]: '  ' } }),
      code: 'BAD_USER_INPUT',
    });
  }
  for (const field of [...addressFields, 'line2', 'city', 'county', 'companyName']) {
    add({
      name: `checkoutCart billingAddress.${field} over 255`,
      request: journey.checkout({ billingAddress: { ...ADDRESS, [field]: 'a'.repeat(256) } }),
      code: 'BAD_USER_INPUT',
    });
  }
  for (const billingAddress of [null, 'London', [ADDRESS], { ...ADDRESS, zip: '1' }]) {
    add({
      name: `checkoutCart billingAddress = ${JSON.stringify(billingAddress).slice(0, 30)}`,
      request: journey.checkout({ billingAddress }),
    });
  }
  add({
    name: 'checkoutCart shippingAddress with an empty lastName',
    request: journey.checkout({ shippingAddress: { ...ADDRESS, lastName: '' } }),
    code: 'BAD_USER_INPUT',
  });
  for (const [email, password] of [
    ['', 'password1'],
    ['a@example.com', ''],
    ['a@example.com', 'p'.repeat(2000)],
    ['e'.repeat(300), 'password1'],
    [42, 'password1'],
    ['a@example.com', null],
  ] as const) {
    add({
      name: `createCustomerToken ${JSON.stringify([String(email).slice(0, 10), String(password).slice(0, 10)])}`,
      request: gql(
        'mutation($i: CreateCustomerTokenInput!) { createCustomerToken(input: $i) { token } }',
        { i: { email, password } },
      ),
    });
  }

  // --- 13. Forwarded headers: judged before any call -------------------------------------
  const ordersQuery = {
    query: '{ viewer { customer { email } } orders(first: 1) { totalCount } }',
  };
  for (const [header, value] of [
    ['x-moltin-customer-token', 't'.repeat(5_000)],
    ['x-moltin-customer-token', 'two words'],
    ['x-moltin-customer-token', 'tab\there'],
    ['x-moltin-customer-token', 't\u00f6k\u00e9n'],
    ['x-moltin-customer-token', ''],
    ['ep-account-management-authentication-token', 'a'.repeat(4_097)],
    ['ep-account-management-authentication-token', 'a b'],
    ['x-moltin-currency', 'EURO'],
    ['x-moltin-currency', '12'],
    ['x-moltin-currency', 'E R'],
    ['x-moltin-currency', 'usd,eur'],
    ['ep-channel', 'two words'],
    ['ep-channel', 'm'.repeat(257)],
    ['ep-context-tag', 'a,b'],
    ['ep-context-tag', 't\u00e4g'],
    ['accept-language', 'en"<x>'],
    ['accept-language', `en,${'x'.repeat(300)}`],
  ] as const) {
    add({
      name: `header ${header} = ${JSON.stringify(value.slice(0, 20))}`,
      request: { body: ordersQuery, headers: { [header]: value } },
      code: 'BAD_USER_INPUT',
    });
  }
  add({
    name: 'a well-formed but unknown customer token (the upstream judges it)',
    request: { body: ordersQuery, headers: { 'x-moltin-customer-token': 'a'.repeat(64) } },
    code: 'UNAUTHENTICATED',
    judged: false,
  });

  // --- 13b. The storefront: product keys, currencies, release ids, cart product items, and the
  // merchandiser's variations, options, modifiers and builds ---
  {
    const V = '11111111-1111-4111-8111-111111111111';
    const cartAdd = (fields: Record<string, unknown>) =>
      gql(
        'mutation($i: AddCartProductItemInput!) { addCartProductItem(input: $i) { __typename } }',
        {
          i: { cartId: V, quantity: 1, ...fields },
        },
      );
    for (const [what, request] of [
      ['product by two keys', gql('{ catalog { product(slug: "a", sku: "b") { name } } }')],
      ['product by no key', gql('{ catalog { product { name } } }')],
      ['product id not a uuid', gql('{ catalog { product(id: "x") { name } } }')],
      ['product sku with a comma', gql('{ catalog { product(sku: "a,b") { name } } }')],
      ['product slug with a space', gql('{ catalog { product(slug: "a b") { name } } }')],
      [
        'product slug over 255',
        gql(`{ catalog { product(slug: "${'s'.repeat(300)}") { name } } }`),
      ],
      [
        'price currency of 4 letters',
        gql(
          '{ catalog { products(first: 1) { nodes { price(currency: "EURO") { currency } } } } }',
        ),
      ],
      [
        'price currency with a digit',
        gql('{ catalog { products(first: 1) { nodes { price(currency: "U5D") { currency } } } } }'),
      ],
      [
        'release view catalog id not a uuid',
        gql(
          '{ catalogReleaseView(catalogId: "x", releaseId: "latest") { products { totalCount } } }',
        ),
      ],
      [
        'release view release id neither uuid nor alias',
        gql(
          `{ catalogReleaseView(catalogId: "${V}", releaseId: "newest") { products { totalCount } } }`,
        ),
      ],
      ['cart product item with id and sku', cartAdd({ productId: V, sku: 'S-1' })],
      ['cart product item with neither', cartAdd({})],
      ['cart product item quantity 0', cartAdd({ sku: 'S-1', quantity: 0 })],
      ['cart product item quantity over the bound', cartAdd({ sku: 'S-1', quantity: 2 ** 31 - 1 })],
      ['cart product item sku with a paren', cartAdd({ sku: 'in(sku' })],
      [
        'variation blank name',
        gql('mutation { createPcmVariation(input: { name: "  " }) { variation { name } } }'),
      ],
      [
        'option on a variation id not a uuid',
        gql(
          'mutation { createPcmVariationOption(input: { variationId: "x", name: "S" }) { option { name } } }',
        ),
      ],
      [
        'modifier value with a control character',
        gql(
          `mutation { addPcmOptionModifier(input: { variationId: "${V}", optionId: "${V}", type: SKU_APPEND, value: "a\\u0000" }) { option { name } } }`,
        ),
      ],
      [
        'modifier empty value',
        gql(
          `mutation { addPcmOptionModifier(input: { variationId: "${V}", optionId: "${V}", type: SKU_APPEND, value: "" }) { option { name } } }`,
        ),
      ],
      [
        '11 variations on a product',
        gql(
          `mutation($v: [ID!]!) { setPcmProductVariations(input: { productId: "${V}", variationIds: $v }) { product { name } } }`,
          { v: Array.from({ length: 11 }, () => V) },
        ),
      ],
      [
        'no variations on a product',
        gql(
          `mutation { setPcmProductVariations(input: { productId: "${V}", variationIds: [] }) { product { name } } }`,
        ),
      ],
      [
        'build a product id not a uuid',
        gql('mutation { buildPcmChildProducts(input: { productId: "x" }) { job { status } } }'),
      ],
    ] as const) {
      add({ name: `storefront: ${what}`, request, code: 'BAD_USER_INPUT' });
    }
  }

  // --- 13c. Account members: sign-in credentials, memberships and the realm, before any call ---
  {
    const V = '11111111-1111-4111-8111-111111111111';
    const signIn = (input: Record<string, unknown>) =>
      gql(
        'mutation($i: CreateAccountMemberTokenInput!) { createAccountMemberToken(input: $i) { accountMemberId } }',
        { i: { passwordProfileId: V, username: 'ada@example.com', password: 'pw', ...input } },
      );
    const membership = (input: Record<string, unknown>) =>
      gql(
        'mutation($i: CreateAccountMembershipInput!) { createAccountMembership(input: $i) { __typename } }',
        { i: { accountId: V, accountMemberId: V, ...input } },
      );
    for (const [what, request] of [
      ['sign-in profile id not a uuid', signIn({ passwordProfileId: 'default' })],
      ['sign-in blank username', signIn({ username: '   ' })],
      ['sign-in username over 255', signIn({ username: 'u'.repeat(256) })],
      ['sign-in empty password', signIn({ password: '' })],
      ['sign-in password over 1024', signIn({ password: 'p'.repeat(1025) })],
      ['membership account id not a uuid', membership({ accountId: 'acme' })],
      ['membership member id with a comma', membership({ accountMemberId: `${V},${V}` })],
      [
        'membership delete id not a uuid',
        gql(
          `mutation { deleteAccountMembership(input: { accountId: "${V}", membershipId: "x" }) { deletedId } }`,
        ),
      ],
      [
        'realm id not a uuid',
        gql('{ userAuthenticationInfos(realmId: "realm", first: 1) { totalCount } }'),
      ],
      ['members page of 0', gql('{ accountMembers(first: -1) { totalCount } }')],
    ] as const) {
      add({ name: `account members: ${what}`, request, code: 'BAD_USER_INPUT' });
    }
  }

  // --- 14. The merchandiser's catalog writes: ids, SKUs, slugs, currencies, amounts, lists ---
  const U = '11111111-1111-4111-8111-111111111111';
  const pcm =
    (name: string, type: string, defaults: Record<string, unknown>) =>
    (fields: Record<string, unknown>): RawRequest =>
      gql(`mutation($i: ${type}!) { ${name}(input: $i) { __typename } }`, {
        i: { ...defaults, ...fields },
      });
  const product = pcm('createPcmProduct', 'CreatePcmProductInput', {
    name: 'p',
    commodityType: 'PHYSICAL',
  });
  const node = pcm('createPcmNode', 'CreatePcmNodeInput', { hierarchyId: U, name: 'n' });
  const price = pcm('createProductPrice', 'CreateProductPriceInput', {
    priceBookId: U,
    sku: 'S-1',
    currencies: [{ currency: 'USD', amount: 100 }],
  });
  const catalog = pcm('createPcmCatalog', 'CreatePcmCatalogInput', {
    name: 'c',
    hierarchyIds: [U],
  });
  const rule = pcm('createCatalogRule', 'CreateCatalogRuleInput', { name: 'r', catalogId: U });
  const stock = pcm('setStock', 'SetStockInput', { productId: U, quantity: 1 });
  const many = (n: number, make: (i: number) => unknown) =>
    Array.from({ length: n }, (_, i) => make(i));
  for (const [what, request] of [
    ['product sku with a comma', product({ sku: 'a,b' })],
    ['product sku with a paren', product({ sku: 'in(sku' })],
    ['product sku over 255', product({ sku: 's'.repeat(256) })],
    ['product slug with a slash', product({ slug: '../x' })],
    ['product blank name', product({ name: '   ' })],
    ['product 21 tags', product({ tags: many(21, (i) => `t${i}`) })],
    ['product tag with a space', product({ tags: ['a b'] })],
    [
      'product update with a bad id',
      pcm('updatePcmProduct', 'UpdatePcmProductInput', {})({ id: 'x' }),
    ],
    ['node in a hierarchy that is not a uuid', node({ hierarchyId: '../../v2/orders' })],
    ['node under a parent that is not a uuid', node({ parentId: 'x' })],
    ['node slug with a space', node({ slug: 'a b' })],
    ['price in a book that is not a uuid', price({ priceBookId: 'x' })],
    ['price sku with a colon', price({ sku: 'a:b' })],
    ['price currency of 4 letters', price({ currencies: [{ currency: 'EURO', amount: 1 }] })],
    ['price currency of digits', price({ currencies: [{ currency: '123', amount: 1 }] })],
    ['price below zero', price({ currencies: [{ currency: 'USD', amount: -1 }] })],
    ['price with no currency', price({ currencies: [] })],
    [
      'price with 51 currencies',
      price({
        currencies: many(51, (i) => ({
          currency: `A${String.fromCharCode(65 + (i % 26))}${String.fromCharCode(65 + Math.floor(i / 26))}`,
          amount: 1,
        })),
      }),
    ],
    [
      'price with a currency twice',
      price({
        currencies: [
          { currency: 'USD', amount: 1 },
          { currency: 'usd', amount: 2 },
        ],
      }),
    ],
    [
      'price with 21 sales',
      price({
        sales: many(21, (i) => ({ id: `s${i}`, currencies: [{ currency: 'USD', amount: 1 }] })),
      }),
    ],
    [
      'sale below zero',
      price({ sales: [{ id: 's', currencies: [{ currency: 'USD', amount: -5 }] }] }),
    ],
    ['catalog with no hierarchy', catalog({ hierarchyIds: [] })],
    ['catalog with 101 hierarchies', catalog({ hierarchyIds: many(101, () => U) })],
    ['catalog with a hierarchy id that is not a uuid', catalog({ hierarchyIds: ['x'] })],
    [
      'catalog with 6 price books',
      catalog({
        priceBooks: many(6, (i) => ({ priceBookId: `1111111${i}-1111-4111-8111-111111111111` })),
      }),
    ],
    ['rule name with a space', rule({ name: 'a b' })],
    ['rule catalog that is not a uuid', rule({ catalogId: 'x' })],
    ['rule channel with a comma', rule({ channels: ['a,b'] })],
    ['rule with 101 tags', rule({ tags: many(101, (i) => `t${i}`) })],
    ['rule customer id that is not a uuid', rule({ customerIds: ['x'] })],
    ['stock below zero', stock({ quantity: -1 })],
    ['stock movement of zero', stock({ quantity: 0, action: 'DECREMENT' })],
    ['stock of a product that is not a uuid', stock({ productId: 'x' })],
    [
      'attach no products',
      pcm('attachPcmNodeProducts', 'PcmNodeProductsInput', { hierarchyId: U, nodeId: U })({
        productIds: [],
      }),
    ],
    [
      'attach 101 products',
      pcm('attachPcmNodeProducts', 'PcmNodeProductsInput', { hierarchyId: U, nodeId: U })({
        productIds: many(101, () => U),
      }),
    ],
    [
      'publish a catalog that is not a uuid',
      gql('mutation { publishPcmCatalog(input: { catalogId: "x/../y" }) { __typename } }'),
    ],
  ] as const) {
    add({ name: `catalog write: ${what}`, request, code: 'BAD_USER_INPUT' });
  }
  for (const [what, query] of [
    ['pcmProducts first over the limit', '{ pcmProducts(first: 1001) { totalCount } }'],
    ['pcmProducts forged cursor', '{ pcmProducts(after: "eyJ2IjoxfQ") { totalCount } }'],
    [
      'pcmProducts filter sku with a paren',
      '{ pcmProducts(filter: { sku: { eq: "a)" } }) { totalCount } }',
    ],
    ['priceBook with a bad id', '{ priceBook(id: "../x") { name } }'],
    ['productPrice with a bad book id', '{ productPrice(priceBookId: "x", id: "y") { sku } }'],
    ['stockLevel with a bad id', '{ stockLevel(id: "x") { total } }'],
  ] as const) {
    add({ name: `catalog read: ${what}`, request: gql(query), code: 'BAD_USER_INPUT' });
  }

  // --- 11. Abusive documents ---------------------------------------------------------------
  const deep = (n: number) =>
    `{ customApis(first: 1) { ${'nodes { entries(first: 1) { '.repeat(n)} totalCount ${'} } '.repeat(n)} } }`;
  add({ name: 'too deep', request: gql(deep(6)), code: 'QUERY_TOO_COMPLEX' });
  add({
    name: 'too many aliases',
    request: gql(
      `{ ${Array.from({ length: DEFAULT_QUERY_LIMITS.maxAliases + 5 }, (_, i) => `a${i}: customApis(first: 1) { totalCount }`).join(' ')} }`,
    ),
    code: 'QUERY_TOO_COMPLEX',
  });
  add({
    name: 'too many tokens',
    request: gql(`{ ${'__typename '.repeat(DEFAULT_QUERY_LIMITS.maxTokens + 10)} }`),
    code: 'QUERY_TOO_COMPLEX',
  });
  add({
    name: 'too many directives',
    request: gql(
      `{ __typename ${'@skip(if: false) '.repeat(DEFAULT_QUERY_LIMITS.maxDirectives + 5)} }`,
    ),
    code: 'QUERY_TOO_COMPLEX',
  });
  add({
    name: 'too costly',
    request: gql(
      `{ customApis(first: 100) { nodes { entries(first: 100) { nodes { ${'attributes createdAt updatedAt etag '.repeat(60)} } } } } }`,
    ),
    code: 'QUERY_TOO_COMPLEX',
  });
  // Sizes carried by variables: judged with their values before execution.
  const uuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  add({
    name: '40,000 representations in variables, no token',
    request: {
      ...gql('query($r: [_Any!]!) { _entities(representations: $r) { __typename } }', {
        r: new Array(40_000).fill(0),
      }),
      noToken: true,
    },
    code: 'BAD_USER_INPUT',
  });
  add({
    name: '5,000 ids for nodes(ids:) in variables',
    request: gql('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', {
      ids: Array.from({ length: 5_000 }, (_, i) => `T3JkZXI6${i}`),
    }),
    code: 'BAD_USER_INPUT',
  });
  add({
    name: 'an `in` filter of 1,001 ids inside an input object variable',
    request: gql('query($f: CustomApiFilter) { customApis(first: 1, filter: $f) { totalCount } }', {
      f: { id: { in: Array.from({ length: 1_001 }, (_, i) => uuid(i)) } },
    }),
    code: 'BAD_USER_INPUT',
  });
  add({
    name: 'four aliases sharing one 300-id list (1,200 items together)',
    request: gql(
      `query($ids: [ID!]!) { ${Array.from({ length: 4 }, (_, i) => `a${i}: nodes(ids: $ids) { id }`).join(' ')} }`,
      { ids: Array.from({ length: 300 }, (_, i) => `T3JkZXI6${i}`) },
    ),
    code: 'BAD_USER_INPUT',
  });
  add({
    name: 'page sizes in variables: five aliases of first: $n = 1000',
    request: gql(
      `query($n: Int) { ${Array.from({ length: 5 }, (_, i) => `a${i}: customApis(first: $n) { nodes { name apiType createdAt } }`).join(' ')} }`,
      { n: 1000 },
    ),
    code: 'QUERY_TOO_COMPLEX',
  });
  add({
    name: 'a page size by default value: $n: Int = 1000',
    request: gql(
      `query($n: Int = 1000) { ${Array.from({ length: 5 }, (_, i) => `a${i}: customApis(first: $n) { nodes { name apiType createdAt } }`).join(' ')} }`,
    ),
    code: 'QUERY_TOO_COMPLEX',
  });
  // Huge names and values: refused, or repeated in an error only up to 100 characters.
  const huge = 'x'.repeat(300_000);
  add({
    name: 'a 300 KB field name',
    request: { ...gql(`{ __typename${huge} }`), noToken: true },
    code: 'QUERY_TOO_COMPLEX',
  });
  add({
    name: 'a 300 KB alias',
    request: gql(`{ ${huge}: orders(first: 1) { totalCount } }`),
    code: 'QUERY_TOO_COMPLEX',
  });
  add({
    name: 'a 300 KB operation name',
    request: gql(`query Q${huge} { __typename }`),
    code: 'QUERY_TOO_COMPLEX',
  });
  add({ name: 'a 300 KB string where a name goes', request: gql(`{ "${huge}" }`) });
  add({
    name: 'a 300 KB string as an Int variable',
    request: gql('query($n: Int) { orders(first: $n) { totalCount } }', { n: huge }),
    code: 'BAD_USER_INPUT',
  });
  // Fan-out under a page: each is refused for its cost before any upstream call.
  add({
    name: 'one GET per order under a page of 1,000',
    request: gql('{ orders(first: 1000) { nodes { upstreamId items { name quantity } } } }'),
    code: 'QUERY_TOO_COMPLEX',
  });
  add({
    name: 'one GET per order under a page of 100 given as a variable',
    request: gql('query($n: Int) { orders(first: $n) { nodes { items { name } } } }', { n: 100 }),
    code: 'QUERY_TOO_COMPLEX',
  });
  add({
    name: 'one GET per cart under a page of carts',
    request: gql('{ viewer { carts(first: 1000) { nodes { name items { name } } } } }'),
    code: 'QUERY_TOO_COMPLEX',
  });
  add({
    name: 'a connection inside a connection, 1,000 × 1,000',
    request: gql(
      'query($n: Int!) { customApis(first: $n) { nodes { entries(first: $n) { nodes { upstreamId } } } } }',
      { n: 1000 },
    ),
    code: 'QUERY_TOO_COMPLEX',
  });
  add({
    name: 'fifteen aliases of a page of 1,000',
    request: gql(
      `query($n: Int) { ${Array.from({ length: 15 }, (_, i) => `a${i}: orders(first: $n) { nodes { upstreamId } }`).join(' ')} }`,
      { n: 1000 },
    ),
    code: 'QUERY_TOO_COMPLEX',
  });
  // Carts have no lookup by a list of ids: each is one GET, which the call budget stops at 50.
  add({
    name: 'more upstream calls than the budget',
    request: gql('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', {
      ids: Array.from({ length: 60 }, (_, i) => Buffer.from(`Cart:${uuid(i)}`).toString('base64')),
    }),
    judged: false,
  });

  // --- Promotions: codes, amounts, percentages, lists and windows, judged before any call ---
  const PROMO = '44444444-4444-4444-8444-444444444444';
  const promo =
    (name: string, type: string, selection: string, defaults: Record<string, unknown>) =>
    (fields: Record<string, unknown>): RawRequest =>
      gql(`mutation($i: ${type}!) { ${name}(input: $i) { ${selection} } }`, {
        i: { ...defaults, ...fields },
      });
  const window = { start: '2020-01-01T00:00:00Z', end: '2099-01-01T00:00:00Z' };
  const applyCode = promo(
    'applyCartPromotionCode',
    'ApplyCartPromotionCodeInput',
    'cart { upstreamId }',
    {
      cartId: '11111111-1111-4111-8111-111111111111',
      code: 'OK',
    },
  );
  const removeCode = promo(
    'removeCartPromotionCode',
    'RemoveCartPromotionCodeInput',
    'cart { upstreamId }',
    { cartId: '11111111-1111-4111-8111-111111111111', code: 'OK' },
  );
  for (const code of [
    '',
    'x'.repeat(65),
    'two words',
    'ünïcode',
    '-lead',
    '../up',
    'a/b',
    'a%2Fb',
  ]) {
    add({
      name: `apply code ${JSON.stringify(code.slice(0, 12))}`,
      request: applyCode({ code }),
      code: 'BAD_USER_INPUT',
    });
    add({
      name: `remove code ${JSON.stringify(code.slice(0, 12))}`,
      request: removeCode({ code }),
      code: 'BAD_USER_INPUT',
    });
  }
  add({
    name: 'apply code to a bad cart id',
    request: applyCode({ cartId: '../x' }),
    code: 'BAD_USER_INPUT',
  });
  const createPromotion = promo('createPromotion', 'CreatePromotionInput', 'promotion { id }', {
    name: 'p',
    enabled: true,
    promotionType: 'PERCENT_DISCOUNT',
    percent: 10,
    ...window,
  });
  const fixed = { promotionType: 'FIXED_DISCOUNT', amounts: [{ currency: 'USD', amount: 100 }] };
  for (const [label, fields] of [
    ['percent above 100', { percent: 100.5 }],
    ['percent below 0', { percent: -1 }],
    ['percent missing', { percent: null }],
    ['fixed amount 0', { ...fixed, amounts: [{ currency: 'USD', amount: 0 }] }],
    ['fixed amount negative', { ...fixed, amounts: [{ currency: 'USD', amount: -5 }] }],
    ['fixed amount beyond Int', { ...fixed, amounts: [{ currency: 'USD', amount: 2 ** 31 }] }],
    ['fixed without amounts', { ...fixed, amounts: [] }],
    ['currency of 2 letters', { ...fixed, amounts: [{ currency: 'US', amount: 1 }] }],
    [
      'currency twice',
      {
        ...fixed,
        amounts: [
          { currency: 'USD', amount: 1 },
          { currency: 'usd', amount: 2 },
        ],
      },
    ],
    [
      '21 currencies',
      {
        ...fixed,
        amounts: Array.from({ length: 21 }, (_, i) => ({
          currency: `A${String.fromCharCode(65 + i)}A`,
          amount: 1,
        })),
      },
    ],
    ['item type without targets', { promotionType: 'ITEM_PERCENT_DISCOUNT', percent: 5 }],
    [
      '101 target SKUs',
      {
        promotionType: 'ITEM_PERCENT_DISCOUNT',
        targetSkus: Array.from({ length: 101 }, (_, i) => `S${i}`),
      },
    ],
    ['an empty target SKU', { promotionType: 'ITEM_PERCENT_DISCOUNT', targetSkus: [' '] }],
    ['end before start', { start: '2030-01-01T00:00:00Z', end: '2029-01-01T00:00:00Z' }],
    ['start not a date', { start: 'tomorrow' }],
    ['empty name', { name: ' ' }],
    ['name of 256', { name: 'n'.repeat(256) }],
    ['description of 1001', { description: 'd'.repeat(1001) }],
    ['unknown promotion type', { promotionType: 'BOGO' }],
    ['min cart value negative', { minCartValue: [{ currency: 'USD', amount: -1 }] }],
  ] as const) {
    add({ name: `createPromotion: ${label}`, request: createPromotion(fields) });
  }
  const updatePromotion = promo('updatePromotion', 'UpdatePromotionInput', 'promotion { id }', {
    promotionId: PROMO,
  });
  add({
    name: 'updatePromotion: id not a uuid',
    request: updatePromotion({ promotionId: 'x' }),
    code: 'BAD_USER_INPUT',
  });
  add({
    name: 'updatePromotion: percent 1000',
    request: updatePromotion({ promotionType: 'PERCENT_DISCOUNT', percent: 1000 }),
    code: 'BAD_USER_INPUT',
  });
  const addCodes = promo('addPromotionCodes', 'AddPromotionCodesInput', 'codes { code }', {
    promotionId: PROMO,
    codes: [{ code: 'OK' }],
  });
  for (const [label, fields] of [
    ['no codes', { codes: [] }],
    ['101 codes', { codes: Array.from({ length: 101 }, (_, i) => ({ code: `C${i}` })) }],
    ['a code with a space', { codes: [{ code: 'A B' }] }],
    ['maxUses 0', { codes: [{ code: 'A', maxUses: 0 }] }],
    ['maxUses above a billion', { codes: [{ code: 'A', maxUses: 1_000_000_001 }] }],
    ['per-shopper uses 0', { codes: [{ code: 'A', maxUsesPerShopper: 0 }] }],
    ['promotion id not a uuid', { promotionId: '1 OR 1=1' }],
  ] as const) {
    add({ name: `addPromotionCodes: ${label}`, request: addCodes(fields), code: 'BAD_USER_INPUT' });
  }
  const createRule = promo('createRulePromotion', 'CreateRulePromotionInput', 'promotion { id }', {
    name: 'r',
    enabled: true,
    discount: { level: 'CART', method: 'PERCENT', value: 10 },
    ...window,
  });
  for (const [label, fields] of [
    ['percent 150', { discount: { level: 'CART', method: 'PERCENT', value: 150 } }],
    ['fixed 0', { discount: { level: 'CART', method: 'FIXED', value: 0 } }],
    ['fixed fractional', { discount: { level: 'ITEM', method: 'FIXED', value: 1.5 } }],
    ['fixed beyond 2^31', { discount: { level: 'CART', method: 'FIXED', value: 2 ** 31 } }],
    [
      'skus on a cart discount',
      { discount: { level: 'CART', method: 'PERCENT', value: 1, skus: ['A'] } },
    ],
    ['a bad currency', { currencies: ['EURO'] }],
    ['minimum total negative', { minCartTotal: -1 }],
    ['priority negative', { priority: -1 }],
    ['no required SKUs', { requiredSkus: [] }],
  ] as const) {
    add({
      name: `createRulePromotion: ${label}`,
      request: createRule(fields),
      code: 'BAD_USER_INPUT',
    });
  }
  add({
    name: 'usages filtered on a usedOn that is no date',
    request: gql(
      `{ promotion(id: "${PROMO}") { usages(first: 1, filter: { usedOn: { ge: "soon" } }) { totalCount } } }`,
    ),
  });

  // --- Issue 31: several cart lines, bundles, merging, addresses, sign-up, account update ---
  {
    const V = '11111111-1111-4111-8111-111111111111';
    const lines = (list: unknown, extra: Record<string, unknown> = {}) =>
      gql('mutation($i: AddCartItemsInput!) { addCartItems(input: $i) { __typename } }', {
        i: { cartId: V, lines: list, ...extra },
      });
    const bundle = (options: unknown) =>
      lines([{ productId: V, quantity: 1, bundleConfiguration: { selectedOptions: options } }]);
    const address = (fields: Record<string, unknown>) =>
      gql('mutation($i: CreateAddressInput!) { createAddress(input: $i) { __typename } }', {
        i: { accountId: V, firstName: 'A', lastName: 'B', line1: 'C', country: 'GB', ...fields },
      });
    const signUp = (fields: Record<string, unknown>) =>
      gql(
        'mutation($i: SignUpAccountMemberInput!) { signUpAccountMember(input: $i) { __typename } }',
        {
          i: {
            email: 'a@example.com',
            password: 'password-1',
            name: 'A',
            passwordProfileId: V,
            ...fields,
          },
        },
      );
    const checkout = (fields: Record<string, unknown>) =>
      gql('mutation($i: CheckoutCartInput!) { checkoutCart(input: $i) { __typename } }', {
        i: { cartId: V, customer: { email: 'a@example.com', name: 'A' }, ...fields },
      });
    const custom = { name: 'n', sku: 's', price: { amount: 1 } };
    for (const [what, request] of [
      ['no lines', lines([])],
      ['101 lines', lines(Array.from({ length: 101 }, () => ({ sku: 'S-1', quantity: 1 })))],
      ['a line with no product', lines([{ quantity: 1 }])],
      ['a line with a product and a custom line', lines([{ sku: 'S', quantity: 1, custom }])],
      ['a line of quantity 0', lines([{ sku: 'S-1', quantity: 0 }])],
      ['a line of a huge quantity', lines([{ sku: 'S-1', quantity: 2 ** 31 - 1 }])],
      ['a line with a bad product id', lines([{ productId: '../x', quantity: 1 }])],
      [
        'a custom line of a negative price',
        lines([{ quantity: 1, custom: { ...custom, price: { amount: -1 } } }]),
      ],
      [
        'a custom line total past 2^31',
        lines([{ quantity: 1_000_000, custom: { ...custom, price: { amount: 2 ** 31 - 1 } } }]),
      ],
      [
        'a custom line with a bundle configuration',
        lines([
          {
            quantity: 1,
            custom,
            bundleConfiguration: {
              selectedOptions: [{ componentKey: 'a', productId: V, quantity: 1 }],
            },
          },
        ]),
      ],
      ['a bundle with no options', bundle([])],
      [
        'a bundle option of a bad component key',
        bundle([{ componentKey: 'a/b', productId: V, quantity: 1 }]),
      ],
      ['a bundle option of quantity 0', bundle([{ componentKey: 'a', productId: V, quantity: 0 }])],
      [
        'a bundle option twice',
        bundle([
          { componentKey: 'a', productId: V, quantity: 1 },
          { componentKey: 'a', productId: V, quantity: 2 },
        ]),
      ],
      [
        'a bundle option with a bad product id',
        bundle([{ componentKey: 'a', productId: 'x', quantity: 1 }]),
      ],
      [
        'merge a cart into itself',
        gql(`mutation { mergeCart(input: { cartId: "${V}", fromCartId: "${V}" }) { __typename } }`),
      ],
      [
        'merge from a bad cart id',
        gql(`mutation { mergeCart(input: { cartId: "${V}", fromCartId: "a b" }) { __typename } }`),
      ],
      [
        'associate with nobody',
        gql(`mutation { associateCart(input: { cartId: "${V}" }) { __typename } }`),
      ],
      [
        'associate with both',
        gql(
          `mutation { associateCart(input: { cartId: "${V}", customerId: "${V}", accountId: "${V}" }) { __typename } }`,
        ),
      ],
      [
        'associate with a bad account id',
        gql(`mutation { associateCart(input: { cartId: "${V}", accountId: "x" }) { __typename } }`),
      ],
      ['an address of no owner', address({ accountId: null })],
      ['an address of two owners', address({ customerId: V })],
      ['an address of a three-letter country', address({ country: 'GBR' })],
      ['an address of a blank first name', address({ firstName: '  ' })],
      ['an address line over 255', address({ line2: 'x'.repeat(256) })],
      ['instructions over 1,000', address({ instructions: 'x'.repeat(1001) })],
      [
        'an address update clearing line1',
        gql(
          `mutation { updateAddress(input: { accountId: "${V}", addressId: "${V}", line1: null }) { __typename } }`,
        ),
      ],
      [
        'an address update of a bad address id',
        gql(
          `mutation { updateAddress(input: { accountId: "${V}", addressId: "x", city: "c" }) { __typename } }`,
        ),
      ],
      [
        'an address delete of two owners',
        gql(
          `mutation { deleteAddress(input: { accountId: "${V}", customerId: "${V}", addressId: "${V}" }) { __typename } }`,
        ),
      ],
      ['a sign-up with no email', signUp({ email: 'nobody' })],
      ['a sign-up with a short password', signUp({ password: 'short' })],
      ['a sign-up with a password over 1,024', signUp({ password: 'p'.repeat(1025) })],
      ['a sign-up with a blank name', signUp({ name: ' ' })],
      ['a sign-up with a name over 255', signUp({ name: 'n'.repeat(256) })],
      ['a sign-up with a bad profile id', signUp({ passwordProfileId: 'x' })],
      [
        'an account update with nothing',
        gql(`mutation { updateAccount(input: { accountId: "${V}" }) { __typename } }`),
      ],
      [
        'an account update with a blank name',
        gql(`mutation { updateAccount(input: { accountId: "${V}", name: "" }) { __typename } }`),
      ],
      [
        'checkout with both billing forms',
        checkout({ billingAddress: ADDRESS, billingAddressId: V }),
      ],
      ['checkout with no billing address', checkout({})],
      ['checkout by address id as a guest', checkout({ billingAddressId: V })],
      [
        'checkout with a bad shipping address id',
        checkout({ billingAddress: ADDRESS, shippingAddressId: 'x' }),
      ],
    ] as const) {
      add({ name: `issue 31: ${what}`, request, code: 'BAD_USER_INPUT' });
    }
  }

  return cases;
}

describe('bad-input corpus', () => {
  it('has at least 200 cases, each answered without a 5xx, with coded errors and no stray upstream call', async () => {
    const cases = buildCases();
    expect(cases.length).toBeGreaterThanOrEqual(200);
    const failures: string[] = [];
    const upstreamBefore = fault.requests.length;

    for (const [index, testCase] of cases.entries()) {
      const { request } = testCase;
      const requestId = `case-${index}`;
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        'x-request-id': requestId,
        ...(request.noToken ? {} : { authorization: `Bearer ${token}` }),
        ...request.headers,
      };
      const method = request.method ?? 'POST';
      // A GET carries no body, so no content type (as a browser's cross-site GET would).
      if (headers['content-type'] === '' || method === 'GET') delete headers['content-type'];
      const body =
        method === 'GET' || method === 'HEAD'
          ? undefined
          : typeof request.body === 'string'
            ? request.body
            : JSON.stringify(request.body ?? {});
      const sentBefore = fault.requests.length;
      let status = 0;
      let text = '';
      try {
        const response = await fetch(`${stack.gatewayBase}${request.path ?? '/graphql'}`, {
          method,
          headers,
          body,
        });
        status = response.status;
        text = await response.text();
      } catch (error) {
        failures.push(`${testCase.name}: request failed ${(error as Error).message}`);
        continue;
      }
      const calls = fault.requests.slice(sentBefore);
      const problems: string[] = [];
      if (status >= 500) problems.push(`status ${status}`);
      if (testCase.secret !== undefined && text.includes(testCase.secret)) {
        problems.push('the answer echoes the request body');
      }
      if (!testCase.notGraphql) {
        let parsed:
          | {
              errors?: { message?: string; extensions?: { code?: unknown } }[];
              data?: Record<string, { userErrors?: { code: string; message: string }[] } | null>;
            }
          | undefined;
        try {
          parsed = JSON.parse(text);
        } catch {
          problems.push(`body is not JSON: ${text.slice(0, 80)}`);
        }
        // A mutation's user errors count as its errors (their codes are the same family).
        const userErrors = Object.values(parsed?.data ?? {}).flatMap((payload) =>
          (payload?.userErrors ?? []).map((e) => ({
            message: e.message,
            extensions: { code: e.code as unknown },
          })),
        );
        const errors = [...userErrors, ...(parsed?.errors ?? [])];
        if (parsed && errors.length === 0) problems.push(`no errors: ${text.slice(0, 120)}`);
        for (const error of errors) {
          if (typeof error.extensions?.code !== 'string') {
            problems.push(`error without code: ${JSON.stringify(error).slice(0, 160)}`);
          }
          // No message repeats more than a bounded part of what the client sent.
          if ((error.message?.length ?? 0) > 1_001) {
            problems.push(`a ${error.message?.length}-character message`);
          }
        }
        if (testCase.code !== undefined && errors[0]) {
          const wanted = Array.isArray(testCase.code) ? testCase.code : [testCase.code];
          if (!wanted.includes(errors[0].extensions?.code as string)) {
            problems.push(`code ${String(errors[0].extensions?.code)} not in ${wanted.join('|')}`);
          }
        }
      }
      if ((testCase.judged ?? true) && calls.length > 0) {
        problems.push(
          `${calls.length} upstream call(s): ${calls
            .map((c) => `${c.method} ${c.url}`)
            .join(', ')
            .slice(0, 200)}`,
        );
      }
      for (const call of calls) {
        const path = call.url.split('?')[0] ?? '';
        if (!ALLOWED_PATHS.some((allowed) => allowed.test(path)))
          problems.push(`stray upstream path ${call.url}`);
        if (call.requestId !== requestId)
          problems.push(`upstream call of another request ${call.requestId}`);
      }
      if (problems.length > 0) failures.push(`${testCase.name} → ${problems.join('; ')}`);
    }

    // Every upstream call made during the corpus belongs to one of its cases.
    for (const call of fault.requests.slice(upstreamBefore)) {
      expect(call.requestId ?? '').toMatch(/^case-\d+$/);
    }
    expect(failures).toEqual([]);

    // And the gateway is still up and correct afterwards.
    const healthy = await stack.graphql(
      'query($c: ID!) { customApiEntries(customApiId: $c, first: 5) { totalCount } }',
      { c: customApiId },
    );
    expect(healthy.body).toEqual({ data: { customApiEntries: { totalCount: 3 } } });
    expect((await fetch(`${stack.gatewayBase}/healthz`)).status).toBe(200);
  });
});

/** One raw HTTP/1.1 request (bytes as given, no client-side header checks); the status line. */
function rawRequest(base: string, head: string, body: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.end(`${head}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    });
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    socket.on('end', () => resolve(answer.split('\r\n')[0] ?? ''));
    socket.on('error', reject);
  });
}

describe('forwarded header values a client library would refuse to send', () => {
  it('CR, LF, obs-fold and NUL in X-Moltin-Customer-Token: no 5xx, no upstream call', async () => {
    const body = JSON.stringify({ query: '{ orders(first: 1) { totalCount } }' });
    const before = fault.requests.length;
    for (const value of [
      'abc\r\n def',
      'a\rb',
      'a\nInjected: 1',
      'a\u0000b',
      'abc\r\n\r\nGET / HTTP/1.1',
    ]) {
      const head =
        'POST /graphql HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${token}\r\nX-Moltin-Customer-Token: ${value}\r\n` +
        'Connection: close\r\n';
      const status = await rawRequest(stack.gatewayBase, head, body);
      const code = Number(status.split(' ')[1]);
      expect(code, `${JSON.stringify(value)} → ${status}`).toBeGreaterThanOrEqual(200);
      expect(code, `${JSON.stringify(value)} → ${status}`).toBeLessThan(500);
    }
    expect(fault.requests.slice(before)).toEqual([]);
    expect((await fetch(`${stack.gatewayBase}/healthz`)).status).toBe(200);
  });
});

/**
 * The service's Catalog Search, called directly (the gateway does not expose it): hostile
 * query strings and multi-search bodies over a search-enabled catalog. Every answer is a 4xx
 * with one JSON:API error naming what was wrong in at most 1,001 characters; never a 5xx; query
 * text that looks like FTS5 or SQL syntax is searched for as words; the search still answers
 * afterwards.
 */
describe('the service’s catalog search, judged at the service', () => {
  it('answers every hostile search with a 4xx naming the parameter, never a 5xx', async () => {
    const admin = await stack.token();
    const hierarchy = (
      await stack.rest(admin, 'POST', '/pcm/hierarchies', {
        data: { type: 'hierarchy', attributes: { name: 'Search corpus' } },
      })
    ).data.id;
    const node = (
      await stack.rest(admin, 'POST', `/pcm/hierarchies/${hierarchy}/nodes`, {
        data: { type: 'node', attributes: { name: 'Shelf' } },
      })
    ).data.id;
    const product = (
      await stack.rest(admin, 'POST', '/pcm/products', {
        data: {
          type: 'product',
          attributes: {
            name: 'Corpus lamp',
            sku: 'CORPUS-LAMP',
            commodity_type: 'physical',
            status: 'live',
            extensions: { 'products(specs)': { weight: 3, colour: 'red' } },
          },
        },
      })
    ).data.id;
    await stack.rest(
      admin,
      'POST',
      `/pcm/hierarchies/${hierarchy}/nodes/${node}/relationships/products`,
      {
        data: [{ type: 'product', id: product }],
      },
    );
    const catalog = (
      await stack.rest(admin, 'POST', '/catalogs', {
        data: {
          type: 'catalog',
          attributes: { name: 'Search corpus', hierarchy_ids: [hierarchy], enable_search: true },
        },
      })
    ).data.id;
    const release = (await stack.rest(admin, 'POST', `/catalogs/${catalog}/releases`)).data.id;

    const long = (n: number, s = 'a') => s.repeat(n);
    const deep = `${'('.repeat(40)}name:=a${')'.repeat(40)}`;
    const get: [string, Record<string, string>][] = [
      ['q of 10,000 characters', { q: long(10_000) }],
      ['q of 513 characters', { q: long(513) }],
      ['filter_by of 5,000 characters', { filter_by: `name:=${long(5_000)}` }],
      ['filter_by nested 40 deep', { filter_by: deep }],
      ['filter_by with 65 conditions', { filter_by: Array(65).fill('name:=a').join(' && ') }],
      ['filter_by list of 101 values', { filter_by: `name:=[${Array(101).fill('a').join(',')}]` }],
      ['filter_by without a colon', { filter_by: 'name' }],
      ['filter_by without a value', { filter_by: 'name:=' }],
      ['filter_by with an open backtick', { filter_by: 'name:=`a' }],
      ['filter_by with an open bracket', { filter_by: 'name:=[a' }],
      ['filter_by with a stray parenthesis', { filter_by: 'name:=a)' }],
      ['filter_by of && alone', { filter_by: '&&' }],
      ['filter_by on an unknown field', { filter_by: 'nope:=1' }],
      ['filter_by SQL in a field name', { filter_by: "name'); DROP TABLE x;--:=1" }],
      ['filter_by a range on text', { filter_by: 'name:=[1..9]' }],
      ['filter_by text against a number', { filter_by: 'price.USD.amount:>=cheap' }],
      ['filter_by NaN against a number', { filter_by: 'created_at:>NaN' }],
      ['filter_by a huge number', { filter_by: `price.USD.amount:>${long(400, '9')}` }],
      ['filter_by a range on ids', { filter_by: 'id:=[1..2]' }],
      ['filter_by compare on text', { filter_by: 'name:>a' }],
      ['filter_by on relevance', { filter_by: '_text_match:>1' }],
      ['facet_by an unknown field', { facet_by: 'nope' }],
      ['facet_by eleven fields', { facet_by: 'a,b,c,d,e,f,g,h,i,j,k' }],
      ['facet_by on id', { facet_by: 'id' }],
      ['facet_by a field name with a space', { facet_by: 'attributes name' }],
      ['facet_query on a field not faceted', { facet_query: 'name:a' }],
      ['max_facet_values 0', { max_facet_values: '0' }],
      ['max_facet_values 1e9', { max_facet_values: '1000000000' }],
      ['sort_by without direction', { sort_by: 'name' }],
      ['sort_by sideways', { sort_by: 'name:sideways' }],
      ['sort_by four fields', { sort_by: 'name:asc,name:asc,name:asc,name:asc' }],
      ['sort_by an unknown field', { sort_by: 'nope:asc' }],
      ['sort_by id', { sort_by: 'id:asc' }],
      ['per_page -1', { per_page: '-1' }],
      ['per_page 101', { per_page: '101' }],
      ['per_page 1e3', { per_page: '1e3' }],
      ['per_page 2^53', { per_page: '9007199254740993' }],
      ['page 0', { page: '0' }],
      ['page 1.5', { page: '1.5' }],
      ['page past result 10,000', { page: '10001', per_page: '100' }],
      ['type unknown', { type: 'products' }],
      [
        'highlight_full_fields of eleven fields',
        { highlight_full_fields: 'a,b,c,d,e,f,g,h,i,j,k' },
      ],
      ['search_profile unknown', { search_profile: 'clothing' }],
      ['search_profile with a slash', { search_profile: '../x' }],
      ['include unknown', { include: 'secrets' }],
      ['X-Moltin-Currency not a code', { currency: 'DOLLARS' }],
    ];
    const failures: string[] = [];
    const judge = async (what: string, response: Response) => {
      const text = await response.text();
      let detail = '';
      try {
        const errors = JSON.parse(text).errors;
        if (!Array.isArray(errors) || errors.length !== 1) throw new Error('not one error');
        detail = String(errors[0].detail);
        if (typeof errors[0].title !== 'string') throw new Error('no title');
      } catch (error) {
        failures.push(`${what}: ${response.status} ${text.slice(0, 200)} (${error})`);
        return;
      }
      if (response.status < 400 || response.status >= 500 || detail.length > 1_001) {
        failures.push(`${what}: ${response.status} ${detail.slice(0, 200)}`);
      }
    };
    for (const base of ['/catalog/search', `/catalogs/${catalog}/releases/${release}/search`]) {
      for (const [what, query] of get) {
        const { currency, ...params } = query;
        const response = await fetch(`${stack.serviceUrl}${base}?${new URLSearchParams(params)}`, {
          headers: {
            authorization: `Bearer ${admin}`,
            ...(currency === undefined ? {} : { 'x-moltin-currency': currency }),
          },
        });
        await judge(`GET ${base} ${what}`, response);
      }
    }
    const bodies: [string, string][] = [
      ['no body', ''],
      ['not JSON', '{searches'],
      ['an array', '[]'],
      ['searches missing', '{}'],
      ['searches an object', '{"searches":{}}'],
      ['searches empty', '{"searches":[]}'],
      ['eleven searches', JSON.stringify({ searches: Array(11).fill({ q: 'a' }) })],
      ['a search that is a string', '{"searches":["q=a"]}'],
      ['a search that is null', '{"searches":[null]}'],
      ['q a number', '{"searches":[{"q":1}]}'],
      ['q an object', '{"searches":[{"q":{"$ne":1}}]}'],
      ['per_page a string of words', '{"searches":[{"per_page":"ten"}]}'],
      ['per_page a float', '{"searches":[{"per_page":2.5}]}'],
      ['page negative', '{"searches":[{"page":-1}]}'],
      ['filter_by an array', '{"searches":[{"filter_by":["a"]}]}'],
      ['a bad second search', '{"searches":[{"q":"a"},{"sort_by":"x"}]}'],
      ['__proto__ in a search', '{"searches":[{"__proto__":{"q":1},"q":"a","per_page":500}]}'],
    ];
    for (const [what, body] of bodies) {
      const response = await fetch(`${stack.serviceUrl}/catalog/multi-search`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body,
      });
      await judge(`POST multi-search ${what}`, response);
    }
    for (const query of [
      'page[limit]=0',
      'page[limit]=x',
      'page[offset]=10001',
      'page[offset]=-1',
    ]) {
      const response = await fetch(`${stack.serviceUrl}/catalog/multi-search?${query}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: '{"searches":[{"q":"a"}]}',
      });
      await judge(`POST multi-search ?${query}`, response);
    }
    // Query text is words to the engine, never its syntax: these are searches, not errors.
    for (const q of [
      '"a" NEAR(b c) OR name:* AND -x ^y {z}',
      '""""',
      'a\u0000b\u0001\u007f',
      '👩‍👩‍👧 é',
      "lamp'); DROP TABLE search_text;--",
    ]) {
      const response = await fetch(
        `${stack.serviceUrl}/catalog/search?${new URLSearchParams({ q })}`,
        {
          headers: { authorization: `Bearer ${admin}` },
        },
      );
      if (response.status !== 200) failures.push(`q ${JSON.stringify(q)}: ${response.status}`);
    }
    expect(failures).toEqual([]);
    // Still searching.
    const after = await fetch(`${stack.serviceUrl}/catalog/search?q=lamp`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(after.status).toBe(200);
    expect(((await after.json()) as { found: number }).found).toBe(1);
  });
});
