/**
 * A shopper's account through the gateway only, with the storefront's implicit token (issue 31,
 * item 5): self sign-up answers the member's token, the member keeps an address book on their
 * account (create, update, clear a field, delete), renames their account, and checks out with
 * an address of the book by id; an id the book does not hold is a NOT_FOUND user error and
 * nothing is checked out. A customer's book is the same under `Customer.addresses`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';
import { type Json, rest } from './fixtures.ts';

let stack: Stack;
let implicit: string;
let admin: string;
/** What a storefront keeps in its configuration (read once with the store's token). */
let profileId: string;
const ACCOUNT_HEADER = 'ep-account-management-authentication-token';

beforeAll(async () => {
  stack = await startStack({ seed: true });
  implicit = await stack.implicitToken();
  admin = await stack.token();
  const { body } = await stack.graphql(
    '{ accountAuthentication { passwordProfiles { upstreamId } } }',
    {},
    { token: admin },
  );
  profileId = body.data.accountAuthentication.passwordProfiles[0].upstreamId;
});
afterAll(() => stack?.close());

async function call(
  query: string,
  variables: Record<string, unknown>,
  headers: Record<string, string> = {},
  token: string = implicit,
): Promise<Json> {
  const { body } = await stack.graphql(query, variables, { token, headers });
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

const SIGN_UP = `mutation($input: SignUpAccountMemberInput!) { signUpAccountMember(input: $input) {
  accountMemberId tokens { accountId accountName token expiresAt } userErrors { code field message } } }`;

const ADDRESS_FIELDS = 'upstreamId name firstName lastName line1 line2 city postcode country';

const CREATE = `mutation($input: CreateAddressInput!) { createAddress(input: $input) {
  address { ${ADDRESS_FIELDS} } userErrors { code field message } } }`;
const UPDATE = `mutation($input: UpdateAddressInput!) { updateAddress(input: $input) {
  address { ${ADDRESS_FIELDS} } userErrors { code field message } } }`;
const DELETE = `mutation($input: DeleteAddressInput!) { deleteAddress(input: $input) {
  deletedId userErrors { code field message } } }`;
const BOOK = `{ viewer { account { upstreamId name legalName addresses { ${ADDRESS_FIELDS} } } } }`;

describe('a shopper signs up, keeps addresses and checks out with one', () => {
  let member: Record<string, string>;
  let accountId: string;
  let home: string;

  it('signs up with the implicit token and gets a token for their new account', async () => {
    const data = await call(SIGN_UP, {
      input: {
        email: 'grace@example.com',
        password: 'grace-password',
        name: 'Grace Hopper',
        passwordProfileId: profileId,
      },
    });
    const answer = data.signUpAccountMember;
    expect(answer.userErrors).toEqual([]);
    expect(answer.accountMemberId).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.tokens).toHaveLength(1);
    expect(answer.tokens[0].token).toMatch(/^[0-9a-f]{64}$/);
    accountId = answer.tokens[0].accountId;
    member = { [ACCOUNT_HEADER]: answer.tokens[0].token };
    const viewer = await call(BOOK, {}, member);
    expect(viewer.viewer.account).toMatchObject({ upstreamId: accountId, addresses: [] });
  });

  it('signing up again with the same email is a CONFLICT at input.email', async () => {
    const data = await call(SIGN_UP, {
      input: {
        email: 'grace@example.com',
        password: 'another-password',
        name: 'Grace',
        passwordProfileId: profileId,
      },
    });
    expect(data.signUpAccountMember.tokens).toBeNull();
    expect(data.signUpAccountMember.userErrors).toMatchObject([
      { code: 'CONFLICT', field: ['input', 'email'] },
    ]);
  });

  it('without a profile: the realm’s first with a store token; a user error with an implicit one', async () => {
    const before = stack.upstreamRequests.length;
    const implicitly = await call(SIGN_UP, {
      input: { email: 'linus@example.com', password: 'linus-password', name: 'Linus' },
    });
    expect(implicitly.signUpAccountMember).toMatchObject({
      tokens: null,
      userErrors: [{ code: 'BAD_USER_INPUT', field: ['input', 'passwordProfileId'] }],
    });
    // Two reads (settings, profiles), no write.
    expect(stack.upstreamRequests.slice(before).map((r) => r.method)).toEqual(['GET', 'GET']);
    const byStore = await call(
      SIGN_UP,
      { input: { email: 'linus@example.com', password: 'linus-password', name: 'Linus' } },
      {},
      admin,
    );
    expect(byStore.signUpAccountMember.userErrors).toEqual([]);
    expect(byStore.signUpAccountMember.tokens).toHaveLength(1);
    // The new member signs in to the default profile.
    const signIn = await call(
      `mutation($input: CreateAccountMemberTokenInput!) { createAccountMemberToken(input: $input) {
        tokens { accountName } userErrors { code } } }`,
      {
        input: {
          passwordProfileId: profileId,
          username: 'linus@example.com',
          password: 'linus-password',
        },
      },
    );
    expect(signIn.createAccountMemberToken.tokens).toHaveLength(1);
  });

  it('refuses a short password and a bad email before any call', async () => {
    const before = stack.upstreamRequests.length;
    const data = await call(SIGN_UP, {
      input: { email: 'not-an-email', password: 'grace-password', name: 'G' },
    });
    expect(data.signUpAccountMember.userErrors).toMatchObject([
      { code: 'BAD_USER_INPUT', field: ['input', 'email'] },
    ]);
    const short = await call(SIGN_UP, {
      input: { email: 'g2@example.com', password: 'short', name: 'G' },
    });
    expect(short.signUpAccountMember.userErrors).toMatchObject([
      { code: 'BAD_USER_INPUT', field: ['input', 'password'] },
    ]);
    expect(stack.upstreamRequests.length).toBe(before);
  });

  it('adds two addresses, changes one, clears a field and deletes the other', async () => {
    const created = await call(
      CREATE,
      {
        input: {
          accountId,
          name: 'Home',
          firstName: 'Grace',
          lastName: 'Hopper',
          line1: '1 Navy Yard',
          city: 'Arlington',
          postcode: '22202',
          country: 'us',
        },
      },
      member,
    );
    expect(created.createAddress.userErrors).toEqual([]);
    expect(created.createAddress.address).toMatchObject({ name: 'Home', country: 'US' });
    home = created.createAddress.address.upstreamId;

    const office = (
      await call(
        CREATE,
        {
          input: {
            accountId,
            firstName: 'Grace',
            lastName: 'Hopper',
            line1: '2 Office Park',
            country: 'US',
          },
        },
        member,
      )
    ).createAddress.address.upstreamId;

    const updated = await call(
      UPDATE,
      { input: { accountId, addressId: home, line2: 'Building 4', city: null } },
      member,
    );
    expect(updated.updateAddress.userErrors).toEqual([]);
    expect(updated.updateAddress.address).toMatchObject({
      line1: '1 Navy Yard',
      line2: 'Building 4',
      city: null,
    });

    const deleted = await call(DELETE, { input: { accountId, addressId: office } }, member);
    expect(deleted.deleteAddress).toEqual({ deletedId: office, userErrors: [] });
    const book = await call(BOOK, {}, member);
    expect(book.viewer.account.addresses.map((a: Json) => a.upstreamId)).toEqual([home]);

    const again = await call(DELETE, { input: { accountId, addressId: office } }, member);
    expect(again.deleteAddress.userErrors).toMatchObject([
      { code: 'NOT_FOUND', field: ['input', 'addressId'] },
    ]);
  });

  it('judges the owner and the fields before any call', async () => {
    const before = stack.upstreamRequests.length;
    const both = await call(
      CREATE,
      {
        input: {
          accountId,
          customerId: accountId,
          firstName: 'G',
          lastName: 'H',
          line1: 'x',
          country: 'US',
        },
      },
      member,
    );
    expect(both.createAddress.userErrors).toMatchObject([
      { code: 'BAD_USER_INPUT', field: ['input', 'accountId'] },
    ]);
    const country = await call(
      CREATE,
      { input: { accountId, firstName: 'G', lastName: 'H', line1: 'x', country: 'USA' } },
      member,
    );
    expect(country.createAddress.userErrors).toMatchObject([
      { code: 'BAD_USER_INPUT', field: ['input', 'country'] },
    ]);
    const cleared = await call(
      UPDATE,
      { input: { accountId, addressId: home, line1: null } },
      member,
    );
    expect(cleared.updateAddress.userErrors).toMatchObject([
      { code: 'BAD_USER_INPUT', field: ['input', 'line1'] },
    ]);
    expect(stack.upstreamRequests.length).toBe(before);
  });

  it('renames the account with the member’s own token', async () => {
    const data = await call(
      `mutation($input: UpdateAccountInput!) { updateAccount(input: $input) {
        account { upstreamId name legalName } userErrors { code field message } } }`,
      { input: { accountId, name: 'Hopper & Co', legalName: 'Hopper and Company Ltd' } },
      member,
    );
    expect(data.updateAccount).toEqual({
      account: { upstreamId: accountId, name: 'Hopper & Co', legalName: 'Hopper and Company Ltd' },
      userErrors: [],
    });
    const viewer = await call(BOOK, {}, member);
    expect(viewer.viewer.account.name).toBe('Hopper & Co');
  });

  it('checks out with the billing address of the book, by id', async () => {
    const cartId = (
      await call(
        'mutation { createCart(input: { name: "Grace" }) { cart { upstreamId } } }',
        {},
        member,
      )
    ).createCart.cart.upstreamId;
    await call(
      `mutation($input: AddCartCustomItemInput!) { addCartCustomItem(input: $input) { cart { upstreamId } } }`,
      {
        input: {
          cartId,
          name: 'Compiler',
          sku: 'A-0',
          quantity: 1,
          price: { amount: 1000 },
        },
      },
      member,
    );
    const CHECKOUT = `mutation($input: CheckoutCartInput!) { checkoutCart(input: $input) {
      order { upstreamId accountId customerName } userErrors { code field message } } }`;

    const before = stack.upstreamRequests.length;
    const missing = await call(
      CHECKOUT,
      { input: { cartId, billingAddressId: '00000000-0000-4000-8000-000000000000' } },
      member,
    );
    expect(missing.checkoutCart).toMatchObject({
      order: null,
      userErrors: [{ code: 'NOT_FOUND', field: ['input', 'billingAddressId'] }],
    });
    // The book was read; no checkout was attempted.
    const calls = stack.upstreamRequests.slice(before);
    expect(calls.some((r) => r.url.includes('/checkout'))).toBe(false);

    // The book's address has no region, which an order needs: said before any checkout.
    const incomplete = await call(CHECKOUT, { input: { cartId, billingAddressId: home } }, member);
    expect(incomplete.checkoutCart.userErrors).toMatchObject([
      { code: 'BAD_USER_INPUT', field: ['input', 'billingAddressId'] },
    ]);
    expect(incomplete.checkoutCart.userErrors[0].message).toContain('region');
    expect(stack.upstreamRequests.slice(before).some((r) => r.url.includes('/checkout'))).toBe(
      false,
    );
    await call(UPDATE, { input: { accountId, addressId: home, region: 'VA' } }, member);

    const done = await call(CHECKOUT, { input: { cartId, billingAddressId: home } }, member);
    expect(done.checkoutCart.userErrors).toEqual([]);
    expect(done.checkoutCart.order.accountId).toBe(accountId);
    const order = await rest(stack, 'GET', `/orders/${done.checkoutCart.order.upstreamId}`);
    expect(order.body.data.billing_address).toMatchObject({
      first_name: 'Grace',
      last_name: 'Hopper',
      line_1: '1 Navy Yard',
      line_2: 'Building 4',
      region: 'VA',
      postcode: '22202',
      country: 'US',
    });
    expect(order.body.data.billing_address.city).toBeUndefined();
  });

  it('refuses both billingAddress and billingAddressId, and an id without a signed-in shopper', async () => {
    const before = stack.upstreamRequests.length;
    const CHECKOUT = `mutation($input: CheckoutCartInput!) { checkoutCart(input: $input) {
      order { upstreamId } userErrors { code field message } } }`;
    const address = {
      firstName: 'A',
      lastName: 'B',
      line1: 'c',
      region: 'd',
      postcode: 'e',
      country: 'GB',
    };
    const both = await call(CHECKOUT, {
      input: {
        cartId: 'some-cart',
        customer: { email: 'a@example.com', name: 'A' },
        billingAddress: address,
        billingAddressId: home,
      },
    });
    expect(both.checkoutCart.userErrors).toMatchObject([
      { code: 'BAD_USER_INPUT', field: ['input', 'billingAddress'] },
    ]);
    const guest = await call(CHECKOUT, {
      input: {
        cartId: 'some-cart',
        customer: { email: 'a@example.com', name: 'A' },
        billingAddressId: home,
      },
    });
    expect(guest.checkoutCart.userErrors).toMatchObject([
      { code: 'BAD_USER_INPUT', field: ['input', 'billingAddressId'] },
    ]);
    expect(stack.upstreamRequests.length).toBe(before);
  });
});

describe('a customer’s address book', () => {
  it('is read on Customer.addresses and written with customerId', async () => {
    const customers = await call(
      '{ customers(first: 1) { nodes { id upstreamId } } }',
      {},
      {},
      admin,
    );
    const customer = customers.customers.nodes[0];
    const created = await call(
      CREATE,
      {
        input: {
          customerId: customer.id,
          firstName: 'Ada',
          lastName: 'Lovelace',
          line1: '12 St James Square',
          country: 'GB',
        },
      },
      {},
      admin,
    );
    expect(created.createAddress.userErrors).toEqual([]);
    const read = await call(
      'query($id: ID!) { customer(id: $id) { addresses { upstreamId line1 country } } }',
      { id: customer.upstreamId },
      {},
      admin,
    );
    expect(read.customer.addresses).toEqual([
      {
        upstreamId: created.createAddress.address.upstreamId,
        line1: '12 St James Square',
        country: 'GB',
      },
    ]);
  });
});
