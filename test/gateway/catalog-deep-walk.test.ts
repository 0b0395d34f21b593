/**
 * An offset-only connection past the 10,000 offset limit, over real sockets: the embedded
 * service seeded with the bench's "Bulk" node of 20,500 products (its soft limit serves deep
 * offsets), and the gateway's `PcmNode.products` walked to the end forwards (first/after) and
 * back (last/before) in pages of 1,000, compared with the node's products read page by page
 * from the REST API. Nothing changes during the walks, so no gap and no repeat is promised.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';
import type { Json } from './fixtures.ts';

const BULK = 20_500;
let stack: Stack;
let node: { hierarchyId: string; id: string };
let truth: string[];

beforeAll(async () => {
  stack = await startStack({
    seed: true,
    seedOptions: { orders: 0, products: 50, bulkNodeProducts: BULK },
  });
  const nodes = await stack.graphql(
    `{ pcmNodes(first: 5, filter: { name: { eq: "Bulk" } }) { edges { node { upstreamId hierarchyId } } } }`,
  );
  expect(nodes.body.errors).toBeUndefined();
  const found = nodes.body.data.pcmNodes.edges[0].node;
  node = { hierarchyId: found.hierarchyId, id: found.upstreamId };
  // The ground truth: the node's products as the REST API pages them, 100 at a time.
  const path = `/hierarchies/${node.hierarchyId}/nodes/${node.id}/products`;
  const pages = await Promise.all(
    Array.from({ length: Math.ceil(BULK / 100) }, async (_, i) => {
      const token = await stack.token();
      const response = await fetch(
        `${stack.serviceUrl}/pcm${path}?page[limit]=100&page[offset]=${i * 100}`,
        { headers: { authorization: `Bearer ${token}` } },
      );
      return ((await response.json()) as Json).data.map((row: Json) => row.id as string);
    }),
  );
  truth = pages.flat();
  expect(truth).toHaveLength(BULK);
  expect(new Set(truth).size).toBe(BULK);
}, 120_000);

afterAll(() => stack?.close());

const PAGE = `query($n: ID!, $first: Int, $after: String, $last: Int, $before: String) {
  pcmNode(id: $n) {
    hierarchyId
    products(first: $first, after: $after, last: $last, before: $before) {
      totalCount
      edges { node { upstreamId } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
}`;

async function page(variables: Record<string, unknown>): Promise<Json> {
  const result = await stack.graphql(PAGE, { n: node.id, ...variables });
  expect(result.body.errors).toBeUndefined();
  return result.body.data.pcmNode.products;
}

describe('a node of 20,500 products through the gateway', () => {
  it('walks forwards past offset 10,000 with no gap or repeat', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const products = await page({ first: 1000, after });
      expect(products.totalCount).toBe(BULK);
      seen.push(...products.edges.map((e: Json) => e.node.upstreamId));
      if (!products.pageInfo.hasNextPage) break;
      after = products.pageInfo.endCursor;
    }
    expect(seen).toEqual(truth);
    // Deep offsets reached the service as offsets (the list's limit is soft): no keyset filter.
    const deep = stack.upstreamRequests.filter((r) => /page%5Boffset%5D=20400/.test(r.url));
    expect(deep.length).toBeGreaterThan(0);
    expect(deep.every((r) => !r.url.includes('sort='))).toBe(true);
  }, 120_000);

  it('walks backwards from the end with last/before, the same records in the same order', async () => {
    const seen: string[] = [];
    let before: string | null = null;
    for (;;) {
      const products = await page({ last: 1000, before });
      seen.unshift(...products.edges.map((e: Json) => e.node.upstreamId));
      if (!products.pageInfo.hasPreviousPage) break;
      before = products.pageInfo.startCursor;
    }
    expect(seen).toEqual(truth);
  }, 120_000);

  it('pages between two deep cursors, and a cursor of another node is refused', async () => {
    const wide = await page({ first: 1000, after: null });
    const start = wide.pageInfo.endCursor;
    const deep = await page({ first: 1000, after: start });
    const mid = await page({ first: 3, after: deep.pageInfo.endCursor });
    expect(mid.edges.map((e: Json) => e.node.upstreamId)).toEqual(truth.slice(2000, 2003));
    const other = await stack.graphql(
      `query($after: String) { pcmProducts(first: 1, after: $after) { totalCount } }`,
      { after: start },
    );
    expect(other.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'after',
    });
  }, 60_000);
});
