/**
 * Trusted documents compiled into plans, once, at startup (./plugin.ts runs them). A plan is
 * the operation's selection worked out against the schema ahead of time: for every field its
 * response key, where its value comes from and how it is completed (GraphQL's rules for nulls,
 * lists, leaves and objects), with fragments (inline and named, type conditions), aliases and
 * `__typename` already resolved, and literal arguments already coerced. Running it is a walk
 * over that tree: no parse, no validation, no field collection, no argument coercion per request.
 *
 * Where a value comes from, field by field (what the compiler calls "described"):
 * - an exposed field (`t.expose…`, the resource descriptions' fields: src/schema/resource.ts,
 *   which say where each value sits in the upstream row and read rows into shapes): a property
 *   of its parent, read directly;
 * - the Relay plumbing (a connection's `edges`, `nodes`, `pageInfo`, `totalCount`, `pinnedAt`,
 *   an edge's `node`) and the global `id` of a Node type: their own pure resolvers;
 * - the fields of DESCRIBED_RESOLVERS (./described-fields.ts): the root and relation fields
 *   whose resolvers make the upstream calls (the planner, the loaders, the shared reads, so the
 *   batching, paging, headers, call budget, deadline and error mapping are the ordinary ones),
 *   and the few computed fields next to them.
 * Anything else — another resolver, an interface or union, a directive on a selection (`@skip`,
 * `@include`, `@defer`), introspection, a mutation or subscription, several operations, an
 * invalid document, a type with `isTypeOf` — is not compiled: the document runs on the ordinary
 * path, the reason recorded (CompileResult.reason).
 */
import {
  type DocumentNode,
  defaultFieldResolver,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLLeafType,
  GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  getArgumentValues,
  isAbstractType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  parse,
  type SelectionSetNode,
  specifiedRules,
  validate,
  visit,
} from 'graphql';
import { builder } from '../../schema/builder.ts';
import { isDescribedResolver } from './described-fields.ts';

/** How a field's value is completed (graphql-js's completeValue, decided ahead of time). */
export type Completion =
  | { kind: 'leaf'; nonNull: boolean; type: GraphQLLeafType }
  | { kind: 'list'; nonNull: boolean; of: Completion }
  | { kind: 'object'; nonNull: boolean; type: GraphQLObjectType; fields: FieldStep[] };

/** One field of a selection, merged over every node with its response key. */
export interface FieldStep {
  key: string;
  name: string;
  /** `__typename`: the parent type's name. */
  typename?: string;
  /** An exposed field: the parent's property of this name. */
  prop?: string;
  /** The property is read as graphql-js's default resolver reads it (a method is called). */
  defaultResolver?: boolean;
  /** A described resolver: the schema's own. */
  resolve?: GraphQLFieldResolver<unknown, unknown>;
  /**
   * A Node's global id, read without the relay plugin's async wrapper: the type's own id
   * function (`builder.node(…, { id: { resolve } })`), its value encoded as the plugin encodes
   * it; `resolve` is still called when that function answers a promise.
   */
  nodeId?: (parent: unknown) => unknown;
  /** The field's response path is needed whether or not it fails (a resolver, an object, a list). */
  needsPath: boolean;
  field?: GraphQLField<unknown, unknown>;
  nodes: readonly FieldNode[];
  parentType: GraphQLObjectType;
  returnType: GraphQLOutputType;
  /** Arguments coerced from literals; recomputed per request when `variableArgs`. */
  args: Record<string, unknown>;
  variableArgs: boolean;
  complete: Completion;
}

export interface CompiledPlan {
  schema: GraphQLSchema;
  /** The parsed document (the operation limits judge it: src/gateway/operation-limits.ts). */
  document: DocumentNode;
  operation: OperationDefinitionNode;
  fragments: Record<string, FragmentDefinitionNode>;
  rootType: GraphQLObjectType;
  fields: FieldStep[];
  /** The operation declares variables: they are coerced per request (bad ones fall back). */
  hasVariables: boolean;
  /** How many fields the plan holds (for the startup log line). */
  size: number;
}

export type CompileResult = { plan: CompiledPlan; reason?: undefined } | { reason: string };

class NotCompiled extends Error {}

function refuse(reason: string): never {
  throw new NotCompiled(reason);
}

