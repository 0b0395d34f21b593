/**
 * Reading a list request: `page[limit]`, `page[offset]`, `sort` and `filter` checked against
 * what the list allows (its `ListSpec`), with a 400 naming the parameter (and, for filters and
 * sorts, what is allowed); each filter clause becomes an SQL condition with bound parameters.
 *
 * Rules (the gateway builds the same parameters: src/upstream/paging.ts):
 * - `page[limit]` integer 1..100, default the store's `page_length`; `page[offset]` integer
 *   >= 0; endpoints with a hard offset limit (orders, files) reject offsets above it.
 * - `sort=attr` ascending, `sort=-attr` descending; ties are ordered by id in the same direction,
 *   so the order is total and `(sortValue, id)` is a keyset position.
 * - `filter=op(attr,value)[:op(attr,value)…]`, at most 10 clauses, AND-ed. Clauses are split at
 *   `:` only outside parentheses (timestamps contain `:`); values cannot contain `(` or `)`.
 *   Ops: eq, like (`*` wildcard), in (comma list), gt, ge, lt, le, each allowed per attribute.
 *   Timestamps may be any ISO-8601 form and are normalised to the stored 24-character form.
 */
import { badRequest } from '../errors.ts';
import { parseTimestamp } from '../time.ts';

export type FilterOpName = 'eq' | 'like' | 'in' | 'gt' | 'ge' | 'lt' | 'le' | 'is_null';

const ALL_OPS: FilterOpName[] = ['eq', 'like', 'in', 'gt', 'ge', 'lt', 'le', 'is_null'];

/**
 * How a filter value is read: `timestamp` (ISO-8601, normalised), `id` (lowercased text),
 * `string` (as given), `integer` (a whole number), `float` (a decimal number), `boolean`
 * (`true`/`false`, compared as SQLite's 1/0).
 */
export type AttributeKind = 'timestamp' | 'id' | 'string' | 'integer' | 'float' | 'boolean';

export interface ListAttribute {
  /** The SQL column; a trusted identifier from code, never from a request. */
  column: string;
  kind: AttributeKind;
  /** Operators clients may use on this attribute. */
  ops: FilterOpName[];
  /**
   * A condition every comparison (not `is_null`) also requires, e.g. that a JSON field holds a
   * value of its declared type, so a stray value of another type never compares.
   */
  guard?: string;
  /**
   * The column holds a JSON array (a product's tags): a clause matches a row when it matches
   * any element, e.g. `eq(tags,sale)`.
   */
  array?: boolean;
}

/** What a list endpoint allows. */
export interface ListSpec {
  /** Filterable attributes by their public name. */
  filters: Record<string, ListAttribute>;
  /** Sortable attributes by their public name → SQL column. */
  sorts: Record<string, string>;
  /** Sort when the request has none, e.g. `-created_at`. */
  defaultSort: string;
  /** Column that breaks ties; default `id`. */
  idColumn?: string;
  /** When set, `page[offset]` above it is a 400 (orders and files: 10,000). */
  hardOffsetLimit?: number;
}

export const MAX_PAGE_LIMIT = 100;
export const MAX_FILTER_CLAUSES = 10;
/** Values in one `in(…)` clause. */
export const MAX_IN_VALUES = 100;
/** The production API's offset limit: hard on orders and files, soft elsewhere. */
export const OFFSET_LIMIT = 10_000;

/** The attributes every list filters and sorts on, with the production API's operators. */
export function standardListSpec(overrides: Partial<ListSpec> = {}): ListSpec {
  return {
    filters: {
      id: { column: 'id', kind: 'id', ops: ['eq', 'in', 'lt', 'le', 'gt', 'ge'] },
      created_at: { column: 'created_at', kind: 'timestamp', ops: ['eq', 'lt', 'le', 'gt', 'ge'] },
      updated_at: { column: 'updated_at', kind: 'timestamp', ops: ['eq', 'lt', 'le', 'gt', 'ge'] },
      ...overrides.filters,
    },
    sorts: { created_at: 'created_at', updated_at: 'updated_at', id: 'id', ...overrides.sorts },
    defaultSort: overrides.defaultSort ?? '-created_at',
    idColumn: overrides.idColumn ?? 'id',
    ...(overrides.hardOffsetLimit === undefined
      ? {}
      : { hardOffsetLimit: overrides.hardOffsetLimit }),
  };
}

