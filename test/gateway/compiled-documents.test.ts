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
import { createLogger } from '../../src/gateway/logging.ts';
import {
  createTypedSchemaSource,
  type TypedSchemaSource,
} from '../../src/gateway/typed-schema-source.ts';
import { schema } from '../../src/schema/index.ts';
import { isJsonObject, sendUpstreamAttempt } from '../../src/upstream/client.ts';
import { createUpstream, type Upstream } from '../../src/upstream/index.ts';
import { type Stack, startStack } from '../support/harness.ts';

/** A row field the upstream "forgets" for the missing-field cases (see `send` below). */
const BROKEN: { key: string; change?: (row: Record<string, unknown>) => void } = { key: '' };

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
  inContext:
    'query Ctx($lang: String) @inContext(language: $lang, currency: "EUR") { catalog { products(first: 3) { ' +
    'nodes { name price(currency: "EUR") { amount { formatted } } } } } orders(first: 2) { nodes { total { formatted } } } }',
  // Not compiled: each for its own reason, answered by the ordinary path.
  items: '{ orders(first: 2) { nodes { upstreamId items { id } } } }',
  node: 'query N($id: ID!) { node(id: $id) { id } }',
  skip: 'query Skip($s: Boolean!) { orders(first: 1) @skip(if: $s) { totalCount } }',
  twoOps: 'query A { __typename } query B { orders(first: 1) { totalCount } }',
};

// The documents of the other test manifests (test/gateway/persisted-documents.test.ts).
DOCS.latestOrders =
  'query LatestOrders($n: Int!) { orders(first: $n) { totalCount nodes { upstreamId } } }';
DOCS.typename = 'query Typename { __typename }';

/**
 * A generated corpus over the described resources: random selections of the orders' and the
 * catalog products' fields (seeded, so a failure names a reproducible document), with aliases,
 * repeated fields, __typename, inline fragments (on the type and on the Node interface), named
 * fragments, and page sizes as literals or variables.
 */
function generateCorpus(count: number): Record<string, string> {
  let seed = 0x2a;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const money = () => `{ ${pickSome(['amount', 'currency', 'formatted', 'decimal'])} }`;
  const pickSome = (items: readonly string[]) => {
    const chosen = items.filter(() => random() < 0.5);
    return (chosen.length > 0 ? chosen : [pick(items)]).join(' ');
  };
  const order = [
    'id',
    'upstreamId',
    'status',
    'payment',
    'shipping',
    'customerName',
    'customerEmail',
    'customerId',
    'accountId',
    'createdAt',
    'updatedAt',
    '__typename',
    () => `total ${money()}`,
    () => `totals { withTax ${money()} discount ${money()} tax ${money()} }`,
  ];
  const product = [
    'id',
    'upstreamId',
    'name',
    'sku',
    'slug',
    'description',
    'productType',
    'commodityType',
    'createdAt',
    '__typename',
    () =>
      `price(currency: "${pick(['USD', 'EUR'])}") { currency includesTax amount ${money()} withTax ${money()} original ${money()} }`,
    () => `stock { ${pickSome(['available', 'total', 'allocated'])} }`,
  ];
  const corpus: Record<string, string> = {};
  for (let i = 0; i < count; i += 1) {
    const isOrder = random() < 0.5;
    const type = isOrder ? 'Order' : 'Product';
    const fields = (isOrder ? order : product) as (string | (() => string))[];
    const selection: string[] = [];
    const fragments: string[] = [];
    const n = 2 + Math.floor(random() * 5);
    for (let f = 0; f < n; f += 1) {
      const chosen = pick(fields);
      let text = typeof chosen === 'string' ? chosen : chosen();
      if (random() < 0.3) text = `a${f}: ${text}`;
      const wrap = random();
      if (wrap < 0.15) text = `... on ${type} { ${text} }`;
      else if (wrap < 0.25 && !text.startsWith('__')) text = `... on Node { id } ${text}`;
      else if (wrap < 0.35) {
        fragments.push(`fragment F${f} on ${type} { ${text} }`);
        text = `...F${f}`;
      }
      selection.push(text);
      if (random() < 0.1)
        selection.push(text.startsWith('...F') ? text : `... on ${type} { ${text} }`);
    }
    const byVariable = random() < 0.4;
    const size = byVariable ? '$n' : String(1 + Math.floor(random() * 30));
    const shape =
      random() < 0.5
        ? `nodes { ${selection.join(' ')} }`
        : `edges { cursor node { ${selection.join(' ')} } }`;
    const list = isOrder
      ? `orders(first: ${size}) { totalCount ${shape} }`
      : `catalog { products(first: ${size}) { totalCount ${shape} } }`;
    corpus[`gen${i}`] =
      `query Gen${i}${byVariable ? '($n: Int = 7)' : ''} { ${list} } ${fragments.join(' ')}`.trim();
  }
  return corpus;
}
const GENERATED = generateCorpus(40);
Object.assign(DOCS, GENERATED);

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
/** The compiling gateway again, every request through Yoga's own handler (no fast path). */
let compiledYoga: string;
/** Both again on the typed Custom API schema (its own plans, made on first use). */
let typedOrdinary: string;
let typedCompiled: string;
let typedCompiledGateway: Gateway;
let typedSource: TypedSchemaSource;
let reader: Upstream;
/** The request lines each gateway wrote (the compiling one: its fast path's and Yoga's). */
const ordinaryLines: string[] = [];
const compiledLines: string[] = [];
const linesOf = (lines: string[]) => createLogger({ write: (line) => lines.push(line) });

