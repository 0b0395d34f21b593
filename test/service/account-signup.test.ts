/**
 * Account members as the reference storefront signs them up and in (issue 30, item 4): a login
 * page reads the account-authentication settings and the realm's OpenID Connect profiles with a
 * shopper's token; a shopper signs up with `self_signup` (through `@epcc-sdk/sdks-shopper`'s
 * postV2AccountMembersTokens, as the storefront's register action sends it) when the store
 * enables it, getting an account of their own when the settings say so; the account's member
 * updates the account (putV2AccountsAccountId); tokens live the settings' timeout.
 */
import {
  createClient,
  getV2AccountsAccountId,
  postV2AccountMembersTokens,
  putV2AccountsAccountId,
} from '@epcc-sdk/sdks-shopper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
let implicit: string;
let realm: string;
let profile: string;
const now = Date.parse('2026-11-27T10:00:00.000Z');

function shopper(headers: Record<string, string> = {}) {
  return createClient({
    baseUrl: service.url,
    headers: { Authorization: `Bearer ${implicit}`, ...headers },
  } as never);
}

/** The storefront's register action's body. */
function signUpBody(email: string, name = 'Grace Hopper', password = 'a-long-password') {
  return {
    data: {
      type: 'account_management_authentication_token',
      authentication_mechanism: 'self_signup',
      password_profile_id: profile,
      username: email.toLowerCase(),
      password,
      name,
      email,
    },
  } as never;
}

async function settings(data: Record<string, unknown>) {
  const result = await service.call('PUT', '/v2/settings/account-authentication', {
    json: { data: { type: 'account_authentication_settings', ...data } },
  });
  expect(result.status, JSON.stringify(result.body)).toBe(200);
  return result.body.data;
}

beforeAll(async () => {
  service = await startService({ now: () => now });
  implicit = await service.token('alpha', 'implicit');
  const read = await service.call('GET', '/v2/settings/account-authentication', {
    token: implicit,
  });
  realm = read.body.data.relationships.authentication_realm.data.id;
  profile = (await service.call('GET', `/v2/authentication-realms/${realm}/password-profiles`)).body
    .data[0].id;
});
afterAll(() => service?.close());

describe('what a login page reads with a shopper’s token', () => {
  it('reads the settings (self sign-up off by default) and an empty list of OIDC profiles', async () => {
    const read = await service.call('GET', '/v2/settings/account-authentication', {
      token: implicit,
    });
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({
      type: 'account_authentication_settings',
      enable_self_signup: false,
      auto_create_account_for_account_members: false,
      account_member_self_management: 'disabled',
      account_management_authentication_token_timeout_secs: 86400,
      meta: { client_id: 'accounts' },
    });
    for (const path of ['oidc-profiles', 'openid-connect-profiles']) {
      const list = await service.call('GET', `/v2/authentication-realms/${realm}/${path}`, {
        token: implicit,
      });
      expect(list.status).toBe(200);
      expect(list.body.data).toEqual([]);
      expect(list.body.meta.results.total).toBe(0);
      const one = await service.call(
        'GET',
        `/v2/authentication-realms/${realm}/${path}/00000000-0000-4000-8000-000000000000`,
        { token: implicit },
      );
      expect(one.status).toBe(404);
    }
    const otherRealm = await service.call(
      'GET',
      '/v2/authentication-realms/00000000-0000-4000-8000-000000000000/oidc-profiles',
      { token: implicit },
    );
    expect(otherRealm.status).toBe(404);
    // Changing the settings is the store's.
    const put = await service.call('PUT', '/v2/settings/account-authentication', {
      token: implicit,
      json: { data: { type: 'account_authentication_settings', enable_self_signup: true } },
    });
    expect(put.status).toBe(403);
  });
});

