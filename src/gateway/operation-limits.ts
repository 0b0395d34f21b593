/**
 * The limits that depend on the variables' values, judged on every execution before anything
 * runs. Validation (./armor.ts) judges the document alone, once (validation is cached), so
 * without this a list or a page size given as a variable passes whatever its value:
 * - the lists of an operation's arguments — literal or a variable's value, at any depth of an
 *   input object, each counted where it is used — hold at most `maxListItems` items together
 *   (so no one list holds more either). Unbounded, 40,000 representations in an 80 KB body are
 *   resolved one by one on the event loop into megabytes of answer; bounded one list at a time,
 *   15 aliases would multiply the bound. Refused as BAD_USER_INPUT naming the longest list, its
 *   length and the maximum; BAD_USER_INPUT rather than QUERY_TOO_COMPLEX because it is a value
 *   out of range, like a `first` above PAGING_MAX_FIRST or a 101-value `in` filter, which the
 *   client fixes in its variables, not in its document;
 * - a document whose `first`/`last` or sizing lists (`ids`, `representations`) are variables is
 *   costed (./query-cost.ts) with their values, where validation counted them as 0, so it is
 *   refused exactly as the same document written literally: same code, same message, no
 *   upstream call.
 *
 * What a document needs is worked out once per schema (the typed schema is swapped on refresh),
 * document (Yoga's parse cache hands out one object per text) and operation; cost verdicts are
 * kept per combination of the variables' sizes. A document without list-typed variables or
 * variable sizes costs a few map lookups a request.
 *
 * The plugin replaces the execute function of a refused operation, so it must come after
 * jitPlugin (which sets the compiled one): compiled and normal execution, on the fast path or
 * Yoga's, are both refused by it.
 */
