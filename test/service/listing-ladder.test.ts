/**
 * The prefix ladder (migration 0410, ladder.ts) behind results.total of interval filters and
 * the page[offset] seek (listing/laddered-read.ts readWithLadder) must give the rows, the order
 * and the total of the plain SQL, for every list kind, laddered column and direction: checked
 * over HTTP against the plain statements of buildListSql on random data (large bursts of equal
 * timestamps, two stores interleaved in time, entries of three Custom APIs in two stores, ids
 * that are prefixes of each other), before and after random inserts, updates, store moves and
 * deletes (straight SQL and through the API). The ladder itself must always equal a recount of
 * the rows, also after migrating a database that had rows before the ladder existed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../../src/commerce-service/db.ts';
import { storeIdForClient } from '../../src/commerce-service/ids.ts';
import { listLadder, loadWithoutLadder, locate, rank } from '../../src/commerce-service/ladder.ts';
import { SEEK_MIN_OFFSET } from '../../src/commerce-service/listing/laddered-read.ts';
import { parseListQuery, standardListSpec } from '../../src/commerce-service/listing/parse.ts';
import { buildListSql } from '../../src/commerce-service/listing/sql.ts';
import { migrations } from '../../src/commerce-service/migrations.ts';
import { createCustomApi, prng, type ServiceUnderTest, startService } from './service-helpers.ts';

const iso = (ms: number) => new Date(ms).toISOString();
/** Start of the dense cluster of orders (its 10 ms bucket holds 520 rows). */
const CLUSTER_AT = '2025-01-15T12:00:00.000Z';
/** Rows of the cluster's middle millisecond, and of the files whose ids start with abc. */
const DENSE = SEEK_MIN_OFFSET + 600;
const LADDERED = ['orders', 'files', 'accounts', 'custom_api_entries'] as const;
type Table = (typeof LADDERED)[number];

/** Random rows: uuids from the PRNG, timestamps in bursts at every time scale. */
function generator(random: () => number) {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)] as T;
  const uuid = () => {
    const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
  };
  /** A clock that repeats its value in bursts (up to 300) and else jumps by 1 ms … 40 days. */
  const clock = (start: number) => {
    let at = start;
    let burst = 0;
    return () => {
      if (burst > 0) {
        burst--;
        return iso(at);
      }
      at += pick([0, 1, 7, 999, 1_000, 59_000, 3_600_000, 86_400_000, 40 * 86_400_000]);
      at += Math.floor(random() * pick([1, 10, 1_000, 60_000]));
      if (random() < 0.04) burst = 1 + Math.floor(random() * 300);
      return iso(at);
    };
  };
  /** updated_at: equal to created_at, a little later, or on a coarse grid (many ties). */
  const updatedAfter = (created: string) => {
    const r = random();
    if (r < 0.4) return created;
    if (r < 0.7) return iso(Date.parse(created) + Math.floor(random() * 5_000_000));
    return iso(Date.parse('2025-06-01T00:00:00.000Z') + Math.floor(random() * 40) * 3_600_000);
  };
  return { pick, uuid, clock, updatedAfter };
}

interface Kind {
  name: string;
  table: Table;
  path: string;
  scope: Record<string, string>;
  token?: string;
}

interface KeyRow {
  id: string;
  created_at: string;
  updated_at: string;
}

function insertRow(db: Db, table: Table, scope: Record<string, string>, row: KeyRow): void {
  const storeId = scope.store_id;
  switch (table) {
    case 'orders':
      db.prepare(
        `INSERT INTO orders (id, store_id, cart_id, status, payment, shipping, customer_name,
           customer_email, billing_address, shipping_address, currency, with_tax,
           without_discount, discount, created_at, updated_at)
         VALUES (?, ?, NULL, 'complete', 'paid', 'fulfilled', 'N', 'n@example.com', '{}', NULL,
           'USD', 100, 100, 0, ?, ?)`,
      ).run(row.id, storeId, row.created_at, row.updated_at);
      return;
    case 'files':
      db.prepare(
        `INSERT INTO files (id, store_id, file_name, mime_type, file_size, public, created_at,
           updated_at) VALUES (?, ?, 'f.txt', 'text/plain', 1, 0, ?, ?)`,
      ).run(row.id, storeId, row.created_at, row.updated_at);
      return;
    case 'accounts':
      db.prepare(
        `INSERT INTO accounts (id, store_id, name, created_at, updated_at)
         VALUES (?, ?, 'A', ?, ?)`,
      ).run(row.id, storeId, row.created_at, row.updated_at);
      return;
    default:
      db.prepare(
        `INSERT INTO custom_api_entries (store_id, custom_api_id, id, data, data_size,
           resource_version, etag_id, created_at, updated_at)
         VALUES (?, ?, ?, '{}', 0, 0, ?, ?, ?)`,
      ).run(storeId, scope.custom_api_id, row.id, row.id, row.created_at, row.updated_at);
  }
}

