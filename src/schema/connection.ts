/**
 * What every connection field shares: the `<Type>SortKey` enum, the typed `<Type>Filter`
 * input, the extra arguments (sortKey, reverse, filter, updatedSince), and the resolver that
 * hands them to the one pagination planner (src/upstream/paging.ts). Cursors are the planner's.
 */

import { expectList, type JsonObject } from '../upstream/client.ts';
import {
  type Connection,
  type FilterClause,
  type FilterOp,
  paginate,
  type SortKey,
} from '../upstream/paging.ts';
import type { GatewayContext } from '../upstream/session.ts';
import { builder } from './builder.ts';
import { normalizeFilterId } from './rows.ts';

const FILTER_OPS = ['eq', 'gt', 'ge', 'lt', 'le'] as const;

export const DateTimeFilter = builder.inputType('DateTimeFilter', {
  description:
    'Conditions on a timestamp, all of which must hold. Translated to the v2 `filter` syntax.',
  fields: (t) => ({
    eq: t.field({ type: 'DateTime', required: false, description: 'Equal to.' }),
    gt: t.field({ type: 'DateTime', required: false, description: 'Strictly after.' }),
    ge: t.field({ type: 'DateTime', required: false, description: 'At or after.' }),
    lt: t.field({ type: 'DateTime', required: false, description: 'Strictly before.' }),
    le: t.field({ type: 'DateTime', required: false, description: 'At or before.' }),
    in: t.field({ type: ['DateTime'], required: false, description: 'Equal to one of these.' }),
  }),
});

export const IDFilter = builder.inputType('IDFilter', {
  description:
    'Conditions on an upstream id (not a global id), all of which must hold. Ids sort as strings.',
  fields: (t) => ({
    eq: t.id({ required: false, description: 'Equal to.' }),
    gt: t.id({ required: false, description: 'Sorts after.' }),
    ge: t.id({ required: false, description: 'Equal to or sorts after.' }),
    lt: t.id({ required: false, description: 'Sorts before.' }),
    le: t.id({ required: false, description: 'Equal to or sorts before.' }),
    in: t.idList({ required: false, description: 'One of these ids.' }),
  }),
});

interface OpsInput {
  eq?: string | null;
  gt?: string | null;
  ge?: string | null;
  lt?: string | null;
  le?: string | null;
  in?: readonly string[] | null;
}

interface FilterInput {
  id?: OpsInput | null;
  createdAt?: OpsInput | null;
  updatedAt?: OpsInput | null;
}

/** The typed filter input as planner clauses; the planner validates and renders them. */
export function toFilterClauses(filter: FilterInput | null | undefined): FilterClause[] {
  if (!filter) return [];
  const clauses: FilterClause[] = [];
  const add = (attr: SortKey, ops: OpsInput | null | undefined) => {
    if (!ops) return;
    // Upstream uuids are lower case; an upper-case one would match nothing, or sort apart.
    const norm = attr === 'id' ? normalizeFilterId : (value: string) => value;
    for (const op of FILTER_OPS) {
      const value = ops[op];
      if (value !== undefined && value !== null) clauses.push({ attr, op, value: norm(value) });
    }
    if (ops.in !== undefined && ops.in !== null) {
      clauses.push({ attr, op: 'in' satisfies FilterOp, value: ops.in.map(norm) });
    }
  };
  add('id', filter.id);
  add('created_at', filter.createdAt);
  add('updated_at', filter.updatedAt);
  return clauses;
}

/** Registers `<Type>SortKey` and `<Type>Filter` and returns the extra connection arguments. */
export function defineListArgs(typeName: string, plural: string) {
  const SortKeyEnum = builder.enumType(`${typeName}SortKey`, {
    description: `Orders of the ${plural} list; ties are broken by id in the same direction.`,
    values: {
      CREATED_AT: { value: 'created_at' as const, description: 'By creation time.' },
      UPDATED_AT: { value: 'updated_at' as const, description: 'By last update time.' },
      ID: { value: 'id' as const, description: 'By upstream id (string order).' },
    },
  });
  const FilterInputType = builder.inputType(`${typeName}Filter`, {
    description: `Conditions on the ${plural} list, all of which must hold.`,
    fields: (t) => ({
      id: t.field({ type: IDFilter, required: false, description: 'On the upstream id.' }),
      createdAt: t.field({
        type: DateTimeFilter,
        required: false,
        description: 'On the creation time.',
      }),
      updatedAt: t.field({
        type: DateTimeFilter,
        required: false,
        description: 'On the last update time.',
      }),
    }),
  });
  return builder.args((t) => ({
    sortKey: t.field({
      type: SortKeyEnum,
      required: false,
      defaultValue: 'created_at',
      description: 'What the list is ordered by.',
    }),
    reverse: t.boolean({
      required: false,
      defaultValue: false,
      description: 'Newest / largest first when true.',
    }),
    filter: t.field({ type: FilterInputType, required: false, description: 'Narrows the list.' }),
    updatedSince: t.field({
      type: 'DateTime',
      required: false,
      description:
        'Incremental sync: only items updated at or after this time. Deletions are not seen.',
    }),
  }));
}

/** The arguments of every connection field as Pothos hands them to the resolver. */
export interface ListArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  sortKey?: SortKey | null;
  reverse?: boolean | null;
  filter?: FilterInput | null;
  updatedSince?: string | null;
}

/** The timestamps and id every listed v2 resource carries, as the planner needs them. */
export interface Listed {
  upstreamId: string;
  createdAt: string;
  updatedAt: string;
}

export interface ListSpec<T extends Listed> {
  /** Identity bound into cursors, e.g. 'orders' or `entries:${customApiId}`. */
  connection: string;
  /** Path of the v2 list below /v2. */
  segments: readonly string[];
  /** Checks and converts one upstream row. */
  toNode: (row: JsonObject) => T;
}

/**
 * Resolves a connection field through the pagination planner and the cached GET.
 * `renderedFilters`: clauses on typed Custom API fields, judged and rendered by their schema.
 */
export function resolveList<T extends Listed>(
  context: GatewayContext,
  args: ListArgs,
  spec: ListSpec<T>,
  renderedFilters: readonly string[] = [],
): Promise<Connection<T>> {
  return paginate<T>({
    connection: spec.connection,
    args: { first: args.first, after: args.after, last: args.last, before: args.before },
    sortKey: args.sortKey ?? 'created_at',
    reverse: args.reverse ?? false,
    filters: toFilterClauses(args.filter),
    renderedFilters,
    updatedSince: args.updatedSince ?? undefined,
    budget: context.budget,
    limits: context.paging,
    keyOf: (node) => ({
      id: node.upstreamId,
      created_at: node.createdAt,
      updated_at: node.updatedAt,
    }),
    fetchPage: async (query) => {
      const response = await context.get(spec.segments, {
        'page[limit]': String(query.limit),
        'page[offset]': String(query.offset),
        sort: query.sort,
        filter: query.filter,
      });
      const list = expectList(response);
      return { data: list.data.map(spec.toNode), total: list.total };
    },
  });
}
