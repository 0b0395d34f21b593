/**
 * Compiled execution for queries (graphql-jit), as an envelop plugin, so every other hook —
 * masking, limits, logs, the session's finish — runs as before.
 *
 * graphql-js (and @graphql-tools/executor under Yoga) walks the selection set of every object
 * of every list at run time; graphql-jit compiles a document once into a function that builds
 * the result directly, which saves much of the execution CPU of a page of objects (figures in
 * docs/benchmarks.md: the hot path against other gateways). What it does not do the same is
 * kept off it:
 * - only queries are compiled; mutations and subscriptions run on the normal executor;
 * - variables are first coerced by graphql-js: when they do not coerce, the operation runs on
 *   the normal executor, so a client gets exactly the coded errors it got before;
 * - a document jit cannot compile runs on the normal executor, and so does one with a
 *   `__proto__` alias, which jit's object literals would drop, and one with `@defer` or
 *   `@stream` (./incremental.ts);
 * - compiled queries are kept per schema (the typed schema is swapped on refresh) and per
 *   document object (Yoga's parse cache hands out one object per query text), so the cache
 *   lives exactly as long as those.
 * Errors from resolvers keep their original error and its extensions (graphql-jit's errors
 * are GraphQLErrors whose extensions are the original's), which is what masking reads.
 */
import {
  BREAK,
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  GraphQLError,
  type GraphQLSchema,
  getOperationAST,
  getVariableValues,
  locatedError,
  type OperationDefinitionNode,
  visit,
} from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import { usesIncrementalDelivery } from './incremental.ts';

interface Compiled {
  query: CompiledQuery;
  operation: OperationDefinitionNode;
  /** The document's field nodes by `line:column`, to give errors their nodes back. */
  fieldsAt: Map<string, FieldNode>;
}

type ByOperationName = Map<string, Compiled | null>;

/** How many operations ran compiled, and how many went to the normal executor instead. */
export interface JitStats {
  compiled: number;
  normal: number;
}

export function jitPlugin(stats: JitStats = { compiled: 0, normal: 0 }): Plugin {
  const bySchema = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, ByOperationName>>();

  const compiledFor = (
    schema: GraphQLSchema,
    document: DocumentNode,
    operationName: string | null | undefined,
  ): Compiled | null => {
    let byDocument = bySchema.get(schema);
    if (byDocument === undefined) {
      byDocument = new WeakMap();
      bySchema.set(schema, byDocument);
    }
    let byName = byDocument.get(document);
    if (byName === undefined) {
      byName = new Map();
      byDocument.set(document, byName);
    }
    const key = operationName ?? '';
    let compiled = byName.get(key);
    if (compiled === undefined) {
      compiled = compile(schema, document, operationName);
      byName.set(key, compiled);
    }
    return compiled;
  };

  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const compiled =
        args.schema && args.document
          ? compiledFor(args.schema, args.document, args.operationName)
          : null;
      if (compiled === null) {
        stats.normal += 1;
        return;
      }
      setExecuteFn((executeArgs) => {
        const inputs = (executeArgs.variableValues ?? {}) as Record<string, unknown>;
        const definitions = compiled.operation.variableDefinitions ?? [];
        if (definitions.length > 0) {
          const coerced = getVariableValues(executeArgs.schema, definitions, inputs);
          // The normal executor reports bad variables in its own words, with their codes.
          if ('errors' in coerced && coerced.errors) {
            stats.normal += 1;
            return executeFn(executeArgs);
          }
        }
        stats.compiled += 1;
        const result = compiled.query.query(
          executeArgs.rootValue,
          executeArgs.contextValue,
          inputs,
        ) as ExecutionResult | Promise<ExecutionResult>;
        const answer = (done: ExecutionResult) => asExecutorResult(done, compiled);
        return result instanceof Promise ? result.then(answer) : answer(result);
      });
    },
  };
}

function compile(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
): Compiled | null {
  const operation = getOperationAST(document, operationName);
  if (operation === null || operation === undefined || operation.operation !== 'query') {
    return null;
  }
  try {
    const fieldsAt = new Map<string, FieldNode>();
    let protoKey = false;
    // graphql-jit would answer @defer/@stream whole; ./incremental.ts runs them in parts.
    if (usesIncrementalDelivery(document)) return null;
    visit(document, {
      Field(node) {
        // graphql-jit builds results in object literals, where `__proto__: value` sets the
        // prototype instead of a property: the field would be missing from the answer.
        if ((node.alias ?? node.name).value === '__proto__') {
          protoKey = true;
          return BREAK;
        }
        if (node.loc) {
          const { line, column } = node.loc.startToken;
          fieldsAt.set(`${line}:${column}`, node);
        }
        return undefined;
      },
    });
    if (protoKey) return null;
    const query = compileQuery(schema, document, operationName ?? undefined);
    if (!isCompiledQuery(query)) return null;
    return { query, operation, fieldsAt };
  } catch (error) {
    // A document graphql-jit cannot compile runs on the normal executor.
    if (error instanceof GraphQLError || error instanceof Error) return null;
    throw error;
  }
}

/**
 * The result as the normal executor shapes it: `errors` before `data`, and every error a
 * graphql-js GraphQLError located at its field nodes (graphql-jit's errors carry locations but
 * no nodes, and Yoga rebuilds errors from their nodes when it serialises them).
 */
function asExecutorResult(result: ExecutionResult, compiled: Compiled): ExecutionResult {
  if (!result.errors || result.errors.length === 0) return result;
  const errors = result.errors.map((error) => {
    fillListHole(result.data, error.path);
    const nodes: FieldNode[] = [];
    for (const location of error.locations ?? []) {
      const node = compiled.fieldsAt.get(`${location.line}:${location.column}`);
      if (node) nodes.push(node);
    }
    const original = error.originalError ?? new GraphQLError(error.message);
    return locatedError(original, nodes.length > 0 ? nodes : undefined, error.path);
  });
  const shaped: ExecutionResult = { errors, data: result.data };
  if (result.extensions !== undefined) shaped.extensions = result.extensions;
  return shaped;
}

/**
 * graphql-jit leaves a list item whose value failed unassigned: a hole that serialises as null,
 * or, for the last items, a shorter list. graphql-js answers null at that index; so does this.
 */
function fillListHole(data: unknown, path: readonly (string | number)[] | undefined): void {
  if (path === undefined || data === null || typeof data !== 'object') return;
  let container: unknown = data;
  for (const segment of path) {
    if (container === null || typeof container !== 'object') return;
    if (Array.isArray(container) && typeof segment === 'number') {
      if (!(segment in container)) {
        container[segment] = null;
        return;
      }
      container = container[segment];
    } else {
      container = (container as Record<string, unknown>)[segment as string];
    }
  }
}
