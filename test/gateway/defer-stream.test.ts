/**
 * `@defer` and `@stream` over real sockets: the embedded service with 1,100 orders behind a
 * fault-injecting proxy that adds latency to chosen upstream pages, and the gateway in front,
 * read by a client that parses each part as it arrives (multipart/mixed or text/event-stream).
 * What a client must see: the first rows of `orders(first: 1000)` before the upstream has even
 * answered its last page, the parts merging into exactly the answer of the same query without
 * the directives, a deferred fragment, the client going away stopping the walk's upstream calls,
 * and the limits refusing a streamed query as they refuse it whole.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommerceService } from '../../src/commerce-service/app.ts';
import { createGateway, type Gateway, gatewaySettings } from '../../src/gateway/create-gateway.ts';
import { createRequestListener, type GatewayRequestListener } from '../../src/gateway/fast-path.ts';
import { schema } from '../../src/index.ts';
import { fetchClientToken } from '../../src/upstream/oauth.ts';
import { createFaultUpstream, type FaultUpstream } from '../support/fault-upstream.ts';
import { startStack } from '../support/harness.ts';
import { mergeParts, requestParts } from '../support/incremental-client.ts';

const ORDERS = 1100;
const CLIENT = { id: 'demo', secret: 'demo-secret' };

let service: Awaited<ReturnType<typeof createCommerceService>>;
let fault: FaultUpstream;
let token: string;
const servers: { server: Server; gateway: Gateway }[] = [];

async function startGateway(paging?: { concurrency: number }) {
  const gateway = createGateway({ graphiql: false, upstreamUrl: fault.url, paging });
  const listener = createRequestListener(gateway);
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({ server, gateway });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  return { url, gateway, listener };
}

let gatewayUrl: string;
let gateway: Gateway;
let listener: GatewayRequestListener;

beforeAll(async () => {
  service = await createCommerceService({
    dbPath: ':memory:',
    clients: [CLIENT],
    seed: true,
    seedOptions: { orders: ORDERS },
    logger: false,
  });
  await service.listen({ port: 0, host: '127.0.0.1' });
  const serviceUrl = `http://127.0.0.1:${(service.server.address() as AddressInfo).port}`;
  fault = await createFaultUpstream({ target: serviceUrl });
  token = await fetchClientToken(serviceUrl, CLIENT);
  ({ url: gatewayUrl, gateway, listener } = await startGateway());
});

afterAll(async () => {
  for (const { server, gateway: one } of servers) {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await one.dispose();
  }
  await fault?.close();
  await service?.close();
});

/** The same operation answered whole, as JSON. */
async function whole(query: string, variables?: Record<string, unknown>, url = gatewayUrl) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const ordersCalls = () => fault.requests.filter((r) => r.url.startsWith('/v2/orders?'));
const offsetOf = (url: string) => Number(/page%5Boffset%5D=(\d+)/i.exec(url)?.[1] ?? -1);

const NODE = 'node { upstreamId status total { amount currency } }';

