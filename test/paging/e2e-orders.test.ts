/**
 * End to end: the gateway's `orders` connection over the embedded v2 service (real sockets,
 * SQLite), 25,000 seeded orders with bursts of 300–600 orders sharing one created_at and bulk
 * groups sharing one updated_at. For every sort key, both directions, forwards and backwards,
 * pages of 100, 250 and 1,000 walk the whole connection and must give exactly the ground truth
 * read straight from the REST API; no request reaching the service may carry page[offset]
 * above 10,000. The gateway has its default limits: a page of 1,000 runs as it is. Pages of 1
 * and 7: e2e-orders-small-pages.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { DEFAULT_QUERY_LIMITS } from '../../src/gateway/armor.ts';
import {
  expectSequence,
  matrix,
  OFFSET_LIMIT,
  ORDERS,
  type OrdersStack,
  startOrdersStack,
  walkAll,
  walkName,
} from './e2e-orders-support.ts';

let orders: OrdersStack;

beforeAll(async () => {
  orders = await startOrdersStack();
}, 120_000);

afterAll(async () => {
  await orders?.close();
});

describe('orders connection over 25,000 seeded orders', () => {
  it('the seed has what the walks need: 25,000 orders, bursts larger than a page', () => {
    expect(orders.all).toHaveLength(ORDERS);
    expect(new Set(orders.all.map((k) => k.id)).size).toBe(ORDERS);
    for (const key of ['created_at', 'updated_at'] as const) {
      const bursts = new Map<string, number>();
      for (const k of orders.all) bursts.set(k[key], (bursts.get(k[key]) ?? 0) + 1);
      expect(Math.max(...bursts.values()), key).toBeGreaterThan(250);
    }
  });

  it('first: 250 in the offset region is exactly 3 concurrent upstream calls: 100 + 100 + 50', async () => {
    const { stack } = orders;
    const before = stack.upstreamRequests.length;
    orders.takeMaxInFlight();
    const result = await stack.graphql(
      'query { orders(first: 250, sortKey: CREATED_AT) { edges { node { upstreamId } } } }',
    );
    expect(result.body.data.orders.edges).toHaveLength(250);
    const calls = stack.upstreamRequests
      .slice(before)
      .filter((r) => r.url.startsWith('/v2/orders'))
      .map((r) => new URLSearchParams(r.url.slice(r.url.indexOf('?') + 1)));
    const pages = calls
      .map((p) => [Number(p.get('page[offset]')), Number(p.get('page[limit]'))])
      .sort((a, b) => (a[0] as number) - (b[0] as number));
    expect(pages).toEqual([
      [0, 100],
      [100, 100],
      [200, 50],
    ]);
    // All three were in flight at once: sent together, not one after another.
    expect(orders.takeMaxInFlight()).toBe(3);
    expect(result.body.data.orders.edges.map((e: any) => e.node.upstreamId)).toEqual(
      orders.expected('created_at', false).slice(0, 250),
    );
  });

  it('the largest page runs under the default limits: first and last 1,000, a storefront selection', async () => {
    const { stack } = orders;
    // The gateway of this suite has createGateway's defaults, which are the environment's.
    expect(loadConfig({}).gateway.queryLimits?.maxCost).toBe(DEFAULT_QUERY_LIMITS.maxCost);
    const storefront = `upstreamId status payment shipping customerName customerEmail customerId
      createdAt updatedAt total { amount currency formatted }
      totals { withTax { amount currency formatted } withoutTax { amount currency formatted }
        discount { amount currency formatted } }`;
    const byCreation = orders.expected('created_at', false);
    const byUpdate = orders.expected('updated_at', true);
    const pages: [string, Record<string, unknown> | undefined, string[]][] = [
      ['{ orders(first: 1000) { nodes { upstreamId } } }', undefined, byCreation.slice(0, 1000)],
      ['{ orders(last: 1000) { nodes { upstreamId } } }', undefined, byCreation.slice(-1000)],
      [
        `query($n: Int) { orders(first: $n, sortKey: UPDATED_AT, reverse: true) {
          totalCount pageInfo { hasNextPage endCursor } edges { cursor node { ${storefront} } } } }`,
        { n: 1000 },
        byUpdate.slice(0, 1000),
      ],
    ];
    for (const [query, variables, expected] of pages) {
      const calls = orders.listCalls();
      const result = await stack.graphql(query, variables);
      expect(result.body.errors, query).toBeUndefined();
      const nodes: { upstreamId: string }[] =
        result.body.data.orders.nodes ??
        result.body.data.orders.edges.map((edge: { node: { upstreamId: string } }) => edge.node);
      expect(nodes).toHaveLength(1000);
      expectSequence(
        nodes.map((node) => node.upstreamId),
        expected,
      );
      expect(orders.listCalls() - calls).toBe(10);
    }
  });

  for (const size of [100, 250, 1000]) {
    const specs = matrix(size);
    it(`pages of ${size}: 12 whole walks (3 sort keys × 2 directions × forwards/backwards)`, async () => {
      const keyset = orders.keysetCalls();
      const walked = await walkAll(orders, specs);
      specs.forEach((spec, i) => {
        expect.soft(walked[i]?.length, walkName(spec)).toBe(ORDERS);
        expectSequence(walked[i] as string[], orders.expected(spec.sortKey, spec.reverse));
      });
      expect(orders.maxOffset()).toBeLessThanOrEqual(OFFSET_LIMIT);
      // The middle of the list is out of offset reach from both ends: keyset served it.
      expect(orders.keysetCalls()).toBeGreaterThan(keyset);
    }, 900_000);
  }
});
