/**
 * Failed sign-in limits on `POST /v2/customers/tokens` (src/commerce-service/sign-in-limits.ts),
 * counted, never timed: the service's clock is injected. Per email (per store) and per client
 * (source address, per store) within the window; then 429 with `Retry-After` and a JSON:API
 * error until the window passes, the right password included; other emails and other clients
 * unaffected. Through the gateway, the 429 is RATE_LIMITED and never echoes the password.
 */
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEFAULT_SIGN_IN_LIMITS,
  loadServiceConfig,
} from '../../src/commerce-service/config.ts';
import {
  type CallResult,
  errorOf,
  type ServiceUnderTest,
  startService,
} from '../service/service-helpers.ts';
import { type Stack, startStack } from '../support/harness.ts';

const WINDOW_MS = DEFAULT_SIGN_IN_LIMITS.windowMs;

async function addCustomer(service: ServiceUnderTest, who: string, client = 'alpha') {
  const result = await service.call('POST', '/v2/customers', {
    token: await service.token(client),
    json: {
      data: { type: 'customer', name: who, email: `${who}@example.com`, password: `${who}-right` },
    },
  });
  expect(result.status).toBe(201);
}

describe('failed sign-ins per email', () => {
  let service: ServiceUnderTest;
  let implicit: string;
  let now = Date.parse('2026-03-01T10:00:00Z');

  beforeAll(async () => {
    service = await startService({ now: () => now });
    implicit = await service.token('alpha', 'implicit');
    for (const who of ['ann', 'bob', 'cat', 'dan']) await addCustomer(service, who);
  });
  afterAll(() => service.close());

  const signIn = (email: string, password: string): Promise<CallResult> =>
    service.call('POST', '/v2/customers/tokens', {
      token: implicit,
      json: { data: { type: 'token', email, password } },
    });

  it('answers the 11th wrong guess with 429 and Retry-After, and the right password too, until the window passes', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++)
      statuses.push((await signIn('ann@example.com', `guess-${i}`)).status);
    expect(statuses).toEqual(Array(10).fill(401));

    const locked = await signIn('ann@example.com', 'guess-10');
    expect(locked.status).toBe(429);
    expect(locked.headers.get('retry-after')).toBe(String(WINDOW_MS / 1000));
    expect(errorOf(locked)).toMatchObject({ status: 429, title: 'Too Many Requests' });
    expect(errorOf(locked).detail).toMatch(/failed sign-ins.*try again in 900 s/);
    expect(JSON.stringify(locked.body)).not.toContain('guess-10');

    // Even the right password, in any case of the email: the lockout is no oracle.
    expect((await signIn('ann@example.com', 'ann-right')).status).toBe(429);
    expect((await signIn('ANN@Example.com', 'ann-right')).status).toBe(429);
    // Another email from the same client signs in.
    expect((await signIn('bob@example.com', 'bob-right')).status).toBe(200);

    now += WINDOW_MS - 1000;
    const late = await signIn('ann@example.com', 'ann-right');
    expect(late.status).toBe(429);
    expect(late.headers.get('retry-after')).toBe('1');
    now += 1000;
    const back = await signIn('ann@example.com', 'ann-right');
    expect(back.status).toBe(200);
    expect(back.body.data.token).toMatch(/^[0-9a-f]{64}$/);
  });

  it('limits an unknown email the same way: a lockout says nothing about who has an account', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push((await signIn('nobody@example.com', `guess-${i}`)).status);
    }
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
  });

  it('counts guesses in flight: 40 at once for one email get exactly 10 answers', async () => {
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => signIn('cat@example.com', `guess-${i}`)),
    );
    const count = (status: number) => results.filter((r) => r.status === status).length;
    expect({ 401: count(401), 429: count(429) }).toEqual({ 401: 10, 429: 30 });
  });

  it('forgets an email’s failures when its owner signs in', async () => {
    for (let i = 0; i < 9; i++)
      expect((await signIn('dan@example.com', `guess-${i}`)).status).toBe(401);
    expect((await signIn('dan@example.com', 'dan-right')).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push((await signIn('dan@example.com', `again-${i}`)).status);
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
  });
});

