/**
 * The SQL of one list call: the page and the matching count, both with bound parameters, laid
 * out so SQLite answers them with a range scan of the list's `(scope…, sort column, id)` index.
 */
import type { ListQuery } from './parse.ts';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_.]*$/;

/** A table or column name from code; a name that is not one is a bug, never a request's. */
export function assertIdentifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`Not a SQL identifier: ${name}`);
  return name;
}

/** The SQL of one list call: page rows and the matching count, both with bound parameters. */
export interface ListSql {
  sql: string;
  params: unknown[];
  countSql: string;
  countParams: unknown[];
}

/**
 * Builds the page and count statements. `scope` is the equality prefix every row must match
 * (`{ store_id, custom_api_id }`); it comes first so it lines up with the
 * `(store_id[, parent], sort column, id)` indexes and the query is an index range scan.
 */
export function buildListSql(
  table: string,
  columns: string,
  scope: Record<string, string | number>,
  query: ListQuery,
  idColumn = 'id',
): ListSql {
  const where: string[] = [];
  const pageWhere: string[] = [];
  const params: unknown[] = [];
  for (const [column, value] of Object.entries(scope)) {
    where.push(`${assertIdentifier(column)} = ?`);
    pageWhere.push(`${assertIdentifier(column)} = ?`);
    params.push(value);
  }
  const sortColumn = assertIdentifier(query.sortColumn);
  const tie = assertIdentifier(idColumn);
  // A range on the sort column, or on the tie column under an equality on the sort column (the
  // keyset form eq(created_at,T):gt(id,X)), is a range of the sort index. A range on any other
  // column (the gateway's pin le(created_at,…) under sort=id) would tempt SQLite into that
  // column's index and a temporary sort of everything it matches, which is nearly the whole
  // store; the unary `+` keeps the term a plain check on the rows the sort index yields.
  const sortEquality = query.conditions.some(
    (c) => c.range?.column === sortColumn && c.range.op === '=',
  );
  for (const condition of query.conditions) {
    where.push(condition.sql);
    params.push(...condition.params);
    const range = condition.range;
    const offIndex =
      range !== undefined &&
      range.op !== '=' &&
      range.column !== sortColumn &&
      !(range.column === tie && sortEquality);
    pageWhere.push(offIndex ? `+${condition.sql}` : condition.sql);
  }
  const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const pageWhereSql = pageWhere.length > 0 ? `WHERE ${pageWhere.join(' AND ')}` : '';
  const dir = query.descending ? 'DESC' : 'ASC';
  const order = sortColumn === tie ? `${sortColumn} ${dir}` : `${sortColumn} ${dir}, ${tie} ${dir}`;
  const from = assertIdentifier(table);
  return {
    sql: `SELECT ${columns} FROM ${from} ${pageWhereSql} ORDER BY ${order} LIMIT ? OFFSET ?`,
    params: [...params, query.limit, query.offset],
    countSql: `SELECT count(*) FROM ${from} ${whereSql}`,
    countParams: params,
  };
}
