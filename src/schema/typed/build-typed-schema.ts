/**
 * The typed part of the schema, generated from the store's Custom API definitions: for each
 * Custom API with fields, an object type implementing `Node` and `TypedCustomApiEntry`, a Relay
 * connection with a typed filter, a lookup, and create / update / delete mutations. It is built
 * with graphql-js on top of the static (Pothos) schema, whose types it reuses (Node, PageInfo,
 * DateTime, IDFilter, DateTimeFilter, CustomApiEntrySortKey), and its resolvers share the static
 * entry helpers: the same pagination planner, batch loader, write path and error mapping.
 *
 * Built on a refresh, never per request (src/gateway/typed-schema-source.ts). This module
 * assembles the parts: what is mapped and under which names (mapping.ts, naming.ts), the entry
 * types (entry-types.ts), their inputs (input-types.ts), the root fields (queries.ts,
 * mutations.ts), and the federation entities.
 */
import {
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  type GraphQLNamedType,
  GraphQLObjectType,
  GraphQLSchema,
  validateSchema,
} from 'graphql';
import type { CustomApiDefinition } from '../../upstream/custom-api-definitions.ts';
import type { GatewayContext } from '../../upstream/session.ts';
import { type EntityDefinition, entitiesOf, federate } from '../federation.ts';
import { judgeUuid } from '../rows.ts';
import { baseTypesOf } from './base-types.ts';
import { createEntryTypes, createTypedEntryInterface, loadTypedEntry } from './entry-types.ts';
import { createEntryInputTypes, fieldFilterTypes } from './input-types.ts';
import { type MappedApi, mapApis, SHARED_TYPE_NAMES, type SkippedPart } from './mapping.ts';
import { entryMutationFields } from './mutations.ts';
import { entryQueryFields, typedNodeFields } from './queries.ts';

export type { TypedEntry } from './entry-types.ts';
export type { MappedApi } from './mapping.ts';

export interface TypedSchemaBuild {
  /** The whole schema: the static one plus the generated types and root fields. */
  schema: GraphQLSchema;
  mapped: MappedApi[];
  /** What was left out, and why (one line each for the log). */
  skipped: SkippedPart[];
}

/**
 * Builds the typed schema over `base`. Throws only when the result is not a valid schema (a bug
 * here): the caller keeps its previous schema then.
 */
export function buildTypedSchema(
  base: GraphQLSchema,
  definitions: readonly CustomApiDefinition[],
): TypedSchemaBuild {
  const skipped: SkippedPart[] = [];
  const queryType = base.getQueryType();
  const mutationType = base.getMutationType();
  if (!queryType || !mutationType) throw new Error('the base schema has no Query or Mutation');

  const takenTypes = new Set([...Object.keys(base.getTypeMap()), ...SHARED_TYPE_NAMES]);
  const takenRoot = new Set([
    ...Object.keys(queryType.getFields()),
    ...Object.keys(mutationType.getFields()),
  ]);
  const mapped = mapApis(definitions, takenTypes, takenRoot, skipped);
  if (mapped.length === 0) return { schema: base, mapped, skipped };

  const baseTypes = baseTypesOf(base);
  const filters = fieldFilterTypes();
  const TypedEntryInterface = createTypedEntryInterface(baseTypes);
  const queryFields: GraphQLFieldConfigMap<unknown, GatewayContext> = {};
  const mutationFields: GraphQLFieldConfigMap<unknown, GatewayContext> = {};
  const newTypes: GraphQLNamedType[] = [TypedEntryInterface];
  for (const api of mapped) {
    const types = createEntryTypes(api, baseTypes, TypedEntryInterface);
    const inputs = createEntryInputTypes(api, baseTypes, filters);
    newTypes.push(
      types.ObjectType,
      types.Edge,
      types.ConnectionType,
      inputs.Filter,
      inputs.CreateInput,
      inputs.UpdateInput,
      inputs.DeleteInput,
    );
    Object.assign(queryFields, entryQueryFields(api, baseTypes, types, inputs));
    Object.assign(mutationFields, entryMutationFields(api, types, inputs, baseTypes));
  }

  const baseQuery = queryType.toConfig();
  const query = new GraphQLObjectType({
    ...baseQuery,
    fields: () => {
      const fieldsOfBase = { ...baseQuery.fields };
      const { node, nodes } = typedNodeFields(mapped, {
        node: fieldsOfBase.node as GraphQLFieldConfig<unknown, GatewayContext> | undefined,
        nodes: fieldsOfBase.nodes as GraphQLFieldConfig<unknown, GatewayContext> | undefined,
      });
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
        loadTypedEntry(context, api, judgeUuid(representation.upstreamId as string, 'upstreamId')),
    }),
  );
  const federated = federate(schema, [...entitiesOf(base), ...typedEntities]);
  const errors = validateSchema(federated);
  if (errors.length > 0) {
    throw new Error(`the typed schema is invalid: ${errors.map((e) => e.message).join('; ')}`);
  }
  return { schema: federated, mapped, skipped };
}
