/**
 * What an operation costs the gateway and its upstream, counted from the schema before anything
 * runs, in the spirit of the GraphQL Cost Directive spec's `@listSize`: list sizes come from the
 * arguments that set them (literal or the variables' values), and what a field costs comes
 * from what its resolver does. Three things are counted:
 * - **upstream calls**: a connection field (`first`/`last` arguments, a type with `edges` or
 *   `nodes`) is planned into pages of at most PagingLimits.pageSize records, so `first: N` is
 *   ceil(N / 100) calls, N rows for its `edges`/`nodes` and N times what they select (a nested
 *   connection is N times its own pages); a field that takes a list of ids (`nodes(ids:)`,
 *   `_entities(representations:)`) is one batched call per 100 ids; every other root field is
 *   one call; below the root, a field whose resolver fetches says how many calls it makes each
 *   time it resolves in its `extensions.upstreamCalls` (`Order.items`: one GET per order), and
 *   any other field makes none;
 * - **rows**: every item of a list of objects (a record to parse, build and serialise); a list
 *   no argument sizes (an order's items) is taken to hold ASSUMED_LIST_SIZE;
 * - **values**: every field in the answer, scalar or object, as many times as it appears.
 *
 * Weighted (COST_WEIGHTS) and summed, that is the operation's cost. Fields are merged as
 * execution merges them (a page selected by two fragments runs, and costs, once); an item of an
 * abstract list (`_entities`, `nodes`) costs what its costliest possible type costs. What a set
 * of selections costs is linear in how many times it resolves, so it is measured once per
 * place and scaled: a fragment spread everywhere costs no more to measure than to read.
 * Introspection fields cost nothing (they are switched separately); `@skip`/`@include` are not
 * evaluated (their fields are counted). Ids of several types or of carts (which have no lookup
 * by a list of ids) take more calls than one per 100 ids; UPSTREAM_CALL_BUDGET bounds those as
 * they are made.
 */
import {
  type ASTVisitor,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  getNamedType,
  isAbstractType,
  isCompositeType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type NamedTypeNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
  type ValueNode,
} from 'graphql';
import { BadUserInputError, QueryTooComplexError } from '../upstream/errors.ts';
import { DEFAULT_PAGING_LIMITS } from '../upstream/index.ts';

/**
 * The cost of one of each, in rows. A row is the unit: an upstream record parsed, built into a
 * node and serialised. A value (one field of the answer) is a resolver call and its bytes, a
 * twentieth of a row (an order row is about 1.4 KB of upstream JSON whatever is selected). An
 * upstream call is 50 rows: its request, response and retry bookkeeping, a connection slot and
 * the upstream's own query; 100 calls (twice UPSTREAM_CALL_BUDGET) are the default MAX_COST.
 */
export const COST_WEIGHTS = Object.freeze({ call: 50, row: 1, value: 0.05 });

/** Sums are kept in these units (twentieths of a row), so they stay integers. */
const UNIT = 20;
const CALL = COST_WEIGHTS.call * UNIT;
const ROW = COST_WEIGHTS.row * UNIT;
const VALUE = COST_WEIGHTS.value * UNIT;

/** Items taken for a list of objects no argument sizes (an order's items, a cart's discounts). */
export const ASSUMED_LIST_SIZE = 10;

/** The field extension a resolver that fetches below the root sets: its calls per resolution. */
export const UPSTREAM_CALLS_EXTENSION = 'upstreamCalls';

const SLICING_ARGUMENTS = ['first', 'last'] as const;
const SIZED_FIELDS = ['edges', 'nodes'] as const;

export interface CostModelOptions {
  /** Records per upstream list call, and ids per batched lookup (PagingLimits.pageSize). */
  pageSize: number;
  /** Page size when neither `first` nor `last` is given (PagingLimits.defaultFirst). */
  defaultFirst: number;
  /** The largest `first`/`last` (PagingLimits.maxFirst): a larger one is refused as such. */
  maxFirst: number;
}

