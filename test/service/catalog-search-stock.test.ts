/**
 * Stock in Catalog Search whoever writes it: a search keeps its live stock column and catches
 * it up from the store's log of stock changes (migration 0915), or rebuilds it when more changes
 * happened than the log keeps. Stock written straight into the database (as a seed or a second
 * process writes it) is seen as stock written through /v2/inventories is.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../../src/commerce-service/db.ts';
import { buildSearchFixture, MUGS, type SearchFixture } from './search-fixtures.ts';
import { type ServiceUnderTest, startService } from './service-helpers.ts';

let dir: string;
let service: ServiceUnderTest;
let db: Db;
let fx: SearchFixture;
let implicit: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'service-search-stock-'));
  const dbPath = join(dir, 'commerce.sqlite');
  service = await startService({ dbPath });
  db = openDatabase(dbPath);
  fx = await buildSearchFixture(service, () => {});
  implicit = await service.token('alpha', 'implicit');
});
afterAll(async () => {
  db?.close();
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function inStockMugs(): Promise<{ found: number; counts: unknown }> {
  const qs = new URLSearchParams({
    q: 'mug',
    filter_by: 'meta.stock.in_stock:=true',
    facet_by: 'meta.stock.in_stock',
  });
  const result = await service.call('GET', `/catalog/search?${qs}`, { token: implicit });
  expect(result.status).toBe(200);
  return { found: result.body.found, counts: result.body.facet_counts[0].counts };
}

const storeOf = () =>
  db.prepare('SELECT store_id FROM pcm_products WHERE id = ?').pluck().get(fx.mugs[0]) as string;

describe('live stock in search, whoever writes it', () => {
  it('catches up a few changes, and rebuilds after more than the log keeps', async () => {
    expect((await inStockMugs()).found).toBe(MUGS);
    const store = storeOf();
    const [first, second] = fx.mugs as [string, string];
    const insert = db.prepare(
      `INSERT INTO stock (store_id, product_id, stock_id, total, available, allocated,
         created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, 'x', 'x')`,
    );
    const set = db.prepare(
      'UPDATE stock SET total = ?, available = ? WHERE store_id = ? AND product_id = ?',
    );
    // A few changes: caught up from the log.
    insert.run(store, first, 'stock-1', 0, 0);
    insert.run(store, second, 'stock-2', 4, 4);
    expect(await inStockMugs()).toEqual({
      found: MUGS - 1,
      counts: [{ value: 'true', count: MUGS - 1, highlighted: 'true' }],
    });
    // 1,201 changes, more than the 1,000 the log keeps: the column is rebuilt.
    db.transaction(() => {
      for (let i = 0; i < 1200; i++) set.run(i % 2, i % 2, store, second);
      set.run(7, 7, store, first);
    })();
    const kept = db
      .prepare('SELECT count(*) FROM stock_changes WHERE store_id = ?')
      .pluck()
      .get(store) as number;
    expect(kept).toBe(1000);
    // The second ends at 1 (in stock), the first at 7.
    expect((await inStockMugs()).found).toBe(MUGS);
    set.run(0, 0, store, second);
    expect((await inStockMugs()).found).toBe(MUGS - 1);
    db.prepare('DELETE FROM stock WHERE store_id = ? AND product_id = ?').run(store, second);
    expect((await inStockMugs()).found).toBe(MUGS);
  });
});
