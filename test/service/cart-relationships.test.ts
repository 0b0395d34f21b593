/**
 * A cart's customer and account (issue 30, item 10): the cart shows its owner as production's
 * cart does (`relationships.customers` / `relationships.accounts`, `{data:[{type, id}]}`), and
 * the association routes the reference storefront calls after sign-in
 * (`POST /v2/carts/{id}/relationships/accounts` with a bare list) attach a guest cart to its
 * owner, answer 204 when it already is, refuse a second owner, and detach it again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CallOptions,
  errorOf,
  type ServiceUnderTest,
  startService,
} from './service-helpers.ts';

let service: ServiceUnderTest;
let implicit: string;
let ann: { id: string; token: string };
let bob: { id: string; token: string };
let acme: string;
let acmeToken: string;

async function customer(name: string, email: string) {
  const made = await service.call('POST', '/v2/customers', {
    json: { data: { type: 'customer', name, email, password: `${name}-pass-1` } },
  });
  const signedIn = await service.call('POST', '/v2/customers/tokens', {
    token: implicit,
    json: { data: { type: 'token', email, password: `${name}-pass-1` } },
  });
  return { id: made.body.data.id as string, token: signedIn.body.data.token as string };
}

beforeAll(async () => {
  service = await startService();
  implicit = await service.token('alpha', 'implicit');
  ann = await customer('ann', 'ann@example.com');
  bob = await customer('bob', 'bob@example.com');
  // An account with a member signed in: the account token.
  const settings = await service.call('GET', '/v2/settings/account-authentication');
  const realm = settings.body.data.relationships.authentication_realm.data.id;
  const profiles = await service.call(
    'GET',
    `/v2/authentication-realms/${realm}/password-profiles`,
  );
  const profile = profiles.body.data[0].id;
  const uai = `/v2/authentication-realms/${realm}/user-authentication-info`;
  const info = await service.call('POST', uai, {
    json: { data: { type: 'user_authentication_info', name: 'Ada', email: 'ada@example.com' } },
  });
  await service.call(
    'POST',
    `${uai}/${info.body.data.id}/user-authentication-password-profile-info`,
    {
      json: {
        data: {
          type: 'user_authentication_password_profile_info',
          username: 'ada@example.com',
          password: 'ada-pass-1',
          password_profile_id: profile,
        },
      },
    },
  );
  const account = await service.call('POST', '/v2/accounts', {
    json: { data: { type: 'account', name: 'Acme' } },
  });
  acme = account.body.data.id;
  await service.call('POST', `/v2/accounts/${acme}/account-memberships`, {
    json: { data: { type: 'account_membership', account_member_id: info.body.data.id } },
  });
  const tokens = await service.call('POST', '/v2/account-members/tokens', {
    token: implicit,
    json: {
      data: {
        type: 'account_management_authentication_token',
        authentication_mechanism: 'password',
        password_profile_id: profile,
        username: 'ada@example.com',
        password: 'ada-pass-1',
      },
    },
  });
  acmeToken = tokens.body.data[0].token;
});
afterAll(() => service?.close());

const asCustomer = (who: { token: string }): CallOptions => ({
  token: implicit,
  headers: { 'x-moltin-customer-token': who.token },
});
const asAccount = (): CallOptions => ({
  token: implicit,
  headers: { 'ep-account-management-authentication-token': acmeToken },
});

async function newCart(options: CallOptions = { token: implicit }): Promise<string> {
  const made = await service.call('POST', '/v2/carts', {
    ...options,
    json: { data: { name: 'c' } },
  });
  expect(made.status).toBe(201);
  return made.body.data.id;
}

const relate = (
  method: 'POST' | 'DELETE',
  cartId: string,
  kind: 'customers' | 'accounts',
  json: unknown,
  options: CallOptions,
) => service.call(method, `/v2/carts/${cartId}/relationships/${kind}`, { ...options, json });

describe('a cart’s owner', () => {
  it('is shown as production shows it, and a guest cart shows none', async () => {
    const guest = await service.call('GET', `/v2/carts/${await newCart()}`, { token: implicit });
    expect(guest.body.data.relationships.customers).toBeUndefined();
    expect(guest.body.data.relationships.accounts).toBeUndefined();
    const anns = await service.call(
      'GET',
      `/v2/carts/${await newCart(asCustomer(ann))}`,
      asCustomer(ann),
    );
    expect(anns.body.data.relationships.customers).toEqual({
      data: [{ type: 'customer', id: ann.id }],
    });
    const acmes = await service.call('GET', `/v2/carts/${await newCart(asAccount())}`, asAccount());
    expect(acmes.body.data.relationships.accounts).toEqual({
      data: [{ type: 'account', id: acme }],
    });
  });

  it('the storefront’s sign-in: an account cart is associated again (204), a guest cart attached', async () => {
    // The storefront creates the account's cart with the account token, then associates it.
    const cartId = await newCart(asAccount());
    const again = await relate(
      'POST',
      cartId,
      'accounts',
      [{ type: 'account', id: acme }],
      asAccount(),
    );
    expect(again.status).toBe(204);
    // A guest cart becomes the account's, and only the account's.
    const guest = await newCart();
    const attached = await relate(
      'POST',
      guest,
      'accounts',
      { data: [{ type: 'account', id: acme }] },
      asAccount(),
    );
    expect([attached.status, attached.body]).toEqual([
      200,
      { data: [{ type: 'account', id: acme }] },
    ]);
    const listed = await service.call('GET', '/v2/carts', asAccount());
    expect(listed.body.data.map((c: { id: string }) => c.id)).toContain(guest);
    expect((await service.call('GET', `/v2/carts/${guest}`, { token: implicit })).status).toBe(404);
    // Detached, it is a guest cart again.
    const detached = await relate(
      'DELETE',
      guest,
      'accounts',
      [{ type: 'account', id: acme }],
      asAccount(),
    );
    expect(detached.status).toBe(204);
    const read = await service.call('GET', `/v2/carts/${guest}`, { token: implicit });
    expect([read.status, read.body.data.relationships.accounts]).toEqual([200, undefined]);
  });

  it('a customer attaches a guest cart to themself only, and a cart has one owner', async () => {
    const guest = await newCart();
    const toBob = await relate(
      'POST',
      guest,
      'customers',
      [{ type: 'customer', id: bob.id }],
      asCustomer(ann),
    );
    expect(toBob.status).toBe(403);
    const toAnn = await relate(
      'POST',
      guest,
      'customers',
      [{ type: 'customer', id: ann.id }],
      asCustomer(ann),
    );
    expect(toAnn.status).toBe(200);
    const read = await service.call('GET', `/v2/carts/${guest}`, asCustomer(ann));
    expect(read.body.data.relationships.customers).toEqual({
      data: [{ type: 'customer', id: ann.id }],
    });
    // Bob cannot see it; the store cannot give it a second customer, nor an account.
    expect((await service.call('GET', `/v2/carts/${guest}`, asCustomer(bob))).status).toBe(404);
    const second = await relate('POST', guest, 'customers', [{ type: 'customer', id: bob.id }], {});
    expect(second.status).toBe(403);
    const account = await relate('POST', guest, 'accounts', [{ type: 'account', id: acme }], {});
    expect(account.status).toBe(403);
    // The store's token may attach any of the store's customers to a guest cart.
    const byStore = await relate(
      'POST',
      await newCart(),
      'customers',
      [{ type: 'customer', id: bob.id }],
      {},
    );
    expect(byStore.status).toBe(200);
  });

  it('judges the body and the token', async () => {
    const cartId = await newCart();
    const cases: [unknown, number, string | undefined][] = [
      [{ type: 'customer', id: ann.id }, 400, 'data'],
      [[], 400, 'data'],
      [
        [
          { type: 'customer', id: ann.id },
          { type: 'customer', id: bob.id },
        ],
        403,
        undefined,
      ],
      [[{ type: 'account', id: ann.id }], 400, 'data[0].type'],
      [[{ type: 'customer', id: 'ann' }], 400, 'data[0].id'],
      [[{ type: 'customer', id: ann.id, name: 'x' }], 400, 'data[0].name'],
      [['x'], 400, 'data[0]'],
    ];
    for (const [json, status, source] of cases) {
      const result = await relate('POST', cartId, 'customers', json, asCustomer(ann));
      expect([result.status, errorOf(result).source], JSON.stringify(json)).toEqual([
        status,
        source,
      ]);
    }
    const unknown = '00000000-0000-4000-8000-000000000000';
    const noSuch = await relate(
      'POST',
      cartId,
      'customers',
      [{ type: 'customer', id: unknown }],
      {},
    );
    expect([noSuch.status, errorOf(noSuch).source]).toEqual([400, 'data[0].id']);
    // A guest's token may not associate anything; an account token may not take a customer.
    const guest = await relate('POST', cartId, 'customers', [{ type: 'customer', id: ann.id }], {
      token: implicit,
    });
    expect(guest.status).toBe(403);
    const crossed = await relate(
      'POST',
      cartId,
      'customers',
      [{ type: 'customer', id: ann.id }],
      asAccount(),
    );
    expect(crossed.status).toBe(403);
    expect((await service.call('GET', `/v2/carts/${cartId}`, { token: implicit })).status).toBe(
      200,
    );
  });
});