/** Compiles one trusted document's text; `reason` says why a document was not compiled. */
export function compileDocument(schema: GraphQLSchema, text: string): CompileResult {
  let document: DocumentNode;
  try {
    document = parse(text);
  } catch {
    return { reason: 'the document does not parse' };
  }
  if (validate(schema, document, specifiedRules).length > 0) {
    return { reason: 'the document is not valid against the schema' };
  }
  try {
    return { plan: compileValid(schema, document) };
  } catch (error) {
    if (error instanceof NotCompiled) return { reason: error.message };
    throw error;
  }
}

function compileValid(schema: GraphQLSchema, document: DocumentNode): CompiledPlan {
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  if (operations.length !== 1) refuse('the document holds more than one operation');
  const operation = operations[0] as OperationDefinitionNode;
  if (operation.operation !== 'query') refuse(`a ${operation.operation} is not compiled`);
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments[definition.name.value] = definition;
    }
  }
  // Directives on selections (@skip, @include, @defer, @stream) decide per request what runs.
  visit(document, {
    Directive(node, _key, _parent, _path, ancestors) {
      const owner = ancestors[ancestors.length - 1];
      if (owner !== operation) refuse(`the directive @${node.name.value} is not compiled`);
    },
  });
  const rootType = schema.getQueryType();
  if (!rootType) refuse('the schema has no query type');
  const counter = { size: 0 };
  const fields = compileSelection(schema, fragments, rootType, [operation.selectionSet], counter);
  return {
    schema,
    document,
    operation,
    fragments,
    rootType,
    fields,
    hasVariables: (operation.variableDefinitions?.length ?? 0) > 0,
    size: counter.size,
  };
}

/** Whether a fragment with this type condition applies to an object of `type`. */
function applies(
  schema: GraphQLSchema,
  condition: string | undefined,
  type: GraphQLObjectType,
): boolean {
  if (condition === undefined || condition === type.name) return true;
  const conditionType = schema.getType(condition);
  return (
    conditionType !== undefined &&
    isAbstractType(conditionType) &&
    schema.isSubType(conditionType, type)
  );
}

/** graphql-js's collectFields for one object type: field nodes grouped by response key. */
function collect(
  schema: GraphQLSchema,
  fragments: Record<string, FragmentDefinitionNode>,
  type: GraphQLObjectType,
  selectionSets: readonly SelectionSetNode[],
): Map<string, FieldNode[]> {
  const grouped = new Map<string, FieldNode[]>();
  const visited = new Set<string>();
  const walk = (selectionSet: SelectionSetNode) => {
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const key = (selection.alias ?? selection.name).value;
        const list = grouped.get(key);
        if (list) list.push(selection);
        else grouped.set(key, [selection]);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (applies(schema, selection.typeCondition?.name.value, type)) {
          walk(selection.selectionSet);
        }
      } else {
        const name = selection.name.value;
        if (visited.has(name)) continue;
        visited.add(name);
        const fragment = fragments[name];
        if (fragment && applies(schema, fragment.typeCondition.name.value, type)) {
          walk(fragment.selectionSet);
        }
      }
    }
  };
  for (const selectionSet of selectionSets) walk(selectionSet);
  return grouped;
}

