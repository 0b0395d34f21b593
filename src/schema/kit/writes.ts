/**
 * Writes described once per resource, and built from the description: the
 * `Create<Name>Input` / `Update<Name>Input` / `Delete<Name>Input` types (the attributes, and the
 * path ids the write needs), the JSON:API body (`{data:{type, attributes, …}}`), the
 * `<Name>Payload`, `Delete<Name>Payload { deletedId }`, and the mutations (./mutation.ts adds
 * `userErrors` to every payload). Every attribute is judged before the call; a PUT sends only what
 * the input names; every id takes the object's global id or its upstreamId (./ids.ts). The
 * payload reads the written row in its own field, so an answer that cannot be read after a done
 * write is WRITE_COMMITTED (src/gateway/committed-writes.ts), never a failure.
 */
import type { InputFieldMap, InputFieldRef, InputShapeFromFields } from '@pothos/core';
import {
  expectResource,
  type JsonObject,
  type UpstreamRequest,
  type UpstreamResponse,
} from '../../upstream/client.ts';
import type { GatewayContext } from '../../upstream/session.ts';
import type { BuilderTypes } from '../builder.ts';
import type { Listed } from '../connection.ts';
import type { Resource } from '../resource.ts';
import {
  type IdKind,
  idInput,
  idKind,
  idListInput,
  judgeId,
  judgeIdList,
  optionalIdInput,
} from './ids.ts';
import {
  defineMutation,
  definePayload,
  type IdFields,
  type Ids,
  type PayloadRef,
} from './mutation.ts';

type InputBuilder = PothosSchemaTypes.InputFieldBuilder<BuilderTypes, 'InputObject'>;

/** One attribute a write may set: its input field, the body key, and its judge. */
export interface AttributeInput {
  /** The input field (required: on create only; every field is optional on update). */
  input: (t: InputBuilder, required: boolean) => InputFieldRef<BuilderTypes, unknown>;
  /** Where it goes in the body: `attributes.<key>` by default, or `meta.<key>`. */
  key: string;
  in?: 'attributes' | 'meta';
  requiredOnCreate?: boolean;
  /** Judges the value at `field` (`input.sku`) and returns what the body carries. */
  judge: (value: never, field: string) => unknown;
}

/**
 * What a write answered, read by the payload's field; or how to read the written record when
 * the answer is not it (a stock movement answers the movement): read there, below the root, so
 * a failed read is WRITE_COMMITTED.
 */
export interface Written {
  row: JsonObject | ((context: GatewayContext) => Promise<JsonObject>);
  params: Record<string, string>;
}

const payloads = new Map<string, PayloadRef<Written>>();

/** `<Name>Payload { <field>: <Name>, userErrors }`: one per resource, shared by its writes. */
export function payloadOf<S extends Listed>(
  resource: Resource<S, string>,
  field: string,
  description: string,
): PayloadRef<Written> {
  const known = payloads.get(resource.name);
  if (known !== undefined) return known;
  const ref = definePayload<Written>(`${resource.name}Payload`, {
    description: `The ${field} after a write.`,
    fields: (t) => ({
      [field]: t.field({
        type: resource.ref,
        nullable: true,
        description,
        resolve: (async (written: Written, _args: unknown, context: GatewayContext) => {
          const row = typeof written.row === 'function' ? await written.row(context) : written.row;
          return resource.read(row, written.params as never);
        }) as never,
      }),
    }),
  });
  payloads.set(resource.name, ref);
  return ref;
}

/**
 * What a write answered, turned into its shape by the payload's field when selected (so an
 * unusable answer to a done write is that field's WRITE_COMMITTED, never the mutation's failure).
 */
export interface Answered<T> {
  readonly answer: () => T;
}

/** Sends a write; its answer is read by `read` in the payload's field. */
export async function writeAnswer<T>(
  context: GatewayContext,
  request: UpstreamRequest,
  read: (response: UpstreamResponse) => T,
): Promise<Answered<T>> {
  const response = await context.write(request);
  return { answer: () => read(response) };
}

/** `<Name>Payload { <field>: <Type>, userErrors }`: the record a write answered. */
export function answerPayload<T>(
  name: string,
  options: { description: string; field: string; type: unknown; about?: string },
): PayloadRef<Answered<T>> {
  return definePayload<Answered<T>>(name, {
    description: options.description,
    fields: (t) => ({
      [options.field]: t.field({
        type: options.type as never,
        nullable: true,
        description:
          options.about ??
          `The ${options.field} as stored (null, with a WRITE_COMMITTED error, when the write ` +
            'happened but its answer was unusable).',
        resolve: (payload: Answered<T>) => payload.answer() as never,
      }),
    }),
  });
}

/** What a delete answers: the upstream id of what is gone. */
export interface Deleted {
  deletedId: string;
}

