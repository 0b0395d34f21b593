/**
 * Reading (and bulk-rebuilding) the prefix ladder of migration 0410: for each list scope and
 * sortable column, `listing_prefix_counts` holds how many rows have each prefix of the column's
 * value at a few prefix lengths (levels), kept exact by triggers. listing/laddered-read.ts uses it for the
 * two costs that used to grow with the list: results.total of an interval filter and the seek
 * of a deep `page[offset]`.
 *
 * Why the rank is exact. Let the levels be L1 < … < Lk and X a bound. Every row value v < X
 * has a first level i at which its prefix v[0:Li] differs from X[0:Li] (then v[0:Li] < X[0:Li])
 * or none (v and X share the finest prefix X[0:Lk]). At level i, the buckets p with
 * X[0:Li−1] <= p < X[0:Li] are exactly the prefixes that start with X[0:Li−1] and sort before
 * X[0:Li]: a p >= X[0:Li−1] that does not start with it differs from it at some character
 * where it is greater, so it is also greater than X[0:Li]. Hence
 *   rank(X) = Σ_i Σ { n(p) : level Li, X[0:Li−1] <= p < X[0:Li] } + #{ v : X[0:Lk] <= v < X }
 * counts every v < X exactly once, whatever the lengths of v and X (a value shorter than a
 * level is its own prefix there). The last term is an index range count inside one finest
 * bucket. Prefixes are cut by SQLite (substr of the bound), in the same characters as the
 * triggers cut the stored values, so this holds for any text.
 *
 * Buckets sort in the column's order, so descending the ladder by cumulative counts finds the
 * finest bucket holding the row at any position: that is the offset seek.
 */
import { cachedStatement, type Db } from './db.ts';

/** One level of a column's ladder: its `listing_ladders.id` and prefix length. */
interface Rung {
  id: number;
  level: number;
}

interface TableLadder {
  /** Scope column besides store_id ('' for the store's own lists). */
  parentColumn: string;
  /** Rungs of each laddered column, coarsest first. */
  columns: Map<string, Rung[]>;
}

const configs = new WeakMap<Db, Map<string, TableLadder>>();

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function identifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`Not a SQL identifier: ${name}`);
  return name;
}

/**
 * The ladder layout recorded in the database (listing_ladders), read once per connection.
 * Undefined when the database predates migration 0410 (a caller passing its own migrations).
 */
function ladderConfig(db: Db): Map<string, TableLadder> | undefined {
  const cached = configs.get(db);
  if (cached) return cached;
  const present = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'listing_ladders'")
    .get();
  if (!present) return undefined;
  const rows = db
    .prepare(
      `SELECT id, table_name, parent_column, column_name, level FROM listing_ladders
       ORDER BY table_name, column_name, level`,
    )
    .all() as {
    id: number;
    table_name: string;
    parent_column: string;
    column_name: string;
    level: number;
  }[];
  const config = new Map<string, TableLadder>();
  for (const row of rows) {
    let table = config.get(row.table_name);
    if (!table) {
      table = { parentColumn: row.parent_column, columns: new Map() };
      config.set(row.table_name, table);
    }
    const rungs = table.columns.get(row.column_name) ?? [];
    rungs.push({ id: row.id, level: row.level });
    table.columns.set(row.column_name, rungs);
  }
  configs.set(db, config);
  return config;
}

/** The ladder of one list: a table and one scope (a store, or a store's Custom API). */
export interface ListLadder {
  db: Db;
  table: string;
  /** The scope as terms on the table: `store_id = @store[ AND custom_api_id = @parent]`. */
  scopeSql: string;
  /** store_id and parent_id of the scope's ladder rows, as named parameters. */
  key: { store: string; parent: string };
  columns: Map<string, Rung[]>;
}

/**
 * The ladder of `table` for `scope` when there is one: the table is laddered and the scope is
 * exactly its list scope (`{ store_id }`, or `{ store_id, custom_api_id }` for entries).
 */
