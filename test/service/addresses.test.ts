/**
 * Address books (issue 30, item 3): an account member keeps the account's addresses with the
 * reference storefront's own calls (`@epcc-sdk/sdks-shopper`'s getV2AccountAddresses,
 * postV2AccountAddress, putV2AccountAddress, deleteV2AccountAddress, under the implicit token
 * and the account token), a customer keeps theirs with the customer token, nobody reaches
 * another's book, every body is judged with a 400 that names the field, and a book goes with
 * its owner.
 */
import {
  createClient,
  deleteV2AccountAddress,
  getV2AccountAddress,
  getV2AccountAddresses,
  postV2AccountAddress,
  putV2AccountAddress,
} from '@epcc-sdk/sdks-shopper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
let acme: string;
let other: string;
let memberToken: string;
let implicit: string;

const HOME = {
  type: 'address',
  name: 'Home',
  first_name: 'Ada',
  last_name: 'Lovelace',
  line_1: '1 Analytical Row',
  city: 'London',
  county: 'Greater London',
  postcode: 'N1 1AA',
  country: 'gb',
};

async function made(path: string, body: unknown, headers: Record<string, string> = {}) {
  const result = await service.call('POST', path, { json: body, headers });
  if (result.status !== 201 && result.status !== 200) {
    throw new Error(`${path}: ${result.status} ${JSON.stringify(result.body)}`);
  }
  return result.body;
}

beforeAll(async () => {
  service = await startService();
  implicit = await service.token('alpha', 'implicit');
  acme = (await made('/v2/accounts', { data: { type: 'account', name: 'Acme' } })).data.id;
  other = (await made('/v2/accounts', { data: { type: 'account', name: 'Other' } })).data.id;
  const realm = (await service.call('GET', '/v2/settings/account-authentication')).body.data
    .relationships.authentication_realm.data.id;
  const profile = (
    await service.call('GET', `/v2/authentication-realms/${realm}/password-profiles`)
  ).body.data[0].id;
  const uai = `/v2/authentication-realms/${realm}/user-authentication-info`;
  const member = (
    await made(uai, {
      data: { type: 'user_authentication_info', name: 'Ada', email: 'ada@example.com' },
    })
  ).data.id;
  await made(`${uai}/${member}/user-authentication-password-profile-info`, {
    data: {
      type: 'user_authentication_password_profile_info',
      username: 'ada@example.com',
      password: 'ada-password',
      password_profile_id: profile,
    },
  });
  await made(`/v2/accounts/${acme}/account-memberships`, {
    data: { type: 'account_membership', account_member_id: member },
  });
  const tokens = await service.call('POST', '/v2/account-members/tokens', {
    token: implicit,
    json: {
      data: {
        type: 'account_management_authentication_token',
        authentication_mechanism: 'password',
        password_profile_id: profile,
        username: 'ada@example.com',
        password: 'ada-password',
      },
    },
  });
  memberToken = tokens.body.data[0].token;
});
afterAll(() => service?.close());

