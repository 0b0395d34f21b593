/**
 * Described resources: each REST list resource of the gateway is described once, and its whole
 * GraphQL surface is built from the description, as src/schema/typed/ builds the typed Custom
 * APIs from their field definitions. A description says:
 *
 * - `name` (the GraphQL type; also `<name>Connection`, `<name>Edge`, `<name>SortKey`,
 *   `<name>Filter`), `singular` / `plural` (the words of generated descriptions), `description`,
 *   and `label` (how messages about an unusable row name it; default the name in snake_case).
 * - `path`: the REST collection, e.g. `/v2/orders`; a sub-collection names its parent's ids,
 *   `/v2/settings/extensions/custom-apis/{customApiId}/entries`, and `params` describes them as
 *   arguments. A row of a sub-collection is known by its parent's ids and its own: its global id
 *   is `<param>:…:<id>`, its entity key `<param> … upstreamId`. `item` (`/v2/x/{id}`) and
 *   `lookupBy: 'item'` read single rows one GET each, for lists that cannot filter on
 *   `in(id,…)`; by default lookups batch into one `filter=in(id,…)` call per 100 ids.
 * - `body`: `flat` (v2: attributes beside `id`, `type` and `meta` in the row) or `nested` (PXM
 *   and the catalog: under `attributes`), and `timestamps`: where created_at / updated_at are
 *   (`meta.timestamps` in v2, `meta` in PXM, `attributes` in the catalog).
 * - `fields`: each attribute once, with its GraphQL type, description and where it is read
 *   (resource-fields.ts: `field.string('…', { from: 'customer.name', nullable: true })`; without
 *   `from`, the field name in snake_case in the body). `upstreamId`, `createdAt` and `updatedAt`
 *   are added unless declared (declare them to give another description, or to read them at
 *   another point: rows are checked in declaration order). `extraFields` are hand-written
 *   resolvers over the shape (relations: an order's items, a Custom API's entries).
 * - `lookup`: the root field by id (`order(id:)`); `list`: the root connection (`orders`), its
 *   cursor identity (`connection`), what it can do (`paging: 'keyset'` with `sortKeys` and
 *   `filters`, or `'offset'` for a list with neither sort nor range filters; filters say which
 *   attribute takes which of eq/in/gt/ge/lt/le) and its offset limit (`hard` like orders and
 *   files, where the upstream refuses offsets past 10,000, or `soft` like the catalog lists,
 *   which must still be served past it); `entity`: a Federation entity keyed by the ids.
 * - `readableBy`: the token kinds the upstream lets read it (documentation; the upstream decides).
 *
 * Paths may be below `/v2`, `/pcm`, `/catalog` or `/catalogs`. An `offset` list is paged by the
 * planner's offset mode (src/upstream/paging/offset.ts) and its connection has no `pinnedAt`.
 *
 * The build makes the object type as a Relay node (global id, `node`/`nodes` through the batch
 * loader), its connection (`totalCount`, `pageInfo`, `first`/`last` up to PAGING_MAX_FIRST
 * across upstream pages: connection.ts and the one planner, src/upstream/paging/), the sort
 * and filter inputs, the root fields and the entity; `connectionField` puts the list on another
 * type (a customer's orders, a Custom API's entries, or rows listed at another path: `at`, a
 * node's products).
 */
import type { FieldMap, ObjectRef } from '@pothos/core';
import type { GraphQLResolveInfo } from 'graphql';
import { expectResource, type JsonObject } from '../upstream/client.ts';
import type { Connection } from '../upstream/paging/plan.ts';
import type { GatewayContext } from '../upstream/session.ts';
import { type BuilderTypes, builder } from './builder.ts';
import {
  defineList,
  type ListArgs,
  type ListCapabilities,
  type ListDefinition,
  type Listed,
  type ListSpec,
  pinnedAtField,
  resolveList,
} from './connection.ts';
import type { EntityDefinition } from './federation.ts';
import { ID_INPUTS, type IdKind, idKind, judgeId, type ParentId, parentIds } from './kit/ids.ts';
import { nullWhenNotFound } from './lookups.ts';
import {
  compileRowReader,
  type FieldDescription,
  type FieldDescriptions,
  field,
  type PathParams,
  type ShapeOf,
  snakeCase,
} from './resource-fields.ts';
import { parsePath, type Segment, segmentsOf } from './resource-paths.ts';
import { judgeUuid } from './rows.ts';

