/**
 * The shopper catalog over HTTP (`/catalog…` and `/catalogs/{c}/releases/{r}/…`): the tree of
 * the release (hierarchies, nodes, children, breadcrumbs), only live products, products by
 * node and by hierarchy, a parent's children (422 for any other product), prices in the
 * requested currency with sale "was" prices, includes from /v2/files, the §7 filters and their
 * 400s, a release being a snapshot, and pages past the soft 10,000 offset limit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildCatalogFixture,
  type CatalogFixture,
  createCatalog,
  publish,
} from './catalog-fixtures.ts';
import { errorOf, type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
let fx: CatalogFixture;
let catalog: string;
let release: string;
let fileId: string;
let shopper: string;

beforeAll(async () => {
  service = await startService();
  fx = await buildCatalogFixture(service);
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' }), 'shirt.png');
  const upload = await fetch(`${service.url}/v2/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await service.token()}` },
    body: form,
  });
  fileId = ((await upload.json()) as { data: { id: string } }).data.id;
  const image = await service.call('POST', `/pcm/products/${fx.shirt}/relationships/main_image`, {
    json: { data: { type: 'file', id: fileId } },
  });
  expect(image.status).toBeLessThan(300);
  catalog = await createCatalog(service, 'Shop', {
    hierarchy_ids: [fx.apparel, fx.brands],
    pricebook_id: fx.book,
  });
  release = (await publish(service, catalog)).id;
  shopper = await service.token('alpha', 'implicit');
});
afterAll(() => service?.close());

const get = (path: string, headers: Record<string, string> = {}) =>
  service.call('GET', path, { token: shopper, headers });
const ids = (body: { data: { id: string }[] }) => body.data.map((item) => item.id);

describe('the catalog tree', () => {
  it('serves hierarchies, nodes, children and breadcrumbs of the resolved release', async () => {
    const root = await get('/catalog');
    expect(root.body.data).toMatchObject({ id: release, attributes: { catalog_id: catalog } });
    expect(ids((await get('/catalog/hierarchies')).body)).toEqual([fx.apparel, fx.brands]);
    const apparel = await get(`/catalog/hierarchies/${fx.apparel}`);
    expect(apparel.body.data).toMatchObject({ type: 'hierarchy', attributes: { name: 'Apparel' } });
    const nodes = await get(`/catalog/hierarchies/${fx.apparel}/nodes`);
    expect(new Set(ids(nodes.body))).toEqual(new Set([fx.tops, fx.shirts, fx.bottoms]));
    expect(nodes.body.meta.results.total).toBe(3);
    expect(new Set(ids((await get(`/catalog/hierarchies/${fx.apparel}/children`)).body))).toEqual(
      new Set([fx.tops, fx.bottoms]),
    );
    expect(ids((await get(`/catalog/nodes/${fx.tops}/relationships/children`)).body)).toEqual([
      fx.shirts,
    ]);
    const shirts = await get(`/catalog/nodes/${fx.shirts}`);
    expect(shirts.body.data).toMatchObject({
      attributes: { name: 'Shirts', slug: 'shirts' },
      relationships: { parent: { data: { id: fx.tops } } },
      meta: { bread_crumb: [fx.apparel, fx.tops, fx.shirts] },
    });
    expect((await get('/catalog/nodes')).body.meta.results.total).toBe(4);
    expect((await get(`/catalog/nodes/${fx.draft}`)).status).toBe(404);
  });

  it('lists only live products, by node and by hierarchy, and a parent’s children', async () => {
    const all = await get('/catalog/products');
    expect(new Set(ids(all.body))).toEqual(
      new Set([fx.shirt, fx.pants, fx.parent, ...fx.children]),
    );
    expect((await get(`/catalog/products/${fx.draft}`)).status).toBe(404);
    expect(ids((await get(`/catalog/nodes/${fx.shirts}/relationships/products`)).body)).toEqual([
      fx.shirt,
    ]);
    for (const path of ['products', 'relationships/products']) {
      const byHierarchy = await get(`/catalog/hierarchies/${fx.brands}/${path}`);
      expect(ids(byHierarchy.body)).toEqual([fx.shirt]);
    }
    const byApparel = await get(`/catalog/hierarchies/${fx.apparel}/products`);
    expect(new Set(ids(byApparel.body))).toEqual(new Set([fx.shirt, fx.pants, fx.parent]));
    const shirt = await get(`/catalog/products/${fx.shirt}`);
    expect(shirt.body.data.meta).toMatchObject({
      catalog_id: catalog,
      bread_crumbs: { [fx.shirts]: [fx.tops, fx.shirts], [fx.acme]: [fx.acme] },
    });
    expect(new Set(shirt.body.data.meta.bread_crumb_nodes)).toEqual(new Set([fx.shirts, fx.acme]));
    const children = await get(`/catalog/products/${fx.parent}/relationships/children`);
    expect(new Set(ids(children.body))).toEqual(new Set(fx.children));
    expect(children.body.data[0].attributes.base_product_id).toBe(fx.parent);
    const notParent = await get(`/catalog/products/${fx.shirt}/relationships/children`);
    expect(notParent.status).toBe(422);
  });
});

describe('prices', () => {
  it('shows attributes.price per currency and display_price in one currency, with the sale’s was price', async () => {
    const usd = (await get(`/catalog/products/${fx.shirt}`)).body.data;
    expect(usd.attributes.price).toEqual({
      USD: { amount: 4000, includes_tax: false },
      EUR: { amount: 4500, includes_tax: false },
    });
    expect(usd.meta.display_price).toEqual({
      with_tax: { amount: 4000, currency: 'USD', formatted: '$40.00', float_price: 40 },
      without_tax: { amount: 4000, currency: 'USD', formatted: '$40.00', float_price: 40 },
    });
    expect(usd.meta.original_display_price.without_tax.formatted).toBe('$50.00');
    expect(usd.meta.sale_id).toBe('spring');
    const eur = (await get(`/catalog/products/${fx.shirt}`, { 'X-Moltin-Currency': 'eur' })).body
      .data;
    expect(eur.meta.display_price.without_tax).toMatchObject({ amount: 4500, currency: 'EUR' });
    expect(eur.meta.original_display_price).toBeUndefined();
    // The pants have no EUR price: no display price in EUR, the USD one still in attributes.
    const pants = (await get(`/catalog/products/${fx.pants}`, { 'X-Moltin-Currency': 'EUR' })).body
      .data;
    expect(pants.meta.display_price).toBeUndefined();
    expect(pants.attributes.price).toEqual({ USD: { amount: 7000, includes_tax: false } });
    const bad = await get('/catalog/products', { 'X-Moltin-Currency': 'dollars' });
    expect(bad.status).toBe(400);
  });

  it('includes the main image and files from /v2/files', async () => {
    const page = await get(`/catalog/products?filter=eq(sku,SHIRT-1)&include=main_image,files`);
    expect(page.body.included.main_images.map((f: { id: string }) => f.id)).toEqual([fileId]);
    expect(page.body.included.files).toEqual([]);
    // The official SDK repeats the parameter (`include=a&include=b`): the same answer.
    const repeated = await get(
      `/catalog/products?filter=eq(sku,SHIRT-1)&include=main_image&include=files`,
    );
    expect(repeated.status).toBe(200);
    expect(repeated.body.included).toEqual(page.body.included);
    const bad = await get('/catalog/products?include=reviews');
    expect([bad.status, errorOf(bad).source]).toEqual([400, 'include']);
  });
});

describe('filters', () => {
  it('filters products and nodes with eq and in, and refuses the rest with a 400', async () => {
    const q = (path: string, filter: string) => get(`${path}?filter=${encodeURIComponent(filter)}`);
    expect(ids((await q('/catalog/products', 'eq(sku,SHIRT-1)')).body)).toEqual([fx.shirt]);
    expect(ids((await q('/catalog/products', 'eq(tags,cotton)')).body)).toEqual([fx.shirt]);
    expect(ids((await q('/catalog/products', 'eq(manufacturer_part_num,MPN-1)')).body)).toEqual([
      fx.shirt,
    ]);
    expect(new Set(ids((await q('/catalog/products', 'eq(product_types,child)')).body))).toEqual(
      new Set(fx.children),
    );
    expect(
      new Set(ids((await q('/catalog/products', `in(id,${fx.shirt},${fx.pants})`)).body)),
    ).toEqual(new Set([fx.shirt, fx.pants]));
    expect(ids((await q('/catalog/nodes', 'eq(slug,shirts)')).body)).toEqual([fx.shirts]);
    expect(ids((await q('/catalog/hierarchies', 'eq(name,Brands)')).body)).toEqual([fx.brands]);
    expect(ids((await q('/catalog/nodes', `in(id,${fx.acme})`)).body)).toEqual([fx.acme]);
    for (const [path, filter] of [
      ['/catalog/products', 'like(name,Ox*)'],
      ['/catalog/products', 'eq(status,draft)'],
      ['/catalog/products', 'gt(created_at,2020-01-01)'],
      ['/catalog/nodes', 'in(name,Shirts)'],
      ['/catalog/hierarchies', 'eq(description,x)'],
      ['/catalog/products', 'eq(sku'],
    ] as const) {
      const result = await q(path, filter);
      expect([path, filter, result.status]).toEqual([path, filter, 400]);
    }
    const big = await get('/catalog/products?page[limit]=101');
    expect(big.status).toBe(400);
  });
});

describe('releases', () => {
  it('is a snapshot: later product and price changes show only after a new publish', async () => {
    const renamed = await service.call('PUT', `/pcm/products/${fx.pants}`, {
      json: { data: { type: 'product', id: fx.pants, attributes: { name: 'Cargo Pants' } } },
    });
    expect(renamed.status).toBe(200);
    const drafted = await service.call('PUT', `/pcm/products/${fx.shirt}`, {
      json: { data: { type: 'product', id: fx.shirt, attributes: { status: 'draft' } } },
    });
    expect(drafted.status).toBe(200);
    const before = await get(`/catalog/products/${fx.pants}`);
    expect(before.body.data.attributes.name).toBe('Chino Pants');
    expect((await get(`/catalog/products/${fx.shirt}`)).status).toBe(200);
    // The release form reads a named release with the store's token, not a shopper's.
    const path = `/catalogs/${catalog}/releases/${release}/products/${fx.pants}`;
    expect((await service.call('GET', path)).body.data.attributes.name).toBe('Chino Pants');
    expect((await get(path)).status).toBe(403);
    const next = (await publish(service, catalog)).id;
    expect((await get(`/catalog/products/${fx.pants}`)).body.data.attributes.name).toBe(
      'Cargo Pants',
    );
    expect((await get(`/catalog/products/${fx.shirt}`)).status).toBe(404);
    const latest = await service.call(
      'GET',
      `/pcm/catalogs/${catalog}/releases/latestPublished/products`,
    );
    expect(
      latest.body.data.map((p: { meta: { release_id: string } }) => p.meta.release_id),
    ).toContain(next);
  });
});

describe('deep pages', () => {
  let dir: string;
  let deep: ServiceUnderTest;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'shopper-catalog-'));
    deep = await startService({ dbPath: join(dir, 'db.sqlite') });
  });
  afterAll(async () => {
    await deep?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a product page past the soft 10,000 offset limit', async () => {
    const h = (
      await deep.call('POST', '/pcm/hierarchies', {
        json: { data: { type: 'hierarchy', attributes: { name: 'Big' } } },
      })
    ).body.data.id;
    const c = await createCatalog(deep, 'Big', { hierarchy_ids: [h] });
    const r = (await publish(deep, c)).id;
    const db = new DatabaseSync(join(dir, 'db.sqlite'));
    const store = db.prepare('SELECT store_id FROM catalog_releases WHERE id = ?').get(r) as {
      store_id: string;
    };
    const insert = db.prepare(
      `INSERT INTO release_products (release_id, store_id, id, position, name, commodity_type,
         sku, tags, extra, product_type, price_modifiers, files, bread_crumbs, created_at,
         updated_at)
       VALUES (?, ?, ?, ?, ?, 'physical', ?, '[]', '{}', 'standard', '[]', '[]', '{}',
         '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
    );
    db.exec('BEGIN');
    for (let i = 0; i < 10_050; i++) {
      const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      insert.run(r, store.store_id, id, i, `P${i}`, `SKU-${i}`);
    }
    db.exec('COMMIT');
    db.close();
    const page = await deep.call('GET', '/catalog/products?page[offset]=10020&page[limit]=100');
    expect(page.status).toBe(200);
    expect(page.body.data.map((p: { attributes: { name: string } }) => p.attributes.name)).toEqual(
      Array.from({ length: 30 }, (_, i) => `P${10_020 + i}`),
    );
    expect(page.body.meta.results.total).toBe(10_050);
  });
});