describe('an account member’s address book, with the storefront’s own calls', () => {
  it('creates, lists, reads, updates and deletes the account’s addresses', async () => {
    const client = createClient({
      baseUrl: service.url,
      headers: {
        Authorization: `Bearer ${implicit}`,
        'EP-Account-Management-Authentication-Token': memberToken,
      },
    } as never);
    const created = await postV2AccountAddress({
      client,
      path: { accountID: acme },
      body: { data: HOME as never },
    });
    expect(created.response.status).toBe(201);
    const address = (created.data as any).data;
    expect(address).toMatchObject({
      type: 'address',
      name: 'Home',
      first_name: 'Ada',
      line_1: '1 Analytical Row',
      country: 'GB',
      relationships: { account: { data: { id: acme, type: 'account' } } },
      links: { self: `/v2/accounts/${acme}/addresses/${address.id}` },
    });
    expect(address.meta.timestamps.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    const list = await getV2AccountAddresses({ client, path: { accountID: acme } });
    expect((list.data as any).data.map((a: { id: string }) => a.id)).toEqual([address.id]);
    expect((list.data as any).meta.results.total).toBe(1);

    const updated = await putV2AccountAddress({
      client,
      path: { accountID: acme, addressID: address.id },
      body: { data: { type: 'address', line_2: 'Flat 2', instructions: 'Ring twice' } as never },
    });
    expect(updated.response.status).toBe(200);
    expect((updated.data as any).data).toMatchObject({
      line_1: '1 Analytical Row',
      line_2: 'Flat 2',
      instructions: 'Ring twice',
    });
    const read = await getV2AccountAddress({
      client,
      path: { accountID: acme, addressID: address.id },
    });
    expect((read.data as any).data.line_2).toBe('Flat 2');

    const deleted = await deleteV2AccountAddress({
      client,
      path: { accountID: acme, addressID: address.id },
    });
    expect(deleted.response.status).toBe(204);
    const gone = await getV2AccountAddresses({ client, path: { accountID: acme } });
    expect((gone.data as any).data).toEqual([]);
  });

  it('does not reach another account’s book, nor any book without the account token', async () => {
    const theirs = (await made(`/v2/accounts/${other}/addresses`, { data: HOME })).data.id;
    const asMember = {
      token: implicit,
      headers: { 'ep-account-management-authentication-token': memberToken },
    };
    for (const [method, path] of [
      ['GET', `/v2/accounts/${other}/addresses`],
      ['GET', `/v2/accounts/${other}/addresses/${theirs}`],
      ['PUT', `/v2/accounts/${other}/addresses/${theirs}`],
      ['DELETE', `/v2/accounts/${other}/addresses/${theirs}`],
      ['POST', `/v2/accounts/${other}/addresses`],
    ] as const) {
      const result = await service.call(method, path, {
        ...asMember,
        ...(method === 'PUT' || method === 'POST' ? { json: { data: HOME } } : {}),
      });
      expect(result.status, `${method} ${path}`).toBe(404);
    }
    // A guest's implicit token alone reaches no account's book.
    const guest = await service.call('GET', `/v2/accounts/${acme}/addresses`, { token: implicit });
    expect(guest.status).toBe(403);
    // The other account's address is untouched.
    const still = await service.call('GET', `/v2/accounts/${other}/addresses/${theirs}`);
    expect(still.body.data.name).toBe('Home');
  });
});

describe('a customer’s address book', () => {
  it('is theirs with the customer token, and nobody else’s', async () => {
    const ids: Record<string, string> = {};
    const tokens: Record<string, string> = {};
    for (const who of ['ann', 'bob']) {
      ids[who] = (
        await made('/v2/customers', {
          data: { type: 'customer', name: who, email: `${who}@example.com`, password: 'pw-123456' },
        })
      ).data.id;
      tokens[who] = (
        await made(
          '/v2/customers/tokens',
          { data: { type: 'token', email: `${who}@example.com`, password: 'pw-123456' } },
          { authorization: `Bearer ${implicit}` },
        )
      ).data.token;
    }
    const as = (who: string) => ({
      token: implicit,
      headers: { 'x-moltin-customer-token': tokens[who] ?? '' },
    });
    const created = await service.call('POST', `/v2/customers/${ids.ann}/addresses`, {
      ...as('ann'),
      json: { data: { ...HOME, name: 'Work' } },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.relationships).toEqual({
      customer: { data: { id: ids.ann, type: 'customer' } },
    });
    const id = created.body.data.id;
    const filtered = await service.call(
      'GET',
      `/v2/customers/${ids.ann}/addresses?filter=eq(name,Work)`,
      as('ann'),
    );
    expect(filtered.body.data.map((a: { id: string }) => a.id)).toEqual([id]);
    const none = await service.call(
      'GET',
      `/v2/customers/${ids.ann}/addresses?filter=eq(name,Home)`,
      as('ann'),
    );
    expect(none.body.data).toEqual([]);
    // Bob reaches neither Ann's book nor her address; the store's token reaches both.
    expect(
      (await service.call('GET', `/v2/customers/${ids.ann}/addresses`, as('bob'))).status,
    ).toBe(404);
    expect(
      (await service.call('GET', `/v2/customers/${ids.ann}/addresses/${id}`, as('bob'))).status,
    ).toBe(404);
    expect((await service.call('GET', `/v2/customers/${ids.ann}/addresses/${id}`)).status).toBe(
      200,
    );
    // An address is its owner's alone: Ann's id under Bob's book is not found.
    expect((await service.call('GET', `/v2/customers/${ids.bob}/addresses/${id}`)).status).toBe(
      404,
    );

    // Deleting the customer deletes their addresses.
    expect((await service.call('DELETE', `/v2/customers/${ids.ann}`)).status).toBe(204);
    const after = await service.call('GET', `/v2/customers/${ids.ann}/addresses/${id}`);
    expect(after.status).toBe(404);
  });
});

describe('bad address bodies', () => {
  const cases: [string, unknown, RegExp, string][] = [
    ['no data', {}, /data/, 'data'],
    ['wrong type', { data: { ...HOME, type: 'customer' } }, /address/, 'data.type'],
    [
      'missing line_1',
      { data: { ...HOME, line_1: undefined } },
      /line_1 is required/,
      'data.line_1',
    ],
    [
      'blank last_name',
      { data: { ...HOME, last_name: '  ' } },
      /must not be empty/,
      'data.last_name',
    ],
    [
      'country name',
      { data: { ...HOME, country: 'Britain' } },
      /two-letter ISO 3166/,
      'data.country',
    ],
    ['number city', { data: { ...HOME, city: 7 } }, /must be a string/, 'data.city'],
    ['long line_2', { data: { ...HOME, line_2: 'x'.repeat(256) } }, /at most 255/, 'data.line_2'],
    ['unknown key', { data: { ...HOME, floor: 3 } }, /Unknown attribute "floor"/, 'data.floor'],
  ];
  for (const [what, body, detail, source] of cases) {
    it(`refuses ${what} with a 400 naming ${source}, writing nothing`, async () => {
      const result = await service.call('POST', `/v2/accounts/${other}/addresses`, { json: body });
      expect(result.status).toBe(400);
      expect(result.body.errors[0].detail).toMatch(detail);
      expect(result.body.errors[0].source).toBe(source);
    });
  }

  it('refuses to clear a required attribute, and keeps the address as it was', async () => {
    const id = (await made(`/v2/accounts/${other}/addresses`, { data: HOME })).data.id;
    const result = await service.call('PUT', `/v2/accounts/${other}/addresses/${id}`, {
      json: { data: { type: 'address', line_1: null, city: 'Paris' } },
    });
    expect(result.status).toBe(400);
    expect(result.body.errors[0].detail).toMatch(/data.line_1 cannot be removed/);
    const kept = await service.call('GET', `/v2/accounts/${other}/addresses/${id}`);
    expect(kept.body.data).toMatchObject({ line_1: '1 Analytical Row', city: 'London' });
    // null clears an optional attribute.
    const cleared = await service.call('PUT', `/v2/accounts/${other}/addresses/${id}`, {
      json: { data: { county: null } },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data.county).toBeUndefined();
  });

  it('answers 404 for an address id that is not a uuid or not there', async () => {
    for (const id of ['nope', '00000000-0000-4000-8000-000000000000']) {
      const result = await service.call('GET', `/v2/accounts/${other}/addresses/${id}`);
      expect(result.status).toBe(404);
    }
    const noAccount = await service.call(
      'GET',
      '/v2/accounts/00000000-0000-4000-8000-000000000000/addresses',
    );
    expect(noAccount.status).toBe(404);
  });
});
