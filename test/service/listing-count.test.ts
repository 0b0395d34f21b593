/**
 * results.total of filtered lists counted as `kept total − rows outside the filter's interval`
 * (listing/count.ts countResults) must equal the filter's own count(*) in every case, and the page
 * query of a filter on another column than the sort must read the sort index. Checked over HTTP
 * on orders written straight into a temp-file database: bursts of equal created_at, ties in
 * updated_at, a second store interleaved in time, random filters of every shape the count
 * shortcut handles (and some it must leave alone).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../../src/commerce-service/db.ts';
import { storeIdForClient } from '../../src/commerce-service/ids.ts';
import { singleColumnInterval } from '../../src/commerce-service/listing/interval.ts';
import { parseListQuery, standardListSpec } from '../../src/commerce-service/listing/parse.ts';
import { buildListSql } from '../../src/commerce-service/listing/sql.ts';
import { prng, type ServiceUnderTest, startService } from './service-helpers.ts';

interface Row {
  id: string;
  created_at: string;
  updated_at: string;
}

const START = Date.parse('2025-03-01T00:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

describe('results.total of interval filters (counter minus the outside)', () => {
  let dir: string;
  let service: ServiceUnderTest;
  let db: Db;
  const alpha = storeIdForClient('alpha');
  const beta = storeIdForClient('beta');
  const rows: Row[] = [];
  const random = prng(20_261_122);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listing-count-test-'));
    const dbPath = join(dir, 'service.db');
    service = await startService({ dbPath });
    db = openDatabase(dbPath);
    const insert = db.prepare(
      `INSERT INTO orders (id, store_id, cart_id, status, payment, shipping, customer_name,
         customer_email, billing_address, shipping_address, currency, with_tax,
         without_discount, discount, created_at, updated_at)
       VALUES (?, ?, NULL, 'complete', 'paid', 'fulfilled', 'N', 'n@example.com', '{}', NULL,
         'USD', 100, 100, 0, ?, ?)`,
    );
    // 3,000 orders of alpha in bursts of 1..60 sharing one created_at (more than the count's
    // 512-row probe on either side of most bounds), updated_at on a coarse grid so it ties too;
    // 400 orders of beta interleaved in time, which no count of alpha may include.
    let at = START;
    db.transaction(() => {
      while (rows.length < 3000) {
        const burst = 1 + Math.floor(random() * 60);
        for (let i = 0; i < burst && rows.length < 3000; i++) {
          const row = {
            id: randomUUID(),
            created_at: iso(at),
            updated_at: iso(START + Math.floor(random() * 500) * 1000),
          };
          rows.push(row);
          insert.run(row.id, alpha, row.created_at, row.updated_at);
          if (random() < 0.13) insert.run(randomUUID(), beta, iso(at), iso(at));
        }
        at += 1 + Math.floor(random() * 5_000);
      }
    })();
  });
  afterAll(async () => {
    await service.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const list = async (query: string) => {
    const result = await service.call('GET', `/v2/orders?${query}`);
    expect(result.status, `${query}: ${JSON.stringify(result.body)}`).toBe(200);
    return result.body as { data: { id: string }[]; meta: { results: { total: number } } };
  };

  /** The filter's plain count(*), the way results.total was counted before the shortcut. */
  const directCount = (filter: string) => {
    const query = parseListQuery({ filter }, standardListSpec(), 25);
    const built = buildListSql('orders', 'id', { store_id: alpha }, query);
    return Number(
      db
        .prepare(built.countSql)
        .pluck()
        .get(...built.countParams),
    );
  };

  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
  const attrs = ['created_at', 'updated_at', 'id'] as const;
  /** A bound: mostly a stored value (hits ties), else ±1 ms, out of range, or sub-millisecond. */
  const valueFor = (attr: (typeof attrs)[number]): string => {
    const stored = pick(rows)[attr];
    if (attr === 'id') return random() < 0.8 ? stored : pick(['0', 'ffffffff', stored.slice(0, 5)]);
    const r = random();
    if (r < 0.65) return stored;
    if (r < 0.8) return iso(Date.parse(stored) + pick([-1, 1]));
    if (r < 0.9) return stored.replace('Z', '5Z'); // sub-millisecond: strictly between two ms
    return pick(['2020-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z']);
  };
  const clause = (attr: (typeof attrs)[number]) =>
    `${pick(['eq', 'gt', 'ge', 'lt', 'le'] as const)}(${attr},${valueFor(attr)})`;

  it('equals the direct count(*) for random one-column interval filters', async () => {
    let shortcut = 0;
    for (let i = 0; i < 250; i++) {
      const attr = pick(attrs);
      const clauses = Array.from({ length: 1 + Math.floor(random() * 3) }, () => clause(attr));
      const filter = clauses.join(':');
      const query = parseListQuery({ filter }, standardListSpec(), 25);
      if (singleColumnInterval(query.conditions, attrs)) shortcut++;
      const body = await list(`filter=${encodeURIComponent(filter)}&page[limit]=1`);
      expect(body.meta.results.total, filter).toBe(directCount(filter));
    }
    // Sub-millisecond eq() becomes a constant false and leaves the shortcut; the rest take it.
    expect(shortcut).toBeGreaterThan(200);
  });

  it('equals the direct count(*) for the keyset and pin shapes the gateway sends', async () => {
    const pin = iso(Date.now());
    for (let i = 0; i < 120; i++) {
      const row = pick(rows);
      const attr = pick(['created_at', 'updated_at'] as const);
      const cmp = pick(['gt', 'lt'] as const);
      const filter = pick([
        `le(${attr},${pin})`,
        `${cmp}(${attr},${row[attr]}):le(${attr},${pin})`,
        `eq(${attr},${row[attr]}):${cmp}(id,${row.id})`,
        `eq(${attr},${row[attr]}):${cmp}(id,${row.id}):le(${attr},${pin})`,
        `${cmp}(id,${row.id}):le(created_at,${pin})`,
        `ge(updated_at,${row.updated_at}):le(created_at,${pin})`,
      ]);
      const body = await list(`filter=${encodeURIComponent(filter)}&page[limit]=1`);
      expect(body.meta.results.total, filter).toBe(directCount(filter));
    }
  });

  it('serves the same page whichever index the filter could have used', async () => {
    const pin = iso(Date.now());
    const sorted = (key: keyof Row, desc: boolean) =>
      [...rows].sort((a, b) => {
        const c = a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : a.id < b.id ? -1 : 1;
        return desc ? -c : c;
      });
    for (const [sort, key, desc] of [
      ['id', 'id', false],
      ['-id', 'id', true],
      ['created_at', 'created_at', false],
      ['-updated_at', 'updated_at', true],
    ] as const) {
      const row = pick(rows);
      const since = row.updated_at;
      const filter = `ge(updated_at,${since}):le(created_at,${pin})`;
      const body = await list(
        `sort=${sort}&page[limit]=100&page[offset]=300&filter=${encodeURIComponent(filter)}`,
      );
      const expected = sorted(key, desc).filter((r) => r.updated_at >= since);
      expect(
        body.data.map((d) => d.id),
        `${sort} ${filter}`,
      ).toEqual(expected.slice(300, 400).map((r) => r.id));
      expect(body.meta.results.total).toBe(expected.length);
    }
  });

  it('keeps the unfiltered total (the counter) right through inserts, deletes and moves', async () => {
    expect((await list('page[limit]=1')).meta.results.total).toBe(3000);
    const extra = randomUUID();
    db.prepare(
      `INSERT INTO orders (id, store_id, status, payment, shipping, customer_name,
         customer_email, billing_address, currency, with_tax, without_discount, discount,
         created_at, updated_at)
       SELECT ?, store_id, status, payment, shipping, customer_name, customer_email,
         billing_address, currency, with_tax, without_discount, discount, created_at, updated_at
       FROM orders WHERE id = ?`,
    ).run(extra, rows[0]?.id);
    expect((await list('page[limit]=1')).meta.results.total).toBe(3001);
    db.prepare('UPDATE orders SET store_id = ? WHERE id = ?').run(beta, extra);
    expect((await list('page[limit]=1')).meta.results.total).toBe(3000);
    const betaTotal = Number(
      db.prepare('SELECT count(*) FROM orders WHERE store_id = ?').pluck().get(beta),
    );
    expect(
      db
        .prepare(
          "SELECT row_count FROM store_row_counts WHERE store_id = ? AND table_name = 'orders'",
        )
        .pluck()
        .get(beta),
    ).toBe(betaTotal);
    db.prepare('DELETE FROM orders WHERE id = ?').run(extra);
    const filter = `gt(created_at,${rows[1500]?.created_at})`;
    expect((await list(`filter=${encodeURIComponent(filter)}`)).meta.results.total).toBe(
      directCount(filter),
    );
  });
});

