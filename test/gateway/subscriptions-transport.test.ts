/**
 * How events reach the gateway and leave it: the webhook receiver's refusals (secret, media type,
 * size, JSON, shape) and acknowledgements (unknown events, repeated deliveries), the receiver off
 * without a secret; the `graphql-sse` client, unchanged, receiving events; an EventSource-style
 * GET (no header but Accept, the token in `access_token`); and subscriptions never compiled.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, gatewaySettings } from '../../src/gateway/create-gateway.ts';
import type { EventBus } from '../../src/gateway/events/bus.ts';
import { createMemoryBus } from '../../src/gateway/events/memory-bus.ts';
import { createRequestListener } from '../../src/gateway/fast-path.ts';
import { type Stack, startStack } from '../support/harness.ts';

const SECRET = 'transport-secret-value';

let stack: Stack;
let bus: EventBus;
let gateway: Gateway;
let server: Server;
let base: string;

beforeAll(async () => {
  stack = await startStack();
  bus = createMemoryBus();
  // A gateway of the test's own on the stack's service: its bus is the test's to publish to.
  gateway = createGateway({
    upstreamUrl: stack.serviceUrl,
    graphiql: false,
    events: { bus, webhookSecret: SECRET },
  });
  server = createServer(createRequestListener(gateway));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await gateway?.dispose();
  await bus?.close();
  await stack?.close();
});

const CART_WEBHOOK = (cartId: string, id: string = crypto.randomUUID()) =>
  JSON.stringify({
    id,
    triggered_by: 'cart.updated',
    attempt: 1,
    integration: {
      id: crypto.randomUUID(),
      integration_type: 'webhook',
      name: 'x',
      description: '',
    },
    resources: '{}',
    payload: { data: { id: cartId, type: 'cart' } },
  });

async function post(body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}/webhooks/commerce`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-moltin-secret-key': SECRET, ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, text, body: text ? JSON.parse(text) : null };
}

describe('the webhook receiver', () => {
  it('refuses a missing or wrong secret, never echoing either', async () => {
    const missing = await post(CART_WEBHOOK('c1'), { 'x-moltin-secret-key': '' });
    expect(missing.status).toBe(401);
    expect(missing.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const wrong = await post(CART_WEBHOOK('c1'), { 'x-moltin-secret-key': 'guess-guess' });
    expect(wrong.status).toBe(403);
    expect(wrong.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(wrong.text).not.toContain('guess-guess');
    expect(wrong.text).not.toContain(SECRET);
  });

  it('refuses bodies it cannot take, each with its code; nothing is published', async () => {
    const events: string[] = [];
    const stop = new AbortController();
    const watching = (async () => {
      for await (const event of bus.subscribe({ signal: stop.signal })) events.push(event.type);
    })();
    const notJson = await post('{"triggered_by": ');
    expect([notJson.status, notJson.body.errors[0].extensions.code]).toEqual([400, 'BAD_REQUEST']);
    expect(notJson.text).not.toContain('triggered_by');
    const notObject = await post('[1, 2]');
    expect(notObject.status).toBe(400);
    const noData = await post(JSON.stringify({ triggered_by: 'cart.updated', payload: {} }));
    expect(noData.body.errors[0]).toEqual({
      message: 'The cart.updated event has no `payload.data`',
      extensions: { code: 'BAD_REQUEST' },
    });
    const noId = await post(
      JSON.stringify({ triggered_by: 'order.updated', payload: { data: {} } }),
    );
    expect(noId.body.errors[0].message).toBe('The order.updated event carries no id');
    const large = await post(CART_WEBHOOK('x'.repeat(70 * 1024)));
    expect([large.status, large.body.errors[0].extensions.code]).toEqual([
      413,
      'REQUEST_ENTITY_TOO_LARGE',
    ]);
    const text = await post(CART_WEBHOOK('c1'), { 'content-type': 'text/plain' });
    expect([text.status, text.body.errors[0].extensions.code]).toEqual([
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ]);
    const get = await fetch(`${base}/webhooks/commerce`);
    expect(get.status).toBe(405);
    stop.abort();
    await watching;
    expect(events).toEqual([]);
  });

  it('acknowledges an event it does not follow, and a repeated delivery once', async () => {
    const ignored = await post(
      JSON.stringify({
        id: 'j1',
        triggered_by: 'customer.created',
        payload: { data: { id: 'x' } },
      }),
    );
    expect([ignored.status, ignored.body]).toEqual([202, { ignored: true }]);
    const stop = new AbortController();
    const got: string[] = [];
    const watching = (async () => {
      for await (const event of bus.subscribe({ signal: stop.signal })) {
        got.push(`${event.type} ${event.subject.cartId}`);
      }
    })();
    const first = await post(CART_WEBHOOK('cart-a', 'delivery-1'));
    expect(first.status).toBe(200);
    expect(first.body.eventId).toMatch(/^\d+-\d+$/);
    const repeated = await post(CART_WEBHOOK('cart-a', 'delivery-1'));
    expect([repeated.status, repeated.body]).toEqual([200, { duplicate: true }]);
    stop.abort();
    await watching;
    expect(got).toEqual(['cart.updated cart-a']);
  });

  it('is off without a secret: its path is a 404 like any other', async () => {
    const plain = createGateway({ upstreamUrl: stack.serviceUrl, graphiql: false });
    const response = await plain.fetch('http://gateway.test/webhooks/commerce', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-moltin-secret-key': SECRET },
      body: CART_WEBHOOK('c1'),
    });
    expect(response.status).toBe(404);
    await plain.dispose();
  });
});

async function createCart(): Promise<string> {
  const made = await stack.graphql(
    'mutation { createCart(input: { name: "Transport" }) { cart { upstreamId } } }',
  );
  return made.body.data.createCart.cart.upstreamId;
}

describe('clients', () => {
  it('graphql-sse’s client receives events, unchanged', async () => {
    const cartId = await createCart();
    const token = await stack.token();
    const client = createClient({
      url: `${base}/graphql`,
      headers: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
    });
    const iterator = client.iterate<{
      cartUpdated: { eventId: string; cart: { upstreamId: string } };
    }>({
      query: 'subscription($id: ID!) { cartUpdated(cartId: $id) { eventId cart { upstreamId } } }',
      variables: { id: cartId },
    });
    const first = iterator.next();
    // The subscription is open once the bus has a listener; publish until it has received.
    const published = await waitForDelivery(first, () =>
      bus.publish({
        type: 'cart.updated',
        subject: { cartId },
        receivedAt: new Date().toISOString(),
      }),
    );
    const result = await first;
    await iterator.return?.();
    client.dispose();
    expect(result.value?.data?.cartUpdated).toEqual({
      eventId: expect.any(String),
      cart: { upstreamId: cartId },
    });
    expect(published).toContain(result.value?.data?.cartUpdated.eventId);
  });

  it('an EventSource-style GET (Accept only, the token as access_token) receives events with ids', async () => {
    const cartId = await createCart();
    const query = `subscription { cartUpdated(cartId: "${cartId}") { eventId cart { upstreamId } } }`;
    const url = `${base}/graphql?query=${encodeURIComponent(query)}&access_token=${await stack.token()}`;
    const controller = new AbortController();
    const response = await fetch(url, {
      headers: { accept: 'text/event-stream' },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    const published = await waitForDelivery(
      (async () => {
        const decoder = new TextDecoder();
        while (!text.includes('event: next')) {
          const { value, done } = await reader.read();
          if (done) break;
          text += decoder.decode(value, { stream: true });
        }
        while (!text.slice(text.indexOf('event: next')).includes('\n\n')) {
          const { value, done } = await reader.read();
          if (done) break;
          text += decoder.decode(value, { stream: true });
        }
      })(),
      () =>
        bus.publish({
          type: 'cart.updated',
          subject: { cartId },
          receivedAt: new Date().toISOString(),
        }),
    );
    controller.abort();
    const frame = text.slice(text.indexOf('event: next'));
    const id = /\nid: (.*)\n/.exec(frame)?.[1];
    expect(published).toContain(id);
    const data = JSON.parse(/\ndata: (.*)\n/.exec(frame)?.[1] ?? 'null');
    expect(data).toEqual({
      data: { cartUpdated: { eventId: id, cart: { upstreamId: cartId } } },
    });
  });

  it('answers a subscription asked for as JSON with 406 and what to send', async () => {
    const response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: `Bearer ${await stack.token()}`,
      },
      body: JSON.stringify({ query: 'subscription { catalogPublished { eventId } }' }),
    });
    expect(response.status).toBe(406);
    expect(await response.json()).toEqual({
      errors: [
        {
          message:
            'This operation answers a stream of events: send Accept: text/event-stream (GraphQL over SSE)',
          extensions: { code: 'BAD_REQUEST' },
        },
      ],
    });
  });

  it('runs subscriptions through subscribe, which jit never compiles', async () => {
    const jit = gatewaySettings(gateway)?.jit;
    const token = await stack.token();
    const run = (query: string, accept: string) =>
      fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${token}` },
        body: JSON.stringify({ query }),
      }).then((response) => response.text());
    await run('{ cart(id: "no-such-cart") { upstreamId } }', 'application/json');
    const before = { ...jit };
    expect(before.compiled).toBeGreaterThan(0);
    const answer = await run(
      'subscription { catalogPublished(after: "1-0") { eventId } }',
      'text/event-stream',
    );
    expect(answer).toContain('EVENTS_MISSED');
    expect({ ...jit }).toEqual(before);
  });
});

/**
 * Publishes every 50 ms until `received` settles (once the subscriber's listener is up, one of
 * them reaches it); answers the ids published.
 */
async function waitForDelivery(
  received: Promise<unknown>,
  publish: () => Promise<{ id: string }>,
): Promise<string[]> {
  let settled = false;
  void received.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  const ids: string[] = [];
  for (let i = 0; i < 100 && !settled; i += 1) {
    ids.push((await publish()).id);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await received;
  return ids;
}
