import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/commerce-service/db.ts';
import { parseListQuery, standardListSpec } from '../../src/commerce-service/listing/parse.ts';
import { buildListSql } from '../../src/commerce-service/listing/sql.ts';
import { type SeededService, startSeededService } from './seeded-service.ts';

interface Row {
  id: string;
  meta: { timestamps: { created_at: string; updated_at: string } };
}

const ORDERS = 12_000;

describe('keyset walks over the 12,000 seeded orders', () => {
  let service: SeededService;

  beforeAll(async () => {
    service = await startSeededService();
  });
  afterAll(async () => {
    await service.close();
  });

  async function page(query: string): Promise<{ data: Row[]; total: number }> {
    const result = await service.call('GET', `/v2/orders?page[limit]=100&${query}`);
    expect(result.status, query).toBe(200);
    return { data: result.body.data as Row[], total: result.body.meta.results.total as number };
  }

  function assertEachOnce(ids: string[]): void {
    expect(ids).toHaveLength(ORDERS);
    expect(new Set(ids).size).toBe(ORDERS);
  }

  it('the spec pattern: sort=created_at + ge(created_at,last), offset within a burst', async () => {
    const ids: string[] = [];
    const keys: string[] = [];
    let last: string | undefined;
    // Rows already returned whose created_at equals `last`: the next ge(created_at,last) page
    // starts with exactly those (ties are ordered by id), so page[offset] skips them.
    let seenAtLast = 0;
    let largestBurst = 0;
    let requests = 0;
    for (;;) {
      const query =
        last === undefined
          ? 'sort=created_at'
          : `sort=created_at&filter=ge(created_at,${last})&page[offset]=${seenAtLast}`;
      const { data } = await page(query);
      requests++;
      if (data.length === 0) break;
      for (const row of data) {
        const at = row.meta.timestamps.created_at;
        ids.push(row.id);
        keys.push(`${at} ${row.id}`);
        if (at === last) {
          seenAtLast++;
        } else {
          last = at;
          seenAtLast = 1;
        }
        largestBurst = Math.max(largestBurst, seenAtLast);
      }
    }
    assertEachOnce(ids);
    // The walk saw the rows in (created_at, id) order, no de-duplication needed.
    expect(keys).toEqual([...keys].sort());
    // Bursts longer than a page are what makes the offset step necessary.
    expect(largestBurst).toBeGreaterThanOrEqual(300);
    expect(requests).toBeLessThan(ORDERS / 100 + 20);
  });

  it('the contracts pattern, descending: eq(created_at,T):lt(id,last) then lt(created_at,T)', async () => {
    const ids: string[] = [];
    let position: { at: string; id: string } | undefined;
    let inTies = false;
    for (;;) {
      let filter = '';
      if (position) {
        filter = inTies
          ? `&filter=eq(created_at,${position.at}):lt(id,${position.id})`
          : `&filter=lt(created_at,${position.at})`;
      }
      const { data } = await page(`sort=-created_at${filter}`);
      if (data.length === 0) {
        if (inTies) {
          inTies = false; // the ties of T are exhausted: continue below T
          continue;
        }
        break;
      }
      for (const row of data) ids.push(row.id);
      const tail = data.at(-1) as Row;
      position = { at: tail.meta.timestamps.created_at, id: tail.id };
      inTies = true;
    }
    assertEachOnce(ids);
  });

  it('walks updated_at (with bulk-update ties) and id the same way', async () => {
    const ids: string[] = [];
    let position: { at: string; id: string } | undefined;
    let inTies = false;
    let tiedPages = 0;
    for (;;) {
      let filter = '';
      if (position) {
        filter = inTies
          ? `&filter=eq(updated_at,${position.at}):gt(id,${position.id})`
          : `&filter=gt(updated_at,${position.at})`;
      }
      const { data } = await page(`sort=updated_at${filter}`);
      if (data.length === 0) {
        if (inTies) {
          inTies = false;
          continue;
        }
        break;
      }
      if (inTies && data.length === 100) tiedPages++;
      for (const row of data) ids.push(row.id);
      const tail = data.at(-1) as Row;
      position = { at: tail.meta.timestamps.updated_at, id: tail.id };
      inTies = true;
    }
    assertEachOnce(ids);
    expect(tiedPages).toBeGreaterThan(0);

    const byId: string[] = [];
    let lastId: string | undefined;
    for (;;) {
      const { data } = await page(`sort=id${lastId ? `&filter=gt(id,${lastId})` : ''}`);
      if (data.length === 0) break;
      for (const row of data) byId.push(row.id);
      lastId = data.at(-1)?.id;
    }
    assertEachOnce(byId);
    expect(byId).toEqual([...byId].sort());
  });
});

describe('list and keyset queries are index range scans', () => {
  const db = openDatabase(':memory:');
  afterAll(() => db.close());

  const queries = [
    'sort=created_at',
    'sort=-created_at',
    'sort=updated_at',
    'sort=-updated_at',
    'sort=id',
    'sort=created_at&filter=ge(created_at,2025-01-01T00:00:00.000Z)',
    'sort=created_at&filter=eq(created_at,2025-01-01T00:00:00.000Z):gt(id,00000000-0000-4000-8000-000000000000)',
    'sort=created_at&filter=gt(created_at,2025-01-01T00:00:00.000Z)',
    'sort=-created_at&filter=lt(created_at,2025-01-01T00:00:00.000Z)',
    'sort=updated_at&filter=eq(updated_at,2025-01-01T00:00:00.000Z):gt(id,00000000-0000-4000-8000-000000000000)',
    'sort=id&filter=gt(id,00000000-0000-4000-8000-000000000000)',
  ];

  for (const table of ['orders', 'files', 'accounts']) {
    it(`${table}: every sort and keyset filter uses an index and no temporary sort`, () => {
      for (const raw of queries) {
        const query = parseListQuery(
          Object.fromEntries(new URLSearchParams(raw)),
          standardListSpec(),
          25,
        );
        const sql = buildListSql(table, 'id', { store_id: 's' }, query);
        const plan = (
          db.prepare(`EXPLAIN QUERY PLAN ${sql.sql}`).all(...sql.params) as { detail: string }[]
        )
          .map((r) => r.detail)
          .join(' | ');
        expect(plan, `${table} ${raw}`).toMatch(/USING (COVERING )?INDEX/);
        expect(plan, `${table} ${raw}`).not.toMatch(/TEMP B-TREE/);
        expect(plan, `${table} ${raw}`).toMatch(/SEARCH/);
      }
    });
  }
});
