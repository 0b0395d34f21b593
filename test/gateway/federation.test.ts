/**
 * The gateway as an Apollo Federation v2 subgraph: `_service { sdl }` is the committed
 * subgraph.graphql (plus the typed entry types when the typed schema is served), `_entities`
 * resolves every entity through the request's batch loaders (one `in(id,…)` call per 100
 * representations of a type, null for an unknown id), and a real supergraph — composed with
 * @theguild/federation-composition and served by Hive Gateway's runtime — runs a query that
 * needs this subgraph and a second, local one that extends `Order`, with the caller's token
 * passed through.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';
import * as httpTransport from '@graphql-mesh/transport-http';
import { composeServices } from '@theguild/federation-composition';
import { parse } from 'graphql';
import { createSchema, createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSubgraphSchema } from '../../scripts/print-schema.ts';
import { type Stack, startStack } from '../support/harness.ts';
import { type Json, rest } from './fixtures.ts';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

/** The paths and filters of the list calls that reached the service since `from`. */
function listCalls(stack: Stack, from: number, path: string): string[] {
  return stack.upstreamRequests
    .slice(from)
    .map((request) => new URL(request.url, 'http://x'))
    .filter((url) => url.pathname === path)
    .map((url) => url.searchParams.get('filter') ?? '');
}

const ENTITIES = `query Entities($representations: [_Any!]!) {
  _entities(representations: $representations) {
    __typename
    ... on Order { upstreamId status total { formatted } }
    ... on Account { upstreamId name }
    ... on File { upstreamId fileName }
    ... on CustomApi { upstreamId slug }
    ... on CustomApiEntry { upstreamId customApiId type }
  }
}`;

