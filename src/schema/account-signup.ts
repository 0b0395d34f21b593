/**
 * A shopper makes their own account member (`signUpAccountMember`: POST
 * /v2/account-members/tokens with `authentication_mechanism: "self_signup"`, the reference
 * storefront's register action) and, signed in, renames their account (`updateAccount`: PUT
 * /v2/accounts/{id}, which the upstream allows the account's own member with their account
 * token). Whether sign-up is open is the store's setting (GET /v2/settings/account-authentication):
 * closed, the upstream's 403 stays a top-level FORBIDDEN.
 */
import { expectList, expectResource, type UpstreamResponse } from '../upstream/client.ts';
import {
  BadUserInputError,
  ConflictError,
  ForbiddenError,
  isUserError,
} from '../upstream/errors.ts';
import { FULL_PAGE } from '../upstream/paging/query.ts';
import type { GatewayContext } from '../upstream/session.ts';
import { Accounts } from './account.ts';
import {
  AccountMemberTokenRef,
  type AccountTokenShape,
  judgeSecret,
  readAccountTokens,
} from './account-viewer.ts';
import { idKind, judgeId, optionalIdInput } from './kit/ids.ts';
import { defineMutation, definePayload } from './kit/mutation.ts';
import { answerPayload, writeAnswer } from './kit/writes.ts';
import { judgeNonEmpty, relationId, unusable } from './rows.ts';

/** A password profile has no global id: its upstream id (a uuid). */
const PASSWORD_PROFILE = idKind('PasswordProfile', false);
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_TEXT = 255;

function judgeText(value: string, field: string): string {
  const text = judgeNonEmpty(value, field);
  if (text.length > MAX_TEXT) {
    throw new BadUserInputError(`${field} must be at most ${MAX_TEXT} characters`, { field });
  }
  return text;
}

/** The realm's first password profile ("Username & password"): two reads, made only when needed. */
async function defaultProfile(context: GatewayContext): Promise<string> {
  const settings = expectResource(await context.get(['settings', 'account-authentication']));
  const realmId = relationId(settings, 'authentication_realm');
  if (realmId === null) throw unusable('account_authentication_settings.authentication_realm');
  const profiles = expectList(
    await context
      .get(['authentication-realms', realmId, 'password-profiles'], FULL_PAGE)
      .catch((error) => {
        // The profiles are the store's to read: a storefront's implicit token keeps the id in
        // its configuration (the reference storefront's NEXT_PUBLIC_PASSWORD_PROFILE_ID).
        if (!(error instanceof ForbiddenError)) throw error;
        throw new BadUserInputError(
          'input.passwordProfileId is required with this token: only a store token may read ' +
            'the password profiles (accountAuthentication { passwordProfiles })',
          { field: 'input.passwordProfileId', upstreamStatus: 403, cause: error },
        );
      }),
  );
  const first = profiles.data[0]?.id;
  if (typeof first !== 'string') {
    throw new BadUserInputError(
      'The store has no password profile to sign up to; name one with input.passwordProfileId',
      { field: 'input.passwordProfileId' },
    );
  }
  return first;
}

/** Sign-up refusals the shopper can act on, at the field they are about. */
function signUpRefused(error: unknown): never {
  if (!isUserError(error) || error.field !== undefined) throw error;
  if (error.code === 'CONFLICT') {
    throw new ConflictError('An account member already signed up with this email', {
      upstreamStatus: error.upstreamStatus,
      field: 'input.email',
      cause: error,
    });
  }
  const named = /data\.(username|email|password|name|password_profile_id)/.exec(error.message)?.[1];
  const field =
    named === undefined
      ? undefined
      : named === 'username'
        ? 'input.email'
        : named === 'password_profile_id'
          ? 'input.passwordProfileId'
          : `input.${named}`;
  if (field === undefined) throw error;
  throw new BadUserInputError(error.message, {
    upstreamStatus: error.upstreamStatus,
    field,
    cause: error,
  });
}

