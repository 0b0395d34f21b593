/**
 * Customers, customer tokens and what `X-Moltin-Customer-Token` scopes, over real HTTP: passwords
 * never leave the service, a wrong sign-in does not say which part was wrong, orders and carts
 * answer for the token's customer only (also under an implicit token), checkout by customer id
 * links the order.
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
});
afterAll(() => service.close());

async function createCustomer(name: string, email: string, password?: string) {
  const result = await service.call('POST', '/v2/customers', {
    token: admin,
    json: { data: { type: 'customer', name, email, ...(password ? { password } : {}) } },
  });
  expect(result.status, JSON.stringify(result.body)).toBe(201);
  return result.body.data as { id: string; email: string };
}

async function signIn(email: string, password: string, token = implicit) {
  return service.call('POST', '/v2/customers/tokens', {
    token,
    json: { data: { type: 'token', email, password } },
  });
}

const as = (customerToken: string, token = implicit): CallOptions => ({
  token,
  headers: { 'x-moltin-customer-token': customerToken },
});

describe('customers', () => {
  it('creates, reads, lists, filters, updates and deletes; never returns the password', async () => {
    const created = await createCustomer('Ann Example', 'ann@example.com', 'correct horse');
    expect(created).toMatchObject({
      type: 'customer',
      name: 'Ann Example',
      email: 'ann@example.com',
    });
    expect(JSON.stringify(created)).not.toMatch(/password|correct horse|scrypt/);

    const read = await service.call('GET', `/v2/customers/${created.id}`, { token: admin });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(created);

    await createCustomer('Bob Example', 'bob@example.com');
    const list = await service.call('GET', '/v2/customers?filter=eq(email,bob@example.com)', {
      token: admin,
    });
    expect(list.status).toBe(200);
    expect(list.body.data.map((c: { name: string }) => c.name)).toEqual(['Bob Example']);
    expect(list.body.meta.results.total).toBe(1);
    const paged = await service.call('GET', '/v2/customers?page[limit]=1&sort=created_at', {
      token: admin,
    });
    expect(paged.body.meta.page).toMatchObject({ limit: 1, offset: 0 });
    expect(paged.body.meta.results.total).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(paged.body)).not.toMatch(/password/);

    const duplicate = await service.call('POST', '/v2/customers', {
      token: admin,
      json: { data: { type: 'customer', name: 'Again', email: 'ANN@example.com' } },
    });
    expect(duplicate.status).toBe(409);

    const renamed = await service.call('PUT', `/v2/customers/${created.id}`, {
      token: admin,
      json: { data: { type: 'customer', name: 'Ann Renamed' } },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: 'Ann Renamed', email: 'ann@example.com' });

    // Another store never sees them.
    expect(
      (await service.call('GET', `/v2/customers/${created.id}`, { token: betaAdmin })).status,
    ).toBe(404);

    const gone = await service.call('DELETE', `/v2/customers/${created.id}`, { token: admin });
    expect(gone.status).toBe(204);
    expect(
      (await service.call('GET', `/v2/customers/${created.id}`, { token: admin })).status,
    ).toBe(404);
  });

  it('judges the body: type, email, password length, required fields', async () => {
    for (const [data, source] of [
      [{ name: 'x', email: 'x@example.com' }, 'data.type'],
      [{ type: 'customer', email: 'x@example.com' }, 'data.name'],
      [{ type: 'customer', name: 'x', email: 'not-an-email' }, 'data.email'],
      [{ type: 'customer', name: 'x', email: 'x@example.com', password: 'short' }, 'data.password'],
      [
        { type: 'customer', name: 'x', email: 'x@example.com', password: 12345678 },
        'data.password',
      ],
    ] as const) {
      const result = await service.call('POST', '/v2/customers', { token: admin, json: { data } });
      expect(result.status).toBe(400);
      expect(errorOf(result).source).toBe(source);
    }
  });

  it('needs a client_credentials token to create or change customers', async () => {
    const result = await service.call('POST', '/v2/customers', {
      token: implicit,
      json: { data: { type: 'customer', name: 'x', email: 'y@example.com' } },
    });
    expect(result.status).toBe(403);
    // And an implicit token without a customer token cannot list them.
    expect((await service.call('GET', '/v2/customers', { token: implicit })).status).toBe(403);
  });
});

describe('customer tokens', () => {
  it('signs in with email and password (implicit token), with an expiry', async () => {
    const customer = await createCustomer('Cleo', 'cleo@example.com', 'cleo-password');
    const result = await signIn('CLEO@example.com', 'cleo-password');
    expect(result.status).toBe(200);
    expect(result.body.data).toMatchObject({ type: 'token', customer_id: customer.id });
    expect(typeof result.body.data.token).toBe('string');
    expect(result.body.data.token.length).toBeGreaterThanOrEqual(32);
    expect(result.body.data.expires).toBe(Math.floor(now / 1000) + 24 * 3600);
  });

  it('answers 401 without saying whether the email or the password was wrong', async () => {
    await createCustomer('Dan', 'dan@example.com', 'dan-password');
    await createCustomer('Eve', 'eve@example.com'); // no password: cannot sign in
    const wrongPassword = await signIn('dan@example.com', 'not-his-password');
    const unknownEmail = await signIn('nobody@example.com', 'dan-password');
    const noPassword = await signIn('eve@example.com', 'anything-at-all');
    for (const result of [wrongPassword, unknownEmail, noPassword]) {
      expect(result.status).toBe(401);
      expect(errorOf(result).detail).toBe('The email or password is not correct.');
      expect(JSON.stringify(result.body)).not.toMatch(/dan-password|not-his-password/);
    }
    const malformed = await service.call('POST', '/v2/customers/tokens', {
      token: implicit,
      json: { data: { type: 'token', email: 'dan@example.com' } },
    });
    expect(malformed.status).toBe(400);
  });

  it('refuses an unknown, another store’s or an expired customer token with 401', async () => {
    const customer = await createCustomer('Fay', 'fay@example.com', 'fay-password');
    const token = (await signIn('fay@example.com', 'fay-password')).body.data.token as string;
    const read = (options: CallOptions) =>
      service.call('GET', `/v2/customers/${customer.id}`, options);
    expect((await read(as(token))).status).toBe(200);
    expect((await read(as('0'.repeat(64)))).status).toBe(401);
    expect((await read(as('not a token!'))).status).toBe(401);
    expect((await read(as(token, betaAdmin))).status).toBe(401);
    const saved = now;
    now += 24 * 3600 * 1000 + 1;
    const expired = await read(as(token, admin));
    now = saved;
    expect(expired.status).toBe(401);
    expect(errorOf(expired).detail).toMatch(/expired/);
  });

  it('a new password signs the customer out', async () => {
    const customer = await createCustomer('Gil', 'gil@example.com', 'gil-password');
    const token = (await signIn('gil@example.com', 'gil-password')).body.data.token as string;
    await service.call('PUT', `/v2/customers/${customer.id}`, {
      token: admin,
      json: { data: { password: 'gil-new-password' } },
    });
    expect((await service.call('GET', `/v2/customers/${customer.id}`, as(token))).status).toBe(401);
    expect((await signIn('gil@example.com', 'gil-password')).status).toBe(401);
    expect((await signIn('gil@example.com', 'gil-new-password')).status).toBe(200);
  });
});

describe('X-Moltin-Customer-Token scoping', () => {
  let hal: { id: string };
  let ivy: { id: string };
  let halToken: string;
  let ivyToken: string;

  beforeAll(async () => {
    hal = await createCustomer('Hal', 'hal@example.com', 'hal-password');
    ivy = await createCustomer('Ivy', 'ivy@example.com', 'ivy-password');
    halToken = (await signIn('hal@example.com', 'hal-password')).body.data.token;
    ivyToken = (await signIn('ivy@example.com', 'ivy-password')).body.data.token;
  });

  /** A cart made under a customer token (implicit bearer), with one item. */
  async function cartOf(customerToken: string, name: string) {
    const cart = await service.call('POST', '/v2/carts', {
      ...as(customerToken),
      json: { data: { name, discount_settings: { custom_discounts_enabled: true } } },
    });
    expect(cart.status, JSON.stringify(cart.body)).toBe(201);
    const id = cart.body.data.id as string;
    const item = await service.call('POST', `/v2/carts/${id}/items`, {
      ...as(customerToken),
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

  it('reads the customer itself only, also under an implicit token', async () => {
    expect((await service.call('GET', `/v2/customers/${hal.id}`, as(halToken))).status).toBe(200);
    expect((await service.call('GET', `/v2/customers/${ivy.id}`, as(halToken))).status).toBe(404);
    const list = await service.call('GET', '/v2/customers', as(halToken));
    expect(list.status).toBe(200);
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([hal.id]);
    // Even a client_credentials token is scoped by a customer token it carries.
    expect((await service.call('GET', `/v2/customers/${ivy.id}`, as(halToken, admin))).status).toBe(
      404,
    );
  });

  it('lets a guest’s implicit token make a guest cart, and keeps customers’ carts apart', async () => {
    const guestWrite = await service.call('POST', '/v2/carts', {
      token: implicit,
      json: { data: { name: 'guest' } },
    });
    expect(guestWrite.status).toBe(201);
    expect(guestWrite.body.data.relationships.customers).toBeUndefined();

    const halCart = await cartOf(halToken, 'Hal’s cart');
    expect(
      (await service.call('GET', `/v2/carts/${halCart}`, as(halToken))).body.data,
    ).toMatchObject({ relationships: { customers: { data: [{ type: 'customer', id: hal.id }] } } });
    // Ivy, the implicit token alone, and Ivy under the admin token: as if it did not exist.
    for (const options of [as(ivyToken), { token: implicit }, as(ivyToken, admin)]) {
      expect((await service.call('GET', `/v2/carts/${halCart}`, options)).status).toBe(404);
      expect(
        (
          await service.call('POST', `/v2/carts/${halCart}/items`, {
            ...options,
            json: {
              data: { type: 'custom_item', name: 'X', sku: 'X', quantity: 1, price: { amount: 1 } },
            },
          })
        ).status,
      ).toBeGreaterThanOrEqual(403);
    }
    // The store itself (client_credentials, no customer token) may.
    expect((await service.call('GET', `/v2/carts/${halCart}`, { token: admin })).status).toBe(200);

    const ivyCart = await cartOf(ivyToken, 'Ivy’s cart');
    const halCarts = await service.call('GET', '/v2/carts', as(halToken));
    expect(halCarts.status).toBe(200);
    expect(halCarts.body.data.map((c: { id: string }) => c.id)).toEqual([halCart]);
    expect(halCarts.body.meta.results.total).toBe(1);
    const ivyCarts = await service.call('GET', '/v2/carts', as(ivyToken));
    expect(ivyCarts.body.data.map((c: { id: string }) => c.id)).toEqual([ivyCart]);
    expect((await service.call('GET', '/v2/carts', { token: implicit })).status).toBe(403);
    const all = await service.call('GET', '/v2/carts', { token: admin });
    expect(all.body.data.map((c: { id: string }) => c.id)).toEqual(
      expect.arrayContaining([halCart, ivyCart]),
    );
  });

  it('links checkout to the customer, and lists each customer’s orders only', async () => {
    const halCart = await cartOf(halToken, 'Hal checks out');
    const byToken = await service.call('POST', `/v2/carts/${halCart}/checkout`, {
      ...as(halToken),
      json: { data: { customer: { id: hal.id }, billing_address: ADDRESS } },
    });
    expect(byToken.status, JSON.stringify(byToken.body)).toBe(201);
    expect(byToken.body.data).toMatchObject({
      customer: { name: 'Hal', email: 'hal@example.com' },
      relationships: { customer: { data: { type: 'customer', id: hal.id } } },
    });
    const halOrder = byToken.body.data.id as string;

    // The store checks a guest cart out for Ivy by id.
    const guestCart = await service.call('POST', '/v2/carts', {
      token: admin,
      json: { data: { name: 'for Ivy' } },
    });
    const guestCartId = guestCart.body.data.id as string;
    await service.call('POST', `/v2/carts/${guestCartId}/items`, {
      token: admin,
      json: {
        data: { type: 'custom_item', name: 'Pen', sku: 'PEN', quantity: 2, price: { amount: 300 } },
      },
    });
    const byId = await service.call('POST', `/v2/carts/${guestCartId}/checkout`, {
      token: admin,
      json: { data: { customer: { id: ivy.id }, billing_address: ADDRESS } },
    });
    expect(byId.status).toBe(201);
    expect(byId.body.data.customer).toEqual({ name: 'Ivy', email: 'ivy@example.com' });
    const ivyOrder = byId.body.data.id as string;

    // A customer token checks out as its own customer only.
    const other = await cartOf(halToken, 'Hal again');
    const asIvy = await service.call('POST', `/v2/carts/${other}/checkout`, {
      ...as(halToken),
      json: { data: { customer: { id: ivy.id }, billing_address: ADDRESS } },
    });
    expect(asIvy.status).toBe(403);
    const unknown = await service.call('POST', `/v2/carts/${guestCartId}/checkout`, {
      token: admin,
      json: {
        data: {
          customer: { id: '00000000-0000-4000-8000-000000000000' },
          billing_address: ADDRESS,
        },
      },
    });
    expect(unknown.status).toBe(400);
    expect(errorOf(unknown).source).toBe('data.customer.id');

    const halOrders = await service.call('GET', '/v2/orders', as(halToken));
    expect(halOrders.status).toBe(200);
    expect(halOrders.body.data.map((o: { id: string }) => o.id)).toEqual([halOrder]);
    expect(halOrders.body.meta.results.total).toBe(1);
    const ivyOrders = await service.call(
      'GET',
      '/v2/orders?filter=ge(created_at,2000-01-01T00:00:00Z)',
      as(ivyToken),
    );
    expect(ivyOrders.body.data.map((o: { id: string }) => o.id)).toEqual([ivyOrder]);
    expect((await service.call('GET', `/v2/orders/${ivyOrder}`, as(halToken))).status).toBe(404);
    expect((await service.call('GET', `/v2/orders/${halOrder}`, as(halToken))).status).toBe(200);
    // Without a customer token the store sees both.
    const all = await service.call('GET', '/v2/orders', { token: admin });
    expect(all.body.data.map((o: { id: string }) => o.id)).toEqual(
      expect.arrayContaining([halOrder, ivyOrder]),
    );
  });
});
