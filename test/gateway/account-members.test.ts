/**
 * B2B buyers through the gateway: an account member of the demo store signs in by password
 * (`createAccountMemberToken`, with the implicit token only), acts for one of their accounts with
 * its EP-Account-Management-Authentication-Token (`viewer`, a cart, a checkout, the account's
 * orders), and never sees another account's; 1,000 interleaved requests of two members never
 * cross. The merchandiser's side: members, memberships and the realm's records as connections,
 * and membership writes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';
import { type Json, userError } from './fixtures.ts';

let stack: Stack;
let implicit: string;
let admin: string;
let profileId: string;
const ACCOUNT_HEADER = 'ep-account-management-authentication-token';

beforeAll(async () => {
  stack = await startStack({ seed: true });
  implicit = await stack.implicitToken();
  admin = await stack.token();
  const settings = await stack.graphql(
    '{ accountAuthentication { realmId passwordProfiles { upstreamId name } } }',
    {},
    { token: admin },
  );
  expect(settings.body.errors).toBeUndefined();
  profileId = settings.body.data.accountAuthentication.passwordProfiles[0].upstreamId;
});
afterAll(() => stack?.close());

async function as(
  accountToken: string | null,
  query: string,
  variables?: Record<string, unknown>,
): Promise<Json> {
  const { body } = await stack.graphql(query, variables, {
    token: implicit,
    headers: accountToken ? { [ACCOUNT_HEADER]: accountToken } : {},
  });
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

const SIGN_IN = `mutation($input: CreateAccountMemberTokenInput!) {
  createAccountMemberToken(input: $input) { accountMemberId tokens { accountId accountName token expiresAt }
    userErrors { code field message } } }`;

async function signIn(username: string, password: string): Promise<Json> {
  return (await as(null, SIGN_IN, { input: { passwordProfileId: profileId, username, password } }))
    .createAccountMemberToken;
}

const tokenFor = (signedIn: Json, accountName: string): string =>
  signedIn.tokens.find((t: Json) => t.accountName === accountName).token;

const VIEWER = `{ viewer { customer { upstreamId } accountMember { upstreamId email }
  account { upstreamId name }
  orders(first: 50) { totalCount nodes { upstreamId accountId accountMemberId } }
  carts(first: 50) { totalCount nodes { upstreamId } } } }`;

/** A cart for the account, one custom item, checked out: the order's id. */
async function orderFor(accountToken: string, name: string): Promise<string> {
  const cart = (
    await as(
      accountToken,
      'mutation($input: CreateCartInput!) { createCart(input: $input) { cart { upstreamId } } }',
      { input: { name } },
    )
  ).createCart.cart.upstreamId;
  await as(
    accountToken,
    `mutation($input: AddCartCustomItemInput!) { addCartCustomItem(input: $input) { cart { upstreamId } } }`,
    {
      input: {
        cartId: cart,
        name: 'Pallet',
        sku: 'PAL-1',
        quantity: 1,
        price: { amount: 9900, includesTax: true },
      },
    },
  );
  const order = (
    await as(
      accountToken,
      `mutation($input: CheckoutCartInput!) { checkoutCart(input: $input) { order { upstreamId accountId } } }`,
      {
        input: {
          cartId: cart,
          billingAddress: {
            firstName: 'Ada',
            lastName: 'Buyer',
            line1: '1 Dock Road',
            region: 'London',
            postcode: 'E1 1AA',
            country: 'GB',
          },
        },
      },
    )
  ).checkoutCart.order;
  return order.upstreamId;
}

let ada: Json;
let bo: Json;