describe('a filter on another column than the sort reads the sort index', () => {
  const db = openDatabase(':memory:');
  afterAll(() => db.close());
  const pin = '2025-01-01T00:00:00.000Z';
  const id = '00000000-0000-4000-8000-000000000000';

  for (const [raw, index] of [
    [`sort=id&filter=le(created_at,${pin})`, 'orders_id'],
    [`sort=-id&filter=gt(id,${id}):le(created_at,${pin})`, 'orders_id'],
    [`sort=created_at&filter=ge(updated_at,${pin}):le(created_at,${pin})`, 'orders_created'],
    [`sort=-updated_at&filter=le(created_at,${pin})`, 'orders_updated'],
    [`sort=created_at&filter=gt(id,${id})`, 'orders_created'],
    [`sort=created_at&filter=eq(created_at,${pin}):gt(id,${id})`, 'orders_created'],
  ] as const) {
    it(raw, () => {
      const query = parseListQuery(
        Object.fromEntries(new URLSearchParams(raw)),
        standardListSpec(),
        25,
      );
      const sql = buildListSql('orders', '*', { store_id: 's' }, query);
      const plan = (
        db.prepare(`EXPLAIN QUERY PLAN ${sql.sql}`).all(...sql.params) as { detail: string }[]
      )
        .map((r) => r.detail)
        .join(' | ');
      expect(plan).toMatch(new RegExp(`SEARCH orders USING (COVERING )?INDEX ${index} `));
      expect(plan).not.toMatch(/TEMP B-TREE/);
    });
  }

  it('checks the other column inside the sort index: a covering read of ids', () => {
    // The indexes of migration 0310 carry both timestamps, so an id-only read of a page under
    // sort=id with the pin needs no table row at all.
    const query = parseListQuery(
      { sort: 'id', filter: `ge(updated_at,${pin}):le(created_at,${pin})` },
      standardListSpec(),
      25,
    );
    const sql = buildListSql('orders', 'id', { store_id: 's' }, query);
    const plan = (
      db.prepare(`EXPLAIN QUERY PLAN ${sql.sql}`).all(...sql.params) as { detail: string }[]
    )
      .map((r) => r.detail)
      .join(' | ');
    expect(plan).toMatch(/USING COVERING INDEX orders_id /);
  });
});
