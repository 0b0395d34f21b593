/**
 * The pagination planner's one decision (./planner.ts calls it): which runs of ./runs.ts
 * fetch a window of a walk, cheapest first, each checked against the operation's call budget
 * before any call, and what the window then says of the records before and beyond it.
 */
import {
  comparePositions,
  fetchRows,
  isStrictlyOrdered,
  keysetRun,
  offsetRun,
  type Position,
  type Row,
  type RunResult,
  sequentialRun,
  type Walk,
} from './runs.ts';

export function callsFor(count: number, pageSize: number): number {
  return Math.max(1, Math.ceil(count / pageSize));
}

export interface Anchor {
  pos: Position;
  /** Index in the run's direction. */
  index: number;
  total: number;
}

export interface WindowResult<T> {
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
export async function fetchWindow<T>(
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
