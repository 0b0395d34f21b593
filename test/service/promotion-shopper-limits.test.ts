/**
 * A code's per-shopper limit (`max_uses_per_shopper`) counts one shopper once, however they
 * check out (issue 28, finding 7): a use signed in counts when the same person checks out as a
 * guest with their email, and the other way round; emails compare trimmed and in any case; an
 * account member's uses count by member and by email. A guest is judged at checkout (its cart has
 * no email before), a signed-in customer when the code is applied too, and a refused checkout
 * writes nothing: no order, no usage, no use taken.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CallOptions,
  errorOf,
  type ServiceUnderTest,
  startService,
} from './service-helpers.ts';

let service: ServiceUnderTest;
let admin: string;
let implicit: string;
beforeAll(async () => {
  service = await startService();
  admin = await service.token('alpha');
  implicit = await service.token('alpha', 'implicit');
});
afterAll(() => service?.close());

const WINDOW = { start: '2020-01-01T00:00:00Z', end: '2099-01-01T00:00:00Z' };
const ADDRESS = {
  first_name: 'Ada',
  last_name: 'L',
  line_1: '1 Way',
  region: 'X',
  postcode: '1',
  country: 'GB',
};

async function created(method: string, path: string, options: CallOptions) {
  const result = await service.call(method, path, options);
  expect(result.status, `${method} ${path} ${JSON.stringify(result.body)}`).toBe(201);
  return result.body.data;
}

/** A code taking 100 off any cart, with `limits` as its max_uses_per_shopper. */
async function codeWith(code: string, limits: Record<string, unknown>, uses?: number) {
  const promo = await created('POST', '/v2/rule-promotions', {
    token: admin,
    json: {
      data: {
        name: `promo ${code}`,
        enabled: true,
        ...WINDOW,
        rule_set: { actions: [{ strategy: 'cart_discount', args: ['fixed', 100] }] },
      },
    },
  });
  const codes = [{ code, max_uses_per_shopper: limits, ...(uses ? { uses } : {}) }];
  await created('POST', `/v2/rule-promotions/${promo.id}/codes`, {
    token: admin,
    json: { data: { type: 'promotion_codes', codes } },
  });
  return promo.id as string;
}

async function customer(email: string) {
  await created('POST', '/v2/customers', {
    token: admin,
    json: { data: { type: 'customer', name: 'Shopper', email, password: 'correct horse' } },
  });
  const signedIn = await service.call('POST', '/v2/customers/tokens', {
    token: implicit,
    json: { data: { type: 'token', email, password: 'correct horse' } },
  });
  expect(signedIn.status).toBe(200);
  return signedIn.body.data.token as string;
}

/** Who shops: a customer's token, an account member's token, or a guest (neither). */
type Who = { customer?: string; member?: string };

function as(who: Who): CallOptions {
  const headers: Record<string, string> = {};
  if (who.customer) headers['x-moltin-customer-token'] = who.customer;
  if (who.member) headers['ep-account-management-authentication-token'] = who.member;
  return { token: admin, headers };
}

/** A cart of the shopper's with one item of 1000; the code applied (its answer returned). */
async function cartWithCode(who: Who, code: string) {
  const cart = await created('POST', '/v2/carts', { ...as(who), json: { data: { name: 'c' } } });
  await created('POST', `/v2/carts/${cart.id}/items`, {
    ...as(who),
    json: {
      data: { type: 'custom_item', name: 'Mug', sku: 'MUG', quantity: 1, price: { amount: 1000 } },
    },
  });
  const applied = await service.call('POST', `/v2/carts/${cart.id}/items`, {
    ...as(who),
    json: { data: { type: 'promotion_item', code } },
  });
  return { cartId: cart.id as string, applied };
}

function checkout(cartId: string, who: Who, email?: string) {
  const data: Record<string, unknown> = { billing_address: ADDRESS };
  if (who.member) data.contact = { name: 'Member', email: email ?? 'contact@example.com' };
  else if (!who.customer) data.customer = { name: 'Guest', email };
  return service.call('POST', `/v2/carts/${cartId}/checkout`, { ...as(who), json: { data } });
}

/** What a refused checkout must leave as it was. */
async function ledger(promoId: string) {
  const orders = await service.call('GET', '/v2/orders?page[limit]=1', { token: admin });
  const usages = await service.call('GET', `/v2/rule-promotions/${promoId}/usages`, {
    token: admin,
  });
  const codes = await service.call('GET', `/v2/rule-promotions/${promoId}/codes`, {
    token: admin,
  });
  return {
    orders: orders.body.meta.results.total,
    usages: usages.body.data.length,
    uses: codes.body.data[0].uses,
  };
}

