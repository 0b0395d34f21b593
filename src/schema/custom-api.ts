/**
 * CustomApi: a user-defined resource of the store (`/v2/settings/extensions/custom-apis`), with
 * its entries as a connection. `customApis` lets GraphiQL users discover what exists.
 */

import { Entries } from './custom-api-entry.ts';
import { defineResource, field } from './resource.ts';

export const CustomApis = defineResource({
  name: 'CustomApi',
  singular: 'Custom API',
  plural: 'Custom APIs',
  label: 'custom_api',
  description: 'A user-defined resource (Custom API) of the store; its records are entries.',
  path: '/v2/settings/extensions/custom-apis',
  body: 'flat',
  timestamps: 'meta.timestamps',
  readableBy: ['client_credentials'],
  fields: {
    upstreamId: field.id('The upstream id (uuid); pass it as `customApiId`.'),
    name: field.string('Human-readable name.'),
    slug: field.string('URL slug; entries are also at /v2/extensions/{slug}.'),
    description: field.string('What the resource is for.', { nullable: true }),
    apiType: field.string('The `type` of every entry of this resource (ends in `_ext`).'),
    allowUpserts: field.boolean('Whether updating a missing entry id creates it.', {
      read: (row) => row.allow_upserts === true,
    }),
    selfLink: field.string('Upstream link to this resource.', {
      from: 'links.self',
      nullable: true,
    }),
  },
  extraFields: (t) => ({
    entries: Entries.connectionField(t, {
      description: 'The entries of this Custom API.',
      params: (api) => ({ customApiId: api.upstreamId }),
    }),
  }),
  lookup: {
    field: 'customApi',
    description: 'One Custom API by upstream id; null when the store has none with that id.',
  },
  list: {
    field: 'customApis',
    description: 'The Custom APIs of the store, to discover what entries exist.',
    connection: 'custom-apis',
    paging: 'keyset',
    offsetLimit: 'soft',
  },
  entity: true,
});
