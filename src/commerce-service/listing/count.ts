/**
 * results.total of a list: exact, and cheap where it can be. Unfiltered, a kept counter; for a
 * filter that is one interval of an indexed column, the smaller of the two ways to count it;
 * otherwise the filter's own count(*).
 */
import { cachedStatement, type Db } from '../db.ts';
import { type ColumnInterval, singleColumnInterval } from './interval.ts';
import type { ListQuery, ListSpec } from './parse.ts';
import { assertIdentifier, type ListSql } from './sql.ts';

/** A rough position of a key on a number line, for guessing which side of a bound is bigger. */
function keyPosition(value: string): number {
  if (/^\d{4}-\d\d-\d\dT/.test(value)) {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms)) return ms;
  }
  const hex = value.replace(/-/g, '').slice(0, 12);
  if (/^[0-9a-f]{12}$/.test(hex)) return Number.parseInt(hex, 16);
  let position = 0;
  for (let i = 0; i < 4; i++) position = position * 65_536 + (value.charCodeAt(i) || 0);
  return position;
}

/** Rows each way is first counted up to (a capped count costs ~2x a plain one per row). */
const PROBE_ROWS = 512;

/**
 * results.total of a filter that is one interval of an indexed column, exactly, usually at the
 * cost of the smaller of the two ways to count it. `total` is the unfiltered count (a kept
 * counter). The rows of the scope split into three disjoint sets along the column's index:
 * below the interval, inside it, above it; so inside = total − below − above whenever the
 * interval is not empty.
 *
 * First both ways are counted with a LIMIT (bounded index range scans): a way that finishes
 * under it is exact, which settles the common cases (a pin near now has almost nothing above
 * it; a keyset page near the end has little inside). When both ways are larger, where the
 * bounds lie between the column's min and max (two index seeks) guesses the smaller one, which
 * is then counted with a plain count(*). The guess only decides the cost: a wrong one costs the
 * larger way, never more than counting all the rows.
 */
function countInterval(
  db: Db,
  from: string,
  scopeSql: string,
  scopeParams: unknown[],
  interval: ColumnInterval,
  countSql: string,
  countParams: unknown[],
  total: number,
): number {
  if (interval.empty || total === 0) return 0;
  const col = assertIdentifier(interval.column);
  const { lo, hi } = interval;
  const belowSql = lo ? `${col} ${lo.inclusive ? '<' : '<='} ?` : undefined;
  const aboveSql = hi ? `${col} ${hi.inclusive ? '>' : '>='} ?` : undefined;
  const bounded = (condition: string, value: string, limit: number): number =>
    Number(
      cachedStatement(
        db,
        `SELECT count(*) FROM (SELECT 1 FROM ${from} WHERE ${scopeSql} AND ${condition} LIMIT ?)`,
      )
        .pluck(true)
        .get(...scopeParams, value, limit),
    );
  const full = (condition: string, value: string): number =>
    Number(
      cachedStatement(db, `SELECT count(*) FROM ${from} WHERE ${scopeSql} AND ${condition}`)
        .pluck(true)
        .get(...scopeParams, value),
    );
  const fullInside = () =>
    Number(
      cachedStatement(db, countSql)
        .pluck(true)
        .get(...countParams),
    );
  const fullOutside = () =>
    total -
    (belowSql && lo ? full(belowSql, lo.value) : 0) -
    (aboveSql && hi ? full(aboveSql, hi.value) : 0);

  const below = belowSql && lo ? bounded(belowSql, lo.value, PROBE_ROWS) : 0;
  if (below < PROBE_ROWS) {
    const above = aboveSql && hi ? bounded(aboveSql, hi.value, PROBE_ROWS - below) : 0;
    if (below + above < PROBE_ROWS) return total - below - above;
  }
  // The filter's own count(*), capped: `SELECT count(*) FROM t WHERE …` → `SELECT 1 …`.
  const matching = countSql.replace(/^SELECT count\(\*\)/, 'SELECT 1');
  const inside = Number(
    cachedStatement(db, `SELECT count(*) FROM (${matching} LIMIT ?)`)
      .pluck(true)
      .get(...countParams, PROBE_ROWS),
  );
  if (inside < PROBE_ROWS) return inside;

  const edge = (dir: 'ASC' | 'DESC') =>
    cachedStatement(
      db,
      `SELECT ${col} FROM ${from} WHERE ${scopeSql} ORDER BY ${col} ${dir} LIMIT 1`,
    )
      .pluck(true)
      .get(...scopeParams);
  const min = edge('ASC');
  const max = edge('DESC');
  if (typeof min !== 'string' || typeof max !== 'string') return fullInside();
  const start = keyPosition(min);
  const span = keyPosition(max) - start;
  const at = (value: string | undefined, fallback: number) =>
    value === undefined || span <= 0
      ? fallback
      : Math.min(1, Math.max(0, (keyPosition(value) - start) / span));
  const insideShare = at(hi?.value, 1) - at(lo?.value, 0);
  return insideShare > 0.5 ? fullOutside() : fullInside();
}

/** Tables whose per-store row count triggers keep in store_row_counts (migration 0300). */
const STORE_COUNTED_TABLES = new Set(['orders', 'files', 'accounts']);

/**
 * The unfiltered total of a list when it is kept: the caller's `countAll`, else the
 * store_row_counts counter of a table that has one under scope `{ store_id }`.
 */
export function keptTotal(options: {
  db: Db;
  table: string;
  scope: Record<string, string | number>;
  countAll?: (() => number) | undefined;
}): (() => number) | undefined {
  if (options.countAll) return options.countAll;
  const scopeKeys = Object.keys(options.scope);
  const storeId = options.scope.store_id;
  if (!STORE_COUNTED_TABLES.has(options.table) || scopeKeys.length !== 1 || storeId === undefined) {
    return undefined;
  }
  const { db, table } = options;
  return () =>
    Number(
      cachedStatement(
        db,
        'SELECT row_count FROM store_row_counts WHERE store_id = ? AND table_name = ?',
      )
        .pluck(true)
        .get(storeId, table) ?? 0,
    );
}

/**
 * results.total: the kept counter when unfiltered; for a filter that is one interval of an
 * indexed column, total minus what lies outside it when that is cheaper (`countInterval`);
 * otherwise count(*) of the filter.
 */
export function countResults(
  db: Db,
  table: string,
  scope: Record<string, string | number>,
  query: ListQuery,
  built: ListSql,
  spec: ListSpec,
  countAll: (() => number) | undefined,
): number {
  const direct = () =>
    Number(
      cachedStatement(db, built.countSql)
        .pluck(true)
        .get(...built.countParams),
    );
  if (!countAll) return direct();
  if (query.conditions.length === 0) return countAll();
  const indexed = [...Object.values(spec.sorts), spec.idColumn ?? 'id'];
  const interval = singleColumnInterval(query.conditions, indexed);
  if (!interval) return direct();
  const scopeColumns = Object.keys(scope).map((c) => `${assertIdentifier(c)} = ?`);
  if (scopeColumns.length === 0) return direct();
  return countInterval(
    db,
    assertIdentifier(table),
    scopeColumns.join(' AND '),
    Object.values(scope),
    interval,
    built.countSql,
    built.countParams,
    countAll(),
  );
}
