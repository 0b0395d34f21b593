/** Account: a business account of the store (`/v2/accounts`), as a node and a connection. */

import type { JsonObject } from '../upstream/client.ts';
import type { GatewayContext } from '../upstream/session.ts';
import { builder } from './builder.ts';
import { defineListArgs, type Listed, resolveList } from './connection.ts';
import type { EntityDefinition } from './federation.ts';
import { loadById } from './lookups.ts';
import { judgeUuid, readOptionalString, readString, readTimestamps } from './rows.ts';

export interface AccountShape extends Listed {
  name: string;
  legalName: string | null;
  registrationId: string | null;
}

export function toAccount(row: JsonObject): AccountShape {
  return {
    upstreamId: readString(row, 'id', 'account'),
    name: readString(row, 'name', 'account'),
    legalName: readOptionalString(row, 'legal_name'),
    registrationId: readOptionalString(row, 'registration_id'),
    ...readTimestamps(row, 'account'),
  };
}

/** One row by upstream id through the per-request `in(id,…)` batch loader; null when missing. */
export function fetchAccount(context: GatewayContext, id: string): Promise<AccountShape | null> {
  return loadById(context, ['accounts'], id, toAccount);
}

export const AccountRef = builder.objectRef<AccountShape>('Account');

export const AccountConnection = builder.connectionObject(
  { type: AccountRef, name: 'AccountConnection', description: 'A page of accounts.' },
  { name: 'AccountEdge', description: 'One of the accounts with its cursor.' },
);
const accountListArgs = defineListArgs('Account', 'accounts');

builder.node(AccountRef, {
  description: 'A business account (a company buying from the store).',
  id: { resolve: (account) => account.upstreamId },
  loadOne: (id, context) => fetchAccount(context, judgeUuid(id, 'id')),
  fields: (t) => ({
    upstreamId: t.exposeID('upstreamId', { description: 'The account id upstream (uuid).' }),
    name: t.exposeString('name', { description: 'Account name.' }),
    legalName: t.exposeString('legalName', {
      nullable: true,
      description: 'Registered legal name.',
    }),
    registrationId: t.exposeString('registrationId', {
      nullable: true,
      description: 'Company registration number.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'Creation time.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'Last update time.' }),
  }),
});

builder.queryFields((t) => ({
  account: t.field({
    type: AccountRef,
    nullable: true,
    description: 'One account by upstream id; null when the store has no such account.',
    args: { id: t.arg.id({ required: true, description: 'Upstream id of the account.' }) },
    resolve: (_root, args, context) => fetchAccount(context, judgeUuid(args.id, 'id')),
  }),
  accounts: t.connection(
    {
      type: AccountRef,
      description: 'The accounts of the store.',
      args: accountListArgs,
      resolve: (_root, args, context) =>
        resolveList(context, args, {
          connection: 'accounts',
          segments: ['accounts'],
          toNode: toAccount,
        }),
    },
    AccountConnection,
  ),
}));

/** Federation: Account is an entity keyed by `upstreamId` (src/schema/federation.ts). */
export const AccountEntity: EntityDefinition = {
  typeName: 'Account',
  keyFields: ['upstreamId'],
  resolve: (representation, context) =>
    fetchAccount(context, judgeUuid(representation.upstreamId as string, 'upstreamId')),
};