/**
 * The sizes the operation's variables give, by variable name: a `first`/`last` variable's
 * value (undefined: not given, the default page), a list variable's length. At validation the
 * values are not known yet and every variable counts as 0, the least it can cost.
 */
export type VariableSizes = (variable: string) => number | undefined;

/** What a part of an operation makes happen, unweighted. */
export interface CostCounts {
  calls: number;
  rows: number;
  values: number;
}

export interface QueryCost extends CostCounts {
  /** The weighted sum, in rows. */
  cost: number;
  /** The schema coordinate (`Order.items`) whose own calls, rows and values cost the most. */
  costliest: ({ field: string; cost: number } & CostCounts) | undefined;
  /** The first `first`/`last` above the maximum page size, if any. */
  oversized: { argument: string; value: number } | undefined;
}

/** How a field of the schema costs, worked out once per field (and kept while the schema lives). */
interface FieldModel {
  /** Calls each time it resolves, as its `extensions.upstreamCalls` says, if it says. */
  declared: number | undefined;
  /** Its `first`/`last` arguments: a paged field. */
  slicing: boolean;
  /** A paged field whose type has `edges`/`nodes` lists: a connection they hold the page of. */
  connection: boolean;
  /** The list argument that sizes its result (`ids`, `representations`). */
  sizingList: string | undefined;
  /** Whether it returns a list, and of objects. */
  list: boolean;
  composite: boolean;
}

const models = new WeakMap<GraphQLField<unknown, unknown>, FieldModel>();

function unwrapNonNull(type: GraphQLOutputType): GraphQLOutputType {
  return isNonNullType(type) ? type.ofType : type;
}

function fieldModel(field: GraphQLField<unknown, unknown>): FieldModel {
  let model = models.get(field);
  if (model !== undefined) return model;
  const named = getNamedType(field.type);
  const slicing = field.args.some((arg) =>
    (SLICING_ARGUMENTS as readonly string[]).includes(arg.name),
  );
  let connection = false;
  if (slicing && (isObjectType(named) || isInterfaceType(named))) {
    const fields = named.getFields();
    connection = SIZED_FIELDS.some((name) => {
      const child = fields[name];
      return child !== undefined && isListType(unwrapNonNull(child.type));
    });
  }
  const list = isListType(unwrapNonNull(field.type));
  const sizingList = list
    ? field.args.find((arg) => isListType(isNonNullType(arg.type) ? arg.type.ofType : arg.type))
        ?.name
    : undefined;
  const declared = field.extensions?.[UPSTREAM_CALLS_EXTENSION];
  model = {
    declared: typeof declared === 'number' && declared >= 0 ? declared : undefined,
    slicing,
    connection,
    sizingList,
    list,
    composite: isCompositeType(named),
  };
  models.set(field, model);
  return model;
}

/** The argument that sizes a field's result by its list's length, if it has one. */
export function sizingListArgument(field: GraphQLField<unknown, unknown>): string | undefined {
  return fieldModel(field).sizingList;
}

/** Calls, rows and values by schema coordinate, and the first oversized page. */
interface Tally extends CostCounts {
  byField: Map<string, CostCounts>;
  oversized: { argument: string; value: number } | undefined;
}

const newTally = (): Tally => ({
  calls: 0,
  rows: 0,
  values: 0,
  byField: new Map(),
  oversized: undefined,
});

function charge(tally: Tally, coordinate: string, calls: number, rows: number, values: number) {
  tally.calls += calls;
  tally.rows += rows;
  tally.values += values;
  let part = tally.byField.get(coordinate);
  if (part === undefined) {
    part = { calls: 0, rows: 0, values: 0 };
    tally.byField.set(coordinate, part);
  }
  part.calls += calls;
  part.rows += rows;
  part.values += values;
}

/** The page a connection's `edges`/`nodes` hold, and whose rows they are. */
interface Page {
  size: number;
  owner: string;
}

const weigh = (counts: CostCounts) =>
  (counts.calls * CALL + counts.rows * ROW + counts.values * VALUE) / UNIT;