describe('@stream on a connection fed by several upstream pages', () => {
  it('sends the first rows before the upstream has answered the last page (multipart/mixed)', async () => {
    fault.clear();
    // The last of the ten upstream pages of `first: 1000` comes a second late.
    const remove = fault.add({
      path: /^\/v2\/orders$/,
      target: /page%5Boffset%5D=900(&|$)/i,
      otherwise: { kind: 'delay', ms: 1_000 },
    });
    const callsBefore = ordersCalls().length;
    const streamed = `{ orders(first: 1000) {
      totalCount
      edges @stream(initialCount: 25) { ${NODE} }
      ... @defer { pageInfo { hasNextPage hasPreviousPage } }
    } }`;
    const answer = await requestParts({
      url: gatewayUrl,
      query: streamed,
      token,
      accept: 'multipart/mixed',
    });
    remove();
    expect(answer.status).toBe(200);
    expect(answer.contentType).toContain('multipart/mixed');
    const first = answer.parts[0];
    expect(first?.body.data.orders.totalCount).toBe(ORDERS);
    expect(first?.body.data.orders.edges).toHaveLength(25);
    expect(first?.body.hasNext).toBe(true);

    const lastPage = ordersCalls()
      .slice(callsBefore)
      .find((call) => offsetOf(call.url) === 900);
    expect(lastPage?.closedAt).toBeDefined();
    // The order of events: the first part reached the client, then the upstream sent its last page.
    expect(first?.at).toBeLessThan(lastPage?.closedAt as number);
    // And rows of the first pages arrived in parts of their own before it, too.
    const early = answer.parts.filter((part) => part.at < (lastPage?.closedAt as number));
    const earlyItems = early
      .slice(1)
      .flatMap((part) => part.body.incremental ?? [])
      .flatMap((entry: { items?: unknown[] }) => entry.items ?? []);
    expect(earlyItems.length).toBeGreaterThanOrEqual(900 - 25);

    const merged = mergeParts(answer.parts);
    expect(merged.done).toBe(true);
    expect(merged.errors).toEqual([]);
    const plain = await whole(
      streamed
        .replace('@stream(initialCount: 25)', '')
        .replace('... @defer', '... on OrderConnection'),
    );
    expect(plain.body.errors).toBeUndefined();
    expect(merged.data).toEqual(plain.body.data);
    expect(merged.data?.orders.edges).toHaveLength(1000);
    expect(merged.data?.orders.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false });
  });

  it('a later upstream page failing ends the stream with its code; the rows before it stay', async () => {
    fault.clear();
    const remove = fault.add({
      path: /^\/v2\/orders$/,
      target: /page%5Boffset%5D=900(&|$)/i,
      otherwise: { kind: 'garbage' },
    });
    const answer = await requestParts({
      url: gatewayUrl,
      query: `{ orders(first: 1000) { totalCount edges @stream(initialCount: 25) { ${NODE} } } }`,
      token,
      accept: 'multipart/mixed',
    });
    remove();
    const merged = mergeParts(answer.parts);
    expect(merged.done).toBe(true);
    expect(merged.data?.orders.edges).toHaveLength(900);
    // Masked as the first part's errors are: the gateway's code and words, nothing internal.
    expect(merged.errors).toHaveLength(1);
    expect(merged.errors[0]).toMatchObject({
      path: ['orders', 'edges'],
      extensions: { code: 'UPSTREAM_UNAVAILABLE' },
    });
    expect(JSON.stringify(merged.errors[0])).not.toMatch(/stack|Unexpected error/);
  });

  it('streams a page after a cursor over text/event-stream, cursors and pageInfo as whole', async () => {
    fault.clear();
    const start = await whole('{ orders(first: 50) { pageInfo { endCursor } } }');
    const after = start.body.data.orders.pageInfo.endCursor as string;
    const remove = fault.add({
      path: /^\/v2\/orders$/,
      target: /page%5Boffset%5D=(450)(&|$)/i,
      otherwise: { kind: 'delay', ms: 600 },
    });
    const query = `query Page($after: String) { orders(first: 500, after: $after) {
      totalCount
      edges @stream(initialCount: 10) { cursor ${NODE} }
      ... @defer { pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }
    } }`;
    const answer = await requestParts({
      url: gatewayUrl,
      query,
      variables: { after },
      token,
      accept: 'text/event-stream',
    });
    remove();
    expect(answer.contentType).toContain('text/event-stream');
    expect(answer.parts.length).toBeGreaterThan(2);
    expect(answer.parts[0]?.body.data.orders.edges).toHaveLength(10);
    const merged = mergeParts(answer.parts);
    expect(merged.done).toBe(true);
    const plain = await whole(
      query
        .replace('@stream(initialCount: 10)', '')
        .replace('... @defer', '... on OrderConnection'),
      { after },
    );
    // The same walk (the cursor pins it): the same rows, cursors and pageInfo.
    expect(merged.data).toEqual(plain.body.data);
    expect(merged.data?.orders.edges).toHaveLength(500);
    expect(merged.data?.orders.pageInfo.hasPreviousPage).toBe(true);
  });

  it('streams an offset-only list (the products) page by page too', async () => {
    fault.clear();
    const remove = fault.add({
      path: /\/pcm\/products$/,
      target: /page%5Boffset%5D=400(&|$)/i,
      otherwise: { kind: 'delay', ms: 800 },
    });
    const callsBefore = fault.requests.length;
    const query = `{ pcmProducts(first: 500) {
      totalCount
      edges @stream(initialCount: 5) { cursor node { upstreamId sku } }
      ... @defer { pageInfo { hasNextPage hasPreviousPage startCursor endCursor } }
    } }`;
    const answer = await requestParts({ url: gatewayUrl, query, token, accept: 'multipart/mixed' });
    remove();
    const lastPage = fault.requests
      .slice(callsBefore)
      .find((call) => call.url.includes('/pcm/products?') && offsetOf(call.url) === 400);
    expect(lastPage?.closedAt).toBeDefined();
    expect(answer.parts[0]?.at).toBeLessThan(lastPage?.closedAt as number);
    expect(answer.parts[0]?.body.data.pcmProducts.edges).toHaveLength(5);
    const merged = mergeParts(answer.parts);
    const plain = await whole(
      query
        .replace('@stream(initialCount: 5)', '')
        .replace('... @defer', '... on PcmProductConnection'),
    );
    expect(plain.body.errors).toBeUndefined();
    expect(merged.data).toEqual(plain.body.data);
    expect(merged.data?.pcmProducts.edges).toHaveLength(500);
  });

  it('sends parts as they come to a client that names no Accept (the fast path)', async () => {
    fault.clear();
    const remove = fault.add({
      path: /^\/v2\/orders$/,
      target: /page%5Boffset%5D=300(&|$)/i,
      otherwise: { kind: 'delay', ms: 800 },
    });
    const callsBefore = ordersCalls().length;
    const fastBefore = listener.fastPathRequests;
    const query = `{ orders(first: 400) { edges @stream(initialCount: 3) { ${NODE} } } }`;
    const answer = await requestParts({ url: gatewayUrl, query, token, accept: undefined });
    remove();
    expect(listener.fastPathRequests).toBe(fastBefore + 1);
    expect(answer.contentType).toContain('multipart/mixed');
    const lastPage = ordersCalls()
      .slice(callsBefore)
      .find((call) => offsetOf(call.url) === 300);
    expect(answer.parts[0]?.at).toBeLessThan(lastPage?.closedAt as number);
    const merged = mergeParts(answer.parts);
    expect(merged.done).toBe(true);
    expect(merged.data?.orders.edges).toHaveLength(400);
  });

  it('answers in the 2022 format to a client that asks for it (deferSpec=20220824)', async () => {
    const query = `{ orders(first: 300) {
      totalCount
      edges @stream(initialCount: 5) { cursor ${NODE} }
      ... @defer(label: "info") { pageInfo { hasNextPage endCursor } }
    } }`;
    const answer = await requestParts({
      url: gatewayUrl,
      query,
      token,
      accept: 'multipart/mixed;deferSpec=20220824',
    });
    const [first, ...later] = answer.parts;
    expect(first?.body.pending).toBeUndefined();
    expect(first?.body.data.orders.edges).toHaveLength(5);
    const entries = later.flatMap((part) => part.body.incremental ?? []);
    expect(
      entries.every((entry: { path?: unknown; id?: unknown }) => entry.path && !entry.id),
    ).toBe(true);
    expect(entries.find((entry: { label?: string }) => entry.label === 'info')?.path).toEqual([
      'orders',
    ]);
    const merged = mergeParts(answer.parts);
    expect(merged.done).toBe(true);
    expect(merged.data?.orders.edges).toHaveLength(300);
    expect(merged.data?.orders.totalCount).toBe(ORDERS);
    // Each edge in its place: the cursors are those of positions 0…299.
    const plain = await whole(
      `{ orders(first: 300, after: null) { edges { node { upstreamId } } } }`,
    );
    expect(
      merged.data?.orders.edges.map((e: { node: { upstreamId: string } }) => e.node.upstreamId),
    ).toEqual(
      plain.body.data.orders.edges.map((e: { node: { upstreamId: string } }) => e.node.upstreamId),
    );
  });

  it('defers a fragment of each row', async () => {
    fault.clear();
    const query = `{ orders(first: 3) { nodes { upstreamId ...Amounts @defer(label: "amounts") } } }
      fragment Amounts on Order { status total { amount currency formatted } }`;
    const answer = await requestParts({ url: gatewayUrl, query, token, accept: 'multipart/mixed' });
    const initial = answer.parts[0]?.body;
    expect(initial?.data.orders.nodes).toHaveLength(3);
    // The first part has the ids only; the amounts come after.
    expect(Object.keys(initial?.data.orders.nodes[0])).toEqual(['upstreamId']);
    expect(initial?.pending.map((p: { label?: string }) => p.label)).toEqual([
      'amounts',
      'amounts',
      'amounts',
    ]);
    const merged = mergeParts(answer.parts);
    const plain = await whole(query.replace('@defer(label: "amounts")', ''));
    expect(merged.data).toEqual(plain.body.data);
  });

  it('streams `nodes` as it streams `edges`', async () => {
    const query = `{ orders(first: 250) { nodes @stream(initialCount: 1) { upstreamId } } }`;
    const answer = await requestParts({ url: gatewayUrl, query, token, accept: 'multipart/mixed' });
    expect(answer.parts[0]?.body.data.orders.nodes).toHaveLength(1);
    const plain = await whole(query.replace('@stream(initialCount: 1)', ''));
    expect(mergeParts(answer.parts).data).toEqual(plain.body.data);
  });

  it('is never compiled by graphql-jit', async () => {
    const stats = gatewaySettings(gateway)?.jit;
    const compiled = stats?.compiled;
    await requestParts({
      url: gatewayUrl,
      query: '{ orders(first: 2) { edges @stream { node { upstreamId } } } }',
      token,
      accept: 'multipart/mixed',
    });
    expect(stats?.compiled).toBe(compiled);
  });
});

