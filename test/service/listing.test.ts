/**
 * The shared listing rules: paging parameters, sort with ties by id, every filter operator,
 * timestamp normalisation, links, the zero-result envelope, the keyset walk the gateway relies
 * on, and that those queries are index range scans. Parsing is tested in process; the rest over
 * HTTP against entries written straight into a temp-file database (so timestamps can tie).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../../src/commerce-service/db.ts';
import { storeIdForClient } from '../../src/commerce-service/ids.ts';
import {
  type ListSpec,
  parseListQuery,
  standardListSpec,
} from '../../src/commerce-service/listing/parse.ts';
import { buildListSql } from '../../src/commerce-service/listing/sql.ts';
import { parseTimestamp } from '../../src/commerce-service/time.ts';
import {
  CUSTOM_APIS,
  createCustomApi,
  errorOf,
  type ServiceUnderTest,
  startService,
} from './service-helpers.ts';

describe('parseTimestamp', () => {
  it('normalises any ISO-8601 form to the 24-character UTC form', () => {
    const cases: [string, string][] = [
      ['2025-01-02T03:04:05.678Z', '2025-01-02T03:04:05.678Z'],
      ['2025-01-02T03:04:05Z', '2025-01-02T03:04:05.000Z'],
      ['2025-01-02T03:04Z', '2025-01-02T03:04:00.000Z'],
      ['2025-01-02', '2025-01-02T00:00:00.000Z'],
      ['2025-01-02T03:04:05', '2025-01-02T03:04:05.000Z'],
      ['2025-01-02T03:04:05.6+01:00', '2025-01-02T02:04:05.600Z'],
      ['2025-01-02T00:30:00-0230', '2025-01-02T03:00:00.000Z'],
      ['2025-01-02 03:04:05.1z', '2025-01-02T03:04:05.100Z'],
    ];
    for (const [input, iso] of cases) expect(parseTimestamp(input)?.iso, input).toBe(iso);
    expect(parseTimestamp('2025-01-02T03:04:05.6789Z')).toEqual({
      ms: Date.parse('2025-01-02T03:04:05.678Z'),
      iso: '2025-01-02T03:04:05.678Z',
      exact: false,
    });
  });

  it('rejects impossible dates and non-ISO text', () => {
    for (const input of [
      '2021-02-30',
      '2021-13-01',
      '2021-01-01T24:00:00Z',
      '2021-01-01T10:60Z',
      'yesterday',
      'Jan 1 2021',
      '1700000000',
      '2021-1-1',
      '',
    ]) {
      expect(parseTimestamp(input), input).toBeUndefined();
    }
  });
});

describe('parseListQuery', () => {
  const spec: ListSpec = standardListSpec({
    filters: { name: { column: 'name', kind: 'string', ops: ['eq', 'like'] } },
  });

  it('splits clauses at colons outside parentheses and normalises timestamps', () => {
    const query = parseListQuery(
      {
        filter:
          'ge(created_at,2025-01-02T03:04:05+01:00):lt(updated_at,2025-02-01):eq(id,ABC):like(name,a:b*)',
      },
      spec,
      25,
    );
    expect(query.conditions).toEqual([
      {
        sql: 'created_at >= ?',
        params: ['2025-01-02T02:04:05.000Z'],
        range: { column: 'created_at', op: '>=', value: '2025-01-02T02:04:05.000Z' },
      },
      {
        sql: 'updated_at < ?',
        params: ['2025-02-01T00:00:00.000Z'],
        range: { column: 'updated_at', op: '<', value: '2025-02-01T00:00:00.000Z' },
      },
      { sql: 'id = ?', params: ['abc'], range: { column: 'id', op: '=', value: 'abc' } },
      { sql: "name LIKE ? ESCAPE '\\'", params: ['a:b%'] },
    ]);
    expect(query).toMatchObject({ limit: 25, offset: 0, sort: '-created_at', descending: true });
  });

  it('treats SQL wildcards in like values literally and binds in-lists as one parameter', () => {
    const like = parseListQuery({ filter: 'like(name,50%_off*)' }, spec, 25);
    expect(like.conditions[0]?.params).toEqual(['50\\%\\_off%']);
    const inList = parseListQuery({ filter: 'in(id,a,B,c)' }, spec, 25);
    expect(inList.conditions[0]).toEqual({
      sql: 'id IN (SELECT value FROM json_each(?))',
      params: ['["a","b","c"]'],
    });
  });

  it('skips the empty members of an in() list, as the reference storefront sends them', () => {
    const cond = (filter: string) => parseListQuery({ filter }, spec, 25).conditions[0];
    // An empty cart's `in(id,)`, a custom item's missing product_id in `in(id,a,)` or `in(id,,a)`.
    expect(cond('in(id,)')).toEqual({ sql: '0', params: [] });
    expect(cond('in(id,a,)')).toEqual({
      sql: 'id IN (SELECT value FROM json_each(?))',
      params: ['["a"]'],
    });
    expect(cond('in(id,, a ,)')?.params).toEqual(['["a"]']);
  });

  it('turns sub-millisecond bounds into the equivalent millisecond comparisons', () => {
    const cond = (filter: string) => parseListQuery({ filter }, spec, 25).conditions[0];
    expect(cond('gt(created_at,2025-01-01T00:00:00.0005Z)')?.sql).toBe('created_at > ?');
    expect(cond('ge(created_at,2025-01-01T00:00:00.0005Z)')?.sql).toBe('created_at > ?');
    expect(cond('lt(created_at,2025-01-01T00:00:00.0005Z)')?.sql).toBe('created_at <= ?');
    expect(cond('eq(created_at,2025-01-01T00:00:00.0005Z)')?.sql).toBe('0');
  });

  it('rejects each kind of bad parameter with a 400 naming the parameter', () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ 'page[limit]': '101' }, 'page[limit]', /1 to 100/],
      [{ 'page[limit]': '0' }, 'page[limit]', /1 to 100/],
      [{ 'page[limit]': '-1' }, 'page[limit]', /1 to 100/],
      [{ 'page[limit]': '1.5' }, 'page[limit]', /1 to 100/],
      [{ 'page[limit]': 'ten' }, 'page[limit]', /1 to 100/],
      [{ 'page[limit]': '' }, 'page[limit]', /1 to 100/],
      [{ 'page[limit]': ['5', '6'] }, 'page[limit]', /more than once/],
      [{ 'page[offset]': '-5' }, 'page[offset]', /whole number/],
      [{ 'page[offset]': '1e3' }, 'page[offset]', /whole number/],
      [{ 'page[offset]': '99999999999999999999' }, 'page[offset]', /at most/],
      [{ sort: 'name' }, 'sort', /Allowed: created_at, updated_at, id/],
      [{ sort: '+id' }, 'sort', /Allowed/],
      [{ filter: 'gt(colour,red)' }, 'filter', /Allowed attributes: id \(eq, in, lt, le, gt, ge\)/],
      [{ filter: 'between(id,a)' }, 'filter', /Unknown filter operator.*Allowed attributes/],
      [{ filter: 'like(created_at,2025*)' }, 'filter', /not allowed on "created_at"/],
      [{ filter: 'in(created_at,2025-01-01)' }, 'filter', /not allowed/],
      [{ filter: 'gt(created_at,2025-02-30)' }, 'filter', /not an ISO-8601 timestamp/],
      [{ filter: 'gt(created_at,)' }, 'filter', /empty value/],
      [{ filter: 'gt(created_at' }, 'filter', /missing its "\)"/],
      [{ filter: 'gt(id,(x))' }, 'filter', /cannot contain/],
      [{ filter: 'gt(id,x))' }, 'filter', /unbalanced/],
      [{ filter: 'gt(id,a):' }, 'filter', /empty clause/],
      [
        { filter: 'created_at>2025' },
        'filter',
        /expected op\(attribute,value\).*Allowed attributes/,
      ],
      [{ filter: 'gt(id)' }, 'filter', /expected op\(attribute,value\)/],
      [{ filter: Array(11).fill('gt(id,a)').join(':') }, 'filter', /At most 10/],
    ];
    for (const [query, source, detail] of cases) {
      let caught: unknown;
      try {
        parseListQuery(query, spec, 25);
      } catch (error) {
        caught = error;
      }
      expect(caught, JSON.stringify(query)).toMatchObject({ status: 400, source });
      expect((caught as Error).message, JSON.stringify(query)).toMatch(detail);
    }
    expect(
      parseListQuery({ filter: Array(10).fill('gt(id,a)').join(':') }, spec, 25).conditions,
    ).toHaveLength(10);
  });

  it('enforces a hard offset limit only where one is configured', () => {
    const hard = standardListSpec({ hardOffsetLimit: 10_000 });
    expect(parseListQuery({ 'page[offset]': '10000' }, hard, 25).offset).toBe(10_000);
    expect(() => parseListQuery({ 'page[offset]': '10001' }, hard, 25)).toThrow(/at most 10000/);
    expect(parseListQuery({ 'page[offset]': '10001' }, spec, 25).offset).toBe(10_001);
  });
});

interface Row {
  id: string;
  created_at: string;
  updated_at: string;
}

const ts = (minute: number) => new Date(Date.UTC(2025, 0, 1, 10, minute)).toISOString();

describe('list endpoints over HTTP', () => {
  let dir: string;
  let service: ServiceUnderTest;
  let db: Db;
  let apiId: string;
  let rows: Row[];
  let path: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listing-test-'));
    const dbPath = join(dir, 'service.db');
    service = await startService({ dbPath });
    apiId = await createCustomApi(service);
    path = `${CUSTOM_APIS}/${apiId}/entries`;
    // A second connection writes rows whose timestamps tie: 20 instants × 3 entries, with
    // updated_at ties grouped differently from created_at ties.
    db = openDatabase(dbPath);
    const insert = db.prepare(
      `INSERT INTO custom_api_entries (store_id, custom_api_id, id, data, data_size,
         resource_version, etag_id, created_at, updated_at)
       VALUES (?, ?, ?, '{"n":0}', 1, 0, 'etag', ?, ?)`,
    );
    rows = Array.from({ length: 60 }, (_, i) => ({
      id: randomUUID(),
      created_at: ts(Math.floor(i / 3)),
      updated_at: ts(100 + (i % 7)),
    }));
    db.transaction(() => {
      for (const row of rows) {
        insert.run(storeIdForClient('alpha'), apiId, row.id, row.created_at, row.updated_at);
      }
    })();
  });
  afterAll(async () => {
    await service.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const list = async (query: string) => {
    const result = await service.call('GET', `${path}?${query}`);
    expect(result.status, `${query}: ${JSON.stringify(result.body)}`).toBe(200);
    return result.body as {
      data: { id: string; meta: { timestamps: { created_at: string; updated_at: string } } }[];
      links: Record<string, string | null>;
      meta: { page: Record<string, number>; results: { total: number } };
    };
  };
  const ids = (body: Awaited<ReturnType<typeof list>>) => body.data.map((d) => d.id);
  const sortedIds = (key: keyof Row, desc: boolean, subset = rows) =>
    [...subset]
      .sort((a, b) => {
        const c =
          a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
        return desc ? -c : c;
      })
      .map((r) => r.id);

  it('orders ties by id in the direction of the sort, for every sort key', async () => {
    for (const key of ['created_at', 'updated_at', 'id'] as const) {
      for (const desc of [false, true]) {
        const body = await list(`sort=${desc ? '-' : ''}${key}&page[limit]=100`);
        expect(ids(body), `${desc ? '-' : ''}${key}`).toEqual(sortedIds(key, desc));
      }
    }
    // The default for entries is -created_at.
    expect(ids(await list('page[limit]=100'))).toEqual(sortedIds('created_at', true));
  });

  it('builds the envelope and absolute links, with next/prev null at the edges', async () => {
    const middle = await list('page[limit]=10&page[offset]=20&sort=id');
    expect(middle.meta).toEqual({
      page: { limit: 10, offset: 20, current: 3, total: 6 },
      results: { total: 60 },
    });
    const link = (offset: number) =>
      `${service.url}${path}?page[limit]=10&page[offset]=${offset}&sort=id`;
    expect(middle.links).toEqual({
      current: link(20),
      first: link(0),
      last: link(50),
      next: link(30),
      prev: link(10),
    });
    const first = await list('page[limit]=10&sort=id');
    expect(first.links.prev).toBeNull();
    expect(first.meta.page.current).toBe(1);
    const last = await list('page[limit]=10&page[offset]=50&sort=id');
    expect(last.links.next).toBeNull();
    expect(last.data).toHaveLength(10);

    // Following next links from the first page visits every row once, in order.
    const seen: string[] = [];
    let next: string | null = first.links.first ?? null;
    while (next) {
      const response = await fetch(next, {
        headers: { authorization: `Bearer ${await service.token()}` },
      });
      const body = (await response.json()) as Awaited<ReturnType<typeof list>>;
      seen.push(...ids(body));
      next = body.links.next ?? null;
    }
    expect(seen).toEqual(sortedIds('id', false));
  });

  it('keeps the filter in links, percent-encoded', async () => {
    const filter = `gt(created_at,${ts(5)})`;
    const body = await list(`page[limit]=5&filter=${encodeURIComponent(filter)}&sort=created_at`);
    expect(body.links.next).toBe(
      `${service.url}${path}?page[limit]=5&page[offset]=5&filter=${encodeURIComponent(filter)}&sort=created_at`,
    );
    expect(body.meta.results.total).toBe(60 - 18);
  });

  it('returns the full envelope with zero results, and past the end', async () => {
    const empty = await list(`filter=gt(created_at,2030-01-01T00:00:00.000Z)`);
    expect(empty.data).toEqual([]);
    expect(empty.meta).toEqual({
      page: { limit: 25, offset: 0, current: 1, total: 0 },
      results: { total: 0 },
    });
    expect(empty.links.current).toContain('page[offset]=0');
    expect(empty.links.first).toBe(empty.links.last);
    expect(empty.links.next).toBeNull();
    expect(empty.links.prev).toBeNull();

    const otherApi = await createCustomApi(service, { slug: 'empty', api_type: 'empty_ext' });
    const none = await service.call('GET', `${CUSTOM_APIS}/${otherApi}/entries`);
    expect(none.body.meta.results.total).toBe(0);
    expect(none.body.data).toEqual([]);

    const past = await list('page[offset]=500');
    expect(past.data).toEqual([]);
    expect(past.meta.results.total).toBe(60);
    expect(past.links.next).toBeNull();
    // A soft offset limit: entries serve offsets beyond 10,000.
    expect((await list('page[offset]=10001')).data).toEqual([]);
  });

  it('implements every filter operator on id, created_at and updated_at', async () => {
    const byId = sortedIds('id', false);
    const pivot = byId[30] as string;
    const idCases: [string, (r: Row) => boolean][] = [
      [`eq(id,${pivot})`, (r) => r.id === pivot],
      [`eq(id,${pivot.toUpperCase()})`, (r) => r.id === pivot],
      [
        `in(id,${byId[1]},${byId[5]},${byId[9]})`,
        (r) => [byId[1], byId[5], byId[9]].includes(r.id),
      ],
      [`lt(id,${pivot})`, (r) => r.id < pivot],
      [`le(id,${pivot})`, (r) => r.id <= pivot],
      [`gt(id,${pivot})`, (r) => r.id > pivot],
      [`ge(id,${pivot})`, (r) => r.id >= pivot],
    ];
    const at = ts(7);
    const up = ts(103);
    const timeCases: [string, (r: Row) => boolean][] = [];
    for (const [attr, value] of [
      ['created_at', at],
      ['updated_at', up],
    ] as const) {
      timeCases.push(
        [`eq(${attr},${value})`, (r) => r[attr] === value],
        [`lt(${attr},${value})`, (r) => r[attr] < value],
        [`le(${attr},${value})`, (r) => r[attr] <= value],
        [`gt(${attr},${value})`, (r) => r[attr] > value],
        [`ge(${attr},${value})`, (r) => r[attr] >= value],
      );
    }
    for (const [filter, keep] of [...idCases, ...timeCases]) {
      const body = await list(`sort=id&page[limit]=100&filter=${encodeURIComponent(filter)}`);
      const expected = rows
        .filter(keep)
        .map((r) => r.id)
        .sort();
      expect(expected.length, filter).toBeGreaterThan(0);
      expect(ids(body), filter).toEqual(expected);
      expect(body.meta.results.total, filter).toBe(expected.length);
    }
    // Clauses are AND-ed.
    const both = await list(
      `sort=id&page[limit]=100&filter=${encodeURIComponent(`ge(created_at,${at}):lt(updated_at,${up})`)}`,
    );
    expect(ids(both)).toEqual(
      rows
        .filter((r) => r.created_at >= at && r.updated_at < up)
        .map((r) => r.id)
        .sort(),
    );
  });

  it('normalises timestamp filter values before comparing', async () => {
    const expected = rows.filter((r) => r.created_at >= ts(7)).length;
    for (const value of [
      '2025-01-01T10:07:00.000Z',
      '2025-01-01T10:07Z',
      '2025-01-01T10:07:00',
      '2025-01-01T11:07:00.000+01:00',
      '2025-01-01T09:37:00-00:30',
    ]) {
      const body = await list(`filter=${encodeURIComponent(`ge(created_at,${value})`)}`);
      expect(body.meta.results.total, value).toBe(expected);
    }
    // An unencoded "+" arrives as a space and still means +01:00.
    const plus = await list('filter=ge(created_at,2025-01-01T11:07:00.000+01:00)');
    expect(plus.meta.results.total).toBe(expected);
  });

  it('answers malformed list parameters over HTTP with 400 naming what is allowed', async () => {
    for (const [query, source, detail] of [
      ['page[limit]=101', 'page[limit]', /1 to 100/],
      ['page[limit]=0', 'page[limit]', /1 to 100/],
      ['page[offset]=-1', 'page[offset]', /whole number/],
      ['sort=name', 'sort', /created_at, updated_at, id/],
      ['filter=gt(name,x)', 'filter', /Allowed attributes: id .*created_at .*updated_at/],
      ['filter=like(id,a*)', 'filter', /not allowed on "id"/],
      ['filter=gt(created_at,tomorrow)', 'filter', /ISO-8601/],
      ['filter=gt(created_at,2025-01-01', 'filter', /missing/],
    ] as const) {
      const result = await service.call('GET', `${path}?${query}`);
      expect(result.status, query).toBe(400);
      expect(errorOf(result).source, query).toBe(source);
      expect(errorOf(result).detail, query).toMatch(detail);
    }
  });

  it('supports the keyset walk across equal timestamps, both directions, without gaps or repeats', async () => {
    for (const desc of [false, true]) {
      const seen: string[] = [];
      let position: { t: string; id: string } | undefined;
      let sameTimestamp = true;
      for (let guard = 0; guard < 100; guard++) {
        const [cmp, sort] = desc ? ['lt', '-created_at'] : ['gt', 'created_at'];
        let filter = '';
        if (position) {
          filter = sameTimestamp
            ? `eq(created_at,${position.t}):${cmp}(id,${position.id})`
            : `${cmp}(created_at,${position.t})`;
        }
        const body = await list(
          `sort=${sort}&page[limit]=2${filter ? `&filter=${encodeURIComponent(filter)}` : ''}`,
        );
        if (body.data.length === 0) {
          if (position && sameTimestamp) {
            sameTimestamp = false;
            continue;
          }
          break;
        }
        seen.push(...ids(body));
        const last = body.data[body.data.length - 1];
        if (!last) break;
        if (position?.t !== last.meta.timestamps.created_at) sameTimestamp = true;
        position = { t: last.meta.timestamps.created_at, id: last.id };
      }
      expect(seen, desc ? 'descending' : 'ascending').toEqual(sortedIds('created_at', desc));
    }
  });

  it('plans list and keyset queries as index range scans with no temporary sort', () => {
    const spec = standardListSpec();
    const scope = { store_id: storeIdForClient('alpha'), custom_api_id: apiId };
    for (const query of [
      { sort: 'created_at' },
      { sort: '-created_at' },
      { sort: 'updated_at' },
      { sort: '-id' },
      { sort: 'created_at', filter: `gt(created_at,${ts(3)})` },
      { sort: 'created_at', filter: `eq(created_at,${ts(3)}):gt(id,${rows[9]?.id})` },
      { sort: '-created_at', filter: `eq(created_at,${ts(3)}):lt(id,${rows[9]?.id})` },
      { sort: '-updated_at', filter: `lt(updated_at,${ts(104)})` },
      { sort: 'id', filter: `gt(id,${rows[9]?.id})` },
    ]) {
      const built = buildListSql('custom_api_entries', '*', scope, parseListQuery(query, spec, 25));
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${built.sql}`)
        .all(...built.params)
        .map((r) => (r as { detail: string }).detail)
        .join(' | ');
      expect(plan, JSON.stringify(query)).toMatch(/USING (COVERING )?INDEX/);
      expect(plan, JSON.stringify(query)).not.toMatch(/TEMP B-TREE|SCAN custom_api_entries$/);
    }
  });
});
