/**
 * Reading a page and its results.total with the prefix ladder (ladder.ts) of the big lists
 * (orders, files, accounts, entries): a total of ranks instead of a count, and a deep
 * `page[offset]` that seeks its first row instead of stepping over the skipped ones.
 */
import { cachedStatement, type Db } from '../db.ts';
import { edge, type ListLadder, listLadder, locate, rank } from '../ladder.ts';
import { type ColumnInterval, compareText, singleColumnInterval } from './interval.ts';
import type { ListQuery, ListSpec, RangeComparison, SqlCondition } from './parse.ts';
import { buildListSql, type ListSql } from './sql.ts';

/**
 * From this `page[offset]` on, a page on a laddered sort column seeks its start with the ladder
 * instead of stepping over the skipped index entries: stepping costs in proportion to the
 * offset, a seek a few ladder statements plus the residual steps inside the bucket found,
 * whatever the offset, so the seek pays from about here on.
 */
export const SEEK_MIN_OFFSET = 1000;

/**
 * When the filter, once bounds that every row of the scope satisfies are dropped, is one
 * interval of a laddered column (or nothing), reads the page and results.total with the ladder:
 * total = rank(upper bound) − rank(lower bound), and an offset past SEEK_MIN_OFFSET on the
 * sort column starts the page query at the finest bucket holding its first row, leaving a
 * residual OFFSET inside that bucket. Ties share a finest bucket (equal values share every
 * prefix), so the residual OFFSET keeps the (value, id) order exact. Undefined when the shape
 * is not one the ladder answers; the caller then reads as before.
 *
 * Runs inside the caller's read transaction: the min/max checks, the ladder and the rows are
 * one snapshot, so a dropped bound is vacuous for exactly the rows read.
 */
export function readWithLadder<Row>(
  db: Db,
  options: {
    table: string;
    columns?: string;
    scope: Record<string, string | number>;
    spec: ListSpec;
  },
  query: ListQuery,
  built: ListSql,
  countAll: () => number,
): { rows: Row[]; total: number } | undefined {
  const ladder = listLadder(db, options.table, options.scope);
  if (!ladder) return undefined;
  const sortColumn = query.sortColumn;
  const kept: SqlCondition[] = [];
  for (const condition of query.conditions) {
    const range = condition.range;
    if (!range || !ladder.columns.has(range.column)) {
      return undefined;
    }
    if (range.column === sortColumn || range.op === '=' || !isVacuous(ladder, range)) {
      kept.push(condition);
    }
  }
  let interval: ColumnInterval | undefined;
  if (kept.length > 0) {
    interval = singleColumnInterval(kept, [...ladder.columns.keys()]);
    if (!interval) return undefined;
  }

  if (interval?.empty) return { rows: [], total: 0 };
  // The interval is the ascending positions [below, upTo) of its column's order. A bound that
  // every row meets (a pin at or after the newest row) needs no rank: an index seek says so.
  const lo = interval?.lo;
  const hi = interval?.hi;
  const column = interval?.column ?? sortColumn;
  const below =
    lo === undefined ||
    isVacuous(ladder, { column, op: lo.inclusive ? '>=' : '>', value: lo.value })
      ? 0
      : rank(ladder, column, lo.value, !lo.inclusive);
  const upTo =
    hi === undefined ||
    isVacuous(ladder, { column, op: hi.inclusive ? '<=' : '<', value: hi.value })
      ? countAll()
      : rank(ladder, column, hi.value, hi.inclusive);
  const total = upTo - below;

  const seekable =
    query.offset >= SEEK_MIN_OFFSET &&
    ladder.columns.has(sortColumn) &&
    (interval === undefined || interval.column === sortColumn);
  if (!seekable) {
    return { rows: cachedStatement(db, built.sql).all(...built.params) as Row[], total };
  }
  if (query.offset >= total) return { rows: [], total };
  const target = query.descending ? upTo - 1 - query.offset : below + query.offset;
  const bucket = locate(ladder, sortColumn, target);
  if (!bucket) return undefined;
  // The bound skips the rows before the bucket (ascending) or after it (descending); the
  // residual OFFSET counts the matching rows of the bucket between its edge and the target.
  let seek: SqlCondition;
  let residual: number;
  if (query.descending) {
    const end = bucket.end;
    if (end === null) return undefined;
    seek = {
      sql: `${sortColumn} < ?`,
      params: [end],
      range: { column: sortColumn, op: '<', value: end },
    };
    residual = Math.min(upTo, bucket.before + bucket.n) - 1 - target;
  } else {
    seek = {
      sql: `${sortColumn} >= ?`,
      params: [bucket.prefix],
      range: { column: sortColumn, op: '>=', value: bucket.prefix },
    };
    residual = target - Math.max(below, bucket.before);
  }
  const seeked = buildListSql(
    options.table,
    options.columns ?? '*',
    options.scope,
    { ...query, conditions: [...kept, seek], offset: residual },
    options.spec.idColumn,
  );
  return { rows: cachedStatement(db, seeked.sql).all(...seeked.params) as Row[], total };
}

/**
 * Whether every row of the scope satisfies a one-sided bound (e.g. the gateway's pin
 * le(created_at,PIN) with PIN at or after the newest row): one index seek for min or max.
 */
function isVacuous(ladder: ListLadder, range: RangeComparison): boolean {
  const upper = range.op === '<' || range.op === '<=';
  const extreme = edge(ladder, range.column, upper ? 'max' : 'min');
  if (extreme === undefined) return true;
  const cmp = compareText(extreme, range.value);
  switch (range.op) {
    case '<':
      return cmp < 0;
    case '<=':
      return cmp <= 0;
    case '>':
      return cmp > 0;
    default:
      return cmp >= 0;
  }
}