describe('the subgraph', () => {
  let stack: Stack;
  let orderIds: string[];

  beforeAll(async () => {
    stack = await startStack({ seed: true, seedOptions: { orders: 260 } });
    const ids: string[] = [];
    for (let offset = 0; offset < 260; offset += 100) {
      const page = await rest(stack, 'GET', `/orders?page[limit]=100&page[offset]=${offset}`);
      ids.push(...(page.body.data as Json[]).map((row) => row.id as string));
    }
    orderIds = ids;
  });
  afterAll(() => stack.close());

  it('answers `_service { sdl }` with the committed subgraph.graphql', async () => {
    const result = await stack.graphql('{ _service { sdl } }');
    expect(result.status).toBe(200);
    expect(result.body.data._service.sdl).toBe(renderSubgraphSchema());
    const sdl: string = result.body.data._service.sdl;
    expect(sdl).toMatch(
      /^extend schema @link\(url: "https:\/\/specs\.apollo\.dev\/federation\/v2\.3", import: \["@key"\]\)/,
    );
    for (const type of ['Order', 'Account', 'File', 'CustomApi']) {
      expect(sdl).toMatch(
        new RegExp(`type ${type} implements Node @key\\(fields: "upstreamId"\\) \\{`),
      );
    }
    expect(sdl).toMatch(
      /type CustomApiEntry implements Node @key\(fields: "customApiId upstreamId"\) \{/,
    );
    expect(sdl).not.toMatch(/_entities|_service|_Any|_Entity/);
  });

  it('resolves 250 orders and an unknown id with three `in(id,…)` calls, in order', async () => {
    const wanted = [...orderIds.slice(0, 125), UNKNOWN, ...orderIds.slice(125, 250)];
    const from = stack.upstreamRequests.length;
    const result = await stack.graphql(ENTITIES, {
      representations: wanted.map((upstreamId) => ({ __typename: 'Order', upstreamId })),
    });
    expect(result.body.errors).toBeUndefined();
    const entities = result.body.data._entities as (Json | null)[];
    expect(entities).toHaveLength(251);
    expect(entities[125]).toBeNull();
    expect(entities.filter((e) => e !== null).map((e) => e.upstreamId)).toEqual(
      wanted.filter((id) => id !== UNKNOWN),
    );
    expect(entities[0]).toMatchObject({ __typename: 'Order', status: expect.any(String) });
    expect(entities[0].total.formatted).toMatch(/^\$/);
    const calls = listCalls(stack, from, '/v2/orders');
    expect(calls).toHaveLength(3);
    for (const filter of calls) expect(filter).toMatch(/^in\(id,[0-9a-f-]{36}(,[0-9a-f-]{36})*\)$/);
    expect(stack.upstreamRequests.length - from).toBe(3);
  });

  it('resolves every entity type, one call per list, with the caller’s token', async () => {
    const token = await stack.token();
    const account = (await rest(stack, 'GET', '/accounts?page[limit]=2')).body.data as Json[];
    const file = (await rest(stack, 'GET', '/files?page[limit]=1')).body.data as Json[];
    const apis = (await rest(stack, 'GET', '/settings/extensions/custom-apis?page[limit]=2')).body
      .data as Json[];
    const entriesOf = async (apiId: string) =>
      (await rest(stack, 'GET', `/settings/extensions/custom-apis/${apiId}/entries?page[limit]=2`))
        .body.data as Json[];
    const [first, second] = [await entriesOf(apis[0].id), await entriesOf(apis[1].id)];
    const representations = [
      { __typename: 'Account', upstreamId: account[0].id },
      { __typename: 'CustomApiEntry', customApiId: apis[0].id, upstreamId: first[0].id },
      { __typename: 'File', upstreamId: file[0].id },
      { __typename: 'CustomApiEntry', customApiId: apis[1].id, upstreamId: second[0].id },
      { __typename: 'CustomApi', upstreamId: apis[1].id },
      { __typename: 'Account', upstreamId: account[1].id },
      { __typename: 'CustomApiEntry', customApiId: apis[0].id, upstreamId: first[1].id },
      { __typename: 'Account', upstreamId: UNKNOWN },
    ];
    const from = stack.upstreamRequests.length;
    const result = await stack.graphql(ENTITIES, { representations });
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data._entities).toEqual([
      { __typename: 'Account', upstreamId: account[0].id, name: account[0].name },
      {
        __typename: 'CustomApiEntry',
        upstreamId: first[0].id,
        customApiId: apis[0].id,
        type: apis[0].api_type,
      },
      { __typename: 'File', upstreamId: file[0].id, fileName: file[0].file_name },
      {
        __typename: 'CustomApiEntry',
        upstreamId: second[0].id,
        customApiId: apis[1].id,
        type: apis[1].api_type,
      },
      { __typename: 'CustomApi', upstreamId: apis[1].id, slug: apis[1].slug },
      { __typename: 'Account', upstreamId: account[1].id, name: account[1].name },
      {
        __typename: 'CustomApiEntry',
        upstreamId: first[1].id,
        customApiId: apis[0].id,
        type: apis[0].api_type,
      },
      null,
    ]);
    const seen = stack.upstreamRequests.slice(from);
    // Accounts, files, Custom APIs, and the entries of each of the two Custom APIs.
    expect(seen.map((r) => new URL(r.url, 'http://x').pathname).sort()).toEqual(
      [
        '/v2/accounts',
        '/v2/files',
        '/v2/settings/extensions/custom-apis',
        `/v2/settings/extensions/custom-apis/${apis[0].id}/entries`,
        `/v2/settings/extensions/custom-apis/${apis[1].id}/entries`,
      ].sort(),
    );
    for (const request of seen) expect(request.authorization).toBe(`Bearer ${token}`);
  });

  it('refuses a bad representation with a coded error at its index, and resolves the rest', async () => {
    const from = stack.upstreamRequests.length;
    const result = await stack.graphql(ENTITIES, {
      representations: [
        { __typename: 'Order', upstreamId: orderIds[0] },
        { __typename: 'Cart', upstreamId: orderIds[1] },
        { __typename: 'Order', upstreamId: '../../settings' },
        { __typename: 'Order' },
        { upstreamId: orderIds[2] },
        'Order',
        { __typename: 'CustomApiEntry', upstreamId: orderIds[3] },
      ],
    });
    expect(result.status).toBe(200);
    const entities = result.body.data._entities as (Json | null)[];
    expect(entities[0]?.upstreamId).toBe(orderIds[0]);
    expect(entities.slice(1)).toEqual([null, null, null, null, null, null]);
    const errors = (result.body.errors as Json[]).map((e) => [e.path[1], e.message, e.extensions]);
    expect(errors.sort((a, b) => a[0] - b[0])).toEqual([
      [
        1,
        'Cart is not an entity of this subgraph',
        { code: 'BAD_USER_INPUT', field: 'representations' },
      ],
      [
        2,
        'upstreamId must be an upstream id (a uuid)',
        { code: 'BAD_USER_INPUT', field: 'upstreamId' },
      ],
      [
        3,
        'A Order representation needs upstreamId (a string)',
        { code: 'BAD_USER_INPUT', field: 'representations' },
      ],
      [
        4,
        'A representation must be an object with a __typename',
        { code: 'BAD_USER_INPUT', field: 'representations' },
      ],
      [
        5,
        'A representation must be an object with a __typename',
        { code: 'BAD_USER_INPUT', field: 'representations' },
      ],
      [
        6,
        'A CustomApiEntry representation needs customApiId (a string)',
        { code: 'BAD_USER_INPUT', field: 'representations' },
      ],
    ]);
    // Only the one good order reached the service.
    expect(listCalls(stack, from, '/v2/orders')).toEqual([`in(id,${orderIds[0]})`]);
  });
});

