/**
 * The resource builder (src/schema/resource.ts) on what the catalog will describe: a
 * sub-collection (`…/{hierarchyId}/nodes`) with a nested `attributes` body, timestamps in
 * `meta`, an attribute that filters with `eq`/`in` only, and another resource listed under its
 * rows at a path they give (a node's products), built and run in process against a fake list.
 * The resources already described (orders, files, …) are covered end to end by the other
 * suites; this file registers its own types on a fresh builder (one per test file).
 */
import DataLoader from 'dataloader';
import { execute, GraphQLSchema, parse, printType } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { builder } from '../../src/schema/builder.ts';
import '../../src/schema/scalars.ts';
import { STANDARD_FILTERS } from '../../src/schema/connection.ts';
import { defineResource, field } from '../../src/schema/resource.ts';
import { createCallBudget } from '../../src/upstream/budget.ts';
import type { JsonObject, UpstreamResponse } from '../../src/upstream/client.ts';
import { NotFoundError } from '../../src/upstream/errors.ts';
import type { GatewayContext } from '../../src/upstream/session.ts';

const H = '0b5c3f9e-1d2a-4c1b-9a5e-7f0e2d4c6b8a';
const N1 = '1a1a1a1a-0000-4000-8000-000000000001';
const N2 = '1a1a1a1a-0000-4000-8000-000000000002';

const row = (id: string, name: unknown, slug: string, at: string): JsonObject => ({
  id,
  type: 'node',
  attributes: { name, slug },
  meta: { created_at: at, updated_at: at, sort_order: 3 },
});

let rows: JsonObject[] = [];
let productRows: JsonObject[] = [];
let stockRows: JsonObject[] = [];
let calls: { path: string; query: Record<string, string | undefined> }[] = [];

/** A request's context over an in-memory list: what resource.ts and connection.ts use of it. */
function fakeContext(): GatewayContext {
  const get = async (
    segments: readonly string[],
    query: Record<string, string | undefined> = {},
  ) => {
    calls.push({ path: `/v2/${segments.join('/')}`, query });
    if (segments[0] === 'test-stock') {
      const found = stockRows.find((r) => r.id === segments[1]);
      if (!found) throw new NotFoundError('no such stock');
      return { status: 200, etag: undefined, body: { data: found } };
    }
    const ids = /^in\(id,([^)]*)\)/.exec(query.filter ?? '')?.[1]?.split(',');
    const list = segments.at(-1) === 'products' ? productRows : rows;
    const data = ids ? list.filter((r) => ids.includes(r.id as string)) : list;
    return {
      status: 200,
      etag: undefined,
      body: { data, meta: { results: { total: data.length } } },
    };
  };
  const loaders = new Map<string, DataLoader<string, JsonObject | null>>();
  return {
    requestId: 'test',
    budget: createCallBudget(50),
    paging: {},
    get: get as (segments: readonly string[]) => Promise<UpstreamResponse>,
    byIdLoader(segments) {
      const key = segments.join('/');
      let loader = loaders.get(key);
      if (!loader) {
        loader = new DataLoader(async (ids) => {
          const response = await get(segments, { filter: `in(id,${ids.join(',')})` });
          const data = (response.body.data as JsonObject[]) ?? [];
          return ids.map((id) => data.find((r) => r.id === id) ?? null);
        });
        loaders.set(key, loader);
      }
      return loader;
    },
  } as GatewayContext;
}

const TestProducts = defineResource({
  name: 'TestProduct',
  singular: 'product',
  plural: 'products',
  description: 'A product.',
  path: '/v2/test-products',
  body: 'nested',
  timestamps: 'attributes',
  readableBy: ['implicit'],
  fields: { sku: field.string('Stock keeping unit.') },
  list: {
    connection: 'products',
    paging: 'keyset',
    offsetLimit: 'soft',
    filters: {
      sku: { attr: 'sku', type: 'String', ops: ['eq', 'in'], description: 'On the SKU.' },
    },
  },
});

