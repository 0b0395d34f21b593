/**
 * The planner's offset mode, for lists with neither `sort` nor range filters (the catalog's):
 * Relay arguments become offset/limit calls in the upstream's own order (./query.ts spells
 * them), and a cursor is a record's offset (with the list's size and the filters it was walked
 * with).
 *
 * - `first`/`after`: the records from the cursor's offset + 1; `last`/`before`: those before the
 *   cursor's offset, or the last ones, whose place needs `meta.results.total` first (one call,
 *   which also serves the window when the list fits in it).
 * - Pages of one window go out in parallel (PagingLimits.concurrency), like the keyset planner's.
 * - `offsetLimit: 'soft'`: the upstream serves offsets past 10,000 (the catalog lists), so they
 *   are sent; `'hard'`: a page that would start past PagingLimits.offsetLimit is refused with
 *   OFFSET_LIMIT_EXCEEDED before any call.
 *
 * What a walk can promise: no gap and no repeat while the list does not change. With no sort
 * and no range filter there is no position to resume from but the offset, so a record inserted
 * or removed before a cursor shifts the rest of the walk by one (a repeat or a gap), which no
 * request can detect from the rows alone (docs/paging.md, "Paging through any list").
 */
import type { CallBudget } from '../budget.ts';
import { OffsetLimitExceededError, UpstreamUnavailableError } from '../errors.ts';
import {
  createOffsetCursorEncoder,
  decodeOffsetCursor,
  filterHash,
  type OffsetCursorIdentity,
} from './cursor.ts';
import { EdgeFeed, pagesInOrder, quiet, wholeInParts } from './feed.ts';
import {
  badInput,
  type Connection,
  type ConnectionArgs,
  type Edge,
  LazyPageInfo,
  type ListPage,
  type ListQuery,
  MAX_FILTER_CLAUSES,
  type PageInfo,
  type PageRequest,
  type PagingLimits,
  readPageArgs,
  resolveLimits,
  type StreamedConnection,
} from './plan.ts';
import { joinClauses, listQuery } from './query.ts';
import { runLimited } from './runs.ts';

/** Performs ONE upstream list call of an offset list: no sort. */
export type FetchOffsetPage<T> = (page: PageRequest, query: ListQuery) => Promise<ListPage<T>>;

export interface OffsetPaginateOptions<T> {
  /** Identity bound into cursors: `pcm-products`, `node-products:<nodeId>`. */
  connection: string;
  args: ConnectionArgs;
  /** The list's filter clauses, judged and rendered (eq/in), bound into cursors. */
  clauses: readonly string[];
  /** Whether the upstream serves offsets past PagingLimits.offsetLimit. */
  offsetLimit: 'soft' | 'hard';
  fetchPage: FetchOffsetPage<T>;
  /** Query parameters sent with every call besides the page's (the catalog's `include`). */
  query?: ListQuery;
  /** Checked with `ensure` before any call of a plan. */
  budget: CallBudget;
  limits?: Partial<PagingLimits>;
}

const callsFor = (count: number, pageSize: number) => Math.max(1, Math.ceil(count / pageSize));

/** An edge whose cursor is encoded on first read (most queries select none). */
class OffsetEdge<T> implements Edge<T> {
  readonly node: T;
  readonly #encode: (index: number) => string;
  readonly #index: number;
  #cursor: string | undefined;

  constructor(node: T, encode: (index: number) => string, index: number) {
    this.node = node;
    this.#encode = encode;
    this.#index = index;
  }

  get cursor(): string {
    this.#cursor ??= this.#encode(this.#index);
    return this.#cursor;
  }
}

/**
 * Pages an offset-only list. Throws BadUserInputError for bad arguments or cursors,
 * UpstreamBudgetExceededError when the plan does not fit the budget and OffsetLimitExceededError
 * past a hard limit, each before any call.
 */
export function paginateByOffset<T>(options: OffsetPaginateOptions<T>): Promise<Connection<T>> {
  return offsetWalk(options, false) as Promise<Connection<T>>;
}

/**
 * The same page for an answer in parts (`@stream`, src/gateway/incremental.ts): answered when its
 * first upstream page is in, its edges fed page by page in list order as the pages come in (a
 * short page ends the list, as it ends `paginateByOffset`'s), pageInfo after the last. A window
 * served by one probe call, or none, is handed out whole.
 */
