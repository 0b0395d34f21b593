/**
 * Account members over real HTTP: the account-authentication realm and its
 * user-authentication-info records, password profiles and a member's password, the members
 * list, memberships, account tokens (one per account; one 401 for a wrong username or
 * password; switching accounts), and what `EP-Account-Management-Authentication-Token` scopes:
 * one account's carts and orders, invisible to every other account and customer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CallOptions,
  errorOf,
  type ServiceUnderTest,
  startService,
} from './service-helpers.ts';

let service: ServiceUnderTest;
let now = Date.parse('2026-03-01T10:00:00.000Z');
let admin: string;
let implicit: string;
let betaAdmin: string;
let realm: string;
let profile: string;

const ADDRESS = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  line_1: '1 Analytical Row',
  region: 'London',
  postcode: 'N1 1AA',
  country: 'GB',
};

beforeAll(async () => {
  service = await startService({ now: () => now });
  admin = await service.token('alpha');
  implicit = await service.token('alpha', 'implicit');
  betaAdmin = await service.token('beta');
  const settings = await service.call('GET', '/v2/settings/account-authentication', {
    token: admin,
  });
  realm = settings.body.data.relationships.authentication_realm.data.id;
  const profiles = await service.call(
    'GET',
    `/v2/authentication-realms/${realm}/password-profiles`,
    {
      token: admin,
    },
  );
  profile = profiles.body.data[0].id;
});
afterAll(() => service.close());

const UAI = () => `/v2/authentication-realms/${realm}/user-authentication-info`;

async function post(path: string, data: Record<string, unknown>, token = admin) {
  return service.call('POST', path, { token, json: { data } });
}

async function createAccount(name: string): Promise<string> {
  const result = await post('/v2/accounts', { type: 'account', name });
  expect(result.status).toBe(201);
  return result.body.data.id;
}

/** A member with a password in the default profile; returns its id. */
async function createMember(name: string, email: string, password: string): Promise<string> {
  const uai = await post(UAI(), { type: 'user_authentication_info', name, email });
  expect(uai.status, JSON.stringify(uai.body)).toBe(201);
  const info = await post(
    `${UAI()}/${uai.body.data.id}/user-authentication-password-profile-info`,
    {
      type: 'user_authentication_password_profile_info',
      username: email,
      password,
      password_profile_id: profile,
    },
  );
  expect(info.status, JSON.stringify(info.body)).toBe(201);
  return uai.body.data.id;
}

async function join(accountId: string, memberId: string) {
  return post(`/v2/accounts/${accountId}/account-memberships`, {
    type: 'account_membership',
    account_member_id: memberId,
  });
}

async function signIn(username: string, password: string, token = implicit) {
  return post(
    '/v2/account-members/tokens',
    {
      type: 'account_management_authentication_token',
      authentication_mechanism: 'password',
      password_profile_id: profile,
      username,
      password,
    },
    token,
  );
}

const as = (accountToken: string, token = implicit): CallOptions => ({
  token,
  headers: { 'ep-account-management-authentication-token': accountToken },
});

