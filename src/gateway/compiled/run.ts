/**
 * Runs a compiled plan (./plan.ts): the walk graphql-js's executor makes, with everything it
 * decides per request already decided. Values are completed by GraphQL's rules: a leaf through
 * its scalar's `serialize`, a list item by item, an object by its planned fields in selection
 * order; a failed or null field is null with a located error, and a non-null one passes the null
 * to its nearest nullable parent (the error recorded once, where it was caught). The errors are
 * graphql-js's own (`locatedError`), so Yoga masks and answers them as the ordinary path's.
 */

import { encodeGlobalID } from '@pothos/plugin-relay';
import {
  type ExecutionResult,
  type GraphQLError,
  type GraphQLResolveInfo,
  getArgumentValues,
  getVariableValues,
  locatedError,
} from 'graphql';
import type { CompiledPlan, Completion, FieldStep } from './plan.ts';

/** A response path as graphql-js keeps it (`info.path`). */
interface Path {
  readonly prev: Path | undefined;
  readonly key: string | number;
  readonly typename: string | undefined;
}

function pathToArray(path: Path | undefined): (string | number)[] {
  const out: (string | number)[] = [];
  for (let at = path; at !== undefined; at = at.prev) out.push(at.key);
  return out.reverse();
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as PromiseLike<unknown>).then === 'function'
  );
}

/** What a run needs beyond the plan: the request's context and coerced variables. */
interface RunState {
  plan: CompiledPlan;
  contextValue: unknown;
  rootValue: unknown;
  /** graphql-js's coerced variable values (`{ sources, coerced }`), when the operation has any. */
  variableValues: unknown;
  errors: GraphQLError[];
}

/** The marker a run returns when the request's variables do not coerce: the ordinary path says why. */
export const BAD_VARIABLES = Symbol('bad variables');

/**
 * Runs the plan for one request; BAD_VARIABLES when its variables do not coerce (the caller
 * then runs the ordinary executor, whose coded errors are the answer).
 */
export function runPlan(
  plan: CompiledPlan,
  contextValue: unknown,
  rootValue: unknown,
  inputs: Record<string, unknown> | null | undefined,
): ExecutionResult | Promise<ExecutionResult> | typeof BAD_VARIABLES {
  const variableValues = coerceVariables(plan, inputs);
  if (variableValues === BAD_VARIABLES) return BAD_VARIABLES;
  return runCoerced(plan, contextValue, rootValue, variableValues);
}

/**
 * The request's variables coerced as graphql-js coerces them (undefined when the operation
 * declares none); BAD_VARIABLES when they do not coerce.
 */
export function coerceVariables(
  plan: CompiledPlan,
  inputs: Record<string, unknown> | null | undefined,
): unknown {
  if (!plan.hasVariables) return undefined;
  const coerced = getVariableValues(
    plan.schema,
    plan.operation.variableDefinitions ?? [],
    inputs ?? {},
  );
  if ('errors' in coerced && coerced.errors) return BAD_VARIABLES;
  return (coerced as { variableValues: unknown }).variableValues;
}

/** Runs the plan with variables already coerced (coerceVariables). */
export function runCoerced(
  plan: CompiledPlan,
  contextValue: unknown,
  rootValue: unknown,
  variableValues: unknown,
): ExecutionResult | Promise<ExecutionResult> {
  const state: RunState = { plan, contextValue, rootValue, variableValues, errors: [] };
  let data: unknown;
  try {
    data = executeFields(state, plan.fields, rootValue, undefined);
  } catch (error) {
    // A non-null root field failed: `data` is null (its error is recorded where it was caught).
    return finish(state, null, error);
  }
  if (isPromiseLike(data)) {
    return Promise.resolve(data).then(
      (resolved) => finish(state, resolved, undefined),
      (error: unknown) => finish(state, null, error),
    );
  }
  return finish(state, data, undefined);
}

function finish(state: RunState, data: unknown, rootError: unknown): ExecutionResult {
  if (rootError !== undefined) state.errors.push(rootError as GraphQLError);
  if (state.errors.length === 0) return { data: data as Record<string, unknown> };
  return { errors: state.errors, data: data as Record<string, unknown> | null };
}

/**
 * An object's fields in plan order; a promise when any field's value is one. Throws (or
 * rejects) when a non-null field failed, which nulls this object in its parent.
 */
function executeFields(
  state: RunState,
  steps: readonly FieldStep[],
  source: unknown,
  path: Path | undefined,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  const result: Record<string, unknown> = {};
  let pending: Promise<unknown>[] | undefined;
  for (const step of steps) {
    // A response path is made only for a field that needs one whether or not it fails (most
    // fields of a page are leaves read off their parent: theirs is made only on an error).
    const value = executeField(
      state,
      step,
      source,
      path,
      step.needsPath ? { prev: path, key: step.key, typename: step.parentType.name } : undefined,
    );
    if (isPromiseLike(value)) {
      result[step.key] = null;
      pending ??= [];
      pending.push(
        Promise.resolve(value).then((resolved) => {
          result[step.key] = resolved;
        }),
      );
    } else {
      result[step.key] = value;
    }
  }
  return pending === undefined ? result : Promise.all(pending).then(() => result);
}

function infoFor(state: RunState, step: FieldStep, path: Path): GraphQLResolveInfo {
  const { plan } = state;
  return {
    fieldName: step.name,
    fieldNodes: step.nodes,
    returnType: step.returnType,
    parentType: step.parentType,
    path,
    schema: plan.schema,
    fragments: plan.fragments,
    rootValue: state.rootValue,
    operation: plan.operation,
    variableValues: state.variableValues,
  } as unknown as GraphQLResolveInfo;
}

