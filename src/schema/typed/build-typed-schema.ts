/**
 * The typed part of the schema, generated from the store's Custom API definitions: for each
 * Custom API with fields, an object type implementing `Node` and `TypedCustomApiEntry`, a Relay
 * connection with a typed filter, a lookup, and create / update / delete mutations. It is built
 * with graphql-js on top of the static (Pothos) schema, whose types it reuses (Node, PageInfo,
 * DateTime, IDFilter, DateTimeFilter, CustomApiEntrySortKey), and its resolvers share the static
 * entry helpers: the same pagination planner, batch loader, write path and error mapping.
 *
 * Built on a refresh, never per request (src/gateway/typed-schema-source.ts). Names follow
 * naming.ts; a field or Custom API that cannot be mapped is left out with a reason, never fatal.
 */
import { decodeGlobalID, encodeGlobalID } from '@pothos/plugin-relay';
import {
  GraphQLBoolean,
  type GraphQLEnumType,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  type GraphQLFieldResolver,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLInt,
  GraphQLInterfaceType,
  GraphQLList,
  type GraphQLNamedType,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  validateSchema,
} from 'graphql';
import type { CustomApiDefinition, FieldType } from '../../upstream/custom-api-definitions.ts';
import { BadUserInputError } from '../../upstream/errors.ts';
import type { Connection } from '../../upstream/paging.ts';
import type { GatewayContext } from '../../upstream/session.ts';
import { type ListArgs, resolveList } from '../connection.ts';
import {
  type CustomApiEntryShape,
  entriesListSpec,
  entriesPath,
  entryDataSize,
  entryFromWrite,
  loadEntry,
  MAX_ENTRY_BYTES,
} from '../custom-api-entry.ts';
import { type EntityDefinition, entitiesOf, federate } from '../federation.ts';
import { judgeUuid, optionalIfMatch } from '../rows.ts';
import {
  FILTER_OPS,
  judgeFieldInput,
  type MappedField,
  renderFieldFilters,
} from './field-values.ts';
import { fieldNamesFor, namesFor, type TypedNames } from './naming.ts';

/** A typed entry as its resolvers see it: the generic entry plus its GraphQL type name. */
export type TypedEntry = CustomApiEntryShape & { __typename: string };

/** A Custom API as the typed schema maps it. */
export interface MappedApi {
  customApiId: string;
  apiType: string;
  slug: string;
  names: TypedNames;
  fields: MappedField[];
}

export interface TypedSchemaBuild {
  /** The whole schema: the static one plus the generated types and root fields. */
  schema: GraphQLSchema;
  mapped: MappedApi[];
  /** What was left out, and why (one line each for the log). */
  skipped: { apiType: string; slug?: string; reason: string }[];
}

const FIELD_TYPES: readonly FieldType[] = ['string', 'integer', 'float', 'boolean'];

const SCALARS: Record<FieldType, GraphQLScalarType> = {
  string: GraphQLString,
  integer: GraphQLInt,
  float: GraphQLFloat,
  boolean: GraphQLBoolean,
};

const nonNull = <T extends GraphQLOutputType | GraphQLInputType>(type: T) =>
  new GraphQLNonNull(type as never) as unknown as T;
const listOf = <T extends GraphQLOutputType | GraphQLInputType>(type: T) =>
  new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type as never))) as unknown as T;

function baseType<T extends GraphQLNamedType>(schema: GraphQLSchema, name: string): T {
  const type = schema.getType(name);
  if (!type) throw new Error(`the base schema has no ${name}`);
  return type as T;
}

/** The stored value when it has the field's type; anything else (older data) reads as null. */
function readValue(type: FieldType, value: unknown): unknown {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? value : null;
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? value : null;
    case 'float':
      return typeof value === 'number' ? value : null;
    default:
      return typeof value === 'boolean' ? value : null;
  }
}

const OP_DESCRIPTIONS: Record<string, string> = {
  eq: 'Equal to.',
  in: 'Equal to one of these.',
  lt: 'Less than (strings: in byte order).',
  le: 'Less than or equal to.',
  gt: 'Greater than.',
  ge: 'Greater than or equal to.',
  like: 'Matches this pattern; `*` is the wildcard (ASCII case-insensitive).',
  isNull: 'True: no value (missing or null). False: has a value.',
};