import {
  type ArgumentNode,
  type DocumentNode,
  type ExecutionResult,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLInputField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLSchema,
  getOperationAST,
  isInputObjectType,
  isListType,
  isNonNullType,
  Kind,
  type OperationDefinitionNode,
  TypeInfo,
  type ValueNode,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { BadUserInputError } from '../upstream/errors.ts';
import { type QueryLimits, resolveQueryLimits } from './armor.ts';
import {
  costModelOptions,
  costRefusal,
  measureOperationCost,
  sizingListArgument,
  type VariableSizes,
} from './query-cost.ts';

export interface OperationLimitsOptions {
  /** The query limits (maxListItems, maxCost); defaults in ./armor.ts. */
  limits?: Partial<QueryLimits> | undefined;
  /** PAGING_MAX_FIRST, for the refusal of a page size above it. */
  maxFirst?: number | undefined;
}

/** A variable whose value can hold a list, where the operation uses it. */
interface ListUse {
  variable: string;
  type: GraphQLInputType;
  /** The argument, dotted into input fields (`filter.id.in`). */
  argument: string;
  /** The field (or `@directive`) the argument belongs to. */
  owner: string;
  node: ArgumentNode;
}

/** A list of an argument: where it is and how long. */
interface List {
  argument: string;
  owner: string | undefined;
  length: number;
  node: ArgumentNode | undefined;
}

/** The list items of an operation's arguments: all of them, and the longest list. */
interface Tally {
  total: number;
  longest: List | undefined;
}

interface Plan {
  operation: OperationDefinitionNode;
  /** The literal lists of the operation (its fragments and variables' defaults included). */
  literal: Tally;
  lists: ListUse[];
  /** Variables given as `first`/`last`. */
  sizes: string[];
  /** Variables given as the list that sizes a field (`ids`, `representations`). */
  sizingLists: string[];
  /** Default values of the variables, by name. */
  defaults: Map<string, ValueNode>;
  fragments: Map<string, FragmentDefinitionNode>;
  /** Cost refusals (or null: within the maximum) by the page sizes' values. */
  verdicts: Map<string, { message: string; extensions: Record<string, unknown> } | null>;
}

/** Distinct page-size combinations remembered per operation; others are judged each time. */
const MAX_VERDICTS = 64;
const MAX_INT = 2 ** 31 - 1;

const listFieldsOf = new WeakMap<GraphQLInputObjectType, readonly GraphQLInputField[]>();

/** Whether a value of this type can hold a list anywhere (input object cycles cut). */
function holdsList(type: GraphQLInputType, seen?: Set<GraphQLInputObjectType>): boolean {
  const nullable = isNonNullType(type) ? type.ofType : type;
  if (isListType(nullable)) return true;
  if (!isInputObjectType(nullable)) return false;
  if (seen === undefined) return listFields(nullable).length > 0;
  if (seen.has(nullable)) return false;
  seen.add(nullable);
  return Object.values(nullable.getFields()).some((field) => holdsList(field.type, seen));
}

/** The fields of an input object that can hold a list. */
function listFields(type: GraphQLInputObjectType): readonly GraphQLInputField[] {
  let fields = listFieldsOf.get(type);
  if (fields === undefined) {
    fields = Object.values(type.getFields()).filter((field) =>
      holdsList(field.type, new Set([type])),
    );
    listFieldsOf.set(type, fields);
  }
  return fields;
}

function count(tally: Tally, list: List): void {
  tally.total += list.length;
  if (tally.longest === undefined || list.length > tally.longest.length) tally.longest = list;
}

/**
 * Adds the lists of a variable's value to the tally, walking it along its input type: only
 * lists and the input fields that can hold one are visited, never the items of a list of
 * scalars, so a long list costs one length read.
 */
function measure(value: unknown, type: GraphQLInputType, use: ListUse, path: string, tally: Tally) {
  if (value === null || value === undefined) return;
  const nullable = isNonNullType(type) ? type.ofType : type;
  if (isListType(nullable)) {
    const item = nullable.ofType as GraphQLInputType;
    // A single value where a list is expected is coerced to a list of one.
    if (!Array.isArray(value)) {
      measure(value, item, use, path, tally);
      return;
    }
    count(tally, { argument: path, owner: use.owner, length: value.length, node: use.node });
    if (holdsList(item)) for (const one of value) measure(one, item, use, path, tally);
    return;
  }
  if (isInputObjectType(nullable) && typeof value === 'object' && !Array.isArray(value)) {
    for (const field of listFields(nullable)) {
      const fieldValue = (value as Record<string, unknown>)[field.name];
      measure(fieldValue, field.type, use, `${path}.${field.name}`, tally);
    }
  }
}

/** The refusal of a tally over the maximum. */
function refusal(tally: Tally, max: number): GraphQLError {
  const longest = tally.longest as List;
  const where =
    longest.owner === undefined
      ? `\`${longest.argument}\``
      : `\`${longest.argument}\` of \`${longest.owner}\``;
  const message =
    longest.length > max
      ? `${where} has ${longest.length} items; the maximum is ${max}: send the rest in another request`
      : `The lists of this operation's arguments hold ${tally.total} items together (the longest, ` +
        `${where}, ${longest.length}); the maximum is ${max}: send some in another request`;
  // A GraphQLError of its own, as armor's refusals are: with no data beside it, one wrapping
  // another error would be answered as an unexpected failure (HTTP 500).
  return new GraphQLError(message, {
    nodes: longest.node,
    extensions: new BadUserInputError(message, { field: longest.argument }).extensions,
  });
}

function plan(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): Plan {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition.name.value, definition);
    }
  }
  const result: Plan = {
    operation,
    literal: { total: 0, longest: undefined },
    lists: [],
    sizes: [],
    sizingLists: [],
    defaults: new Map(),
    fragments,
    verdicts: new Map(),
  };
  const pending: FragmentDefinitionNode[] = [];
  const spread = new Set<string>();
  const typeInfo = new TypeInfo(schema);
  const path: string[] = [];
  let argument: ArgumentNode | undefined;
  let owner = '';
  let defining: string | undefined;
  const visitor = visitWithTypeInfo(typeInfo, {
    VariableDefinition: {
      enter(node) {
        defining = node.variable.name.value;
        if (node.defaultValue !== undefined) result.defaults.set(defining, node.defaultValue);
      },
      leave() {
        defining = undefined;
      },
    },
    Argument: {
      enter(node) {
        argument = node;
        path.length = 0;
        path.push(node.name.value);
        const directive = typeInfo.getDirective();
        owner = directive ? `@${directive.name}` : (typeInfo.getFieldDef()?.name ?? '');
        const name = node.name.value;
        if (node.value.kind === Kind.VARIABLE) {
          const variable = node.value.name.value;
          const field = directive ? null : typeInfo.getFieldDef();
          if (name === 'first' || name === 'last') {
            if (!result.sizes.includes(variable)) result.sizes.push(variable);
          } else if (field && sizingListArgument(field) === name) {
            if (!result.sizingLists.includes(variable)) result.sizingLists.push(variable);
          }
        }
      },
      leave() {
        argument = undefined;
        path.length = 0;
      },
    },
    ObjectField: {
      enter(node) {
        path.push(node.name.value);
      },
      leave() {
        path.pop();
      },
    },
    ListValue(node) {
      const length = node.values.length;
      count(
        result.literal,
        argument === undefined
          ? { argument: `$${defining ?? ''}`, owner: undefined, length, node: undefined }
          : { argument: path.join('.'), owner, length, node: argument },
      );
    },
    Variable(node) {
      // The `$name` of a variable definition is not a use.
      if (argument === undefined) return;
      const type = typeInfo.getInputType();
      if (type === null || type === undefined || !holdsList(type)) return;
      // Every use counts: the same list given to two aliases is resolved twice.
      result.lists.push({
        variable: node.name.value,
        type,
        argument: path.join('.'),
        owner,
        node: argument,
      });
    },
    FragmentSpread(node) {
      const name = node.name.value;
      if (spread.has(name)) return;
      spread.add(name);
      const fragment = fragments.get(name);
      if (fragment !== undefined) pending.push(fragment);
    },
  });
  visit(operation, visitor);
  for (let fragment = pending.pop(); fragment !== undefined; fragment = pending.pop()) {
    visit(fragment, visitor);
  }
  return result;
}

