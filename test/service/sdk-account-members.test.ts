/**
 * The official `@elasticpath/js-sdk`, unchanged, against the embedded service's account members:
 * AccountAuthenticationSettings, PasswordProfile, UserAuthenticationInfo,
 * UserAuthenticationPasswordProfile, AccountMembers (All, Get, GenerateAccountToken),
 * AccountMemberships (Create, All, Get, Delete, AllOnAccountMember), then a storefront's journey
 * under the implicit token with the member's EP-Account-Management-Authentication-Token (set as
 * the SDK's extra header): an account cart, CheckoutWithAccountManagementToken, and the orders
 * of that account only. Every request is recorded, so the forms the SDK sends are asserted.
 */
import { gateway, MemoryStorageFactory } from '@elasticpath/js-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TEST_CLIENTS, type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
// Untyped, as a JavaScript storefront calls it (the SDK's typings demand members it sets).
let admin: any;
let storefront: any;
const sent: { method: string; path: string; headers: Record<string, string> }[] = [];

function sdkFor(secret: string | undefined, headers?: Record<string, string>): any {
  const url = new URL(service.url);
  return gateway({
    client_id: DEFAULT_TEST_CLIENTS[0]?.id,
    ...(secret === undefined ? {} : { client_secret: secret }),
    host: url.host,
    protocol: 'http',
    storage: new MemoryStorageFactory(),
    ...(headers ? { headers } : {}),
    custom_fetch: async (input: string, init: RequestInit) => {
      sent.push({
        method: init.method ?? 'GET',
        path: String(input).slice(service.url.length),
        headers: { ...(init.headers as Record<string, string>) },
      });
      return fetch(input, init);
    },
  } as never);
}

const ADDRESS = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  line_1: '1 Analytical Row',
  region: 'London',
  postcode: 'N1 1AA',
  country: 'GB',
};

beforeAll(async () => {
  service = await startService();
  admin = sdkFor(DEFAULT_TEST_CLIENTS[0]?.secret);
  storefront = sdkFor(undefined);
});
afterAll(() => service?.close());

