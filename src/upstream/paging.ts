/**
 * THE pagination planner: Relay connection arguments (first/after, last/before) plus a sort key,
 * a direction, typed filters and `updatedSince` become v2 list requests (`page[limit]`,
 * `page[offset]`, `sort`, `filter`) and opaque cursors. Every connection of the gateway pages
 * through here; there is no second paging path.
 *
 * How a window is fetched, cheapest first:
 * - offset pages in parallel while every page starts at or below the offset limit (10,000), from
 *   the front, or from the back with the sort reversed (the back 10,000 records are cheap too);
 * - otherwise keyset from the cursor's position (sortValue, id): for timestamps the records at the
 *   same instant with a later id (`eq(ts,T):gt(id,lastId)`) and then the later instants
 *   (`gt(ts,T)`), descending mirrored with `lt`; for id `gt(id,lastId)`. Inside each of those two
 *   ranges pages are addressed by small offsets (< maxFirst), so they are fetched in parallel too;
 * - if the totals of the responses show the list changed under us (a record deleted, or updated
 *   out of a pinned updated_at walk), the offsets may have shifted: the window is fetched again
 *   page by page from keyset positions, which cannot skip or repeat.
 *
 * Consistency: the first page pins an upper bound (now − consistencyBufferMs) on created_at
 * (updated_at for sort by updated_at) and every later page of the walk filters `le(…, pin)`, so
 * records created (or updated, for updated_at walks) during the walk are left for the next walk
 * or sync, and the set a walk pages through does not grow.
 *
 * Here: the arguments judged, the walk pinned, its window asked for, the connection built with
 * cursors encoded when read. The choice of runs is ./paging-window.ts's, the runs themselves
 * ./paging-runs.ts's, the cursors ./cursor.ts's.
 */
import type { CallBudget } from './budget.ts';
import {
  type CursorEncoder,
  type CursorIdentity,
  type CursorState,
  createCursorEncoder,
  decodeCursor,
  filterHash,
  isValidId,
  normalizeTimestamp,
} from './cursor.ts';
import { BadUserInputError } from './errors.ts';
import type { Walk } from './paging-runs.ts';
import { type Anchor, fetchWindow } from './paging-window.ts';

export type SortKey = 'created_at' | 'updated_at' | 'id';

export interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

export type FilterOp = 'eq' | 'in' | 'gt' | 'ge' | 'lt' | 'le';

export interface FilterClause {
  attr: SortKey;
  op: FilterOp;
  value: string | string[];
}

export interface ListPage<T> {
  data: T[];
  /** meta.results.total: records matching the filters. */
  total: number;
}

/** Performs ONE upstream list call. `sort` is like '-created_at'. */
export type FetchPage<T> = (query: {
  limit: number;
  offset: number;
  sort: string;
  filter?: string;
}) => Promise<ListPage<T>>;

export interface PagingLimits {
  /** Largest `first`/`last` accepted. Default 1,000. At most `offsetLimit`. */
  maxFirst: number;
  /** Records per upstream call (the upstream serves at most 100). Default 100. */
  pageSize: number;
  /** Largest `page[offset]` the planner ever sends. Default 10,000 (the v2 hard limit). */
  offsetLimit: number;
  /** Upstream calls in flight at once for one connection field. Default 4. */
  concurrency: number;
  /**
   * How far behind "now" a walk's pinned upper bound lies. Default 0: a record written before
   * the first page is requested is in the walk. Raise it (a few seconds) against an eventually
   * consistent upstream or one whose clock runs ahead of the gateway's.
   */
  consistencyBufferMs: number;
  /** Page size when neither `first` nor `last` is given. Default 25 (the v2 default). */
  defaultFirst: number;
}

export const DEFAULT_PAGING_LIMITS: Readonly<PagingLimits> = Object.freeze({
  maxFirst: 1000,
  pageSize: 100,
  offsetLimit: 10_000,
  // One round for any page up to maxFirst (10 calls of 100): against a real upstream the wall
  // time of `first: 1000` is then about one call's latency, not ceil(10 / concurrency) of them.
  concurrency: 10,
  consistencyBufferMs: 0,
  defaultFirst: 25,
});

/** The v2 API accepts at most this many `:`-joined filter clauses. */
export const MAX_FILTER_CLAUSES = 10;

/** Longest `in` list accepted in a filter. */
export const MAX_IN_VALUES = 100;

