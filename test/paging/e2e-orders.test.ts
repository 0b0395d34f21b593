/**
 * End to end: the gateway's `orders` connection over the embedded v2 service (real sockets,
 * SQLite), 25,000 seeded orders with bursts of 300–600 orders sharing one created_at and bulk
 * groups sharing one updated_at. Walks must give exactly the ground-truth order (read straight
 * from the REST API), and no request reaching the service may carry page[offset] above 10,000.
 *
 * One record through gateway and service costs ~0.3 ms of CPU (a v2 order is ~1.4 KB of JSON),
 * so a full 25,000-record walk is seconds. The default run therefore walks in full where it
 * matters most (created_at with its bursts, both directions, forwards and backwards) and, for
 * every sort key × direction × page size (1, 7, 100, 250, 1000) × way, a stretch across each
 * boundary of the plan: offset from the front → keyset at index 10,000, keyset → offset from
 * the back at index 15,000 (= 25,000 − 10,000), and through an equal-timestamp burst. The whole
 * matrix in full (36 walks of 25,000) runs with PAGING_E2E_FULL=1 (several minutes), and in
 * process against a contract-exact fake in test/paging/walks.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, filterHash } from '../../src/upstream/cursor.ts';
import { type Stack, startStack } from '../support/harness.ts';

const ORDERS = 25_000;
const OFFSET_LIMIT = 10_000;
const FULL = process.env.PAGING_E2E_FULL === '1';

interface Key {
  id: string;
  created_at: string;
  updated_at: string;
}

type SortKey = 'created_at' | 'updated_at' | 'id';
const SORT_ENUM: Record<SortKey, string> = {
  created_at: 'CREATED_AT',
  updated_at: 'UPDATED_AT',
  id: 'ID',
};

let stack: Stack;
let all: Key[];

function order(sortKey: SortKey, reverse: boolean): string[] {
  const sorted = [...all].sort((a, b) => {
    let c = 0;
    if (a[sortKey] !== b[sortKey]) c = a[sortKey] < b[sortKey] ? -1 : 1;
    else if (a.id !== b.id) c = a.id < b.id ? -1 : 1;
    return reverse ? -c : c;
  });
  return sorted.map((k) => k.id);
}

/** Ground truth straight from the REST API, by the simplest possible id walk. */
async function readAllOrders(): Promise<Key[]> {
  const token = await stack.token();
  const keys: Key[] = [];
  let last = '';
  for (;;) {
    const params = new URLSearchParams({ 'page[limit]': '100', sort: 'id' });
    if (last !== '') params.set('filter', `gt(id,${last})`);
    const response = await fetch(`${stack.serviceUrl}/v2/orders?${params}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await response.json()) as {
      data: { id: string; meta: { timestamps: { created_at: string; updated_at: string } } }[];
    };
    for (const row of body.data) {
      keys.push({ id: row.id, ...row.meta.timestamps });
    }
    if (body.data.length < 100) break;
    last = keys[keys.length - 1]?.id as string;
  }
  return keys;
}

const QUERY = /* GraphQL */ `
  query Walk($first: Int, $after: String, $last: Int, $before: String, $sortKey: OrderSortKey,
             $reverse: Boolean) {
    orders(first: $first, after: $after, last: $last, before: $before, sortKey: $sortKey,
           reverse: $reverse) {
      totalCount
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { node { upstreamId } }
    }
  }
`;

interface Page {
  totalCount: number;
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
  edges: { node: { upstreamId: string } }[];
}

async function fetchPage(variables: Record<string, unknown>): Promise<Page> {
  const result = await stack.graphql(QUERY, variables);
  if (result.status !== 200 || result.body.errors) {
    throw new Error(`page failed: ${result.status} ${JSON.stringify(result.body.errors)}`);
  }
  return result.body.data.orders as Page;
}

interface WalkSpec {
  sortKey: SortKey;
  reverse: boolean;
  size: number;
  backward: boolean;
  cursor?: string | null;
  maxPages?: number;
}

/** Walks and returns the ids in connection order, checking pageInfo on the way. */
async function walk(spec: WalkSpec, total: number): Promise<string[]> {
  const pages: string[][] = [];
  let cursor = spec.cursor ?? null;
  for (let n = 0; ; n++) {
    const page = await fetchPage({
      sortKey: SORT_ENUM[spec.sortKey],
      reverse: spec.reverse,
      ...(spec.backward
        ? { last: spec.size, before: cursor }
        : { first: spec.size, after: cursor }),
    });
    pages.push(page.edges.map((e) => e.node.upstreamId));
    expect(page.totalCount).toBe(total);
    const more = spec.backward ? page.pageInfo.hasPreviousPage : page.pageInfo.hasNextPage;
    cursor = spec.backward ? page.pageInfo.startCursor : page.pageInfo.endCursor;
    if (!more || (spec.maxPages !== undefined && n + 1 >= spec.maxPages)) break;
    expect(page.edges).toHaveLength(spec.size);
  }
  return spec.backward ? pages.reverse().flat() : pages.flat();
}

function expectSequence(actual: string[], expected: string[]): void {
  let i = 0;
  while (i < actual.length && i < expected.length && actual[i] === expected[i]) i++;
  if (i === actual.length && i === expected.length) return;
  expect({ firstDifferenceAt: i, id: actual[i], length: actual.length }).toEqual({
    firstDifferenceAt: i,
    id: expected[i],
    length: expected.length,
  });
}

function listRequests(): URLSearchParams[] {
  return stack.upstreamRequests
    .filter((r) => r.method === 'GET' && r.url.startsWith('/v2/orders?'))
    .map((r) => new URLSearchParams(r.url.slice(r.url.indexOf('?') + 1)));
}

beforeAll(async () => {
  stack = await startStack({ seed: true, seedOptions: { orders: ORDERS } });
  all = await readAllOrders();
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

let pin: string | undefined;

/**
 * A cursor for the record at `index` of this order, as a client that paged there would hold.
 * Built from a real cursor's pinned bound and the ground truth, so a stretch deep in the list
 * starts without paging through everything before it.
 */
async function cursorAt(sortKey: SortKey, reverse: boolean, index: number): Promise<string> {
  const identity = {
    connection: 'orders',
    sortKey,
    direction: reverse ? ('desc' as const) : ('asc' as const),
    filterHash: filterHash([], undefined),
  };
  if (pin === undefined) {
    const page = await fetchPage({ first: 1, sortKey: 'ID' });
    pin = decodeCursor(
      page.pageInfo.endCursor as string,
      { ...identity, sortKey: 'id', direction: 'asc' },
      'after',
    ).pin;
  }
  const id = order(sortKey, reverse)[index] as string;
  const key = all.find((k) => k.id === id) as Key;
  return encodeCursor(identity, {
    pin,
    index,
    total: ORDERS,
    sortValue: sortKey === 'id' ? undefined : key[sortKey],
    id,
  });
}

/** Index range [start, end] of the first run of more than 100 equal sort values from `from`. */
function burstAfter(sortKey: SortKey, reverse: boolean, from: number): [number, number] {
  const byId = new Map(all.map((k) => [k.id, k]));
  const ids = order(sortKey, reverse);
  const value = (i: number) => (byId.get(ids[i] as string) as Key)[sortKey];
  for (let i = from; i < ids.length; ) {
    let j = i;
    while (j + 1 < ids.length && value(j + 1) === value(i)) j++;
    if (j - i + 1 > 100) return [i, j];
    i = j + 1;
  }
  return [from, from];
}

function expectNoDeepOffsets(): void {
  const offsets = listRequests().map((p) => Number(p.get('page[offset]') ?? 0));
  expect(Math.max(...offsets)).toBeLessThanOrEqual(OFFSET_LIMIT);
}

describe('orders connection over 25,000 seeded orders', () => {
  it('the seed has what the walks need: 25,000 orders, bursts larger than a page', () => {
    expect(all).toHaveLength(ORDERS);
    expect(new Set(all.map((k) => k.id)).size).toBe(ORDERS);
    const bursts = new Map<string, number>();
    for (const k of all) bursts.set(k.created_at, (bursts.get(k.created_at) ?? 0) + 1);
    expect(Math.max(...bursts.values())).toBeGreaterThan(250);
  });

  it('first: 250 in the offset region is exactly 3 concurrent upstream calls', async () => {
    const before = stack.upstreamRequests.length;
    const page = await fetchPage({ first: 250, sortKey: 'CREATED_AT' });
    expect(page.edges).toHaveLength(250);
    const calls = stack.upstreamRequests
      .slice(before)
      .filter((r) => r.url.startsWith('/v2/orders'));
    expect(calls).toHaveLength(3);
    const offsets = calls
      .map((r) => new URLSearchParams(r.url.slice(r.url.indexOf('?') + 1)).get('page[offset]'))
      .sort();
    expect(offsets).toEqual(['0', '100', '200']);
  });

  const full: [SortKey, boolean, number, boolean][] = [
    ['created_at', false, 1000, false],
    ['created_at', true, 1000, true],
  ];
  if (FULL) {
    full.length = 0;
    for (const sortKey of ['created_at', 'updated_at', 'id'] as const) {
      for (const reverse of [false, true]) {
        for (const size of [100, 250, 1000]) {
          for (const backward of [false, true]) full.push([sortKey, reverse, size, backward]);
        }
      }
    }
  }
  for (const [sortKey, reverse, size, backward] of full) {
    it(`full walk: ${sortKey} ${reverse ? 'desc' : 'asc'} ${backward ? 'last/before' : 'first/after'} ${size}`, async () => {
      const start = stack.upstreamRequests.length;
      const ids = await walk({ sortKey, reverse, size, backward }, ORDERS);
      expectSequence(ids, order(sortKey, reverse));
      const ours = stack.upstreamRequests
        .slice(start)
        .filter((r) => r.url.startsWith('/v2/orders?'));
      // The middle of the list is out of offset reach from both ends: keyset served it.
      expect(ours.some((r) => /filter=[^&]*(gt|lt)%28id%2C/.test(r.url))).toBe(true);
      expectNoDeepOffsets();
    }, 300_000);
  }

  for (const sortKey of ['created_at', 'updated_at', 'id'] as const) {
    for (const reverse of [false, true]) {
      const name = `${sortKey} ${reverse ? 'desc' : 'asc'}`;
      it(`${name}: stretches across both plan boundaries in pages of 1, 7, 100, 250, 1000`, async () => {
        const expected = order(sortKey, reverse);
        const stretch = async (size: number, backward: boolean, from: number, pages: number) => {
          // Forwards: records from+1 … ; backwards: records … from-1.
          const cursor = await cursorAt(sortKey, reverse, from);
          const ids = await walk(
            { sortKey, reverse, size, backward, cursor, maxPages: pages },
            ORDERS,
          );
          const want = backward
            ? expected.slice(Math.max(0, from - pages * size), from)
            : expected.slice(from + 1, from + 1 + pages * size);
          expectSequence(ids, want);
        };
        // Front offset region → keyset at 10,000, forwards and backwards over it.
        await stretch(250, false, 9_499, 3);
        await stretch(100, true, 10_300, 5);
        await stretch(1000, false, 9_599, 1);
        await stretch(1000, true, 10_600, 1);
        await stretch(1, false, 9_987, 25);
        await stretch(1, true, 10_012, 25);
        // Keyset → offset from the back at 15,000, both ways.
        await stretch(100, false, 14_699, 5);
        await stretch(250, true, 15_400, 3);
        await stretch(7, false, 14_959, 12);
        await stretch(7, true, 15_040, 12);
        // Through the first burst of more than 100 equal values in the keyset region: pages of 7
        // forwards and of 100 backwards start and end inside it; one page of 1000 spans it.
        const [burstStart, burstEnd] = burstAfter(sortKey, reverse, 10_050);
        if (sortKey === 'created_at') expect(burstEnd - burstStart).toBeGreaterThan(100);
        if (burstEnd > burstStart) {
          const pages7 = Math.ceil((burstEnd - burstStart + 10) / 7);
          await stretch(7, false, burstStart - 5, pages7);
          await stretch(100, true, burstEnd + 50, Math.ceil((burstEnd - burstStart + 100) / 100));
          await stretch(1000, false, burstStart - 300, 1);
        }
        expectNoDeepOffsets();
      }, 120_000);
    }
  }
});
