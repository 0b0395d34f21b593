/**
 * Custom APIs and their entries (seed endpoint 1 and everything around it), over real HTTP.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CUSTOM_APIS,
  createCustomApi,
  errorOf,
  type ServiceUnderTest,
  startService,
} from './service-helpers.ts';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('Custom APIs', () => {
  let service: ServiceUnderTest;
  beforeAll(async () => {
    service = await startService();
  });
  afterAll(() => service.close());

  const create = (data: Record<string, unknown>) =>
    service.call('POST', CUSTOM_APIS, {
      json: { data: { type: 'custom_api', name: 'N', slug: 's', api_type: 's_ext', ...data } },
    });

  it('creates one with allow_upserts false by default, and reads it back', async () => {
    const result = await create({
      name: 'Wishlists',
      description: 'Saved items',
      slug: 'wishlists',
      api_type: 'wishlist_ext',
    });
    expect(result.status).toBe(201);
    const data = result.body.data;
    expect(data).toMatchObject({
      type: 'custom_api',
      name: 'Wishlists',
      description: 'Saved items',
      slug: 'wishlists',
      api_type: 'wishlist_ext',
      allow_upserts: false,
      links: { self: `/settings/extensions/custom-apis/${data.id}` },
    });
    expect(data.id).toMatch(UUID);
    expect(data.meta.timestamps.created_at).toMatch(TIMESTAMP);
    expect(result.headers.get('location')).toBe(`${CUSTOM_APIS}/${data.id}`);
    const read = await service.call('GET', `${CUSTOM_APIS}/${data.id}`);
    expect(read.body.data).toEqual(data);
  });

  it('validates name, description, slug, api_type, allow_upserts and type', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '' }, 'data.name'],
      [{ name: 'n'.repeat(256) }, 'data.name'],
      [{ name: undefined }, 'data.name'],
      [{ description: 'd'.repeat(256) }, 'data.description'],
      [{ slug: 'Has Caps' }, 'data.slug'],
      [{ slug: 's'.repeat(64) }, 'data.slug'],
      [{ slug: '' }, 'data.slug'],
      [{ api_type: 'wishlist' }, 'data.api_type'],
      [{ api_type: 'wish-list_ext' }, 'data.api_type'],
      [{ api_type: `${'a'.repeat(60)}_ext` }, 'data.api_type'],
      [{ allow_upserts: 'yes' }, 'data.allow_upserts'],
      [{ type: 'custom_apis' }, 'data.type'],
      [{ colour: 'red' }, 'data.colour'],
    ];
    for (const [data, source] of cases) {
      const result = await create({ slug: 'valid', api_type: 'valid_ext', ...data });
      expect(result.status, JSON.stringify(data)).toBe(400);
      expect(errorOf(result).source).toBe(source);
    }
    // Boundaries that are allowed.
    const ok = await create({
      name: 'n'.repeat(255),
      description: 'd'.repeat(255),
      slug: 's'.repeat(63),
      api_type: `${'a'.repeat(59)}_ext`,
    });
    expect(ok.status).toBe(201);
  });

  it('answers a duplicate slug or api_type with 409', async () => {
    await create({ slug: 'dup', api_type: 'dup_ext' });
    const slug = await create({ slug: 'dup', api_type: 'other_ext' });
    expect(slug.status).toBe(409);
    expect(errorOf(slug).source).toBe('data.slug');
    const apiType = await create({ slug: 'other', api_type: 'dup_ext' });
    expect(apiType.status).toBe(409);
    expect(errorOf(apiType).source).toBe('data.api_type');
  });

  it('updates partially, keeps api_type fixed and checks slug uniqueness', async () => {
    const id = (await create({ slug: 'upd', api_type: 'upd_ext', description: 'keep' })).body.data
      .id;
    const put = await service.call('PUT', `${CUSTOM_APIS}/${id}`, {
      json: { data: { type: 'custom_api', name: 'Renamed', allow_upserts: true } },
    });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({
      name: 'Renamed',
      description: 'keep',
      allow_upserts: true,
      slug: 'upd',
    });
    const fixed = await service.call('PUT', `${CUSTOM_APIS}/${id}`, {
      json: { data: { api_type: 'changed_ext' } },
    });
    expect(fixed.status).toBe(400);
    expect(errorOf(fixed).detail).toMatch(/cannot be changed/);
    const taken = await service.call('PUT', `${CUSTOM_APIS}/${id}`, {
      json: { data: { slug: 'dup' } },
    });
    expect(taken.status).toBe(409);
  });

  it('answers a malformed id with 400 and an unknown one with 404', async () => {
    const bad = await service.call('GET', `${CUSTOM_APIS}/not-a-uuid`);
    expect(bad.status).toBe(400);
    expect(errorOf(bad).detail).toMatch(/not a valid Custom API id/);
    const missing = await service.call(
      'GET',
      `${CUSTOM_APIS}/00000000-0000-4000-8000-000000000000`,
    );
    expect(missing.status).toBe(404);
  });

  it('deletes a Custom API together with its entries', async () => {
    const id = (await create({ slug: 'gone', api_type: 'gone_ext' })).body.data.id;
    const entry = await service.call('POST', '/v2/extensions/gone', { json: { data: { a: 1 } } });
    expect(entry.status).toBe(201);
    expect((await service.call('DELETE', `${CUSTOM_APIS}/${id}`)).status).toBe(204);
    expect((await service.call('GET', `${CUSTOM_APIS}/${id}`)).status).toBe(404);
    expect((await service.call('GET', `/v2/extensions/gone/${entry.body.data.id}`)).status).toBe(
      404,
    );
    // Re-creating with the same slug starts empty.
    const again = (await create({ slug: 'gone', api_type: 'gone_ext' })).body.data.id;
    const list = await service.call('GET', `${CUSTOM_APIS}/${again}/entries`);
    expect(list.body.meta.results.total).toBe(0);
    expect((await service.call('DELETE', `${CUSTOM_APIS}/${id}`)).status).toBe(404);
  });

  it('lists Custom APIs with filters on slug and name', async () => {
    const list = await service.call('GET', `${CUSTOM_APIS}?filter=eq(slug,dup)`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((d: { slug: string }) => d.slug)).toEqual(['dup']);
    const like = await service.call('GET', `${CUSTOM_APIS}?filter=like(name,Ren*)`);
    expect(like.body.data.map((d: { name: string }) => d.name)).toEqual(['Renamed']);
  });
});

describe('entries', () => {
  let service: ServiceUnderTest;
  let apiId: string;
  let entries: string;
  beforeAll(async () => {
    service = await startService();
    apiId = await createCustomApi(service, { allow_upserts: true });
    entries = `${CUSTOM_APIS}/${apiId}/entries`;
  });
  afterAll(() => service.close());

  const post = (data: Record<string, unknown>, path = entries) =>
    service.call('POST', path, { json: { data: { type: 'wishlist_ext', ...data } } });

  it('creates an entry: 201, ETag W/"etag_id", the documented body', async () => {
    const result = await service.call('POST', entries, {
      json: {
        data: { type: 'wishlist_ext', name: 'My Wishlist', items_count: 0 },
        links: {},
        meta: {},
        timestamps: { created_at: '2001-01-01T00:00:00.000Z' },
      },
    });
    expect(result.status).toBe(201);
    const data = result.body.data;
    expect(data.id).toMatch(UUID);
    expect(Object.keys(data)).toEqual(['id', 'type', 'name', 'items_count', 'links', 'meta']);
    expect(data).toMatchObject({
      type: 'wishlist_ext',
      name: 'My Wishlist',
      items_count: 0,
      links: { self: `/extensions/wishlists/${data.id}` },
      meta: { resource_version: 0, data_size: 12 },
    });
    expect(data.meta.etag_id).toMatch(/^[0-9a-f]{64}$/);
    expect(result.headers.get('etag')).toBe(`W/"${data.meta.etag_id}"`);
    expect(data.meta.timestamps.created_at).toMatch(TIMESTAMP);
    expect(data.meta.timestamps.created_at).not.toBe('2001-01-01T00:00:00.000Z');
    expect(data.meta.timestamps.updated_at).toBe(data.meta.timestamps.created_at);

    const read = await service.call('GET', `${entries}/${data.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(data);
    expect(read.headers.get('etag')).toBe(`W/"${data.meta.etag_id}"`);
    const bySlug = await service.call('GET', `/v2/extensions/wishlists/${data.id}`);
    expect(bySlug.body.data).toEqual(data);
  });

  it('serves the same operations at /v2/extensions/{slug}', async () => {
    const created = await post({ name: 'via slug' }, '/v2/extensions/wishlists');
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(
      `/v2/extensions/wishlists/${created.body.data.id}`,
    );
    const viaSettings = await service.call('GET', `${entries}/${created.body.data.id}`);
    expect(viaSettings.body.data.name).toBe('via slug');
    const unknownSlug = await service.call('GET', '/v2/extensions/nothing-here');
    expect(unknownSlug.status).toBe(404);
    expect(errorOf(unknownSlug).detail).toContain('nothing-here');
  });

  it('requires data.type to be the api_type when given, and accepts it missing', async () => {
    const wrong = await post({ type: 'order', name: 'x' });
    expect(wrong.status).toBe(400);
    expect(errorOf(wrong)).toMatchObject({ source: 'data.type' });
    expect(errorOf(wrong).detail).toContain('wishlist_ext');
    const missing = await service.call('POST', entries, { json: { data: { name: 'untyped' } } });
    expect(missing.status).toBe(201);
    expect(missing.body.data.type).toBe('wishlist_ext');
    // A type that is not a string is described in words (request-body.ts describeValue), in
    // correct English, and never echoed.
    const described: [unknown, string][] = [
      [null, 'null'],
      [{ deep: [1] }, 'an object'],
      [5, 'a whole number'],
      [true, 'true'],
      [['wishlist_ext'], 'a list'],
    ];
    for (const [type, words] of described) {
      const result = await post({ type, name: 'x' });
      expect(errorOf(result)).toMatchObject({
        source: 'data.type',
        detail: `data.type must be "wishlist_ext", got ${words}.`,
      });
    }
  });

  it('does not store id, links, meta or timestamps as attributes', async () => {
    const result = await post({
      id: '11111111-1111-4111-8111-111111111111',
      links: { self: 'x' },
      meta: { data_size: 1 },
      timestamps: {},
      kept: 'yes',
    });
    expect(result.status).toBe(201);
    expect(result.body.data.id).not.toBe('11111111-1111-4111-8111-111111111111');
    expect(result.body.data.kept).toBe('yes');
    expect(result.body.data.links.self).toMatch(/^\/extensions\/wishlists\//);
    expect(result.body.data.meta.data_size).toBe(3);
  });

  it('counts data_size as UTF-8 bytes of strings and JSON bytes of other values', async () => {
    const result = await post({
      s: 'héllo', // 6 bytes
      emoji: '🎉', // 4 bytes
      n: 12.5, // 4
      b: true, // 4
      z: null, // 4
      list: [1, 'a'], // 7: [1,"a"]
      obj: { k: 'v' }, // 9: {"k":"v"}
    });
    expect(result.body.data.meta.data_size).toBe(6 + 4 + 4 + 4 + 4 + 7 + 9);
    expect(result.body.data).toMatchObject({ list: [1, 'a'], obj: { k: 'v' }, z: null });
  });

  it('accepts an entry of exactly 65,536 bytes and rejects 65,537 with 413, storing nothing', async () => {
    const before = (await service.call('GET', entries)).body.meta.results.total;
    const exact = await post({ blob: 'x'.repeat(65_530), six: 'abcdef' });
    expect(exact.status).toBe(201);
    expect(exact.body.data.meta.data_size).toBe(65_536);

    const over = await post({ blob: 'x'.repeat(65_530), seven: 'abcdefg' });
    expect(over.status).toBe(413);
    expect(errorOf(over)).toEqual({
      status: 413,
      title: 'Request Entity Too Large',
      detail: 'Maximum entry size reached.',
    });
    const multibyte = await post({ blob: 'é'.repeat(32_769) }); // 65,538 bytes, 32,769 chars
    expect(multibyte.status).toBe(413);
    expect((await service.call('GET', entries)).body.meta.results.total).toBe(before + 1);

    // An update that would grow the entry past the limit is refused and changes nothing.
    const grow = await service.call('PUT', `${entries}/${exact.body.data.id}`, {
      json: { data: { extra: 'y' } },
    });
    expect(grow.status).toBe(413);
    const unchanged = await service.call('GET', `${entries}/${exact.body.data.id}`);
    expect(unchanged.body.data.meta).toEqual(exact.body.data.meta);
    expect(unchanged.body.data.extra).toBeUndefined();
  });

  describe('updates', () => {
    let id: string;
    let etag: string;
    beforeEach(async () => {
      const created = await post({ name: 'Original', items_count: 1, note: 'keep me' });
      id = created.body.data.id;
      etag = created.body.data.meta.etag_id;
    });

    it('PUT is partial, bumps resource_version and changes etag_id and ETag', async () => {
      const put = await service.call('PUT', `${entries}/${id}`, {
        json: { data: { type: 'wishlist_ext', items_count: 2, added: true } },
      });
      expect(put.status).toBe(200);
      const data = put.body.data;
      expect(data).toMatchObject({
        name: 'Original',
        items_count: 2,
        note: 'keep me',
        added: true,
      });
      expect(data.meta.resource_version).toBe(1);
      expect(data.meta.etag_id).not.toBe(etag);
      expect(put.headers.get('etag')).toBe(`W/"${data.meta.etag_id}"`);
      expect(data.meta.timestamps.updated_at > data.meta.timestamps.created_at).toBe(true);
      expect(data.meta.data_size).toBe(8 + 1 + 7 + 4);

      // Even an identical write is a new version.
      const same = await service.call('PUT', `/v2/extensions/wishlists/${id}`, {
        json: { data: { items_count: 2 } },
      });
      expect(same.body.data.meta.resource_version).toBe(2);
      expect(same.body.data.meta.etag_id).not.toBe(data.meta.etag_id);
    });

    it('honours If-Match in W/"…", "…" and bare forms, and 412s a stale one', async () => {
      const weak = await service.call('PUT', `${entries}/${id}`, {
        json: { data: { n: 1 } },
        headers: { 'if-match': `W/"${etag}"` },
      });
      expect(weak.status).toBe(200);
      const stale = await service.call('PUT', `${entries}/${id}`, {
        json: { data: { n: 2 } },
        headers: { 'if-match': `W/"${etag}"` },
      });
      expect(stale.status).toBe(412);
      expect(errorOf(stale).title).toBe('Precondition Failed');
      const current = weak.body.data.meta.etag_id;
      const strong = await service.call('PUT', `${entries}/${id}`, {
        json: { data: { n: 3 } },
        headers: { 'if-match': `"${current}"` },
      });
      expect(strong.status).toBe(200);
      const list = await service.call('PUT', `${entries}/${id}`, {
        json: { data: { n: 4 } },
        headers: { 'if-match': `W/"nope", ${strong.headers.get('etag')}` },
      });
      expect(list.status).toBe(200);
      const star = await service.call('PUT', `${entries}/${id}`, {
        json: { data: { n: 5 } },
        headers: { 'if-match': '*' },
      });
      expect(star.status).toBe(200);
      const read = await service.call('GET', `${entries}/${id}`);
      expect(read.body.data.n).toBe(5);
      expect(read.body.data.meta.resource_version).toBe(4);
    });

    it('lets exactly one of many concurrent If-Match PUTs win', async () => {
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          service.call('PUT', `${entries}/${id}`, {
            json: { data: { winner: i } },
            headers: { 'if-match': `W/"${etag}"` },
          }),
        ),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 412)).toHaveLength(11);
      const winner = results.find((r) => r.status === 200);
      const read = await service.call('GET', `${entries}/${id}`);
      expect(read.body.data.winner).toBe(winner?.body.data.winner);
      expect(read.body.data.meta.resource_version).toBe(1);
    });

    it('DELETE honours If-Match, then the entry is gone', async () => {
      const stale = await service.call('DELETE', `${entries}/${id}`, {
        headers: { 'if-match': 'W/"0000"' },
      });
      expect(stale.status).toBe(412);
      expect((await service.call('GET', `${entries}/${id}`)).status).toBe(200);
      const ok = await service.call('DELETE', `/v2/extensions/wishlists/${id}`, {
        headers: { 'if-match': `W/"${etag}"` },
      });
      expect(ok.status).toBe(204);
      expect(ok.body).toBe('');
      expect((await service.call('GET', `${entries}/${id}`)).status).toBe(404);
      expect((await service.call('DELETE', `${entries}/${id}`)).status).toBe(404);
    });
  });

  it('upserts: PUT of a missing uuid creates it with 201 when allow_upserts is on', async () => {
    const id = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
    const created = await service.call('PUT', `/v2/extensions/wishlists/${id}`, {
      json: { data: { type: 'wishlist_ext', name: 'upserted' } },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      id,
      name: 'upserted',
      meta: { resource_version: 0 },
    });
    expect(created.headers.get('etag')).toBe(`W/"${created.body.data.meta.etag_id}"`);
    const updated = await service.call('PUT', `/v2/extensions/wishlists/${id}`, {
      json: { data: { name: 'again' } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.meta.resource_version).toBe(1);
    // Upper-case input names the same (lowercase) id.
    const upper = await service.call('GET', `/v2/extensions/wishlists/${id.toUpperCase()}`);
    expect(upper.body.data.id).toBe(id);

    const conditional = await service.call(
      'PUT',
      `/v2/extensions/wishlists/${crypto.randomUUID()}`,
      {
        json: { data: { name: 'x' } },
        headers: { 'if-match': '*' },
      },
    );
    expect(conditional.status).toBe(412);
  });

  it('answers a PUT of a missing id with 404 when allow_upserts is off', async () => {
    await createCustomApi(service, { slug: 'strict', api_type: 'strict_ext' });
    const result = await service.call('PUT', `/v2/extensions/strict/${crypto.randomUUID()}`, {
      json: { data: { name: 'x' } },
    });
    expect(result.status).toBe(404);
    expect(errorOf(result).detail).toMatch(/upserts/);
  });

  it('answers malformed entry and Custom API ids with 400 naming the id', async () => {
    for (const [method, path] of [
      ['GET', `${entries}/123`],
      ['PUT', '/v2/extensions/wishlists/not-a-uuid'],
      ['DELETE', `${entries}/zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz`],
      ['GET', `${CUSTOM_APIS}/nope/entries`],
      ['POST', `${CUSTOM_APIS}/nope/entries`],
    ] as const) {
      const result = await service.call(method, path, {
        ...(method === 'GET' || method === 'DELETE' ? {} : { json: { data: { a: 1 } } }),
      });
      expect(result.status, `${method} ${path}`).toBe(400);
      expect(errorOf(result).detail).toMatch(/not a valid .* id: expected a uuid/);
    }
  });

  it('rejects values nested deeper than 64 levels with 400, and survives absurd depths', async () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const ok = await service.call('POST', entries, {
      raw: `{"data":{"deep":${nested(64)}}}`,
      contentType: 'application/json',
    });
    expect(ok.status).toBe(201);
    for (const depth of [65, 300_000]) {
      const result = await service.call('POST', entries, {
        raw: `{"data":{"deep":${nested(depth)}}}`,
        contentType: 'application/json',
      });
      expect(result.status, String(depth)).toBe(400);
      expect(errorOf(result).source).toBe('data.deep');
    }
  });

  it('rejects bodies without a data object', async () => {
    for (const json of [{}, { data: 'x' }, { data: [1] }, [{ data: {} }]]) {
      const result = await service.call('POST', entries, { json });
      expect(result.status).toBe(400);
    }
  });

  it('lists entries newest first by default', async () => {
    const list = await service.call('GET', `/v2/extensions/wishlists?page[limit]=100`);
    expect(list.status).toBe(200);
    const created = list.body.data.map(
      (d: { meta: { timestamps: { created_at: string } } }) => d.meta.timestamps.created_at,
    );
    expect(created).toEqual([...created].sort().reverse());
    expect(list.body.meta.results.total).toBe(list.body.data.length);
  });
});
