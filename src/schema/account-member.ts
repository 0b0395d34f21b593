/**
 * B2B buyers: account members (`/v2/account-members`, read-only as production has them: each is
 * the user-authentication-info record of the account-authentication realm with the same id),
 * their memberships of accounts (`/v2/accounts/{id}/account-memberships`) and the realm's
 * user-authentication-info records. The lists document no range filters, so they are
 * offset connections (served past 10,000, in the upstream's order). Store tokens only; an
 * account member reads their own member and account through `viewer` (./account-viewer.ts).
 */
import { expectList, expectResource } from '../upstream/client.ts';
import { FULL_PAGE } from '../upstream/paging/query.ts';
import { Accounts } from './account.ts';
import { builder } from './builder.ts';
import { eqFilter } from './connection.ts';
import { idKind } from './kit/ids.ts';
import { defineResource, field } from './resource.ts';
import { readOptionalString, readString, relationId, unusable } from './rows.ts';

export const AccountMembers = defineResource({
  name: 'AccountMember',
  singular: 'account member',
  plural: 'account members',
  label: 'account_member',
  description:
    'A person who buys for one or more accounts (a B2B buyer). Read-only: a member is made by ' +
    'the account-authentication realm’s user-authentication-info record with the same id.',
  path: '/v2/account-members',
  body: 'flat',
  timestamps: 'meta.timestamps',
  readableBy: ['client_credentials'],
  fields: {
    name: field.string('Full name.', { nullable: true }),
    email: field.string('Email address.', { nullable: true }),
  },
  lookup: { field: 'accountMember' },
  list: {
    field: 'accountMembers',
    description: 'The account members of the store.',
    connection: 'account-members',
    paging: 'offset',
    offsetLimit: 'soft',
    filters: { email: eqFilter('email', 'On the email.'), name: eqFilter('name', 'On the name.') },
  },
  entity: true,
});

export const AccountMemberships = defineResource({
  name: 'AccountMembership',
  singular: 'account membership',
  plural: 'account memberships',
  label: 'account_membership',
  description: 'That an account member buys for an account.',
  path: '/v2/accounts/{accountId}/account-memberships',
  item: '/v2/accounts/{accountId}/account-memberships/{id}',
  lookupBy: 'item',
  params: { accountId: ['The account.', idKind('Account')] },
  body: 'flat',
  timestamps: 'meta.timestamps',
  readableBy: ['client_credentials'],
  fields: {
    accountId: field.param('accountId', 'The account (upstream id).'),
    accountMemberId: field.id('The member (upstream id).', {
      read: (row) => relationId(row, 'account_member') ?? '',
    }),
  },
  extraFields: (t) => ({
    accountMember: t.field({
      type: AccountMembers.ref,
      nullable: true,
      description: 'The member (batched: one upstream call per 100 members of the operation).',
      resolve: (membership, _args, context) =>
        AccountMembers.load(context, membership.accountMemberId),
      extensions: { upstreamCalls: 1 / 100 },
    }),
  }),
  lookup: { field: 'accountMembership' },
  list: {
    description: 'The memberships of one account.',
    connection: 'account-memberships',
    paging: 'offset',
    offsetLimit: 'soft',
    filters: {
      accountMemberId: {
        attr: 'account_member_id',
        type: 'ID',
        ops: ['eq'],
        description: 'On the member.',
      },
    },
  },
});

export const UserAuthenticationInfos = defineResource({
  name: 'UserAuthenticationInfo',
  singular: 'user authentication info',
  plural: 'user authentication infos',
  label: 'user_authentication_info',
  description:
    'Who can sign in to an authentication realm (in the account-authentication realm, an ' +
    'account member with the same id). Passwords are never shown.',
  path: '/v2/authentication-realms/{realmId}/user-authentication-info',
  item: '/v2/authentication-realms/{realmId}/user-authentication-info/{id}',
  lookupBy: 'item',
  // A realm is no Node: its upstream id only.
  params: { realmId: ['The authentication realm.', idKind('AuthenticationRealm', false)] },
  body: 'flat',
  timestamps: 'meta',
  readableBy: ['client_credentials'],
  fields: {
    realmId: field.param('realmId', 'The authentication realm (upstream id).'),
    name: field.string('Full name.', { nullable: true }),
    email: field.string('Email address.', { nullable: true }),
    username: field.string('User name (the 2026 API’s form).', { nullable: true }),
  },
  lookup: { field: 'userAuthenticationInfo' },
  list: {
    field: 'userAuthenticationInfos',
    description: 'The user authentication info records of one realm.',
    connection: 'user-authentication-info',
    paging: 'offset',
    offsetLimit: 'soft',
    filters: { email: eqFilter('email', 'On the email.'), name: eqFilter('name', 'On the name.') },
  },
});

builder.objectFields(Accounts.ref, (t) => ({
  memberships: AccountMemberships.connectionField(t, {
    description: 'Who buys for this account.',
    params: (account) => ({ accountId: account.upstreamId }),
  }),
}));

// ---- where account members sign in -----------------------------------------------------------

interface PasswordProfileShape {
  upstreamId: string;
  name: string;
  usernameFormat: string | null;
}

const PasswordProfileRef = builder.objectRef<PasswordProfileShape>('PasswordProfile').implement({
  description: 'A password profile of the account-authentication realm: members sign in to one.',
  fields: (t) => ({
    upstreamId: t.exposeID('upstreamId', { description: 'Upstream id (pass it to sign in).' }),
    name: t.exposeString('name', { description: 'Its name (“Username & password”).' }),
    usernameFormat: t.exposeString('usernameFormat', {
      nullable: true,
      description: '`any` or `email`.',
    }),
  }),
});

const AccountAuthenticationRef = builder
  .objectRef<{ realmId: string }>('AccountAuthentication')
  .implement({
    description: 'Where the store’s account members sign in (store tokens only).',
    fields: (t) => ({
      realmId: t.exposeID('realmId', {
        description: 'The account-authentication realm (upstream id): `userAuthenticationInfos`.',
      }),
      passwordProfiles: t.field({
        type: [PasswordProfileRef],
        description: 'Its password profiles (the first 100). One upstream GET.',
        resolve: async ({ realmId }, _args, context) => {
          const list = expectList(
            await context.get(['authentication-realms', realmId, 'password-profiles'], FULL_PAGE),
          );
          return list.data.map((row) => ({
            upstreamId: row.id as string,
            name: readString(row, 'name', 'password_profile'),
            usernameFormat: readOptionalString(row, 'username_format'),
          }));
        },
        extensions: { upstreamCalls: 1 },
      }),
    }),
  });

builder.queryField('accountAuthentication', (t) =>
  t.field({
    type: AccountAuthenticationRef,
    description:
      'The store’s account-authentication settings: its realm and password profiles ' +
      '(GET /v2/settings/account-authentication; store tokens only).',
    resolve: async (_root, _args, context) => {
      const settings = expectResource(await context.get(['settings', 'account-authentication']));
      const realmId = relationId(settings, 'authentication_realm');
      if (realmId === null) throw unusable('account_authentication_settings.authentication_realm');
      return { realmId };
    },
    extensions: { upstreamCalls: 1 },
  }),
);