describe('an account member signs in and acts for an account', () => {
  it('signs in by password with the implicit token: one token per account', async () => {
    ada = await signIn('ada@example.com', 'ada-password');
    expect(ada.tokens.map((t: Json) => t.accountName).sort()).toEqual(['Acme Corp', 'Beta LLC']);
    expect(Date.parse(ada.tokens[0].expiresAt)).toBeGreaterThan(Date.now());
    bo = await signIn('bo@example.com', 'bo-password');
    expect(bo.tokens.map((t: Json) => t.accountName)).toEqual(['Beta LLC']);
  });

  it('refuses a wrong password as it refuses an unknown member, without saying which', async () => {
    const answers = [];
    for (const [username, password] of [
      ['ada@example.com', 'not-her-password'],
      ['nobody@example.com', 'ada-password'],
    ]) {
      const { body } = await stack.graphql(
        SIGN_IN,
        { input: { passwordProfileId: profileId, username, password } },
        { token: implicit },
      );
      expect(body.errors[0].extensions.code).toBe('INVALID_CREDENTIALS');
      expect(JSON.stringify(body)).not.toContain('not-her-password');
      answers.push(body.errors[0].message);
    }
    expect(answers[0]).toBe(answers[1]);
  });

  it('judges the credentials before any call', async () => {
    const before = stack.upstreamRequests.length;
    for (const [input, field] of [
      [{ passwordProfileId: 'nope', username: 'a', password: 'b' }, 'input.passwordProfileId'],
      [{ passwordProfileId: profileId, username: ' ', password: 'b' }, 'input.username'],
      [{ passwordProfileId: profileId, username: 'a', password: '' }, 'input.password'],
      [
        { passwordProfileId: profileId, username: 'a', password: 'x'.repeat(1025) },
        'input.password',
      ],
    ] as const) {
      const { body } = await stack.graphql(SIGN_IN, { input }, { token: implicit });
      expect(userError(body, 'createAccountMemberToken')).toMatchObject({
        code: 'BAD_USER_INPUT',
        field,
      });
    }
    expect(stack.upstreamRequests.length).toBe(before);
  });

  it('is the viewer for the token’s account: cart, checkout, the account’s orders', async () => {
    const acme = tokenFor(ada, 'Acme Corp');
    const empty = (await as(acme, VIEWER)).viewer;
    expect(empty.customer).toBeNull();
    expect(empty.accountMember.email).toBe('ada@example.com');
    expect(empty.account.name).toBe('Acme Corp');

    const orderId = await orderFor(acme, 'Acme restock');
    const viewer = (await as(acme, VIEWER)).viewer;
    expect(viewer.orders.nodes.map((o: Json) => o.upstreamId)).toContain(orderId);
    for (const order of viewer.orders.nodes) {
      expect(order.accountId).toBe(viewer.account.upstreamId);
    }
    expect(viewer.carts.totalCount).toBeGreaterThan(0);

    // The same member acting for Beta LLC sees none of Acme's.
    const asBeta = (await as(tokenFor(ada, 'Beta LLC'), VIEWER)).viewer;
    expect(asBeta.account.name).toBe('Beta LLC');
    expect(asBeta.orders.nodes.map((o: Json) => o.upstreamId)).not.toContain(orderId);
    // Bo (Beta only) neither; Acme's order by id is not there for him.
    const boViewer = (await as(tokenFor(bo, 'Beta LLC'), VIEWER)).viewer;
    expect(boViewer.accountMember.email).toBe('bo@example.com');
    expect(boViewer.orders.nodes.map((o: Json) => o.upstreamId)).not.toContain(orderId);
    const probe = await stack.graphql(
      'query($id: ID!) { order(id: $id) { upstreamId } }',
      { id: orderId },
      { token: implicit, headers: { [ACCOUNT_HEADER]: tokenFor(bo, 'Beta LLC') } },
    );
    expect(probe.body.data?.order ?? null).toBeNull();
    // Without the account token the implicit token is a guest: no viewer, no orders.
    expect((await as(null, '{ viewer { customer { upstreamId } } }')).viewer).toBeNull();
  });

  it('1,000 interleaved requests of two members never cross', async () => {
    const acme = tokenFor(ada, 'Acme Corp');
    const beta = tokenFor(bo, 'Beta LLC');
    await orderFor(beta, 'Beta restock');
    const own = async (token: string) => {
      const viewer = (await as(token, VIEWER)).viewer;
      return {
        account: viewer.account.upstreamId as string,
        member: viewer.accountMember.upstreamId as string,
        orders: new Set<string>(viewer.orders.nodes.map((o: Json) => o.upstreamId)),
        carts: new Set<string>(viewer.carts.nodes.map((c: Json) => c.upstreamId)),
      };
    };
    const expected = new Map([
      [acme, await own(acme)],
      [beta, await own(beta)],
    ]);
    expect(expected.get(acme)?.account).not.toBe(expected.get(beta)?.account);
    const crossings: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < 1000) {
        const i = next++;
        const token = i % 2 === 0 ? acme : beta;
        const mine = expected.get(token);
        const { body } = await stack.graphql(VIEWER, undefined, {
          token: implicit,
          headers: { [ACCOUNT_HEADER]: token },
        });
        const viewer = body.data?.viewer;
        if (body.errors || !viewer || !mine) {
          crossings.push(`${i}: ${JSON.stringify(body.errors)}`);
          continue;
        }
        if (viewer.account.upstreamId !== mine.account) crossings.push(`${i}: account`);
        if (viewer.accountMember.upstreamId !== mine.member) crossings.push(`${i}: member`);
        for (const order of viewer.orders.nodes) {
          if (!mine.orders.has(order.upstreamId)) crossings.push(`${i}: order ${order.upstreamId}`);
        }
        for (const cart of viewer.carts.nodes) {
          if (!mine.carts.has(cart.upstreamId)) crossings.push(`${i}: cart ${cart.upstreamId}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    expect(crossings).toEqual([]);
  }, 120_000);
});

describe('the merchandiser’s members and memberships', () => {
  it('lists members, an account’s memberships and the realm’s records as connections', async () => {
    const { body } = await stack.graphql(
      `query($realm: ID!) {
        accountMembers(first: 10) { totalCount edges { node { upstreamId email } } }
        accounts(first: 10) { nodes { name memberships(first: 10) { totalCount nodes { accountMember { email } } } } }
        userAuthenticationInfos(realmId: $realm, first: 10) { totalCount nodes { email } }
      }`,
      { realm: await realmId() },
      { token: admin },
    );
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    const emails = body.data.accountMembers.edges.map((e: Json) => e.node.email);
    expect(emails).toEqual(expect.arrayContaining(['ada@example.com', 'bo@example.com']));
    const beta = body.data.accounts.nodes.find((a: Json) => a.name === 'Beta LLC');
    expect(beta.memberships.nodes.map((m: Json) => m.accountMember.email).sort()).toEqual([
      'ada@example.com',
      'bo@example.com',
    ]);
    expect(body.data.userAuthenticationInfos.totalCount).toBe(body.data.accountMembers.totalCount);
  });

  it('adds a member to an account once, then removes them', async () => {
    const acme = (await as(tokenFor(ada, 'Acme Corp'), VIEWER)).viewer.account.upstreamId;
    const boId = bo.accountMemberId;
    const add = () =>
      stack.graphql(
        `mutation($input: CreateAccountMembershipInput!) { createAccountMembership(input: $input) {
          membership { upstreamId accountId accountMemberId accountMember { email } }
          userErrors { code field message } } }`,
        { input: { accountId: acme, accountMemberId: boId } },
        { token: admin },
      );
    const added = await add();
    expect(added.body.errors).toBeUndefined();
    const membership = added.body.data.createAccountMembership.membership;
    expect(membership).toMatchObject({
      accountId: acme,
      accountMember: { email: 'bo@example.com' },
    });
    const again = await add();
    expect(userError(again.body, 'createAccountMembership')?.code).toBe('CONFLICT');
    // Bo now signs in to both accounts…
    expect((await signIn('bo@example.com', 'bo-password')).tokens).toHaveLength(2);
    const removed = await stack.graphql(
      `mutation($input: DeleteAccountMembershipInput!) { deleteAccountMembership(input: $input) { deletedId } }`,
      { input: { accountId: acme, membershipId: membership.upstreamId } },
      { token: admin },
    );
    expect(removed.body.data.deleteAccountMembership.deletedId).toBe(membership.upstreamId);
    // …and to Beta alone again.
    expect((await signIn('bo@example.com', 'bo-password')).tokens).toHaveLength(1);
  });

  it('keeps the merchandiser’s lists from an implicit token', async () => {
    const { body } = await stack.graphql('{ accountMembers(first: 1) { totalCount } }', undefined, {
      token: implicit,
    });
    expect(body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

async function realmId(): Promise<string> {
  const settings = await stack.graphql(
    '{ accountAuthentication { realmId } }',
    {},
    { token: admin },
  );
  return settings.body.data.accountAuthentication.realmId;
}