/** A page size as the planner reads it: an integer, or undefined (the default page). */
function pageSize(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value <= MAX_INT
    ? Math.max(0, value)
    : undefined;
}

/** A variable's value as execution reads it: given, else its default, else undefined. */
function given(found: Plan, variables: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(variables, name)) return variables[name];
  const fallback = found.defaults.get(name);
  if (fallback?.kind === Kind.INT) return Number(fallback.value);
  if (fallback?.kind === Kind.LIST) return fallback.values;
  return undefined;
}

/** A sizing list's length: its items, 1 for a lone value (coerced to a list of one), or 0. */
function listLength(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  return value === null || value === undefined ? 0 : 1;
}

/** The refusal of an operation by its variables' values, or undefined when it may run. */
export type OperationJudge = (
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variableValues: unknown,
) => GraphQLError | undefined;

export function operationLimitsPlugin(
  options: OperationLimitsOptions = {},
): Plugin & { judge: OperationJudge } {
  const limits = resolveQueryLimits(options.limits);
  const max = limits.maxListItems;
  const model = costModelOptions(options.maxFirst);
  const plans = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, Plan | null>>>();

  const planFor = (
    schema: GraphQLSchema,
    document: DocumentNode,
    operationName: string | null | undefined,
  ): Plan | null => {
    let byDocument = plans.get(schema);
    if (byDocument === undefined) {
      byDocument = new WeakMap();
      plans.set(schema, byDocument);
    }
    let byName = byDocument.get(document);
    if (byName === undefined) {
      byName = new Map();
      byDocument.set(document, byName);
    }
    const key = operationName ?? '';
    let found = byName.get(key);
    if (found === undefined) {
      const operation = getOperationAST(document, operationName);
      // No such operation: the executor says so in its own words.
      found = operation ? plan(schema, document, operation) : null;
      byName.set(key, found);
    }
    return found;
  };

  const costRefusalOf = (
    schema: GraphQLSchema,
    found: Plan,
    variables: Record<string, unknown>,
  ): GraphQLError | undefined => {
    let key = '';
    for (const name of found.sizes) key += `${pageSize(given(found, variables, name)) ?? ''},`;
    if (found.sizingLists.length > 0) {
      key += ';';
      for (const name of found.sizingLists) {
        key += `${listLength(given(found, variables, name))},`;
      }
    }
    let verdict = found.verdicts.get(key);
    if (verdict === undefined) {
      const sizes = new Map<string, number | undefined>();
      for (const name of found.sizes) sizes.set(name, pageSize(given(found, variables, name)));
      for (const name of found.sizingLists) {
        sizes.set(name, listLength(given(found, variables, name)));
      }
      const sizeOf: VariableSizes = (name) => sizes.get(name);
      const cost = measureOperationCost(
        schema,
        found.operation,
        (name) => found.fragments.get(name),
        sizeOf,
        model,
      );
      const refused = costRefusal(cost, limits.maxCost, model.maxFirst);
      verdict =
        refused === undefined
          ? null
          : { message: refused.message, extensions: { ...refused.extensions } };
      if (found.verdicts.size < MAX_VERDICTS) found.verdicts.set(key, verdict);
    }
    if (verdict === null) return undefined;
    return new GraphQLError(verdict.message, { extensions: { ...verdict.extensions } });
  };

  const refusalOf = (
    schema: GraphQLSchema,
    document: DocumentNode,
    operationName: string | null | undefined,
    variableValues: unknown,
  ): GraphQLError | undefined => {
    const found = planFor(schema, document, operationName);
    if (found === null) return undefined;
    if (found.literal.total > max) return refusal(found.literal, max);
    if (found.lists.length === 0 && found.sizes.length === 0) return undefined;
    const variables =
      variableValues !== null && typeof variableValues === 'object'
        ? (variableValues as Record<string, unknown>)
        : {};
    if (found.lists.length > 0) {
      const tally: Tally = { ...found.literal };
      for (const use of found.lists) {
        if (!Object.hasOwn(variables, use.variable)) continue;
        measure(variables[use.variable], use.type, use, use.argument, tally);
        if (tally.total > max) return refusal(tally, max);
      }
    }
    return found.sizes.length === 0 && found.sizingLists.length === 0
      ? undefined
      : costRefusalOf(schema, found, variables);
  };

  return {
    // The direct lane of compiled documents (./compiled/lane.ts) asks the same judge.
    judge: refusalOf,
    // Judged when the operation is about to run, with the arguments it runs with; only a refused
    // one has its executor replaced, so an operation within the limits runs with no wrapper.
    onExecute({ args, setExecuteFn }) {
      const refused =
        args.schema && args.document
          ? refusalOf(args.schema, args.document, args.operationName, args.variableValues)
          : undefined;
      if (refused === undefined) return;
      const result: ExecutionResult = { errors: [refused] };
      setExecuteFn(() => result);
    },
    // A subscription's variables are judged the same way, before its stream opens.
    onSubscribe({ subscribeFn, setSubscribeFn }) {
      setSubscribeFn((args) => {
        const refused =
          args.schema && args.document
            ? refusalOf(args.schema, args.document, args.operationName, args.variableValues)
            : undefined;
        if (refused === undefined) return subscribeFn(args);
        const result: ExecutionResult = { errors: [refused] };
        return result;
      });
    },
  };
}
