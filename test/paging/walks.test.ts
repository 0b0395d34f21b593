/**
 * Property-style walks of the pagination planner over an in-memory list endpoint that follows
 * the v2 contract (and refuses offsets past the limit): every sort key, both directions, many
 * page sizes, forwards and backwards, must yield exactly the ground-truth order.
 */
import { describe, expect, it } from 'vitest';
import { createCallBudget } from '../../src/upstream/budget.ts';
import type { Connection, PagingLimits, SortKey } from '../../src/upstream/paging/plan.ts';
import { paginate } from '../../src/upstream/paging/planner.ts';
import { expectSequence } from './e2e-orders-support.ts';
import {
  compareRecords,
  createFakeList,
  type FakeList,
  type FakeRecord,
  generateRecords,
} from './fake-list.ts';

const SORT_KEYS: SortKey[] = ['created_at', 'updated_at', 'id'];

function truth(records: FakeRecord[], sortKey: SortKey, reverse: boolean): string[] {
  return [...records].sort(compareRecords(`${reverse ? '-' : ''}${sortKey}`)).map((r) => r.id);
}

interface WalkOptions {
  sortKey: SortKey;
  reverse: boolean;
  size: number;
  backward: boolean;
  limits?: Partial<PagingLimits>;
  /** Stop after this many pages (for bounded stretches). */
  maxPages?: number;
  startCursor?: string | null;
}

function page(list: FakeList, o: WalkOptions, cursor: string | null) {
  return paginate<FakeRecord>({
    connection: 'orders',
    args: o.backward ? { last: o.size, before: cursor } : { first: o.size, after: cursor },
    sortKey: o.sortKey,
    reverse: o.reverse,
    filters: [],
    fetchPage: list.fetchPage,
    keyOf: (r) => r,
    budget: createCallBudget(50),
    ...(o.limits ? { limits: o.limits } : {}),
  });
}

/**
 * Walks the whole connection and returns the ids in connection order, checking pageInfo and
 * totalCount against the ground truth at every step.
 */
async function walk(
  list: FakeList,
  o: WalkOptions,
  expected: string[],
  /** Records the walk should see (fewer than expected when it starts from a cursor). */
  toSee = expected.length,
): Promise<string[]> {
  const pages: string[][] = [];
  let cursor: string | null = o.startCursor ?? null;
  let seen = 0;
  for (let n = 0; ; n++) {
    const connection: Connection<FakeRecord> = await page(list, o, cursor);
    const ids = connection.edges.map((e) => e.node.id);
    pages.push(ids);
    seen += ids.length;
    expect(connection.totalCount).toBe(expected.length);
    const { pageInfo } = connection;
    if (o.backward) {
      expect(pageInfo.hasPreviousPage).toBe(seen < toSee);
      expect(pageInfo.hasNextPage).toBe(cursor !== null);
      cursor = pageInfo.startCursor;
      if (!pageInfo.hasPreviousPage) break;
    } else {
      expect(pageInfo.hasNextPage).toBe(seen < toSee);
      expect(pageInfo.hasPreviousPage).toBe(cursor !== null);
      cursor = pageInfo.endCursor;
      if (!pageInfo.hasNextPage) break;
    }
    expect(ids.length).toBe(o.size);
    if (o.maxPages !== undefined && n + 1 >= o.maxPages) break;
  }
  return o.backward ? pages.reverse().flat() : pages.flat();
}