describe('the account-authentication realm', () => {
  it('has a stable realm per store, and a default password profile', async () => {
    const again = await service.call('GET', '/v2/settings/account-authentication', {
      token: admin,
    });
    expect(again.body.data).toMatchObject({
      type: 'account_authentication_settings',
      relationships: {
        authentication_realm: { data: { id: realm, type: 'authentication_realm' } },
      },
      meta: { client_id: 'accounts' },
    });
    const beta = await service.call('GET', '/v2/settings/account-authentication', {
      token: betaAdmin,
    });
    expect(beta.body.data.relationships.authentication_realm.data.id).not.toBe(realm);
    const profiles = await service.call(
      'GET',
      `/v2/authentication-realms/${realm}/password-profiles`,
      {
        token: admin,
      },
    );
    expect(profiles.body.data).toEqual([
      expect.objectContaining({
        id: profile,
        type: 'password_profile',
        name: 'Username & password',
      }),
    ]);
    expect(profiles.body.meta.results.total).toBe(1);
    // Another store's realm is not this store's.
    const foreign = await service.call(
      'GET',
      `/v2/authentication-realms/${realm}/user-authentication-info`,
      {
        token: betaAdmin,
      },
    );
    expect(foreign.status).toBe(404);
    // A login page reads which realm members live in with the shopper's implicit token (the
    // reference storefront's account-auth-settings route); changing the settings is the store's.
    expect(
      (await service.call('GET', '/v2/settings/account-authentication', { token: implicit }))
        .status,
    ).toBe(200);
    expect(
      (
        await service.call('PUT', '/v2/settings/account-authentication', {
          token: implicit,
          json: { data: { type: 'account_authentication_settings' } },
        })
      ).status,
    ).toBe(403);
  });

  it('creates, reads, lists, filters, updates and deletes user authentication info', async () => {
    const docs = await post(UAI(), {
      type: 'user_authentication_info',
      name: 'Uma',
      email: 'uma@example.com',
    });
    expect(docs.status).toBe(201);
    expect(docs.body.data).toMatchObject({
      type: 'user_authentication_info',
      name: 'Uma',
      email: 'uma@example.com',
    });
    // The 2026 spec's form.
    const spec = await post(UAI(), { type: 'user_authentication_info', username: 'vic' });
    expect(spec.status).toBe(201);
    expect(spec.body.data).toMatchObject({ username: 'vic', name: null, email: null });

    const read = await service.call('GET', `${UAI()}/${docs.body.data.id}`, { token: admin });
    expect(read.body.data).toEqual(docs.body.data);
    const filtered = await service.call('GET', `${UAI()}?filter=like(email,uma*)`, {
      token: admin,
    });
    expect(filtered.body.data.map((u: { id: string }) => u.id)).toEqual([docs.body.data.id]);
    const put = await service.call('PUT', `${UAI()}/${docs.body.data.id}`, {
      token: admin,
      json: { data: { type: 'user_authentication_info', name: 'Uma U.' } },
    });
    expect(put.body.data).toMatchObject({ name: 'Uma U.', email: 'uma@example.com' });
    // Each is an account member with the same id.
    const member = await service.call('GET', `/v2/account-members/${docs.body.data.id}`, {
      token: admin,
    });
    expect(member.body.data).toEqual({
      id: docs.body.data.id,
      type: 'account_member',
      name: 'Uma U.',
      email: 'uma@example.com',
      links: { self: `/v2/account-members/${docs.body.data.id}` },
      meta: {
        timestamps: {
          created_at: docs.body.data.meta.created_at,
          updated_at: put.body.data.meta.updated_at,
        },
      },
    });
    for (const id of [docs.body.data.id, spec.body.data.id]) {
      expect((await service.call('DELETE', `${UAI()}/${id}`, { token: admin })).status).toBe(204);
      expect(
        (await service.call('GET', `/v2/account-members/${id}`, { token: admin })).status,
      ).toBe(404);
    }
  });

  it('keeps a member’s password out of every answer; usernames are unique per profile', async () => {
    const uai = await post(UAI(), {
      type: 'user_authentication_info',
      name: 'Wes',
      email: 'wes@example.com',
    });
    const infos = `${UAI()}/${uai.body.data.id}/user-authentication-password-profile-info`;
    const created = await post(infos, {
      type: 'user_authentication_password_profile_info',
      username: 'wes@example.com',
      password: 'wes-secret-1',
      password_profile_id: profile,
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      type: 'user_authentication_password_profile_info',
      username: 'wes@example.com',
      password_profile_id: profile,
    });
    expect(JSON.stringify(created.body)).not.toMatch(/password"|wes-secret|scrypt/);
    const list = await service.call('GET', infos, { token: admin });
    expect(list.body.data).toEqual([created.body.data]);
    expect(JSON.stringify(list.body)).not.toMatch(/wes-secret|scrypt/);

    // A second username in the same profile for the same user, or a taken username: 409.
    const again = await post(infos, {
      type: 'user_authentication_password_profile_info',
      username: 'wes2',
      password: 'wes-secret-2',
      password_profile_id: profile,
    });
    expect(again.status).toBe(409);
    const other = await post(UAI(), {
      type: 'user_authentication_info',
      name: 'Xia',
      email: 'xia@example.com',
    });
    const taken = await post(
      `${UAI()}/${other.body.data.id}/user-authentication-password-profile-info`,
      {
        type: 'user_authentication_password_profile_info',
        username: 'WES@example.com',
        password: 'xia-secret-1',
        password_profile_id: profile,
      },
    );
    expect(taken.status).toBe(409);
    expect(errorOf(taken).source).toBe('data.username');

    // A new password works; the old one does not.
    const account = await createAccount('Wes Co');
    expect((await join(account, uai.body.data.id)).status).toBe(201);
    const infoId = created.body.data.id;
    const put = await service.call('PUT', `${infos}/${infoId}`, {
      token: admin,
      json: {
        data: { type: 'user_authentication_password_profile_info', password: 'wes-secret-new' },
      },
    });
    expect(put.status).toBe(200);
    expect((await signIn('wes@example.com', 'wes-secret-1')).status).toBe(401);
    expect((await signIn('wes@example.com', 'wes-secret-new')).status).toBe(201);
    expect((await service.call('DELETE', `${infos}/${infoId}`, { token: admin })).status).toBe(204);
    expect((await signIn('wes@example.com', 'wes-secret-new')).status).toBe(401);
  });

  it('makes more password profiles', async () => {
    const created = await post(`/v2/authentication-realms/${realm}/password-profiles`, {
      type: 'password_profile',
      name: 'Emails only',
      username_format: 'email',
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: 'Emails only', username_format: 'email' });
    const read = await service.call(
      'GET',
      `/v2/authentication-realms/${realm}/password-profiles/${created.body.data.id}`,
      { token: admin },
    );
    expect(read.body.data).toEqual(created.body.data);
    // That profile takes emails only as usernames.
    const uai = await post(UAI(), { type: 'user_authentication_info', username: 'yan' });
    const bad = await post(
      `${UAI()}/${uai.body.data.id}/user-authentication-password-profile-info`,
      {
        type: 'user_authentication_password_profile_info',
        username: 'yan',
        password: 'yan-secret-1',
        password_profile_id: created.body.data.id,
      },
    );
    expect(bad.status).toBe(400);
    expect(errorOf(bad).source).toBe('data.username');
  });
});

describe('account members and memberships', () => {
  let acme: string;
  let beta: string;
  let ada: string;
  let bo: string;

  beforeAll(async () => {
    acme = await createAccount('Acme Corp');
    beta = await createAccount('Beta LLC');
    ada = await createMember('Ada Member', 'ada.member@example.com', 'ada-password');
    now += 1000;
    bo = await createMember('Bo Member', 'bo.member@example.com', 'bo-password');
  });

  it('lists members with paging, sort and filters', async () => {
    const page = await service.call(
      'GET',
      '/v2/account-members?sort=email&filter=like(email,*.member@example.com)&page[limit]=1',
      {
        token: admin,
      },
    );
    expect(page.status).toBe(200);
    expect(page.body.data.map((m: { id: string }) => m.id)).toEqual([ada]);
    expect(page.body.meta.results.total).toBe(2);
    expect(page.body.meta.page).toMatchObject({ limit: 1, offset: 0, current: 1, total: 2 });
    const next = await service.call(
      'GET',
      new URL(page.body.links.next).pathname + new URL(page.body.links.next).search,
      {
        token: admin,
      },
    );
    expect(next.body.data.map((m: { id: string }) => m.id)).toEqual([bo]);
    const byName = await service.call('GET', '/v2/account-members?filter=eq(name,Bo Member)', {
      token: admin,
    });
    expect(byName.body.data.map((m: { id: string }) => m.id)).toEqual([bo]);
    const bad = await service.call('GET', '/v2/account-members?sort=password', { token: admin });
    expect(bad.status).toBe(400);
    expect((await service.call('GET', '/v2/account-members', { token: implicit })).status).toBe(
      403,
    );
  });

  it('adds members to accounts once, lists, includes, reads, updates and removes memberships', async () => {
    const first = await join(acme, ada);
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({
      type: 'account_membership',
      relationships: { account_member: { data: { id: ada, type: 'account_member' } } },
    });
    expect((await join(acme, ada)).status).toBe(409);
    expect((await join(beta, ada)).status).toBe(201);
    expect((await join(beta, bo)).status).toBe(201);
    expect((await join(acme, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await join('00000000-0000-4000-8000-000000000000', ada)).status).toBe(404);

    const list = await service.call(
      'GET',
      `/v2/accounts/${beta}/account-memberships?include=account_member`,
      {
        token: admin,
      },
    );
    expect(list.status).toBe(200);
    expect(list.body.meta.results.total).toBe(2);
    expect(list.body.included.account_members.map((m: { id: string }) => m.id).sort()).toEqual(
      [ada, bo].sort(),
    );
    const filtered = await service.call(
      'GET',
      `/v2/accounts/${beta}/account-memberships?filter=eq(account_member_id,${bo})`,
      {
        token: admin,
      },
    );
    expect(filtered.body.data.map((m: any) => m.relationships.account_member.data.id)).toEqual([
      bo,
    ]);

    const unassigned = await service.call(
      'GET',
      `/v2/accounts/${acme}/account-memberships/unassigned-account-members?filter=like(email,*.member@example.com)`,
      {
        token: admin,
      },
    );
    expect(unassigned.body.data.map((m: { id: string }) => m.id)).toEqual([bo]);
    expect(unassigned.body.meta.results.total).toBe(1);

    const adas = await service.call('GET', `/v2/account-members/${ada}/account-memberships`, {
      token: admin,
    });
    expect(adas.body.data.map((m: any) => m.relationships.account.data.id).sort()).toEqual(
      [acme, beta].sort(),
    );

    const id = first.body.data.id;
    const read = await service.call('GET', `/v2/accounts/${acme}/account-memberships/${id}`, {
      token: admin,
    });
    expect(read.body.data).toEqual(first.body.data);
    now += 1000;
    const put = await service.call('PUT', `/v2/accounts/${acme}/account-memberships/${id}`, {
      token: admin,
      json: { data: { type: 'account_membership' } },
    });
    expect(put.status).toBe(200);
    const moved = await service.call('PUT', `/v2/accounts/${acme}/account-memberships/${id}`, {
      token: admin,
      json: { data: { type: 'account_membership', account_member_id: bo } },
    });
    expect(moved.status).toBe(400);
    // Another account's path does not reach it.
    expect(
      (
        await service.call('GET', `/v2/accounts/${beta}/account-memberships/${id}`, {
          token: admin,
        })
      ).status,
    ).toBe(404);
  });
});

describe('account tokens and what they scope', () => {
  let acme: string;
  let beta: string;
  let ada: string;
  let cy: string;
  let adaAcme: string;
  let adaBeta: string;
  let cyBeta: string;

  beforeAll(async () => {
    acme = await createAccount('Acme Tokens');
    beta = await createAccount('Beta Tokens');
    ada = await createMember('Ada T', 'ada.t@example.com', 'ada-t-password');
    cy = await createMember('Cy T', 'cy.t@example.com', 'cy-t-password');
    await join(acme, ada);
    await join(beta, ada);
    await join(beta, cy);
    const adas = await signIn('ada.t@example.com', 'ada-t-password');
    adaAcme = adas.body.data.find((t: any) => t.account_id === acme).token;
    adaBeta = adas.body.data.find((t: any) => t.account_id === beta).token;
    cyBeta = (await signIn('cy.t@example.com', 'cy-t-password')).body.data[0].token;
  });

  async function cartOf(options: CallOptions, name: string) {
    const cart = await service.call('POST', '/v2/carts', { ...options, json: { data: { name } } });
    expect(cart.status, JSON.stringify(cart.body)).toBe(201);
    const id = cart.body.data.id as string;
    const item = await service.call('POST', `/v2/carts/${id}/items`, {
      ...options,
      json: {
        data: {
          type: 'custom_item',
          name: 'Mug',
          sku: 'MUG',
          quantity: 1,
          price: { amount: 1200 },
        },
      },
    });
    expect(item.status).toBe(201);
    return id;
  }

  it('answers one token per account the member belongs to', async () => {
    const result = await signIn('ADA.T@example.com', 'ada-t-password');
    expect(result.status).toBe(201);
    expect(result.body.meta).toMatchObject({
      account_member_id: ada,
      results: { total: 2 },
      page: { limit: 100, offset: 0, current: 1, total: 1 },
    });
    const tokens = result.body.data as any[];
    expect(tokens.map((t) => t.account_id).sort()).toEqual([acme, beta].sort());
    for (const token of tokens) {
      expect(token).toMatchObject({ type: 'account_management_authentication_token' });
      expect(token.token).toMatch(/^[0-9a-f]{64}$/);
      expect(token.expires).toBe(new Date(now + 24 * 3600 * 1000).toISOString());
    }
    expect(tokens.find((t) => t.account_id === acme).account_name).toBe('Acme Tokens');
    // A client_credentials bearer may sign a member in too.
    expect((await signIn('ada.t@example.com', 'ada-t-password', admin)).status).toBe(201);
  });

  it('answers 401 with one message for a wrong password and an unknown username', async () => {
    const wrong = await signIn('ada.t@example.com', 'not-her-password');
    const unknown = await signIn('nobody@example.com', 'ada-t-password');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(errorOf(wrong).detail).toBe(errorOf(unknown).detail);
    expect(JSON.stringify(wrong.body)).not.toMatch(/not-her-password/);
  });

  it('switches to another of the member’s accounts with the current token', async () => {
    const switched = await service.call('POST', '/v2/account-members/tokens', {
      ...as(adaAcme),
      json: {
        data: {
          type: 'account_management_authentication_token',
          authentication_mechanism: 'account_management_authentication_token',
          account_id: beta,
        },
      },
    });
    expect(switched.status, JSON.stringify(switched.body)).toBe(201);
    expect(switched.body.data).toHaveLength(1);
    expect(switched.body.data[0]).toMatchObject({ account_id: beta, account_name: 'Beta Tokens' });
    const account = await service.call(
      'GET',
      `/v2/accounts/${beta}`,
      as(switched.body.data[0].token),
    );
    expect(account.status).toBe(200);
    // Cy is not in Acme: no token for it.
    const refused = await service.call('POST', '/v2/account-members/tokens', {
      ...as(cyBeta),
      json: {
        data: {
          type: 'account_management_authentication_token',
          authentication_mechanism: 'account_management_authentication_token',
          account_id: acme,
        },
      },
    });
    expect(refused.status).toBe(404);
    // Without the current token, switching is not signing in.
    const bare = await post(
      '/v2/account-members/tokens',
      {
        type: 'account_management_authentication_token',
        authentication_mechanism: 'account_management_authentication_token',
        account_id: acme,
      },
      implicit,
    );
    expect(bare.status).toBe(401);
  });

  it('refuses an unknown, another store’s or an expired token, and a customer token beside it', async () => {
    expect((await service.call('GET', '/v2/carts', as('f'.repeat(64)))).status).toBe(401);
    const betaImplicit = await service.token('beta', 'implicit');
    expect((await service.call('GET', '/v2/carts', as(adaAcme, betaImplicit))).status).toBe(401);
    const both = await service.call('GET', '/v2/carts', {
      token: implicit,
      headers: {
        'ep-account-management-authentication-token': adaAcme,
        'x-moltin-customer-token': await customerToken(),
      },
    });
    expect(both.status).toBe(400);
    expect(errorOf(both).detail).toMatch(/not both/);
    const fresh = (await signIn('cy.t@example.com', 'cy-t-password')).body.data[0].token;
    now += 24 * 3600 * 1000 + 1;
    // The bearer tokens expired too (one hour): fresh ones.
    admin = await service.token('alpha');
    implicit = await service.token('alpha', 'implicit');
    expect((await service.call('GET', '/v2/carts', as(fresh))).status).toBe(401);
    // Signing in again works; the tokens used below are re-issued.
    const adas = await signIn('ada.t@example.com', 'ada-t-password');
    adaAcme = adas.body.data.find((t: any) => t.account_id === acme).token;
    adaBeta = adas.body.data.find((t: any) => t.account_id === beta).token;
    cyBeta = (await signIn('cy.t@example.com', 'cy-t-password')).body.data[0].token;
  });

  async function customerToken() {
    await post('/v2/customers', {
      type: 'customer',
      name: 'Zed',
      email: 'zed@example.com',
      password: 'zed-password',
    });
    const signed = await post(
      '/v2/customers/tokens',
      { type: 'token', email: 'zed@example.com', password: 'zed-password' },
      implicit,
    );
    return signed.body.data.token as string;
  }

  it('keeps each account’s carts and orders to itself, and checks out for the account', async () => {
    const acmeCart = await cartOf(as(adaAcme), 'Acme cart');
    const created = await service.call('GET', `/v2/carts/${acmeCart}`, as(adaAcme));
    expect(created.body.data.relationships.accounts).toEqual({
      data: [{ type: 'account', id: acme }],
    });
    const betaCart = await cartOf(as(cyBeta), 'Beta cart');

    // Listed under their own account only.
    const acmeCarts = await service.call('GET', '/v2/carts', as(adaAcme));
    expect(acmeCarts.body.data.map((c: { id: string }) => c.id)).toEqual([acmeCart]);
    const betaCarts = await service.call('GET', '/v2/carts', as(adaBeta));
    expect(betaCarts.body.data.map((c: { id: string }) => c.id)).toEqual([betaCart]);
    // Another account's cart does not exist for them, nor for a guest.
    for (const options of [as(cyBeta), as(adaBeta), { token: implicit }]) {
      expect((await service.call('GET', `/v2/carts/${acmeCart}`, options)).status).toBe(404);
      expect((await service.call('DELETE', `/v2/carts/${acmeCart}`, options)).status).toBe(404);
    }
    // A guest cart is anyone's who holds its id, as with customer tokens.
    const guest = await cartOf({ token: implicit }, 'guest');
    expect((await service.call('GET', `/v2/carts/${guest}`, as(adaAcme))).status).toBe(200);

    // Checkout: production's body, and the SDK's (contact only).
    const order = await service.call('POST', `/v2/carts/${acmeCart}/checkout`, {
      ...as(adaAcme),
      json: {
        data: {
          account: { id: acme, member_id: ada },
          contact: { name: 'Ada T', email: 'ada.t@example.com' },
          billing_address: ADDRESS,
          shipping_address: ADDRESS,
        },
      },
    });
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    expect(order.body.data.relationships).toMatchObject({
      account: { data: { type: 'account', id: acme } },
      account_member: { data: { type: 'account_member', id: ada } },
    });
    expect(order.body.data.contact).toEqual({ name: 'Ada T', email: 'ada.t@example.com' });
    const betaOrder = await service.call('POST', `/v2/carts/${betaCart}/checkout`, {
      ...as(cyBeta),
      json: {
        data: { customer: { name: 'Cy T', email: 'cy.t@example.com' }, billing_address: ADDRESS },
      },
    });
    expect(betaOrder.status, JSON.stringify(betaOrder.body)).toBe(201);
    // Naming another account is refused.
    const other = await cartOf(as(adaAcme), 'Acme again');
    const wrongAccount = await service.call('POST', `/v2/carts/${other}/checkout`, {
      ...as(adaAcme),
      json: {
        data: {
          account: { id: beta },
          contact: { name: 'A', email: 'a@example.com' },
          billing_address: ADDRESS,
        },
      },
    });
    expect(wrongAccount.status).toBe(403);
    // An account in the body without the member's token is refused too.
    const noToken = await service.call('POST', `/v2/carts/${guest}/checkout`, {
      token: implicit,
      json: {
        data: {
          account: { id: acme, member_id: ada },
          customer: { name: 'G', email: 'g@example.com' },
          billing_address: ADDRESS,
        },
      },
    });
    expect(noToken.status).toBe(403);

    // Orders: each account sees its own; the other's is a 404.
    const acmeOrders = await service.call('GET', '/v2/orders', as(adaAcme));
    expect(acmeOrders.body.data.map((o: { id: string }) => o.id)).toEqual([order.body.data.id]);
    const betaOrders = await service.call('GET', '/v2/orders', as(adaBeta));
    expect(betaOrders.body.data.map((o: { id: string }) => o.id)).toEqual([betaOrder.body.data.id]);
    expect(
      (await service.call('GET', `/v2/orders/${order.body.data.id}`, as(adaAcme))).status,
    ).toBe(200);
    expect((await service.call('GET', `/v2/orders/${order.body.data.id}`, as(cyBeta))).status).toBe(
      404,
    );
    // Paying: the account's own order only.
    const pay = { data: { gateway: 'manual', method: 'purchase' } };
    const payOther = await service.call('POST', `/v2/orders/${betaOrder.body.data.id}/payments`, {
      ...as(adaAcme),
      json: pay,
    });
    expect(payOther.status).toBe(404);
    const payOwn = await service.call('POST', `/v2/orders/${order.body.data.id}/payments`, {
      ...as(adaAcme),
      json: pay,
    });
    expect(payOwn.status, JSON.stringify(payOwn.body)).toBeLessThan(300);
    // The implicit token alone still reads no orders.
    expect((await service.call('GET', '/v2/orders', { token: implicit })).status).toBe(403);
    // The store's token sees all, and filters by account.
    const byAccount = await service.call('GET', `/v2/orders?filter=eq(account_id,${acme})`, {
      token: admin,
    });
    expect(byAccount.body.data.map((o: { id: string }) => o.id)).toEqual([order.body.data.id]);
    expect(byAccount.body.meta.results.total).toBe(1);

    // The account itself: its own only.
    expect((await service.call('GET', `/v2/accounts/${acme}`, as(adaAcme))).status).toBe(200);
    expect((await service.call('GET', `/v2/accounts/${beta}`, as(adaAcme))).status).toBe(404);
    // The lists: the token's account and member alone (how a token learns whom it is for).
    const accounts = await service.call('GET', '/v2/accounts', as(adaAcme));
    expect(accounts.body.data.map((a: { id: string }) => a.id)).toEqual([acme]);
    expect(accounts.body.meta.results.total).toBe(1);
    const members = await service.call('GET', '/v2/account-members', as(adaAcme));
    expect(members.body.data.map((m: { id: string }) => m.id)).toEqual([ada]);
    // The member's own record, not another's.
    expect((await service.call('GET', `/v2/account-members/${ada}`, as(adaAcme))).status).toBe(200);
    expect((await service.call('GET', `/v2/account-members/${cy}`, as(adaAcme))).status).toBe(404);
  });

  it('gives an account the catalog its rule names (account_ids)', async () => {
    const hierarchy = (
      await post('/pcm/hierarchies', { type: 'hierarchy', attributes: { name: 'H' } })
    ).body.data.id;
    const catalog = async (name: string) => {
      const id = (
        await post('/catalogs', {
          type: 'catalog',
          attributes: { name, hierarchy_ids: [hierarchy] },
        })
      ).body.data.id as string;
      expect(
        (await service.call('POST', `/catalogs/${id}/releases`, { token: admin })).status,
      ).toBe(201);
      return id;
    };
    const everyone = await catalog('everyone');
    const acmes = await catalog('acme-only');
    const rule = await post('/catalogs/rules', {
      type: 'catalog_rule',
      attributes: { name: 'acme', catalog_id: acmes, account_ids: [acme] },
    });
    expect(rule.status).toBe(201);
    const resolved = async (options: CallOptions) =>
      (await service.call('GET', '/catalog', options)).body.data.attributes.catalog_id;
    expect(await resolved(as(adaAcme))).toBe(acmes);
    expect(await resolved(as(adaBeta))).toBe(everyone);
    expect(await resolved({ token: implicit })).toBe(everyone);
  });

  it('ends memberships and tokens with the account, leaving no dangling rows', async () => {
    const gone = await createAccount('Gone Inc');
    const membership = await join(gone, cy);
    expect(membership.status).toBe(201);
    const token = (await signIn('cy.t@example.com', 'cy-t-password')).body.data.find(
      (t: any) => t.account_id === gone,
    ).token;
    expect((await service.call('GET', '/v2/carts', as(token))).status).toBe(200);
    const goneCart = await cartOf(as(token), 'Gone cart');
    expect((await service.call('DELETE', `/v2/accounts/${gone}`, { token: admin })).status).toBe(
      204,
    );
    // Its carts went with it (an order would stay).
    expect((await service.call('GET', `/v2/carts/${goneCart}`, { token: admin })).status).toBe(404);
    const cys = await service.call('GET', `/v2/account-members/${cy}/account-memberships`, {
      token: admin,
    });
    expect(cys.body.data.map((m: any) => m.relationships.account.data.id)).not.toContain(gone);
    expect((await service.call('GET', '/v2/carts', as(token))).status).toBe(401);
    // Leaving an account ends the token for it.
    const betaMembership = (
      await service.call(
        'GET',
        `/v2/accounts/${beta}/account-memberships?filter=eq(account_member_id,${cy})`,
        {
          token: admin,
        },
      )
    ).body.data[0].id;
    expect(
      (
        await service.call('DELETE', `/v2/accounts/${beta}/account-memberships/${betaMembership}`, {
          token: admin,
        })
      ).status,
    ).toBe(204);
    expect((await service.call('GET', '/v2/carts', as(cyBeta))).status).toBe(401);
    const none = await signIn('cy.t@example.com', 'cy-t-password');
    expect(none.status).toBe(201);
    expect(none.body.data).toEqual([]);
  });
});