describe('a per-shopper limit counts the same person signed in and as a guest', () => {
  it('refuses a guest with the email of a customer who used the code, without writing', async () => {
    const promoId = await codeWith('ONCEEACH', { max_uses: 1, includes_guests: true }, 10);
    const ada = await customer('ada@example.com');

    const first = await cartWithCode({ customer: ada }, 'onceeach');
    expect(first.applied.status).toBe(201);
    const placed = await checkout(first.cartId, { customer: ada });
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    expect(placed.body.data.meta.display_price.with_tax.amount).toBe(900);

    // Signed in again: refused when applied, as before.
    const again = await cartWithCode({ customer: ada }, 'onceeach');
    expect(again.applied.status).toBe(422);
    expect(errorOf(again.applied).detail).toContain('no uses left');

    // Signed out, the same email in another case: the guest cart takes the code (it has no
    // email yet), and checkout refuses it, writing nothing.
    const guest = await cartWithCode({}, 'ONCEEACH');
    expect(guest.applied.status).toBe(201);
    const before = await ledger(promoId);
    const refused = await checkout(guest.cartId, {}, 'ADA@Example.COM');
    expect(refused.status).toBe(422);
    expect(errorOf(refused).detail).toContain('"ONCEEACH" has no uses left for this shopper');
    expect(await ledger(promoId)).toEqual(before);
    expect(before).toEqual({ orders: before.orders, usages: 1, uses: 9 });

    // Another guest email is another shopper.
    expect((await checkout(guest.cartId, {}, 'grace@example.com')).status).toBe(201);
  });

  it('refuses a customer whose email a guest already used the code with', async () => {
    await codeWith('GUESTFIRST', { max_uses: 1, includes_guests: true });
    const guest = await cartWithCode({}, 'GUESTFIRST');
    expect((await checkout(guest.cartId, {}, 'Bob@Example.com')).status).toBe(201);

    // Bob signs up afterwards with that email: the guest's use is his.
    const bob = await customer('bob@example.com');
    const signedIn = await cartWithCode({ customer: bob }, 'guestfirst');
    expect(signedIn.applied.status).toBe(422);
    expect(errorOf(signedIn.applied).detail).toContain('no uses left for this shopper');
  });

  it('keeps a code whose limit excludes guests for signed-in shoppers', async () => {
    const promoId = await codeWith('MEMBERSONLY', { max_uses: 1, includes_guests: false });
    const guest = await cartWithCode({}, 'MEMBERSONLY');
    const before = await ledger(promoId);
    const refused = await checkout(guest.cartId, {}, 'carol@example.com');
    expect(refused.status).toBe(422);
    expect(errorOf(refused).detail).toContain('signed-in shoppers only');
    expect(await ledger(promoId)).toEqual(before);

    const carol = await customer('carol@example.com');
    const signedIn = await cartWithCode({ customer: carol }, 'MEMBERSONLY');
    expect((await checkout(signedIn.cartId, { customer: carol })).status).toBe(201);
  });

  it('counts an account member by member and by email', async () => {
    await codeWith('ACCOUNTONCE', { max_uses: 1, includes_guests: true });
    const member = await accountMemberToken('dora@example.com');

    const first = await cartWithCode({ member }, 'ACCOUNTONCE');
    expect(first.applied.status).toBe(201);
    expect((await checkout(first.cartId, { member }, 'buyer@example.com')).status).toBe(201);

    // The same member, another contact email: still the same shopper.
    const again = await cartWithCode({ member }, 'ACCOUNTONCE');
    const refused = await checkout(again.cartId, { member }, 'other@example.com');
    expect(refused.status).toBe(422);
    expect(errorOf(refused).detail).toContain('no uses left for this shopper');

    // A guest with the member's own email, or with the email the member ordered under.
    for (const email of ['dora@example.com', 'BUYER@example.com']) {
      const guest = await cartWithCode({}, 'ACCOUNTONCE');
      expect((await checkout(guest.cartId, {}, email)).status, email).toBe(422);
    }
  });
});

/** An account member (of a new account) signed in by password; their account token. */
async function accountMemberToken(email: string) {
  const settings = await service.call('GET', '/v2/settings/account-authentication', {
    token: admin,
  });
  const realm = settings.body.data.relationships.authentication_realm.data.id;
  const profiles = await service.call(
    'GET',
    `/v2/authentication-realms/${realm}/password-profiles`,
    { token: admin },
  );
  const profile = profiles.body.data[0].id;
  const account = await created('POST', '/v2/accounts', {
    token: admin,
    json: { data: { type: 'account', name: `Account of ${email}` } },
  });
  const member = await created(
    'POST',
    `/v2/authentication-realms/${realm}/user-authentication-info`,
    { token: admin, json: { data: { type: 'user_authentication_info', name: 'M', email } } },
  );
  await created(
    'POST',
    `/v2/authentication-realms/${realm}/user-authentication-info/${member.id}/user-authentication-password-profile-info`,
    {
      token: admin,
      json: {
        data: {
          type: 'user_authentication_password_profile_info',
          username: email,
          password: 'member-secret-1',
          password_profile_id: profile,
        },
      },
    },
  );
  await created('POST', `/v2/accounts/${account.id}/account-memberships`, {
    token: admin,
    json: { data: { type: 'account_membership', account_member_id: member.id } },
  });
  const tokens = await service.call('POST', '/v2/account-members/tokens', {
    token: implicit,
    json: {
      data: {
        type: 'account_management_authentication_token',
        authentication_mechanism: 'password',
        password_profile_id: profile,
        username: email,
        password: 'member-secret-1',
      },
    },
  });
  expect(tokens.status, JSON.stringify(tokens.body)).toBe(201);
  return tokens.body.data[0].token as string;
}