describe('full walks at the v2 limits (25,000 records, bursts up to 1,200 equal created_at)', () => {
  const records = generateRecords(25_000);
  const list = createFakeList(records);
  for (const sortKey of SORT_KEYS) {
    for (const reverse of [false, true]) {
      const expected = truth(records, sortKey, reverse);
      for (const size of [100, 250, 1000]) {
        for (const backward of [false, true]) {
          const name = `${sortKey} ${reverse ? 'desc' : 'asc'} ${backward ? 'last/before' : 'first/after'} ${size}`;
          it(name, async () => {
            list.reset();
            const ids = await walk(list, { sortKey, reverse, size, backward }, expected);
            expectSequence(ids, expected);
            // The fake refuses offsets above 10,000, so reaching here proves it; still show it.
            expect(Math.max(...list.calls.map((c) => c.offset))).toBeLessThanOrEqual(10_000);
            // The middle 5,000 records are out of offset reach from both ends: keyset served them.
            expect(list.calls.some((c) => /(gt|lt)\(id,/.test(c.filter ?? ''))).toBe(true);
            // Deep pages cost about what early ones do: at most one extra call per page.
            const pagesWalked = Math.ceil(expected.length / size);
            expect(list.calls.length).toBeLessThanOrEqual(
              pagesWalked * (Math.ceil(size / 100) + 1),
            );
          });
        }
      }
    }
  }
});

describe('full walks with small pages (2,000 records, offset limit scaled down to 300)', () => {
  // Same planner, limits scaled so pages of 1 and 7 cross into the keyset region and through
  // bursts larger than a 100-record page in a few thousand steps.
  const records = generateRecords(2000, { bursts: [150, 320, 101, 7, 8], gap: 40, seed: 7 });
  const limits = { offsetLimit: 300, maxFirst: 300 };
  const list = createFakeList(records, { offsetLimit: 300 });
  for (const sortKey of SORT_KEYS) {
    for (const reverse of [false, true]) {
      const expected = truth(records, sortKey, reverse);
      for (const size of [1, 7, 100]) {
        for (const backward of [false, true]) {
          const name = `${sortKey} ${reverse ? 'desc' : 'asc'} ${backward ? 'last/before' : 'first/after'} ${size}`;
          it(name, async () => {
            list.reset();
            const ids = await walk(list, { sortKey, reverse, size, backward, limits }, expected);
            expectSequence(ids, expected);
            expect(Math.max(...list.calls.map((c) => c.offset))).toBeLessThanOrEqual(300);
            expect(list.calls.some((c) => /(gt|lt)\(id,/.test(c.filter ?? ''))).toBe(true);
          });
        }
      }
    }
  }
});

describe('changing direction mid-walk', () => {
  const records = generateRecords(25_000, { seed: 3 });
  const list = createFakeList(records);
  for (const sortKey of SORT_KEYS) {
    it(`${sortKey}: forward deep into the keyset region, then back to the start`, async () => {
      const expected = truth(records, sortKey, false);
      let after: string | null = null;
      const forward: string[] = [];
      // 13 pages of 1,000: past the offset limit, into the keyset region.
      for (let i = 0; i < 13; i++) {
        const c = await page(list, { sortKey, reverse: false, size: 1000, backward: false }, after);
        forward.push(...c.edges.map((e) => e.node.id));
        after = c.pageInfo.endCursor;
      }
      expectSequence(forward, expected.slice(0, 13_000));
      // From the 13,000th record's cursor walk backwards with an odd size through the middle.
      const back = await walk(
        list,
        { sortKey, reverse: false, size: 700, backward: true, startCursor: after },
        expected,
        12_999,
      );
      expectSequence(back, expected.slice(0, 12_999));
    });
  }

  it('first + before and last + after keep inside the window', async () => {
    const expected = truth(records, 'created_at', true);
    const opts = { sortKey: 'created_at' as const, reverse: true, size: 1000, backward: false };
    const pages: Connection<FakeRecord>[] = [];
    let after: string | null = null;
    for (let i = 0; i < 12; i++) {
      const c = await page(list, opts, after);
      pages.push(c);
      after = c.pageInfo.endCursor;
    }
    const edgeAt = (i: number) => pages[Math.floor(i / 1000)]?.edges[i % 1000]?.cursor ?? null;
    for (const [from, to] of [
      [100, 180],
      [10_500, 11_900],
      [9_990, 10_050],
    ] as const) {
      const base = {
        connection: 'orders',
        sortKey: 'created_at' as const,
        reverse: true,
        filters: [],
        fetchPage: list.fetchPage,
        keyOf: (r: FakeRecord) => r,
      };
      const firstIn = await paginate({
        ...base,
        args: { first: 1000, after: edgeAt(from), before: edgeAt(to) },
        budget: createCallBudget(50),
      });
      const stop = Math.min(to, from + 1 + 1000);
      expect(firstIn.edges.map((e) => e.node.id)).toEqual(expected.slice(from + 1, stop));
      expect(firstIn.pageInfo.hasNextPage).toBe(stop < to);
      expect(firstIn.pageInfo.hasPreviousPage).toBe(true);
      const lastIn = await paginate({
        ...base,
        args: { last: 20, after: edgeAt(from), before: edgeAt(to) },
        budget: createCallBudget(50),
      });
      expect(lastIn.edges.map((e) => e.node.id)).toEqual(expected.slice(to - 20, to));
      expect(lastIn.pageInfo.hasPreviousPage).toBe(true);
      expect(lastIn.pageInfo.hasNextPage).toBe(true);
    }
  });
});
