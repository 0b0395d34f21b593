/**
 * THE pagination planner: Relay connection arguments (first/after, last/before) plus a sort key,
 * a direction, typed filters and `updatedSince` become planned v2 list calls (a limit, an offset,
 * a sort and filter clauses, spelled for REST by ./query.ts alone) and opaque cursors. Every
 * connection of the gateway pages through here; there is no second paging path.
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
 * cursors encoded when read. The choice of runs is ./window.ts's, the runs themselves ./runs.ts's,
 * the cursors ./cursor.ts's, the vocabulary ./plan.ts's.
 */
import {
  type CursorEncoder,
  type CursorIdentity,
  type CursorState,
  createCursorEncoder,
  decodeCursor,
  filterHash,
  normalizeTimestamp,
} from './cursor.ts';
import {
  badInput,
  type Connection,
  type Edge,
  LazyPageInfo,
  MAX_FILTER_CLAUSES,
  type PaginateOptions,
  PLANNER_ATTRS,
  readPageArgs,
  resolveLimits,
} from './plan.ts';
import { filterClause, renderClause } from './query.ts';
import type { Row, Walk } from './runs.ts';
import { type Anchor, fetchWindow, type WindowResult } from './window.ts';

/**
 * An edge whose cursor is encoded on first read and then kept. GraphQL reads `cursor` only when
 * the query selects it (the default resolver reads the property), so a page fetched for its
 * nodes and `pageInfo.endCursor` encodes two cursors, not one per record.
 */
/** The cursor encoder of one page (createCursorEncoder), made on first use. */
export class PageCursors {
  readonly #identity: CursorIdentity;
  readonly #pin: string;
  readonly #total: number;
  #encoder: CursorEncoder | undefined;
  constructor(identity: CursorIdentity, pin: string, total: number) {
    this.#identity = identity;
    this.#pin = pin;
    this.#total = total;
  }
  encode(index: number, sortValue: string | undefined, id: string): string {
    this.#encoder ??= createCursorEncoder(this.#identity, this.#pin, this.#total);
    return this.#encoder(index, sortValue, id);
  }
}

class LazyEdge<T> implements Edge<T> {
  readonly node: T;
  readonly #cursors: PageCursors;
  readonly #index: number;
  readonly #sortValue: string | undefined;
  readonly #id: string;
  #cursor: string | undefined;

  constructor(
    node: T,
    cursors: PageCursors,
    index: number,
    sortValue: string | undefined,
    id: string,
  ) {
    this.node = node;
    this.#cursors = cursors;
    this.#index = index;
    this.#sortValue = sortValue;
    this.#id = id;
  }

  get cursor(): string {
    this.#cursor ??= this.#cursors.encode(this.#index, this.#sortValue, this.#id);
    return this.#cursor;
  }
}

let lastMs = Number.NaN;
let lastIso = '';
/** The ISO form of an epoch ms, remembered for the last one: requests of one ms share a pin. */
function isoInstant(ms: number): string {
  if (ms !== lastMs) {
    lastIso = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastIso;
}

/**
 * Pages a connection. Throws BadUserInputError (no upstream call) for bad arguments, cursors or
 * filter values, and UpstreamBudgetExceededError (no upstream call) when the plan does not fit
 * the operation's budget.
 */
export async function paginate<T>(options: PaginateOptions<T>): Promise<Connection<T>> {
  const planned = planWalk(options);
  const window = await fetchWindow(
    planned.walk,
    planned.runDesc,
    planned.anchor,
    planned.bound,
    planned.count,
  );
  return connectionOf(planned, window);
}

/** A walk judged and pinned, with the window it asks for: what a page of it is fetched from. */
export interface PlannedWalk<T> {
  walk: Walk<T>;
  /** The run's direction: the connection's, reversed for a backward page. */
  runDesc: boolean;
  /** A backward page (last/before): the window is fetched in the run's order, then flipped. */
  backward: boolean;
  anchor: Anchor | undefined;
  bound: Anchor | undefined;
  count: number;
  identity: CursorIdentity;
  pin: string;
}

/**
 * The arguments judged (BadUserInputError, before any call), the walk pinned, the window named.
 * Shared by `paginate` and the page-by-page walk of an answer in parts (./stream.ts).
 */
export function planWalk<T>(options: PaginateOptions<T>): PlannedWalk<T> {
  const limits = resolveLimits(options.limits);
  const { first, last, afterRaw, beforeRaw } = readPageArgs(options.args ?? {}, limits);
  const sortKey = options.sortKey;
  if (!PLANNER_ATTRS.has(sortKey)) badInput(`unknown sortKey ${String(sortKey)}`, 'sortKey');
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
  const pin = after?.pin ?? before?.pin ?? isoInstant(now() - limits.consistencyBufferMs);
  const pinAttr = sortKey === 'updated_at' ? 'updated_at' : 'created_at';
  const base = [...userClauses];
  if (since !== undefined) base.push(filterClause('ge', 'updated_at', since));
  base.push(filterClause('le', pinAttr, pin));

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
    query: options.query,
    keyOf: options.keyOf,
    sortKey,
    limits,
    budget: options.budget,
    base,
    what: `Paging \`${options.connection}\` with ${backward ? 'last' : 'first'}: ${count}`,
  };
  return {
    walk,
    runDesc,
    backward,
    anchor: toAnchor(backward ? before : after),
    bound: toAnchor(backward ? after : before),
    count,
    identity,
    pin,
  };
}

/**
 * A walk's cursors, their encoder made when the first cursor is read: many queries read none. An
 * object of its own, not a closure: a closure made in a paging call would hold that call's whole
 * scope (the walk, its pages and rows) for as long as any edge lives.
 */
export function lazyEncoder(identity: CursorIdentity, pin: string, total: number): PageCursors {
  return new PageCursors(identity, pin, total);
}

/** The edge of a row at `index` (in the connection's order). */
export function edgeOf<T>(
  row: Row<T>,
  encode: PageCursors,
  index: number,
  sortKey: PlannedWalk<T>['walk']['sortKey'],
): Edge<T> {
  return new LazyEdge(
    row.node,
    encode,
    index,
    sortKey === 'id' ? undefined : row.pos.value,
    row.pos.id,
  );
}

/** The connection of a fetched window. */
export function connectionOf<T>(planned: PlannedWalk<T>, window: WindowResult<T>): Connection<T> {
  const { backward, identity, pin } = planned;
  const { sortKey } = planned.walk;
  const { total } = window;
  const encode = lazyEncoder(identity, pin, total);
  const edges = window.rows.map((row, k) => {
    const runIndex = window.start + k;
    return edgeOf(row, encode, backward ? total - 1 - runIndex : runIndex, sortKey);
  });
  if (backward) edges.reverse();
  return {
    edges,
    pageInfo: new LazyPageInfo(
      edges,
      backward ? window.less : window.more,
      backward ? window.more : window.less,
    ),
    totalCount: total,
    pinnedAt: pin,
  };
}
