/**
 * Pages handed out in parts (`@stream`: src/upstream/paging/stream.ts and the offset mode's
 * `paginateByOffsetInParts`) against the in-memory lists: for every shape of page the same edges,
 * cursors, pageInfo and totalCount as the page fetched whole; the first edges readable while later
 * upstream pages are still out; a list that changes mid-page handed out with no gap or repeat.
 */
import { describe, expect, it } from 'vitest';
import { createCallBudget, DEFAULT_CALL_BUDGET } from '../../src/upstream/budget.ts';
import { paginateByOffset, paginateByOffsetInParts } from '../../src/upstream/paging/offset.ts';
import type {
  Connection,
  ConnectionArgs,
  PaginateOptions,
  StreamedConnection,
} from '../../src/upstream/paging/plan.ts';
import { paginate } from '../../src/upstream/paging/planner.ts';
import { paginateInParts } from '../../src/upstream/paging/stream.ts';
import {
  bumpVersion,
  compareRecords,
  createFakeList,
  type FakeList,
  type FakeRecord,
  generateRecords,
} from './fake-list.ts';

const NOW = Date.parse('2030-01-01T00:00:00.000Z');

function options(
  list: FakeList,
  extra: Partial<PaginateOptions<FakeRecord>> = {},
): PaginateOptions<FakeRecord> {
  return {
    connection: 'orders',
    args: { first: 10 },
    sortKey: 'created_at',
    reverse: false,
    filters: [],
    fetchPage: list.fetchPage,
    keyOf: (r) => r,
    budget: createCallBudget(DEFAULT_CALL_BUDGET),
    now: () => NOW,
    ...extra,
    // The lists here refuse offsets past 1,500: walks reach the keyset region soon.
    limits: { offsetLimit: 1500, ...extra.limits },
  };
}

/** A page in parts read to its end, as the whole page it makes. */
async function drained<T>(streamed: StreamedConnection<T>) {
  const edges: { cursor: string; node: T }[] = [];
  for await (const edge of streamed.edges) edges.push({ cursor: edge.cursor, node: edge.node });
  return { edges, pageInfo: pageInfoOf(await streamed.pageInfo), totalCount: streamed.totalCount };
}

function plain<T>(connection: Connection<T>) {
  return {
    edges: connection.edges.map((edge) => ({ cursor: edge.cursor, node: edge.node })),
    pageInfo: pageInfoOf(connection.pageInfo),
    totalCount: connection.totalCount,
  };
}

/** The four fields a client reads (a page's info may keep its cursors in getters). */
function pageInfoOf(info: Connection<unknown>['pageInfo']) {
  const { hasNextPage, hasPreviousPage, startCursor, endCursor } = info;
  return { hasNextPage, hasPreviousPage, startCursor, endCursor };
}