export { field } from './resource-fields.ts';

/** Who may read a resource upstream: a store's client_credentials token, an implicit one, a customer's. */
export type TokenKind = 'client_credentials' | 'implicit' | 'customer';

export interface ListDescription extends ListCapabilities {
  offsetLimit: NonNullable<ListCapabilities['offsetLimit']>;
  /** The root connection field, e.g. `orders`; none when the list is only reached from a parent. */
  field?: string;
  /** Its description. */
  description?: string;
  /** Identity bound into cursors (`orders`); a sub-collection's gets `:<param>…` appended. */
  connection: string;
}

type Standard = 'upstreamId' | 'createdAt' | 'updatedAt';

/** The shape rows are read into: the described fields and the standard ones. */
export type ResourceShape<F extends FieldDescriptions> = ShapeOf<F> & Listed;

/** The shape of a defined resource's rows: `ShapeOfResource<typeof Orders>`. */
export type ShapeOfResource<R> = R extends Resource<infer S, string> ? S : never;

type Extra<S> = (t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, S>) => FieldMap;

export interface ResourceDescription<F extends FieldDescriptions, P extends string = never> {
  name: string;
  singular: string;
  plural: string;
  /** The row in messages about unusable answers (`order.meta is not an object`). */
  label?: string;
  description: string;
  /** The REST collection, `/v2/orders`, with `{param}` for a sub-collection's parent ids. */
  path: string;
  /** The REST item, `/v2/x/{id}`, read when `lookupBy` is `item`. */
  item?: string;
  lookupBy?: 'in-filter' | 'item';
  /** Query sent with every list page and lookup (the catalog's `include=main_image,files`). */
  listQuery?: Readonly<Record<string, string>>;
  /**
   * The parent ids of a sub-collection's path → the description of their arguments, and what
   * each names (`{ customApiId: ['The Custom API.', idKind('CustomApi')] }`): an argument then
   * takes the parent's global id or its upstreamId (src/schema/kit/ids.ts); described by its
   * text alone, the upstream id.
   */
  params?: Record<P, string | readonly [string, IdKind]>;
  body: 'flat' | 'nested';
  timestamps: 'meta.timestamps' | 'meta' | 'attributes';
  fields: F;
  extraFields?: Extra<ResourceShape<F>>;
  readableBy: readonly TokenKind[];
  lookup?: { field: string; description?: string };
  list?: ListDescription;
  entity?: boolean;
}

/** Where a connection of the resource lives when it is a field of another type. */
export interface ConnectionFieldOptions<Source, P extends string> {
  description: string;
  /** Cursor identity; default the list's (`viewer:orders` keeps a customer's walk apart). */
  connection?: string;
  /** A sub-collection's parent ids, from the source object. */
  params?: (source: Source) => Record<P, string>;
  /**
   * Rows of this resource listed at another path (a node's products:
   * `/v2/…/nodes/{nodeId}/products`), with that path's parameters from the source; the cursor
   * identity is `connection` with the parameters appended, as a sub-collection's.
   */
  at?: { path: string; params: (source: Source) => Record<string, string> };
  /**
   * For an offset list: the key prefix under which this source's pages may be shared between
   * callers, or undefined when they may not (src/schema/catalog/shared-catalog.ts decides).
   */
  share?: (source: Source, context: GatewayContext, info: GraphQLResolveInfo) => string | undefined;
}

export interface Resource<S extends Listed, P extends string = never> {
  readonly name: string;
  readonly ref: ObjectRef<BuilderTypes, S>;
  readonly list: ListDefinition;
  /** Reads one upstream row (an answer that carried one, e.g. checkout's order). */
  read(row: JsonObject, params?: Record<P, string>): S;
  /** One row by upstream id (judged), batched; null when the store has none. */
  load(context: GatewayContext, id: string, params?: Record<P, string>): Promise<S | null>;
  /** The collection's path segments for the client (a sub-collection's of one parent). */
  segments(params?: Record<P, string>): readonly string[];
  /** The list for the planner (a sub-collection's of one parent). */
  listSpec(params?: Record<P, string>, connection?: string): ListSpec<S>;
  /** The list as a connection field of another type. */
  connectionField<Source>(
    t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, Source>,
    options: ConnectionFieldOptions<Source, P>,
  ): ReturnType<PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, Source>['connection']>;
  /** The Federation entity, when described as one. */
  readonly entity: EntityDefinition | undefined;
  readonly readableBy: readonly TokenKind[];
}