describe('failed sign-ins per client', () => {
  let service: ServiceUnderTest;
  const other = new Agent({ localAddress: '127.0.0.2' });

  beforeAll(async () => {
    service = await startService({ signInLimits: { perEmail: 10, perClient: 5 } });
    for (const who of ['ann', 'bob']) await addCustomer(service, who);
    await addCustomer(service, 'ann', 'beta');
  });
  afterAll(async () => {
    await other.close();
    await service.close();
  });

  /** A sign-in from 127.0.0.1 (the default) or from 127.0.0.2. */
  async function signIn(email: string, password: string, from?: Agent, client = 'alpha') {
    const response = await undiciFetch(`${service.url}/v2/customers/tokens`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await service.token(client, 'implicit')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ data: { type: 'token', email, password } }),
      ...(from ? { dispatcher: from } : {}),
    });
    const text = await response.text();
    return { status: response.status, retryAfter: response.headers.get('retry-after'), text };
  }

  it('locks out a client that sprays guesses over many emails, and only that client and store', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await signIn(`user${i}@example.com`, 'guess')).status);
    expect(statuses).toEqual(Array(5).fill(401));
    // The 6th attempt from that address, for any email, right password or not.
    const locked = await signIn('bob@example.com', 'bob-right');
    expect(locked.status).toBe(429);
    expect(Number(locked.retryAfter)).toBeGreaterThan(0);
    expect(locked.text).toMatch(/Too many failed sign-ins/);
    // Another client, and the same client in another store, are not locked out.
    expect((await signIn('bob@example.com', 'bob-right', other)).status).toBe(200);
    expect((await signIn('ann@example.com', 'ann-right', undefined, 'beta')).status).toBe(200);
  });
});

describe('sign-in limits as configuration', () => {
  it('reads COMMERCE_SIGNIN_* with defaults, 0 turning a limit off', () => {
    expect(loadServiceConfig({}).signInLimits).toEqual({
      perEmail: 10,
      perClient: 100,
      windowMs: 900_000,
    });
    expect(
      loadServiceConfig({
        COMMERCE_SIGNIN_EMAIL_FAILURES: '5',
        COMMERCE_SIGNIN_CLIENT_FAILURES: '0',
        COMMERCE_SIGNIN_WINDOW_MS: '60000',
      }).signInLimits,
    ).toEqual({ perEmail: 5, perClient: 0, windowMs: 60_000 });
    for (const [name, value] of [
      ['COMMERCE_SIGNIN_EMAIL_FAILURES', '-1'],
      ['COMMERCE_SIGNIN_CLIENT_FAILURES', 'many'],
      ['COMMERCE_SIGNIN_WINDOW_MS', '0'],
    ]) {
      expect(() => loadServiceConfig({ [name as string]: value }), name).toThrow(ConfigError);
    }
  });
});

describe('through the gateway', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
    const response = await fetch(`${stack.serviceUrl}/v2/customers`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await stack.token()}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        data: { type: 'customer', name: 'Eve', email: 'eve@example.com', password: 'eve-right-1' },
      }),
    });
    expect(response.status).toBe(201);
  });
  afterAll(() => stack?.close());

  const SIGN_IN = `mutation($i: CreateCustomerTokenInput!) { createCustomerToken(input: $i) { token } }`;

  it('answers RATE_LIMITED once the email is locked out, without the password, and keeps serving', async () => {
    const codes: string[] = [];
    let last: any;
    for (let i = 0; i < 15; i++) {
      const { body } = await stack.graphql(
        SIGN_IN,
        { i: { email: 'eve@example.com', password: `secret-guess-${i}` } },
        { token: await stack.implicitToken() },
      );
      codes.push(body.errors?.[0]?.extensions?.code);
      last = body;
    }
    expect(codes).toEqual([
      ...Array(10).fill('INVALID_CREDENTIALS'),
      ...Array(5).fill('RATE_LIMITED'),
    ]);
    expect(last.data).toBeNull();
    expect(last.errors[0].message).toMatch(
      /^Too many failed sign-ins for this email or from this client; retry in \d+ s$/,
    );
    expect(JSON.stringify(last)).not.toContain('secret-guess');
    // Five 429s in a row are the caller's doing: the breaker stays closed for everyone else.
    const other = await stack.graphql('{ customers(first: 1) { totalCount } }');
    expect(other.body.errors).toBeUndefined();
    expect(other.body.data.customers.totalCount).toBe(1);
  });
});
