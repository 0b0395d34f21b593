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
import { BadUserInputError, UpstreamUnavailableError } from './errors.ts';

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

/** A record's place in the total order: (sort value, id); for sort by id the value is the id. */
interface Position {
  value: string;
  id: string;
}

interface Row<T> {
  node: T;
  pos: Position;
}

/** Records left beyond a fetched window in its direction: exact, or at least this many. */
interface Remaining {
  count: number;
  exact: boolean;
}

interface Walk<T> {
  fetchPage: FetchPage<T>;
  keyOf: PaginateOptions<T>['keyOf'];
  sortKey: SortKey;
  limits: PagingLimits;
  budget: CallBudget;
  /** Rendered clauses every request of the walk carries: user filters, since, pin. */
  base: string[];
  what: string;
}

const TIMESTAMP_ATTRS = new Set<SortKey>(['created_at', 'updated_at']);
const ATTRS = new Set<string>(['id', 'created_at', 'updated_at']);
const OPS = new Set<string>(['eq', 'in', 'gt', 'ge', 'lt', 'le']);
const CAMEL: Record<SortKey, string> = {
  id: 'id',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
};

function resolveLimits(partial: Partial<PagingLimits> | undefined): PagingLimits {
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

function badInput(message: string, field: string): never {
  throw new BadUserInputError(message, { field });
}

function readCount(value: unknown, name: 'first' | 'last', limits: PagingLimits): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    return badInput(`\`${name}\` must be a non-negative integer, got ${String(value)}`, name);
  }
  if (value > limits.maxFirst) {
    return badInput(`\`${name}\` may be at most ${limits.maxFirst}, got ${value}`, name);
  }
  return value;
}

function readCursorArg(value: unknown, name: 'after' | 'before'): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') return badInput(`\`${name}\` must be a cursor string`, name);
  return value;
}

