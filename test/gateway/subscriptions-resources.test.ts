/**
 * orderUpdated, stockChanged and catalogPublished from the embedded service's webhooks, each
 * read with the subscriber's own token over real sockets; a subscriber of another store receives
 * nothing; the limits judge a subscription's arguments before it opens; and a subscription lives
 * past the operation deadline, each event read as an operation of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureWebhookIntegration } from '../../src/webhook-integration.ts';
import { type Stack, startStack } from '../support/harness.ts';
import { subscribe } from '../support/sse.ts';

const SECRET = 'resources-webhook-secret';
const OTHER = { id: 'other', secret: 'other-secret' };
const ADDRESS = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  line_1: '1 Analytical Row',
  region: 'London',
  postcode: 'N1 1AA',
  country: 'GB',
};

let stack: Stack;

async function service(method: string, path: string, body?: unknown) {
  const response = await fetch(`${stack.serviceUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${await stack.token()}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const parsed = text ? JSON.parse(text) : null;
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return parsed;
}

beforeAll(async () => {
  stack = await startStack({
    seed: true,
    clients: [{ id: 'demo', secret: 'demo-secret' }, OTHER],
    // A deadline far shorter than the subscriptions below live.
    gateway: { events: { webhookSecret: SECRET }, operationDeadlineMs: 1_000 },
  });
  await ensureWebhookIntegration({
    apiUrl: stack.serviceUrl,
    token: await stack.token(),
    url: stack.gatewayUrl.replace(/\/graphql$/, '/webhooks/commerce'),
    secret: SECRET,
  });
});

afterAll(() => stack?.close());

describe('orderUpdated', () => {
  it('sends the order when it is paid, to a store token; a storefront token is refused', async () => {
    const cart = await stack.graphql(
      `mutation { createCart(input: { name: "To order" }) { cart { upstreamId } } }`,
    );
    const cartId = cart.body.data.createCart.cart.upstreamId;
    await stack.graphql(
      `mutation($i: AddCartCustomItemInput!) { addCartCustomItem(input: $i) { userErrors { code } } }`,
      { i: { cartId, name: 'Mug', sku: 'ORDER-MUG', quantity: 2, price: { amount: 900 } } },
    );
    const order = await service('POST', `/v2/carts/${cartId}/checkout`, {
      data: { customer: { name: 'Ada', email: 'ada@example.com' }, billing_address: ADDRESS },
    });
    const orderId = order.data.id as string;
    const query = `subscription($id: ID!) { orderUpdated(orderId: $id) { eventId order { upstreamId payment } } }`;

    const shopper = await subscribe(stack.gatewayUrl, query, {
      variables: { id: orderId },
      token: await stack.implicitToken(),
    });
    expect((await shopper.next(2_000))?.data.errors[0].extensions.code).toBe('FORBIDDEN');
    shopper.close();

    const store = await subscribe(stack.gatewayUrl, query, {
      variables: { id: orderId },
      token: await stack.token(),
    });
    // Past the operation deadline: the event is read as an operation of its own.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await service('POST', `/v2/orders/${orderId}/payments`, {
      data: { gateway: 'manual', method: 'purchase' },
    });
    const frame = await store.next();
    store.close();
    expect(frame?.data).toEqual({
      data: {
        orderUpdated: { eventId: frame?.id, order: { upstreamId: orderId, payment: 'paid' } },
      },
    });
  });
});

describe('stockChanged', () => {
  it('sends the product with its stock to a shopper of the store; another store’s receives nothing', async () => {
    const listed = await stack.graphql(
      '{ catalog { products(first: 20) { nodes { upstreamId stock { available } } } } }',
      {},
      { token: await stack.implicitToken() },
    );
    const product = (
      listed.body.data.catalog.products.nodes as {
        upstreamId: string;
        stock: { available: number } | null;
      }[]
    ).find((node) => node.stock !== null);
    if (product === undefined || product.stock === null) throw new Error('no stocked product');
    const query = `subscription($ids: [ID!]!) { stockChanged(productIds: $ids) {
      eventId products { upstreamId stock { available } } } }`;
    const shopper = await subscribe(stack.gatewayUrl, query, {
      variables: { ids: [product.upstreamId] },
      token: await stack.implicitToken(),
    });
    const stranger = await subscribe(stack.gatewayUrl, query, {
      variables: { ids: [product.upstreamId] },
      token: await stack.implicitToken(OTHER.id),
    });
    await service('POST', `/v2/inventories/${product.upstreamId}/transactions`, {
      data: { type: 'stock-transaction', action: 'increment', quantity: 3 },
    });
    const frame = await shopper.next();
    shopper.close();
    expect(frame?.data.data.stockChanged).toEqual({
      eventId: frame?.id,
      products: [
        { upstreamId: product.upstreamId, stock: { available: product.stock.available + 3 } },
      ],
    });
    // The same event reached the stranger's subscription; their catalog has no such product.
    expect(await stranger.next(1_000)).toBeUndefined();
    stranger.close();
  });

  it('refuses more than 100 products, and a list over MAX_LIST_ITEMS (the operation limits), before any work', async () => {
    const ids = Array.from(
      { length: 101 },
      (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    );
    const before = stack.upstreamRequests.length;
    const sub = await subscribe(
      stack.gatewayUrl,
      'subscription($ids: [ID!]!) { stockChanged(productIds: $ids) { eventId } }',
      { variables: { ids }, token: await stack.token() },
    );
    const frame = await sub.next(2_000);
    sub.close();
    expect(frame?.data.errors[0]).toMatchObject({
      message: 'productIds must list 1 to 100 ids',
      extensions: { code: 'BAD_USER_INPUT', field: 'productIds' },
    });
    expect(stack.upstreamRequests.slice(before).filter((r) => !r.url.includes('oauth'))).toEqual(
      [],
    );

    const tooMany = Array.from({ length: 5_000 }, () => ids[0]);
    const limited = await subscribe(
      stack.gatewayUrl,
      'subscription($ids: [ID!]!) { stockChanged(productIds: $ids) { eventId } }',
      { variables: { ids: tooMany }, token: await stack.token() },
    );
    const refused = await limited.next(2_000);
    limited.close();
    expect(refused?.data.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(refused?.data.errors[0].message).toContain('has 5000 items; the maximum is 1000');
  });
});

describe('catalogPublished', () => {
  it('tells a store token and the shopper whose catalog it is; not the other store', async () => {
    const catalogs = await service('GET', '/pcm/catalogs');
    const catalog = catalogs.data[0] as { id: string };
    const query = 'subscription { catalogPublished { eventId catalogId releaseId publishedAt } }';
    const store = await subscribe(stack.gatewayUrl, query, { token: await stack.token() });
    const shopper = await subscribe(stack.gatewayUrl, query, {
      token: await stack.implicitToken(),
    });
    const stranger = await subscribe(stack.gatewayUrl, query, {
      token: await stack.implicitToken(OTHER.id),
    });
    const release = await service('POST', `/pcm/catalogs/${catalog.id}/releases`);
    const releaseId = release.data.id as string;
    const expected = {
      catalogId: catalog.id,
      releaseId,
      publishedAt: expect.any(String),
    };
    const forStore = await store.next();
    const forShopper = await shopper.next();
    store.close();
    shopper.close();
    expect(forStore?.data.data.catalogPublished).toEqual({ eventId: forStore?.id, ...expected });
    expect(forShopper?.data.data.catalogPublished).toEqual({ eventId: forStore?.id, ...expected });
    expect(await stranger.next(1_000)).toBeUndefined();
    stranger.close();
  });
});