describe('the subgraph with the typed schema', () => {
  let stack: Stack;
  afterAll(() => stack?.close());

  it('makes every typed entry type an entity keyed by upstreamId', async () => {
    stack = await startStack({ seed: true, seedOptions: { orders: 0 }, typed: {} });
    const sdl: string = (await stack.graphql('{ _service { sdl } }')).body.data._service.sdl;
    for (const type of ['Wishlists', 'ProductReviews', 'LoyaltyPoints']) {
      expect(sdl).toMatch(
        new RegExp(
          `type ${type} implements Node & TypedCustomApiEntry @key\\(fields: "upstreamId"\\) \\{`,
        ),
      );
    }
    const list = await stack.graphql('{ wishlistsList(first: 3) { nodes { upstreamId name } } }');
    const nodes = list.body.data.wishlistsList.nodes as Json[];
    const from = stack.upstreamRequests.length;
    const result = await stack.graphql(
      `query ($representations: [_Any!]!) {
        _entities(representations: $representations) {
          __typename
          ... on Wishlists { upstreamId name }
          ... on Order { upstreamId }
        }
      }`,
      {
        representations: [
          ...nodes.map((node) => ({ __typename: 'Wishlists', upstreamId: node.upstreamId })),
          { __typename: 'Wishlists', upstreamId: UNKNOWN },
        ],
      },
    );
    expect(result.body.errors).toBeUndefined();
    expect(result.body.data._entities).toEqual([
      ...nodes.map((node) => ({ __typename: 'Wishlists', ...node })),
      null,
    ]);
    expect(stack.upstreamRequests.length - from).toBe(1);
  });
});

