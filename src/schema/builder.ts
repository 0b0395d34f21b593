/**
 * The one SchemaBuilder of the gateway, with its plugins. It defines no types: every type lives
 * in its own file under src/schema and registers itself on this builder when imported.
 */
import SchemaBuilder from '@pothos/core';
import RelayPlugin, { decodeGlobalID as pothosDecodeGlobalID } from '@pothos/plugin-relay';
import type { JsonObject } from '../upstream/client.ts';
import { BadUserInputError } from '../upstream/errors.ts';
import type { GatewayContext } from '../upstream/session.ts';

export const builder = new SchemaBuilder<{
  Context: GatewayContext;
  Scalars: {
    ID: { Input: string; Output: string };
    DateTime: { Input: string; Output: string };
    JSONObject: { Input: JsonObject; Output: JsonObject };
    CurrencyCode: { Input: string; Output: string };
  };
  Connection: { totalCount: number; pinnedAt: string };
  DefaultFieldNullability: false;
  DefaultEdgesNullability: { list: false; items: false };
  DefaultNodeNullability: false;
}>({
  plugins: [RelayPlugin],
  defaultFieldNullability: false,
  relay: {
    cursorType: 'String',
    clientMutationId: 'omit',
    nodesOnConnection: {
      description: 'The nodes of the edges, in the same order, for clients that skip cursors.',
    },
    // A global id that does not decode is the caller's mistake, not an internal error.
    decodeGlobalID(globalID) {
      try {
        return pothosDecodeGlobalID(globalID);
      } catch (error) {
        throw new BadUserInputError('Not a global id returned by this API', {
          field: 'id',
          cause: error,
        });
      }
    },
    nodeTypeOptions: {
      description: 'An object with a globally unique id, refetchable with `node(id:)`.',
    },
    idFieldOptions: {
      description: 'Globally unique, opaque id of this object; pass it to `node(id:)`.',
    },
    pageInfoTypeOptions: {
      description: 'Where this page of a connection sits in the whole list (Relay PageInfo).',
    },
    hasNextPageFieldOptions: { description: 'True when more items follow the end of this page.' },
    hasPreviousPageFieldOptions: {
      description: 'True when items precede the start of this page.',
    },
    startCursorFieldOptions: { description: 'Cursor of the first edge, null on an empty page.' },
    endCursorFieldOptions: { description: 'Cursor of the last edge, null on an empty page.' },
    cursorFieldOptions: { description: 'Opaque position of this edge; pass to after/before.' },
    nodeFieldOptions: { description: 'The item at the end of this edge.', nullable: false },
    edgesFieldOptions: {
      description: 'The items of this page with their cursors.',
      nullable: { list: false, items: false },
    },
    pageInfoFieldOptions: { description: 'Paging information for this page.' },
    firstArgOptions: { description: 'Return at most this many items after `after`.' },
    lastArgOptions: { description: 'Return at most this many items before `before`.' },
    afterArgOptions: { description: 'Start after the edge with this cursor.' },
    beforeArgOptions: { description: 'End before the edge with this cursor.' },
    nodeQueryOptions: {
      description: 'Fetches any object by its global id; null when missing.',
      args: { id: { description: 'A global id, as returned by an `id` field.' } },
    },
    nodesQueryOptions: {
      description: 'Fetches several objects by global id, in order; null for missing ones.',
      args: { ids: { description: 'Global ids, as returned by `id` fields.' } },
    },
    defaultConnectionTypeOptions: { description: 'A page of a list (Relay connection).' },
    defaultEdgeTypeOptions: { description: 'One item of a connection with its cursor.' },
    defaultPayloadTypeOptions: { description: 'The result of a mutation.' },
  },
});

builder.queryType({ description: 'Read the commerce store of the bearer token.' });
builder.mutationType({ description: 'Change the commerce store of the bearer token.' });

builder.globalConnectionField('totalCount', (t) =>
  t.int({
    description: 'Items in the whole list after filters (upstream `meta.results.total`).',
    resolve: (parent) => parent.totalCount,
  }),
);

/** The builder's schema types, for helpers that take Pothos field builders (resource.ts). */
export type BuilderTypes =
  typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