/** Adds `part`, resolved `times` times, to `tally`. */
function add(tally: Tally, part: Tally, times: number) {
  tally.oversized ??= part.oversized;
  for (const [coordinate, counts] of part.byField) {
    charge(tally, coordinate, counts.calls * times, counts.rows * times, counts.values * times);
  }
}

/**
 * One measurement. Fields are collected as execution collects them (by response key, fragments
 * spread once per selection set, type conditions applied), so a field selected twice under one
 * name is counted once, as it runs once. What the merged selections under one type cost at one
 * resolution is kept by (type, selection sets, page): a fragment spread in many places is
 * measured once per distinct place and scaled. The depth limit is judged first (./armor.ts), so
 * this recursion is at most that deep.
 */
class Measure {
  readonly #schema: GraphQLSchema;
  readonly #options: CostModelOptions;
  readonly #fragment: (name: string) => FragmentDefinitionNode | undefined | null;
  readonly #sizes: VariableSizes;
  readonly #ids = new Map<SelectionSetNode, number>();
  readonly #memo = new Map<string, Tally>();
  readonly #measuring = new Set<string>();

  constructor(
    schema: GraphQLSchema,
    options: CostModelOptions,
    fragment: (name: string) => FragmentDefinitionNode | undefined | null,
    sizes: VariableSizes,
  ) {
    this.#schema = schema;
    this.#options = options;
    this.#fragment = fragment;
    this.#sizes = sizes;
  }

