/**
 * Every mutation of the schema is built here, from one description: its name and description,
 * its one `input` (an input type `<Name>Input`), its payload and the resolver that judges the
 * input and makes the REST call. The payload always carries `userErrors: [UserError!]!`: an
 * error the caller can fix by changing the input (USER_ERROR_CODES of src/upstream/errors.ts:
 * a bad field, an id of nothing, a conflict, out of stock, no price, …) is answered there, with
 * the payload's other fields null; every other failure (authentication, authorization,
 * transport, the upstream) stays a top-level error with its code.
 *
 * The cost on the hot path is one try/catch around the resolver and, per payload field, one
 * property check (a failed payload is the only object that carries the USER_ERRORS symbol).
 */
import {
  type FieldMap,
  type FieldRef,
  type InputFieldMap,
  InputObjectRef,
  type InputShapeFromFields,
  type ObjectRef,
} from '@pothos/core';
import {
  defaultFieldResolver,
  type GraphQLFieldConfigMap,
  type GraphQLFieldResolver,
  GraphQLList,
  GraphQLNonNull,
  type GraphQLObjectType,
  getNullableType,
} from 'graphql';
import {
  type GatewayError,
  isUserError,
  USER_ERROR_CODES,
  type UserErrorCode,
} from '../../upstream/errors.ts';
import type { GatewayContext } from '../../upstream/session.ts';
import { type BuilderTypes, builder } from '../builder.ts';
import { type IdKind, idInput, judgeId } from './ids.ts';

/** One error the caller can fix: its code, the input field it is about, and why. */
export interface UserErrorShape {
  code: UserErrorCode;
  field: readonly string[] | null;
  message: string;
}

const UserErrorCodeEnum = builder.enumType('UserErrorCode', {
  description:
    'The codes of `userErrors` (the same codes as top-level `extensions.code`): what the caller ' +
    'can correct by changing the input.',
  values: Object.fromEntries(
    USER_ERROR_CODES.map((code) => [
      code,
      { value: code, description: `As the top-level code ${code} (docs/errors.md).` },
    ]),
  ) as Record<UserErrorCode, { value: UserErrorCode; description: string }>,
});

export const UserErrorRef = builder.objectRef<UserErrorShape>('UserError').implement({
  description:
    'Something in the input the caller can fix (a field, an id of nothing, a conflict, stock or ' +
    'price); nothing was written.',
  fields: (t) => ({
    code: t.field({
      type: UserErrorCodeEnum,
      description: 'Stable code, as in top-level `extensions.code`.',
      resolve: (error) => error.code,
    }),
    field: t.stringList({
      nullable: true,
      description:
        'Path of the input field it is about, e.g. ["input", "items", "0", "quantity"]; null ' +
        'when it is about the input as a whole.',
      resolve: (error) => error.field,
    }),
    message: t.exposeString('message', { description: 'What is wrong, for a person.' }),
  }),
});

/** `input.items[2].sku` → `["input", "items", "2", "sku"]`. */
export function fieldPath(field: string | undefined): string[] | null {
  if (field === undefined || field === '') return null;
  return field
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((part) => part !== '');
}

export function userErrorOf(
  error: GatewayError & { code: UserErrorCode },
  notFound?: string,
): UserErrorShape {
  // An upstream 404 does not say which id named nothing; with one id in the input, it was that.
  const field = error.field ?? (error.code === 'NOT_FOUND' ? notFound : undefined);
  return { code: error.code, field: fieldPath(field), message: error.message };
}

const USER_ERRORS = Symbol('userErrors');
type Failed = { [USER_ERRORS]: readonly UserErrorShape[] };
const NONE: readonly UserErrorShape[] = Object.freeze([]);

/**
 * A write that was done in part (a bulk add without all-or-nothing): the payload's fields read
 * what was done, and `userErrors` lists what was refused, each with its path.
 */
const PARTLY = Symbol('partlyRefused');
export function partlyDone<R extends object>(result: R, refused: readonly UserErrorShape[]): R {
  return refused.length === 0 ? result : Object.assign(result, { [PARTLY]: refused });
}