export interface PaginateOptions<T> {
  /** Identity bound into cursors: 'orders', `entries:${customApiId}`. */
  connection: string;
  args: ConnectionArgs;
  sortKey: SortKey;
  /** Descending when true. */
  reverse: boolean;
  /** Typed, from the GraphQL filter input; validated and rendered here. */
  filters: FilterClause[];
  /**
   * Clauses on attributes the planner does not know (typed Custom API fields), already judged
   * and rendered in the v2 syntax by their schema. They narrow every call of the walk like
   * `filters` and are bound into cursors the same way.
   */
  renderedFilters?: readonly string[];
  /** Incremental sync: only records with updated_at at or after this ISO instant. */
  updatedSince?: string | null;
  /** Performs ONE upstream list call (through the REST client, which consumes the budget). */
  fetchPage: FetchPage<T>;
  keyOf: (node: T) => { id: string; created_at: string; updated_at: string };
  /** Checked with `ensure` before any call of a plan. */
  budget: CallBudget;
  limits?: Partial<PagingLimits>;
  /** Clock for the pinned bound; tests inject one. Default Date.now. */
  now?: () => number;
}

export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

/** One edge of a page. `cursor` is encoded when first read: most queries select no edge cursor. */
export interface Edge<T> {
  readonly cursor: string;
  readonly node: T;
}

export interface Connection<T> {
  edges: Edge<T>[];
  pageInfo: PageInfo;
  /** Records in the walk's pinned set (results.total of the pinned, filtered list). */
  totalCount: number;
  /**
   * The walk's pinned upper bound (ISO): records created (updated, for sort by updated_at)
   * after it are not in this walk. Pass it as `updatedSince` to the next incremental sync.
   */
  pinnedAt: string;
}

const ATTRS = new Set<string>(['id', 'created_at', 'updated_at']);
const OPS = new Set<string>(['eq', 'in', 'gt', 'ge', 'lt', 'le']);
const CAMEL: Record<SortKey, string> = {
  id: 'id',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
};

export function resolveLimits(partial: Partial<PagingLimits> | undefined): PagingLimits {
  const limits = { ...DEFAULT_PAGING_LIMITS, ...partial };
  const positive = (name: keyof PagingLimits, max = Number.MAX_SAFE_INTEGER) => {
    const value = limits[name];
    if (!Number.isSafeInteger(value) || value < 1 || value > max) {
      throw new RangeError(`paging limit ${name} must be an integer in 1..${max}, got ${value}`);
    }
  };
  positive('pageSize', 100);
  positive('offsetLimit');
  positive('maxFirst', limits.offsetLimit);
  positive('concurrency', 64);
  positive('defaultFirst', limits.maxFirst);
  if (!Number.isSafeInteger(limits.consistencyBufferMs) || limits.consistencyBufferMs < 0) {
    throw new RangeError('paging limit consistencyBufferMs must be a non-negative integer');
  }
  return limits;
}

export function badInput(message: string, field: string): never {
  throw new BadUserInputError(message, { field });
}

export function readCount(
  value: unknown,
  name: 'first' | 'last',
  limits: PagingLimits,
): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    return badInput(`\`${name}\` must be a non-negative integer, got ${String(value)}`, name);
  }
  if (value > limits.maxFirst) {
    return badInput(`\`${name}\` may be at most ${limits.maxFirst}, got ${value}`, name);
  }
  return value;
}

export function readCursorArg(value: unknown, name: 'after' | 'before'): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') return badInput(`\`${name}\` must be a cursor string`, name);
  return value;
}

/** A connection's `first`/`last`/`after`/`before`, judged (not both `first` and `last`). */
export function readPageArgs(
  args: ConnectionArgs,
  limits: PagingLimits,
): {
  first: number | null;
  last: number | null;
  afterRaw: string | null;
  beforeRaw: string | null;
} {
  const first = readCount(args.first, 'first', limits);
  const last = readCount(args.last, 'last', limits);
  if (first !== null && last !== null) {
    badInput('`first` and `last` cannot be combined; page with first/after or last/before', 'last');
  }
  return {
    first,
    last,
    afterRaw: readCursorArg(args.after, 'after'),
    beforeRaw: readCursorArg(args.before, 'before'),
  };
}

/** Validates one typed filter clause and renders it in the v2 syntax. */
export function renderClause(clause: FilterClause): string {
  const attr = clause?.attr;
  const op = clause?.op;
  if (typeof attr !== 'string' || !ATTRS.has(attr)) {
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
    return `in(${attr},${values.map(renderValue).join(',')})`;
  }
  if (Array.isArray(clause.value)) return badInput(`\`${field}\` takes a single value`, field);
  return `${op}(${attr},${renderValue(clause.value)})`;
}

/**
 * An edge whose cursor is encoded on first read and then kept. GraphQL reads `cursor` only when
 * the query selects it (the default resolver reads the property), so a page fetched for its
 * nodes and `pageInfo.endCursor` encodes two cursors, not one per record.
 */
class LazyEdge<T> implements Edge<T> {
  readonly node: T;
  readonly #encoder: CursorEncoder;
  readonly #index: number;
  readonly #sortValue: string | undefined;
  readonly #id: string;
  #cursor: string | undefined;

  constructor(
    node: T,
    encoder: CursorEncoder,
    index: number,
    sortValue: string | undefined,
    id: string,
  ) {
    this.node = node;
    this.#encoder = encoder;
    this.#index = index;
    this.#sortValue = sortValue;
    this.#id = id;
  }