/** listing_prefix_counts as it must be: every row counted once per level of its column. */
function recount(db: Db): Map<string, number> {
  const rungs = db
    .prepare('SELECT id, table_name, parent_column, column_name, level FROM listing_ladders')
    .all() as {
    id: number;
    table_name: string;
    parent_column: string;
    column_name: string;
    level: number;
  }[];
  const expected = new Map<string, number>();
  for (const table of LADDERED) {
    const parent = table === 'custom_api_entries' ? 'custom_api_id' : "''";
    const rows = db
      .prepare(`SELECT store_id, ${parent} AS parent, id, created_at, updated_at FROM ${table}`)
      .all() as (KeyRow & { store_id: string; parent: string })[];
    for (const rung of rungs.filter((r) => r.table_name === table)) {
      for (const row of rows) {
        const value = row[rung.column_name as keyof KeyRow];
        // SQLite's substr counts characters (code points), not UTF-16 units.
        const prefix = Array.from(value).slice(0, rung.level).join('');
        const key = [row.store_id, row.parent, rung.id, prefix].join('|');
        expected.set(key, (expected.get(key) ?? 0) + 1);
      }
    }
  }
  return expected;
}

function storedLadder(db: Db): Map<string, number> {
  const rows = db
    .prepare('SELECT store_id, parent_id, ladder, prefix, n FROM listing_prefix_counts')
    .all() as { store_id: string; parent_id: string; ladder: number; prefix: string; n: number }[];
  const stored = new Map<string, number>();
  for (const row of rows) {
    expect(row.n, `${row.ladder} ${row.prefix}`).toBeGreaterThanOrEqual(0);
    if (row.n !== 0) {
      stored.set([row.store_id, row.parent_id, row.ladder, row.prefix].join('|'), row.n);
    }
  }
  return stored;
}

function expectLadderMatchesRows(db: Db): void {
  const expected = recount(db);
  expect(expected.size).toBeGreaterThan(0);
  expect(storedLadder(db)).toEqual(expected);
}