export function listLadder(
  db: Db,
  table: string,
  scope: Record<string, string | number>,
): ListLadder | undefined {
  const config = ladderConfig(db)?.get(table);
  if (!config) return undefined;
  const { parentColumn } = config;
  const store = scope.store_id;
  const parent = parentColumn ? scope[parentColumn] : '';
  const size = parentColumn ? 2 : 1;
  if (
    typeof store !== 'string' ||
    typeof parent !== 'string' ||
    Object.keys(scope).length !== size
  ) {
    return undefined;
  }
  return {
    db,
    table: identifier(table),
    scopeSql: parentColumn
      ? `store_id = @store AND ${identifier(parentColumn)} = @parent`
      : 'store_id = @store',
    key: { store, parent },
    columns: config.columns,
  };
}

function rungsOf(ladder: ListLadder, column: string): Rung[] {
  const rungs = ladder.columns.get(column);
  if (!rungs || rungs.length === 0) throw new Error(`${ladder.table}.${column} has no ladder`);
  return rungs;
}

/**
 * Rows of the scope whose `column` is below `value` (or at most `value` when `inclusive`),
 * exactly: one statement of one short range sum per level plus an index count inside the
 * value's finest bucket.
 */
export function rank(
  ladder: ListLadder,
  column: string,
  value: string,
  inclusive: boolean,
): number {
  const rungs = rungsOf(ladder, column);
  const col = identifier(column);
  let previous = "''";
  const terms = rungs.map((rung) => {
    const prefix = `substr(@value, 1, ${rung.level})`;
    const term =
      `(SELECT total(n) FROM listing_prefix_counts WHERE store_id = @store ` +
      `AND parent_id = @parent AND ladder = ${rung.id} AND prefix >= ${previous} AND prefix < ${prefix})`;
    previous = prefix;
    return term;
  });
  terms.push(
    `(SELECT count(*) FROM ${ladder.table} WHERE ${ladder.scopeSql} ` +
      `AND ${col} >= ${previous} AND ${col} ${inclusive ? '<=' : '<'} @value)`,
  );
  return Number(
    cachedStatement(ladder.db, `SELECT ${terms.join(' + ')}`)
      .pluck(true)
      .get({ ...ladder.key, value }),
  );
}

/**
 * A bucket of the ladder: its prefix, the smallest string above every string that starts with
 * it (null when SQLite cannot form one), the rows of the scope before it, and its own rows.
 */
export interface Bucket {
  prefix: string;
  end: string | null;
  before: number;
  n: number;
}

/**
 * A bucket this small is not split further by locate: stepping over at most this many index
 * entries costs less than one more ladder statement.
 */
export const SMALL_BUCKET = 256;

/**
 * The bucket of `column` that holds the row at `position` (0-based, ascending column order,
 * counting every row of the scope), found by descending the ladder: at each level, among the
 * children of the bucket chosen above (the prefixes in [prefix, end)), the one whose running
 * count passes the position. The descent stops at the finest level or at a bucket of at most
 * SMALL_BUCKET rows; every row of a bucket shares its prefix, so its rows are one run of the
 * column's order either way. Undefined when `position` is outside the scope.
 */