  get cursor(): string {
    this.#cursor ??= this.#encoder(this.#index, this.#sortValue, this.#id);
    return this.#cursor;
  }
}

/**
 * Pages a connection. Throws BadUserInputError (no upstream call) for bad arguments, cursors or
 * filter values, and UpstreamBudgetExceededError (no upstream call) when the plan does not fit
 * the operation's budget.
 */
export async function paginate<T>(options: PaginateOptions<T>): Promise<Connection<T>> {
  const limits = resolveLimits(options.limits);
  const { first, last, afterRaw, beforeRaw } = readPageArgs(options.args ?? {}, limits);
  const sortKey = options.sortKey;
  if (!ATTRS.has(sortKey)) badInput(`unknown sortKey ${String(sortKey)}`, 'sortKey');
  const direction = options.reverse ? 'desc' : 'asc';
  const userClauses = [
    ...(options.filters ?? []).map(renderClause),
    ...(options.renderedFilters ?? []),
  ];
  let since: string | undefined;
  if (options.updatedSince !== undefined && options.updatedSince !== null) {
    since = normalizeTimestamp(options.updatedSince);
    if (since === undefined) {
      badInput(
        '`updatedSince` must be an ISO-8601 timestamp with at most ms precision',
        'updatedSince',
      );
    }
  }
  const keysetClauseCount = sortKey === 'id' ? 1 : 2;
  const systemClauses = 1 + (since === undefined ? 0 : 1) + keysetClauseCount;
  if (userClauses.length + systemClauses > MAX_FILTER_CLAUSES) {
    badInput(
      `at most ${MAX_FILTER_CLAUSES - systemClauses} filter conditions with this sortKey` +
        (since === undefined ? '' : ' and updatedSince'),
      'filter',
    );
  }
  const identity: CursorIdentity = {
    connection: options.connection,
    sortKey,
    direction,
    filterHash: filterHash(userClauses, since),
  };
  const after = afterRaw === null ? undefined : decodeCursor(afterRaw, identity, 'after');
  const before = beforeRaw === null ? undefined : decodeCursor(beforeRaw, identity, 'before');
  if (after !== undefined && before !== undefined && after.pin !== before.pin) {
    badInput('`after` and `before` come from different walks of this connection', 'before');
  }
  const now = options.now ?? Date.now;
  const pin =
    after?.pin ?? before?.pin ?? new Date(now() - limits.consistencyBufferMs).toISOString();
  const pinAttr = sortKey === 'updated_at' ? 'updated_at' : 'created_at';
  const base = [...userClauses];
  if (since !== undefined) base.push(`ge(updated_at,${since})`);
  base.push(`le(${pinAttr},${pin})`);

  // Backward (last/before) is the forward walk with the sort reversed, flipped at the end.
  const backward = last !== null || (first === null && before !== undefined && after === undefined);
  const count = (backward ? last : first) ?? limits.defaultFirst;
  const connectionDesc = direction === 'desc';
  const runDesc = backward ? !connectionDesc : connectionDesc;
  const toAnchor = (cursor: CursorState | undefined): Anchor | undefined =>
    cursor === undefined
      ? undefined
      : {
          pos: { value: cursor.sortValue ?? cursor.id, id: cursor.id },
          index: backward ? cursor.total - 1 - cursor.index : cursor.index,
          total: cursor.total,
        };
  const walk: Walk<T> = {
    fetchPage: options.fetchPage,
    keyOf: options.keyOf,
    sortKey,
    limits,
    budget: options.budget,
    base,
    what: `Paging \`${options.connection}\` with ${backward ? 'last' : 'first'}: ${count}`,
  };
  const window = await fetchWindow(
    walk,
    runDesc,
    toAnchor(backward ? before : after),
    toAnchor(backward ? after : before),
    count,
  );

  const { total } = window;
  // Made when the first cursor is read: many queries read none (no cursor, no pageInfo).
  let encoder: CursorEncoder | undefined;
  const encode: CursorEncoder = (index, sortValue, id) => {
    encoder ??= createCursorEncoder(identity, pin, total);
    return encoder(index, sortValue, id);
  };
  const edges = window.rows.map((row, k) => {
    const runIndex = window.start + k;
    const index = backward ? total - 1 - runIndex : runIndex;
    return new LazyEdge(
      row.node,
      encode,
      index,
      sortKey === 'id' ? undefined : row.pos.value,
      row.pos.id,
    );
  });
  if (backward) edges.reverse();
  return {
    edges,
    pageInfo: {
      hasNextPage: backward ? window.less : window.more,
      hasPreviousPage: backward ? window.more : window.less,
      get startCursor() {
        return edges[0]?.cursor ?? null;
      },
      get endCursor() {
        return edges[edges.length - 1]?.cursor ?? null;
      },
    },
    totalCount: total,
    pinnedAt: pin,
  };
}