describe('self sign-up', () => {
  it('is refused while the store has not enabled it, writing nothing', async () => {
    const result = await postV2AccountMembersTokens({
      client: shopper(),
      body: signUpBody('early@example.com'),
    });
    expect(result.response.status).toBe(403);
    expect(JSON.stringify(result.error)).toMatch(/enable_self_signup/);
    const members = await service.call(
      'GET',
      '/v2/account-members?filter=eq(email,early@example.com)',
    );
    expect(members.body.data).toEqual([]);
  });

  it('makes a member with an account of their own, who signs in and updates the account', async () => {
    await settings({
      enable_self_signup: true,
      auto_create_account_for_account_members: true,
      account_management_authentication_token_timeout_secs: 3600,
    });
    const signedUp = await postV2AccountMembersTokens({
      client: shopper(),
      body: signUpBody('Grace@Example.com'),
    });
    expect(signedUp.response.status).toBe(201);
    const answer = signedUp.data as any;
    expect(answer.data).toHaveLength(1);
    const [token] = answer.data;
    expect(token).toMatchObject({
      type: 'account_management_authentication_token',
      account_name: 'Grace Hopper',
    });
    expect(Date.parse(token.expires) - now).toBe(3600 * 1000);
    const memberId = answer.meta.account_member_id;
    const member = await service.call('GET', `/v2/account-members/${memberId}`);
    expect(member.body.data).toMatchObject({ name: 'Grace Hopper', email: 'Grace@Example.com' });

    // The new member signs in with the username and password they chose.
    const signedIn = await postV2AccountMembersTokens({
      client: shopper(),
      body: {
        data: {
          type: 'account_management_authentication_token',
          authentication_mechanism: 'password',
          password_profile_id: profile,
          username: 'grace@example.com',
          password: 'a-long-password',
        },
      } as never,
    });
    expect(signedIn.response.status).toBe(201);
    expect((signedIn.data as any).data[0].account_id).toBe(token.account_id);

    // The account summary page: read and rename the account with the member's token.
    const asMember = shopper({ 'EP-Account-Management-Authentication-Token': token.token });
    const read = await getV2AccountsAccountId({
      client: asMember,
      path: { accountID: token.account_id },
    });
    expect((read.data as any).data.name).toBe('Grace Hopper');
    const renamed = await putV2AccountsAccountId({
      client: asMember,
      path: { accountID: token.account_id },
      body: { data: { type: 'account', name: 'Hopper & Co', legal_name: 'Hopper & Co' } } as never,
    });
    expect(renamed.response.status).toBe(200);
    expect((renamed.data as any).data).toMatchObject({
      name: 'Hopper & Co',
      legal_name: 'Hopper & Co',
    });
    // Another account is not theirs to change.
    const other = (
      await service.call('POST', '/v2/accounts', { json: { data: { type: 'account', name: 'X' } } })
    ).body.data.id;
    const refused = await putV2AccountsAccountId({
      client: asMember,
      path: { accountID: other },
      body: { data: { type: 'account', name: 'Mine now' } } as never,
    });
    expect(refused.response.status).toBe(404);
    expect((await service.call('GET', `/v2/accounts/${other}`)).body.data.name).toBe('X');
  });

  it('answers 409 for a username taken in the profile, and makes nothing', async () => {
    const before = (await service.call('GET', '/v2/account-members')).body.meta.results.total;
    const accounts = (await service.call('GET', '/v2/accounts')).body.meta.results.total;
    const again = await postV2AccountMembersTokens({
      client: shopper(),
      body: signUpBody('grace@example.com', 'Another Grace'),
    });
    expect(again.response.status).toBe(409);
    expect(JSON.stringify(again.error)).toMatch(/username is already taken/);
    expect((await service.call('GET', '/v2/account-members')).body.meta.results.total).toBe(before);
    expect((await service.call('GET', '/v2/accounts')).body.meta.results.total).toBe(accounts);
  });

  it('makes a member with no account, and no token, when accounts are not made for members', async () => {
    await settings({ auto_create_account_for_account_members: false });
    const signedUp = await postV2AccountMembersTokens({
      client: shopper(),
      body: signUpBody('solo@example.com', 'Solo'),
    });
    expect(signedUp.response.status).toBe(201);
    expect((signedUp.data as any).data).toEqual([]);
    expect((signedUp.data as any).meta.results.total).toBe(0);
  });

  const bad: [string, Record<string, unknown>, string][] = [
    ['no name', { name: undefined }, 'data.name'],
    ['a bad email', { email: 'not-an-email' }, 'data.email'],
    ['a short password', { password: 'x' }, 'data.password'],
    [
      'an unknown profile',
      { password_profile_id: '00000000-0000-4000-8000-000000000000' },
      'data.password_profile_id',
    ],
    ['an unknown attribute', { role: 'admin' }, 'data.role'],
  ];
  for (const [what, change, source] of bad) {
    it(`refuses ${what} with a 400 naming ${source}, never echoing the password`, async () => {
      const body = signUpBody(`${source}@example.com`) as any;
      Object.assign(body.data, change);
      const result = await service.call('POST', '/v2/account-members/tokens', {
        token: implicit,
        json: body,
      });
      expect(result.status).toBe(400);
      expect(result.body.errors[0].source).toBe(source);
      expect(JSON.stringify(result.body)).not.toContain('a-long-password');
    });
  }

  it('judges the settings body', async () => {
    for (const [data, source] of [
      [{ enable_self_signup: 'yes' }, 'data.enable_self_signup'],
      [
        { account_management_authentication_token_timeout_secs: 5 },
        'data.account_management_authentication_token_timeout_secs',
      ],
      [{ account_member_self_management: 'update_only' }, 'data.account_member_self_management'],
      [{ type: 'settings' }, 'data.type'],
    ] as const) {
      const result = await service.call('PUT', '/v2/settings/account-authentication', {
        json: { data: { type: 'account_authentication_settings', ...data } },
      });
      expect(result.status, JSON.stringify(data)).toBe(400);
      expect(result.body.errors[0].source).toBe(source);
    }
  });
});