const SignUpAccountMemberPayload = definePayload<{
  accountMemberId: string;
  tokens: AccountTokenShape[];
}>('SignUpAccountMemberPayload', {
  description: 'The new account member, signed in: one token per account they buy for.',
  fields: (t) => ({
    accountMemberId: t.exposeID('accountMemberId', {
      description: 'The new account member (upstream id).',
    }),
    tokens: t.field({
      type: [AccountMemberTokenRef],
      description:
        'One token per account the member buys for: the account made for them when the store ' +
        'creates one per member (its setting), else none until a merchandiser adds them to one.',
      resolve: (payload) => payload.tokens,
    }),
  }),
});

defineMutation('signUpAccountMember', {
  description:
    'A shopper signs up as an account member (POST /v2/account-members/tokens, ' +
    '`self_signup`), with an implicit token, and is signed in: the answer is their tokens, as ' +
    '`createAccountMemberToken` gives. The email is the username. An email already signed up ' +
    'is CONFLICT; a store that does not allow self sign-up answers FORBIDDEN.',
  input: {
    description:
      'The new member: email (their username), password and name. The password is never ' +
      'logged nor echoed.',
    fields: (t) => ({
      email: t.string({ required: true, description: 'Email address; the username too.' }),
      password: t.string({ required: true, description: 'Password (8 to 1,024 characters).' }),
      name: t.string({ required: true, description: 'The member’s name.' }),
      passwordProfileId: optionalIdInput(
        t,
        PASSWORD_PROFILE,
        'The password profile to sign up to (default the realm’s first, as ' +
          '`accountAuthentication { passwordProfiles }` lists them)',
      ),
    }),
  },
  payload: SignUpAccountMemberPayload,
  resolve: async (input, context) => {
    const email = judgeText(input.email, 'input.email');
    if (!EMAIL.test(email)) {
      throw new BadUserInputError('input.email is not an email address', { field: 'input.email' });
    }
    const password = judgeSecret(input.password, 'input.password');
    if (password.length < 8) {
      throw new BadUserInputError('input.password must be at least 8 characters', {
        field: 'input.password',
      });
    }
    const name = judgeText(input.name, 'input.name');
    const given = input.passwordProfileId;
    const profile =
      given === null || given === undefined
        ? await defaultProfile(context)
        : judgeId(String(given), 'input.passwordProfileId', PASSWORD_PROFILE);
    const response: UpstreamResponse = await context
      .write({
        method: 'POST',
        segments: ['account-members', 'tokens'],
        body: {
          data: {
            type: 'account_management_authentication_token',
            authentication_mechanism: 'self_signup',
            password_profile_id: profile,
            username: email,
            password,
            name,
            email,
          },
        },
      })
      .catch(signUpRefused);
    return readAccountTokens(response.body);
  },
});

// ---- the member's account ------------------------------------------------------------------------

type AccountShape = ReturnType<typeof Accounts.read>;

defineMutation('updateAccount', {
  description:
    'Renames an account (PUT /v2/accounts/{id}): its own member may, with their account token ' +
    '(EP-Account-Management-Authentication-Token), as may the store’s token. Sends only the ' +
    'fields the input names.',
  ids: { accountId: [idKind('Account'), 'The account'] },
  input: {
    description: 'The account and its new name or legal name (at least one).',
    fields: (t) => ({
      name: t.string({
        required: false,
        description: `Account name, 1 to ${MAX_TEXT} characters.`,
      }),
      legalName: t.string({
        required: false,
        description: `Registered legal name, 1 to ${MAX_TEXT} characters.`,
      }),
    }),
  },
  payload: answerPayload<AccountShape>('UpdateAccountPayload', {
    description: 'The account after the change.',
    field: 'account',
    type: Accounts.ref,
  }),
  resolve: (input, context, { accountId }) => {
    const data: Record<string, string> = { type: 'account' };
    if (input.name !== null && input.name !== undefined) {
      data.name = judgeText(input.name, 'input.name');
    }
    if (input.legalName !== null && input.legalName !== undefined) {
      data.legal_name = judgeText(input.legalName, 'input.legalName');
    }
    if (Object.keys(data).length === 1) {
      throw new BadUserInputError('Give input.name or input.legalName', { field: 'input.name' });
    }
    return writeAnswer(
      context,
      { method: 'PUT', segments: ['accounts', accountId], body: { data } },
      (response) => Accounts.read(expectResource(response)),
    );
  },
});