// A list that cannot filter on in(id,…): single rows are read one GET of the item each.
defineResource({
  name: 'TestStock',
  singular: 'stock',
  plural: 'stocks',
  description: 'Stock of a product.',
  path: '/v2/test-stock',
  item: '/v2/test-stock/{id}',
  lookupBy: 'item',
  body: 'flat',
  timestamps: 'meta.timestamps',
  readableBy: ['client_credentials'],
  fields: { available: field.int('Units that can be sold.') },
  lookup: { field: 'testStock' },
});

const TestNodes = defineResource({
  name: 'TestNode',
  singular: 'node',
  plural: 'nodes',
  description: 'A node of a hierarchy.',
  path: '/v2/test-hierarchies/{hierarchyId}/nodes',
  params: { hierarchyId: 'Upstream id of the hierarchy.' },
  body: 'nested',
  timestamps: 'meta',
  readableBy: ['client_credentials', 'implicit'],
  fields: {
    hierarchyId: field.param('hierarchyId', 'The hierarchy this node is in.'),
    name: field.string('Name.'),
    slug: field.string('Slug, unique among siblings.'),
    sortOrder: field.int('Higher first among siblings.', {
      from: 'meta.sort_order',
      nullable: true,
    }),
  },
  extraFields: (t) => ({
    products: TestProducts.connectionField(t, {
      description: 'The products of this node.',
      at: {
        path: '/v2/test-hierarchies/{hierarchyId}/nodes/{nodeId}/products',
        params: (node) => ({ hierarchyId: node.hierarchyId, nodeId: node.upstreamId }),
      },
    }),
  }),
  lookup: { field: 'testNode' },
  list: {
    field: 'testNodes',
    description: 'The nodes of a hierarchy.',
    connection: 'test-nodes',
    paging: 'keyset',
    offsetLimit: 'soft',
    filters: {
      id: STANDARD_FILTERS.id,
      slug: { attr: 'slug', type: 'String', ops: ['eq', 'in'], description: 'On the slug.' },
    },
  },
  entity: true,
});

// An offset-only list below /pcm: no sort, no range filter, served past 10,000.
defineResource({
  name: 'OffsetThing',
  singular: 'thing',
  plural: 'things',
  description: 'A thing listed by offset.',
  path: '/pcm/offset-things',
  body: 'nested',
  timestamps: 'meta',
  readableBy: ['client_credentials'],
  fields: { slug: field.string('Slug.') },
  list: {
    field: 'offsetThings',
    connection: 'offset-things',
    paging: 'offset',
    offsetLimit: 'soft',
    filters: {
      slug: { attr: 'slug', type: 'String', ops: ['eq', 'in'], description: 'On the slug.' },
    },
  },
});

let schema: GraphQLSchema;
beforeAll(() => {
  // The gateway's Mutation fields live in files this one does not import.
  const config = builder.toSchema().toConfig();
  const types = config.types.filter((type) => type.name !== 'Mutation');
  schema = new GraphQLSchema({ ...config, mutation: undefined, types });
});

async function run(query: string, variables?: Record<string, unknown>) {
  return execute({
    schema,
    document: parse(query),
    variableValues: variables,
    contextValue: fakeContext(),
  });
}