function failed(error: unknown, notFound?: string): Failed {
  if (!isUserError(error)) throw error;
  return { [USER_ERRORS]: [userErrorOf(error, notFound)] };
}

/** A payload type: what a mutation answers (R), with `userErrors`. */
export type PayloadRef<R> = ObjectRef<BuilderTypes, R>;

type PayloadFields<R> = (t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, R>) => FieldMap;

/**
 * `<Name>Payload`: the fields that show what the mutation changed (all nullable: null when the
 * answer is user errors) and `userErrors`.
 */
export function definePayload<R extends object>(
  name: string,
  options: { description: string; fields: PayloadFields<R> },
): PayloadRef<R> {
  return builder.objectRef<R>(name).implement({
    description: `${options.description} With \`userErrors\` for what the caller can fix.`,
    fields: (t) => {
      const own = options.fields(t);
      for (const ref of Object.values(own) as FieldRef<BuilderTypes>[]) {
        ref.updateConfig((config) => {
          const resolve = (config.resolve ?? defaultFieldResolver) as GraphQLFieldResolver<
            unknown,
            unknown
          >;
          return {
            ...config,
            type: { ...config.type, nullable: true },
            resolve: (parent: unknown, args: unknown, context: unknown, info: never) =>
              USER_ERRORS in (parent as object) ? null : resolve(parent, args, context, info),
          } as typeof config;
        });
      }
      return {
        ...own,
        userErrors: t.field({
          type: [UserErrorRef],
          description:
            'What the caller can fix in the input (see docs/errors.md, "which is which"); empty ' +
            'when the mutation was done.',
          resolve: (parent) =>
            (parent as Partial<Failed>)[USER_ERRORS] ??
            (parent as { [PARTLY]?: readonly UserErrorShape[] })[PARTLY] ??
            NONE,
        }),
      };
    },
  }) as PayloadRef<R>;
}

type InputBuilder = PothosSchemaTypes.InputFieldBuilder<BuilderTypes, 'InputObject'>;

/**
 * The ids a mutation's input names, field by field: the type each names and what it is
 * (`{ cartId: [CART, 'The cart'] }`). The kit adds their input fields (to an input described by
 * its fields) and judges them, in this order and before the resolver runs; the resolver gets the
 * upstream ids.
 */
export type IdFields<K extends string> = Readonly<Record<K, readonly [IdKind, string]>>;
export type Ids<K extends string> = Readonly<Record<K, string>>;

/** The input fields of `ids`: each `ID!`, described with the forms it takes. */
export function idFieldsOf<K extends string>(t: InputBuilder, ids: IdFields<K>) {
  const fields: Record<string, ReturnType<typeof idInput>> = {};
  for (const [name, [kind, about]] of Object.entries(ids) as [K, readonly [IdKind, string]][]) {
    fields[name] = idInput(t, kind, about);
  }
  return fields as Record<K, ReturnType<typeof idInput>>;
}

/** An input described by its fields: the type is `<Name>Input` unless named. */
export interface InputFields<Fields extends InputFieldMap> {
  name?: string;
  description: string;
  /** Its fields besides the ids (none for a delete). */
  fields?: (t: InputBuilder) => Fields;
}

/** One mutation: `name(input: <Name>Input!): <payload>`. */
export interface MutationDescription<I, R, K extends string> {
  description: string;
  /** The ids the input names (added to an input described by its fields). */
  ids?: IdFields<K>;
  payload: PayloadRef<R>;
  /** Field extensions (`upstreamCalls` for the query cost, src/gateway/query-cost.ts). */
  extensions?: Record<string, unknown>;
  /** Judges the rest of the input (before any call), writes, returns what the payload reads. */
  resolve: (input: I, context: GatewayContext, ids: Ids<K>) => R | Promise<R>;
}

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

export function defineMutation<
  R extends object,
  K extends string = never,
  Fields extends InputFieldMap = Record<never, never>,
