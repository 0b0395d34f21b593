/**
 * The planner's offset mode (src/upstream/paging-offset.ts) against an in-memory list that
 * knows no sort and no range filter, as the catalog's lists: walks both ways past 10,000 on a
 * soft list, the refusal of a hard one before any call, what a changing list does to a walk,
 * and the cursors' checks. (The same walk over real sockets: test/gateway/catalog-deep-walk.)
 */
import { describe, expect, it } from 'vitest';
import { createCallBudget } from '../../src/upstream/budget.ts';
import { paginateByOffset } from '../../src/upstream/paging/offset.ts';
import type { ConnectionArgs } from '../../src/upstream/paging/plan.ts';

interface Row {
  id: string;
}

function offsetList(size: number) {
  const rows: Row[] = Array.from({ length: size }, (_, i) => ({ id: `r${i}` }));
  const calls: { offset: number; limit: number; filter?: string }[] = [];
  const fetchPage = async (query: { offset: number; limit: number; filter?: string }) => {
    calls.push(query);
    if (query.limit < 1 || query.limit > 100) throw new Error(`bad limit ${query.limit}`);
    return { data: rows.slice(query.offset, query.offset + query.limit), total: rows.length };
  };
  return { rows, calls, fetchPage };
}

function page(
  list: ReturnType<typeof offsetList>,
  args: ConnectionArgs,
  offsetLimit: 'soft' | 'hard' = 'soft',
  clauses: string[] = [],
) {
  return paginateByOffset<Row>({
    connection: 'test-rows',
    args,
    clauses,
    offsetLimit,
    fetchPage: list.fetchPage,
    budget: createCallBudget(50),
  });
}

const ids = (connection: { edges: { node: Row }[] }) => connection.edges.map((e) => e.node.id);

describe('offset mode', () => {
  it('walks a soft list forwards past 10,000 with no gap or repeat', async () => {
    const list = offsetList(12_345);
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const connection = await page(list, { first: 1000, after });
      seen.push(...ids(connection));
      expect(connection.totalCount).toBe(12_345);
      expect(connection.pageInfo.hasPreviousPage).toBe(after !== null);
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor;
    }
    expect(seen).toEqual(list.rows.map((r) => r.id));
    expect(Math.max(...list.calls.map((c) => c.offset))).toBe(12_300);
    // No sort, no filter: only page[offset] and page[limit].
    expect(list.calls.every((c) => c.filter === undefined)).toBe(true);
  });

  it('walks it backwards from the end with last/before, the size read first', async () => {
    const list = offsetList(12_345);
    const seen: string[] = [];
    let before: string | null = null;
    let rounds = 0;
    for (;;) {
      const connection = await page(list, { last: 1000, before });
      seen.unshift(...ids(connection));
      rounds++;
      if (!connection.pageInfo.hasPreviousPage) break;
      before = connection.pageInfo.startCursor;
    }
    expect(seen).toEqual(list.rows.map((r) => r.id));
    expect(rounds).toBe(13);
    // The first `last` costs one call more (the size); the others know it from the cursor.
    expect(list.calls.length).toBe(1 + 13 * 10 - 6);
  });

  it('serves `last` of a list that fits in the first call with that call alone', async () => {
    const list = offsetList(7);
    const connection = await page(list, { last: 3 });
    expect(ids(connection)).toEqual(['r4', 'r5', 'r6']);
    expect(connection.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    expect(list.calls).toEqual([{ offset: 0, limit: 100 }]);
    const all = await page(list, { last: 50 });
    expect(ids(all)).toHaveLength(7);
  });

  it('pages between two cursors, and first: 0 costs one call for the total', async () => {
    const list = offsetList(300);
    const wide = await page(list, { first: 200 });
    const a = wide.edges[9]?.cursor as string;
    const b = wide.edges[20]?.cursor as string;
    const between = await page(list, { first: 100, after: a, before: b });
    expect(ids(between)).toEqual(list.rows.slice(10, 20).map((r) => r.id));
    expect(between.pageInfo.hasNextPage).toBe(false);
    const backwards = await page(list, { last: 4, after: a, before: b });
    expect(ids(backwards)).toEqual(['r16', 'r17', 'r18', 'r19']);
    expect(backwards.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: true });
    list.calls.length = 0;
    const none = await page(list, { first: 0 });
    expect(none.totalCount).toBe(300);
    expect(list.calls).toHaveLength(1);
  });

  it('refuses a page past a hard limit before any call, and serves up to it', async () => {
    const list = offsetList(12_000);
    const near = await page(list, { first: 100, after: cursorAt(list, 9_899) }, 'hard');
    expect(ids(near)[0]).toBe('r9900');
    list.calls.length = 0;
    await expect(
      page(list, { first: 300, after: cursorAt(list, 9_899) }, 'hard'),
    ).rejects.toMatchObject({
      code: 'OFFSET_LIMIT_EXCEEDED',
    });
    await expect(
      page(list, { last: 10, before: cursorAt(list, 11_000) }, 'hard'),
    ).rejects.toMatchObject({
      code: 'OFFSET_LIMIT_EXCEEDED',
    });
    expect(list.calls).toEqual([]);
  });

  it('refuses cursors of another connection, other filters or a keyset list', async () => {
    const list = offsetList(50);
    const cursor = (await page(list, { first: 5 })).pageInfo.endCursor as string;
    await expect(
      page(list, { first: 5, after: cursor }, 'soft', ['eq(sku,a)']),
    ).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      message: 'Invalid cursor in `after`: cursor belongs to other filters',
    });
    const keyset = Buffer.from(
      JSON.stringify({
        v: 1,
        c: 'test-rows',
        k: 'id',
        d: 'asc',
        f: 'x',
        p: '2025-01-01T00:00:00.000Z',
        i: 0,
        n: 5,
        id: 'a',
      }),
    ).toString('base64url');
    await expect(page(list, { first: 5, after: keyset })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      extensions: { field: 'after' },
    });
    await expect(page(list, { first: 5, after: 'nope!' })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
    });
    await expect(page(list, { first: 1001 })).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
  });

  it('shifts a walk when a row is inserted before its cursor: what it cannot promise', async () => {
    const list = offsetList(20);
    const first = await page(list, { first: 10 });
    list.rows.unshift({ id: 'new' });
    const next = await page(list, { first: 10, after: first.pageInfo.endCursor });
    // r9 again: the row at offset 10 is now the one the first page ended with.
    expect(ids(next)[0]).toBe('r9');
  });
});

/** The cursor of the row at `index` of `list`, as a page that ended there gave it. */
function cursorAt(list: ReturnType<typeof offsetList>, index: number): string {
  return Buffer.from(
    `{"v":1,"c":"test-rows","k":"offset","f":"${hashOfNone}","n":${list.rows.length},"i":${index}}`,
  ).toString('base64url');
}
const hashOfNone = (await import('../../src/upstream/paging/cursor.ts')).filterHash([]);