const NO_PARAMS: PathParams = Object.freeze({});

const TIMESTAMP_PATHS = {
  'meta.timestamps': {
    createdAt: 'meta.timestamps.created_at',
    updatedAt: 'meta.timestamps.updated_at',
  },
  meta: { createdAt: 'meta.created_at', updatedAt: 'meta.updated_at' },
  attributes: { createdAt: 'attributes.created_at', updatedAt: 'attributes.updated_at' },
} as const;

/**
 * The fields in reading order: `upstreamId` first and the timestamps last unless declared; a
 * declared standard field without `from` reads the standard place.
 */
function withStandardFields(
  description: ResourceDescription<FieldDescriptions, string>,
): FieldDescriptions {
  const { fields, singular } = description;
  const where = { upstreamId: 'id', ...TIMESTAMP_PATHS[description.timestamps] };
  const standard: Record<Standard, FieldDescription<unknown>> = {
    upstreamId: field.id(`The ${singular} id upstream (uuid).`),
    createdAt: field.dateTime('Creation time.'),
    updatedAt: field.dateTime('Last update time.'),
  };
  const all: FieldDescriptions = {};
  const put = (name: string, declared: FieldDescription<unknown>) => {
    const from =
      declared.from ?? (name in where && !declared.read ? where[name as Standard] : undefined);
    all[name] = { ...declared, from };
  };
  if (!Object.hasOwn(fields, 'upstreamId')) put('upstreamId', standard.upstreamId);
  for (const [name, declared] of Object.entries(fields)) put(name, declared);
  if (!Object.hasOwn(fields, 'createdAt')) put('createdAt', standard.createdAt);
  if (!Object.hasOwn(fields, 'updatedAt')) put('updatedAt', standard.updatedAt);
  return all;
}

