/**
 * The demo catalog of the seed (seed/catalog.ts), as a storefront sees it over HTTP: two
 * hierarchies, 50+ nodes three levels deep, 2,000+ live products (parents with built children,
 * drafts kept out), USD and EUR prices with sales, stock, the Storefront catalog by default and
 * the Mobile one for `EP-Channel: mobile`; deterministic ids; the bench's bulk node.
 */

import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReleaseRow } from '../../src/commerce-service/catalogs/records.ts';
import {
  presentProducts,
  type ReleaseProductRow,
} from '../../src/commerce-service/catalogs/views.ts';
import { type Db, openDatabase } from '../../src/commerce-service/db.ts';
import { seedCatalog, wipeCatalog } from '../../src/commerce-service/seed/catalog.ts';
import { parseSeedArgs, UsageError } from '../../src/commerce-service/seed/cli.ts';
import { ensureStores } from '../../src/commerce-service/stores.ts';
import { type SeededService, startSeededService } from './seeded-service.ts';

let seeded: SeededService;
let shopper: string;
beforeAll(async () => {
  seeded = await startSeededService(0);
  shopper = await seeded.token('alpha', 'implicit');
});
afterAll(() => seeded?.close());

const get = (path: string, headers: Record<string, string> = {}) =>
  seeded.call('GET', path, { token: shopper, headers });

describe('the seeded catalog', () => {
  it('serves the Storefront catalog by default and Mobile to the mobile channel', async () => {
    const storefront = await get('/catalog');
    expect(storefront.status).toBe(200);
    expect(storefront.body.data.attributes.name).toBe('Storefront');
    expect(storefront.body.data.meta.total_products).toBeGreaterThanOrEqual(2_000);
    const mobile = await get('/catalog', { 'EP-Channel': 'mobile' });
    expect(mobile.body.data.attributes.name).toBe('Mobile');
    const hierarchies = await get('/catalog/hierarchies');
    expect(
      hierarchies.body.data.map((h: { attributes: { name: string } }) => h.attributes.name),
    ).toEqual(['Departments', 'Brands']);
    const nodes = await get('/catalog/nodes?page[limit]=100');
    expect(nodes.body.meta.results.total).toBeGreaterThanOrEqual(50);
    const deepest = Math.max(
      ...nodes.body.data.map((n: { meta: { bread_crumb: string[] } }) => n.meta.bread_crumb.length),
    );
    // The hierarchy, then three levels of nodes.
    expect(deepest).toBe(4);
  });

  it('lists live products with prices in USD and EUR, sales, parents and children', async () => {
    const products = await get('/catalog/products?page[limit]=100');
    expect(products.body.meta.results.total).toBeGreaterThanOrEqual(2_000);
    const drafts = await get(`/catalog/products?filter=eq(sku,SKU-00097)`);
    expect(drafts.body.data).toEqual([]);
    const priced = products.body.data.filter(
      (p: { attributes: { price?: Record<string, unknown> } }) =>
        p.attributes.price?.USD !== undefined && p.attributes.price?.EUR !== undefined,
    );
    expect(priced.length).toBeGreaterThan(90);
    const all = await get('/catalog/products?page[limit]=100&page[offset]=0', {
      'X-Moltin-Currency': 'EUR',
    });
    expect(all.body.data[0].meta.display_price.without_tax.currency).toBe('EUR');
    let onSale = 0;
    for (let offset = 0; offset < 1_000; offset += 100) {
      const page = await get(`/catalog/products?page[limit]=100&page[offset]=${offset}`);
      onSale += page.body.data.filter((p: { meta: { sale_id?: string } }) => p.meta.sale_id).length;
    }
    expect(onSale).toBeGreaterThan(20);
    const parents = await get('/catalog/products?filter=eq(product_types,parent)');
    expect(parents.body.meta.results.total).toBe(20);
    const children = await get(
      `/catalog/products/${parents.body.data[0].id}/relationships/children`,
    );
    expect(children.body.data).toHaveLength(6);
    const stock = await seeded.call('GET', '/v2/inventories?page[limit]=1');
    expect(stock.body.meta.results.total).toBeGreaterThan(300);
  });
});

