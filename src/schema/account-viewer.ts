/**
 * An account member signs in and acts for an account: `createAccountMemberToken` (POST
 * /v2/account-members/tokens, by password: one token per account the member buys for) and the
 * member's side of `viewer` (who they are and which account the request's
 * EP-Account-Management-Authentication-Token acts for). The merchandiser's membership writes are
 * here too. Isolation is the upstream's: the gateway forwards the account token on every call of
 * the request and the v2 API scopes carts and orders to its account.
 */
import { expectList, expectResource, isJsonObject, type JsonObject } from '../upstream/client.ts';
import { BadUserInputError } from '../upstream/errors.ts';
import { FIRST_ROW } from '../upstream/paging/query.ts';
import { Accounts } from './account.ts';
import { AccountMembers, AccountMemberships } from './account-member.ts';
import { builder } from './builder.ts';
import { signInRefused, ViewerRef } from './customer.ts';
import { idKind } from './kit/ids.ts';
import { defineMutation, definePayload, type IdFields } from './kit/mutation.ts';
import { answerPayload, defineDelete, writeAnswer } from './kit/writes.ts';
import type { ShapeOfResource } from './resource.ts';
import { judgeNonEmpty, readString, unusable } from './rows.ts';

builder.objectFields(ViewerRef, (t) => ({
  accountMember: t.field({
    type: AccountMembers.ref,
    nullable: true,
    description:
      'The signed-in account member (null for a customer). One upstream GET, only when asked.',
    resolve: async (viewer, _args, context) => {
      if (viewer.customer !== null) return null;
      // Under an account token the members list is that member alone.
      const [row] = expectList(await context.get(['account-members'], FIRST_ROW)).data;
      return row === undefined ? null : AccountMembers.read(row);
    },
    extensions: { upstreamCalls: 1 },
  }),
  account: t.field({
    type: Accounts.ref,
    nullable: true,
    description:
      'The account the account token acts for (null for a customer). One upstream GET, only ' +
      'when asked.',
    resolve: async (viewer, _args, context) => {
      if (viewer.customer !== null) return null;
      // Under an account token the accounts list is the token's account alone.
      const [row] = expectList(await context.get(['accounts'], FIRST_ROW)).data;
      return row === undefined ? null : Accounts.read(row);
    },
    extensions: { upstreamCalls: 1 },
  }),
}));

// ---- signing in ------------------------------------------------------------------------------

const MAX_SECRET = 1024;

export interface AccountTokenShape {
  accountId: string;
  accountName: string;
  token: string;
  expiresAt: string;
}

export const AccountMemberTokenRef = builder
  .objectRef<AccountTokenShape>('AccountMemberToken')
  .implement({
    description:
      'A token to act for one account: send it as EP-Account-Management-Authentication-Token ' +
      '(beside an implicit bearer token) for that account’s carts, orders and `viewer`.',
    fields: (t) => ({
      accountId: t.exposeID('accountId', { description: 'The account (upstream id).' }),
      accountName: t.exposeString('accountName', { description: 'The account’s name.' }),
      token: t.exposeString('token', { description: 'The account token (a secret).' }),
      expiresAt: t.expose('expiresAt', {
        type: 'DateTime',
        description: 'When the token stops working; sign in again then.',
      }),
    }),
  });

const CreateAccountMemberTokenPayload = definePayload<{
  accountMemberId: string;
  tokens: AccountTokenShape[];
}>('CreateAccountMemberTokenPayload', {
  description: 'The signed-in member and one token per account they buy for.',
  fields: (t) => ({
    accountMemberId: t.exposeID('accountMemberId', {
      description: 'The account member (upstream id).',
    }),
    tokens: t.field({
      type: [AccountMemberTokenRef],
      description: 'One token per account the member buys for (none when they buy for none).',
      resolve: (payload) => payload.tokens,
    }),
  }),
});

const unusableToken = (what: string) => unusable(`account_management_authentication_token.${what}`);

/** `expires` as production sends it (an ISO time) or as epoch seconds. */
function expiresOf(row: JsonObject): string {
  const expires = row.expires;
  const time =
    typeof expires === 'number'
      ? expires * 1000
      : typeof expires === 'string'
        ? Date.parse(expires)
        : Number.NaN;
  if (!Number.isFinite(time)) throw unusableToken('expires');
  return new Date(time).toISOString();
}