export function paginateByOffsetInParts<T>(
  options: OffsetPaginateOptions<T>,
): Promise<StreamedConnection<T>> {
  return offsetWalk(options, true) as Promise<StreamedConnection<T>>;
}

async function offsetWalk<T>(
  options: OffsetPaginateOptions<T>,
  inParts: boolean,
): Promise<Connection<T> | StreamedConnection<T>> {
  const limits = resolveLimits(options.limits);
  const { pageSize } = limits;
  const { first, last, afterRaw, beforeRaw } = readPageArgs(options.args ?? {}, limits);
  if (options.clauses.length > MAX_FILTER_CLAUSES) {
    badInput(`at most ${MAX_FILTER_CLAUSES} filter conditions`, 'filter');
  }
  const identity: OffsetCursorIdentity = {
    connection: options.connection,
    filterHash: filterHash(options.clauses),
  };
  const after = afterRaw === null ? undefined : decodeOffsetCursor(afterRaw, identity, 'after');
  const before = beforeRaw === null ? undefined : decodeOffsetCursor(beforeRaw, identity, 'before');
  const backward = last !== null || (first === null && before !== undefined && after === undefined);
  const count = (backward ? last : first) ?? limits.defaultFirst;
  const filter = joinClauses(options.clauses);
  const what = `Paging \`${options.connection}\` with ${backward ? 'last' : 'first'}: ${count}`;

  /** One call, checked before anything of it is used. */
  const fetch = async (offset: number, limit: number): Promise<ListPage<T>> => {
    const request: PageRequest = { limit, offset };
    if (filter !== undefined) request.filter = filter;
    const page = await options.fetchPage(request, listQuery(request, options.query));
    if (!Number.isSafeInteger(page.total) || page.total < 0) {
      throw new UpstreamUnavailableError('The upstream list answered without a valid total', {
        reason: 'invalid-body',
      });
    }
    if (!Array.isArray(page.data) || page.data.length > limit) {
      throw new UpstreamUnavailableError('The upstream list answered with more rows than asked', {
        reason: 'invalid-body',
      });
    }
    return page;
  };
  /** Refuses, before any call, a window whose last page would start past a hard limit. */
  const checkLimit = (from: number, n: number) => {
    const lastOffset = from + pageSize * (callsFor(n, pageSize) - 1);
    if (options.offsetLimit === 'hard' && lastOffset > limits.offsetLimit) {
      throw new OffsetLimitExceededError(
        `${what} would read at offset ${lastOffset}, past the upstream's limit of ` +
          `${limits.offsetLimit} for this list; narrow it with a filter`,
      );
    }
  };

  // The window [from, to) in list order, and what is known of the list's size.
  const lo = after === undefined ? 0 : after.index + 1;
  let hi = before?.index;
  let total = after?.total ?? before?.total;
  let prefetched: ListPage<T> | undefined;
  if (backward && hi === undefined) {
    if (total !== undefined) {
      hi = total;
    } else {
      // `last` from the end: the size first; a list that fits in this call is served by it.
      // A full page: a short list is then served by this one call.
      const probeLimit = pageSize;
      options.budget.ensure(1 + callsFor(count, pageSize), `${what} (the size, then the end)`);
      prefetched = await fetch(0, probeLimit);
      total = prefetched.total;
      hi = total;
      if (total > probeLimit) prefetched = undefined;
    }
  }
  let from: number;
  let to: number;
  if (backward) {
    to = Math.max(lo, hi as number);
    from = Math.max(lo, to - count);
  } else {
    // Not past the size a cursor knows: a list that grew since is seen by hasNextPage, below.
    const end = hi ?? total;
    from = lo;
    to = end === undefined ? lo + count : Math.max(lo, Math.min(end, lo + count));
  }

  let rows: T[];
  if (prefetched !== undefined) {
    rows = prefetched.data.slice(from, to);
  } else if (to > from) {
    checkLimit(from, to - from);
    options.budget.ensure(callsFor(to - from, pageSize), `${what} (at offset ${from})`);
    const slices: { offset: number; limit: number }[] = [];
    for (let offset = from; offset < to; offset += pageSize) {
      slices.push({ offset, limit: Math.min(pageSize, to - offset) });
    }
    if (inParts) {
      const start = from;
      return handOutInParts(
        slices,
        fetch,
        limits.concurrency,
        (rows, size) => {
          const stop = start + rows;
          return {
            hasNextPage: backward ? before !== undefined && stop < size : stop < (hi ?? size),
            hasPreviousPage: start > (backward ? lo : 0),
          };
        },
        (size) => {
          const encode = createOffsetCursorEncoder(identity, size);
          return (node: T, k: number) => new OffsetEdge(node, encode, start + k);
        },
      );
    }
    const pages = await runLimited(
      slices.map((slice) => () => fetch(slice.offset, slice.limit)),
      limits.concurrency,
    );
    // The size the upstream has now; a page cut short means the list ended (or shrank).
    total = pages[0]?.total ?? 0;
    rows = [];
    for (let p = 0; p < pages.length; p++) {
      const data = (pages[p] as ListPage<T>).data;
      rows.push(...data);
      if (data.length < (slices[p] as { limit: number }).limit) break;
    }
  } else if (total === undefined) {
    // `first: 0` with no cursor: one call, for totalCount and hasNextPage.
    options.budget.ensure(1, `${what} (for its total count)`);
    total = (await fetch(0, 1)).total;
    rows = [];
  } else {
    rows = [];
  }
  const size = Math.max(total ?? 0, from + rows.length);
  const stop = from + rows.length;
  const encode = createOffsetCursorEncoder(identity, size);
  const edges = rows.map((node, k) => new OffsetEdge(node, encode, from + k));
  const connection: Connection<T> = {
    edges,
    pageInfo: new LazyPageInfo(
      edges,
      backward ? before !== undefined && stop < size : stop < (hi ?? size),
      from > (backward ? lo : 0),
    ),
    totalCount: size,
    // An offset walk has no pinned bound; its connection type has no `pinnedAt` field.
    pinnedAt: '',
  };
  return inParts ? wholeInParts(connection) : connection;
}

