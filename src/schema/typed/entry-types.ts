/**
 * The output types of typed entries: the `TypedCustomApiEntry` interface every typed entry
 * implements, and per Custom API its object type, edge and Relay connection. Entries are the
 * generic ones (custom-api-entry.ts) tagged with their GraphQL type name.
 */
import { encodeGlobalID } from '@pothos/plugin-relay';
import {
  type GraphQLFieldConfigMap,
  GraphQLID,
  GraphQLInt,
  GraphQLInterfaceType,
  GraphQLObjectType,
  GraphQLString,
} from 'graphql';
import type { Connection } from '../../upstream/paging/plan.ts';
import type { GatewayContext } from '../../upstream/session.ts';
import { type CustomApiEntryShape, Entries } from '../custom-api-entry.ts';
import { type BaseTypes, listOf, nonNull } from './base-types.ts';
import { type MappedApi, readValue, SCALARS } from './mapping.ts';

/** A typed entry as its resolvers see it: the generic entry plus its GraphQL type name. */
export type TypedEntry = CustomApiEntryShape & { __typename: string };

export const typedEntry = (api: MappedApi, entry: CustomApiEntryShape): TypedEntry => ({
  ...entry,
  __typename: api.names.type,
});

/** One entry of the API by upstream id, through the request's entry loader; null if none. */
export async function loadTypedEntry(
  context: GatewayContext,
  api: MappedApi,
  id: string,
): Promise<TypedEntry | null> {
  const entry = await Entries.load(context, id, { customApiId: api.customApiId });
  return entry === null ? null : typedEntry(api, entry);
}

/** The fields every typed entry has beside its own. */
function commonFields(base: BaseTypes): GraphQLFieldConfigMap<TypedEntry, GatewayContext> {
  const { DateTime } = base;
  return {
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
  };
}

export function createTypedEntryInterface(base: BaseTypes): GraphQLInterfaceType {
  return new GraphQLInterfaceType({
    name: 'TypedCustomApiEntry',
    description:
      'An entry of a Custom API with a generated type: what every typed entry has beside its own fields.',
    interfaces: [base.NodeInterface],
    fields: () => commonFields(base),
    resolveType: (entry: TypedEntry) => entry.__typename,
  });
}

export interface EntryTypes {
  ObjectType: GraphQLObjectType<TypedEntry, GatewayContext>;
  Edge: GraphQLObjectType;
  ConnectionType: GraphQLObjectType<Connection<TypedEntry>, GatewayContext>;
}

/** The object type of one Custom API's entries, its edge and its connection. */
export function createEntryTypes(
  api: MappedApi,
  base: BaseTypes,
  TypedEntryInterface: GraphQLInterfaceType,
): EntryTypes {
  const { names, fields } = api;
  const T = names.type;
  const about = `the Custom API \`${api.slug}\` (api_type \`${api.apiType}\`)`;
  const ObjectType: GraphQLObjectType<TypedEntry, GatewayContext> = new GraphQLObjectType({
    name: T,
    description: `An entry of ${about}, typed from its field definitions.`,
    interfaces: [base.NodeInterface, TypedEntryInterface],
    isTypeOf: (value: unknown) => (value as TypedEntry | null)?.__typename === T,
    fields: () => {
      const own: GraphQLFieldConfigMap<TypedEntry, GatewayContext> = commonFields(base);
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
        resolve: (connection) => nodesOf(connection.edges),
      },
      pageInfo: { type: nonNull(base.PageInfo), description: 'Paging information for this page.' },
      totalCount: {
        type: nonNull(GraphQLInt),
        description: 'Items in the whole list after filters (upstream `meta.results.total`).',
      },
      pinnedAt: {
        type: nonNull(base.DateTime),
        description:
          'The upper bound this walk of the list was pinned to at its first page (see any other connection).',
      },
    },
  });
  return { ObjectType, Edge, ConnectionType };
}

/**
 * The nodes of a connection's edges: mapped, or, in an answer in parts (`@defer`/`@stream`,
 * whose edges come page by page: src/upstream/paging/stream.ts), mapped as they come.
 */
function nodesOf<T>(edges: readonly { node: T }[] | AsyncIterable<{ node: T }>) {
  return Symbol.asyncIterator in edges ? nodesAsTheyCome(edges) : edges.map((edge) => edge.node);
}

async function* nodesAsTheyCome<T>(edges: AsyncIterable<{ node: T }>): AsyncGenerator<T> {
  for await (const edge of edges) yield edge.node;
}
