/**
 * Subscriptions from the store's own events, in one process (issue 32): the embedded service's
 * webhook integration posts to the gateway's receiver, the gateway publishes ids to its bus, and
 * each subscriber receives, over GraphQL over SSE, the resource read with its own token. All
 * over real sockets: service → webhook → gateway → SSE → the client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureWebhookIntegration } from '../../src/webhook-integration.ts';
import { type Stack, startStack } from '../support/harness.ts';
import { subscribe } from '../support/sse.ts';

const SECRET = 'test-webhook-secret-0123456789';
const OTHER = { id: 'other', secret: 'other-secret' };

let stack: Stack;
let receiver: string;

/** A call to the service's v2 API with the demo store's token. */
async function service(method: string, path: string, body?: unknown, token?: string) {
  const response = await fetch(`${stack.serviceUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token ?? (await stack.token())}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

async function createCart(name: string): Promise<string> {
  const made = await stack.graphql(
    `mutation($n: String!) { createCart(input: { name: $n }) { cart { upstreamId } } }`,
    { n: name },
  );
  return made.body.data.createCart.cart.upstreamId;
}

async function addItem(cartId: string, sku: string) {
  const added = await stack.graphql(
    `mutation($i: AddCartCustomItemInput!) { addCartCustomItem(input: $i) { userErrors { code } } }`,
    { i: { cartId, name: sku, sku, quantity: 1, price: { amount: 500 } } },
  );
  expect(added.body.data.addCartCustomItem.userErrors).toEqual([]);
}

const CART_UPDATED = `subscription($id: ID!, $after: String) {
  cartUpdated(cartId: $id, after: $after) { eventId cart { upstreamId items { sku } } } }`;

beforeAll(async () => {
  stack = await startStack({
    seed: true,
    clients: [{ id: 'demo', secret: 'demo-secret' }, OTHER],
    gateway: { events: { webhookSecret: SECRET } },
  });
  receiver = stack.gatewayUrl.replace(/\/graphql$/, '/webhooks/commerce');
  // As `npm start` does: the store's integration posts the followed events to the receiver.
  const made = await ensureWebhookIntegration({
    apiUrl: stack.serviceUrl,
    token: await stack.token(),
    url: receiver,
    secret: SECRET,
  });
  expect(made.created).toBe(true);
  // Idempotent: a second run updates the one integration.
  const again = await ensureWebhookIntegration({
    apiUrl: stack.serviceUrl,
    token: await stack.token(),
    url: receiver,
    secret: SECRET,
  });
  expect(again).toEqual({ id: made.id, created: false });
});

afterAll(() => stack?.close());

describe('cartUpdated', () => {
  it('sends the cart, read with the subscriber’s token, after a write through the gateway', async () => {
    const cartId = await createCart('Followed');
    const sub = await subscribe(stack.gatewayUrl, CART_UPDATED, {
      variables: { id: cartId },
      token: await stack.implicitToken(),
    });
    expect(sub.status).toBe(200);
    expect(sub.headers.get('content-type')).toContain('text/event-stream');
    expect(sub.headers.get('cache-control')).toBe('no-store, private');
    await addItem(cartId, 'MUG-1');
    const frame = await sub.next();
    sub.close();
    expect(frame?.event).toBe('next');
    expect(frame?.id).toMatch(/^\d+-\d+$/);
    expect(frame?.data).toEqual({
      data: {
        cartUpdated: {
          eventId: frame?.id,
          cart: { upstreamId: cartId, items: [{ sku: 'MUG-1' }] },
        },
      },
    });
  });

  it('refuses a cart the subscriber cannot read, before any event, and sends it none', async () => {
    const cartId = await createCart('Not theirs');
    const sub = await subscribe(stack.gatewayUrl, CART_UPDATED, {
      variables: { id: cartId },
      token: await stack.token(OTHER.id),
    });
    const frame = await sub.next(2_000);
    expect(frame?.data.errors[0].extensions.code).toBe('NOT_FOUND');
    await addItem(cartId, 'UNSEEN');
    expect(await sub.next(500)).toBeUndefined();
    sub.close();
  });

  it('reads each event in the operation’s @inContext, as a query would', async () => {
    const cartId = await createCart('In context');
    const sub = await subscribe(
      stack.gatewayUrl,
      `subscription($id: ID!) @inContext(language: "fr-FR", channel: "mobile") {
        cartUpdated(cartId: $id) { eventId cart { upstreamId } } }`,
      { variables: { id: cartId }, token: await stack.token() },
    );
    const before = stack.upstreamRequests.length;
    await addItem(cartId, 'CONTEXT');
    expect((await sub.next())?.data.data.cartUpdated.cart.upstreamId).toBe(cartId);
    sub.close();
    const reads = stack.upstreamRequests
      .slice(before)
      .filter((r) => r.method === 'GET' && r.url.startsWith(`/v2/carts/${cartId}?`));
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) {
      expect(read.context).toMatchObject({ language: 'fr-FR', channel: 'mobile' });
    }
  });

  it('judges ids as every id input does', async () => {
    const sub = await subscribe(stack.gatewayUrl, CART_UPDATED, {
      variables: { id: 'not a cart id!' },
      token: await stack.token(),
    });
    const frame = await sub.next(2_000);
    sub.close();
    expect(frame?.data.errors[0]).toMatchObject({
      message: expect.stringContaining('cartId must be a Cart id or its upstreamId'),
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });
});

describe('resuming with Last-Event-ID', () => {
  it('replays every event after the id, in order, then live ones; `after:` does the same', async () => {
    const cartId = await createCart('Resumed');
    const token = await stack.token();
    const first = await subscribe(stack.gatewayUrl, CART_UPDATED, {
      variables: { id: cartId },
      token,
    });
    await addItem(cartId, 'A');
    const seen = await first.next();
    first.close();
    expect(seen?.id).toBeDefined();
    // Written while nobody listens, and received by the gateway.
    const before = await deliveredCount();
    await addItem(cartId, 'B');
    await addItem(cartId, 'C');
    await waitFor(async () => (await deliveredCount()) >= before + 2, 'the missed deliveries');

    const resumed = await subscribe(stack.gatewayUrl, CART_UPDATED, {
      variables: { id: cartId },
      token,
      headers: { 'last-event-id': seen?.id ?? '' },
    });
    const b = await resumed.next();
    const c = await resumed.next();
    expect(b?.data.data.cartUpdated.eventId).toBe(b?.id);
    expect([seen?.id, b?.id, c?.id].map(order)).toEqual(
      [seen?.id, b?.id, c?.id].map(order).sort((x, y) => x[0] - y[0] || x[1] - y[1]),
    );
    expect(new Set([seen?.id, b?.id, c?.id]).size).toBe(3);
    // Then live.
    await addItem(cartId, 'D');
    const d = await resumed.next();
    resumed.close();
    expect(d?.data.data.cartUpdated.cart.items.map((i: { sku: string }) => i.sku)).toEqual([
      'A',
      'B',
      'C',
      'D',
    ]);

    const byArgument = await subscribe(stack.gatewayUrl, CART_UPDATED, {
      variables: { id: cartId, after: seen?.id },
      token,
    });
    expect((await byArgument.next())?.id).toBe(b?.id);
    expect((await byArgument.next())?.id).toBe(c?.id);
    expect((await byArgument.next())?.id).toBe(d?.id);
    byArgument.close();
  });

  it('says events were missed for an id older than the window, and refuses a malformed one', async () => {
    const cartId = await createCart('Too late');
    const token = await stack.token();
    const old = await subscribe(stack.gatewayUrl, CART_UPDATED, {
      variables: { id: cartId },
      token,
      headers: { 'last-event-id': '1000-0' },
    });
    const missed = await old.next(2_000);
    old.close();
    expect(missed?.data.errors[0].extensions).toEqual({
      code: 'EVENTS_MISSED',
      field: 'Last-Event-ID',
    });
    const bad = await subscribe(stack.gatewayUrl, CART_UPDATED, {
      variables: { id: cartId, after: 'yesterday' },
      token,
    });
    const refused = await bad.next(2_000);
    bad.close();
    expect(refused?.data.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'after' });
  });
});

function order(id: string | undefined): [number, number] {
  const [ms, seq] = (id ?? '0-0').split('-').map(Number);
  return [ms ?? 0, seq ?? 0];
}

async function deliveredCount(): Promise<number> {
  const logs = await service('GET', '/v2/integrations/logs?page[limit]=100');
  return (logs.body.data as { succeeded: boolean }[]).filter((log) => log.succeeded).length;
}

async function waitFor(check: () => Promise<boolean>, what: string, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