describe('the schema', () => {
  it('is served with @defer and @stream; the library schema stays without them', async () => {
    const answer = await whole('{ __schema { directives { name } } }');
    const names = answer.body.data.__schema.directives.map((d: { name: string }) => d.name);
    expect(names).toEqual(expect.arrayContaining(['defer', 'stream', 'inContext']));
    // graphql 17's plain `execute` refuses a schema that declares them: an application that
    // executes the exported schema in process must keep working.
    expect(schema.getDirective('defer')).toBeUndefined();
    expect(schema.getDirective('stream')).toBeUndefined();
  });
});

describe('refusals', () => {
  it('a JSON-only client: 406 NOT_ACCEPTABLE, before any upstream call', async () => {
    const before = fault.requests.length;
    const answer = await whole('{ orders(first: 5) { edges @stream { node { upstreamId } } } }');
    expect(answer.status).toBe(406);
    expect(answer.body.errors[0].extensions.code).toBe('NOT_ACCEPTABLE');
    expect(answer.body.errors[0].message).toContain('multipart/mixed');
    expect(fault.requests).toHaveLength(before);
    // The same query without the directive is answered as ever.
    const plain = await whole('{ orders(first: 5) { edges { node { upstreamId } } } }');
    expect(plain.body.data.orders.edges).toHaveLength(5);
  });

  it('a streamed query over the cost limit is refused as it is whole, no upstream call', async () => {
    const before = fault.requests.length;
    const answer = await requestParts({
      url: gatewayUrl,
      query:
        '{ orders(first: 1000) { edges @stream(initialCount: 1) { node { items { name } } } } }',
      token,
      accept: 'multipart/mixed',
    });
    expect(answer.parts).toHaveLength(1);
    expect(answer.parts[0]?.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(fault.requests).toHaveLength(before);
  });

  it('a deferred fragment counts in the depth limit as it would inline, no upstream call', async () => {
    const before = fault.requests.length;
    const level = (inner: string) => `children(first: 2) { nodes { name ${inner} } }`;
    const answer = await requestParts({
      url: gatewayUrl,
      query: `{ catalog { hierarchies(first: 1) { nodes { name ... @defer {
        ${level(level(level(level(level(level(level(level(''))))))))} } } } } }`,
      token,
      accept: 'multipart/mixed',
    });
    expect(answer.parts).toHaveLength(1);
    expect(answer.parts[0]?.body.errors[0].extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      limit: 'maxDepth',
    });
    expect(fault.requests).toHaveLength(before);
  });

  it('@defer in a mutation: a validation error', async () => {
    const answer = await requestParts({
      url: gatewayUrl,
      query:
        'mutation { createCustomApi(input: { name: "x", slug: "x" }) { ... @defer { userErrors { code } } } }',
      token,
      accept: 'multipart/mixed',
    });
    const error = answer.parts[0]?.body.errors[0];
    expect(error.extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(error.message).toContain('@defer is served on queries only');
  });
});

describe('the client going away', () => {
  it('stops the walk: no further upstream page is asked for', async () => {
    fault.clear();
    // Two pages at a time, each half a second late: ten pages take five rounds.
    const slow = await startGateway({ concurrency: 2 });
    const remove = fault.add({ path: /^\/v2\/orders$/, otherwise: { kind: 'delay', ms: 500 } });
    const callsBefore = ordersCalls().length;
    const answer = await requestParts({
      url: slow.url,
      query: '{ orders(first: 1000) { edges @stream(initialCount: 1) { node { upstreamId } } } }',
      token,
      accept: 'multipart/mixed',
      onPart: () => false,
    });
    expect(answer.parts).toHaveLength(1);
    // The first part needs the first page, by when the next round may already be on its way.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const asked = ordersCalls().length - callsBefore;
    // Long enough for the rest of the walk (three more rounds) had it gone on.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    remove();
    expect(ordersCalls().length - callsBefore).toBe(asked);
    // The calls still out when the client went are cancelled, not waited for.
    const last = ordersCalls().at(-1);
    expect((last?.closedAt as number) - (last?.at as number)).toBeLessThan(500);
    expect(asked).toBeLessThanOrEqual(4);
  });
});

describe('a typed Custom API list', () => {
  it('streams its `nodes` too', async () => {
    const stack = await startStack({ seed: true, seedOptions: { orders: 0 }, typed: {} });
    try {
      const typedToken = await stack.token();
      const query = `{ productReviewsList(first: 20) {
        totalCount nodes @stream(initialCount: 1) { upstreamId body } } }`;
      const answer = await requestParts({
        url: stack.gatewayUrl,
        query,
        token: typedToken,
        accept: 'multipart/mixed',
      });
      expect(answer.parts[0]?.body.data.productReviewsList.nodes).toHaveLength(1);
      const merged = mergeParts(answer.parts);
      expect(merged.errors).toEqual([]);
      const plain = await stack.graphql(query.replace('@stream(initialCount: 1)', ''));
      expect(plain.body.errors).toBeUndefined();
      expect(plain.body.data.productReviewsList.nodes.length).toBeGreaterThan(1);
      expect(merged.data).toEqual(plain.body.data);
    } finally {
      await stack.close();
    }
  });
});
