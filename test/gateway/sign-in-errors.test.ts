/**
 * A refused sign-in says what went wrong (issue 28, finding 8): wrong credentials to
 * `createCustomerToken` or `createAccountMemberToken` answer INVALID_CREDENTIALS, the same for a
 * wrong password as for an unknown email or username (never which), and without the password or
 * the email in the answer; a refused bearer token is still UNAUTHENTICATED, on the sign-in as
 * anywhere. Gateway and embedded service over real sockets, the demo store's people.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_ERROR_CODES } from '../../src/upstream/errors.ts';
import { type Stack, startStack } from '../support/harness.ts';

let stack: Stack;
let implicit: string;
let profileId: string;

beforeAll(async () => {
  stack = await startStack({ seed: true });
  implicit = await stack.implicitToken();
  const settings = await stack.graphql(
    '{ accountAuthentication { passwordProfiles { upstreamId } } }',
    {},
    { token: await stack.token() },
  );
  expect(settings.body.errors).toBeUndefined();
  profileId = settings.body.data.accountAuthentication.passwordProfiles[0].upstreamId;
});
afterAll(() => stack?.close());

const CUSTOMER = `mutation($i: CreateCustomerTokenInput!) {
  createCustomerToken(input: $i) { token } }`;
const MEMBER = `mutation($i: CreateAccountMemberTokenInput!) {
  createAccountMemberToken(input: $i) { accountMemberId } }`;

async function refused(query: string, input: Record<string, unknown>, token = implicit) {
  const { status, body } = await stack.graphql(query, { i: input }, { token });
  expect(status).toBe(200);
  expect(body.data).toBeNull();
  expect(body.errors).toHaveLength(1);
  return body.errors[0] as { message: string; extensions: Record<string, unknown> };
}

describe('a refused sign-in', () => {
  it('answers INVALID_CREDENTIALS to a customer, the same for a wrong email or password', async () => {
    const wrongPassword = await refused(CUSTOMER, {
      email: 'ada@example.com',
      password: 'not-adas-password',
    });
    const unknownEmail = await refused(CUSTOMER, {
      email: 'nobody-here@example.com',
      password: 'ada-demo-password',
    });
    for (const error of [wrongPassword, unknownEmail]) {
      expect(error.extensions.code).toBe('INVALID_CREDENTIALS');
      expect(error.message).toMatch(/sign-in was refused: the email or the password is not/);
      expect(error.message).not.toMatch(/bearer token/i);
      const text = JSON.stringify(error);
      for (const secret of ['not-adas-password', 'ada-demo-password', 'ada@', 'nobody-here']) {
        expect(text).not.toContain(secret);
      }
    }
    expect(unknownEmail).toEqual(wrongPassword);
  });

  it('answers INVALID_CREDENTIALS to an account member, the same for a wrong username or password', async () => {
    const wrongPassword = await refused(MEMBER, {
      passwordProfileId: profileId,
      username: 'ada@example.com',
      password: 'not-her-password',
    });
    const unknownUser = await refused(MEMBER, {
      passwordProfileId: profileId,
      username: 'nobody-here@example.com',
      password: 'ada-password',
    });
    for (const error of [wrongPassword, unknownUser]) {
      expect(error.extensions.code).toBe('INVALID_CREDENTIALS');
      expect(error.message).toMatch(/sign-in was refused: the username, the password or the/);
      const text = JSON.stringify(error);
      for (const secret of ['not-her-password', 'ada-password', 'ada@', 'nobody-here']) {
        expect(text).not.toContain(secret);
      }
    }
    expect(unknownUser).toEqual(wrongPassword);
  });

  it('still answers UNAUTHENTICATED when the bearer token is what the service refused', async () => {
    const unknownToken = 'abcdefghijklmnopqrstuvwxyz012345';
    for (const [query, input] of [
      [CUSTOMER, { email: 'ada@example.com', password: 'ada-demo-password' }],
      [MEMBER, { passwordProfileId: profileId, username: 'ada@example.com', password: 'x' }],
    ] as const) {
      const error = await refused(query, input, unknownToken);
      expect(error.extensions.code).toBe('UNAUTHENTICATED');
      expect(error.message).toMatch(/bearer token was not accepted/);
    }
  });

  it('signs in with the right credentials, and the code is one a client can be told of', async () => {
    const { body } = await stack.graphql(
      CUSTOMER,
      { i: { email: 'ada@example.com', password: 'ada-demo-password' } },
      { token: implicit },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.createCustomerToken.token).toEqual(expect.any(String));
    expect(CLIENT_ERROR_CODES).toContain('INVALID_CREDENTIALS');
  });
});
