/**
 * Catalogs, releases and rules over HTTP (`/catalogs`, `/pcm/catalogs`): bodies and their 400s
 * and 422s, releases as read-only snapshots of live products, nodes with breadcrumbs and
 * prices, only three kept, `latest`/`latestPublished`, delete refused while published or
 * referred to, and rule resolution (most attributes wins, ties to the first created, no rule:
 * the oldest published catalog, an unpublished catalog skipped).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildCatalogFixture,
  type CatalogFixture,
  createCatalog,
  post,
  publish,
} from './catalog-fixtures.ts';
import { errorOf, type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
let fx: CatalogFixture;
beforeAll(async () => {
  service = await startService();
  fx = await buildCatalogFixture(service);
});
afterAll(() => service?.close());

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('catalogs', () => {
  it('creates, reads, lists, updates a catalog under /catalogs and /pcm/catalogs', async () => {
    const created = await service.call('POST', '/catalogs', {
      json: {
        data: {
          type: 'catalog',
          attributes: {
            name: 'Main',
            hierarchy_ids: [fx.brands, fx.apparel],
            pricebook_ids: [{ id: fx.book, priority: 10 }],
          },
        },
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect(created.body.data).toMatchObject({
      type: 'catalog',
      attributes: {
        name: 'Main',
        hierarchy_ids: [fx.brands, fx.apparel],
        pricebook_ids: [{ id: fx.book, priority: 10 }],
        owner: 'store',
      },
      relationships: { releases: { meta: { count: 0 } } },
    });
    const alias = await service.call('GET', `/pcm/catalogs/${id}`);
    expect(alias.body.data.attributes.name).toBe('Main');
    const updated = await service.call('PUT', `/catalogs/${id}`, {
      json: { data: { type: 'catalog', id, attributes: { pricebook_id: fx.book } } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes.pricebook_id).toBe(fx.book);
    expect(updated.body.data.attributes.pricebook_ids).toBeUndefined();
    const listed = await service.call('GET', `/catalogs?filter=eq(name,Main)`);
    expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([id]);
    expect(listed.body.meta.results.total).toBe(1);
    expect((await service.call('DELETE', `/catalogs/${id}`)).status).toBe(204);
    expect((await service.call('GET', `/catalogs/${id}`)).status).toBe(404);
  });

  it('refuses bad bodies with the field named, and writes nothing', async () => {
    const cases: [Record<string, unknown>, number, string][] = [
      [{ hierarchy_ids: [fx.apparel] }, 400, 'data.attributes.name'],
      [{ name: 'X' }, 400, 'data.attributes.hierarchy_ids'],
      [{ name: 'X', hierarchy_ids: ['nope'] }, 400, 'data.attributes.hierarchy_ids[0]'],
      [{ name: 'X', hierarchy_ids: [UNKNOWN] }, 422, 'data.attributes.hierarchy_ids[0]'],
      [
        { name: 'X', hierarchy_ids: [fx.apparel], pricebook_ids: [{ id: UNKNOWN, priority: 1 }] },
        422,
        'data.attributes.pricebook_ids[0].id',
      ],
      [
        {
          name: 'X',
          hierarchy_ids: [fx.apparel],
          pricebook_ids: Array.from({ length: 6 }, () => ({ id: fx.book })),
        },
        400,
        'data.attributes.pricebook_ids',
      ],
      [
        {
          name: 'X',
          hierarchy_ids: [fx.apparel],
          pricebook_ids: [{ id: fx.book, priority: 'high' }],
        },
        400,
        'data.attributes.pricebook_ids[0].priority',
      ],
      [
        { name: 'X', hierarchy_ids: [fx.apparel], pricebook_id: fx.book, pricebook_ids: [] },
        400,
        'data.attributes.pricebook_ids',
      ],
      [{ name: 'X', hierarchy_ids: [fx.apparel], colour: 'red' }, 400, 'data.attributes.colour'],
    ];
    for (const [attributes, status, source] of cases) {
      const result = await service.call('POST', '/catalogs', {
        json: { data: { type: 'catalog', attributes } },
      });
      expect([result.status, errorOf(result).source]).toEqual([status, source]);
    }
    const listed = await service.call('GET', '/catalogs?filter=eq(name,X)');
    expect(listed.body.data).toEqual([]);
  });
});

describe('releases', () => {
  it('snapshots live products, nodes with breadcrumbs and prices; later changes do not alter it', async () => {
    const catalog = await createCatalog(service, 'Snapshot', {
      hierarchy_ids: [fx.apparel, fx.brands],
      pricebook_id: fx.book,
    });
    const release = await publish(service, catalog);
    expect(release.meta).toMatchObject({
      release_status: 'PUBLISHED',
      // shirt, pants, the parent and its two children; not the draft.
      total_products: 5,
      total_nodes: 4,
    });
    // The release's products are read from its own rows: change the live shirt afterwards.
    const changed = await service.call('PUT', `/pcm/products/${fx.shirt}`, {
      json: { data: { type: 'product', id: fx.shirt, attributes: { name: 'Renamed' } } },
    });
    expect(changed.status).toBe(200);
    const read = await service.call('GET', `/catalogs/${catalog}/releases/${release.id}`);
    expect(read.body.data).toMatchObject({
      type: 'catalog-release',
      attributes: {
        catalog_id: catalog,
        hierarchies: [
          { id: fx.apparel, name: 'Apparel' },
          { id: fx.brands, name: 'Brands' },
        ],
      },
    });
    for (const alias of ['latest', 'latestPublished']) {
      const latest = await service.call('GET', `/pcm/catalogs/${catalog}/releases/${alias}`);
      expect(latest.body.data.id).toBe(release.id);
    }
    const restored = await service.call('PUT', `/pcm/products/${fx.shirt}`, {
      json: { data: { type: 'product', id: fx.shirt, attributes: { name: 'Oxford Shirt' } } },
    });
    expect(restored.status).toBe(200);
  });

  it('keeps only the newest three releases, and a published catalog cannot be deleted', async () => {
    const catalog = await createCatalog(service, 'Many', { hierarchy_ids: [fx.apparel] });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await publish(service, catalog)).id);
    const listed = await service.call('GET', `/catalogs/${catalog}/releases`);
    expect(listed.body.data.map((r: { id: string }) => r.id)).toEqual(ids.slice(1));
    expect((await service.call('GET', `/catalogs/${catalog}/releases/${ids[0]}`)).status).toBe(404);
    const refused = await service.call('DELETE', `/catalogs/${catalog}`);
    expect(refused.status).toBe(409);
    expect((await service.call('DELETE', `/catalogs/${catalog}/releases/${ids[3]}`)).status).toBe(
      204,
    );
    const latest = await service.call('GET', `/catalogs/${catalog}/releases/latest`);
    expect(latest.body.data.id).toBe(ids[2]);
    expect((await service.call('DELETE', `/catalogs/${catalog}/releases`)).status).toBe(204);
    expect((await service.call('DELETE', `/catalogs/${catalog}`)).status).toBe(204);
  });
});

describe('catalog rules', () => {
  it('serves rules with their attributes, accepts from/to schedules and refuses bad bodies', async () => {
    const catalog = await createCatalog(service, 'Ruled', { hierarchy_ids: [fx.apparel] });
    const rule = await post(service, '/pcm/catalogs/rules', 'catalog_rule', {
      name: 'summer',
      catalog_id: catalog,
      channels: ['web'],
      tags: ['vip'],
      schedules: [{ from: '2026-06-01T00:00:00Z', to: '2026-09-01' }],
    });
    expect(rule).toMatchObject({
      type: 'catalog_rule',
      attributes: {
        name: 'summer',
        catalog_id: catalog,
        channels: ['web'],
        tags: ['vip'],
        customer_ids: [],
        schedules: [
          { valid_from: '2026-06-01T00:00:00.000Z', valid_to: '2026-09-01T00:00:00.000Z' },
        ],
      },
    });
    const listed = await service.call('GET', `/catalogs/rules?filter=eq(channels,web)`);
    expect(listed.body.data.map((r: { id: string }) => r.id)).toEqual([rule.id]);
    const refused = await service.call('DELETE', `/catalogs/${catalog}`);
    expect(refused.status).toBe(409);
    const cases: [Record<string, unknown>, number, string][] = [
      [{ catalog_id: catalog }, 400, 'data.attributes.name'],
      [{ name: 'has space', catalog_id: catalog }, 400, 'data.attributes.name'],
      [{ name: 'r' }, 400, 'data.attributes.catalog_id'],
      [{ name: 'r', catalog_id: UNKNOWN }, 422, 'data.attributes.catalog_id'],
      [{ name: 'r', catalog_id: catalog, channels: 'web' }, 400, 'data.attributes.channels'],
      [
        { name: 'r', catalog_id: catalog, schedules: [{ valid_from: 'soon' }] },
        400,
        'data.attributes.schedules[0].valid_from',
      ],
      [
        {
          name: 'r',
          catalog_id: catalog,
          schedules: [{ valid_from: '2026-02-01', valid_to: '2026-01-01' }],
        },
        400,
        'data.attributes.schedules[0].valid_to',
      ],
    ];
    for (const [attributes, status, source] of cases) {
      const result = await service.call('POST', '/catalogs/rules', {
        json: { data: { type: 'catalog_rule', attributes } },
      });
      expect([result.status, errorOf(result).source]).toEqual([status, source]);
    }
    const updated = await service.call('PUT', `/catalogs/rules/${rule.id}`, {
      json: { data: { type: 'catalog_rule', attributes: { channels: [] } } },
    });
    expect(updated.body.data.attributes.channels).toEqual([]);
    expect((await service.call('DELETE', `/catalogs/rules/${rule.id}`)).status).toBe(204);
    expect((await service.call('DELETE', `/catalogs/${catalog}`)).status).toBe(204);
  });

  it('resolves the rule matching the most attributes; ties to the first; no rule: the oldest published', async () => {
    // A store of its own (the second client), so other tests' catalogs do not interfere.
    const beta = await service.token('beta');
    const as = (method: string, path: string, json?: unknown) =>
      service.call(method, path, { token: beta, ...(json === undefined ? {} : { json }) });
    const h = (
      await as('POST', '/pcm/hierarchies', {
        data: { type: 'hierarchy', attributes: { name: 'H' } },
      })
    ).body.data.id;
    const catalog = async (name: string, published: boolean) => {
      const c = (
        await as('POST', '/catalogs', {
          data: { type: 'catalog', attributes: { name, hierarchy_ids: [h] } },
        })
      ).body.data.id as string;
      if (published) expect((await as('POST', `/catalogs/${c}/releases`)).status).toBe(201);
      return c;
    };
    const rule = async (name: string, catalogId: string, attributes: Record<string, unknown>) =>
      expect(
        (
          await as('POST', '/catalogs/rules', {
            data: {
              type: 'catalog_rule',
              attributes: { name, catalog_id: catalogId, ...attributes },
            },
          })
        ).status,
      ).toBe(201);
    const oldest = await catalog('oldest', true);
    const resolved = async (headers: Record<string, string> = {}) => {
      const result = await service.call('GET', '/catalog', { token: beta, headers });
      expect(result.status).toBe(200);
      return result.body.data.attributes.catalog_id as string;
    };
    // No rules: the oldest published catalog.
    expect(await resolved({ 'EP-Channel': 'mobile' })).toBe(oldest);
    const mobile = await catalog('mobile', true);
    const mobileVip = await catalog('mobile-vip', true);
    const unpublished = await catalog('unpublished', false);
    const tie = await catalog('tie', true);
    await rule('mobile', mobile, { channels: ['mobile'] });
    await rule('tie', tie, { channels: ['mobile'] });
    await rule('vip', mobileVip, { channels: ['mobile'], tags: ['vip'] });
    await rule('unpublished', unpublished, {
      channels: ['mobile'],
      tags: ['vip'],
      schedules: [{ valid_from: '2000-01-01' }],
    });
    await rule('expired', unpublished, { schedules: [{ valid_to: '2001-01-01' }] });
    expect(await resolved({ 'EP-Channel': 'mobile' })).toBe(mobile);
    expect(await resolved({ 'EP-Channel': 'mobile', 'EP-Context-Tag': 'sale, vip' })).toBe(
      mobileVip,
    );
    // A rule that does not hold (a tag without the channel) does not apply.
    expect(await resolved({ 'EP-Context-Tag': 'vip' })).toBe(oldest);
    expect(await resolved({ 'EP-Channel': 'web' })).toBe(oldest);
    // An implicit (shopper) token resolves the same way.
    const shopper = await service.token('beta', 'implicit');
    const asShopper = await service.call('GET', '/catalog', {
      token: shopper,
      headers: { 'EP-Channel': 'mobile' },
    });
    expect(asShopper.body.data.attributes.catalog_id).toBe(mobile);
    expect(tie).not.toBe(mobile);
  });
});
