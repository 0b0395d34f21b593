/**
 * Field definitions of Custom APIs (`…/custom-apis/{id}/fields`) and what they do to entries:
 * validation on create and update, uniqueness, and filters per field type, over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSeededService } from './seeded-service.ts';
import {
  CUSTOM_APIS,
  createCustomApi,
  errorOf,
  type ServiceUnderTest,
  startService,
} from './service-helpers.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('Custom API fields', () => {
  let service: ServiceUnderTest;
  let apiId: string;
  let counter = 0;
  beforeAll(async () => {
    service = await startService();
    apiId = await createCustomApi(service, { slug: 'gift-cards', api_type: 'gift_card_ext' });
  });
  afterAll(() => service.close());

  const fieldsPath = (id = apiId) => `${CUSTOM_APIS}/${id}/fields`;
  const createField = (data: Record<string, unknown>, id = apiId) =>
    service.call('POST', fieldsPath(id), {
      json: { data: { type: 'custom_field', name: 'A field', ...data } },
    });
  const freshApi = async () => {
    counter += 1;
    return createCustomApi(service, { slug: `api-${counter}`, api_type: `api_${counter}_ext` });
  };

  it('creates a field, reads, lists, updates and deletes it', async () => {
    const created = await createField({
      name: 'Code',
      slug: 'code',
      field_type: 'string',
      description: 'The code printed on the card',
      validation: { string: { min_length: 4, max_length: 12, unique: 'yes' } },
      presentation: { sort_order: 10 },
    });
    expect(created.status).toBe(201);
    const data = created.body.data;
    expect(data).toMatchObject({
      type: 'custom_field',
      name: 'Code',
      slug: 'code',
      field_type: 'string',
      description: 'The code printed on the card',
      validation: {
        string: {
          min_length: 4,
          max_length: 12,
          unique: 'yes',
          unique_case_insensitivity: false,
          allow_null_values: true,
          immutable: false,
        },
      },
      use_as_url_slug: false,
      presentation: { sort_order: 10 },
      links: { self: `/settings/extensions/custom-apis/${apiId}/fields/${data.id}` },
    });
    expect(data.id).toMatch(UUID);
    expect(created.headers.get('location')).toBe(`${fieldsPath()}/${data.id}`);

    const read = await service.call('GET', `${fieldsPath()}/${data.id}`);
    expect(read.body.data).toEqual(data);
    const list = await service.call('GET', fieldsPath());
    expect(list.status).toBe(200);
    expect(list.body.data.map((f: { slug: string }) => f.slug)).toEqual(['code']);
    expect(list.body.meta.results.total).toBe(1);

    const updated = await service.call('PUT', `${fieldsPath()}/${data.id}`, {
      json: { data: { type: 'custom_field', description: 'Printed code', validation: {} } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.description).toBe('Printed code');
    expect(updated.body.data.name).toBe('Code');
    // validation is replaced as a whole: {} means the defaults.
    expect(updated.body.data.validation.string.min_length).toBeUndefined();
    expect(updated.body.data.validation.string.unique).toBe('no');

    const removed = await service.call('DELETE', `${fieldsPath()}/${data.id}`);
    expect(removed.status).toBe(204);
    expect((await service.call('GET', `${fieldsPath()}/${data.id}`)).status).toBe(404);
  });

  it('refuses bad definitions with a 400 naming the attribute', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ slug: 'Has Caps', field_type: 'string' }, 'data.slug'],
      [{ slug: 's'.repeat(64), field_type: 'string' }, 'data.slug'],
      [{ field_type: 'string' }, 'data.slug'],
      [{ slug: 'id', field_type: 'string' }, 'data.slug'],
      [{ slug: 'meta', field_type: 'string' }, 'data.slug'],
      [{ slug: 'attributes', field_type: 'string' }, 'data.slug'],
      [{ slug: 'created_at', field_type: 'string' }, 'data.slug'],
      [{ slug: 'ok', field_type: 'date' }, 'data.field_type'],
      [{ slug: 'ok' }, 'data.field_type'],
      [{ slug: 'ok', field_type: 'string', name: '' }, 'data.name'],
      [{ slug: 'ok', field_type: 'string', colour: 1 }, 'data.colour'],
      [{ slug: 'ok', field_type: 'string', validation: 'x' }, 'data.validation'],
      [
        { slug: 'ok', field_type: 'string', validation: { integer: { min_value: 1 } } },
        'data.validation.integer',
      ],
      [
        { slug: 'ok', field_type: 'string', validation: { string: { min_value: 1 } } },
        'data.validation.string.min_value',
      ],
      [
        { slug: 'ok', field_type: 'string', validation: { string: { regex: 'a'.repeat(1024) } } },
        'data.validation.string.regex',
      ],
      [
        { slug: 'ok', field_type: 'string', validation: { string: { regex: '([a-z' } } },
        'data.validation.string.regex',
      ],
      [
        { slug: 'ok', field_type: 'string', validation: { string: { unique: true } } },
        'data.validation.string.unique',
      ],
      [
        { slug: 'ok', field_type: 'string', validation: { string: { max_length: 70_000 } } },
        'data.validation.string.max_length',
      ],
      [
        {
          slug: 'ok',
          field_type: 'string',
          validation: { string: { min_length: 5, max_length: 2 } },
        },
        'data.validation.string.min_length',
      ],
      [
        { slug: 'ok', field_type: 'integer', validation: { integer: { min_value: 1.5 } } },
        'data.validation.integer.min_value',
      ],
      [
        { slug: 'ok', field_type: 'integer', validation: { integer: { max_value: 2 ** 54 } } },
        'data.validation.integer.max_value',
      ],
      [
        { slug: 'ok', field_type: 'float', validation: { float: { min_value: 'low' } } },
        'data.validation.float.min_value',
      ],
      [
        { slug: 'ok', field_type: 'boolean', validation: { boolean: { min_value: 1 } } },
        'data.validation.boolean.min_value',
      ],
      [
        { slug: 'ok', field_type: 'boolean', validation: { boolean: { immutable: 'yes' } } },
        'data.validation.boolean.immutable',
      ],
      [{ slug: 'ok', field_type: 'integer', use_as_url_slug: true }, 'data.use_as_url_slug'],
      [
        { slug: 'ok', field_type: 'string', presentation: { sort_order: 'x' } },
        'data.presentation.sort_order',
      ],
    ];
    const id = await freshApi();
    for (const [data, source] of cases) {
      const result = await createField(data, id);
      expect(result.status, JSON.stringify(data)).toBe(400);
      expect(errorOf(result).source, JSON.stringify(data)).toBe(source);
    }
    const cannotCompile = await createField(
      { slug: 'ok', field_type: 'string', validation: { string: { regex: '([a-z' } } },
      id,
    );
    expect(errorOf(cannotCompile).detail).toMatch(/regex cannot be compiled/);
    // Nothing was stored by any of them.
    expect((await service.call('GET', fieldsPath(id))).body.data).toEqual([]);
    // The boundary that is allowed: a regex of 1,023 characters.
    const longest = await createField(
      { slug: 'ok', field_type: 'string', validation: { string: { regex: 'a'.repeat(1023) } } },
      id,
    );
    expect(longest.status).toBe(201);
  });

  it('keeps slugs unique per Custom API and field_type fixed', async () => {
    const id = await freshApi();
    const first = await createField({ slug: 'code', field_type: 'string' }, id);
    expect(first.status).toBe(201);
    const duplicate = await createField({ slug: 'code', field_type: 'integer' }, id);
    expect(duplicate.status).toBe(409);
    expect(errorOf(duplicate).source).toBe('data.slug');
    // Another Custom API may use the same slug.
    expect(
      (await createField({ slug: 'code', field_type: 'integer' }, await freshApi())).status,
    ).toBe(201);
    const other = await createField({ slug: 'other', field_type: 'string' }, id);
    const rename = await service.call('PUT', `${fieldsPath(id)}/${other.body.data.id}`, {
      json: { data: { type: 'custom_field', slug: 'code' } },
    });
    expect(rename.status).toBe(409);
    const retype = await service.call('PUT', `${fieldsPath(id)}/${first.body.data.id}`, {
      json: { data: { type: 'custom_field', field_type: 'integer' } },
    });
    expect(retype.status).toBe(400);
    expect(errorOf(retype)).toMatchObject({ source: 'data.field_type' });
    expect(errorOf(retype).detail).toMatch(/cannot be changed/);
    // Same type named again is fine.
    const same = await service.call('PUT', `${fieldsPath(id)}/${first.body.data.id}`, {
      json: { data: { type: 'custom_field', field_type: 'string', name: 'Renamed' } },
    });
    expect(same.status).toBe(200);
    expect(same.body.data.name).toBe('Renamed');
  });

  it('answers 404 for a missing Custom API or field and 400 for a malformed id', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    expect((await service.call('GET', fieldsPath(missing))).status).toBe(404);
    expect((await service.call('GET', `${fieldsPath()}/${missing}`)).status).toBe(404);
    expect((await service.call('GET', `${fieldsPath()}/nope`)).status).toBe(400);
    expect((await createField({ slug: 'x', field_type: 'string' }, missing)).status).toBe(404);
  });

  it('keeps one store’s fields from another store', async () => {
    const beta = await service.token('beta');
    expect((await service.call('GET', fieldsPath(), { token: beta })).status).toBe(404);
  });

  describe('entries of a Custom API with fields', () => {
    let id: string;
    const entries = () => `${CUSTOM_APIS}/${id}/entries`;
    const post = (data: Record<string, unknown>) =>
      service.call('POST', entries(), { json: { data: { type: 'card_ext', ...data } } });
    const put = (entryId: string, data: Record<string, unknown>) =>
      service.call('PUT', `${entries()}/${entryId}`, {
        json: { data: { type: 'card_ext', ...data } },
      });
    const valid = { code: 'ABCD-1', balance: 100, active: true, rate: 0.5 };

    beforeAll(async () => {
      id = await createCustomApi(service, { slug: 'cards', api_type: 'card_ext' });
      const define = async (data: Record<string, unknown>) => {
        const result = await createField(data, id);
        if (result.status !== 201) throw new Error(JSON.stringify(result.body));
      };
      await define({
        slug: 'code',
        field_type: 'string',
        validation: {
          string: {
            min_length: 4,
            max_length: 10,
            regex: '^[A-Z]+-[0-9]+$',
            allow_null_values: false,
            unique: 'yes',
            unique_case_insensitivity: true,
            immutable: true,
          },
        },
      });
      await define({
        slug: 'balance',
        field_type: 'integer',
        validation: { integer: { min_value: 0, max_value: 100_000, allow_null_values: false } },
      });
      await define({ slug: 'active', field_type: 'boolean', validation: { boolean: {} } });
      await define({
        slug: 'rate',
        field_type: 'float',
        validation: { float: { min_value: 0, max_value: 1, allow_null_values: true } },
      });
      await define({ slug: 'note', field_type: 'string' });
    });

    it('stores a valid entry, with undeclared attributes kept as before', async () => {
      const result = await post({ ...valid, extra: { any: 'thing' } });
      expect(result.status).toBe(201);
      expect(result.body.data).toMatchObject({ ...valid, extra: { any: 'thing' } });
    });

    it('refuses wrong values with a 400 at data.<slug> and stores nothing', async () => {
      const before = (await service.call('GET', entries())).body.meta.results.total;
      const cases: [Record<string, unknown>, string, RegExp][] = [
        [{ code: 12 }, 'data.code', /code must be a string, got a whole number/],
        [{ code: 'A-1' }, 'data.code', /at least 4 characters/],
        [{ code: 'ABCDEFGH-12' }, 'data.code', /at most 10 characters/],
        [{ code: 'abcd-1' }, 'data.code', /does not match the pattern/],
        [{ code: null }, 'data.code', /cannot be null/],
        [{ code: undefined }, 'data.code', /code is required/],
        [{ balance: 1.5 }, 'data.balance', /balance must be a whole number, got a number/],
        [{ balance: '5' }, 'data.balance', /balance must be a whole number, got a string/],
        [{ balance: -1 }, 'data.balance', /at least 0, got -1/],
        [{ balance: 100_001 }, 'data.balance', /at most 100000/],
        [{ balance: 2 ** 53 + 2 }, 'data.balance', /2\^53/],
        [{ active: 'yes' }, 'data.active', /active must be true or false, got a string/],
        [{ active: 1 }, 'data.active', /true or false/],
        [{ rate: 'high' }, 'data.rate', /rate must be a number/],
        [{ rate: 1.01 }, 'data.rate', /at most 1, got 1.01/],
        [{ rate: [1] }, 'data.rate', /got a list/],
        [{ note: 'x'.repeat(65_536) }, 'data.note', /longer than 65535/],
      ];
      for (const [patch, source, detail] of cases) {
        const data: Record<string, unknown> = { ...valid, code: `CASE-${counter++}`, ...patch };
        if (patch.code === undefined && 'code' in patch) delete data.code;
        const result = await post(data);
        expect(result.status, JSON.stringify(patch)).toBe(400);
        expect(errorOf(result).source, JSON.stringify(patch)).toBe(source);
        expect(errorOf(result).detail, JSON.stringify(patch)).toMatch(detail);
      }
      expect((await service.call('GET', entries())).body.meta.results.total).toBe(before);
      // Nulls are fine where allowed, and integers are numbers to a float field.
      const nullRate = await post({ ...valid, code: 'NULL-1', rate: null });
      expect(nullRate.status).toBe(201);
      const wholeRate = await post({ ...valid, code: 'WHOLE-1', rate: 1 });
      expect(wholeRate.status).toBe(201);
    });

    it('judges updates: the patch only, immutable values stay, nothing half-written', async () => {
      const created = await post({ ...valid, code: 'UPD-1' });
      const entryId = created.body.data.id;
      const ok = await put(entryId, { balance: 5 });
      expect(ok.status).toBe(200);
      expect(ok.body.data).toMatchObject({ code: 'UPD-1', balance: 5 });
      const immutable = await put(entryId, { code: 'UPD-2', balance: 6 });
      expect(immutable.status).toBe(400);
      expect(errorOf(immutable)).toMatchObject({ source: 'data.code' });
      expect(errorOf(immutable).detail).toMatch(/immutable/);
      const unchangedCode = await put(entryId, { code: 'UPD-1', balance: 7 });
      expect(unchangedCode.status).toBe(200);
      const bad = await put(entryId, { balance: 8, active: 'no' });
      expect(bad.status).toBe(400);
      expect(errorOf(bad).source).toBe('data.active');
      const nulled = await put(entryId, { balance: null });
      expect(errorOf(nulled).source).toBe('data.balance');
      const read = await service.call('GET', `${entries()}/${entryId}`);
      expect(read.body.data).toMatchObject({ code: 'UPD-1', balance: 7, active: true });
      expect(read.body.data.meta.resource_version).toBe(2);
    });

    it('refuses a duplicate of a unique value with 409, ignoring case when told to', async () => {
      const first = await post({ ...valid, code: 'UNIQ-1' });
      expect(first.status).toBe(201);
      for (const code of ['UNIQ-1']) {
        const duplicate = await post({ ...valid, code });
        expect(duplicate.status).toBe(409);
        expect(errorOf(duplicate)).toMatchObject({ status: 409, source: 'data.code' });
        expect(errorOf(duplicate).detail).toMatch(/unique/);
      }
      // Case folding: a rule without the regex shows it (the regex would refuse lowercase).
      const folded = await freshApi();
      await createField(
        {
          slug: 'email',
          field_type: 'string',
          validation: { string: { unique: 'yes', unique_case_insensitivity: true } },
        },
        folded,
      );
      await createField(
        { slug: 'handle', field_type: 'string', validation: { string: { unique: 'yes' } } },
        folded,
      );
      const path = `${CUSTOM_APIS}/${folded}/entries`;
      const write = (data: Record<string, unknown>) =>
        service.call('POST', path, { json: { data } });
      expect((await write({ email: 'A@x.io', handle: 'Ann' })).status).toBe(201);
      expect((await write({ email: 'a@X.IO', handle: 'bob' })).status).toBe(409);
      expect((await write({ email: 'b@x.io', handle: 'ann' })).status).toBe(201);
      expect((await write({ email: 'c@x.io', handle: 'Ann' })).status).toBe(409);
      expect((await service.call('GET', path)).body.meta.results.total).toBe(2);
    });

    describe('filters', () => {
      let filterApi: string;
      const rows = [
        { s: 'apple', i: 1, f: 0.5, b: true },
        { s: 'banana', i: 2, f: 1.5, b: false },
        { s: 'cherry', i: 3, f: 2.5, b: true },
        { s: null, i: null, f: null, b: null },
        {},
      ];
      const list = (filter: string) =>
        service.call(
          'GET',
          `${CUSTOM_APIS}/${filterApi}/entries?filter=${encodeURIComponent(filter)}&sort=created_at`,
        );
      const matches = async (filter: string) => {
        const result = await list(filter);
        expect(result.status, `${filter}: ${JSON.stringify(result.body)}`).toBe(200);
        // Entries written in one millisecond tie on created_at; compare as sets.
        return result.body.data
          .map((e: { n: number }) => e.n)
          .sort((a: number, b: number) => a - b);
      };

      beforeAll(async () => {
        filterApi = await freshApi();
        for (const [slug, fieldType] of [
          ['s', 'string'],
          ['i', 'integer'],
          ['f', 'float'],
          ['b', 'boolean'],
        ]) {
          await createField({ slug, field_type: fieldType }, filterApi);
        }
        for (const [n, row] of rows.entries()) {
          await service.call('POST', `${CUSTOM_APIS}/${filterApi}/entries`, {
            json: { data: { n, ...row } },
          });
        }
      });

      it('filters strings with eq, like, in, lt, le, gt, ge and is_null', async () => {
        expect(await matches('eq(s,banana)')).toEqual([1]);
        expect(await matches('like(s,*an*)')).toEqual([1]);
        expect(await matches('in(s,apple,cherry)')).toEqual([0, 2]);
        expect(await matches('lt(s,banana)')).toEqual([0]);
        expect(await matches('le(s,banana)')).toEqual([0, 1]);
        expect(await matches('gt(s,banana)')).toEqual([2]);
        expect(await matches('ge(s,banana)')).toEqual([1, 2]);
        expect(await matches('is_null(s,true)')).toEqual([3, 4]);
        expect(await matches('is_null(s,false)')).toEqual([0, 1, 2]);
      });

      it('filters integers, floats and booleans with their operators', async () => {
        expect(await matches('eq(i,2)')).toEqual([1]);
        expect(await matches('in(i,1,3)')).toEqual([0, 2]);
        expect(await matches('gt(i,1):le(i,3)')).toEqual([1, 2]);
        expect(await matches('lt(i,2)')).toEqual([0]);
        expect(await matches('ge(i,3)')).toEqual([2]);
        expect(await matches('is_null(i,true)')).toEqual([3, 4]);
        expect(await matches('gt(f,1)')).toEqual([1, 2]);
        expect(await matches('le(f,1.5)')).toEqual([0, 1]);
        expect(await matches('lt(f,0.6):ge(f,0.5)')).toEqual([0]);
        expect(await matches('in(f,2.5,0.5)')).toEqual([0, 2]);
        expect(await matches('is_null(f,false)')).toEqual([0, 1, 2]);
        expect(await matches('eq(b,true)')).toEqual([0, 2]);
        expect(await matches('eq(b,false)')).toEqual([1]);
        expect(await matches('is_null(b,true)')).toEqual([3, 4]);
        // Combined with the standard attributes.
        expect(await matches('eq(b,true):gt(i,1)')).toEqual([2]);
      });

      it('refuses an operator the type does not allow, and values of the wrong kind', async () => {
        const refused: [string, RegExp][] = [
          [
            'like(i,1*)',
            /Operator "like" is not allowed on "i"; allowed: eq, in, lt, le, gt, ge, is_null/,
          ],
          ['eq(f,1.5)', /Operator "eq" is not allowed on "f"/],
          ['like(f,1*)', /Operator "like" is not allowed on "f"/],
          ['gt(b,true)', /Operator "gt" is not allowed on "b"; allowed: eq, is_null/],
          ['in(b,true)', /not allowed on "b"/],
          ['eq(i,1.5)', /i takes a whole number/],
          ['gt(f,abc)', /f takes a number/],
          ['eq(b,yes)', /b takes true or false/],
          ['is_null(s,maybe)', /is_null takes true/],
          ['is_null(created_at,true)', /Operator "is_null" is not allowed on "created_at"/],
          ['eq(nope,1)', /Cannot filter on "nope"/],
        ];
        for (const [filter, detail] of refused) {
          const result = await list(filter);
          expect(result.status, filter).toBe(400);
          expect(errorOf(result)).toMatchObject({ source: 'filter' });
          expect(errorOf(result).detail, filter).toMatch(detail);
        }
      });

      it('names the field filters among the allowed attributes', async () => {
        const result = await list('eq(nope,1)');
        expect(errorOf(result).detail).toMatch(/s \(eq, like, in, lt, le, gt, ge, is_null\)/);
        expect(errorOf(result).detail).toMatch(/b \(eq, is_null\)/);
      });
    });
  });
});

describe('demo Custom APIs', () => {
  it('have field definitions that every seeded entry satisfies', async () => {
    const service = await startSeededService(0);
    try {
      const apis = (await service.call('GET', `${CUSTOM_APIS}?page[limit]=100`)).body.data;
      expect(apis.map((a: { slug: string }) => a.slug).sort()).toEqual([
        'loyalty-points',
        'product-reviews',
        'wishlists',
      ]);
      for (const api of apis) {
        const fields = (await service.call('GET', `${CUSTOM_APIS}/${api.id}/fields`)).body.data;
        expect(fields.length, api.slug).toBeGreaterThan(0);
        const entries = (
          await service.call('GET', `${CUSTOM_APIS}/${api.id}/entries?page[limit]=100`)
        ).body.data as Record<string, unknown>[];
        expect(entries.length).toBeGreaterThan(0);
        for (const entry of entries) {
          // The service itself judges: an unchanged PUT of every field passes validation.
          const data: Record<string, unknown> = { type: api.api_type };
          for (const field of fields) data[field.slug] = entry[field.slug];
          const result = await service.call('PUT', `${CUSTOM_APIS}/${api.id}/entries/${entry.id}`, {
            json: { data },
          });
          expect(result.status, `${api.slug} ${JSON.stringify(result.body)}`).toBe(200);
        }
      }
    } finally {
      await service.close();
    }
  });
});