export function judgeSecret(value: string, field: string): string {
  if (value === '' || value.length > MAX_SECRET) {
    throw new BadUserInputError(`${field} must be 1 to ${MAX_SECRET} characters`, { field });
  }
  return value;
}

defineMutation('createAccountMemberToken', {
  description:
    'Signs an account member in by password (POST /v2/account-members/tokens); works with an ' +
    'implicit token. A wrong username, password or password profile is INVALID_CREDENTIALS, ' +
    'without saying which; a refused bearer token stays UNAUTHENTICATED.',
  ids: { passwordProfileId: [idKind('PasswordProfile', false), 'The password profile'] },
  input: {
    description:
      'An account member’s credentials in a password profile of the account-authentication ' +
      'realm. The password is never logged nor echoed.',
    fields: (t) => ({
      username: t.string({
        required: true,
        description: 'The member’s username (often an email).',
      }),
      password: t.string({ required: true, description: 'The member’s password.' }),
    }),
  },
  payload: CreateAccountMemberTokenPayload,
  resolve: async (input, context, { passwordProfileId: profile }) => {
    const username = judgeNonEmpty(input.username, 'input.username');
    const password = judgeSecret(input.password, 'input.password');
    const response = await context
      .write({
        method: 'POST',
        segments: ['account-members', 'tokens'],
        body: {
          data: {
            type: 'account_management_authentication_token',
            authentication_mechanism: 'password',
            password_profile_id: profile,
            username,
            password,
          },
        },
      })
      .catch(signInRefused('username'));
    return readAccountTokens(response.body);
  },
});

/** The answer of POST /v2/account-members/tokens (a sign-in or a sign-up): the member's tokens. */
export function readAccountTokens(answer: unknown): {
  accountMemberId: string;
  tokens: AccountTokenShape[];
} {
  // Token rows carry no id: read the body as the token answer it is.
  const body = isJsonObject(answer) ? answer : {};
  const meta = isJsonObject(body.meta) ? body.meta : {};
  if (!Array.isArray(body.data)) throw unusableToken('data');
  return {
    accountMemberId: readString(meta, 'account_member_id', 'account_management_token.meta'),
    tokens: body.data.map((row) => {
      if (!isJsonObject(row)) throw unusableToken('data[]');
      const type = 'account_management_authentication_token';
      return {
        accountId: readString(row, 'account_id', type),
        accountName: readString(row, 'account_name', type),
        token: readString(row, 'token', type),
        expiresAt: expiresOf(row),
      };
    }),
  };
}

// ---- the merchandiser's membership writes ----------------------------------------------------

type MembershipShape = ShapeOfResource<typeof AccountMemberships>;

const ACCOUNT_IDS = {
  accountId: [idKind('Account'), 'The account'],
} as const satisfies IdFields<'accountId'>;

defineMutation('createAccountMembership', {
  description:
    'Lets an account member buy for an account (POST /v2/accounts/{id}/account-memberships); ' +
    'a member already in the account is CONFLICT.',
  ids: { ...ACCOUNT_IDS, accountMemberId: [idKind('AccountMember'), 'The account member'] },
  input: { description: 'An account member to add to an account.' },
  payload: answerPayload<MembershipShape>('CreateAccountMembershipPayload', {
    description: 'The membership that was created.',
    field: 'membership',
    type: AccountMemberships.ref,
  }),
  resolve: (_input, context, { accountId, accountMemberId }) =>
    writeAnswer(
      context,
      {
        method: 'POST',
        segments: ['accounts', accountId, 'account-memberships'],
        body: { data: { type: 'account_membership', account_member_id: accountMemberId } },
      },
      (response) => AccountMemberships.read(expectResource(response), { accountId }),
    ),
});

defineDelete('deleteAccountMembership', {
  description: 'Ends a membership (DELETE /v2/accounts/{id}/account-memberships/{id}).',
  what: 'membership',
  ids: { ...ACCOUNT_IDS, membershipId: [idKind('AccountMembership'), 'The membership'] },
  deleted: 'membershipId',
  request: ({ accountId, membershipId }) => ({
    segments: ['accounts', accountId, 'account-memberships', membershipId],
  }),
});