/**
 * A list production offers without `sort` (the catalog's, stock's): read in creation order,
 * oldest first, so new records join the end and a walk by offset does not shift under them.
 * `filters` are exactly the ones the list documents. `sort=created_at` (or `-created_at`) is
 * accepted; nothing else is.
 */
export function creationOrderListSpec(
  filters: Record<string, ListAttribute>,
  idColumn = 'id',
): ListSpec {
  return { filters, sorts: { created_at: 'created_at' }, defaultSort: 'created_at', idColumn };
}

/** A comparison of one column with one text value, as SQL will evaluate it. */
export interface RangeComparison {
  column: string;
  op: '=' | '>' | '>=' | '<' | '<=';
  value: string;
}

/** One parsed filter clause as SQL: a condition with `?` placeholders and its parameters. */
export interface SqlCondition {
  sql: string;
  params: unknown[];
  /**
   * Set when the clause is exactly `column op value` (sql `${column} ${op} ?`) on a text value:
   * what the count shortcut and the index choice of the page query reason about.
   */
  range?: RangeComparison;
}

export interface ListQuery {
  limit: number;
  offset: number;
  /** Public sort string as normalised, e.g. `-created_at`. */
  sort: string;
  sortColumn: string;
  descending: boolean;
  conditions: SqlCondition[];
  /** The raw `filter` parameter when one was given (kept in links). */
  filter: string | undefined;
}

function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw badRequest(`${name} is given more than once.`, name);
  if (typeof value !== 'string') throw badRequest(`${name} must be a single value.`, name);
  return value;
}

function parseNonNegativeInteger(name: string, raw: string, max: number): number {
  if (!/^\d+$/.test(raw)) {
    throw badRequest(`${name} must be a whole number, got "${raw}".`, name);
  }
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value > max) {
    throw badRequest(`${name} must be at most ${max}, got ${raw}.`, name);
  }
  return value;
}

function describeAllowed(spec: ListSpec): string {
  const allowed = Object.entries(spec.filters).map(
    ([name, attr]) => `${name} (${attr.ops.join(', ')})`,
  );
  return allowed.length === 0 ? 'none (this list takes no filter)' : allowed.join(', ');
}

/** Splits `a(b,c):d(e,f)` at top-level colons; rejects unbalanced or nested parentheses. */
function splitClauses(filter: string): string[] {
  const clauses: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < filter.length; i++) {
    const ch = filter[i];
    if (ch === '(') {
      if (depth > 0) {
        throw badRequest(
          `Cannot parse filter "${filter}": values cannot contain "(" or ")".`,
          'filter',
        );
      }
      depth = 1;
    } else if (ch === ')') {
      if (depth === 0) {
        throw badRequest(`Cannot parse filter "${filter}": unbalanced ")".`, 'filter');
      }
      depth = 0;
    } else if (ch === ':' && depth === 0) {
      clauses.push(filter.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) {
    throw badRequest(`Cannot parse filter "${filter}": a clause is missing its ")".`, 'filter');
  }
  clauses.push(filter.slice(start));
  return clauses;
}

// Operators include is_null; attribute names include Custom API field slugs (`a-z0-9_-`).
const CLAUSE = /^\s*([A-Za-z_]+)\(\s*([A-Za-z0-9_.-]*)\s*,(.*)\)\s*$/s;

function likePattern(value: string): string {
  // `*` is the API's wildcard; SQL's own wildcards in the value are literal.
  return value.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');
}

function parseValue(
  name: string,
  attr: ListAttribute,
  raw: string,
  clause: string,
): string | number | { ms: string; exact: boolean } {
  const trimmed = attr.kind === 'string' ? raw : raw.trim();
  if (trimmed === '') throw badRequest(`Filter "${clause}" has an empty value.`, 'filter');
  switch (attr.kind) {
    case 'timestamp': {
      // A `+` offset arrives as a space when the client did not percent-encode it.
      const parsed = parseTimestamp(trimmed.replace(' ', '+'));
      if (!parsed) {
        throw badRequest(
          `Filter "${clause}": "${trimmed}" is not an ISO-8601 timestamp for ${name} ` +
            '(e.g. 2024-05-01T10:00:00.000Z).',
          'filter',
        );
      }
      return { ms: parsed.iso, exact: parsed.exact };
    }
    case 'integer': {
      if (!/^-?\d+$/.test(trimmed) || !Number.isSafeInteger(Number(trimmed))) {
        throw badRequest(`Filter "${clause}": ${name} takes a whole number.`, 'filter');
      }
      return Number(trimmed);
    }
    case 'float': {
      const number = Number(trimmed);
      if (!/^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed) || !Number.isFinite(number)) {
        throw badRequest(`Filter "${clause}": ${name} takes a number.`, 'filter');
      }
      return number;
    }
    case 'boolean': {
      if (trimmed !== 'true' && trimmed !== 'false') {
        throw badRequest(`Filter "${clause}": ${name} takes true or false.`, 'filter');
      }
      return trimmed === 'true' ? 1 : 0;
    }
    case 'id':
      return trimmed.toLowerCase();
    default:
      return trimmed;
  }
}