/** Validates one typed filter clause and renders it in the v2 syntax. */
function renderClause(clause: FilterClause): string {
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

function comparePositions(a: Position, b: Position, desc: boolean): number {
  let c = 0;
  if (a.value !== b.value) c = a.value < b.value ? -1 : 1;
  else if (a.id !== b.id) c = a.id < b.id ? -1 : 1;
  return desc ? -c : c;
}

/** True when rows are strictly increasing in the run's direction, all after `from`. */
function isStrictlyOrdered(rows: Row<unknown>[], from: Position | undefined, desc: boolean) {
  let previous = from;
  for (const row of rows) {
    if (previous !== undefined && comparePositions(previous, row.pos, desc) >= 0) return false;
    previous = row.pos;
  }
  return true;
}

/** Runs tasks with at most `concurrency` in flight; results in task order; stops on failure. */
async function runLimited<R>(tasks: (() => Promise<R>)[], concurrency: number): Promise<R[]> {
  // Most pages are one call: no workers to start for it.
  if (tasks.length === 1) return [await (tasks[0] as () => Promise<R>)()];
  const results = new Array<R>(tasks.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < tasks.length) {
      const index = next++;
      const task = tasks[index] as () => Promise<R>;
      try {
        results[index] = await task();
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, worker));
  return results;
}

interface Fetched<T> {
  rows: Row<T>[];
  total: number;
  offset: number;
  limit: number;
}

/** One upstream call; validates what comes back before any of it can reach a cursor or filter. */
async function fetchRows<T>(
  walk: Walk<T>,
  desc: boolean,
  offset: number,
  limit: number,
  extra: string[],
): Promise<Fetched<T>> {
  if (offset > walk.limits.offsetLimit) {
    // A planner bug must never turn into a request the upstream refuses (or serves slowly).
    throw new Error(`planner tried offset ${offset} beyond the limit ${walk.limits.offsetLimit}`);
  }
  const clauses = [...walk.base, ...extra];
  const page = await walk.fetchPage({
    limit,
    offset,
    sort: `${desc ? '-' : ''}${walk.sortKey}`,
    ...(clauses.length > 0 ? { filter: clauses.join(':') } : {}),
  });
  const invalid = (why: string): never => {
    throw new UpstreamUnavailableError(`The upstream list answered ${why}`, {
      reason: 'invalid-body',
    });
  };
  if (!Number.isSafeInteger(page.total) || page.total < 0) invalid('without a valid total');
  if (!Array.isArray(page.data) || page.data.length > limit) invalid('with more rows than asked');
  const rows = page.data.map((node) => {
    const key = walk.keyOf(node);
    if (!isValidId(key.id)) return invalid('with a malformed id');
    if (walk.sortKey === 'id') return { node, pos: { value: key.id, id: key.id } };
    const value = normalizeTimestamp(key[walk.sortKey]);
    if (value === undefined) return invalid(`with a malformed ${walk.sortKey}`);
    return { node, pos: { value, id: key.id } };
  });
  return { rows, total: page.total, offset, limit };
}

/** Page requests covering `count` records from `start`, `pageSize` at a time. */
function pageSlices(start: number, count: number, pageSize: number) {
  const slices: { offset: number; limit: number }[] = [];
  for (let offset = start; offset < start + count; offset += pageSize) {
    slices.push({ offset, limit: Math.min(pageSize, start + count - offset) });
  }
  return slices;
}

/** Pages agree on the total and each holds what that total implies: nothing shifted. */
function pagesAgree(pages: Fetched<unknown>[], expectedTotal: number | undefined): boolean {
  const total = expectedTotal ?? pages[0]?.total;
  return pages.every(
    (p) =>
      p.total === total && p.rows.length === Math.max(0, Math.min(p.limit, p.total - p.offset)),
  );
}

interface RunResult<T> {
  rows: Row<T>[];
  remaining: Remaining;
  /** results.total of the whole pinned set, when this run learnt it. */
  total?: number;
  consistent: boolean;
}

/** `count` records at `start` (in the run's direction) by offset, pages in parallel. */
async function offsetRun<T>(
  walk: Walk<T>,
  desc: boolean,
  start: number,
  count: number,
  expectedTotal: number | undefined,
): Promise<RunResult<T>> {
  const slices = pageSlices(start, count, walk.limits.pageSize);
  const pages = await runLimited(
    slices.map((s) => () => fetchRows(walk, desc, s.offset, s.limit, [])),
    walk.limits.concurrency,
  );
  const rows = pages.flatMap((p) => p.rows);
  const total = pages[0]?.total ?? 0;
  return {
    rows,
    total,
    remaining: { count: Math.max(0, total - start - rows.length), exact: true },
    consistent: pagesAgree(pages, expectedTotal),
  };
}

function keysetClauses(sortKey: SortKey, desc: boolean, from: Position) {
  const cmp = desc ? 'lt' : 'gt';
  if (sortKey === 'id') return { same: undefined, later: [`${cmp}(id,${from.id})`] };
  return {
    same: [`eq(${sortKey},${from.value})`, `${cmp}(id,${from.id})`],
    later: [`${cmp}(${sortKey},${from.value})`],
  };
}

/**
 * `count` records after the keyset position `from`: for timestamps the rest of `from`'s instant
 * (same value, later id), then the later instants; each range paged by small offsets. One call
 * learns how much of the instant is left; the rest go out together.
 */
async function keysetRun<T>(
  walk: Walk<T>,
  desc: boolean,
  from: Position,
  count: number,
): Promise<RunResult<T>> {
  const { pageSize, concurrency } = walk.limits;
  const { same, later } = keysetClauses(walk.sortKey, desc, from);
  const sameRange: Fetched<T>[] = [];
  let sameTotal = 0;
  if (same !== undefined) {
    const first = await fetchRows(walk, desc, 0, Math.min(pageSize, count), same);
    sameRange.push(first);
    sameTotal = first.total;
  }
  const fromSame = Math.min(count, sameTotal);
  const sameTasks = (
    same === undefined ? [] : pageSlices(pageSize, fromSame - pageSize, pageSize)
  ).map((s) => () => fetchRows(walk, desc, s.offset, s.limit, same ?? []));
  const laterTasks = pageSlices(0, count - fromSame, pageSize).map(
    (s) => () => fetchRows(walk, desc, s.offset, s.limit, later),
  );
  const rest = await runLimited([...sameTasks, ...laterTasks], concurrency);
  sameRange.push(...rest.slice(0, sameTasks.length));
  const laterRange = rest.slice(sameTasks.length);
  const rows = [...sameRange, ...laterRange].flatMap((p) => p.rows);
  const consistent =
    pagesAgree(sameRange, same === undefined ? undefined : sameTotal) &&
    pagesAgree(laterRange, undefined);
  const laterTotal = laterRange[0]?.total;
  const remaining: Remaining =
    laterTotal === undefined
      ? { count: Math.max(0, sameTotal - rows.length), exact: false }
      : { count: Math.max(0, sameTotal + laterTotal - rows.length), exact: true };
  return { rows, remaining, consistent };
}

/**
 * The fallback that cannot skip or repeat while the list changes: one page at a time, each from
 * the position of the last record seen (or from the front when there is none), no offsets.
 */
async function sequentialRun<T>(
  walk: Walk<T>,
  desc: boolean,
  from: Position | undefined,
  count: number,
): Promise<RunResult<T>> {
  const { pageSize } = walk.limits;
  const rows: Row<T>[] = [];
  let remaining: Remaining = { count: 0, exact: true };
  let total: number | undefined;
  let position = from;
  while (rows.length < count) {
    const want = Math.min(pageSize, count - rows.length);
    const got: Row<T>[] = [];
    if (position === undefined) {
      const page = await fetchRows(walk, desc, 0, want, []);
      got.push(...page.rows);
      total = page.total;
      remaining = { count: Math.max(0, page.total - got.length), exact: true };
    } else {
      const { same, later } = keysetClauses(walk.sortKey, desc, position);
      let sameLeft = 0;
      let sameExhausted = true;
      if (same !== undefined) {
        const page = await fetchRows(walk, desc, 0, want, same);
        got.push(...page.rows);
        sameLeft = Math.max(0, page.total - page.rows.length);
        sameExhausted = page.rows.length < want;
        remaining = { count: sameLeft, exact: false };
      }
      if (sameExhausted) {
        const page = await fetchRows(walk, desc, 0, want - got.length, later);
        got.push(...page.rows);
        remaining = { count: sameLeft + Math.max(0, page.total - page.rows.length), exact: true };
      }
    }
    if (!isStrictlyOrdered(got, position, desc)) {
      throw new UpstreamUnavailableError(
        'The upstream list returned records out of the requested order',
        { reason: 'invalid-body' },
      );
    }
    rows.push(...got);
    if (got.length < want) break;
    position = got[got.length - 1]?.pos;
  }
  return { rows, remaining, ...(total === undefined ? {} : { total }), consistent: true };
}

function callsFor(count: number, pageSize: number): number {
  return Math.max(1, Math.ceil(count / pageSize));
}

interface Anchor {
  pos: Position;
  /** Index in the run's direction. */
  index: number;
  total: number;
}

interface WindowResult<T> {
  rows: Row<T>[];
  /** Index (in the run's direction) of the first row. */
  start: number;
  total: number;
  /** Records exist beyond the window in the run's direction (within the bound, if any). */
  more: boolean;
  /** Records exist before the window in the run's direction. */
  less: boolean;
}

/**
 * Fetches up to `count` records following `anchor` (or from the front) in the run's direction,
 * stopping before `bound`. This is the whole planner; backward paging is the same walk with the
 * sort reversed.
 */
async function fetchWindow<T>(
  walk: Walk<T>,
  desc: boolean,
  anchor: Anchor | undefined,
  bound: Anchor | undefined,
  count: number,
): Promise<WindowResult<T>> {
  const { pageSize, offsetLimit } = walk.limits;
  const ensure = (calls: number, how: string) => walk.budget.ensure(calls, `${walk.what} ${how}`);
  const keysetCost = (n: number) => callsFor(n, pageSize) + (walk.sortKey === 'id' ? 0 : 1);
  const sequentialCost = (n: number) => callsFor(n, pageSize) * (walk.sortKey === 'id' ? 1 : 2);
  const lastPageOffset = (start: number, n: number) =>
    start + pageSize * (callsFor(n, pageSize) - 1);
  const start = anchor === undefined ? 0 : anchor.index + 1;
  const known = anchor?.total ?? bound?.total;
  const end = bound === undefined ? known : bound.index;

  if (count === 0 || (end !== undefined && start >= end)) {
    if (known !== undefined) {
      return { rows: [], start, total: known, more: start < (end ?? known), less: start > 0 };
    }
    // Only `first: 0` with no cursor lands here: one call, for totalCount and hasNextPage.
    ensure(1, 'for its total count');
    const page = await fetchRows(walk, desc, 0, 1, []);
    return { rows: [], start: 0, total: page.total, more: page.total > 0, less: false };
  }

  const want = end === undefined ? count : Math.min(count, end - start);
  let result: RunResult<T> | undefined;
  let offsetTried = false;
  let total = known;
  if (anchor === undefined) {
    // From the front: always within the offset limit, since maxFirst <= offsetLimit.
    ensure(callsFor(want, pageSize), `(${want} records from the start)`);
    const run = await offsetRun(walk, desc, 0, want, known);
    if (run.consistent && isStrictlyOrdered(run.rows, undefined, desc)) result = run;
  } else if (known !== undefined && lastPageOffset(start, want) <= offsetLimit) {
    ensure(callsFor(want, pageSize), `(${want} records at offset ${start})`);
    offsetTried = true;
    const run = await offsetRun(walk, desc, start, want, known);
    if (run.consistent && isStrictlyOrdered(run.rows, anchor.pos, desc)) result = run;
  } else if (
    known !== undefined &&
    known - start - want >= 0 &&
    lastPageOffset(known - start - want, want) <= offsetLimit
  ) {
    // Near the far end: the same records by offset from the other side, sort reversed.
    const back = known - start - want;
    ensure(callsFor(want, pageSize), `(${want} records at offset ${back} from the end)`);
    offsetTried = true;
    const run = await offsetRun(walk, !desc, back, want, known);
    run.rows.reverse();
    run.remaining = { count: back, exact: true };
    if (run.consistent && isStrictlyOrdered(run.rows, anchor.pos, desc)) result = run;
  }
  if (result === undefined && anchor !== undefined) {
    ensure(
      keysetCost(want),
      offsetTried
        ? `(${want} records by keyset, re-planned because the list changed while paging)`
        : `(${want} records by keyset, past the offset limit of ${offsetLimit})`,
    );
    const run = await keysetRun(walk, desc, anchor.pos, want);
    if (run.consistent && isStrictlyOrdered(run.rows, anchor.pos, desc)) result = run;
  }
  if (result === undefined) {
    ensure(
      sequentialCost(want),
      '(re-fetching page by page because the list changed while paging)',
    );
    result = await sequentialRun(walk, desc, anchor?.pos, want);
  }

  let rows = result.rows;
  let trimmed = false;
  if (bound !== undefined) {
    const cut = rows.findIndex((row) => comparePositions(row.pos, bound.pos, desc) >= 0);
    if (cut >= 0) {
      rows = rows.slice(0, cut);
      trimmed = true;
    }
  }
  const stop = start + rows.length;
  if (result.total !== undefined) total = result.total;
  else if (result.remaining.exact) total = start + result.rows.length + result.remaining.count;
  total = Math.max(total ?? stop, stop);
  let more: boolean;
  if (trimmed) more = false;
  else if (result.remaining.exact && result.remaining.count === 0) more = false;
  else if (bound !== undefined) more = stop < bound.index;
  else if (result.remaining.count > 0) more = true;
  else more = stop < total;
  return { rows, start, total, more, less: start > 0 };
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
  const args = options.args ?? {};
  const first = readCount(args.first, 'first', limits);
  const last = readCount(args.last, 'last', limits);
  if (first !== null && last !== null) {
    badInput('`first` and `last` cannot be combined; page with first/after or last/before', 'last');
  }
  const afterRaw = readCursorArg(args.after, 'after');
  const beforeRaw = readCursorArg(args.before, 'before');
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