/** A request line without what differs between two requests (time, duration). */
function lineOf(line: string | undefined): Record<string, unknown> {
  const { time: _time, durationMs: _duration, ...rest } = JSON.parse(line ?? '{}');
  return rest;
}

async function serve(gateway: Gateway, fastPath = true): Promise<string> {
  const server = createServer(createRequestListener(gateway, { fastPath }));
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
  slug = ((await parent.json()) as { data: { attributes: { slug: string } }[] }).data[0]?.attributes
    .slug as string;
  DOCS.product = PRODUCT(slug);
  const persistedDocuments = new Map(Object.entries(DOCS));
  const options = {
    upstreamUrl: stack.serviceUrl,
    graphiql: false,
    persistedDocuments,
    corsOrigins: ['https://shop.example'],
    // The same answers from the upstream for both, with a row field dropped when a case asks.
    send: async (...args: Parameters<typeof sendUpstreamAttempt>) => {
      const response = await sendUpstreamAttempt(...args);
      const answer = response.body;
      const rows = isJsonObject(answer) ? answer.data : undefined;
      if (
        BROKEN.key !== '' &&
        isJsonObject(answer) &&
        Array.isArray(rows) &&
        isJsonObject(rows[0])
      ) {
        const copy = structuredClone(rows[0]);
        if (BROKEN.change) BROKEN.change(copy);
        else delete copy[BROKEN.key];
        return { ...response, body: { ...answer, data: [copy, ...rows.slice(1)] } };
      }
      return response;
    },
  };
  ordinary = await serve(
    createGateway({ ...options, compiledDocuments: false, logger: linesOf(ordinaryLines) }),
  );
  compiledGateway = createGateway({ ...options, logger: linesOf(compiledLines) });
  compiled = await serve(compiledGateway);
  compiledYoga = await serve(compiledGateway, false);
  reader = createUpstream({ url: stack.serviceUrl });
  typedSource = createTypedSchemaSource({
    base: schema,
    reader: reader.definitions({ clientId: 'demo', clientSecret: 'demo-secret' }),
  });
  await typedSource.start();
  typedOrdinary = await serve(
    createGateway({ ...options, schemaSource: typedSource, compiledDocuments: false }),
  );
  typedCompiledGateway = createGateway({ ...options, schemaSource: typedSource });
  typedCompiled = await serve(typedCompiledGateway);
});