/** Builds a described resource's types, fields and entity on the schema builder. */
export function defineResource<F extends FieldDescriptions, P extends string = never>(
  description: ResourceDescription<F, P>,
): Resource<ResourceShape<F>, P> {
  type S = ResourceShape<F>;
  const { name, singular, plural } = description;
  const label = description.label ?? snakeCase(name[0]?.toLowerCase() + name.slice(1));
  const paramNames = Object.keys(description.params ?? {}) as P[];
  const fields = withStandardFields(description as ResourceDescription<FieldDescriptions, string>);
  const bodyPrefix = description.body === 'nested' ? 'attributes.' : '';
  const readRow = compileRowReader(fields, label, (field) => bodyPrefix + snakeCase(field)) as (
    row: JsonObject,
    params: PathParams,
  ) => S;
  const collection = parsePath(description.path, name);
  const item = description.item === undefined ? undefined : parsePath(description.item, name);
  const lookupBy = description.lookupBy ?? 'in-filter';
  if (lookupBy === 'item' && item === undefined) {
    throw new Error(`resource ${name}: lookupBy 'item' needs the item path`);
  }
  const list = description.list;
  const offsetOnly = list?.paging === 'offset' ? list.offsetLimit : undefined;
  const listDefinition = defineList(name, plural, list ?? { paging: 'keyset' });
  const fixedSegments = paramNames.length === 0 ? segmentsOf(collection, NO_PARAMS) : undefined;
  const toNode = (row: JsonObject) => readRow(row, NO_PARAMS);

  const ref = builder.objectRef<S>(name);
  const ConnectionRef = builder.connectionObject(
    {
      type: ref,
      name: `${name}Connection`,
      description: `A page of ${plural}.`,
      fields: (t): FieldMap => (offsetOnly === undefined ? { pinnedAt: pinnedAtField(t) } : {}),
    },
    { name: `${name}Edge`, description: `One of the ${plural} with its cursor.` },
  );

  const load = async (
    context: GatewayContext,
    id: string,
    params: PathParams = NO_PARAMS,
  ): Promise<S | null> => {
    if (lookupBy === 'item') {
      const response = await nullWhenNotFound(
        context.get(segmentsOf(item as Segment[], { ...params, id })),
      );
      return response === null ? null : readRow(expectResource(response), params);
    }
    const loader =
      description.listQuery === undefined
        ? context.byIdLoader(pathOf(params))
        : context.byAttributeLoader(pathOf(params), 'id', description.listQuery);
    const row = await nullWhenNotFound(loader.load(id));
    return row === null ? null : readRow(row, params);
  };

  /** The collection's segments; a sub-collection's need every parent id. */
  const pathOf = (params: PathParams | undefined): readonly string[] => {
    if (fixedSegments !== undefined) return fixedSegments;
    if (params === undefined) throw new Error(`resource ${name}: its list needs ${paramNames}`);
    return segmentsOf(collection, params);
  };

  const listSpec = (params?: PathParams, connection?: string): ListSpec<S> => {
    const identity = connection ?? list?.connection ?? plural;
    if (params === undefined || paramNames.length === 0) {
      return {
        connection: identity,
        segments: pathOf(params),
        toNode,
        plan: listDefinition.plan,
        offsetOnly,
        query: description.listQuery,
      };
    }
    let suffix = '';
    for (const param of paramNames) suffix += `:${params[param]}`;
    return {
      connection: `${identity}${suffix}`,
      segments: pathOf(params),
      toNode: (row) => readRow(row, params),
      plan: listDefinition.plan,
      offsetOnly,
      query: description.listQuery,
    };
  };
  // A list without parent ids is the same for every request: its spec is made once.
  const rootSpec = paramNames.length === 0 ? listSpec() : undefined;

  const parents = parentIds(description.params ?? {});

  /** Judges the parent ids of an argument or representation object, in declared order. */
  const judgeParams = (source: Readonly<Record<string, unknown>>): PathParams => {
    if (paramNames.length === 0) return NO_PARAMS;
    const params: Record<string, string> = {};
    for (const param of paramNames) {
      params[param] = (parents[param] as ParentId).judge(source[param] as string);
    }
    return params;
  };

  const globalId =
    paramNames.length === 0
      ? (node: S) => node.upstreamId
      : (node: S) => {
          let id = '';
          for (const param of paramNames) id += `${(node as Record<string, unknown>)[param]}:`;
          return id + node.upstreamId;
        };

  builder.node(ref, {
    description: description.description,
    id: { resolve: globalId },
    loadOne: (id, context) => {
      if (paramNames.length === 0) return load(context, judgeUuid(id, 'id'));
      // The global id of a sub-collection row carries its parents' ids: `<param>:…:<id>`.
      const parts = id.split(':');
      const params: Record<string, string> = {};
      paramNames.forEach((param, i) => {
        params[param] = judgeUuid(parts[i] ?? '', 'id');
      });
      return load(context, judgeUuid(parts[paramNames.length] ?? '', 'id'), params);
    },
    fields: (t) => {
      const own: FieldMap = {};
      for (const [fieldName, declared] of Object.entries(fields)) {
        const { type, nullable, description: about } = declared;
        if (type === undefined) continue;
        own[fieldName] = t.expose(
          fieldName as never,
          {
            type: declared.shownAs ?? type,
            nullable,
            description: about,
          } as never,
        );
      }
      return description.extraFields ? { ...own, ...description.extraFields(t) } : own;
    },
  });

  const paramArgs = (t: PothosSchemaTypes.QueryFieldBuilder<BuilderTypes, object>) =>
    Object.fromEntries(
      paramNames.map((param) => [
        param,
        t.arg.id({ required: true, description: parents[param]?.description }),
      ]),
    );
  /** Records the id arguments of a root field for the test that walks them (ids.test). */
  const registerArgs = (field: string, withId: boolean) => {
    for (const [param, { kind }] of Object.entries(parents)) {
      if (kind !== undefined) ID_INPUTS.set(`Query.${field}(${param}:)`, kind);
    }
    if (withId) ID_INPUTS.set(`Query.${field}(id:)`, ownKind);
  };

  const lookup = description.lookup;
  // Its own id takes either form, as every id input (src/schema/kit/ids.ts).
  const ownKind = idKind(name);
  if (lookup) {
    registerArgs(lookup.field, true);
    builder.queryField(lookup.field, (t) =>
      t.field({
        type: ref,
        nullable: true,
        description:
          lookup.description ??
          `One ${singular} by id; null when the store has no such ${singular}.`,
        args: {
          ...paramArgs(t),
          id: t.arg.id({
            required: true,
            description: `The ${singular}: a ${name} id or its upstreamId.`,
          }),
        },
        resolve: (_root, args, context) => {
          const params = judgeParams(args);
          return load(context, judgeId(args.id, 'id', ownKind), params) as never;
        },
      }),
    );
  }

  if (list?.field !== undefined) {
    registerArgs(list.field, false);
    const spec = rootSpec;
    builder.queryField(list.field, (t) =>
      t.connection(
        {
          type: ref,
          description: list.description ?? `The ${plural} of the store.`,
          args: { ...paramArgs(t), ...listDefinition.args } as typeof listDefinition.args,
          resolve: (_root, args, context) =>
            resolveList(
              context,
              args as ListArgs,
              spec ?? listSpec(judgeParams(args as Record<string, unknown>)),
            ) as Promise<Connection<S>>,
        },
        ConnectionRef,
      ),
    );
  }

  const connectionField = <Source>(
    t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, Source>,
    options: ConnectionFieldOptions<Source, P>,
  ) => {
    const { params, at } = options;
    const specOf = (source: Source): ListSpec<S> => {
      if (params !== undefined) return listSpec(params(source), options.connection);
      if (at === undefined) throw new Error(`resource ${name}: a list needs its path`);
      const atParams = at.params(source);
      let identity = options.connection ?? list?.connection ?? plural;
      for (const param of Object.keys(atParams)) identity += `:${atParams[param]}`;
      return {
        connection: identity,
        segments: segmentsOf(atPath as Segment[], atParams),
        toNode,
        plan: listDefinition.plan,
        offsetOnly,
        query: description.listQuery,
      };
    };
    const atPath = at === undefined ? undefined : parsePath(at.path, name);
    if (at !== undefined && paramNames.length > 0) {
      // Its rows are read with their parent ids, which another path does not give.
      throw new Error(`resource ${name}: a sub-collection is listed at its own path only`);
    }
    // The same list for every source: its spec is made once.
    const fixed =
      params === undefined && at === undefined
        ? listSpec(undefined, options.connection)
        : undefined;
    return t.connection(
      {
        type: ref,
        description: options.description,
        args: listDefinition.args,
        resolve: (source, args, context, info) => {
          const spec = fixed ?? specOf(source);
          const shared = options.share?.(source, context, info);
          return resolveList(
            context,
            args as ListArgs,
            shared === undefined ? spec : { ...spec, shared },
          ) as Promise<Connection<S>>;
        },
      },
      ConnectionRef,
    );
  };

  const entity: EntityDefinition | undefined = description.entity
    ? {
        typeName: name,
        keyFields: [...paramNames, 'upstreamId'],
        resolve: (representation, context) => {
          const params = judgeParams(representation);
          return load(
            context,
            judgeUuid(representation.upstreamId as string, 'upstreamId'),
            params,
          );
        },
      }
    : undefined;
  if (entity !== undefined) DESCRIBED_ENTITIES.push(entity);

  return {
    name,
    ref,
    list: listDefinition,
    read: (row, params) => readRow(row, params ?? NO_PARAMS),
    load,
    segments: pathOf,
    listSpec,
    connectionField: connectionField as Resource<S, P>['connectionField'],
    entity,
    readableBy: description.readableBy,
  };
}

/**
 * Every resource described with `entity: true`, in the order their descriptions ran: the
 * subgraph's entities come from the descriptions alone (src/schema/index.ts keeps no list), so a
 * type marked an entity always gets its `@key`. Filled while the domain files are imported, the
 * schema's build time; nothing per request.
 */
const DESCRIBED_ENTITIES: EntityDefinition[] = [];

/** The Federation entities the resource descriptions declared (`entity: true`). */
export function describedEntities(): readonly EntityDefinition[] {
  return DESCRIBED_ENTITIES;
}
