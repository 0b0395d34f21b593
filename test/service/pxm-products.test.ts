/**
 * PXM products over HTTP (`/pcm/products`): writes and their validation errors (JSON:API
 * errors naming the field; nothing written after a refusal), the list's filters and paging
 * (the soft 10,000 offset limit is served), variations with options and modifiers, the build
 * of child products as a finished job, and the token scope (client_credentials only).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/commerce-service/db.ts';
import { storeIdForClient } from '../../src/commerce-service/ids.ts';
import { errorOf, type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pxm-products-'));
  service = await startService({ dbPath: join(dir, 'service.db') });
});
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

const product = (attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  json: {
    data: { type: 'product', attributes: { commodity_type: 'physical', ...attributes }, ...extra },
  },
});

async function create(attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const result = await service.call('POST', '/pcm/products', product(attributes, extra));
  if (result.status !== 201) throw new Error(`create product: ${JSON.stringify(result.body)}`);
  return result.body.data;
}

async function total(filter = ''): Promise<number> {
  const query = filter === '' ? '' : `?filter=${encodeURIComponent(filter)}`;
  return (await service.call('GET', `/pcm/products${query}`)).body.meta.results.total;
}

describe('PXM products', () => {
  it('creates, reads, updates and deletes a product in the production shape', async () => {
    const created = await service.call(
      'POST',
      '/pcm/products',
      product({
        name: 'Mug',
        sku: 'MUG-1',
        slug: 'mug.blue_1',
        description: 'A mug.',
        tags: ['kitchen', 'sale'],
        external_ref: 'ext-1',
        locales: { 'fr-FR': { name: 'Tasse' } },
      }),
    );
    expect(created.status).toBe(201);
    const mug = created.body.data;
    expect(mug).toMatchObject({
      type: 'product',
      attributes: {
        name: 'Mug',
        commodity_type: 'physical',
        status: 'draft',
        sku: 'MUG-1',
        slug: 'mug.blue_1',
        tags: ['kitchen', 'sale'],
        locales: { 'fr-FR': { name: 'Tasse' } },
      },
      relationships: { main_image: { data: null }, variations: { data: [] } },
      meta: { owner: 'store', product_types: ['standard'] },
    });
    expect(mug.meta.created_at).toBe(mug.meta.updated_at);
    expect((await service.call('GET', `/pcm/products/${mug.id}`)).body.data).toEqual(mug);

    const put = await service.call('PUT', `/pcm/products/${mug.id}`, {
      json: {
        data: { type: 'product', id: mug.id, attributes: { status: 'live', description: null } },
      },
    });
    expect(put.status).toBe(200);
    expect(put.body.data.attributes).toMatchObject({ name: 'Mug', status: 'live', sku: 'MUG-1' });
    expect(put.body.data.attributes.description).toBeUndefined();
    expect(put.body.data.meta.updated_at > mug.meta.updated_at).toBe(true);

    expect((await service.call('DELETE', `/pcm/products/${mug.id}`)).status).toBe(204);
    expect((await service.call('GET', `/pcm/products/${mug.id}`)).status).toBe(404);
    expect((await service.call('GET', '/pcm/products/not-an-id')).status).toBe(404);
  });

  it('refuses bad attributes with a 400 naming the field, and writes nothing', async () => {
    const before = await total();
    const cases: [Record<string, unknown>, string][] = [
      [{ name: undefined }, 'data.attributes.name'],
      [{ name: 'x', commodity_type: 'solid' }, 'data.attributes.commodity_type'],
      [{ name: 'x', slug: 'has space' }, 'data.attributes.slug'],
      [{ name: 'x', status: 'published' }, 'data.attributes.status'],
      [{ name: 'x', tags: ['has space'] }, 'data.attributes.tags[0]'],
      [{ name: 'x', tags: ['a,b'] }, 'data.attributes.tags[0]'],
      [{ name: 'x', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'data.attributes.tags'],
      [{ name: 'x', tags: ['x'.repeat(256)] }, 'data.attributes.tags[0]'],
      [{ name: 'x', external_ref: 'r'.repeat(2049) }, 'data.attributes.external_ref'],
      [{ name: 'x', colour: 'red' }, 'data.attributes.colour'],
      [{ name: 'x', locales: { 'not a locale': {} } }, 'data.attributes.locales.not a locale'],
      [{ name: 'x', build_rules: { include: [] } }, 'data.attributes.build_rules.default'],
    ];
    for (const [attributes, source] of cases) {
      const result = await service.call('POST', '/pcm/products', product(attributes));
      expect(result.status, source).toBe(400);
      expect(errorOf(result).source).toBe(source);
    }
    const noAttributes = await service.call('POST', '/pcm/products', {
      json: { data: { type: 'product' } },
    });
    expect(errorOf(noAttributes).source).toBe('data.attributes');
    const wrongType = await service.call('POST', '/pcm/products', {
      json: { data: { type: 'hierarchy', attributes: { name: 'x', commodity_type: 'digital' } } },
    });
    expect(errorOf(wrongType).source).toBe('data.type');
    // A main image that is not one of the store's files: 422, and no product.
    const image = await service.call(
      'POST',
      '/pcm/products',
      product(
        { name: 'Pictured' },
        { relationships: { main_image: { data: { type: 'file', id: crypto.randomUUID() } } } },
      ),
    );
    expect(image.status).toBe(422);
    expect(errorOf(image).source).toBe('data.relationships.main_image.data.id');
    expect(await total()).toBe(before);
  });

  it('keeps SKUs unique in the store (409), and PUT needs the path id in data.id', async () => {
    const first = await create({ name: 'Plate', sku: 'PLATE' });
    const twice = await service.call(
      'POST',
      '/pcm/products',
      product({ name: 'Other', sku: 'PLATE' }),
    );
    expect(twice.status).toBe(409);
    expect(errorOf(twice).source).toBe('data.attributes.sku');
    const other = await create({ name: 'Bowl', sku: 'BOWL' });
    const steal = await service.call('PUT', `/pcm/products/${other.id}`, {
      json: { data: { type: 'product', id: other.id, attributes: { sku: 'PLATE' } } },
    });
    expect(steal.status).toBe(409);
    expect((await service.call('GET', `/pcm/products/${other.id}`)).body.data.attributes.sku).toBe(
      'BOWL',
    );
    const noId = await service.call('PUT', `/pcm/products/${first.id}`, {
      json: { data: { type: 'product', attributes: { name: 'Dish' } } },
    });
    expect(noId.status).toBe(400);
    expect(errorOf(noId).source).toBe('data.id');
    const wrongId = await service.call('PUT', `/pcm/products/${first.id}`, {
      json: { data: { type: 'product', id: other.id, attributes: { name: 'Dish' } } },
    });
    expect(wrongId.status).toBe(409);
    expect((await service.call('GET', `/pcm/products/${first.id}`)).body.data.attributes.name).toBe(
      'Plate',
    );
    // Another store never sees it.
    const beta = await service.token('beta');
    expect((await service.call('GET', `/pcm/products/${first.id}`, { token: beta })).status).toBe(
      404,
    );
  });

  it('filters the list as production documents, and refuses a bad filter or page', async () => {
    const a = await create({
      name: 'Filter Alpha',
      sku: 'F-ALPHA',
      slug: 'f-alpha',
      tags: ['red'],
    });
    const b = await create({
      name: 'Filter Beta',
      sku: 'F-BETA',
      commodity_type: 'digital',
      status: 'live',
    });
    const ids = async (filter: string) =>
      (
        await service.call('GET', `/pcm/products?filter=${encodeURIComponent(filter)}`)
      ).body.data.map((p: { id: string }) => p.id);
    expect(await ids('eq(sku,F-ALPHA)')).toEqual([a.id]);
    expect(await ids('like(name,filter*)')).toEqual([b.id, a.id]);
    expect(await ids(`in(id,${a.id},${b.id})`)).toEqual([b.id, a.id]);
    expect(await ids('eq(tags,red):like(sku,F-*)')).toEqual([a.id]);
    expect(await ids('eq(commodity_type,digital):eq(status,live):like(sku,F-*)')).toEqual([b.id]);
    expect(await ids(`gt(created_at,${a.meta.created_at}):like(sku,F-*)`)).toEqual([b.id]);
    expect(await ids('eq(slug,f-alpha)')).toEqual([a.id]);
    expect(await ids('in(tags,blue,red):like(sku,F-*)')).toEqual([a.id]);
    expect(await ids('like(tags,RE*):like(sku,F-*)')).toEqual([a.id]);
    expect(await ids('in(product_types,standard,bundle):like(sku,F-*)')).toEqual([b.id, a.id]);
    for (const [query, source] of [
      ['filter=eq(colour,red)', 'filter'],
      ['filter=gt(sku,A)', 'filter'],
      ['filter=eq(created_at,yesterday)', 'filter'],
      ['page[limit]=101', 'page[limit]'],
      ['page[offset]=-1', 'page[offset]'],
    ]) {
      const result = await service.call('GET', `/pcm/products?${query}`);
      expect(result.status, query).toBe(400);
      expect(errorOf(result).source).toBe(source);
    }
  });

  it('serves offsets past 10,000 (the soft limit) with the list envelope', async () => {
    const storeId = storeIdForClient('alpha');
    const db = openDatabase(join(dir, 'service.db'));
    try {
      const insert = db.prepare(
        `INSERT INTO pcm_products (id, store_id, name, commodity_type, sku, status, created_at, updated_at)
         VALUES (?, ?, ?, 'physical', ?, 'live', ?, ?)`,
      );
      db.transaction(() => {
        for (let i = 0; i < 10_050; i++) {
          const at = new Date(Date.UTC(2020, 0, 1) + i * 1000).toISOString();
          insert.run(crypto.randomUUID(), storeId, `Bulk ${i}`, `BULK-${i}`, at, at);
        }
      })();
    } finally {
      db.close();
    }
    const page = await service.call(
      'GET',
      '/pcm/products?filter=like(sku,BULK-*)&page[limit]=100&page[offset]=10000',
    );
    expect(page.status).toBe(200);
    expect(page.body.data).toHaveLength(50);
    expect(page.body.meta.results.total).toBe(10_050);
    expect(page.body.meta.page).toEqual({ limit: 100, offset: 10_000, current: 101, total: 101 });
    // Default order -created_at: the oldest rows are the deepest.
    expect(page.body.data.at(-1).attributes.sku).toBe('BULK-0');
    expect(page.body.links.next).toBeNull();
    expect(page.body.links.prev).toContain('page[offset]=9900');
    const deeper = await service.call('GET', '/pcm/products?page[offset]=20000');
    expect(deeper.status).toBe(200);
    expect(deeper.body.data).toEqual([]);
    await service.call('GET', '/pcm/products'); // still answers
  });

  it('is the store’s: an implicit token gets 403 reading or writing, before the body is read', async () => {
    const implicit = await service.token('alpha', 'implicit');
    const read = await service.call('GET', '/pcm/products', { token: implicit });
    expect(read.status).toBe(403);
    expect(errorOf(read).detail).toMatch(/client_credentials/);
    const write = await service.call('POST', '/pcm/products', {
      token: implicit,
      raw: '{not json',
      contentType: 'application/json',
    });
    expect(write.status).toBe(403);
    expect((await service.call('GET', '/pcm/products', { token: null })).status).toBe(401);
  });
});
