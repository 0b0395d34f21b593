/**
 * The executor of the pagination planner (./planner.ts, ./window.ts): the runs that fetch
 * `count` records of a walk — by offset pages in parallel, by keyset ranges, or page by page from
 * keyset positions when the list changed under us — each upstream page checked before anything of
 * it can reach a cursor or a filter, and each run saying whether its pages agreed.
 */
import type { CallBudget } from '../budget.ts';
import { UpstreamUnavailableError } from '../errors.ts';
import { isValidId, normalizeTimestamp } from './cursor.ts';
import type {
  FetchPage,
  ListQuery,
  PageRequest,
  PaginateOptions,
  PagingLimits,
  SortKey,
} from './plan.ts';
import { filterClause, joinClauses, listQuery, sortParam } from './query.ts';

/** A record's place in the total order: (sort value, id); for sort by id the value is the id. */
export interface Position {
  value: string;
  id: string;
}

export interface Row<T> {
  node: T;
  pos: Position;
}

/** Records left beyond a fetched window in its direction: exact, or at least this many. */
export interface Remaining {
  count: number;
  exact: boolean;
}

export interface Walk<T> {
  fetchPage: FetchPage<T>;
  /** Sent with every call besides the page's (PaginateOptions.query). */
  query: ListQuery | undefined;
  keyOf: PaginateOptions<T>['keyOf'];
  sortKey: SortKey;
  limits: PagingLimits;
  budget: CallBudget;
  /** Rendered clauses every request of the walk carries: user filters, since, pin. */
  base: string[];
  what: string;
}

export function comparePositions(a: Position, b: Position, desc: boolean): number {
  let c = 0;
  if (a.value !== b.value) c = a.value < b.value ? -1 : 1;
  else if (a.id !== b.id) c = a.id < b.id ? -1 : 1;
  return desc ? -c : c;
}

/** True when rows are strictly increasing in the run's direction, all after `from`. */
export function isStrictlyOrdered(rows: Row<unknown>[], from: Position | undefined, desc: boolean) {
  let previous = from;
  for (const row of rows) {
    if (previous !== undefined && comparePositions(previous, row.pos, desc) >= 0) return false;
    previous = row.pos;
  }
  return true;
}

/** Runs tasks with at most `concurrency` in flight; results in task order; stops on failure. */
export async function runLimited<R>(
  tasks: (() => Promise<R>)[],
  concurrency: number,
): Promise<R[]> {
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

export interface Fetched<T> {
  rows: Row<T>[];
  total: number;
  offset: number;
  limit: number;
}

/** One upstream call; validates what comes back before any of it can reach a cursor or filter. */
export async function fetchRows<T>(
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
  const clauses = extra.length > 0 ? [...walk.base, ...extra] : walk.base;
  const request: PageRequest & { sort: string } = {
    limit,
    offset,
    sort: sortParam(walk.sortKey, desc),
  };
  const filter = joinClauses(clauses);
  if (filter !== undefined) request.filter = filter;
  const page = await walk.fetchPage(request, listQuery(request, walk.query));
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
export function pageSlices(start: number, count: number, pageSize: number) {
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

export interface RunResult<T> {
  rows: Row<T>[];
  remaining: Remaining;
  /** results.total of the whole pinned set, when this run learnt it. */
  total?: number;
  consistent: boolean;
}

/** `count` records at `start` (in the run's direction) by offset, pages in parallel. */
export async function offsetRun<T>(
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
  // One page (most runs) is its rows as they are: flatMap is slow in V8 even for one array.
  const rows = pages.length === 1 ? (pages[0] as Fetched<T>).rows : pages.flatMap((p) => p.rows);
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
  if (sortKey === 'id') return { same: undefined, later: [filterClause(cmp, 'id', from.id)] };
  return {
    same: [filterClause('eq', sortKey, from.value), filterClause(cmp, 'id', from.id)],
    later: [filterClause(cmp, sortKey, from.value)],
  };
}

/**
 * `count` records after the keyset position `from`: for timestamps the rest of `from`'s instant
 * (same value, later id), then the later instants; each range paged by small offsets. One call
 * learns how much of the instant is left; the rest go out together.
 */
export async function keysetRun<T>(
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
export async function sequentialRun<T>(
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