export function locate(ladder: ListLadder, column: string, position: number): Bucket | undefined {
  let bucket: Bucket | undefined;
  for (const rung of rungsOf(ladder, column)) {
    if (bucket && (bucket.n <= SMALL_BUCKET || bucket.end === null)) break;
    const within = position - (bucket?.before ?? 0);
    const found = cachedStatement(
      ladder.db,
      `SELECT prefix, n, before,
         substr(prefix, 1, length(prefix) - 1) || char(unicode(substr(prefix, -1)) + 1) AS "end"
       FROM (
         SELECT prefix, n, sum(n) OVER (ORDER BY prefix ROWS UNBOUNDED PRECEDING) - n AS before
         FROM listing_prefix_counts
         WHERE store_id = @store AND parent_id = @parent AND ladder = ${rung.id}
           ${bucket ? 'AND prefix >= @prefix AND prefix < @end' : ''}
       )
       WHERE before <= @within AND before + n > @within`,
    ).get({
      ...ladder.key,
      within,
      ...(bucket ? { prefix: bucket.prefix, end: bucket.end } : {}),
    }) as Bucket | undefined;
    if (!found) return undefined;
    bucket = { ...found, before: (bucket?.before ?? 0) + Number(found.before), n: Number(found.n) };
  }
  return bucket;
}

/**
 * The smallest or largest value of `column` in the scope (an index seek), or undefined when
 * the scope has no rows.
 */
export function edge(ladder: ListLadder, column: string, which: 'min' | 'max'): string | undefined {
  const value = cachedStatement(
    ladder.db,
    `SELECT ${which}(${identifier(column)}) FROM ${ladder.table} WHERE ${ladder.scopeSql}`,
  )
    .pluck(true)
    .get(ladder.key);
  return value === null || value === undefined ? undefined : String(value);
}

/**
 * Bulk loads: runs `load` with the ladder triggers of `tables` dropped, then puts them back and
 * recounts those tables' ladder rows of `storeId` from the rows themselves: the finest level
 * grouped from the table, each coarser level from the one below it, which costs a fraction of
 * an upsert per level for every row written (the seed of 25,000 orders: about 0.6 s instead of
 * 3.5 s on the 2-core box). `load` must write rows of `storeId` only. Must run inside a
 * transaction, so no one ever sees the ladder without its triggers or out of date.
 */
export function loadWithoutLadder<T>(
  db: Db,
  storeId: string,
  tables: readonly string[],
  load: () => T,
): T {
  if (!db.inTransaction) throw new Error('loadWithoutLadder must run inside a transaction');
  const config = ladderConfig(db);
  const laddered = tables.flatMap((table) => {
    const ladder = config?.get(table);
    return ladder ? [{ table, ladder }] : [];
  });
  const triggers = laddered.flatMap(
    ({ table }) =>
      db
        .prepare(
          "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? AND name GLOB ?",
        )
        .all(table, `${table}_ladder_*`) as { name: string; sql: string }[],
  );
  for (const trigger of triggers) db.exec(`DROP TRIGGER "${trigger.name}"`);
  const result = load();
  for (const trigger of triggers) db.exec(trigger.sql);
  for (const { table, ladder } of laddered) {
    const from = identifier(table);
    const parent = ladder.parentColumn ? identifier(ladder.parentColumn) : "''";
    for (const [column, rungs] of ladder.columns) {
      const col = identifier(column);
      const own = [...rungs].reverse();
      db.prepare(
        `DELETE FROM listing_prefix_counts WHERE ladder IN (${own.map((r) => r.id).join(', ')})
           AND store_id = ?`,
      ).run(storeId);
      own.forEach((rung, i) => {
        const below = own[i - 1];
        db.prepare(
          below
            ? `INSERT INTO listing_prefix_counts (store_id, parent_id, ladder, prefix, n)
               SELECT store_id, parent_id, ${rung.id}, substr(prefix, 1, ${rung.level}), sum(n)
               FROM listing_prefix_counts WHERE ladder = ${below.id} AND store_id = ?
               GROUP BY parent_id, substr(prefix, 1, ${rung.level})`
            : `INSERT INTO listing_prefix_counts (store_id, parent_id, ladder, prefix, n)
               SELECT store_id, ${parent}, ${rung.id}, substr(${col}, 1, ${rung.level}), count(*)
               FROM ${from} WHERE store_id = ?
               GROUP BY ${parent}, substr(${col}, 1, ${rung.level})`,
        ).run(storeId);
      });
    }
  }
  return result;
}
