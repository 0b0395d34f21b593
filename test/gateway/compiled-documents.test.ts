/**
 * Compiled trusted documents (src/gateway/compiled/) answer exactly as the ordinary path: the
 * same manifest is served by two gateways over one service, one compiling its documents and one
 * not, and every request — the benches' pages, a corpus over the described resources (aliases,
 * fragments, __typename, nulls, upstream errors, missing fields in upstream rows, variables good
 * and bad) — must get the same status, headers and body, byte for byte. Documents the compiler
 * cannot prove equal are named with their reason and still answer the same (ordinary path).
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileDocument } from '../../src/gateway/compiled/plan.ts';
import { createGateway, type Gateway, gatewaySettings } from '../../src/gateway/create-gateway.ts';
import { createRequestListener } from '../../src/gateway/fast-path.ts';
import { schema } from '../../src/schema/index.ts';
import { isJsonObject, sendUpstreamAttempt } from '../../src/upstream/client.ts';
import { type Stack, startStack } from '../support/harness.ts';

/** A row field the upstream "forgets" for the missing-field cases (see `send` below). */
const BROKEN = { key: '' };

const NARROW = '{ orders(first: 25) { edges { node { id status } } } }';
const WIDE =
  '{ orders(first: 100) { edges { node { id upstreamId status payment shipping customerName ' +
  'customerEmail total { amount currency formatted } createdAt updatedAt } } } }';
const CATALOG =
  '{ catalog { products(first: 25) { edges { node { id name sku price(currency: "EUR") { ' +
  'amount { amount currency formatted } } stock { available } } } } } }';
const PRODUCT = (slug: string) =>
  `{ catalog { product(slug: "${slug}") { id name price(currency: "USD") { amount { amount ` +
  'currency formatted } } breadcrumbs { id name } children(first: 10) { edges { node { id sku name } } } } } }';

const DOCS: Record<string, string> = {
  narrow: NARROW,
  wide: WIDE,
  catalog: CATALOG,
  aliases:
    'query Aliases { a: orders(first: 2) { __typename total: totalCount pageInfo { hasNextPage ' +
    'hasPreviousPage startCursor endCursor } edges { c: cursor node { ...Row ... on Order { s: status } } } } ' +
    'b: orders(first: 1, reverse: true) { nodes { upstreamId status } } } ' +
    'fragment Row on Order { __typename upstreamId createdAt total { amount decimal formatted } }',
  nodeFragment:
    'query NodeFragment { orders(first: 2) { nodes { ... on Node { id } ...Named } } } ' +
    'fragment Named on Order { upstreamId status upstreamId }',
  variables:
    'query Page($n: Int!, $after: String) { orders(first: $n, after: $after) { totalCount ' +
    'pageInfo { endCursor hasNextPage } nodes { upstreamId } } }',
  lookup:
    'query One($id: ID!) { order(id: $id) { id upstreamId status payment customerName total { formatted decimal } } }',
  nonNull: '{ orders(first: -1) { totalCount } }',
  listing:
    '{ catalog { products(first: 5) { totalCount nodes { __typename name sku slug ' +
    'price(currency: "USD") { currency includesTax amount { formatted decimal } withTax { amount } original { amount } } ' +
    'stock { available total } } } } }',
  noProduct: '{ catalog { product(slug: "no-such-product") { id name } } }',
  // Not compiled: each for its own reason, answered by the ordinary path.
  items: '{ orders(first: 2) { nodes { upstreamId items { id } } } }',
  node: 'query N($id: ID!) { node(id: $id) { id } }',
  skip: 'query Skip($s: Boolean!) { orders(first: 1) @skip(if: $s) { totalCount } }',
  twoOps: 'query A { __typename } query B { orders(first: 1) { totalCount } }',
};

