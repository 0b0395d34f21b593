/**
 * Isolation between two customers of one store: the same read-only (implicit) bearer token, two
 * customer tokens, 1,000 interleaved concurrent requests. No request sees the other customer's
 * orders or carts, the upstream saw exactly each request's own customer token on every call,
 * and no customer token reaches a log line or an error body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HardeningStack, startHardeningStack } from '../support/hardening-stack.ts';

const CUSTOMERS = ['ann', 'bob'] as const;
type Who = (typeof CUSTOMERS)[number];

interface Fixture {
  token: string;
  customerId: string;
  cartIds: string[];
  orderIds: string[];
}

let stack: HardeningStack;
let implicit: string;
const of = {} as Record<Who, Fixture>;

const ADDRESS = {
  first_name: 'A',
  last_name: 'B',
  line_1: '1 Road',
  region: 'R',
  postcode: 'P1',
  country: 'GB',
};

/** A REST call to the service with a customer token, for the set-up. */
async function asCustomer(customerToken: string, method: string, path: string, body: unknown) {
  const response = await fetch(`${stack.serviceUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${implicit}`,
      'x-moltin-customer-token': customerToken,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} → ${response.status}: ${text}`);
  return JSON.parse(text);
}

beforeAll(async () => {
  stack = await startHardeningStack({ faults: false });
  const admin = await stack.token();
  const form = new URLSearchParams({ grant_type: 'implicit', client_id: 'demo' });
  const implicitResponse = await fetch(`${stack.serviceUrl}/oauth/access_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  implicit = ((await implicitResponse.json()) as { access_token: string }).access_token;

  for (const who of CUSTOMERS) {
    const email = `${who}@example.com`;
    const customer = await stack.rest(admin, 'POST', '/v2/customers', {
      data: { type: 'customer', name: who, email, password: `${who}-password` },
    });
    const signedIn = await stack.rest(implicit, 'POST', '/v2/customers/tokens', {
      data: { type: 'token', email, password: `${who}-password` },
    });
    const fixture: Fixture = {
      token: signedIn.data.token,
      customerId: customer.data.id,
      cartIds: [],
      orderIds: [],
    };
    for (let i = 0; i < 2; i++) {
      const cart = await asCustomer(fixture.token, 'POST', '/v2/carts', {
        data: { name: `${who}-cart-${i}` },
      });
      fixture.cartIds.push(cart.data.id);
      await asCustomer(fixture.token, 'POST', `/v2/carts/${cart.data.id}/items`, {
        data: { type: 'custom_item', name: who, sku: who, quantity: 1, price: { amount: 100 } },
      });
      const order = await asCustomer(fixture.token, 'POST', `/v2/carts/${cart.data.id}/checkout`, {
        data: { billing_address: ADDRESS },
      });
      fixture.orderIds.push(order.data.id);
    }
    of[who] = fixture;
  }
  // A guest order of the store: neither customer may see it.
  const guestCart = await stack.rest(admin, 'POST', '/v2/carts', { data: { name: 'guest' } });
  await stack.rest(admin, 'POST', `/v2/carts/${guestCart.data.id}/items`, {
    data: { type: 'custom_item', name: 'g', sku: 'g', quantity: 1, price: { amount: 1 } },
  });
  await stack.rest(admin, 'POST', `/v2/carts/${guestCart.data.id}/checkout`, {
    data: { customer: { name: 'Guest', email: 'guest@example.com' }, billing_address: ADDRESS },
  });
});
afterAll(() => stack.close());

const MINE = `query Mine {
  viewer {
    customer { upstreamId email }
    orders(first: 10) { totalCount nodes { upstreamId customerId customerEmail } }
    carts(first: 10) { totalCount nodes { upstreamId name } }
  }
  orders(first: 20) { totalCount nodes { upstreamId customerEmail } }
}`;
const OTHER = `query Other($cart: ID!, $order: ID!) {
  cart(id: $cart) { upstreamId name }
  order(id: $order) { upstreamId customerEmail }
}`;

/** Runs `tasks` with at most `limit` in flight. */
async function pool(tasks: (() => Promise<void>)[], limit: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) await (tasks[next++] as () => Promise<void>)();
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

