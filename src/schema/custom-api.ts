/**
 * CustomApi: a user-defined resource of the store (`/v2/settings/extensions/custom-apis`), with
 * its entries as a connection. `customApis` lets GraphiQL users discover what exists.
 */

import type { JsonObject } from '../upstream/client.ts';
import type { GatewayContext } from '../upstream/session.ts';
import { builder } from './builder.ts';
import { defineListArgs, type Listed, resolveList } from './connection.ts';
import {
  CustomApiEntryConnection,
  CustomApiEntryRef,
  entriesListSpec,
  entryListArgs,
} from './custom-api-entry.ts';
import type { EntityDefinition } from './federation.ts';
import { loadById } from './lookups.ts';
import { judgeUuid, readOptionalString, readString, readTimestamps } from './rows.ts';

export interface CustomApiShape extends Listed {
  name: string;
  slug: string;
  description: string | null;
  apiType: string;
  allowUpserts: boolean;
  selfLink: string | null;
}

export function toCustomApi(row: JsonObject): CustomApiShape {
  const links = row.links as JsonObject | undefined;
  return {
    upstreamId: readString(row, 'id', 'custom_api'),
    name: readString(row, 'name', 'custom_api'),
    slug: readString(row, 'slug', 'custom_api'),
    description: readOptionalString(row, 'description'),
    apiType: readString(row, 'api_type', 'custom_api'),
    allowUpserts: row.allow_upserts === true,
    selfLink: links && typeof links.self === 'string' ? links.self : null,
    ...readTimestamps(row, 'custom_api'),
  };
}

const CUSTOM_APIS = ['settings', 'extensions', 'custom-apis'] as const;

/** One row by upstream id through the per-request `in(id,…)` batch loader; null when missing. */
export function fetchCustomApi(
  context: GatewayContext,
  id: string,
): Promise<CustomApiShape | null> {
  return loadById(context, CUSTOM_APIS, id, toCustomApi);
}

export const CustomApiRef = builder.objectRef<CustomApiShape>('CustomApi');

export const CustomApiConnection = builder.connectionObject(
  { type: CustomApiRef, name: 'CustomApiConnection', description: 'A page of Custom APIs.' },
  { name: 'CustomApiEdge', description: 'One of the Custom APIs with its cursor.' },
);

const customApiListArgs = defineListArgs('CustomApi', 'Custom APIs');

builder.node(CustomApiRef, {
  description: 'A user-defined resource (Custom API) of the store; its records are entries.',
  id: { resolve: (api) => api.upstreamId },
  loadOne: (id, context) => fetchCustomApi(context, judgeUuid(id, 'id')),
  fields: (t) => ({
    upstreamId: t.exposeID('upstreamId', {
      description: 'The upstream id (uuid); pass it as `customApiId`.',
    }),
    name: t.exposeString('name', { description: 'Human-readable name.' }),
    slug: t.exposeString('slug', {
      description: 'URL slug; entries are also at /v2/extensions/{slug}.',
    }),
    description: t.exposeString('description', {
      nullable: true,
      description: 'What the resource is for.',
    }),
    apiType: t.exposeString('apiType', {
      description: 'The `type` of every entry of this resource (ends in `_ext`).',
    }),
    allowUpserts: t.exposeBoolean('allowUpserts', {
      description: 'Whether updating a missing entry id creates it.',
    }),
    selfLink: t.exposeString('selfLink', {
      nullable: true,
      description: 'Upstream link to this resource.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'Creation time.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'Last update time.' }),
    entries: t.connection(
      {
        type: CustomApiEntryRef,
        description: 'The entries of this Custom API.',
        args: entryListArgs,
        resolve: (api, args, context) =>
          resolveList(context, args, entriesListSpec(api.upstreamId)),
      },
      CustomApiEntryConnection,
    ),
  }),
});

builder.queryFields((t) => ({
  customApi: t.field({
    type: CustomApiRef,
    nullable: true,
    description: 'One Custom API by upstream id; null when the store has none with that id.',
    args: { id: t.arg.id({ required: true, description: 'Upstream id of the Custom API.' }) },
    resolve: (_root, args, context) => fetchCustomApi(context, judgeUuid(args.id, 'id')),
  }),
  customApis: t.connection(
    {
      type: CustomApiRef,
      description: 'The Custom APIs of the store, to discover what entries exist.',
      args: customApiListArgs,
      resolve: (_root, args, context) =>
        resolveList(context, args, {
          connection: 'custom-apis',
          segments: CUSTOM_APIS,
          toNode: toCustomApi,
        }),
    },
    CustomApiConnection,
  ),
}));

/** Federation: CustomApi is an entity keyed by `upstreamId` (src/schema/federation.ts). */
export const CustomApiEntity: EntityDefinition = {
  typeName: 'CustomApi',
  keyFields: ['upstreamId'],
  resolve: (representation, context) =>
    fetchCustomApi(context, judgeUuid(representation.upstreamId as string, 'upstreamId')),
};