function toCondition(clause: string, spec: ListSpec): SqlCondition {
  const match = CLAUSE.exec(clause);
  if (!match) {
    throw badRequest(
      `Cannot parse filter clause "${clause}": expected op(attribute,value), ` +
        `e.g. gt(created_at,2024-05-01T10:00:00.000Z). Allowed attributes: ${describeAllowed(spec)}.`,
      'filter',
    );
  }
  const op = (match[1] ?? '').toLowerCase() as FilterOpName;
  const name = match[2] ?? '';
  const rawValue = match[3] ?? '';
  if (!ALL_OPS.includes(op)) {
    throw badRequest(
      `Unknown filter operator "${match[1]}" in "${clause}"; operators: ${ALL_OPS.join(', ')}. ` +
        `Allowed attributes: ${describeAllowed(spec)}.`,
      'filter',
    );
  }
  const attr = Object.hasOwn(spec.filters, name) ? spec.filters[name] : undefined;
  if (!attr) {
    throw badRequest(
      `Cannot filter on "${name}". Allowed attributes: ${describeAllowed(spec)}.`,
      'filter',
    );
  }
  if (!attr.ops.includes(op)) {
    throw badRequest(
      `Operator "${op}" is not allowed on "${name}"; allowed: ${attr.ops.join(', ')}.`,
      'filter',
    );
  }
  const col = attr.column;
  if (op === 'is_null') {
    const wanted = rawValue.trim();
    if (wanted !== 'true' && wanted !== 'false') {
      throw badRequest(
        `Filter "${clause}": is_null takes true (no value or null) or false (has a value).`,
        'filter',
      );
    }
    return { sql: `${col} IS ${wanted === 'true' ? '' : 'NOT '}NULL`, params: [] };
  }
  if (attr.array === true) {
    const { array, ...element } = attr;
    const elementSpec = {
      ...spec,
      filters: { ...spec.filters, [name]: { ...element, column: 'value' } },
    };
    const inner = toCondition(clause, elementSpec);
    return {
      sql: `EXISTS (SELECT 1 FROM json_each(${col}) WHERE ${inner.sql})`,
      params: inner.params,
    };
  }
  if (attr.guard !== undefined) {
    // A guarded attribute is an expression, not an indexed column: no range for the planner.
    const { guard, ...plain } = attr;
    const inner = toCondition(clause, { ...spec, filters: { ...spec.filters, [name]: plain } });
    return { sql: `(${guard} AND ${inner.sql})`, params: inner.params };
  }
  if (op === 'in') {
    // The reference storefront sends `in(id,)` for an empty cart and `in(id,a,)` when a cart
    // holds a custom item (no product_id): empty members name nothing, and an empty list
    // matches nothing, instead of failing the page's call.
    const values = rawValue
      .split(',')
      .filter((v) => v.trim() !== '')
      .map((v) => parseValue(name, attr, v, clause));
    if (values.length === 0) return { sql: '0', params: [] };
    if (values.length > MAX_IN_VALUES) {
      throw badRequest(`Filter "${clause}" lists more than ${MAX_IN_VALUES} values.`, 'filter');
    }
    const plain = values.map((v) => (typeof v === 'object' ? v.ms : v));
    // One JSON parameter keeps the SQL text constant whatever the number of values.
    return { sql: `${col} IN (SELECT value FROM json_each(?))`, params: [JSON.stringify(plain)] };
  }
  const value = parseValue(name, attr, rawValue, clause);
  if (op === 'like') {
    return { sql: `${col} LIKE ? ESCAPE '\\'`, params: [likePattern(String(value))] };
  }
  let bound: string | number;
  let sqlOp: RangeComparison['op'] = ({ eq: '=', gt: '>', ge: '>=', lt: '<', le: '<=' } as const)[
    op
  ];
  if (typeof value === 'object') {
    bound = value.ms;
    if (!value.exact) {
      // The input had sub-millisecond digits, so it lies strictly between stored values
      // `ms` and `ms + 1`: nothing equals it, and ge/le become gt/le on the truncated value.
      if (op === 'eq') return { sql: '0', params: [] };
      if (op === 'ge') sqlOp = '>';
      if (op === 'lt') sqlOp = '<=';
    }
  } else {
    bound = value;
  }
  const sql = `${col} ${sqlOp} ?`;
  if (typeof bound !== 'string') return { sql, params: [bound] };
  return { sql, params: [bound], range: { column: col, op: sqlOp, value: bound } };
}