  #id(set: SelectionSetNode): number {
    let id = this.#ids.get(set);
    if (id === undefined) {
      id = this.#ids.size;
      this.#ids.set(set, id);
    }
    return id;
  }

  /** What the selection sets, merged, cost under `type` at one resolution. */
  sets(sets: readonly SelectionSetNode[], type: GraphQLNamedType, page: Page | undefined): Tally {
    let key = `${type.name}\n${page === undefined ? '' : `${page.size}\n${page.owner}`}\n`;
    for (const set of sets) key += `${this.#id(set)},`;
    const known = this.#memo.get(key);
    if (known !== undefined) return known;
    // Only a fragment cycle (refused by validation) leads back to the same selections.
    if (this.#measuring.has(key)) return newTally();
    this.#measuring.add(key);
    let tally: Tally;
    if (isAbstractType(type)) {
      // Each item is one of the possible types: it costs what the costliest of them costs.
      tally = newTally();
      let most = -1;
      let oversized: Tally['oversized'];
      for (const possible of this.#schema.getPossibleTypes(type)) {
        const one = this.#concrete(sets, possible, page);
        oversized ??= one.oversized;
        const cost = weigh(one);
        if (cost > most) {
          most = cost;
          tally = one;
        }
      }
      tally.oversized ??= oversized;
    } else {
      tally = this.#concrete(sets, type, page);
    }
    this.#measuring.delete(key);
    this.#memo.set(key, tally);
    return tally;
  }

  #concrete(sets: readonly SelectionSetNode[], type: GraphQLNamedType, page: Page | undefined) {
    const fields = new Map<string, FieldNode[]>();
    const spread = new Set<string>();
    for (const set of sets) this.#collect(set, type, fields, spread);
    const tally = newTally();
    for (const nodes of fields.values()) this.#field(nodes, type, page, tally);
    return tally;
  }

  #applies(condition: NamedTypeNode | undefined, type: GraphQLNamedType): boolean {
    if (condition === undefined || condition.name.value === type.name) return true;
    const conditional = this.#schema.getType(condition.name.value);
    return (
      conditional !== undefined &&
      isAbstractType(conditional) &&
      isObjectType(type) &&
      this.#schema.isSubType(conditional, type)
    );
  }

  #collect(
    set: SelectionSetNode,
    type: GraphQLNamedType,
    fields: Map<string, FieldNode[]>,
    spread: Set<string>,
  ) {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        const same = fields.get(key);
        if (same === undefined) fields.set(key, [selection]);
        else same.push(selection);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (this.#applies(selection.typeCondition, type)) {
          this.#collect(selection.selectionSet, type, fields, spread);
        }
      } else {
        const name = selection.name.value;
        if (spread.has(name)) continue;
        spread.add(name);
        const fragment = this.#fragment(name);
        if (fragment && this.#applies(fragment.typeCondition, type)) {
          this.#collect(fragment.selectionSet, type, fields, spread);
        }
      }
    }
  }

  /** An integer argument's value: a literal, or its variable's; undefined when not given. */
  #int(value: ValueNode): number | undefined {
    if (value.kind === Kind.INT) return Number(value.value);
    if (value.kind === Kind.VARIABLE) return this.#sizes(value.name.value);
    return undefined;
  }

  /** A list argument's length: a literal list, a variable's, or 1 for a lone value. */
  #length(value: ValueNode): number {
    if (value.kind === Kind.LIST) return value.values.length;
    if (value.kind === Kind.VARIABLE) return this.#sizes(value.name.value) ?? 0;
    return value.kind === Kind.NULL ? 0 : 1;
  }

  /** The page `first`/`last` ask for (the larger, if both: the planner refuses that anyway). */
  #pageSize(node: FieldNode, tally: Tally): number {
    let size: number | undefined;
    for (const argument of node.arguments ?? []) {
      const name = argument.name.value;
      if (name !== 'first' && name !== 'last') continue;
      const value = this.#int(argument.value);
      if (value === undefined) continue;
      if (value > this.#options.maxFirst) tally.oversized ??= { argument: name, value };
      size = Math.max(size ?? 0, value);
    }
    return Math.max(0, size ?? this.#options.defaultFirst);
  }

  /** One response key: the field once, and its merged selections as many times as it yields. */
  #field(nodes: FieldNode[], parent: GraphQLNamedType, page: Page | undefined, tally: Tally) {
    const node = nodes[0] as FieldNode;
    const name = node.name.value;
    if (name.startsWith('__')) {
      if (name === '__typename') charge(tally, `${parent.name}.__typename`, 0, 0, 1);
      return;
    }
    if (!isObjectType(parent) && !isInterfaceType(parent)) return;
    const definition = parent.getFields()[name];
    if (definition === undefined) return;
    const coordinate = `${parent.name}.${name}`;
    const model = fieldModel(definition);
    const root =
      parent === this.#schema.getQueryType() || parent === this.#schema.getMutationType();
    let calls = model.declared ?? (root ? 1 : 0);
    let items = 1;
    let pageOfChildren: Page | undefined;
    // The `edges`/`nodes` of a connection: its page's rows, charged to the connection.
    const ofPage =
      page !== undefined && model.list && (SIZED_FIELDS as readonly string[]).includes(name);
    if (model.slicing) {
      const size = this.#pageSize(node, tally);
      calls = Math.max(1, Math.ceil(size / this.#options.pageSize));
      if (model.connection) pageOfChildren = { size, owner: coordinate };
      else if (model.list) items = size;
    } else if (model.sizingList !== undefined) {
      const argument = node.arguments?.find((a) => a.name.value === model.sizingList);
      items = argument === undefined ? 0 : this.#length(argument.value);
      if (calls > 0) calls = Math.max(1, Math.ceil(items / this.#options.pageSize));
    } else if (model.list) {
      items = ofPage ? (page as Page).size : ASSUMED_LIST_SIZE;
    }
    charge(tally, coordinate, calls, 0, 1);
    if (model.list) {
      const owner = ofPage ? (page as Page).owner : coordinate;
      if (model.composite) charge(tally, owner, 0, items, 0);
      else charge(tally, owner, 0, 0, items);
    }
    if (items === 0) return;
    const sets: SelectionSetNode[] = [];
    for (const one of nodes) if (one.selectionSet !== undefined) sets.push(one.selectionSet);
    if (sets.length === 0) return;
    add(tally, this.sets(sets, getNamedType(definition.type), pageOfChildren), items);
  }
}

/**
 * The cost of one operation of a document. `fragment` finds the document's fragments by name;
 * `sizes` gives the variables' sizes (VariableSizes).
 */
export function measureOperationCost(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragment: (name: string) => FragmentDefinitionNode | undefined | null,
  sizes: VariableSizes,
  options: CostModelOptions,
): QueryCost {
  const root =
    operation.operation === 'mutation'
      ? schema.getMutationType()
      : operation.operation === 'subscription'
        ? schema.getSubscriptionType()
        : schema.getQueryType();
  const tally = root
    ? new Measure(schema, options, fragment, sizes).sets([operation.selectionSet], root, undefined)
    : newTally();
  let costliest: QueryCost['costliest'];
  for (const [field, part] of tally.byField) {
    const cost = weigh(part);
    if (costliest === undefined || cost > costliest.cost) costliest = { field, cost, ...part };
  }
  return {
    calls: tally.calls,
    rows: tally.rows,
    values: tally.values,
    cost: weigh(tally),
    costliest,
    oversized: tally.oversized,
  };
}

/** The cost model with the planner's page sizes (src/upstream/paging/plan.ts) and this maxFirst. */
export function costModelOptions(
  maxFirst: number = DEFAULT_PAGING_LIMITS.maxFirst,
): CostModelOptions {
  return {
    pageSize: DEFAULT_PAGING_LIMITS.pageSize,
    defaultFirst: DEFAULT_PAGING_LIMITS.defaultFirst,
    maxFirst,
  };
}

const counted = (n: number, what: string) => `${figure(n)} ${what}${n === 1 ? '' : 's'}`;
const figure = (n: number) =>
  Number.isSafeInteger(Math.ceil(n)) ? String(Math.ceil(n)) : 'over 2^53';

/**
 * The refusal of a measured operation, or undefined when it may run: a `first`/`last` above
 * maxFirst in the planner's words (BAD_USER_INPUT: the client fixes the value, not the
 * document), else a cost above maxCost with what was counted and the costliest field
 * (QUERY_TOO_COMPLEX with `extensions.limit` and `maximum`). A GraphQLError without a location,
 * so that a refusal at validation and one at execution (variables) read the same.
 */
export function costRefusal(
  cost: QueryCost,
  maxCost: number,
  maxFirst: number,
): GraphQLError | undefined {
  if (cost.oversized !== undefined) {
    const { argument, value } = cost.oversized;
    const message = `\`${argument}\` may be at most ${maxFirst}, got ${value}`;
    return new GraphQLError(message, {
      extensions: new BadUserInputError(message, { field: argument }).extensions,
    });
  }
  // NaN (an overflow) is refused too.
  if (cost.cost <= maxCost) return undefined;
  const costliest = cost.costliest;
  const message =
    `Query cost ${figure(cost.cost)} exceeds the maximum cost ${maxCost} (` +
    `${counted(cost.calls, 'upstream call')}, ${counted(cost.rows, 'row')}, ` +
    `${counted(cost.values, 'value')}` +
    (costliest === undefined
      ? ''
      : `; the costliest field is ${costliest.field} at ${figure(costliest.cost)}`) +
    '): select fewer fields, or ask for smaller pages (first/last multiply the cost of what ' +
    'they select)';
  return new GraphQLError(message, {
    extensions: new QueryTooComplexError(message, { limit: 'maxCost', maximum: maxCost })
      .extensions,
  });
}

/**
 * The cost limit as a validation rule: every operation of the document measured with its
 * variables at their least (0), refused (thrown, as graphql-armor's limits are, so the refusal
 * is the only error) when that is already too much. Variables' real sizes are judged before
 * execution (./operation-limits.ts).
 */
export function createCostRule(
  maxCost: number,
  options: CostModelOptions = costModelOptions(),
): ValidationRule {
  const least: VariableSizes = () => 0;
  return function QueryCostRule(context: ValidationContext): ASTVisitor {
    return {
      OperationDefinition(node) {
        const cost = measureOperationCost(
          context.getSchema(),
          node,
          (name) => context.getFragment(name),
          least,
          options,
        );
        const refused = costRefusal(cost, maxCost, options.maxFirst);
        if (refused !== undefined) throw refused;
        return false;
      },
    };
  };
}