describe('the catalog seed', () => {
  it('is deterministic, and puts a bulk node’s products in the release on request', () => {
    const run = (bulk: number) => {
      const db = openDatabase(':memory:');
      const [store = ''] = ensureStores(
        db,
        [{ id: 'alpha', secret: 'a' }],
        '2025-01-01T00:00:00.000Z',
      );
      db.transaction(() => seedCatalog(db, store, { products: 200, bulkNodeProducts: bulk }))();
      const rows = {
        products: db.prepare('SELECT id, sku, created_at FROM pcm_products ORDER BY id').all(),
        prices: db.prepare('SELECT id, sku, currencies, sales FROM prices ORDER BY id').all(),
        releases: db.prepare('SELECT id, total_products FROM catalog_releases ORDER BY id').all(),
      };
      return { db, store, rows };
    };
    const a = run(0);
    const b = run(0);
    expect(a.rows).toEqual(b.rows);
    const bulk = run(300);
    const node = bulk.db
      .prepare(
        `SELECT count(*) FROM release_node_products np JOIN release_nodes n
           ON n.release_id = np.release_id AND n.id = np.node_id WHERE n.name = 'Bulk'`,
      )
      .pluck()
      .get();
    // In both releases (Storefront and Mobile).
    expect(node).toBe(600);
    wipeCatalog(bulk.db, bulk.store);
    expect(bulk.db.prepare('SELECT count(*) FROM pcm_products').pluck().get()).toBe(0);
    expect(bulk.db.prepare('SELECT count(*) FROM catalogs').pluck().get()).toBe(0);
    for (const { db } of [a, b, bulk]) db.close();
  });
});

describe('npm run seed catalog flags', () => {
  it('takes --products and --bulk-node-products, whole numbers only', () => {
    expect(parseSeedArgs(['--bulk-node-products', '20_000', '--products', '500'])).toMatchObject({
      bulkNodeProducts: 20_000,
      products: 500,
    });
    expect(() => parseSeedArgs(['--bulk-node-products', '-1'])).toThrow(UsageError);
    expect(() => parseSeedArgs(['--products', 'many'])).toThrow(UsageError);
  });
});

describe('pricing a page of products', () => {
  it('reads the prices of 100 products with one statement, whatever the page size', () => {
    const db = openDatabase(':memory:');
    const [store = ''] = ensureStores(
      db,
      [{ id: 'alpha', secret: 'a' }],
      '2025-01-01T00:00:00.000Z',
    );
    db.transaction(() => seedCatalog(db, store, { products: 300 }))();
    const release = db
      .prepare("SELECT * FROM catalog_releases WHERE name = 'Storefront'")
      .get() as ReleaseRow;
    const rows = db
      .prepare('SELECT * FROM release_products WHERE release_id = ? ORDER BY position LIMIT 100')
      .all(release.id) as ReleaseProductRow[];
    expect(rows).toHaveLength(100);
    // Every statement run through a counting database.
    let runs = 0;
    const counting = new Proxy(db, {
      get(target, key) {
        if (key !== 'prepare') return Reflect.get(target, key);
        return (sql: string) => {
          const statement = target.prepare(sql);
          return new Proxy(statement, {
            get(inner, name) {
              const value = Reflect.get(inner, name);
              if (name === 'all' || name === 'get' || name === 'iterate') {
                return (...args: unknown[]) => {
                  runs++;
                  return (value as (...a: unknown[]) => unknown).apply(inner, args);
                };
              }
              return typeof value === 'function' ? value.bind(inner) : value;
            },
          });
        };
      },
    }) as Db;
    const request = { headers: {}, query: {} } as unknown as FastifyRequest;
    const page = presentProducts(counting, request, release, rows, Date.parse('2025-01-01'));
    expect(page.data).toHaveLength(100);
    expect(page.data.filter((p) => 'display_price' in p.meta).length).toBeGreaterThan(90);
    expect(runs).toBe(1);
    db.close();
  });
});
