/**
 * The query side of typed entries: per Custom API a lookup by id and a typed list (the static
 * entry list's planner and spec, with the typed filter rendered in the v2 syntax), and `node` /
 * `nodes` of the base schema taught the typed global ids.
 */
import { decodeGlobalID } from '@pothos/plugin-relay';
import {
  GraphQLBoolean,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  type GraphQLFieldResolver,
  GraphQLID,
  GraphQLInt,
  GraphQLString,
} from 'graphql';
import type { GatewayContext } from '../../upstream/session.ts';
import { type ListArgs, resolveList } from '../connection.ts';
import { Entries } from '../custom-api-entry.ts';
import { idKind, judgeId } from '../kit/ids.ts';
import { judgeUuid } from '../rows.ts';
import { type BaseTypes, nonNull } from './base-types.ts';
import { type EntryTypes, loadTypedEntry, type TypedEntry, typedEntry } from './entry-types.ts';
import { renderFieldFilters } from './field-values.ts';
import type { EntryInputTypes } from './input-types.ts';
import type { MappedApi } from './mapping.ts';

/** The lookup and list root fields of one Custom API, in this order. */
export function entryQueryFields(
  api: MappedApi,
  base: BaseTypes,
  types: EntryTypes,
  inputs: EntryInputTypes,
): GraphQLFieldConfigMap<unknown, GatewayContext> {
  const { names, fields } = api;
  const T = names.type;
  const about = `the Custom API \`${api.slug}\` (api_type \`${api.apiType}\`)`;
  return {
    [names.lookup]: {
      type: types.ObjectType,
      description: `One ${T} by id; null when it does not exist in this store.`,
      args: {
        id: { type: nonNull(GraphQLID), description: `The entry: a ${T} id or its upstreamId.` },
      },
      resolve: (_root, args: { id: string }, context) =>
        loadTypedEntry(context, api, judgeId(args.id, 'id', idKind(T))),
    },
    [names.list]: {
      type: nonNull(types.ConnectionType),
      description: `The entries of ${about}, typed.`,
      args: {
        first: { type: GraphQLInt, description: 'Return at most this many items after `after`.' },
        after: { type: GraphQLString, description: 'Start after the edge with this cursor.' },
        last: { type: GraphQLInt, description: 'Return at most this many items before `before`.' },
        before: { type: GraphQLString, description: 'End before the edge with this cursor.' },
        sortKey: {
          type: base.SortKey,
          defaultValue: 'created_at',
          description: 'What the list is ordered by.',
        },
        reverse: {
          type: GraphQLBoolean,
          defaultValue: false,
          description: 'Newest / largest first when true.',
        },
        filter: { type: inputs.Filter, description: 'Narrows the list.' },
        updatedSince: {
          type: base.DateTime,
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
        const spec = Entries.listSpec({ customApiId: api.customApiId });
        return resolveList<TypedEntry>(
          context,
          args,
          { ...spec, toNode: (row) => typedEntry(api, spec.toNode(row)) },
          rendered,
        );
      },
    },
  };
}

type FieldConfig = GraphQLFieldConfig<unknown, GatewayContext>;

/**
 * `node` and `nodes` of the base schema that also resolve the typed entries' global ids (through
 * the entry loader); any other id goes to the base resolver as before. Undefined when the base
 * field is missing.
 */
export function typedNodeFields(
  mapped: readonly MappedApi[],
  baseFields: { node: FieldConfig | undefined; nodes: FieldConfig | undefined },
): { node: FieldConfig | undefined; nodes: FieldConfig | undefined } {
  const byTypeName = new Map(mapped.map((api) => [api.names.type, api]));
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
  const wrapNode = (config: FieldConfig | undefined) => {
    const original = config?.resolve as GraphQLFieldResolver<unknown, GatewayContext> | undefined;
    if (!config || !original) return config;
    return {
      ...config,
      resolve: ((root, args: { id: unknown }, context, info) => {
        const hit = decodeTyped(args.id);
        if (!hit) return original(root, args, context, info);
        return loadTypedEntry(context, hit.api, judgeUuid(hit.entryId, 'id'));
      }) as GraphQLFieldResolver<unknown, GatewayContext>,
    };
  };
  const wrapNodes = (config: FieldConfig | undefined) => {
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
            if (hit) return loadTypedEntry(context, hit.api, judgeUuid(hit.entryId, 'ids'));
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
  return { node: wrapNode(baseFields.node), nodes: wrapNodes(baseFields.nodes) };
}