describe('@elasticpath/js-sdk account members', () => {
  let realm: string;
  let profile: string;
  let acme: string;
  let beta: string;
  let ada: string;
  let bo: string;

  it('sets up members through the realm, the password profile and memberships', async () => {
    const settings = await admin.AccountAuthenticationSettings.Get();
    expect(settings.data.type).toBe('account_authentication_settings');
    realm = settings.data.relationships.authentication_realm.data.id;

    const profiles = await admin.PasswordProfile.All(realm);
    expect(profiles.data.map((p: { name: string }) => p.name)).toEqual(['Username & password']);
    profile = profiles.data[0].id;
    const extra = await admin.PasswordProfile.Create(realm, {
      data: { type: 'password_profile', name: 'Partners', username_format: 'any' },
    });
    expect(
      (await admin.PasswordProfile.Get({ realmId: realm, profileId: extra.data.id })).data,
    ).toEqual(extra.data);

    acme = (await admin.Accounts.Create({ type: 'account', name: 'Acme Corp' })).data.id;
    beta = (await admin.Accounts.Create({ type: 'account', name: 'Beta LLC' })).data.id;

    const members: Record<string, string> = {};
    for (const [who, email] of [
      ['Ada', 'ada@example.com'],
      ['Bo', 'bo@example.com'],
    ]) {
      const uai = await admin.UserAuthenticationInfo.Create(realm, {
        data: { type: 'user_authentication_info', name: who, email },
      });
      const id = uai.data.id as string;
      members[who as string] = id;
      const info = await admin.UserAuthenticationPasswordProfile.Create(realm, id, {
        data: {
          type: 'user_authentication_password_profile_info',
          username: email,
          password: `${String(who).toLowerCase()}-password`,
          password_profile_id: profile,
        },
      });
      expect(info.data).toMatchObject({ username: email, password_profile_id: profile });
      expect(JSON.stringify(info)).not.toMatch(/-password"/);
      const infos = await admin.UserAuthenticationPasswordProfile.All(realm, id);
      expect(infos.data.map((i: { id: string }) => i.id)).toEqual([info.data.id]);
      expect(
        (await admin.UserAuthenticationPasswordProfile.Get(realm, id, info.data.id)).data,
      ).toEqual(info.data);
    }
    ada = members.Ada as string;
    bo = members.Bo as string;
    expect((await admin.UserAuthenticationInfo.Get(realm, ada)).data.email).toBe('ada@example.com');
    expect((await admin.UserAuthenticationInfo.All(realm)).data).toHaveLength(2);

    const adaAcme = await admin.AccountMemberships.Create(acme, {
      type: 'account_membership',
      account_member_id: ada,
    });
    expect(adaAcme.data.relationships.account_member.data).toEqual({
      id: ada,
      type: 'account_member',
    });
    await admin.AccountMemberships.Create(beta, {
      type: 'account_membership',
      account_member_id: ada,
    });
    const boBeta = await admin.AccountMemberships.Create(beta, {
      type: 'account_membership',
      account_member_id: bo,
    });

    const list = await admin.AccountMemberships.With('account_member').All(beta);
    expect(list.data).toHaveLength(2);
    expect(list.included.account_members.map((m: { email: string }) => m.email).sort()).toEqual([
      'ada@example.com',
      'bo@example.com',
    ]);
    expect((await admin.AccountMemberships.Get(beta, boBeta.data.id)).data.id).toBe(boBeta.data.id);
    const adas = await admin.AccountMemberships.AllOnAccountMember(ada);
    expect(adas.data.map((m: any) => m.relationships.account.data.id).sort()).toEqual(
      [acme, beta].sort(),
    );
    const unassigned = await admin.AccountMembers.UnassignedAccountMembers(acme);
    expect(unassigned.data.map((m: { id: string }) => m.id)).toEqual([bo]);

    const all = await admin.AccountMembers.Filter({ eq: { email: 'bo@example.com' } }).All();
    expect(all.data.map((m: { id: string }) => m.id)).toEqual([bo]);
    const one = await admin.AccountMembers.Get(ada);
    expect(one.data).toMatchObject({ id: ada, type: 'account_member', name: 'Ada' });

    // Remove and re-add: Delete answers 204.
    await admin.AccountMemberships.Delete(beta, boBeta.data.id);
    expect((await admin.AccountMemberships.All(beta)).data).toHaveLength(1);
    await admin.AccountMemberships.Create(beta, {
      type: 'account_membership',
      account_member_id: bo,
    });
  });

  it('signs a member in, and shops and reads orders for one account', async () => {
    const signedIn = await storefront.AccountMembers.GenerateAccountToken({
      type: 'account_management_authentication_token',
      authentication_mechanism: 'password',
      password_profile_id: profile,
      username: 'ada@example.com',
      password: 'ada-password',
    });
    expect(signedIn.meta.account_member_id).toBe(ada);
    expect(signedIn.data.map((t: { account_name: string }) => t.account_name).sort()).toEqual([
      'Acme Corp',
      'Beta LLC',
    ]);
    const acmeToken = signedIn.data.find((t: any) => t.account_id === acme).token as string;
    const boToken = (
      await storefront.AccountMembers.GenerateAccountToken({
        type: 'account_management_authentication_token',
        authentication_mechanism: 'password',
        password_profile_id: profile,
        username: 'bo@example.com',
        password: 'bo-password',
      })
    ).data[0].token as string;

    // A storefront sends the member's token on every call (the SDK's `headers` option).
    const asAda = sdkFor(undefined, { 'EP-Account-Management-Authentication-Token': acmeToken });
    const asBo = sdkFor(undefined, { 'EP-Account-Management-Authentication-Token': boToken });
    const cart = await asAda.Cart().CreateCart({ name: 'Acme order' });
    expect(cart.data.relationships.accounts.data).toEqual([{ type: 'account', id: acme }]);
    await asAda.Cart(cart.data.id).AddCustomItem({
      name: 'Paper',
      sku: 'PAPER',
      quantity: 3,
      price: { amount: 500 },
    });
    expect((await asAda.Cart().GetCartsList()).data.map((c: { id: string }) => c.id)).toEqual([
      cart.data.id,
    ]);
    // Bo's account (Beta) does not see Acme's cart.
    await expect(asBo.Cart(cart.data.id).Get()).rejects.toBeDefined();

    const order = await storefront
      .Cart(cart.data.id)
      .CheckoutWithAccountManagementToken(
        { name: 'Ada', email: 'ada@example.com' },
        ADDRESS,
        ADDRESS,
        acmeToken,
      );
    expect(order.data.relationships.account.data).toEqual({ type: 'account', id: acme });
    expect(order.data.relationships.account_member.data).toEqual({
      type: 'account_member',
      id: ada,
    });
    const checkout = sent.find((r) => r.path === `/v2/carts/${cart.data.id}/checkout`);
    expect(checkout?.headers['EP-Account-Management-Authentication-Token']).toBe(acmeToken);

    const orders = await asAda.Orders.All();
    expect(orders.data.map((o: { id: string }) => o.id)).toEqual([order.data.id]);
    expect((await asAda.Orders.Get(order.data.id)).data.id).toBe(order.data.id);
    expect((await asBo.Orders.All()).data).toEqual([]);
    await expect(asBo.Orders.Get(order.data.id)).rejects.toBeDefined();
    // The store's token sees it with the rest.
    const store = await admin.Orders.All();
    expect(store.data.map((o: { id: string }) => o.id)).toContain(order.data.id);
    // Without the member's token, the storefront's implicit token reads no orders.
    await expect(storefront.Orders.All()).rejects.toBeDefined();
  });
});