describe('lists read with the prefix ladder match plain SQL', () => {
  let dir: string;
  let service: ServiceUnderTest;
  let db: Db;
  let betaToken: string;
  const alpha = storeIdForClient('alpha');
  const beta = storeIdForClient('beta');
  const random = prng(4_102_025);
  const gen = generator(random);
  const { pick } = gen;
  const kinds: Kind[] = [];
  const apiIds: Record<string, string> = {};

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listing-ladder-test-'));
    const dbPath = join(dir, 'service.db');
    service = await startService({ dbPath });
    betaToken = await service.token('beta');
    db = openDatabase(dbPath);
    for (const [name, token] of [
      ['A1', undefined],
      ['A2', undefined],
      ['B1', betaToken],
    ] as const) {
      apiIds[name] = await createCustomApi(
        service,
        { name, slug: name.toLowerCase(), api_type: `${name.toLowerCase()}_ext` },
        token,
      );
    }
    const store = (storeId: string, token?: string) => ({
      scope: { store_id: storeId },
      ...(token ? { token } : {}),
    });
    kinds.push(
      { name: 'orders alpha', table: 'orders', path: '/v2/orders', ...store(alpha) },
      { name: 'orders beta', table: 'orders', path: '/v2/orders', ...store(beta, betaToken) },
      { name: 'files alpha', table: 'files', path: '/v2/files', ...store(alpha) },
      { name: 'files beta (empty)', table: 'files', path: '/v2/files', ...store(beta, betaToken) },
      { name: 'accounts alpha', table: 'accounts', path: '/v2/accounts', ...store(alpha) },
    );
    for (const [name, storeId, token] of [
      ['A1', alpha, undefined],
      ['A2', alpha, undefined],
      ['B1', beta, betaToken],
    ] as const) {
      const apiId = apiIds[name] ?? '';
      kinds.push({
        name: `entries ${name}`,
        table: 'custom_api_entries',
        path: `/v2/settings/extensions/custom-apis/${apiId}/entries`,
        scope: { store_id: storeId, custom_api_id: apiId },
        ...(token ? { token } : {}),
      });
    }
    const sizes: Record<string, number> = {
      'orders alpha': 3000,
      'orders beta': 500,
      'files alpha': 700,
      'accounts alpha': 700,
      'entries A1': 2500,
      'entries A2': 300,
      'entries B1': 400,
    };
    // Kinds share one clock per table, so the stores and Custom APIs interleave in time.
    const clocks = new Map<Table, () => string>();
    db.transaction(() => {
      for (const kind of kinds) {
        let clock = clocks.get(kind.table);
        if (!clock) {
          clock = gen.clock(Date.parse('2024-11-20T22:00:00.000Z'));
          clocks.set(kind.table, clock);
        }
        for (let i = 0; i < (sizes[kind.name] ?? 0); i++) {
          const created = clock();
          insertRow(db, kind.table, kind.scope, {
            id: gen.uuid(),
            created_at: created,
            updated_at: gen.updatedAfter(created),
          });
        }
      }
      // Dense clusters: more rows than SEEK_MIN_OFFSET in one finest bucket (10 ms of
      // created_at; the id prefix abc) with several distinct values, so bounds fall inside it.
      for (const [ms, count] of [
        [0, 100],
        [1, DENSE],
        [2, 100],
      ] as const) {
        for (let i = 0; i < count; i++) {
          const at = iso(Date.parse(CLUSTER_AT) + ms);
          insertRow(
            db,
            'orders',
            { store_id: alpha },
            { id: gen.uuid(), created_at: at, updated_at: at },
          );
        }
      }
      for (let i = 0; i < DENSE; i++) {
        const at = iso(Date.parse(CLUSTER_AT) + i * 1000);
        insertRow(
          db,
          'files',
          { store_id: alpha },
          {
            id: `abc${gen.uuid().slice(3)}`,
            created_at: at,
            updated_at: at,
          },
        );
      }
      // Ids that are prefixes of one another, shorter than the ladder's levels, and timestamps
      // that are not timestamps: the rank and the seek hold for any text.
      for (const id of [
        'a',
        'ab',
        'abc',
        'abcd',
        'ab~',
        'b',
        '0',
        '00',
        '0-',
        'f',
        'ff~',
        'é',
        'éé',
        'z😀a',
        '😀',
        '😀😀',
      ]) {
        insertRow(
          db,
          'accounts',
          { store_id: alpha },
          {
            id,
            created_at: pick(['2025', '2025-01', '2025-01-01T', 'z']),
            updated_at: pick(['', '2025-06-01T00:00:00.000Z', '2025-06-01T00:00:00.000']),
          },
        );
      }
    })();
  });
  afterAll(async () => {
    await service.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const spec = standardListSpec();
  const attrs = ['created_at', 'updated_at', 'id'] as const;
  type Attr = (typeof attrs)[number];

  const rowsOf = (kind: Kind): KeyRow[] =>
    db
      .prepare(
        `SELECT id, created_at, updated_at FROM ${kind.table}
         WHERE ${Object.keys(kind.scope)
           .map((c) => `${c} = ?`)
           .join(' AND ')} ORDER BY id`,
      )
      .all(...Object.values(kind.scope)) as KeyRow[];
  const kindNamed = (name: string): Kind => {
    const kind = kinds.find((k) => k.name === name);
    if (!kind) throw new Error(`no list ${name}`);
    return kind;
  };

  const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
  const timestamps = (rows: KeyRow[], attr: 'created_at' | 'updated_at'): string[] => {
    const valid = rows.map((r) => r[attr]).filter((v) => ISO.test(v));
    return valid.length > 0 ? valid : ['2025-01-01T00:00:00.000Z'];
  };

  /** A bound: mostly a stored value (hits ties), else ±1 ms, a short prefix, or out of range. */
  const valueFor = (rows: KeyRow[], attr: Attr): string => {
    const r = random();
    if (attr === 'id') {
      const stored = rows.length > 0 ? pick(rows).id : 'a';
      if (r < 0.7 || stored.length < 2) return stored;
      if (r < 0.9) return stored.slice(0, 1 + Math.floor(random() * 5));
      return pick(['0', 'ffffffff', 'g']);
    }
    // Filters take timestamps only (the odd values of accounts are sorted, never filtered on).
    const stored = pick(timestamps(rows, attr));
    if (r < 0.6) return stored;
    if (r < 0.75) return iso(Date.parse(stored) + pick([-1, 1]));
    if (r < 0.85) return iso(Date.parse(stored) + pick([-1, 1]) * 86_400_000);
    return pick(['2020-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z']);
  };
  const clause = (rows: KeyRow[], attr: Attr) =>
    `${pick(['eq', 'gt', 'ge', 'lt', 'le'] as const)}(${attr},${valueFor(rows, attr)})`;

  /** The filter shapes the gateway and clients send; some the ladder takes, some it must not. */
  const filterFor = (rows: KeyRow[], sortAttr: Attr): string | undefined => {
    const created = timestamps(rows, 'created_at');
    const max = created.reduce((m, v) => (v > m ? v : m));
    const pin = pick(['2030-01-01T00:00:00.000Z', max, pick(created)]);
    const row = pick(rows.filter((r) => ISO.test(r.created_at) && ISO.test(r.updated_at)));
    const other = pick(attrs.filter((a) => a !== sortAttr));
    switch (Math.floor(random() * 8)) {
      case 0:
        return undefined;
      case 1:
      case 2:
        return Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
          clause(rows, sortAttr),
        ).join(':');
      case 3:
        return Array.from({ length: 1 + Math.floor(random() * 2) }, () => clause(rows, other)).join(
          ':',
        );
      case 4:
        return `${pick(['gt', 'lt'])}(id,${valueFor(rows, 'id')}):${pick(['le', 'lt'])}(created_at,${pin})`;
      case 5:
        return `${clause(rows, sortAttr)}:${pick(['le', 'lt', 'ge'])}(${other},${pick([pin, valueFor(rows, other), '2020-01-01T00:00:00.000Z'])})`;
      case 6:
        return `ge(updated_at,${valueFor(rows, 'updated_at')}):le(created_at,${pin})`;
      default:
        return `eq(${sortAttr},${row?.[sortAttr] ?? pin}):${pick(['gt', 'lt'])}(id,${row?.id ?? '0'})`;
    }
  };

  /** The list over HTTP equals the plain SQL of the same parameters: rows, order and total. */
  async function expectPlain(kind: Kind, params: Record<string, string>): Promise<void> {
    const built = buildListSql(kind.table, 'id', kind.scope, parseListQuery(params, spec, 25));
    const expectedIds = (db.prepare(built.sql).all(...built.params) as { id: string }[]).map(
      (x) => x.id,
    );
    const expectedTotal = Number(
      db
        .prepare(built.countSql)
        .pluck()
        .get(...built.countParams),
    );
    const result = await service.call('GET', `${kind.path}?${new URLSearchParams(params)}`, {
      ...(kind.token ? { token: kind.token } : {}),
    });
    const label = `${kind.name} ${new URLSearchParams(params)}`;
    expect(result.status, `${label}: ${JSON.stringify(result.body)}`).toBe(200);
    const body = result.body as { data: { id: string }[]; meta: { results: { total: number } } };
    expect(body.meta.results.total, label).toBe(expectedTotal);
    expect(
      body.data.map((d) => d.id),
      label,
    ).toEqual(expectedIds);
  }

  /** One random list call compared with the plain SQL; true when it was a seek candidate. */
  async function checkOne(kind: Kind, rows: KeyRow[]): Promise<boolean> {
    const sortAttr = pick(attrs);
    const sort = `${random() < 0.5 ? '-' : ''}${sortAttr}`;
    const filter = filterFor(rows, sortAttr);
    const limit = pick([1, 3, 25, 100]);
    const counted = buildListSql(
      kind.table,
      'id',
      kind.scope,
      parseListQuery(filter === undefined ? { sort } : { sort, filter }, spec, 25),
    );
    const expectedTotal = Number(
      db
        .prepare(counted.countSql)
        .pluck()
        .get(...counted.countParams),
    );
    // Offsets: shallow, deep inside the matching rows (a seek), or past their end.
    const r = random();
    const offset =
      r < 0.25 || expectedTotal <= SEEK_MIN_OFFSET
        ? Math.floor(random() * SEEK_MIN_OFFSET)
        : r < 0.9
          ? SEEK_MIN_OFFSET + Math.floor(random() * (expectedTotal - SEEK_MIN_OFFSET))
          : expectedTotal + Math.floor(random() * 3);
    const params: Record<string, string> = {
      sort,
      'page[limit]': String(limit),
      'page[offset]': String(offset),
      ...(filter === undefined ? {} : { filter }),
    };
    const built = buildListSql(kind.table, 'id', kind.scope, parseListQuery(params, spec, 25));
    const _expectedIds = (db.prepare(built.sql).all(...built.params) as { id: string }[]).map(
      (x) => x.id,
    );
    await expectPlain(kind, params);
    return offset >= SEEK_MIN_OFFSET && offset < expectedTotal;
  }

  async function checkMany(calls: number): Promise<void> {
    const rowsByKind = new Map(kinds.map((k) => [k.name, rowsOf(k)]));
    // Lists long enough for deep offsets come up four times as often as the others.
    const weighted = kinds.flatMap((k) =>
      (rowsByKind.get(k.name)?.length ?? 0) > 2 * SEEK_MIN_OFFSET ? [k, k, k, k] : [k],
    );
    let seeks = 0;
    for (let i = 0; i < calls; i++) {
      const kind = pick(weighted);
      if (await checkOne(kind, rowsByKind.get(kind.name) ?? [])) seeks++;
    }
    // Deep pages that return rows are a good share of the calls, so the seek is exercised.
    expect(seeks).toBeGreaterThan(calls / 8);
  }

  it('holds counts equal to a recount of the rows', () => {
    expectLadderMatchesRows(db);
  });

  it('serves the rows, order and total of plain SQL for random filters, sorts and offsets', async () => {
    await checkMany(500);
  });

  it('seeks exactly when a bound and the target share one finest bucket', async () => {
    const t = (ms: number) => iso(Date.parse(CLUSTER_AT) + ms);
    const orders = kindNamed('orders alpha');
    for (const filter of [
      `gt(created_at,${t(0)})`,
      `ge(created_at,${t(1)})`,
      `gt(created_at,${t(1)})`,
      `le(created_at,${t(1)})`,
      `lt(created_at,${t(2)})`,
      `ge(created_at,${t(0)}):le(created_at,${t(2)})`,
      `gt(created_at,${t(0)}):lt(created_at,${t(2)})`,
      `ge(created_at,${t(1)}):le(created_at,${t(1)})`,
    ]) {
      for (const sort of ['created_at', '-created_at']) {
        for (const offset of [0, 99, 100, 1, 250, 499, 599, 699, 799].map(
          (o) => SEEK_MIN_OFFSET + o,
        )) {
          await expectPlain(orders, {
            sort,
            filter,
            'page[limit]': '25',
            'page[offset]': `${offset}`,
          });
        }
      }
    }
    const files = kindNamed('files alpha');
    const ids = rowsOf(files)
      .map((r) => r.id)
      .filter((id) => id.startsWith('abc'))
      .sort();
    for (const filter of [
      `gt(id,${ids[30]})`,
      `ge(id,${ids[30]}):lt(id,${ids[DENSE - 30]})`,
      `le(id,${ids[DENSE - 30]})`,
      `gt(id,abc)`,
      `lt(id,abd)`,
    ]) {
      for (const sort of ['id', '-id']) {
        for (const offset of [0, 200, 539, 700, 5000].map((o) => SEEK_MIN_OFFSET + o)) {
          await expectPlain(files, {
            sort,
            filter,
            'page[limit]': '25',
            'page[offset]': `${offset}`,
          });
        }
      }
    }
  });

  it('walks a whole list in deep pages of every sort without gaps or repeats', async () => {
    for (const kind of kinds.filter((k) => k.name === 'orders alpha' || k.name === 'entries A1')) {
      for (const sort of ['created_at', '-created_at', 'updated_at', '-id']) {
        // The whole list in one plain query: the same SQL with a limit no page can have.
        const query = { ...parseListQuery({ sort }, spec, 25), limit: 1_000_000 };
        const built = buildListSql(kind.table, 'id', kind.scope, query);
        const expected = (db.prepare(built.sql).all(...built.params) as { id: string }[]).map(
          (x) => x.id,
        );
        const seen: string[] = [];
        for (let offset = 0; offset < expected.length; offset += 100) {
          const result = await service.call(
            'GET',
            `${kind.path}?sort=${sort}&page[limit]=100&page[offset]=${offset}`,
          );
          seen.push(...(result.body.data as { id: string }[]).map((d) => d.id));
        }
        expect(seen, `${kind.name} ${sort}`).toEqual(expected);
      }
    }
  });

  it('keeps both right through writes: SQL and API inserts, updates, moves and deletes', async () => {
    const orders = rowsOf(kindNamed('orders alpha'));
    db.transaction(() => {
      const clock = gen.clock(Date.parse('2025-02-01T00:00:00.000Z'));
      for (let i = 0; i < 300; i++) {
        // Half join an existing timestamp (a burst grows), half are new.
        const created = random() < 0.5 ? pick(orders).created_at : clock();
        insertRow(
          db,
          'orders',
          { store_id: alpha },
          {
            id: gen.uuid(),
            created_at: created,
            updated_at: gen.updatedAfter(created),
          },
        );
      }
      const update = db.prepare('UPDATE orders SET updated_at = ? WHERE id = ?');
      for (let i = 0; i < 200; i++) {
        const row = pick(orders);
        update.run(
          random() < 0.5 ? pick(orders).updated_at : gen.updatedAfter(row.created_at),
          row.id,
        );
      }
      const move = db.prepare('UPDATE orders SET store_id = ? WHERE id = ?');
      for (let i = 0; i < 20; i++) move.run(beta, pick(orders).id);
      db.prepare('UPDATE orders SET created_at = ? WHERE id = ?').run(
        '2024-12-31T23:59:59.999Z',
        pick(orders).id,
      );
      const remove = db.prepare('DELETE FROM orders WHERE id = ?');
      for (let i = 0; i < 200; i++) remove.run(pick(orders).id);
      const accounts = rowsOf(kindNamed('accounts alpha'));
      for (let i = 0; i < 50; i++) {
        db.prepare('DELETE FROM accounts WHERE id = ?').run(pick(accounts).id);
      }
      const entries = rowsOf(kindNamed('entries A1'));
      for (let i = 0; i < 100; i++) {
        db.prepare('UPDATE custom_api_entries SET updated_at = ? WHERE id = ?').run(
          gen.updatedAfter(pick(entries).created_at),
          pick(entries).id,
        );
      }
    })();

    const a1 = `/v2/settings/extensions/custom-apis/${apiIds.A1}/entries`;
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      const result = await service.call('POST', a1, { json: { data: { n: i } } });
      expect(result.status).toBe(201);
      created.push(result.body.data.id);
    }
    for (const id of [
      ...created.slice(0, 3),
      ...rowsOf(kindNamed('entries A1'))
        .slice(0, 3)
        .map((r) => r.id),
    ]) {
      const result = await service.call('PUT', `${a1}/${id}`, { json: { data: { m: 1 } } });
      expect(result.status).toBe(200);
    }
    for (const id of created.slice(3)) {
      expect((await service.call('DELETE', `${a1}/${id}`)).status).toBe(204);
    }
    const accountIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const result = await service.call('POST', '/v2/accounts', {
        json: { data: { type: 'account', name: `Acct ${i}` } },
      });
      expect(result.status).toBe(201);
      accountIds.push(result.body.data.id);
    }
    expect(
      (
        await service.call('PUT', `/v2/accounts/${accountIds[0]}`, {
          json: { data: { name: 'Renamed' } },
        })
      ).status,
    ).toBe(200);
    expect((await service.call('DELETE', `/v2/accounts/${accountIds[1]}`)).status).toBe(204);
    const form = new FormData();
    form.append('file', new Blob(['hello'], { type: 'text/plain' }), 'hello.txt');
    const upload = await fetch(`${service.url}/v2/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await service.token()}` },
      body: form,
    });
    expect(upload.status).toBe(201);
    const cart = await service.call('POST', '/v2/carts', { json: { data: { name: 'C' } } });
    const cartId = cart.body.data.id as string;
    await service.call('POST', `/v2/carts/${cartId}/items`, {
      json: {
        data: {
          type: 'custom_item',
          name: 'Kettle',
          sku: 'KET-1',
          quantity: 1,
          price: { amount: 5900, includes_tax: true },
        },
      },
    });
    const checkout = await service.call('POST', `/v2/carts/${cartId}/checkout`, {
      json: {
        data: {
          customer: { email: 'ada@example.com', name: 'Ada' },
          billing_address: {
            first_name: 'Ada',
            last_name: 'Lovelace',
            line_1: '12 Market Street',
            region: 'OR',
            postcode: '97201',
            country: 'US',
          },
        },
      },
    });
    expect(checkout.status).toBe(201);
    // Deleting a Custom API deletes its entries by cascade, which the triggers see too.
    expect(
      (await service.call('DELETE', `/v2/settings/extensions/custom-apis/${apiIds.A2}`)).status,
    ).toBe(204);
    kinds.splice(kinds.indexOf(kindNamed('entries A2')), 1);

    expectLadderMatchesRows(db);
    await checkMany(300);
  });

  it('ranks and locates like a sort of the rows, for odd values too', () => {
    const kind = kindNamed('accounts alpha'); // with the non-uuid ids and timestamps
    const ladder = listLadder(db, kind.table, kind.scope);
    if (!ladder) throw new Error('accounts have a ladder');
    const rows = rowsOf(kind);
    const compare = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    for (const attr of attrs) {
      const values = rows.map((r) => r[attr]).sort(compare);
      const probes = [
        ...values.filter(() => random() < 0.2),
        ...['a', 'ab', 'ab}', '0', '', '~', 'z', 'é', 'éa', 'z😀', 'z😀b', '😀', '\u{10ffff}'],
      ];
      for (const probe of probes) {
        const below = values.filter((v) => compare(v, probe) < 0).length;
        const atMost = values.filter((v) => compare(v, probe) <= 0).length;
        expect(rank(ladder, attr, probe, false), `${attr} < ${probe}`).toBe(below);
        expect(rank(ladder, attr, probe, true), `${attr} <= ${probe}`).toBe(atMost);
      }
      for (let position = 0; position < values.length; position += 1 + Math.floor(random() * 9)) {
        const bucket = locate(ladder, attr, position);
        if (!bucket) throw new Error(`${attr}: no bucket for ${position}`);
        const inBucket = values.filter((v) => v.startsWith(bucket.prefix)).length;
        // Buckets of the finest level may be shorter than it only for values that short.
        expect(bucket.before, `${attr} @${position}`).toBe(
          values.filter((v) => compare(v, bucket.prefix) < 0).length,
        );
        expect(bucket.n).toBeGreaterThanOrEqual(1);
        expect(bucket.before <= position && position < bucket.before + bucket.n).toBe(true);
        expect(inBucket).toBeGreaterThanOrEqual(bucket.n);
      }
      expect(locate(ladder, attr, values.length)).toBeUndefined();
    }
  });

  it('bulk loads without the triggers and recounts the store afterwards', () => {
    const triggers = () =>
      db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'").pluck().get();
    const before = triggers();
    db.transaction(() => {
      loadWithoutLadder(db, beta, ['orders', 'accounts'], () => {
        const clock = gen.clock(Date.parse('2025-03-01T00:00:00.000Z'));
        for (let i = 0; i < 400; i++) {
          const at = clock();
          insertRow(
            db,
            pick(['orders', 'accounts'] as const),
            { store_id: beta },
            {
              id: gen.uuid(),
              created_at: at,
              updated_at: at,
            },
          );
        }
      });
    })();
    expect(triggers()).toBe(before);
    expectLadderMatchesRows(db);
    // The triggers are back: a later write is counted.
    insertRow(
      db,
      'orders',
      { store_id: beta },
      {
        id: gen.uuid(),
        created_at: '2025-03-05T00:00:00.000Z',
        updated_at: '2025-03-05T00:00:00.000Z',
      },
    );
    expectLadderMatchesRows(db);
    expect(() => loadWithoutLadder(db, beta, ['orders'], () => 0)).toThrow(/transaction/);
  });
});

