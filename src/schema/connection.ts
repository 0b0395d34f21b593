/**
 * What every connection field shares: the `<Type>SortKey` enum, the typed `<Type>Filter`
 * input, the extra arguments (sortKey, reverse, filter, updatedSince), and the resolver that
 * hands them to the one pagination planner (src/upstream/paging/). Cursors are the planner's.
 * A list says what it can do (`ListCapabilities`: its sort keys and which attribute filters with
 * which operators); the standard ones are those of every v2 list the gateway has served so far.
 */

import type { FieldRef, InputObjectRef } from '@pothos/core';
import { expectList, type JsonObject } from '../upstream/client.ts';
import type { Connection, FilterClause, FilterOp, SortKey } from '../upstream/paging/plan.ts';
import { paginate } from '../upstream/paging/planner.ts';
import { filterClause, renderClause } from '../upstream/paging/query.ts';
import { paginateInParts } from '../upstream/paging/stream.ts';
import type { GatewayContext } from '../upstream/session.ts';
import { type BuilderTypes, builder } from './builder.ts';
import { resolveOffsetList } from './offset-list.ts';
import { normalizeFilterId } from './rows.ts';
import { renderFilterValue } from './typed/field-values.ts';

/** The operators of a typed filter, in the order their clauses are rendered (`in` last). */
const FILTER_OPS = ['eq', 'gt', 'ge', 'lt', 'le'] as const;
const ALL_OPS: readonly FilterOp[] = [...FILTER_OPS, 'in'];

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

/** The value type of a filterable attribute. */
export type FilterValueType = 'ID' | 'DateTime' | 'String';

/** One attribute a list filters on: the `filter` input field `name` → the v2 attribute. */
export interface FilterDescription {
  /** The attribute in the v2 filter syntax, e.g. `created_at`, `slug`. */
  attr: string;
  type: FilterValueType;
  /** The operators the upstream list supports on it (catalog lists: `eq` and `in` only). */
  ops: readonly FilterOp[];
  /** Description of the input field, e.g. 'On the upstream id.'. */
  description: string;
}

/** A filter on a string attribute the upstream list compares with `eq` only. */
export const eqFilter = (attr: string, description: string): FilterDescription => ({
  attr,
  type: 'String',
  ops: ['eq'],
  description,
});

/** A filter on a string attribute the upstream list compares with `eq` and `in`. */
export const eqInFilter = (attr: string, description: string): FilterDescription => ({
  attr,
  type: 'String',
  ops: ['eq', 'in'],
  description,
});

/** `filter: { id, createdAt, updatedAt }` with every operator: what the v2 keyset lists take. */
export const STANDARD_FILTERS: Readonly<
  Record<'id' | 'createdAt' | 'updatedAt', FilterDescription>
> = {
  id: { attr: 'id', type: 'ID', ops: ALL_OPS, description: 'On the upstream id.' },
  createdAt: {
    attr: 'created_at',
    type: 'DateTime',
    ops: ALL_OPS,
    description: 'On the creation time.',
  },
  updatedAt: {
    attr: 'updated_at',
    type: 'DateTime',
    ops: ALL_OPS,
    description: 'On the last update time.',
  },
};

export const STANDARD_SORT_KEYS: readonly SortKey[] = ['created_at', 'updated_at', 'id'];

/** What a list can do: the `list` part of a resource description (resource.ts). */
export interface ListCapabilities {
  /**
   * `keyset`: sorts on `sortKeys` and filters ranges of created_at / updated_at / id, so the
   * planner can page it to any depth with sortKey, reverse and updatedSince. `offset`: neither
   * (the catalog lists); paged by offset alone, in the upstream's own order.
   */
  paging: 'keyset' | 'offset';
  /** Keyset lists: default created_at, updated_at and id. */
  sortKeys?: readonly SortKey[];
  /** Default STANDARD_FILTERS for keyset lists, none for offset lists. */
  filters?: Readonly<Record<string, FilterDescription>>;
  /**
   * `hard`: the upstream refuses offsets past 10,000 (orders, files); `soft`: it serves them
   * (the catalog lists), so an offset-only list can still be paged past it. A keyset list is
   * never paged past it either way.
   */
  offsetLimit?: 'hard' | 'soft';
}

