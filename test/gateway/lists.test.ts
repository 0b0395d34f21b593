import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';
import type { Json } from './fixtures.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ seed: true, seedOptions: { orders: 60 } });
});
afterAll(() => stack?.close());
beforeEach(() => {
  stack.upstreamRequests.length = 0;
});

const codes = (body: Json): string[] => (body.errors ?? []).map((e: Json) => e.extensions?.code);

describe('orders, files and accounts', () => {
  for (const [field, single, type, extra] of [
    ['orders', 'order', 'Order', 'status total { amount currency formatted } customerEmail'],
    ['files', 'file', 'File', 'fileName mimeType fileSize href'],
    ['accounts', 'account', 'Account', 'name legalName'],
  ] as const) {
    it(`${field}: a connection, a single lookup and node(id:)`, async () => {
      const { body } = await stack.graphql(`{
        ${field}(first: 3, sortKey: CREATED_AT) {
          totalCount
          edges { cursor node { id upstreamId createdAt updatedAt ${extra} } }
          pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        }
      }`);
      expect(body.errors).toBeUndefined();
      const conn = body.data[field];
      expect(conn.totalCount).toBeGreaterThan(0);
      expect(conn.edges.length).toBe(Math.min(3, conn.totalCount));
      const created = conn.edges.map((e: Json) => e.node.createdAt);
      expect([...created].sort()).toEqual(created);
      const first = conn.edges[0].node;

      const lookup = await stack.graphql(
        `query($id: ID!, $gid: ID!, $missing: ID!) {
          one: ${single}(id: $id) { upstreamId }
          missing: ${single}(id: $missing) { upstreamId }
          node(id: $gid) { __typename id }
        }`,
        { id: first.upstreamId, gid: first.id, missing: '00000000-0000-4000-8000-000000000000' },
      );
      expect(lookup.body.errors).toBeUndefined();
      expect(lookup.body.data).toEqual({
        one: { upstreamId: first.upstreamId },
        missing: null,
        node: { __typename: type, id: first.id },
      });
    });
  }

  it('batches lookups of one list by id into one in(id,…) call', async () => {
    const page = await stack.graphql('{ orders(first: 5) { nodes { id upstreamId } } }');
    const nodes = page.body.data.orders.nodes as { id: string; upstreamId: string }[];
    stack.upstreamRequests.length = 0;
    const { body } = await stack.graphql(
      `query($ids: [ID!]!, $one: ID!) {
        nodes(ids: $ids) { ... on Order { upstreamId } }
        order(id: $one) { upstreamId }
      }`,
      { ids: nodes.map((n) => n.id), one: nodes[0]?.upstreamId },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.nodes).toEqual(nodes.map((n) => ({ upstreamId: n.upstreamId })));
    expect(stack.upstreamRequests).toHaveLength(1);
    expect(decodeURIComponent(stack.upstreamRequests[0]?.url ?? '')).toContain('filter=in(id,');
  });

  it('sorts by any key in either direction, and pages forwards without gaps', async () => {
    const all = await stack.graphql('{ orders(first: 60, sortKey: ID) { nodes { upstreamId } } }');
    const ids = all.body.data.orders.nodes.map((n: Json) => n.upstreamId);
    expect(ids).toEqual([...ids].sort());
    const reversed = await stack.graphql(
      '{ orders(first: 5, sortKey: ID, reverse: true) { nodes { upstreamId } } }',
    );
    expect(reversed.body.data.orders.nodes.map((n: Json) => n.upstreamId)).toEqual(
      [...ids].reverse().slice(0, 5),
    );
    const walked: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page: Json = await stack.graphql(
        'query($after: String) { orders(first: 25, after: $after, sortKey: ID) { nodes { upstreamId } pageInfo { hasNextPage endCursor } } }',
        { after },
      );
      const conn = page.body.data.orders;
      walked.push(...conn.nodes.map((n: Json) => n.upstreamId));
      if (!conn.pageInfo.hasNextPage) break;
      after = conn.pageInfo.endCursor;
    }
    expect(walked).toEqual(ids);
  });

  it('translates the typed filter and updatedSince to the v2 filter', async () => {
    const all = await stack.graphql(
      '{ orders(first: 60, sortKey: CREATED_AT) { totalCount nodes { createdAt updatedAt } } }',
    );
    const nodes = all.body.data.orders.nodes as { createdAt: string; updatedAt: string }[];
    const pivot = nodes[20]?.createdAt as string;
    const expected = nodes.filter((n) => n.createdAt >= pivot).length;
    stack.upstreamRequests.length = 0;
    const filtered = await stack.graphql(
      `query($f: OrderFilter) { orders(first: 1, filter: $f) { totalCount } }`,
      { f: { createdAt: { ge: pivot } } },
    );
    expect(filtered.body.errors).toBeUndefined();
    expect(filtered.body.data.orders.totalCount).toBe(expected);
    const url = decodeURIComponent(stack.upstreamRequests[0]?.url ?? '');
    expect(url).toContain(`ge(created_at,${pivot})`);

    const updatedPivot = [...nodes.map((n) => n.updatedAt)].sort()[30] as string;
    const since = await stack.graphql(
      `query($t: DateTime) { orders(first: 1, updatedSince: $t) { totalCount } }`,
      { t: updatedPivot },
    );
    expect(since.body.errors).toBeUndefined();
    expect(since.body.data.orders.totalCount).toBe(
      nodes.filter((n) => n.updatedAt >= updatedPivot).length,
    );
  });

  it('refuses filter values that could change the filter structure, before any call', async () => {
    for (const f of [
      { id: { eq: 'a),eq(id,b' } },
      { id: { in: ['x:y'] } },
      { createdAt: { gt: 'yesterday' } },
    ]) {
      const { body } = await stack.graphql(
        `query($f: OrderFilter) { orders(first: 1, filter: $f) { totalCount } }`,
        { f },
      );
      expect(codes(body), JSON.stringify(f)).toEqual(['BAD_USER_INPUT']);
    }
    const badCursor = await stack.graphql('{ orders(first: 1, after: "nope") { totalCount } }');
    expect(codes(badCursor.body)).toEqual(['BAD_USER_INPUT']);
    expect(stack.upstreamRequests).toEqual([]);
  });
});