describe('a keyset page in parts', () => {
  const data = generateRecords(3000, { seed: 5, bursts: [300] });
  const list = createFakeList(data, { offsetLimit: 1500 });

  it('is the page fetched whole, for every shape of page', async () => {
    const cursors = plain(await paginate(options(list, { args: { first: 1000 } }))).edges;
    const at = (index: number) => (cursors[index] as { cursor: string }).cursor;
    const far = plain(
      await paginate(options(list, { args: { first: 1000, after: at(999) } })),
    ).edges.at(-1)?.cursor as string;
    const shapes: [string, ConnectionArgs, 'created_at' | 'id', boolean][] = [
      ['first from the front', { first: 1000 }, 'created_at', false],
      ['first past the end', { first: 1000, after: far }, 'created_at', false],
      ['first after a cursor', { first: 400, after: at(99) }, 'created_at', false],
      ['first between two cursors', { first: 900, after: at(10), before: at(500) }, 'id', false],
      ['last from the end', { last: 300 }, 'created_at', false],
      ['last before a cursor', { last: 250, before: at(700) }, 'created_at', false],
      ['first, descending', { first: 333 }, 'created_at', true],
      ['first: 0', { first: 0 }, 'created_at', false],
    ];
    for (const [name, args, sortKey, reverse] of shapes) {
      // Cursors of created_at walks only fit created_at walks: the id shape starts its own.
      const own =
        sortKey === 'id'
          ? plain(await paginate(options(list, { args: { first: 1000 }, sortKey }))).edges
          : cursors;
      const shaped =
        sortKey === 'id'
          ? {
              ...args,
              after: (own[10] as { cursor: string }).cursor,
              before: (own[500] as { cursor: string }).cursor,
            }
          : args;
      const whole = plain(await paginate(options(list, { args: shaped, sortKey, reverse })));
      const parts = await drained(
        await paginateInParts(options(list, { args: shaped, sortKey, reverse })),
      );
      expect(parts, name).toEqual(whole);
    }
  });

  it('hands out its first edges while later upstream pages are still out', async () => {
    const slow = createFakeList(data, { delayMs: 40 });
    const streamed = await paginateInParts(
      options(slow, { args: { first: 1000 }, limits: { concurrency: 2 } }),
    );
    const iterator = streamed.edges[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    expect(slow.calls.length).toBeLessThan(10);
    let read = 1;
    while (!(await iterator.next()).done) read++;
    expect(read).toBe(1000);
    expect(slow.calls).toHaveLength(10);
  });

  it('a record deleted mid-page: the rest by keyset from the last edge, no gap, no repeat', async () => {
    for (const sortKey of ['created_at', 'id'] as const) {
      const records = generateRecords(2000, { seed: 9 });
      const changing = createFakeList(records);
      const order = [...records].sort(compareRecords(sortKey)).map((r) => r.id);
      let answered = 0;
      const victim = order[950] as string;
      changing.beforeAnswer = () => {
        // After the first page is answered, a record ahead goes: every later offset shifts.
        if (answered++ === 1) {
          records.splice(
            records.findIndex((r) => r.id === victim),
            1,
          );
          bumpVersion(records);
        }
      };
      const parts = await drained(
        await paginateInParts(
          options(changing, { args: { first: 1000 }, sortKey, limits: { concurrency: 1 } }),
        ),
      );
      const ids = parts.edges.map((edge) => edge.node.id);
      expect(new Set(ids).size, sortKey).toBe(1000);
      expect(ids, sortKey).toEqual(order.filter((id) => id !== victim).slice(0, 1000));
      // The walk went on by keyset (filters past the last edge handed out).
      expect(changing.calls.some((call) => /gt\((created_at|id),/.test(call.filter ?? ''))).toBe(
        true,
      );
      expect(parts.pageInfo.hasNextPage).toBe(true);
      expect(parts.pageInfo.endCursor).toBe(parts.edges.at(-1)?.cursor);
    }
  });

  it('a failure after the first page ends the edges with it; the first page fails the field', async () => {
    const failing = createFakeList(data);
    let calls = 0;
    const fetchPage: typeof failing.fetchPage = (page, query) => {
      if (calls++ === 3) return Promise.reject(new Error('upstream gone'));
      return failing.fetchPage(page, query);
    };
    const streamed = await paginateInParts(
      options(failing, { fetchPage, args: { first: 1000 }, limits: { concurrency: 1 } }),
    );
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const edge of streamed.edges) seen.push(edge.node.id);
      })(),
    ).rejects.toThrow('upstream gone');
    expect(seen).toHaveLength(300);
    await expect(streamed.pageInfo).rejects.toThrow('upstream gone');
    await expect(
      paginateInParts(
        options(failing, {
          fetchPage: () => Promise.reject(new Error('down')),
          args: { first: 1000 },
        }),
      ),
    ).rejects.toThrow('down');
  });
});

describe('an offset-only page in parts', () => {
  const rows = Array.from({ length: 2345 }, (_, i) => ({ id: `r${i}` }));
  const fetchPage = async (query: { offset: number; limit: number }) => ({
    data: rows.slice(query.offset, query.offset + query.limit),
    total: rows.length,
  });
  const page = (args: ConnectionArgs) => ({
    connection: 'test-rows',
    args,
    clauses: [],
    offsetLimit: 'soft' as const,
    fetchPage,
    budget: createCallBudget(50),
  });

  it('is the page fetched whole, for every shape of page', async () => {
    const front = plain(await paginateByOffset(page({ first: 1000 })));
    const at = (index: number) => (front.edges[index] as { cursor: string }).cursor;
    const shapes: ConnectionArgs[] = [
      { first: 1000 },
      { first: 1000, after: at(999) },
      { first: 500, after: at(10), before: at(300) },
      { last: 120 },
      { last: 700, before: at(900) },
      { first: 0 },
    ];
    for (const args of shapes) {
      const whole = plain(await paginateByOffset(page(args)));
      const parts = await drained(await paginateByOffsetInParts(page(args)));
      expect(parts, JSON.stringify(args)).toEqual(whole);
    }
  });
});
