/**
 * The one place that spells a list call for the v2 REST API: `page[limit]`, `page[offset]`,
 * `sort` and `filter` (clauses like `gt(created_at,…)`, joined by `:`) are written here from the
 * planner's plan (./plan.ts's PageRequest) and from what the schema asks for (a filter on an
 * attribute, the first rows of a list), never by the schema. Every function builds one object
 * or string per call and reads nothing twice: the planner calls them once per upstream page.
 */
import { isValidId, normalizeTimestamp } from './cursor.ts';
import {
  badInput,
  type FilterClause,
  type ListQuery,
  MAX_IN_VALUES,
  type PageRequest,
  PLANNER_ATTRS,
  type SortKey,
} from './plan.ts';

/**
 * A page of a list as the v2 API takes it, with `extra` (e.g. `include`) first. Keys whose value
 * is undefined are not sent.
 */
export function listQuery(page: PageRequest, extra?: ListQuery): ListQuery {
  // One literal, without a spread, for the keyset lists' every page (the hot path).
  if (extra === undefined) {
    return {
      'page[limit]': String(page.limit),
      'page[offset]': String(page.offset),
      sort: page.sort,
      filter: page.filter,
    };
  }
  return {
    ...extra,
    'page[limit]': String(page.limit),
    'page[offset]': String(page.offset),
    sort: page.sort,
    filter: page.filter,
  };
}

/** The first `limit` rows of a list in its own order (a probe for one row, a short list). */
export function firstRows(limit: number): ListQuery {
  return Object.freeze({ 'page[limit]': String(limit) });
}

/** The first row of a list: who a token's own list (customers, accounts, members) holds. */
export const FIRST_ROW: ListQuery = firstRows(1);

/** The most rows one page of the v2 API holds: the whole of a short list. */
export const FULL_PAGE: ListQuery = firstRows(100);

/** One filter clause in the v2 syntax, its value already judged (a list's joined by `,`). */
export function filterClause(op: string, attr: string, value: string): string {
  return `${op}(${attr},${value})`;
}

/** `in(attr,v1,v2,…)`, the values already judged. */
export function inClause(attr: string, values: readonly string[]): string {
  return `in(${attr},${values.join(',')})`;
}

/** The clauses of one call as its `filter` parameter; undefined when there are none. */
export function joinClauses(clauses: readonly string[]): string | undefined {
  return clauses.length > 0 ? clauses.join(':') : undefined;
}

/** The sort of a keyset call: the key, `-` first when descending. */
export function sortParam(sortKey: SortKey, desc: boolean): string {
  return desc ? `-${sortKey}` : sortKey;
}

const OPS = new Set<string>(['eq', 'in', 'gt', 'ge', 'lt', 'le']);
const CAMEL: Record<SortKey, string> = {
  id: 'id',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
};

/** Validates one typed filter clause and renders it in the v2 syntax. */
export function renderClause(clause: FilterClause): string {
  const attr = clause?.attr;
  const op = clause?.op;
  if (typeof attr !== 'string' || !PLANNER_ATTRS.has(attr)) {
    return badInput(`unknown filter attribute ${String(attr)}`, 'filter');
  }
  const field = `filter.${CAMEL[attr]}.${String(op)}`;
  if (typeof op !== 'string' || !OPS.has(op)) {
    return badInput(`unknown filter operator ${String(op)}`, `filter.${CAMEL[attr]}`);
  }
  const renderValue = (value: unknown): string => {
    if (attr === 'id') {
      if (!isValidId(value)) {
        return badInput(`\`${field}\`: ids are 1–64 letters, digits, "-" or "_"`, field);
      }
      return value;
    }
    const normalized = normalizeTimestamp(value);
    if (normalized === undefined) {
      return badInput(
        `\`${field}\` must be an ISO-8601 timestamp with at most millisecond precision`,
        field,
      );
    }
    return normalized;
  };
  if (op === 'in') {
    const values = clause.value;
    if (!Array.isArray(values) || values.length === 0 || values.length > MAX_IN_VALUES) {
      return badInput(`\`${field}\` takes a list of 1 to ${MAX_IN_VALUES} values`, field);
    }
    return inClause(attr, values.map(renderValue));
  }
  if (Array.isArray(clause.value)) return badInput(`\`${field}\` takes a single value`, field);
  return filterClause(op, attr, renderValue(clause.value));
}
