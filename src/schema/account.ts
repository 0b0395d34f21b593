/** Account: a business account of the store (`/v2/accounts`), as a node and a connection. */

import { defineResource, field } from './resource.ts';

export const Accounts = defineResource({
  name: 'Account',
  singular: 'account',
  plural: 'accounts',
  description: 'A business account (a company buying from the store).',
  path: '/v2/accounts',
  body: 'flat',
  timestamps: 'meta.timestamps',
  readableBy: ['client_credentials'],
  fields: {
    name: field.string('Account name.'),
    legalName: field.string('Registered legal name.', { nullable: true }),
    registrationId: field.string('Company registration number.', { nullable: true }),
  },
  lookup: { field: 'account' },
  list: {
    field: 'accounts',
    description: 'The accounts of the store.',
    connection: 'accounts',
    paging: 'keyset',
    offsetLimit: 'soft',
  },
  entity: true,
});