interface Raw {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

let stack: Stack;
let token: string;
let orderId: string;
let slug: string;
const servers: Server[] = [];
let ordinary: string;
let compiled: string;
let compiledGateway: Gateway;

async function serve(gateway: Gateway): Promise<string> {
  const server = createServer(createRequestListener(gateway));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
}

beforeAll(async () => {
  stack = await startStack({ seed: true, seedOptions: { orders: 40 } });
  token = await stack.token();
  orderId = (await stack.graphql('{ orders(first: 1) { nodes { upstreamId } } }')).body.data.orders
    .nodes[0].upstreamId;
  const parent = await fetch(`${stack.serviceUrl}/catalog/products?filter=eq(sku,TEE-001)`, {
    headers: { authorization: `Bearer ${token}` },
  });
  slug = ((await parent.json()) as { data: { attributes: { slug: string } }[] }).data[0]
    ?.attributes.slug as string;
  DOCS.product = PRODUCT(slug);
  const persistedDocuments = new Map(Object.entries(DOCS));
  const options = {
    upstreamUrl: stack.serviceUrl,
    graphiql: false,
    persistedDocuments,
    // The same answers from the upstream for both, with a row field dropped when a case asks.
    send: async (...args: Parameters<typeof sendUpstreamAttempt>) => {
      const response = await sendUpstreamAttempt(...args);
      const rows = isJsonObject(response.body) ? response.body.data : undefined;
      if (BROKEN.key !== '' && Array.isArray(rows) && isJsonObject(rows[0])) {
        const copy = { ...rows[0] };
        delete copy[BROKEN.key];
        return { ...response, body: { ...response.body, data: [copy, ...rows.slice(1)] } };
      }
      return response;
    },
  };
  ordinary = await serve(createGateway({ ...options, compiledDocuments: false }));
  compiledGateway = createGateway(options);
  compiled = await serve(compiledGateway);
});

afterAll(async () => {
  for (const server of servers) {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
  await stack?.close();
});

function post(url: string, body: object, headers: Record<string, string>): Promise<Raw> {
  const text = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(text.length),
          'x-request-id': 'compiled-equivalence',
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const { date: _date, ...rest } = res.headers;
          resolve({
            status: res.statusCode ?? 0,
            headers: rest,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/**
 * A keyset walk's cursors carry the moment the walk was pinned (`p`, the request's own clock),
 * so two requests a millisecond apart have different cursors: compared without it.
 */
function unpinned(body: string): string {
  return body.replace(/"(eyJ[A-Za-z0-9+/=_-]{20,})"/g, (_whole, cursor: string) => {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    delete decoded.p;
    return JSON.stringify(JSON.stringify(decoded));
  });
}

/** Sends one request to both gateways; returns the compiled one's answer after comparing. */
async function same(
  id: string,
  variables?: Record<string, unknown>,
  headers: Record<string, string> = { authorization: `Bearer ${token}` },
  extra: Record<string, unknown> = {},
): Promise<Raw> {
  const body = { documentId: id, ...(variables ? { variables } : {}), ...extra };
  const before = gatewaySettings(compiledGateway)?.compiled.compiled ?? 0;
  const a = await post(ordinary, body, headers);
  const b = await post(compiled, body, headers);
  expect(b.status, id).toBe(a.status);
  expect(b.headers, id).toEqual(a.headers);
  expect(unpinned(b.body), id).toBe(unpinned(a.body));
  const ran = (gatewaySettings(compiledGateway)?.compiled.compiled ?? 0) - before;
  return { ...b, headers: { ...b.headers, ran } };
}

describe('which documents compile', () => {
  it('compiles the pages and the corpus, and names why the others are not', () => {
    const skipped = Object.fromEntries(
      (gatewaySettings(compiledGateway)?.notCompiled ?? []).map((s) => [s.id, s.reason]),
    );
    expect(skipped).toEqual({
      items: 'Order.items is not described',
      node: 'Query.node is not described',
      skip: 'the directive @skip is not compiled',
      twoOps: 'the document holds more than one operation',
    });
    expect(compileDocument(schema, 'mutation { __typename }').reason).toBe(
      'a mutation is not compiled',
    );
    expect(compileDocument(schema, '{ __schema { types { name } } }').reason).toBe(
      'introspection is not compiled',
    );
    expect(compileDocument(schema, '{ nope }').reason).toBe(
      'the document is not valid against the schema',
    );
  });
});

describe('equivalence with the ordinary path', () => {
  it('the benches pages: orders narrow and wide, the catalog listing, the product page', async () => {
    for (const id of ['narrow', 'wide', 'catalog', 'product']) {
      const answer = await same(id);
      expect(answer.status).toBe(200);
      expect(answer.body).not.toContain('"errors"');
      expect(answer.headers.ran, id).toBe(1);
    }
  });

  it('aliases, fragments (named, inline, on an interface), __typename, pageInfo, cursors', async () => {
    for (const id of ['aliases', 'nodeFragment', 'listing']) {
      const answer = await same(id);
      expect(answer.body).not.toContain('"errors"');
      expect(answer.headers.ran, id).toBe(1);
    }
  });

  it('variables: given, defaulted, paged by a cursor; bad ones fall back with the same error', async () => {
    const first = await same('variables', { n: 3 });
    expect(first.headers.ran).toBe(1);
    const cursor = JSON.parse(first.body).data.orders.pageInfo.endCursor;
    expect((await same('variables', { n: 2, after: cursor })).headers.ran).toBe(1);
    // Wrong type, missing, and a cursor that is not one: the same coded answers.
    expect((await same('variables', { n: 'three' })).headers.ran).toBe(0);
    expect((await same('variables', {})).headers.ran).toBe(0);
    const garbage = await same('variables', { n: 2, after: 'not-a-cursor' });
    expect(garbage.body).toContain('"errors"');
    // Over the paging maximum: refused by the limits before either path runs.
    expect((await same('variables', { n: 100000 })).body).toContain('"errors"');
  });

  it('nulls: a lookup of a missing order is null; a failing non-null field nulls its parent', async () => {
    expect(JSON.parse((await same('lookup', { id: orderId })).body).data.order.upstreamId).toBe(
      orderId,
    );
    const missing = await same('lookup', { id: '00000000-0000-4000-8000-000000000000' });
    expect(JSON.parse(missing.body).data.order).toBeNull();
    expect((await same('lookup', { id: 'not-an-id' })).body).toContain('BAD_USER_INPUT');
    expect(JSON.parse((await same('nonNull')).body).data).toBeNull();
    expect(JSON.parse((await same('noProduct')).body).data.catalog.product).toBeNull();
  });

  it('upstream errors: no token, a refused token', async () => {
    for (const id of ['narrow', 'catalog', 'aliases']) {
      await same(id, undefined, {});
      await same(id, undefined, { authorization: 'Bearer not-a-token' });
    }
  });

  it('a field missing from an upstream row: the same error and nulls', async () => {
    for (const key of ['status', 'meta', 'id', 'attributes']) {
      BROKEN.key = key;
      try {
        for (const id of ['narrow', 'wide', 'aliases', 'listing', 'catalog']) await same(id);
      } finally {
        BROKEN.key = '';
      }
    }
  });

  it('documents that are not compiled answer as always', async () => {
    expect((await same('items')).headers.ran).toBe(0);
    expect((await same('node', { id: 'T3JkZXI6eA==' })).headers.ran).toBe(0);
    expect((await same('skip', { s: false })).headers.ran).toBe(0);
    expect((await same('twoOps', undefined, undefined, { operationName: 'B' })).headers.ran).toBe(0);
  });

  it('another operation name falls back to the executor, which refuses it', async () => {
    const answer = await same('aliases', undefined, undefined, { operationName: 'Other' });
    expect(answer.headers.ran).toBe(0);
    expect(answer.body).toContain('"errors"');
  });
});
