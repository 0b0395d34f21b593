/**
 * The node:http fast path (src/gateway/fast-path.ts) and compiled execution (src/gateway/jit.ts)
 * answer exactly as Yoga's own handler and executor do: one corpus of requests — good, bad and
 * hostile — goes to gateways over the same service with each of them on and off, and status,
 * headers and body must equal the plain gateway's byte for byte, as must the request log lines
 * (but for time and duration).
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { createGateway, type Gateway, gatewaySettings } from '../../src/gateway/create-gateway.ts';
import { createRequestListener, type GatewayRequestListener } from '../../src/gateway/fast-path.ts';
import { createLogger } from '../../src/gateway/logging.ts';
import { type Stack, startStack } from '../support/harness.ts';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

interface Case {
  name: string;
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  /** A string or object (sent as JSON) body; a Buffer is sent as is. */
  body?: string | Buffer | object;
  /** Leave out Content-Length (sent chunked). */
  chunked?: boolean;
}

let stack: Stack;
let token: string;
let orderId: string;
interface Target {
  url: string;
  server: Server;
  lines: string[];
  fastPath: boolean;
  jit: boolean;
  listener: GatewayRequestListener;
  gateway: Gateway;
}
const targets: Target[] = [];

beforeAll(async () => {
  stack = await startStack({ seed: true, seedOptions: { orders: 60 } });
  token = await stack.token();
  const first = await stack.graphql('{ orders(first: 1) { nodes { upstreamId } } }');
  orderId = first.body.data.orders.nodes[0].upstreamId;
  for (const [fastPath, jit] of [
    [false, false],
    [true, true],
    [false, true],
    [true, false],
  ] as const) {
    const lines: string[] = [];
    const gateway = createGateway({
      upstreamUrl: stack.serviceUrl,
      jit,
      graphiql: false,
      queryLimits: { maxDepth: 6 },
      maxBodyBytes: 4096,
      logger: createLogger({ write: (line) => lines.push(line) }),
    });
    const listener = createRequestListener(gateway, { fastPath });
    const server = createServer(listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    targets.push({
      url: `http://127.0.0.1:${port}`,
      server,
      lines,
      fastPath,
      jit,
      listener,
      gateway,
    });
  }
});

afterAll(async () => {
  for (const target of targets) {
    await new Promise<void>((resolve) => {
      target.server.close(() => resolve());
      target.server.closeAllConnections();
    });
  }
  await stack?.close();
});

function send(base: string, one: Case, requestId: string): Promise<Raw> {
  const body =
    one.body === undefined
      ? undefined
      : Buffer.isBuffer(one.body)
        ? one.body
        : Buffer.from(typeof one.body === 'string' ? one.body : JSON.stringify(one.body));
  const headers: Record<string, string> = { 'x-request-id': requestId, ...one.headers };
  if (body !== undefined && !one.chunked) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${base}${one.path ?? '/graphql'}`,
      { method: one.method ?? 'POST', headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The test's own request ids as they are; a fresh one (the sent one was refused) as a shape. */
function requestIdOf(value: unknown): unknown {
  return typeof value === 'string' && UUID.test(value) ? 'a fresh uuid' : value;
}

/** Headers a client acts on; Date and connection management are the socket's business. */
function headersThatMatter(headers: Raw['headers']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(headers).sort()) {
    if (name === 'date' || name === 'connection' || name === 'keep-alive') continue;
    out[name] = name === 'x-request-id' ? requestIdOf(headers[name]) : headers[name];
  }
  return out;
}

const json = { 'content-type': 'application/json' };
// No cursors: they carry the walk's pin, the time of its first page.
const ORDERS =
  '{ orders(first: 5) { totalCount pageInfo { hasNextPage } edges { node { id status } } } }';

function corpus(): Case[] {
  const auth = { authorization: `Bearer ${token}` };
  const good = { ...json, ...auth };
  return [
    { name: 'a page of orders', headers: good, body: { query: ORDERS } },
    {
      name: 'variables and operationName',
      headers: good,
      body: {
        query:
          'query A($n: Int!) { orders(first: $n) { nodes { upstreamId } } } query B { __typename }',
        variables: { n: 3 },
        operationName: 'A',
      },
    },
    {
      name: 'null variables and operationName',
      headers: good,
      body: { query: '{ __typename }', variables: null, operationName: null },
    },
    {
      name: 'graphql-response+json accepted',
      headers: { ...good, accept: 'application/graphql-response+json' },
      body: { query: ORDERS },
    },
    {
      name: 'both media types, json first',
      headers: { ...good, accept: 'application/json, application/graphql-response+json' },
      body: { query: '{ orders(first: 1) { nodes { id } } ' },
    },
    {
      name: 'nothing acceptable',
      headers: { ...good, accept: 'text/html' },
      body: { query: ORDERS },
    },
    {
      name: 'a charset other than utf-8',
      headers: { ...good, accept: 'application/json; charset=iso-8859-1' },
      body: { query: ORDERS },
    },
    {
      name: 'content type with charset',
      headers: { ...auth, 'content-type': 'application/json; charset=utf-8' },
      body: { query: '{ __typename }' },
    },
    {
      name: 'graphql+json content type',
      headers: { ...auth, 'content-type': 'application/graphql+json' },
      body: { query: '{ __typename }' },
    },
    {
      name: 'cross-origin browser request',
      headers: { ...good, origin: 'https://shop.example' },
      body: { query: ORDERS },
    },
    {
      name: 'fragments, aliases, @include and @skip',
      headers: good,
      body: {
        query:
          'query($yes: Boolean!, $no: Boolean = false) { a: orders(first: 3, reverse: true) { ...page } b: orders(first: 2, sortKey: UPDATED_AT) @include(if: $yes) { ...page } c: orders(first: 1) @skip(if: $yes) { totalCount } d: orders(first: 1) @include(if: $no) { totalCount } } fragment page on OrderConnection { totalCount nodes { __typename upstreamId status ... on Order { total { amount currency formatted } createdAt } } pageInfo { hasNextPage hasPreviousPage } }',
        variables: { yes: true },
      },
    },
    {
      name: 'nested connections and lookups',
      headers: good,
      body: {
        query:
          '{ customApis(first: 3) { nodes { name apiType entries(first: 2) { totalCount nodes { upstreamId attributes } } } } missing: order(id: "00000000-0000-4000-8000-000000000000") { id } node(id: "T3JkZXI6MDAwMDAwMDAtMDAwMC00MDAwLTgwMDAtMDAwMDAwMDAwMDAw") { __typename id } }',
      },
    },
    {
      name: 'a field error beside good data',
      headers: good,
      body: {
        query:
          '{ good: orders(first: 1) { totalCount } bad: customApiEntries(customApiId: "00000000-0000-4000-8000-000000000000", first: 1) { totalCount } }',
      },
    },
    {
      name: 'an error under a non-null field bubbles',
      headers: good,
      body: {
        query: '{ orders(first: 2) { nodes { upstreamId } } customApi(id: "nope/..") { id } }',
      },
    },
    {
      name: 'list items that fail, the last among them',
      headers: good,
      body: {
        query:
          'query($r: [_Any!]!) { nodes(ids: ["T3JkZXI6MDAwMDAwMDAtMDAwMC00MDAwLTgwMDAtMDAwMDAwMDAwMDAw"]) { __typename id } _entities(representations: $r) { __typename } }',
        variables: {
          r: [
            { __typename: 'Order', upstreamId: '00000000-0000-4000-8000-000000000000' },
            { __typename: 'Cart', upstreamId: 'x' },
            'Order',
            { __typename: 'Order' },
          ],
        },
      },
    },
    { name: 'syntax error', headers: good, body: { query: '{ orders(first: 5) { ' } },
    { name: 'unknown field', headers: good, body: { query: '{ orderz { id } }' } },
    {
      name: 'too deep',
      headers: good,
      body: {
        query:
          // A connection's edges and node add no level (src/gateway/query-depth.ts): seven levels.
          '{ catalog { hierarchies(first:1) { edges { node { children(first:1) { edges { node { children(first:1) { edges { node { children(first:1) { edges { node { children(first:1) { edges { node { name } } } } } } } } } } } } } } } }',
      },
    },
    {
      name: 'too costly',
      headers: good,
      body: {
        query: '{ orders(first: 1000) { nodes { id status items { name } } } }',
      },
    },
    {
      name: 'variable of the wrong type',
      headers: good,
      body: {
        query: 'query($n: Int!) { orders(first: $n) { totalCount } }',
        variables: { n: 'x' },
      },
    },
    {
      name: 'missing variable',
      headers: good,
      body: { query: 'query($n: Int!) { orders(first: $n) { totalCount } }' },
    },
    {
      name: 'two operations, no name',
      headers: good,
      body: { query: 'query A { __typename } query B { __typename }' },
    },
    {
      name: 'unknown operation name',
      headers: good,
      body: { query: 'query A { __typename }', operationName: 'Z' },
    },
    {
      name: '`__proto__` aliases (graphql-jit would drop them)',
      headers: good,
      body: {
        query:
          '{ __proto__: __typename orders(first: 2) { __proto__: totalCount nodes { __proto__: upstreamId } } }',
      },
    },
    {
      name: 'an upper-case uuid',
      headers: good,
      body: { query: `{ order(id: "${orderId.toUpperCase()}") { upstreamId status } }` },
    },
    {
      name: 'a list in variables over MAX_LIST_ITEMS',
      headers: good,
      body: {
        query: 'query($ids: [ID!]!) { nodes(ids: $ids) { id } }',
        variables: { ids: new Array(1001).fill(1) },
      },
    },
    {
      name: 'page sizes in variables over the cost',
      headers: good,
      body: {
        query:
          'query($n: Int) { a: orders(first: $n) { nodes { id items { name } } } b: orders(last: $n) { nodes { id } } }',
        variables: { n: 1000 },
      },
    },
    {
      name: 'first over the maximum',
      headers: good,
      body: { query: '{ orders(first: 5000) { totalCount } }' },
    },
    {
      name: 'a mutation refused before any call',
      headers: good,
      body: {
        query:
          'mutation { updateCartItemCustomDiscount(input: { cartId: "x", cartItemId: "y", customDiscountId: "z", amount: 5, description: "d", discountCode: "c", discountEngine: "e", externalId: "x" }) { customDiscount { id } } }',
      },
    },
    { name: 'no Authorization', headers: json, body: { query: ORDERS } },
    {
      name: 'not a bearer',
      headers: { ...json, authorization: 'Basic abc' },
      body: { query: ORDERS },
    },
    {
      name: 'a token the service does not know',
      headers: { ...json, authorization: 'Bearer 0000000000000000' },
      body: { query: ORDERS },
    },
    { name: 'invalid JSON', headers: good, body: '{"query": ' },
    { name: 'JSON null', headers: good, body: 'null' },
    { name: 'JSON string', headers: good, body: '"{ __typename }"' },
    { name: 'JSON number', headers: good, body: '42' },
    { name: 'a batch (batching is off)', headers: good, body: [{ query: '{ __typename }' }] },
    { name: 'empty body', headers: good, body: '' },
    { name: 'no query', headers: good, body: { variables: {} } },
    { name: 'query not a string', headers: good, body: { query: 42 } },
    {
      name: 'variables not an object',
      headers: good,
      body: { query: '{ __typename }', variables: '{}' },
    },
    {
      name: 'variables an array',
      headers: good,
      body: { query: '{ __typename }', variables: [1] },
    },
    {
      name: 'operationName a number',
      headers: good,
      body: { query: '{ __typename }', operationName: 1 },
    },
    { name: 'an unknown parameter', headers: good, body: { query: '{ __typename }', foo: 1 } },
    {
      name: 'extensions',
      headers: good,
      body: {
        query: '{ __typename }',
        extensions: { persistedQuery: { version: 1, sha256Hash: 'ab' } },
      },
    },
    {
      name: 'a byte order mark',
      headers: good,
      body: Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from('{"query":"{ __typename }"}'),
      ]),
    },
    {
      name: 'invalid UTF-8',
      headers: good,
      body: Buffer.concat([
        Buffer.from('{"query":"{ __typename } # '),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}'),
      ]),
    },
    {
      name: 'unicode in a string',
      headers: good,
      body: {
        query: '{ orders(first: 1, filter: { status: { eq: "ünïcødé ✓" } }) { totalCount } }',
      },
    },
    {
      name: 'over the body limit',
      headers: good,
      body: { query: `{ __typename } #${'x'.repeat(5000)}` },
    },
    {
      name: 'chunked (no Content-Length)',
      headers: good,
      body: { query: '{ __typename }' },
      chunked: true,
    },
    {
      name: 'text/plain (CSRF)',
      headers: { ...auth, 'content-type': 'text/plain' },
      body: { query: '{ __typename }' },
    },
    { name: 'no content type', headers: auth, body: { query: '{ __typename }' } },
    {
      name: 'form content type',
      headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'query=%7B__typename%7D',
    },
    {
      name: 'GET with the CSRF header',
      method: 'GET',
      path: '/graphql?query=%7B__typename%7D',
      headers: { ...auth, 'x-graphql-yoga-csrf': '1' },
    },
    {
      name: 'OPTIONS preflight',
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    },
    { name: 'another path', path: '/graphql/x', headers: good, body: { query: '{ __typename }' } },
    {
      name: 'a query string on the endpoint',
      path: '/graphql?x=1',
      headers: good,
      body: { query: '{ __typename }' },
    },
    {
      name: 'a malformed request id',
      headers: { ...good, 'x-request-id': 'bad id\u00e9' },
      body: { query: '{ __typename }' },
    },
  ];
}

