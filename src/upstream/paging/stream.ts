/**
 * A page of a keyset list handed out in parts, for an answer with `@stream`
 * (src/gateway/incremental.ts): the connection is answered when the first upstream page is in,
 * its edges are read from a feed that each later page fills as soon as it and the pages before
 * it are in, and pageInfo follows the last one. The same window as `paginate` (./planner.ts),
 * with the same calls, budget and checks:
 * - a forward window fetched by offset (from the front, or from a cursor within the offset
 *   limit) is handed out page by page; every page is checked against the pages before it (same
 *   total, as many rows as that total implies, strictly after the last row handed out) before
 *   any of its rows leaves, so what was handed out is a consistent prefix of the walk;
 * - when a page shows the list changed, the rest is fetched from the last row handed out by
 *   keyset, page after page (the planner's own fallback, ./runs.ts), which cannot skip or repeat;
 * - every other window (backward pages, cursors past the offset limit) is fetched whole, as
 *   `paginate` fetches it, then handed out.
 * `totalCount` is the total of the first page (the pinned set when the walk began); cursors
 * carry it, and a cursor whose total went stale is re-planned by the planner's own checks.
 */
import { EdgeFeed, pagesInOrder, quiet, wholeInParts } from './feed.ts';
import type { Edge, PageInfo, PaginateOptions, StreamedConnection } from './plan.ts';
import { connectionOf, edgeOf, lazyEncoder, planWalk } from './planner.ts';
import {
  comparePositions,
  type Fetched,
  fetchRows,
  isStrictlyOrdered,
  type Position,
  pageSlices,
  type Remaining,
  type Row,
  sequentialRun,
} from './runs.ts';
import { callsFor, fetchWindow } from './window.ts';

/** Forward pageInfo of the edges handed out. */
function pageInfoOf<E extends Edge<unknown>>(feed: EdgeFeed<E>, more: boolean, less: boolean) {
  return {
    hasNextPage: more,
    hasPreviousPage: less,
    startCursor: feed.first()?.cursor ?? null,
    endCursor: feed.last()?.cursor ?? null,
  };
}

/**
 * Pages a keyset connection in parts. Throws as `paginate` does (bad arguments, budget) before
 * any call, and with the first page's failure; later failures end the edges' feed.
 */
export async function paginateInParts<T>(
  options: PaginateOptions<T>,
): Promise<StreamedConnection<T>> {
  const planned = planWalk(options);
  const { walk, runDesc: desc, anchor, bound, count, backward, identity, pin } = planned;
  const { pageSize, offsetLimit, concurrency } = walk.limits;
  const start = anchor === undefined ? 0 : anchor.index + 1;
  const known = anchor?.total ?? bound?.total;
  const end = bound === undefined ? known : bound.index;
  const want = end === undefined ? count : Math.min(count, end - start);
  const lastPageOffset = start + pageSize * (callsFor(want, pageSize) - 1);
  const byOffset =
    !backward &&
    want > 0 &&
    (anchor === undefined || (known !== undefined && lastPageOffset <= offsetLimit));
  if (!byOffset) {
    return wholeInParts(connectionOf(planned, await fetchWindow(walk, desc, anchor, bound, count)));
  }
  walk.budget.ensure(
    callsFor(want, pageSize),
    `${walk.what} ${anchor === undefined ? `(${want} records from the start)` : `(${want} records at offset ${start})`}`,
  );

  const feed = new EdgeFeed<Edge<T>>();
  const slices = pageSlices(start, want, pageSize);
  let firstTotal: ((total: number) => void) | undefined;
  const firstPage = new Promise<number>((resolve) => {
    firstTotal = resolve;
  });
  let encode: ReturnType<typeof lazyEncoder> | undefined;
  let last: Position | undefined = anchor?.pos;
  let trimmed = false;
  let expected = known;
  /** Hands rows out (up to the `before` bound); false once the bound is reached. */
  const handOut = (rows: Row<T>[], total: number): boolean => {
    encode ??= lazyEncoder(identity, pin, total);
    const edges: Edge<T>[] = [];
    for (const row of rows) {
      if (bound !== undefined && comparePositions(row.pos, bound.pos, desc) >= 0) {
        trimmed = true;
        break;
      }
      edges.push(edgeOf(row, encode, start + feed.length + edges.length, walk.sortKey));
      last = row.pos;
    }
    feed.push(edges);
    return !trimmed;
  };

  const walkPages = async (): Promise<PageInfo> => {
    let changed = false;
    let total = 0;
    await pagesInOrder(
      slices.length,
      concurrency,
      (index) => {
        const slice = slices[index] as { offset: number; limit: number };
        return fetchRows(walk, desc, slice.offset, slice.limit, []);
      },
      (page: Fetched<T>, index) => {
        if (index === 0) {
          total = page.total;
          firstTotal?.(page.total);
        }
        expected ??= page.total;
        const agrees =
          page.total === expected &&
          page.rows.length === Math.max(0, Math.min(page.limit, page.total - page.offset)) &&
          isStrictlyOrdered(page.rows, last, desc);
        if (!agrees) {
          changed = true;
          return false;
        }
        return handOut(page.rows, total) && page.rows.length === page.limit;
      },
    );
    let remaining: Remaining = {
      count: Math.max(0, total - start - feed.length),
      exact: true,
    };
    if (changed && !trimmed) {
      // The list changed under the walk: the rest from the last row handed out, by keyset.
      const rest = want - feed.length;
      walk.budget.ensure(
        callsFor(rest, pageSize) * (walk.sortKey === 'id' ? 1 : 2),
        `${walk.what} (re-fetching page by page because the list changed while paging)`,
      );
      const run = await sequentialRun(walk, desc, last, rest);
      handOut(run.rows, total);
      remaining = run.remaining;
      if (run.total !== undefined) total = run.total;
      else if (remaining.exact) total = start + feed.length + remaining.count;
    }
    const stop = start + feed.length;
    total = Math.max(total, stop);
    let more: boolean;
    if (trimmed) more = false;
    else if (remaining.exact && remaining.count === 0) more = false;
    else if (bound !== undefined) more = stop < bound.index;
    else if (remaining.count > 0) more = true;
    else more = stop < total;
    return pageInfoOf(feed, more, start > 0);
  };

  const pageInfo = quiet(walkPages());
  pageInfo.then(
    () => feed.end(),
    (error: unknown) => feed.fail(error),
  );
  // A failure of the first page is the connection's own, as without parts.
  const totalCount = await Promise.race([firstPage, pageInfo.then(() => 0)]);
  return { edges: feed, pageInfo, totalCount, pinnedAt: pin };
}