/**
 * The slices of a window fetched a few at a time and handed out in list order as they come in:
 * answered when the first is in (its total is the list's size, which cursors carry); a page
 * cut short ends the list. `pageInfoOf` says what lies beyond `rows` edges of a list of `size`.
 */
async function handOutInParts<T>(
  slices: readonly { offset: number; limit: number }[],
  fetch: (offset: number, limit: number) => Promise<ListPage<T>>,
  concurrency: number,
  pageInfoOf: (rows: number, size: number) => { hasNextPage: boolean; hasPreviousPage: boolean },
  edgeMaker: (size: number) => (node: T, index: number) => Edge<T>,
): Promise<StreamedConnection<T>> {
  const feed = new EdgeFeed<Edge<T>>();
  let size = 0;
  let toEdge: ((node: T, index: number) => Edge<T>) | undefined;
  let sized: ((size: number) => void) | undefined;
  const first = new Promise<number>((resolve) => {
    sized = resolve;
  });
  const walk = async (): Promise<PageInfo> => {
    await pagesInOrder(
      slices.length,
      concurrency,
      (index) => {
        const slice = slices[index] as { offset: number; limit: number };
        return fetch(slice.offset, slice.limit);
      },
      (page, index) => {
        const slice = slices[index] as { offset: number; limit: number };
        if (index === 0) {
          size = Math.max(page.total, slice.offset + page.data.length);
          toEdge = edgeMaker(size);
          sized?.(size);
        }
        const make = toEdge as (node: T, index: number) => Edge<T>;
        const handed = feed.length;
        feed.push(page.data.map((node, k) => make(node, handed + k)));
        // A page cut short: the list ended (or shrank) there.
        return page.data.length === slice.limit;
      },
    );
    const stop = (slices[0]?.offset ?? 0) + feed.length;
    return {
      ...pageInfoOf(feed.length, Math.max(size, stop)),
      startCursor: feed.first()?.cursor ?? null,
      endCursor: feed.last()?.cursor ?? null,
    };
  };
  const pageInfo = quiet(walk());
  pageInfo.then(
    () => feed.end(),
    (error: unknown) => feed.fail(error),
  );
  // A failure of the first page is the connection's own, as without parts.
  const totalCount = await Promise.race([first, pageInfo.then(() => size)]);
  return { edges: feed, pageInfo, totalCount, pinnedAt: '' };
}