/** `<Name>Payload { deletedId, userErrors }`, the payload of every delete. */
export function deletePayload(name: string, what: string): PayloadRef<Deleted> {
  return definePayload<Deleted>(name, {
    description: `The ${what} that was deleted.`,
    fields: (t) => ({
      deletedId: t.exposeID('deletedId', { description: `Upstream id of the deleted ${what}.` }),
    }),
  });
}

/** One delete: the ids its input names, the one it deletes, and the request. */
export interface DeleteDescription<K extends string, Fields extends InputFieldMap> {
  description: string;
  /** What is deleted, for the generated descriptions (`cart`). */
  what: string;
  ids: IdFields<K>;
  /** The id of what is deleted: `deletedId` answers it. */
  deleted: NoInfer<K>;
  /** Input fields beyond the ids (an `ifMatch`). */
  fields?: (t: InputBuilder) => Fields;
  /** The DELETE (its path, and any precondition), from the judged ids and the input. */
  request: (ids: Ids<K>, input: InputShapeFromFields<Fields>) => Omit<UpstreamRequest, 'method'>;
}

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/** `delete…(input: Delete…Input!): Delete…Payload { deletedId, userErrors }`. */
export function defineDelete<K extends string, Fields extends InputFieldMap = Record<never, never>>(
  name: string,
  description: DeleteDescription<K, Fields>,
): void {
  defineMutation<Deleted, K, Fields>(name, {
    description: description.description,
    ids: description.ids,
    input: {
      description: `The ${description.what} to delete.`,
      ...(description.fields === undefined ? {} : { fields: description.fields }),
    },
    payload: deletePayload(`${pascal(name)}Payload`, description.what),
    resolve: async (input, context, ids) => {
      await context.write({
        method: 'DELETE',
        ...description.request(ids, input as InputShapeFromFields<Fields>),
      });
      return { deletedId: ids[description.deleted] };
    },
  });
}

/** Sends a write and hands its answer (`{data:{id,…}}`) to the payload. */
export async function write(
  context: GatewayContext,
  method: 'POST' | 'PUT' | 'DELETE',
  segments: readonly string[],
  body: unknown,
  params: Record<string, string> = {},
): Promise<Written> {
  const response = await context.write({ method, segments, body });
  return { row: expectResource(response), params };
}

/** The attributes (and meta) of a body from the input's named fields, each judged. */
export function bodyOf(
  type: string,
  attributes: Record<string, AttributeInput>,
  input: Record<string, unknown>,
  id?: string,
): { data: JsonObject } {
  const data: JsonObject = { type, attributes: {} };
  if (id !== undefined) data.id = id;
  for (const [name, attribute] of Object.entries(attributes)) {
    const value = input[name];
    if (value === undefined || value === null) continue;
    const where = attribute.in ?? 'attributes';
    data[where] ??= {};
    (data[where] as JsonObject)[attribute.key] = attribute.judge(value as never, `input.${name}`);
  }
  // A create's required attributes are `required` in its input type: GraphQL refused a missing one.
  return { data };
}

export interface WritesDescription<S extends Listed> {
  /** The resource written; its `<name>Payload` answers. */
  resource: Resource<S, string>;
  /** The payload's field (`product`) and its description. */
  field: string;
  /** JSON:API `type` of the body. */
  type: string;
  /** Path ids the write needs, besides `id`: `{ hierarchyId: [idKind('PcmHierarchy'), 'The hierarchy'] }`. */
  params?: IdFields<string>;
  attributes: Record<string, AttributeInput>;
  /** Fields of the create input beyond the attributes, and what they add to the body. */
  extra?: {
    fields: (t: InputBuilder) => Record<string, InputFieldRef<BuilderTypes, unknown>>;
    body: (input: Record<string, unknown>, body: JsonObject) => void;
  };
  /**
   * The collection a create POSTs to, from the parents' ids; the item an update PUTs and a
   * delete DELETEs is `<collection>/<id>`. Default: the resource's own path (its reads').
   */
  path?: (params: Record<string, string>) => readonly string[];
  /**
   * What the mutations do, for their descriptions (the REST call is added): `create<Name>`,
   * `update<Name>` and, when the upstream offers one, `delete<Name>`.
   */
  create: string;
  update: string;
  delete?: string;
  /** `<Name>` of the mutations; the resource's name by default. */
  name?: string;
  /** The params a written row is read with (a sub-collection's parent ids). */
  readParams?: (params: Record<string, string>) => Record<string, string>;
}

type Input = Record<string, unknown>;

/** The REST path a description names, its ids as `{param}` (`/pcm/hierarchies/{hierarchyId}/nodes`). */
function rest(path: (params: Record<string, string>, id: string) => readonly string[]): string {
  const placeholders = new Proxy({} as Record<string, string>, {
    get: (_target, key) => `{${String(key)}}`,
  });
  const segments = path(placeholders, '{id}');
  return segments.join('/').replace(/^\/?/, '/').replace('//', '/');
}