describe('a described sub-collection with a nested body', () => {
  it('builds the types a client sees: eq/in filter input, connection, node and lookup args', () => {
    expect(printType(schema.getType('TestNodeFilter') as never)).toContain(
      'slug: StringEqInFilter',
    );
    expect(printType(schema.getType('StringEqInFilter') as never)).toBe(
      [
        '"""Conditions on a text, all of which must hold."""',
        'input StringEqInFilter {',
        '  """Equal to."""',
        '  eq: String',
        '',
        '  """One of these."""',
        '  in: [String!]',
        '}',
      ].join('\n'),
    );
    const query = schema.getQueryType()?.getFields();
    expect(query?.testNode?.args.map((arg) => `${arg.name}: ${arg.type}`)).toEqual([
      'hierarchyId: ID!',
      'id: ID!',
    ]);
    expect(query?.testNodes?.args.map((arg) => arg.name)).toContain('hierarchyId');
    expect(
      Object.keys(
        (schema.getType('TestNodeConnection') as never as { getFields(): object }).getFields(),
      ),
    ).toEqual(expect.arrayContaining(['edges', 'nodes', 'pageInfo', 'totalCount', 'pinnedAt']));
  });

  it('lists through the parent path, reads attributes and meta, and renders eq/in filters', async () => {
    rows = [
      row(N1, 'Shoes', 'shoes', '2025-01-01T00:00:00.000Z'),
      row(N2, 'Hats', 'hats', '2025-01-02T00:00:00.000Z'),
    ];
    calls = [];
    const result = await run(
      `query($h: ID!) { testNodes(hierarchyId: $h, first: 2, filter: { slug: { in: ["shoes", "hats"] }, id: { gt: "0" } }) {
        totalCount nodes { id upstreamId hierarchyId name slug sortOrder createdAt } } }`,
      { h: H },
    );
    expect(result.errors).toBeUndefined();
    expect(calls.map((call) => call.path)).toEqual([`/v2/test-hierarchies/${H}/nodes`]);
    expect(calls[0]?.query.filter).toMatch(/^gt\(id,0\):in\(slug,shoes,hats\):le\(created_at,/);
    const nodes = (result.data as { testNodes: { nodes: Record<string, unknown>[] } }).testNodes
      .nodes;
    expect(nodes[0]).toEqual({
      id: Buffer.from(`TestNode:${H}:${N1}`).toString('base64'),
      upstreamId: N1,
      hierarchyId: H,
      name: 'Shoes',
      slug: 'shoes',
      sortOrder: 3,
      createdAt: '2025-01-01T00:00:00.000Z',
    });
  });

  it('refuses a filter value the v2 syntax cannot carry, before any call', async () => {
    calls = [];
    const result = await run(
      `query($h: ID!) { testNodes(hierarchyId: $h, filter: { slug: { eq: "a)b" } }) { totalCount } }`,
      { h: H },
    );
    expect(result.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'filter.slug.eq',
    });
    expect(calls).toEqual([]);
  });

  it('finds a row by global id, lookup and entity through one batched in(id,…) under its parent', async () => {
    rows = [
      row(N1, 'Shoes', 'shoes', '2025-01-01T00:00:00.000Z'),
      row(N2, 'Hats', 'hats', '2025-01-02T00:00:00.000Z'),
    ];
    calls = [];
    const globalId = Buffer.from(`TestNode:${H}:${N2}`).toString('base64');
    const result = await run(
      `query($id: ID!, $h: ID!, $n: ID!) {
        node(id: $id) { ... on TestNode { name } }
        testNode(hierarchyId: $h, id: $n) { slug }
      }`,
      { id: globalId, h: H, n: N1 },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ node: { name: 'Hats' }, testNode: { slug: 'shoes' } });
    expect(calls).toEqual([
      { path: `/v2/test-hierarchies/${H}/nodes`, query: { filter: `in(id,${N2},${N1})` } },
    ]);
    expect(TestNodes.entity?.keyFields).toEqual(['hierarchyId', 'upstreamId']);
  });

  it('lists another resource under a row, at the path the row gives (a node’s products)', async () => {
    rows = [row(N1, 'Shoes', 'shoes', '2025-01-01T00:00:00.000Z')];
    productRows = [
      {
        id: 'p1',
        type: 'product',
        attributes: {
          sku: 'S1',
          created_at: '2025-02-01T00:00:00.000Z',
          updated_at: '2025-02-01T00:00:00.000Z',
        },
      },
    ];
    calls = [];
    const result = await run(
      `query($h: ID!, $n: ID!) { testNode(hierarchyId: $h, id: $n) {
        products(first: 5, filter: { sku: { eq: "S1" } }) { pageInfo { endCursor } nodes { sku createdAt } } } }`,
      { h: H, n: N1 },
    );
    expect(result.errors).toBeUndefined();
    const products = (
      result.data as {
        testNode: { products: { nodes: unknown[]; pageInfo: { endCursor: string } } };
      }
    ).testNode.products;
    expect(products.nodes).toEqual([{ sku: 'S1', createdAt: '2025-02-01T00:00:00.000Z' }]);
    expect(calls[1]?.path).toBe(`/v2/test-hierarchies/${H}/nodes/${N1}/products`);
    expect(calls[1]?.query.filter).toMatch(/^eq\(sku,S1\):le\(created_at,/);
    // Its cursors belong to this node's list of products, and to no other list.
    const cursor = JSON.parse(Buffer.from(products.pageInfo.endCursor, 'base64url').toString());
    expect(cursor.c).toBe(`products:${H}:${N1}`);
  });

  it('reads single rows of a list without in(id,…) from their item path; a 404 is null', async () => {
    const at = { created_at: '2025-01-01T00:00:00.000Z', updated_at: '2025-01-01T00:00:00.000Z' };
    stockRows = [{ id: N1, type: 'stock', available: 7, meta: { timestamps: at } }];
    calls = [];
    const result = await run(
      `query($a: ID!, $b: ID!) { a: testStock(id: $a) { available } b: testStock(id: $b) { available } }`,
      { a: N1, b: N2 },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ a: { available: 7 }, b: null });
    expect(calls.map((call) => call.path)).toEqual([
      `/v2/test-stock/${N1}`,
      `/v2/test-stock/${N2}`,
    ]);
  });

  it('says which part of a row is unusable, naming its place in the nested body', async () => {
    rows = [row(N1, 42, 'shoes', '2025-01-01T00:00:00.000Z')];
    const result = await run(`query($h: ID!) { testNodes(hierarchyId: $h) { totalCount } }`, {
      h: H,
    });
    expect(result.errors?.[0]?.message).toBe(
      'The commerce service sent an unusable answer (test_node.attributes.name is not a string)',
    );
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
  });
});