afterAll(async () => {
  for (const server of servers) {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
  await typedSource?.close();
  await reader?.close();
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
          origin: 'https://shop.example',
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
  const stats = gatewaySettings(compiledGateway)?.compiled;
  const before = stats?.compiled ?? 0;
  const laneBefore = stats?.lane ?? 0;
  const a = await post(ordinary, body, headers);
  const b = await post(compiled, body, headers);
  expect(b.status, id).toBe(a.status);
  expect(b.headers, id).toEqual(a.headers);
  expect(unpinned(b.body), id).toBe(unpinned(a.body));
  // The same request line (the lane writes its own).
  expect(lineOf(compiledLines.at(-1)), id).toEqual(lineOf(ordinaryLines.at(-1)));
  const c = await post(compiledYoga, body, headers);
  expect([c.status, unpinned(c.body)], `${id} through Yoga's handler`).toEqual([
    a.status,
    unpinned(a.body),
  ]);
  // Counted once per gateway request: the fast path's (in the direct lane, or on the ordinary
  // path) and Yoga's.
  const lane = (stats?.lane ?? 0) - laneBefore;
  const ran = ((stats?.compiled ?? 0) - before + lane) / 2;
  return { ...b, headers: { ...b.headers, ran, lane } };
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
      // The first run of a document is the ordinary path's (it proves validation); the next
      // ones take the direct lane.
      for (let round = 0; round < 2; round += 1) {
        const answer = await same(id);
        expect(answer.status).toBe(200);
        expect(answer.body).not.toContain('"errors"');
        expect(answer.headers.ran, id).toBe(1);
        if (round === 1) expect(answer.headers.lane, id).toBe(1);
      }
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
      // Proven by the tests above: the direct lane answers the errors (masked, coded) itself.
      const none = await same(id, undefined, {});
      expect([none.headers.lane, none.body.includes('UNAUTHENTICATED')], id).toEqual([1, true]);
      const refused = await same(id, undefined, { authorization: 'Bearer not-a-token' });
      expect([refused.headers.lane, refused.body.includes('"errors"')], id).toEqual([1, true]);
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

  it('@inContext on the operation: applied before the plan runs; a bad value refused alike', async () => {
    expect((await same('inContext', { lang: 'fr-FR' })).headers.ran).toBe(1);
    expect((await same('inContext', { lang: 'de-DE' })).headers.ran).toBe(1);
    expect((await same('inContext', { lang: 'x'.repeat(300) })).body).toContain('BAD_USER_INPUT');
  });

  it('the documents of the other test manifests', async () => {
    expect((await same('latestOrders', { n: 4 })).headers.ran).toBe(1);
    expect((await same('typename')).headers.ran).toBe(1);
  });

  it('a generated corpus: every document compiles and answers the same, with and without variables', async () => {
    for (const id of Object.keys(GENERATED)) {
      const answer = await same(id);
      expect(answer.headers.ran, DOCS[id]).toBe(1);
      expect(answer.body, DOCS[id]).not.toContain('"errors"');
      // Proven by the first run: the direct lane from now on.
      expect((await same(id)).headers.lane, DOCS[id]).toBe(1);
      if (DOCS[id]?.includes('$n')) {
        const paged = await same(id, { n: 3 });
        expect([paged.headers.ran, paged.headers.lane], DOCS[id]).toEqual([1, 1]);
      }
    }
  });

  it('a generated corpus: the same errors and nulls when an upstream row lacks a field', async () => {
    for (const key of ['status', 'meta', 'attributes']) {
      BROKEN.key = key;
      try {
        for (const id of Object.keys(GENERATED).slice(0, 20)) await same(id);
      } finally {
        BROKEN.key = '';
      }
    }
  });

  it('a nullable field that fails: null, with its error at its path; the rest answered', async () => {
    BROKEN.key = 'amount';
    BROKEN.change = (row) => {
      const meta = row.meta as { display_price: { with_tax: { amount: number } } };
      meta.display_price.with_tax.amount = 2 ** 40;
    };
    try {
      const raw = await same('wide');
      expect(raw.headers.lane).toBe(1);
      const answer = JSON.parse(raw.body);
      expect(answer.errors[0].extensions.code).toBe('VALUE_OUT_OF_RANGE');
      expect(answer.errors[0].path).toEqual(['orders', 'edges', 0, 'node', 'total']);
      expect(answer.data.orders.edges[0].node.total).toBeNull();
      expect(answer.data.orders.edges[1].node.total).not.toBeNull();
      await same('aliases');
    } finally {
      BROKEN.key = '';
      BROKEN.change = undefined;
    }
  });

  it('on the typed Custom API schema: plans of its own, the same answers', async () => {
    // The demo store defines Custom APIs: the typed schema is another schema object.
    expect(typedSource.current()).not.toBe(schema);
    const before = gatewaySettings(typedCompiledGateway)?.compiled.compiled ?? 0;
    for (const [id, variables] of [
      ['narrow'],
      ['catalog'],
      ['aliases'],
      ['variables', { n: 2 }],
      ['variables', { n: 'two' }],
    ] as const) {
      const body = { documentId: id, ...(variables ? { variables } : {}) };
      const headers = { authorization: `Bearer ${token}` };
      const a = await post(typedOrdinary, body, headers);
      const b = await post(typedCompiled, body, headers);
      expect([b.status, b.headers, unpinned(b.body)], id).toEqual([
        a.status,
        a.headers,
        unpinned(a.body),
      ]);
    }
    expect((gatewaySettings(typedCompiledGateway)?.compiled.compiled ?? 0) - before).toBe(4);
  });

  it('documents that are not compiled answer as always', async () => {
    expect((await same('items')).headers.ran).toBe(0);
    expect((await same('node', { id: 'T3JkZXI6eA==' })).headers.ran).toBe(0);
    expect((await same('skip', { s: false })).headers.ran).toBe(0);
    expect((await same('twoOps', undefined, undefined, { operationName: 'B' })).headers.ran).toBe(
      0,
    );
  });

  it('another operation name falls back to the executor, which refuses it', async () => {
    const answer = await same('aliases', undefined, undefined, { operationName: 'Other' });
    expect(answer.headers.ran).toBe(0);
    expect(answer.body).toContain('"errors"');
  });
});
