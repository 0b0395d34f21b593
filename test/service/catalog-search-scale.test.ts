/**
 * Catalog Search past 10,000 hits, on the demo seed with 10,200 more products in one "Bulk"
 * node (both demo catalogs are search-enabled): facet counts cover every hit (each agrees with
 * a search filtered on that value), and a price sort is right across result 10,000 (the
 * deepest page a search may start at): what comes before the boundary costs at least what
 * comes after, as counted by price filters.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/commerce-service/db.ts';
import { storeIdForClient } from '../../src/commerce-service/ids.ts';
import { seedDemoStore } from '../../src/commerce-service/seed/index.ts';
import { ensureStores } from '../../src/commerce-service/stores.ts';
import { DEFAULT_TEST_CLIENTS, type ServiceUnderTest, startService } from './service-helpers.ts';

const BULK = 10_200;
let dir: string;
let service: ServiceUnderTest;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'commerce-search-scale-'));
  const dbPath = join(dir, 'commerce.db');
  const db = openDatabase(dbPath);
  try {
    ensureStores(db, DEFAULT_TEST_CLIENTS, '2025-01-01T00:00:00.000Z');
    const storeId = storeIdForClient(DEFAULT_TEST_CLIENTS[0]?.id ?? '');
    seedDemoStore(db, storeId, { orders: 0, products: 100, bulkNodeProducts: BULK });
  } finally {
    db.close();
  }
  service = await startService({ dbPath });
}, 120_000);
afterAll(async () => {
  await service?.close();
  await rm(dir, { recursive: true, force: true });
});

async function search(query: Record<string, string | number>) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  const result = await service.call('GET', `/catalog/search?${qs}`);
  expect(result.status, JSON.stringify(result.body).slice(0, 300)).toBe(200);
  return result.body;
}

const BULK_ONLY = 'meta.search.nodes.name:=Bulk';

describe('past 10,000 hits', () => {
  it('counts every hit in each facet, as filtering on the value counts it', async () => {
    const result = await search({
      filter_by: BULK_ONLY,
      facet_by: 'meta.search.nodes.name,attributes.tags,attributes.commodity_type',
      max_facet_values: 10,
      per_page: 1,
    });
    expect(result.found).toBe(BULK);
    const [nodes, tags, types] = result.facet_counts;
    expect(nodes.counts).toEqual([{ value: 'Bulk', count: BULK, highlighted: 'Bulk' }]);
    expect(types.counts.reduce((sum: number, c: any) => sum + c.count, 0)).toBe(BULK);
    expect(tags.counts.length).toBeGreaterThan(1);
    for (const { value, count } of [...tags.counts, ...types.counts]) {
      const field = tags.counts.some((c: any) => c.value === value)
        ? 'attributes.tags'
        : 'attributes.commodity_type';
      const filtered = await search({
        filter_by: `${BULK_ONLY} && ${field}:=\`${value}\``,
        per_page: 0,
      });
      expect(filtered.found, `${field} ${value}`).toBe(count);
    }
    // A text query over all of them agrees too.
    expect((await search({ q: 'bulk', per_page: 0 })).found).toBe(BULK);
  });

  it('sorts by price correctly across result 10,000', async () => {
    const page = (n: number) =>
      search({ filter_by: BULK_ONLY, sort_by: 'price.USD.amount:desc', per_page: 100, page: n });
    const before = await page(100);
    const after = await page(101);
    const amounts = (body: any): number[] =>
      body.hits.map((h: any) => h.document.meta.display_price.without_tax.amount);
    const tail = amounts(before);
    const head = amounts(after);
    expect(tail).toHaveLength(100);
    expect(head).toHaveLength(100);
    const all = [...tail, ...head];
    expect(all).toEqual([...all].sort((a, b) => b - a));
    // Result 10,001 (the first of page 101) costs `boundary`: exactly the products dearer than
    // it come before it, and it is among those at least as dear.
    const boundary = head[0] as number;
    const dearer = await search({
      filter_by: `${BULK_ONLY} && price.USD.amount:>${boundary}`,
      per_page: 0,
    });
    const asDear = await search({
      filter_by: `${BULK_ONLY} && price.USD.amount:>=${boundary}`,
      per_page: 0,
    });
    expect(dearer.found).toBeLessThanOrEqual(10_000);
    expect(asDear.found).toBeGreaterThanOrEqual(10_001);
    // Page 102 would start past result 10,000.
    const refused = await service.call(
      'GET',
      `/catalog/search?filter_by=${encodeURIComponent(BULK_ONLY)}&per_page=100&page=102`,
    );
    expect(refused.status).toBe(400);
  });
});