describe('an offset-only list', () => {
  it('pages by page[offset]/page[limit] alone at its root, with no sort and no pinnedAt', async () => {
    rows = [
      row(N1, 'a', 'shoes', '2025-01-01T00:00:00.000Z'),
      row(N2, 'b', 'hats', '2025-01-02T00:00:00.000Z'),
    ];
    calls = [];
    const result = await run(
      `{ offsetThings(first: 2, filter: { slug: { in: ["shoes", "hats"] } }) {
          totalCount edges { node { slug } } pageInfo { hasNextPage endCursor } } }`,
    );
    expect(result.errors).toBeUndefined();
    expect(result.data?.offsetThings).toMatchObject({
      totalCount: 2,
      edges: [{ node: { slug: 'shoes' } }, { node: { slug: 'hats' } }],
      pageInfo: { hasNextPage: false },
    });
    expect(calls).toEqual([
      {
        path: '/v2//pcm/offset-things',
        query: { 'page[limit]': '2', 'page[offset]': '0', filter: 'in(slug,shoes,hats)' },
      },
    ]);
    expect(printType(schema.getType('OffsetThingConnection') as never)).not.toContain('pinnedAt');
    const args = schema.getQueryType()?.getFields().offsetThings?.args ?? [];
    expect(args.map((a) => a.name).sort()).toEqual(['after', 'before', 'filter', 'first', 'last']);
  });
});

describe('descriptions the upstream layer cannot serve', () => {
  const base = {
    singular: 'thing',
    plural: 'things',
    description: 'A thing.',
    body: 'nested' as const,
    timestamps: 'attributes' as const,
    readableBy: ['implicit' as const],
    fields: {},
  };
  it('refuses a path below none of the roots the client addresses', () => {
    expect(() => defineResource({ ...base, name: 'V3Thing', path: '/v3/things' })).toThrow(
      'resource V3Thing: /v3/things is below none of /v2, /pcm, /catalog, /catalogs',
    );
  });
  it('takes a path below /pcm, giving its root as the first segment', () => {
    const things = defineResource({
      ...base,
      name: 'PcmThing',
      path: '/pcm/things/{thingId}/parts',
      params: { thingId: 'The thing.' },
    });
    expect(things.segments({ thingId: 'x' })).toEqual(['/pcm', 'things', 'x', 'parts']);
  });
});