const SORT_KEY_VALUES: Record<SortKey, { name: string; description: string }> = {
  created_at: { name: 'CREATED_AT', description: 'By creation time.' },
  updated_at: { name: 'UPDATED_AT', description: 'By last update time.' },
  id: { name: 'ID', description: 'By upstream id (string order).' },
};

const OP_DESCRIPTIONS: Record<FilterOp, string> = {
  eq: 'Equal to.',
  gt: 'Sorts after.',
  ge: 'Equal to or sorts after.',
  lt: 'Sorts before.',
  le: 'Equal to or sorts before.',
  in: 'One of these.',
};

type FilterInputRef = InputObjectRef<BuilderTypes, unknown>;

// Built when a list first asks for one, so the schema holds only those some list takes.
const filterInputs = new Map<string, FilterInputRef>();

/**
 * The input type of one attribute's conditions: `IDFilter` and `DateTimeFilter` with every
 * operator, otherwise e.g. `StringEqInFilter` (made on first use, shared by every list).
 */
function filterInputFor(type: FilterValueType, ops: readonly FilterOp[]): FilterInputRef {
  const complete = ALL_OPS.every((op) => ops.includes(op));
  if (complete && type === 'ID') return IDFilter as FilterInputRef;
  if (complete && type === 'DateTime') return DateTimeFilter as FilterInputRef;
  const ordered = ALL_OPS.filter((op) => ops.includes(op));
  const name = `${type}${ordered.map((op) => `${op[0]?.toUpperCase()}${op.slice(1)}`).join('')}Filter`;
  const known = filterInputs.get(name);
  if (known !== undefined) return known;
  const what = type === 'ID' ? 'an upstream id' : type === 'DateTime' ? 'a timestamp' : 'a text';
  const input = builder.inputType(name, {
    description: `Conditions on ${what}, all of which must hold.`,
    fields: (t) =>
      Object.fromEntries(
        ordered.map((op) => [
          op,
          op === 'in'
            ? t.field({ type: [type], required: false, description: OP_DESCRIPTIONS.in })
            : t.field({ type, required: false, description: OP_DESCRIPTIONS[op] }),
        ]),
      ),
  }) as FilterInputRef;
  filterInputs.set(name, input);
  return input;
}

/** The conditions of one attribute as a client gives them. */
interface OpsInput {
  eq?: string | null;
  gt?: string | null;
  ge?: string | null;
  lt?: string | null;
  le?: string | null;
  in?: readonly string[] | null;
}

type FilterInput = Readonly<Record<string, OpsInput | null | undefined>>;

const PLANNER_ATTRS = new Set<string>(['id', 'created_at', 'updated_at']);

/** One attribute of a list's filter input, as its clauses are made. */
interface FilterPlanEntry {
  name: string;
  attr: string;
  ops: readonly FilterOp[];
  /** id / created_at / updated_at: the planner validates and renders them; others are here. */
  planner: boolean;
}

/** How a list's filter input becomes clauses; made once per list, read per request. */
export type FilterPlan = readonly FilterPlanEntry[];

export function filterPlan(filters: Readonly<Record<string, FilterDescription>>): FilterPlan {
  return Object.entries(filters).map(([name, { attr, ops }]) => ({
    name,
    attr,
    ops: ALL_OPS.filter((op) => ops.includes(op)),
    planner: PLANNER_ATTRS.has(attr),
  }));
}

const STANDARD_PLAN = filterPlan(STANDARD_FILTERS);

// Upstream uuids are lower case; an upper-case one would match nothing, or sort apart.
const asIs = (value: string) => value;

/**
 * The typed filter input as planner clauses (the planner validates and renders them), plus the
 * clauses on attributes the planner does not know, judged and rendered here into `rendered`.
 */