describe('migration 0410 on a database that already has rows', () => {
  it('backfills the ladder from the existing rows, then serves exact lists', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'listing-ladder-migration-'));
    const dbPath = join(dir, 'old.db');
    const at = migrations.findIndex((m) => m.id === '0410-listing-prefix-ladder');
    expect(at).toBeGreaterThan(0);
    const random = prng(77);
    const gen = generator(random);
    const alpha = storeIdForClient('alpha');
    const beta = storeIdForClient('beta');
    let service: ServiceUnderTest | undefined;
    try {
      const old = openDatabase(dbPath, migrations.slice(0, at));
      const now = '2025-01-01T00:00:00.000Z';
      old.transaction(() => {
        for (const [storeId, client] of [
          [alpha, 'alpha'],
          [beta, 'beta'],
        ]) {
          old
            .prepare(
              'INSERT INTO stores (id, client_id, created_at, updated_at) VALUES (?, ?, ?, ?)',
            )
            .run(storeId, client, now, now);
        }
        old
          .prepare(
            `INSERT INTO custom_apis (id, store_id, name, slug, api_type, created_at, updated_at)
           VALUES ('api-1', ?, 'Old', 'old', 'old_ext', ?, ?)`,
          )
          .run(alpha, now, now);
        const clock = gen.clock(Date.parse('2024-12-01T00:00:00.000Z'));
        for (let i = 0; i < 1500; i++) {
          const table = gen.pick(LADDERED);
          const storeId = table === 'custom_api_entries' ? alpha : gen.pick([alpha, beta]);
          const created = clock();
          insertRow(
            old,
            table,
            { store_id: storeId, custom_api_id: 'api-1' },
            {
              id: gen.uuid(),
              created_at: created,
              updated_at: gen.updatedAfter(created),
            },
          );
        }
      })();
      expect(
        old
          .prepare("SELECT count(*) FROM sqlite_master WHERE name = 'listing_prefix_counts'")
          .pluck()
          .get(),
      ).toBe(0);
      old.close();

      const migrated = openDatabase(dbPath);
      try {
        expectLadderMatchesRows(migrated);
      } finally {
        migrated.close();
      }
      service = await startService({ dbPath });
      const reader = openDatabase(dbPath);
      try {
        const spec = standardListSpec();
        for (const [sort, filter, offset] of [
          ['created_at', undefined, 300],
          ['-updated_at', undefined, 200],
          ['id', 'le(created_at,2030-01-01T00:00:00.000Z)', 250],
          ['-created_at', 'ge(created_at,2024-12-15T00:00:00.000Z)', 150],
        ] as const) {
          const params: Record<string, string> = {
            sort,
            'page[limit]': '50',
            'page[offset]': String(offset),
            ...(filter ? { filter } : {}),
          };
          const built = buildListSql(
            'orders',
            'id',
            { store_id: alpha },
            parseListQuery(params, spec, 25),
          );
          const result = await service.call('GET', `/v2/orders?${new URLSearchParams(params)}`);
          expect(result.status).toBe(200);
          expect(result.body.data.map((d: { id: string }) => d.id)).toEqual(
            (reader.prepare(built.sql).all(...built.params) as { id: string }[]).map((x) => x.id),
          );
          expect(result.body.meta.results.total).toBe(
            reader
              .prepare(built.countSql)
              .pluck()
              .get(...built.countParams),
          );
        }
      } finally {
        reader.close();
      }
    } finally {
      await service?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