/** `StringFieldFilter`, `IntFieldFilter`, `FloatFieldFilter`, `BooleanFieldFilter`. */
function fieldFilterTypes(): Record<FieldType, GraphQLInputObjectType> {
  const label: Record<FieldType, string> = {
    string: 'String',
    integer: 'Int',
    float: 'Float',
    boolean: 'Boolean',
  };
  const entries = FIELD_TYPES.map((type) => {
    const scalar = SCALARS[type];
    const fields: Record<string, { type: GraphQLInputType; description: string }> = {};
    for (const op of FILTER_OPS[type]) {
      fields[op] = {
        type:
          op === 'isNull'
            ? GraphQLBoolean
            : op === 'in'
              ? new GraphQLList(nonNull(scalar))
              : scalar,
        description: OP_DESCRIPTIONS[op] ?? op,
      };
    }
    return [
      type,
      new GraphQLInputObjectType({
        name: `${label[type]}FieldFilter`,
        description: `Conditions on a ${type} field of a typed Custom API, all of which must hold.`,
        fields,
      }),
    ] as const;
  });
  return Object.fromEntries(entries) as Record<FieldType, GraphQLInputObjectType>;
}

/** Maps the fields of one definition; unmappable ones are reported in `skipped`. */
function mapFields(api: CustomApiDefinition, skipped: TypedSchemaBuild['skipped']): MappedField[] {
  const usable = api.fields.filter((field) => {
    if ((FIELD_TYPES as readonly string[]).includes(field.fieldType)) return true;
    skipped.push({
      apiType: api.apiType,
      slug: field.slug,
      reason: `field type "${field.fieldType}" has no GraphQL mapping`,
    });
    return false;
  });
  const names = fieldNamesFor(usable.map((field) => field.slug));
  const mapped: MappedField[] = [];
  for (const field of usable) {
    const name = names.get(field.slug);
    if (name === undefined) {
      skipped.push({ apiType: api.apiType, slug: field.slug, reason: 'no valid GraphQL name' });
      continue;
    }
    mapped.push({
      slug: field.slug,
      name,
      type: field.fieldType as FieldType,
      description:
        field.description.trim() !== ''
          ? field.description
          : `${field.name} (the ${field.fieldType} field \`${field.slug}\`).`,
      rules: field.rules,
    });
  }
  return mapped.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Builds the typed schema over `base`. Throws only when the result is not a valid schema (a bug
 * here): the caller keeps its previous schema then.
 */
export function buildTypedSchema(
  base: GraphQLSchema,
  definitions: readonly CustomApiDefinition[],
): TypedSchemaBuild {
  const skipped: TypedSchemaBuild['skipped'] = [];
  const queryType = base.getQueryType();
  const mutationType = base.getMutationType();
  if (!queryType || !mutationType) throw new Error('the base schema has no Query or Mutation');

  const takenTypes = new Set(Object.keys(base.getTypeMap()));
  for (const name of [
    'TypedCustomApiEntry',
    'StringFieldFilter',
    'IntFieldFilter',
    'FloatFieldFilter',
    'BooleanFieldFilter',
  ]) {
    takenTypes.add(name);
  }
  const takenRoot = new Set([
    ...Object.keys(queryType.getFields()),
    ...Object.keys(mutationType.getFields()),
  ]);

  const mapped: MappedApi[] = [];
  const ordered = [...definitions].sort((a, b) =>
    a.apiType < b.apiType ? -1 : a.apiType > b.apiType ? 1 : 0,
  );
  for (const api of ordered) {
    const fields = mapFields(api, skipped);
    if (fields.length === 0) {
      skipped.push({ apiType: api.apiType, reason: 'it has no fields the typed schema can map' });
      continue;
    }
    const names = namesFor(api, takenTypes, takenRoot);
    if (names === undefined) {
      skipped.push({
        apiType: api.apiType,
        reason: 'its names collide with the schema or cannot be GraphQL names',
      });
      continue;
    }
    for (const name of names.derivedTypes) takenTypes.add(name);
    for (const name of [names.lookup, names.list, names.create, names.update, names.delete]) {
      takenRoot.add(name);
    }
    mapped.push({ customApiId: api.id, apiType: api.apiType, slug: api.slug, names, fields });
  }
  if (mapped.length === 0) return { schema: base, mapped, skipped };

  const NodeInterface = baseType<GraphQLInterfaceType>(base, 'Node');
  const DateTime = baseType<GraphQLScalarType>(base, 'DateTime');
  const PageInfo = baseType<GraphQLObjectType>(base, 'PageInfo');
  const IDFilter = baseType<GraphQLInputObjectType>(base, 'IDFilter');
  const DateTimeFilter = baseType<GraphQLInputObjectType>(base, 'DateTimeFilter');
  const SortKey = baseType<GraphQLEnumType>(base, 'CustomApiEntrySortKey');
  const filters = fieldFilterTypes();
  const byTypeName = new Map(mapped.map((api) => [api.names.type, api]));

  const commonFields = (): GraphQLFieldConfigMap<TypedEntry, GatewayContext> => ({
    id: {
      type: nonNull(GraphQLID),
      description: 'Globally unique, opaque id of this object; pass it to `node(id:)`.',
      resolve: (entry) => encodeGlobalID(entry.__typename, entry.upstreamId),
    },
    upstreamId: {
      type: nonNull(GraphQLID),
      description: 'The entry id upstream (uuid).',
    },
    createdAt: { type: nonNull(DateTime), description: 'Creation time.' },
    updatedAt: { type: nonNull(DateTime), description: 'Last update time.' },
    etag: {
      type: GraphQLString,
      description: 'Entity tag of this version (W/"…"); pass as `ifMatch` to update safely.',
    },
    resourceVersion: {
      type: nonNull(GraphQLInt),
      description: 'Version counter; grows with every change.',
    },
    dataSize: {
      type: nonNull(GraphQLInt),
      description: 'Bytes stored (sum of value sizes); at most 65,536.',
    },
  });
  const TypedEntryInterface = new GraphQLInterfaceType({
    name: 'TypedCustomApiEntry',
    description:
      'An entry of a Custom API with a generated type: what every typed entry has beside its own fields.',
    interfaces: [NodeInterface],
    fields: commonFields,
    resolveType: (entry: TypedEntry) => entry.__typename,
  });

  const typed = (api: MappedApi, entry: CustomApiEntryShape): TypedEntry => ({
    ...entry,
    __typename: api.names.type,
  });
  const loadTyped = async (context: GatewayContext, api: MappedApi, id: string) => {
    const entry = await loadEntry(context, api.customApiId, id);
    return entry === null ? null : typed(api, entry);
  };

  const queryFields: GraphQLFieldConfigMap<unknown, GatewayContext> = {};
  const mutationFields: GraphQLFieldConfigMap<unknown, GatewayContext> = {};
  const newTypes: GraphQLNamedType[] = [TypedEntryInterface];

  for (const api of mapped) {
    const { names, fields } = api;
    const T = names.type;
    const about = `the Custom API \`${api.slug}\` (api_type \`${api.apiType}\`)`;
    const ObjectType: GraphQLObjectType<TypedEntry, GatewayContext> = new GraphQLObjectType({
      name: T,
      description: `An entry of ${about}, typed from its field definitions.`,
      interfaces: [NodeInterface, TypedEntryInterface],
      isTypeOf: (value: unknown) => (value as TypedEntry | null)?.__typename === T,
      fields: () => {
        const own: GraphQLFieldConfigMap<TypedEntry, GatewayContext> = commonFields();
        for (const field of fields) {
          own[field.name] = {
            type: SCALARS[field.type],
            description: field.description,
            resolve: (entry) => readValue(field.type, entry.attributes[field.slug]),
          };
        }
        return own;
      },
    });
    const Edge = new GraphQLObjectType({
      name: `${T}Edge`,
      description: `One ${T} with its cursor.`,
      fields: {
        cursor: {
          type: nonNull(GraphQLString),
          description: 'Opaque position of this edge; pass to after/before.',
        },
        node: { type: nonNull(ObjectType), description: 'The item at the end of this edge.' },
      },
    });
    const ConnectionType = new GraphQLObjectType<Connection<TypedEntry>, GatewayContext>({
      name: `${T}Connection`,
      description: `A page of ${T} entries (Relay connection).`,
      fields: {
        edges: {
          type: listOf(Edge),
          description: 'The items of this page with their cursors.',
        },
        nodes: {
          type: listOf(ObjectType),
          description: 'The nodes of the edges, in the same order, for clients that skip cursors.',
          resolve: (connection) => connection.edges.map((edge) => edge.node),
        },
        pageInfo: { type: nonNull(PageInfo), description: 'Paging information for this page.' },
        totalCount: {
          type: nonNull(GraphQLInt),
          description: 'Items in the whole list after filters (upstream `meta.results.total`).',
        },
        pinnedAt: {
          type: nonNull(DateTime),
          description:
            'The upper bound this walk of the list was pinned to at its first page (see any other connection).',
        },
      },
    });
    const Filter = new GraphQLInputObjectType({
      name: `${T}Filter`,
      description: `Conditions on the ${T} list, all of which must hold.`,
      fields: () => {
        const own: Record<string, { type: GraphQLInputType; description: string }> = {
          id: { type: IDFilter, description: 'On the upstream id.' },
          createdAt: { type: DateTimeFilter, description: 'On the creation time.' },
          updatedAt: { type: DateTimeFilter, description: 'On the last update time.' },
        };
        for (const field of fields) {
          own[field.name] = { type: filters[field.type], description: `On ${field.name}.` };
        }
        return own;
      },
    });
    const inputFields = (mode: 'create' | 'update') => {
      const own: Record<string, { type: GraphQLInputType; description: string }> = {};
      if (mode === 'update') {
        own.id = { type: nonNull(GraphQLID), description: 'Upstream id of the entry.' };
        own.ifMatch = {
          type: GraphQLString,
          description: 'Only update if the entry still has this etag (PRECONDITION_FAILED if not).',
        };
      }
      for (const field of fields) {
        const required = mode === 'create' && !field.rules.allowNull;
        own[field.name] = {
          type: SCALARS[field.type],
          description: `${field.description}${required ? ' Required: the field does not allow null values.' : ''}`,
        };
      }
      return own;
    };
    const CreateInput = new GraphQLInputObjectType({
      name: `Create${T}Input`,
      description: `A new ${T}; its fields are judged against their definitions before any upstream call.`,
      fields: () => inputFields('create'),
    });
    const UpdateInput = new GraphQLInputObjectType({
      name: `Update${T}Input`,
      description: `A partial update of a ${T}: fields not given keep their values.`,
      fields: () => inputFields('update'),
    });
    const DeleteInput = new GraphQLInputObjectType({
      name: `Delete${T}Input`,
      description: `The ${T} to delete.`,
      fields: {
        id: { type: nonNull(GraphQLID), description: 'Upstream id of the entry.' },
        ifMatch: {
          type: GraphQLString,
          description: 'Only delete if the entry still has this etag (PRECONDITION_FAILED if not).',
        },
      },
    });
    const payload = (verb: 'Create' | 'Update') =>
      new GraphQLObjectType<{ entry: () => TypedEntry }, GatewayContext>({
        name: `${verb}${T}Payload`,
        description: `The ${verb === 'Create' ? 'created' : 'updated'} ${T}.`,
        fields: {
          [names.lookup]: {
            // Nullable and built here: once the write is done, nothing fails the mutation.
            type: ObjectType,
            description:
              'The entry as stored, with its new etag; null, with a WRITE_COMMITTED error, ' +
              'when the write happened but its answer was unusable.',
            resolve: (result) => result.entry(),
          },
        },
      });
    const DeletePayload = new GraphQLObjectType<{ entryId: string }, GatewayContext>({
      name: `Delete${T}Payload`,
      description: `What was deleted.`,
      fields: {
        deletedId: {
          type: nonNull(GraphQLID),
          description: 'Global id the deleted entry had, to evict it from client caches.',
          resolve: (result) => encodeGlobalID(T, result.entryId),
        },
        deletedUpstreamId: {
          type: nonNull(GraphQLID),
          description: 'Upstream id of the deleted entry.',
          resolve: (result) => result.entryId,
        },
      },
    });
    newTypes.push(ObjectType, Edge, ConnectionType, Filter, CreateInput, UpdateInput, DeleteInput);

    queryFields[names.lookup] = {
      type: ObjectType,
      description: `One ${T} by upstream id; null when it does not exist in this store.`,
      args: { id: { type: nonNull(GraphQLID), description: 'Upstream id of the entry (uuid).' } },
      resolve: (_root, args: { id: string }, context) =>
        loadTyped(context, api, judgeUuid(args.id, 'id')),
    };
    queryFields[names.list] = {
      type: nonNull(ConnectionType),
      description: `The entries of ${about}, typed.`,
      args: {
        first: { type: GraphQLInt, description: 'Return at most this many items after `after`.' },
        after: { type: GraphQLString, description: 'Start after the edge with this cursor.' },
        last: { type: GraphQLInt, description: 'Return at most this many items before `before`.' },
        before: { type: GraphQLString, description: 'End before the edge with this cursor.' },
        sortKey: {
          type: SortKey,
          defaultValue: 'created_at',
          description: 'What the list is ordered by.',
        },
        reverse: {
          type: GraphQLBoolean,
          defaultValue: false,
          description: 'Newest / largest first when true.',
        },
        filter: { type: Filter, description: 'Narrows the list.' },
        updatedSince: {
          type: DateTime,
          description:
            'Incremental sync: only items updated at or after this time. Deletions are not seen.',
        },
      },
      resolve: async (
        _root,
        args: ListArgs & { filter?: Record<string, unknown> | null },
        context,
      ) => {
        const rendered = renderFieldFilters(fields, args.filter);
        const spec = entriesListSpec(api.customApiId);
        return resolveList<TypedEntry>(
          context,
          args,
          { ...spec, toNode: (row) => typed(api, spec.toNode(row)) },
          rendered,
        );
      },
    };
    mutationFields[names.create] = {
      type: nonNull(payload('Create')),
      description: `Creates a ${T} (POST …/custom-apis/{id}/entries).`,
      args: { input: { type: nonNull(CreateInput), description: 'The new entry.' } },
      resolve: async (_root, { input }: { input: Record<string, unknown> }, context) => {
        const attributes = judgeFieldInput(fields, input, 'create');
        const size = entryDataSize(attributes);
        if (size > MAX_ENTRY_BYTES) {
          throw new BadUserInputError(
            `input is ${size} bytes; an entry may hold at most ${MAX_ENTRY_BYTES} bytes (64 KB)`,
            { field: 'input' },
          );
        }
        const response = await context.write({
          method: 'POST',
          segments: entriesPath(api.customApiId),
          body: { data: { ...attributes, type: api.apiType } },
        });
        return { entry: () => typed(api, entryFromWrite(response, api.customApiId)) };
      },
    };
    mutationFields[names.update] = {
      type: nonNull(payload('Update')),
      description: `Updates some fields of a ${T} (PUT), optionally only if unchanged.`,
      args: { input: { type: nonNull(UpdateInput), description: 'The change.' } },
      resolve: async (_root, { input }: { input: Record<string, unknown> }, context) => {
        const entryId = judgeUuid(String(input.id), 'input.id');
        const ifMatch = optionalIfMatch(input.ifMatch, 'input.ifMatch');
        const attributes = judgeFieldInput(fields, input, 'update');
        const response = await context.write({
          method: 'PUT',
          segments: [...entriesPath(api.customApiId), entryId],
          body: { data: { ...attributes, type: api.apiType } },
          ifMatch,
        });
        return { entry: () => typed(api, entryFromWrite(response, api.customApiId)) };
      },
    };
    mutationFields[names.delete] = {
      type: nonNull(DeletePayload),
      description: `Deletes a ${T}, optionally only if unchanged since it was read.`,
      args: { input: { type: nonNull(DeleteInput), description: 'The entry.' } },
      resolve: async (
        _root,
        { input }: { input: { id: string; ifMatch?: string | null } },
        context,
      ) => {
        const entryId = judgeUuid(input.id, 'input.id');
        const ifMatch = optionalIfMatch(input.ifMatch, 'input.ifMatch');
        await context.write({
          method: 'DELETE',
          segments: [...entriesPath(api.customApiId), entryId],
          ifMatch,
        });
        return { entryId };
      },
    };
  }

  /** A global id of a typed entry in this schema, or undefined for any other id. */
  const decodeTyped = (id: unknown): { api: MappedApi; entryId: string } | undefined => {
    if (typeof id !== 'string') return undefined;
    try {
      const decoded = decodeGlobalID(id);
      const api = byTypeName.get(decoded.typename);
      return api && { api, entryId: decoded.id };
    } catch {
      return undefined;
    }
  };
  const baseQuery = queryType.toConfig();
  const wrapNode = (config: GraphQLFieldConfig<unknown, GatewayContext> | undefined) => {
    const original = config?.resolve as GraphQLFieldResolver<unknown, GatewayContext> | undefined;
    if (!config || !original) return config;
    return {
      ...config,
      resolve: ((root, args: { id: unknown }, context, info) => {
        const hit = decodeTyped(args.id);
        if (!hit) return original(root, args, context, info);
        return loadTyped(context, hit.api, judgeUuid(hit.entryId, 'id'));
      }) as GraphQLFieldResolver<unknown, GatewayContext>,
    };
  };
  const wrapNodes = (config: GraphQLFieldConfig<unknown, GatewayContext> | undefined) => {
    const original = config?.resolve as GraphQLFieldResolver<unknown, GatewayContext> | undefined;
    if (!config || !original) return config;
    return {
      ...config,
      resolve: ((root, args: { ids: unknown[] }, context, info) => {
        if (!args.ids.some((id) => decodeTyped(id))) return original(root, args, context, info);
        // Mixed lists: typed ids through the entry loader, the others one by one as before.
        return Promise.all(
          args.ids.map(async (id) => {
            const hit = decodeTyped(id);
            if (hit) return loadTyped(context, hit.api, judgeUuid(hit.entryId, 'ids'));
            const [node] = (await original(
              root,
              { ...args, ids: [id] },
              context,
              info,
            )) as unknown[];
            return node ?? null;
          }),
        );
      }) as GraphQLFieldResolver<unknown, GatewayContext>,
    };
  };
  const query = new GraphQLObjectType({
    ...baseQuery,
    fields: () => {
      const fieldsOfBase = { ...baseQuery.fields };
      const node = wrapNode(fieldsOfBase.node as GraphQLFieldConfig<unknown, GatewayContext>);
      const nodes = wrapNodes(fieldsOfBase.nodes as GraphQLFieldConfig<unknown, GatewayContext>);
      if (node) fieldsOfBase.node = node as never;
      if (nodes) fieldsOfBase.nodes = nodes as never;
      return { ...fieldsOfBase, ...(queryFields as typeof fieldsOfBase) };
    },
  });
  const baseMutation = mutationType.toConfig();
  const mutation = new GraphQLObjectType({
    ...baseMutation,
    fields: () => ({ ...baseMutation.fields, ...(mutationFields as typeof baseMutation.fields) }),
  });
  const baseConfig = base.toConfig();
  const schema = new GraphQLSchema({
    ...baseConfig,
    query,
    mutation,
    types: [
      ...baseConfig.types.filter((type) => type !== queryType && type !== mutationType),
      ...newTypes,
    ],
  });
  // Federation: each typed entry type is an entity too, keyed by `upstreamId` alone (the type
  // names its Custom API); `_Entity` and `_service` are rebuilt to include them.
  const typedEntities = mapped.map(
    (api): EntityDefinition => ({
      typeName: api.names.type,
      keyFields: ['upstreamId'],
      resolve: (representation, context) =>
        loadTyped(context, api, judgeUuid(representation.upstreamId as string, 'upstreamId')),
    }),
  );
  const federated = federate(schema, [...entitiesOf(base), ...typedEntities]);
  const errors = validateSchema(federated);
  if (errors.length > 0) {
    throw new Error(`the typed schema is invalid: ${errors.map((e) => e.message).join('; ')}`);
  }
  return { schema: federated, mapped, skipped };
}
