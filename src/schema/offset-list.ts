/**
 * A connection over an offset-only list (connection.ts hands it over with its filter clauses
 * judged and rendered): the planner's offset mode (src/upstream/paging/offset.ts) over the
 * request's cached GET; a list whose spec says `shared` keeps its pages for other callers (rows
 * read once, never changed after).
 */
import { expectList, type JsonObject } from '../upstream/client.ts';
import { paginateByOffset, paginateByOffsetInParts } from '../upstream/paging/offset.ts';
import type { Connection, ConnectionArgs, ListQuery } from '../upstream/paging/plan.ts';
import type { GatewayContext } from '../upstream/session.ts';
import { saleEnds } from './catalog/shared-catalog.ts';

/**
 * What an offset list needs of connection.ts's ListSpec (which satisfies it), named here so that
 * this module does not import connection.ts, which imports it.
 */
export interface OffsetListSpec<T> {
  connection: string;
  segments: readonly string[];
  query?: ListQuery;
  toNode: (row: JsonObject) => T;
  shared?: string;
}

interface Page<T> {
  data: T[];
  total: number;
}

/** A page read from a shared answer, or undefined when it is not a list (then the upstream is asked). */
function pageOf<T>(spec: OffsetListSpec<T>, text: string): Page<T> | undefined {
  try {
    const list = expectList({ status: 200, body: JSON.parse(text), etag: undefined });
    return { data: list.data.map(spec.toNode), total: list.total };
  } catch {
    return undefined;
  }
}

export function resolveOffsetList<T>(
  context: GatewayContext,
  args: ConnectionArgs,
  spec: OffsetListSpec<T>,
  clauses: readonly string[],
  offsetLimit: 'soft' | 'hard',
): Promise<Connection<T>> {
  // An answer in parts (@stream) takes the edges as the upstream pages come in. A context made
  // by hand (an application's, in process) may have no operation holder.
  const page = context.operation?.incremental === true ? paginateByOffsetInParts : paginateByOffset;
  return page<T>({
    connection: spec.connection,
    args: { first: args.first, after: args.after, last: args.last, before: args.before },
    clauses,
    offsetLimit,
    budget: context.budget,
    limits: context.paging,
    query: spec.query,
    fetchPage: async (request, query) => {
      const key =
        spec.shared === undefined
          ? undefined
          : `${spec.shared}${spec.segments.join('/')}\u0000${request.limit}\u0000${request.offset}\u0000${request.filter ?? ''}`;
      if (key !== undefined) {
        const kept = context.shared.get(key) as Page<T> | undefined;
        if (kept !== undefined) return kept;
        // Another replica's (REDIS_URL): the upstream's JSON, read into rows here.
        const asked = context.shared.remote?.get(key);
        const remote = asked === undefined ? undefined : await asked;
        if (remote !== undefined) {
          const page = pageOf(spec, remote.text);
          if (page !== undefined) {
            context.shared.set(key, page, remote.until);
            return page;
          }
        }
      }
      const response = await context.get(spec.segments, query);
      const list = expectList(response);
      const page: Page<T> = { data: list.data.map(spec.toNode), total: list.total };
      if (key !== undefined) {
        const ends = saleEnds(list.data);
        context.shared.set(key, page, ends);
        const until = context.shared.remote && context.shared.expiry(ends);
        if (until !== undefined)
          context.shared.remote?.set(key, JSON.stringify(response.body), until);
      }
      return page;
    },
  }) as Promise<Connection<T>>;
}