function executeField(
  state: RunState,
  step: FieldStep,
  source: unknown,
  parentPath: Path | undefined,
  given: Path | undefined,
): unknown {
  if (step.typename !== undefined) return step.typename;
  let path = given;
  try {
    let value: unknown;
    if (step.prop !== undefined) {
      value = (source as Record<string, unknown>)[step.prop];
      if (step.defaultResolver && typeof value === 'function') {
        // graphql-js's default resolver calls a method of the source.
        path ??= pathOf(step, parentPath);
        value = (value as (...a: unknown[]) => unknown).call(
          source,
          step.args,
          state.contextValue,
          infoFor(state, step, path),
        );
      }
    } else if (step.nodeId !== undefined && !isPromiseLike(nodeIdOf(step, source))) {
      // What the relay plugin's id resolver answers for a raw id that is no promise.
      value = encodeGlobalID(step.parentType.name, String(nodeIdOf(step, source)));
    } else {
      path ??= pathOf(step, parentPath);
      const args = step.variableArgs
        ? (getArgumentValues(
            step.field as never,
            step.nodes[0] as never,
            state.variableValues as never,
          ) as Record<string, unknown>)
        : step.args;
      value = (step.resolve as NonNullable<FieldStep['resolve']>)(
        source,
        args,
        state.contextValue,
        infoFor(state, step, path),
      );
    }
    if (isPromiseLike(value)) {
      const at = path ?? pathOf(step, parentPath);
      return Promise.resolve(value)
        .then((resolved) => complete(state, step, step.complete, resolved, at))
        .then(undefined, (error: unknown) => fieldError(state, step, step.complete, error, at));
    }
    const completed = complete(state, step, step.complete, value, path);
    if (isPromiseLike(completed)) {
      const at = path ?? pathOf(step, parentPath);
      return Promise.resolve(completed).then(undefined, (error: unknown) =>
        fieldError(state, step, step.complete, error, at),
      );
    }
    return completed;
  } catch (error) {
    return fieldError(state, step, step.complete, error, path ?? pathOf(step, parentPath));
  }
}

/** The raw id of a Node (step.nodeId): a property read, asked twice rather than kept. */
function nodeIdOf(step: FieldStep, source: unknown): unknown {
  return (step.nodeId as (parent: unknown) => unknown)(source);
}

function pathOf(step: FieldStep, prev: Path | undefined): Path {
  return { prev, key: step.key, typename: step.parentType.name };
}

/** graphql-js's handleFieldError: located; thrown on to the parent when non-null. */
function fieldError(
  state: RunState,
  step: FieldStep,
  completion: Completion,
  raw: unknown,
  path: Path,
): null {
  const error = locatedError(raw, step.nodes, pathToArray(path));
  if (completion.nonNull) throw error;
  state.errors.push(error);
  return null;
}

/** `path` is undefined only for a leaf (which needs none unless it fails: the caller makes it). */
function complete(
  state: RunState,
  step: FieldStep,
  completion: Completion,
  value: unknown,
  path: Path | undefined,
): unknown {
  if (value instanceof Error) throw value;
  if (value === null || value === undefined) {
    if (completion.nonNull) {
      throw new Error(
        `Cannot return null for non-nullable field ${step.parentType.name}.${step.name}.`,
      );
    }
    return null;
  }
  switch (completion.kind) {
    case 'leaf': {
      const serialized = completion.type.serialize(value);
      if (serialized === undefined) {
        throw new Error(`Expected \`${String(value)}\` to be a valid ${completion.type.name}.`);
      }
      return serialized;
    }
    case 'object':
      return executeFields(state, completion.fields, value, path);
    case 'list':
      return completeList(state, step, completion.of, value, path as Path);
  }
}

function itemPathOf(path: Path, index: number): Path {
  return { prev: path, key: index, typename: undefined };
}

function completeList(
  state: RunState,
  step: FieldStep,
  item: Completion,
  value: unknown,
  path: Path,
): unknown {
  if (!Array.isArray(value)) {
    if (value === null || typeof (value as Iterable<unknown>)[Symbol.iterator] !== 'function') {
      throw locatedError(
        new Error(
          `Expected Iterable, but did not find one for field "${step.parentType.name}.${step.name}".`,
        ),
        step.nodes,
        pathToArray(path),
      );
    }
    value = [...(value as Iterable<unknown>)];
  }
  const items = value as unknown[];
  const out: unknown[] = new Array(items.length);
  let pending: Promise<unknown>[] | undefined;
  // An item's path is made up front only when the item is an object or a list (its fields'
  // paths go through it); a leaf item's only when it fails.
  const eager = item.kind !== 'leaf';
  for (let index = 0; index < items.length; index += 1) {
    const itemPath: Path | undefined = eager
      ? { prev: path, key: index, typename: undefined }
      : undefined;
    try {
      const raw = items[index];
      const completed = isPromiseLike(raw)
        ? Promise.resolve(raw).then((resolved) =>
            complete(state, step, item, resolved, itemPath ?? itemPathOf(path, index)),
          )
        : complete(state, step, item, raw, itemPath);
      if (isPromiseLike(completed)) {
        const at = itemPath ?? itemPathOf(path, index);
        out[index] = null;
        pending ??= [];
        pending.push(
          Promise.resolve(completed)
            .then(undefined, (error: unknown) => fieldError(state, step, item, error, at))
            .then((resolved) => {
              out[index] = resolved;
            }),
        );
      } else {
        out[index] = completed;
      }
    } catch (error) {
      out[index] = fieldError(state, step, item, error, itemPath ?? itemPathOf(path, index));
    }
  }
  return pending === undefined ? out : Promise.all(pending).then(() => out);
}