export function toFilterClauses(
  filter: FilterInput | null | undefined,
  plan: FilterPlan = STANDARD_PLAN,
  rendered?: string[],
): FilterClause[] {
  if (!filter) return [];
  const clauses: FilterClause[] = [];
  for (const entry of plan) {
    const ops = filter[entry.name];
    if (!ops) continue;
    const { attr } = entry;
    if (!entry.planner) {
      renderClauses(entry, ops, rendered);
      continue;
    }
    const norm = attr === 'id' ? normalizeFilterId : asIs;
    for (const op of entry.ops) {
      const value = ops[op];
      if (value === undefined || value === null) continue;
      clauses.push(
        op === 'in'
          ? { attr: attr as SortKey, op, value: (value as readonly string[]).map(norm) }
          : { attr: attr as SortKey, op, value: norm(value as string) },
      );
    }
  }
  return clauses;
}

/** Clauses on an attribute the planner does not know, in the v2 syntax, values judged. */
function renderClauses(entry: FilterPlanEntry, ops: OpsInput, out: string[] | undefined): void {
  if (out === undefined) throw new Error(`filter ${entry.name} needs a place for its clauses`);
  for (const op of entry.ops) {
    const value = ops[op];
    if (value === undefined || value === null) continue;
    const path = `filter.${entry.name}.${op}`;
    out.push(
      filterClause(
        op,
        entry.attr,
        op === 'in'
          ? renderFilterValue(value as readonly string[], path)
          : renderFilterValue(value as string, path),
      ),
    );
  }
}

/** The arguments and filter plan of a list type, from what it can do. */
export interface ListDefinition {
  args: ReturnType<typeof builder.args>;
  plan: FilterPlan;
  capabilities: ListCapabilities;
}

/**
 * Registers `<Type>SortKey` (keyset lists) and `<Type>Filter` (lists with filters) and returns
 * the extra connection arguments with the plan that turns their filter into clauses.
 */
export function defineList(
  typeName: string,
  plural: string,
  capabilities: ListCapabilities = { paging: 'keyset' },
): ListDefinition {
  const keyset = capabilities.paging === 'keyset';
  const filters = capabilities.filters ?? (keyset ? STANDARD_FILTERS : {});
  const filterNames = Object.keys(filters);
  const FilterInputType =
    filterNames.length === 0
      ? undefined
      : builder.inputType(`${typeName}Filter`, {
          description: `Conditions on the ${plural} list, all of which must hold.`,
          fields: (t) =>
            Object.fromEntries(
              Object.entries(filters).map(([name, { type, ops, description }]) => [
                name,
                t.field({ type: filterInputFor(type, ops), required: false, description }),
              ]),
            ),
        });
  let SortKeyEnum: ReturnType<typeof builder.enumType> | undefined;
  if (keyset) {
    const sortKeys = capabilities.sortKeys ?? STANDARD_SORT_KEYS;
    SortKeyEnum = builder.enumType(`${typeName}SortKey`, {
      description: `Orders of the ${plural} list; ties are broken by id in the same direction.`,
      values: Object.fromEntries(
        sortKeys.map((key) => [
          SORT_KEY_VALUES[key].name,
          { value: key, description: SORT_KEY_VALUES[key].description },
        ]),
      ),
    });
  }
  const args = builder.args((t) => ({
    ...(SortKeyEnum && {
      sortKey: t.field({
        type: SortKeyEnum,
        required: false,
        defaultValue: 'created_at' as never,
        description: 'What the list is ordered by.',
      }),
      reverse: t.boolean({
        required: false,
        defaultValue: false,
        description: 'Newest / largest first when true.',
      }),
    }),
    ...(FilterInputType && {
      filter: t.field({ type: FilterInputType, required: false, description: 'Narrows the list.' }),
    }),
    ...(SortKeyEnum && {
      updatedSince: t.field({
        type: 'DateTime',
        required: false,
        description:
          'Incremental sync: only items updated at or after this time. Deletions are not seen.',
      }),
    }),
  }));
  return {
    args,
    plan: filters === STANDARD_FILTERS ? STANDARD_PLAN : filterPlan(filters),
    capabilities,
  };
}

