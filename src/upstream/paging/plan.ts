/**
 * The pagination planner's vocabulary: the arguments and limits it judges, the page requests it
 * plans and the connections it answers. Shared by the planner (./planner.ts), its runs
 * (./runs.ts, ./window.ts), its offset mode (./offset.ts) and the one module that spells a plan
 * as a v2 query (./query.ts); it imports none of them, so the folder has no import cycle.
 */
import type { CallBudget } from '../budget.ts';
import { BadUserInputError } from '../errors.ts';

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

/**
 * One upstream list call as the planner plans it: `sort` is like '-created_at', `filter` the
 * clauses joined. ./query.ts alone spells it as a v2 query.
 */
export interface PageRequest {
  limit: number;
  offset: number;
  sort?: string;
  filter?: string;
}

/** A v2 list call's query parameters, as ./query.ts writes them from a PageRequest. */
export type ListQuery = Readonly<Record<string, string | undefined>>;

/**
 * Performs ONE upstream list call: `page` is the plan (what a test's fake list reads), `query`
 * the same call spelled for REST, to send as it is.
 */
export type FetchPage<T> = (
  page: PageRequest & { sort: string },
  query: ListQuery,
) => Promise<ListPage<T>>;

export interface PagingLimits {
  /** Largest `first`/`last` accepted. Default 1,000. At most `offsetLimit`. */
  maxFirst: number;
  /** Records per upstream call (the upstream serves at most 100). Default 100. */
  pageSize: number;
  /** Largest offset the planner ever asks for. Default 10,000 (the v2 hard limit). */
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
  /** Query parameters sent with every call besides the page's (e.g. `include`). */
  query?: ListQuery;
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

/**
 * A page's info, its cursors read from its edges when asked. A class rather than an object
 * literal with getters: those getters would close over the whole paging call (its walk, pages
 * and upstream rows), which then outlived young collections and cost the garbage collector a
 * third of a page's CPU.
 */
export class LazyPageInfo<T> implements PageInfo {
  readonly hasNextPage: boolean;
  readonly hasPreviousPage: boolean;
  readonly #edges: readonly Edge<T>[];
  constructor(edges: readonly Edge<T>[], hasNextPage: boolean, hasPreviousPage: boolean) {
    this.#edges = edges;
    this.hasNextPage = hasNextPage;
    this.hasPreviousPage = hasPreviousPage;
  }
  get startCursor(): string | null {
    return this.#edges[0]?.cursor ?? null;
  }
  get endCursor(): string | null {
    return this.#edges[this.#edges.length - 1]?.cursor ?? null;
  }
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

/**
 * A connection answered in parts (`@stream`, src/gateway/incremental.ts): answered when its
 * first upstream page is in, its edges fed as the later pages come, pageInfo after the last.
 */
export interface StreamedConnection<T> {
  edges: AsyncIterable<Edge<T>>;
  /** Known when the last page is in (endCursor is the last edge's). */
  pageInfo: Promise<PageInfo>;
  /** Of the first page: the list's size when the walk began. */
  totalCount: number;
  pinnedAt: string;
}

/** The attributes the planner sorts and filters on. */
export const PLANNER_ATTRS: ReadonlySet<string> = new Set<string>([
  'id',
  'created_at',
  'updated_at',
]);

/** Limits resolved once per options object: every connection field of every request asks. */
const resolved = new WeakMap<Partial<PagingLimits>, PagingLimits>();
const NO_LIMITS: Partial<PagingLimits> = Object.freeze({});

export function resolveLimits(partial: Partial<PagingLimits> | undefined): PagingLimits {
  const given = partial ?? NO_LIMITS;
  let limits = resolved.get(given);
  if (limits === undefined) {
    limits = checkLimits({ ...DEFAULT_PAGING_LIMITS, ...given });
    resolved.set(given, Object.freeze(limits));
  }
  return limits;
}

function checkLimits(limits: PagingLimits): PagingLimits {
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