function compileSelection(
  schema: GraphQLSchema,
  fragments: Record<string, FragmentDefinitionNode>,
  type: GraphQLObjectType,
  selectionSets: readonly SelectionSetNode[],
  counter: { size: number },
): FieldStep[] {
  const steps: FieldStep[] = [];
  for (const [key, nodes] of collect(schema, fragments, type, selectionSets)) {
    const first = nodes[0] as FieldNode;
    const name = first.name.value;
    counter.size += 1;
    if (name === '__typename') {
      steps.push({
        key,
        name,
        typename: type.name,
        nodes,
        parentType: type,
        returnType: type,
        args: {},
        variableArgs: false,
        needsPath: false,
        complete: {
          kind: 'leaf',
          nonNull: true,
          type: schema.getType('String') as GraphQLLeafType,
        },
      });
      continue;
    }
    if (name.startsWith('__')) refuse('introspection is not compiled');
    const field = type.getFields()[name];
    if (!field) refuse(`${type.name}.${name} is not in the schema`);
    const exposed = field.extensions?.pothosExposedField;
    const coordinate = `${type.name}.${name}`;
    let prop: string | undefined;
    let resolve: GraphQLFieldResolver<unknown, unknown> | undefined;
    // An exposed field is read off its parent when nothing wraps its resolver (graphql-js's
    // default resolver, or Pothos's own `(parent) => parent[name]`); a wrapped one is called.
    const plain =
      field.resolve === undefined ||
      field.resolve === defaultFieldResolver ||
      field.resolve === field.extensions?.pothosOriginalResolve;
    if (typeof exposed === 'string' && field.args.length === 0 && plain) {
      prop = exposed;
    } else if (typeof exposed === 'string' && field.resolve) {
      resolve = field.resolve;
    } else if (isDescribedResolver(schema, type, field)) {
      resolve = field.resolve ?? refuse(`${coordinate} has no resolver`);
    } else {
      refuse(`${coordinate} is not described`);
    }
    let variableArgs = false;
    for (const node of nodes) {
      for (const argument of node.arguments ?? []) {
        visit(argument.value, {
          Variable() {
            variableArgs = true;
          },
        });
      }
    }
    const args = variableArgs ? {} : (getArgumentValues(field, first) as Record<string, unknown>);
    const childSets = nodes
      .map((node) => node.selectionSet)
      .filter((set): set is SelectionSetNode => set !== undefined);
    const complete = completion(schema, fragments, field.type, childSets, coordinate, counter);
    const nodeId =
      resolve !== undefined && name === 'id' ? nodeIdOf(schema, type, field) : undefined;
    steps.push({
      key,
      name,
      ...(prop === undefined
        ? { resolve, field }
        : {
            prop,
            field,
            defaultResolver: field.resolve === undefined || field.resolve === defaultFieldResolver,
          }),
      nodes,
      parentType: type,
      returnType: field.type,
      args,
      variableArgs,
      ...(nodeId === undefined ? {} : { nodeId }),
      needsPath: (prop === undefined && nodeId === undefined) || complete.kind !== 'leaf',
      complete,
    });
  }
  return steps;
}

/**
 * The id function of a Node type whose `id` field is the relay plugin's own, unwrapped (its
 * resolver is `globalID`'s async one around `completeValue(id.resolve(parent), …)`, whose value
 * is `encodeGlobalID(<type>, String(raw))` with the builder's encoding): a function of the
 * parent alone. Undefined when anything differs (the field then calls its resolver).
 */
function nodeIdOf(
  schema: GraphQLSchema,
  type: GraphQLObjectType,
  field: GraphQLField<unknown, unknown>,
): ((parent: unknown) => unknown) | undefined {
  const node = schema.getType('Node');
  if (node === undefined || !type.getInterfaces().some((one) => one === node)) return undefined;
  if (field.resolve !== field.extensions?.pothosOriginalResolve) return undefined;
  if (builder.options.relay?.encodeGlobalID !== undefined) return undefined;
  const options = type.extensions?.pothosOptions as { id?: { resolve?: unknown } } | undefined;
  const resolve = options?.id?.resolve;
  if (typeof resolve !== 'function' || resolve.length > 1) return undefined;
  return resolve as (parent: unknown) => unknown;
}

function completion(
  schema: GraphQLSchema,
  fragments: Record<string, FragmentDefinitionNode>,
  type: GraphQLOutputType,
  selectionSets: readonly SelectionSetNode[],
  coordinate: string,
  counter: { size: number },
): Completion {
  const nonNull = isNonNullType(type);
  const inner = nonNull ? type.ofType : type;
  if (isListType(inner)) {
    return {
      kind: 'list',
      nonNull,
      of: completion(schema, fragments, inner.ofType, selectionSets, coordinate, counter),
    };
  }
  if (isLeafType(inner)) return { kind: 'leaf', nonNull, type: inner };
  if (isObjectType(inner)) {
    if (inner.isTypeOf) refuse(`${inner.name} decides its objects with isTypeOf`);
    return {
      kind: 'object',
      nonNull,
      type: inner,
      fields: compileSelection(schema, fragments, inner, selectionSets, counter),
    };
  }
  return refuse(`${coordinate} returns an interface or union`);
}

export { GraphQLObjectType };