describe('two customers of one store, 1,000 interleaved concurrent requests', () => {
  it('never mixes customers, and the upstream sees exactly each request’s own customer token', async () => {
    const plan = Array.from({ length: 1_000 }, (_, i) => ({
      i,
      who: CUSTOMERS[(i * 7 + (i >> 3)) % 2] as Who,
      // Every fifth request tries to read the other customer's cart and order by id.
      cross: i % 5 === 0,
    }));
    const firstServiceRequest = stack.serviceRequests.length;
    const problems: string[] = [];

    await pool(
      plan.map(({ i, who, cross }) => async () => {
        const other: Who = who === 'ann' ? 'bob' : 'ann';
        const response = await stack.graphql(
          cross ? OTHER : MINE,
          cross ? { cart: of[other].cartIds[i % 2], order: of[other].orderIds[i % 2] } : undefined,
          {
            token: implicit,
            headers: { 'x-request-id': `cust-${i}`, 'x-moltin-customer-token': of[who].token },
          },
        );
        const text = JSON.stringify(response.body);
        const tag = `cust-${i} (${who})`;
        if (response.status !== 200 || response.body.errors) {
          problems.push(`${tag}: ${response.status} ${text.slice(0, 200)}`);
          return;
        }
        for (const secret of [of.ann.token, of.bob.token, implicit]) {
          if (text.includes(secret)) problems.push(`${tag}: a token in the response body`);
        }
        const foreign = [
          `${other}@example.com`,
          `${other}-cart`,
          of[other].customerId,
          ...of[other].cartIds,
          ...of[other].orderIds,
          'guest@example.com',
        ];
        for (const value of foreign) {
          if (text.includes(value)) problems.push(`${tag}: saw ${value}`);
        }
        const data = response.body.data;
        if (cross) {
          if (data.cart !== null || data.order !== null) problems.push(`${tag}: cross read`);
          return;
        }
        const viewer = data.viewer;
        if (viewer?.customer?.upstreamId !== of[who].customerId) problems.push(`${tag}: viewer`);
        const orderIds = viewer?.orders?.nodes?.map((o: { upstreamId: string }) => o.upstreamId);
        if (
          JSON.stringify([...(orderIds ?? [])].sort()) !==
          JSON.stringify([...of[who].orderIds].sort())
        ) {
          problems.push(`${tag}: viewer orders ${JSON.stringify(orderIds)}`);
        }
        const cartIds = viewer?.carts?.nodes?.map((c: { upstreamId: string }) => c.upstreamId);
        if (
          JSON.stringify([...(cartIds ?? [])].sort()) !==
          JSON.stringify([...of[who].cartIds].sort())
        ) {
          problems.push(`${tag}: viewer carts ${JSON.stringify(cartIds)}`);
        }
        // The store-wide list under a customer token is that customer's too.
        if (data.orders.totalCount !== 2)
          problems.push(`${tag}: orders total ${data.orders.totalCount}`);
      }),
      64,
    );
    expect(problems).toEqual([]);

    // Upstream side: every call carries the request's own customer token and the same bearer.
    const calls = stack.serviceRequests.slice(firstServiceRequest);
    const whoOf = new Map(plan.map((p) => [`cust-${p.i}`, p.who]));
    const callsPer = new Map<string, number>();
    const wrong: string[] = [];
    for (const call of calls) {
      const who = whoOf.get(call.requestId ?? '');
      if (who === undefined) {
        wrong.push(`call without a known request id: ${call.url}`);
        continue;
      }
      if (call.customerToken !== of[who].token)
        wrong.push(`${call.requestId}: wrong customer token`);
      if (call.authorization !== `Bearer ${implicit}`) wrong.push(`${call.requestId}: bearer`);
      callsPer.set(call.requestId as string, (callsPer.get(call.requestId as string) ?? 0) + 1);
    }
    expect(wrong).toEqual([]);
    expect(callsPer.size).toBe(plan.length);
  });

  it('keeps customer tokens out of the logs and out of error bodies', async () => {
    const forged = 'f'.repeat(64);
    const response = await stack.graphql(MINE, undefined, {
      token: implicit,
      headers: { 'x-moltin-customer-token': forged },
    });
    expect(response.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(JSON.stringify(response.body)).not.toContain(forged);
    const log = stack.rawLogs.join('');
    expect(stack.logs.filter((l) => l.msg === 'request').length).toBeGreaterThanOrEqual(1_000);
    for (const token of [forged, of.ann.token, of.bob.token, implicit]) {
      expect(log).not.toContain(token);
    }
  });
});