/**
 * Parses the paging, sort and filter parameters of a request. Throws a 400 ApiError naming the
 * offending parameter (and, for filters and sorts, what is allowed).
 */
export function parseListQuery(query: unknown, spec: ListSpec, pageLength: number): ListQuery {
  const q = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;

  const rawLimit = single(q, 'page[limit]');
  let limit = pageLength;
  if (rawLimit !== undefined) {
    if (!/^\d+$/.test(rawLimit) || Number(rawLimit) < 1 || Number(rawLimit) > MAX_PAGE_LIMIT) {
      throw badRequest(
        `page[limit] must be a whole number from 1 to ${MAX_PAGE_LIMIT}, got "${rawLimit}".`,
        'page[limit]',
      );
    }
    limit = Number(rawLimit);
  }

  const rawOffset = single(q, 'page[offset]');
  let offset = 0;
  if (rawOffset !== undefined) {
    offset = parseNonNegativeInteger('page[offset]', rawOffset, Number.MAX_SAFE_INTEGER);
  }
  if (spec.hardOffsetLimit !== undefined && offset > spec.hardOffsetLimit) {
    throw badRequest(
      `page[offset] may be at most ${spec.hardOffsetLimit} here; ` +
        'to go deeper, sort on created_at or id and filter past the last value (keyset paging).',
      'page[offset]',
    );
  }

  const rawSort = single(q, 'sort');
  const sort = rawSort === undefined || rawSort.trim() === '' ? spec.defaultSort : rawSort.trim();
  const descending = sort.startsWith('-');
  const sortName = descending ? sort.slice(1) : sort;
  const sortColumn = Object.hasOwn(spec.sorts, sortName) ? spec.sorts[sortName] : undefined;
  if (sortColumn === undefined) {
    throw badRequest(
      `Cannot sort on "${sortName}". Allowed: ${Object.keys(spec.sorts).join(', ')} ` +
        '(prefix with - for descending).',
      'sort',
    );
  }

  const rawFilter = single(q, 'filter');
  const filter = rawFilter === undefined || rawFilter.trim() === '' ? undefined : rawFilter;
  const conditions: SqlCondition[] = [];
  if (filter !== undefined) {
    const clauses = splitClauses(filter);
    if (clauses.length > MAX_FILTER_CLAUSES) {
      throw badRequest(
        `At most ${MAX_FILTER_CLAUSES} filter clauses are allowed, got ${clauses.length}.`,
        'filter',
      );
    }
    for (const clause of clauses) {
      if (clause.trim() === '') {
        throw badRequest(`Cannot parse filter "${filter}": empty clause (a stray ":"?).`, 'filter');
      }
      conditions.push(toCondition(clause, spec));
    }
  }

  return { limit, offset, sort, sortColumn, descending, conditions, filter };
}