/** Registers `<Type>SortKey` and `<Type>Filter` of a standard keyset list; its arguments. */
export function defineListArgs(typeName: string, plural: string) {
  return defineList(typeName, plural).args;
}

/**
 * `pinnedAt` of a keyset list's connection (the planner pins every walk): given to each
 * connection object built for one, since an offset list has no such bound.
 */
export function pinnedAtField<Shape extends { pinnedAt: string }>(
  t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, Shape>,
): FieldRef<BuilderTypes, string, 'Object'> {
  return t.field({
    type: 'DateTime',
    description:
      'The upper bound this walk of the list was pinned to at its first page: items created ' +
      '(for sortKey UPDATED_AT: updated) after it are left out of every page of the walk, so ' +
      'pages never shift. For incremental sync, pass it as `updatedSince` next time.',
    resolve: (parent) => parent.pinnedAt,
  });
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
  /** Path of the list (below /v2, or naming its root: src/upstream/route-template.ts). */
  segments: readonly string[];
  /**
   * Set for an offset-only list (no sort, no range filters: the catalog's): paged by offset
   * alone (src/upstream/paging/offset.ts), served past 10,000 when `soft`.
   */
  offsetOnly?: 'soft' | 'hard';
  /** Sent with every page of an offset-only list (the catalog's `include=main_image,files`). */
  query?: Readonly<Record<string, string>>;
  /** Checks and converts one upstream row. */
  toNode: (row: JsonObject) => T;
  /**
   * An offset list's pages may be shared between callers under this key prefix
   * (src/upstream/shared-reads.ts; the schema decides when: src/schema/catalog/shared-catalog.ts).
   */
  shared?: string;
  /** How the list's filter input becomes clauses; default the standard id/createdAt/updatedAt. */
  plan?: FilterPlan;
}

/**
 * Resolves a connection field through the pagination planner and the cached GET.
 * `renderedFilters`: clauses on typed Custom API fields, judged and rendered by their schema.
 * In an answer in parts (`@defer`/`@stream`), the connection's edges are an async iterable fed
 * page by page and its pageInfo a promise (src/upstream/paging/stream.ts); graphql 17 reads
 * both, and no compiled (jit) operation ever gets one.
 */
export function resolveList<T extends Listed>(
  context: GatewayContext,
  args: ListArgs,
  spec: ListSpec<T>,
  renderedFilters: readonly string[] = [],
): Promise<Connection<T>> {
  if (spec.offsetOnly !== undefined) {
    // Offset lists filter with eq/in only; clauses on id come back typed for the planner's judge.
    const clauses: string[] = [];
    for (const clause of toFilterClauses(args.filter, spec.plan, clauses)) {
      clauses.push(renderClause(clause));
    }
    return resolveOffsetList(context, args, spec, clauses, spec.offsetOnly);
  }
  let rendered = renderedFilters;
  let filters: FilterClause[];
  if (spec.plan === undefined || spec.plan === STANDARD_PLAN) {
    filters = toFilterClauses(args.filter);
  } else {
    const own: string[] = [];
    filters = toFilterClauses(args.filter, spec.plan, own);
    if (own.length > 0) rendered = [...renderedFilters, ...own];
  }
  // An answer in parts (@stream) takes the edges as the upstream pages come in. A context made
  // by hand (an application's, in process) may have no operation holder.
  const page = context.operation?.incremental === true ? paginateInParts : paginate;
  return page<T>({
    connection: spec.connection,
    args: { first: args.first, after: args.after, last: args.last, before: args.before },
    sortKey: args.sortKey ?? 'created_at',
    reverse: args.reverse ?? false,
    filters,
    renderedFilters: rendered,
    updatedSince: args.updatedSince ?? undefined,
    budget: context.budget,
    limits: context.paging,
    keyOf: (node) => ({
      id: node.upstreamId,
      created_at: node.createdAt,
      updated_at: node.updatedAt,
    }),
    fetchPage: async (_page, query) => {
      const list = expectList(await context.get(spec.segments, query));
      return { data: list.data.map(spec.toNode), total: list.total };
    },
  }) as Promise<Connection<T>>;
}