describe('in a supergraph (composition + Hive Gateway)', () => {
  let stack: Stack;
  let loyalty: Server;
  let supergraph: ReturnType<typeof createGatewayRuntime>;
  let orderIds: string[];
  const loyaltySaw: (string | null)[] = [];

  /** Another team's subgraph: loyalty points per order, and a list of top orders by id. */
  const LOYALTY_SDL = `extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])

type Order @key(fields: "upstreamId") {
  upstreamId: ID!
  loyaltyPoints: Int!
}

type Query {
  topOrders: [Order!]!
}
`;
  const points = (id: string) => Number.parseInt(id.slice(0, 4), 16) % 1000;

  beforeAll(async () => {
    stack = await startStack({ seed: true, seedOptions: { orders: 30 } });
    const rows = (await rest(stack, 'GET', '/orders?page[limit]=30&sort=created_at')).body
      .data as Json[];
    orderIds = rows.map((row) => row.id as string);

    const loyaltyYoga = createYoga<{ request: Request }>({
      logging: false,
      schema: createSchema<{ request: Request }>({
        typeDefs: `scalar _Any
union _Entity = Order
type _Service { sdl: String! }
type Order { upstreamId: ID! loyaltyPoints: Int! }
type Query {
  topOrders: [Order!]!
  _entities(representations: [_Any!]!): [_Entity]!
  _service: _Service!
}`,
        resolvers: {
          Query: {
            topOrders: (_root, _args, context) => {
              loyaltySaw.push(context.request.headers.get('authorization'));
              return orderIds.slice(5, 8).map((upstreamId) => ({ upstreamId }));
            },
            _service: () => ({ sdl: LOYALTY_SDL }),
            _entities: (_root, args: { representations: { upstreamId: string }[] }, context) => {
              loyaltySaw.push(context.request.headers.get('authorization'));
              return args.representations.map((r) => ({
                __typename: 'Order',
                upstreamId: r.upstreamId,
              }));
            },
          },
          Order: { loyaltyPoints: (order: { upstreamId: string }) => points(order.upstreamId) },
        },
      }),
    });
    loyalty = createServer(loyaltyYoga);
    await new Promise<void>((resolve) => loyalty.listen(0, '127.0.0.1', resolve));
    const loyaltyUrl = `http://127.0.0.1:${(loyalty.address() as AddressInfo).port}/graphql`;

    // The subgraph SDL as a registry or composition step reads it: from `_service { sdl }`.
    const sdl = (await stack.graphql('{ _service { sdl } }', undefined, { token: null })).body.data
      ._service.sdl as string;
    const composed = composeServices([
      { name: 'commerce', typeDefs: parse(sdl), url: stack.gatewayUrl },
      { name: 'loyalty', typeDefs: parse(LOYALTY_SDL), url: loyaltyUrl },
    ]);
    expect(composed.errors ?? []).toEqual([]);
    const supergraphSdl = 'supergraphSdl' in composed ? composed.supergraphSdl : undefined;
    if (supergraphSdl === undefined) throw new Error('composition failed');
    supergraph = createGatewayRuntime({
      supergraph: supergraphSdl,
      logging: false,
      transports: { http: httpTransport },
      propagateHeaders: {
        fromClientToSubgraphs: ({ request }) => ({
          authorization: request.headers.get('authorization'),
        }),
      },
    });
  });
  afterAll(async () => {
    await supergraph?.dispose();
    await new Promise<void>((resolve) => (loyalty ? loyalty.close(() => resolve()) : resolve()));
    await stack?.close();
  });

  it('runs one query across both subgraphs with the caller’s token passed through', async () => {
    const token = await stack.token();
    const from = stack.upstreamRequests.length;
    const response = await supergraph.fetch('http://supergraph/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        query: `{
          orders(first: 3, sortKey: CREATED_AT) { nodes { upstreamId status loyaltyPoints } }
          topOrders { upstreamId status total { formatted } loyaltyPoints }
        }`,
      }),
    });
    const body = (await response.json()) as Json;
    expect(body.errors).toBeUndefined();
    expect(body.data.orders.nodes).toEqual(
      orderIds.slice(0, 3).map((id) => ({
        upstreamId: id,
        status: expect.any(String),
        loyaltyPoints: points(id),
      })),
    );
    expect(body.data.topOrders).toEqual(
      orderIds.slice(5, 8).map((id) => ({
        upstreamId: id,
        status: expect.any(String),
        total: { formatted: expect.stringMatching(/^\$/) },
        loyaltyPoints: points(id),
      })),
    );
    // Our subgraph resolved the three top orders with one `in(id,…)` call, through `_entities`.
    expect(listCalls(stack, from, '/v2/orders')).toContain(
      `in(id,${orderIds.slice(5, 8).join(',')})`,
    );
    const seen = stack.upstreamRequests.slice(from);
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const request of seen) expect(request.authorization).toBe(`Bearer ${token}`);
    expect(loyaltySaw.length).toBeGreaterThanOrEqual(2);
    for (const authorization of loyaltySaw) expect(authorization).toBe(`Bearer ${token}`);
  });

  it('without a token, our subgraph answers UNAUTHENTICATED through the supergraph', async () => {
    const response = await supergraph.fetch('http://supergraph/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ orders(first: 1) { nodes { upstreamId } } }' }),
    });
    const body = (await response.json()) as Json;
    expect(body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

describe('`_service { sdl }` and the introspection switch', () => {
  const SDL_QUERIES = [
    '{ _service { sdl } }',
    '{ schema: _service { sdl } }',
    'query { ...Sdl } fragment Sdl on Query { _service { sdl } }',
  ];
  let closed: Stack;
  let opted: Stack;

  beforeAll(async () => {
    // The typed schema: the SDL then holds the store's own Custom API types.
    [closed, opted] = await Promise.all([
      startStack({ seed: true, typed: {}, gateway: { production: true, introspection: false } }),
      startStack({
        seed: true,
        typed: {},
        gateway: { production: true, introspection: false, federationSdl: true },
      }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([closed?.close(), opted?.close()]);
  });

  it('is refused like introspection when introspection is off', async () => {
    for (const query of SDL_QUERIES) {
      const result = await closed.graphql(query, undefined, { token: null });
      expect(result.status, query).toBe(400);
      expect(result.body.data, query).toBeUndefined();
      expect(result.body.errors?.[0]?.extensions?.code, query).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(result.body.errors?.[0]?.message, query).toMatch(/introspection has been disabled/);
      expect(JSON.stringify(result.body), query).not.toMatch(/type Query|Loyalty/);
    }
    // Refused the same way as introspection itself.
    const intro = await closed.graphql('{ __schema { queryType { name } } }', undefined, {
      token: null,
    });
    expect(intro.status).toBe(400);
    expect(intro.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    // `_entities` is no schema: it still runs (and needs a token, as ever).
    const entities = await closed.graphql(
      '{ _entities(representations: []) { __typename } }',
      undefined,
      { token: null },
    );
    expect(entities.body).toEqual({ data: { _entities: [] } });
  });

  it('is served with introspection off when FEDERATION_SDL allows it, for a router', async () => {
    const result = await opted.graphql('{ _service { sdl } }', undefined, { token: null });
    expect(result.status).toBe(200);
    expect(result.body.data._service.sdl).toContain('type Query');
    // The store's own typed types: what the refusal above keeps from anonymous callers.
    expect(result.body.data._service.sdl).toMatch(/type Loyalty\w+ /);
    const intro = await opted.graphql('{ __schema { queryType { name } } }');
    expect(intro.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it('FEDERATION_SDL follows INTROSPECTION unless set, and refuses anything but a boolean', async () => {
    const { loadConfig } = await import('../../src/config/index.ts');
    expect(loadConfig({}).gateway.federationSdl).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).gateway.federationSdl).toBe(false);
    expect(loadConfig({ INTROSPECTION: '0' }).gateway.federationSdl).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', INTROSPECTION: '1' }).gateway.federationSdl).toBe(
      true,
    );
    expect(loadConfig({ NODE_ENV: 'production', FEDERATION_SDL: '1' }).gateway.federationSdl).toBe(
      true,
    );
    expect(loadConfig({ FEDERATION_SDL: '0' }).gateway).toMatchObject({
      introspection: true,
      federationSdl: false,
    });
    expect(() => loadConfig({ FEDERATION_SDL: 'sometimes' })).toThrow(/FEDERATION_SDL/);
  });
});
