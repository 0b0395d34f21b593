/**
 * A connection over an offset-only list (connection.ts hands it over with its filter clauses
 * judged and rendered): the planner's offset mode (src/upstream/paging-offset.ts) over the
 * request's cached GET.
 */
import { expectList } from '../upstream/client.ts';
import type { Connection } from '../upstream/paging.ts';
import { paginateByOffset } from '../upstream/paging-offset.ts';
import type { GatewayContext } from '../upstream/session.ts';
import type { ListArgs, Listed, ListSpec } from './connection.ts';

export function resolveOffsetList<T extends Listed>(
  context: GatewayContext,
  args: ListArgs,
  spec: ListSpec<T>,
  clauses: readonly string[],
  offsetLimit: 'soft' | 'hard',
): Promise<Connection<T>> {
  return paginateByOffset<T>({
    connection: spec.connection,
    args: { first: args.first, after: args.after, last: args.last, before: args.before },
    clauses,
    offsetLimit,
    budget: context.budget,
    limits: context.paging,
    fetchPage: async (query) => {
      const response = await context.get(spec.segments, {
        ...spec.query,
        'page[limit]': String(query.limit),
        'page[offset]': String(query.offset),
        filter: query.filter,
      });
      const list = expectList(response);
      return { data: list.data.map(spec.toNode), total: list.total };
    },
  });
}