/** Registers the inputs, the payloads and the create, update (and delete) mutations. */
export function defineWrites<S extends Listed>(description: WritesDescription<S>): void {
  const { resource, attributes } = description;
  const paramIds: IdFields<string> = description.params ?? {};
  const name = description.name ?? resource.name;
  const own: IdKind = idKind(resource.name);
  const payload = payloadOf(resource, description.field, `The ${description.field} as written.`);
  const attributeFields = (t: InputBuilder, creating: boolean) =>
    Object.fromEntries(
      Object.entries(attributes).map(([name, attribute]) => [
        name,
        attribute.input(t, creating && attribute.requiredOnCreate === true),
      ]),
    );
  const readParams = description.readParams ?? (() => ({}));
  const collection =
    description.path ?? ((params: Record<string, string>) => resource.segments(params as never));
  const item = (params: Record<string, string>, id: string) => [...collection(params), id];

  defineMutation<Written, string>(`create${name}`, {
    description: `${description.create} (POST ${rest(collection)}).`,
    ids: paramIds,
    input: {
      description: `A new ${description.field}.`,
      fields: (t) => ({ ...attributeFields(t, true), ...(description.extra?.fields(t) ?? {}) }),
    },
    payload,
    resolve: (input: Input, context, params) => {
      const body = bodyOf(description.type, attributes, input);
      description.extra?.body(input, body.data);
      return write(context, 'POST', collection(params), body, readParams(params));
    },
  });
  defineMutation<Written, string>(`update${name}`, {
    description: `${description.update} (PUT ${rest(item)}; only the fields given are sent).`,
    ids: { ...paramIds, id: [own, `The ${description.field}`] },
    input: {
      description: `What changes in a ${description.field}: only the fields given are sent.`,
      fields: (t) => attributeFields(t, false),
    },
    payload,
    resolve: (input: Input, context, ids) => {
      const id = ids.id as string;
      const body = bodyOf(description.type, attributes, input, id);
      return write(context, 'PUT', item(ids, id), body, readParams(ids));
    },
  });
  const remove = description.delete;
  if (remove === undefined) return;
  defineDelete(`delete${name}`, {
    description: `${remove} (DELETE ${rest(item)}).`,
    what: description.field,
    ids: { ...paramIds, id: [own, `The ${description.field}`] },
    deleted: 'id',
    request: (ids) => ({ segments: item(ids, ids.id as string) }),
  });
}

// ---- attribute kinds: the input field and the judge of each, described once ----

type Judge<V> = (value: V, field: string) => unknown;

export const attribute = {
  string: (key: string, description: string, judge: Judge<string>, requiredOnCreate = false) =>
    ({
      key,
      requiredOnCreate,
      judge,
      input: (t, required) => t.string({ required, description }),
    }) satisfies AttributeInput as AttributeInput,
  strings: (key: string, description: string, judge: Judge<readonly string[]>) =>
    ({
      key,
      judge,
      input: (t, required) => t.stringList({ required, description }),
    }) satisfies AttributeInput as AttributeInput,
  /** An id of another object: its global id or its upstreamId (./ids.ts). */
  id: (key: string, kind: IdKind, about: string, requiredOnCreate = false) =>
    ({
      key,
      requiredOnCreate,
      judge: ((value: string, field: string) => judgeId(value, field, kind)) as Judge<never>,
      input: (t, required) => (required ? idInput : optionalIdInput)(t, kind, about),
    }) satisfies AttributeInput as AttributeInput,
  /** Ids of other objects, each either form, `min` to `max` of them, none twice. */
  ids: (key: string, kind: IdKind, about: string, max: number, min = 0, requiredOnCreate = false) =>
    ({
      key,
      requiredOnCreate,
      judge: ((values: readonly string[], field: string) =>
        judgeIdList(values, field, kind, { min, max })) as Judge<never>,
      input: (t, required) => idListInput(t, kind, about, required),
    }) satisfies AttributeInput as AttributeInput,
  int: (key: string, description: string, judge: Judge<number>, where?: 'meta') =>
    ({
      key,
      ...(where === undefined ? {} : { in: where }),
      judge,
      input: (t, required) => t.int({ required, description }),
    }) satisfies AttributeInput as AttributeInput,
  enum: (
    key: string,
    description: string,
    type: Parameters<InputBuilder['field']>[0]['type'],
    requiredOnCreate = false,
  ) =>
    ({
      key,
      requiredOnCreate,
      // The enum's values are the API's words: GraphQL judged them.
      judge: (value: string) => value,
      input: (t, required) => t.field({ type, required, description }),
    }) satisfies AttributeInput as AttributeInput,
};