function stripVolatile(line: string): unknown {
  const { time: _time, durationMs: _duration, ...rest } = JSON.parse(line);
  return { ...rest, requestId: requestIdOf(rest.requestId) };
}

describe('the node:http fast path', () => {
  it('answers a corpus of good, bad and hostile requests exactly as plain Yoga does', async () => {
    const [plain, ...others] = targets;
    if (!plain || plain.fastPath || plain.jit || others.length !== 3) {
      throw new Error('targets not started');
    }
    const cases = corpus();
    for (const [index, one] of cases.entries()) {
      const id = `case-${index}`;
      const expected = await send(plain.url, one, id);
      expect(expected.status, one.name).toBeLessThan(500);
      for (const target of others) {
        const what = `${one.name} (fast path ${target.fastPath}, jit ${target.jit})`;
        const got = await send(target.url, one, id);
        expect(got.status, what).toBe(expected.status);
        expect(headersThatMatter(got.headers), what).toEqual(headersThatMatter(expected.headers));
        expect(got.body.toString('latin1'), what).toBe(expected.body.toString('latin1'));
      }
    }
    // Every JSON POST to the endpoint within the body limit took the fast path; the rest (GET,
    // OPTIONS, other content types and paths, chunked or oversized bodies) went to Yoga.
    const posts = cases.length - 9;
    for (const target of targets) {
      expect(target.listener.fastPathRequests).toBe(target.fastPath ? posts : 0);
      // Queries ran compiled where jit is on; bad variables, mutations and `__proto__` aliases
      // ran on the executor; lists and page sizes over the limits ran on neither.
      const stats = gatewaySettings(target.gateway)?.jit;
      expect(stats?.compiled, `jit ${target.jit}`).toBe(target.jit ? 24 : 0);
      expect(stats?.normal, `jit ${target.jit}`).toBe(target.jit ? 4 : 0);
      // The request log says the same of every request (the CORS preflight is answered before
      // the log sees it, on every path).
      expect(target.lines.map(stripVolatile)).toEqual(plain.lines.map(stripVolatile));
      expect(target.lines).toHaveLength(cases.length - 1);
    }
  });

  it('takes the common request, and gives the client-gone signal to the upstream calls', async () => {
    // A page whose upstream call takes long enough to hang up in the middle of it.
    const slow = await startStack({
      seed: true,
      seedOptions: { orders: 5 },
      gateway: {
        send: async (transport, request, context) => {
          await new Promise((resolve) => setTimeout(resolve, 300));
          const { sendUpstreamAttempt } = await import('../../src/upstream/client.ts');
          return sendUpstreamAttempt(transport, request, context);
        },
        resilience: false,
      },
    });
    try {
      const slowToken = await slow.token();
      const { origin } = new URL(slow.gatewayUrl);
      const body = Buffer.from(JSON.stringify({ query: '{ orders(first: 2) { totalCount } }' }));
      await new Promise<void>((resolve) => {
        const req = httpRequest(`${origin}/graphql`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': String(body.length),
            authorization: `Bearer ${slowToken}`,
          },
        });
        req.on('error', () => resolve());
        req.end(body);
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 100);
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      // The hang-up aborted the operation before its (delayed) upstream call went out.
      expect(slow.upstreamRequests.filter((r) => r.url.startsWith('/v2/orders'))).toHaveLength(0);
    } finally {
      await slow.close();
    }
  });
});

describe('FAST_PATH and JIT', () => {
  it('are on by default, off with 0, and refuse anything but a boolean', () => {
    expect(loadConfig({}).listen.fastPath).toBe(true);
    expect(loadConfig({}).gateway.jit).toBe(true);
    const off = loadConfig({ FAST_PATH: '0', JIT: 'false' });
    expect(off.listen.fastPath).toBe(false);
    expect(off.gateway.jit).toBe(false);
    expect(() => loadConfig({ JIT: 'sometimes' })).toThrow(/JIT/);
    expect(() => loadConfig({ FAST_PATH: 'maybe' })).toThrow(/FAST_PATH/);
  });
});