>(
  name: string,
  description: MutationDescription<InputShapeFromFields<Fields>, R, K> & {
    input: InputFields<Fields>;
  },
): void;
/** The same with an input type made elsewhere (one shared by several mutations). */
export function defineMutation<R extends object, I, K extends string = never>(
  name: string,
  description: MutationDescription<I, R, K> & { input: InputObjectRef<BuilderTypes, I> },
): void;
export function defineMutation(
  name: string,
  description: MutationDescription<never, object, string> & {
    input: InputFields<InputFieldMap> | InputObjectRef<BuilderTypes, unknown>;
  },
): void {
  const spec = description.input;
  const ids = Object.entries(description.ids ?? {}) as [string, readonly [IdKind, string]][];
  const input =
    spec instanceof InputObjectRef
      ? spec
      : builder.inputType(spec.name ?? `${pascal(name)}Input`, {
          description: spec.description,
          fields: (t) => ({
            ...idFieldsOf(t, description.ids ?? {}),
            ...(spec.fields?.(t) ?? {}),
          }),
        });
  const judgeIds = (given: Record<string, unknown>): Ids<string> => {
    const judged: Record<string, string> = {};
    for (const [field, [kind]] of ids) {
      judged[field] = judgeId(given[field] as string, `input.${field}`, kind);
    }
    return judged;
  };
  const run = description.resolve;
  // The field a NOT_FOUND is about when the input names one id (`input.cartId`).
  const soleId = ids.length === 1 ? `input.${ids[0]?.[0]}` : undefined;
  const refused = soleId === undefined ? failed : (error: unknown) => failed(error, soleId);
  builder.mutationField(name, (t) =>
    t.field({
      type: description.payload as ObjectRef<BuilderTypes, unknown>,
      description: description.description,
      args: { input: t.arg({ type: input, required: true, description: 'What to do.' }) },
      ...(description.extensions === undefined ? {} : { extensions: description.extensions }),
      resolve: ((_root: unknown, args: { input: unknown }, context: GatewayContext) => {
        try {
          const given = args.input as Record<string, unknown>;
          const out = run(given as never, context, judgeIds(given));
          return out instanceof Promise ? out.catch(refused) : out;
        } catch (error) {
          return refused(error);
        }
      }) as never,
    }),
  );
}

/**
 * The same shape for mutations built with graphql-js at run time (the typed Custom APIs,
 * src/schema/typed/mutations.ts): `payloadFields` makes a payload's fields nullable, null on user
 * errors, and adds `userErrors` (the base schema's `UserError` type); `mutationResolver` answers
 * the user errors a resolver throws in its payload.
 */
export function payloadFields<TSource>(
  fields: GraphQLFieldConfigMap<TSource, GatewayContext>,
  userErrorType: GraphQLObjectType,
): GraphQLFieldConfigMap<TSource, GatewayContext> {
  const guarded: GraphQLFieldConfigMap<TSource, GatewayContext> = {};
  for (const [name, field] of Object.entries(fields)) {
    const resolve = (field.resolve ?? defaultFieldResolver) as GraphQLFieldResolver<
      TSource,
      GatewayContext
    >;
    guarded[name] = {
      ...field,
      type: getNullableType(field.type),
      resolve: (parent, args, context, info) =>
        USER_ERRORS in (parent as object) ? null : resolve(parent, args, context, info),
    };
  }
  guarded.userErrors = {
    type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(userErrorType))),
    description:
      'What the caller can fix in the input (see docs/errors.md, "which is which"); empty when ' +
      'the mutation was done.',
    resolve: (parent) => (parent as Partial<Failed>)[USER_ERRORS] ?? NONE,
  };
  return guarded;
}

export function mutationResolver<A>(
  run: (args: A, context: GatewayContext) => unknown,
): GraphQLFieldResolver<unknown, GatewayContext, A> {
  return (_root, args, context) => {
    try {
      const out = run(args, context);
      return out instanceof Promise ? out.catch(failed) : out;
    } catch (error) {
      return failed(error);
    }
  };
}
