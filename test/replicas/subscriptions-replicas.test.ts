/**
 * Subscriptions across replicas (issue 32): three `npm start` processes (UPSTREAM_URL to one
 * embedded service, one REDIS_URL, one WEBHOOK_SECRET) on a real redis-server, the store's
 * integration made with `npm run webhooks:create` pointing at replica B's receiver only, as a load
 * balancer would route the store's webhooks. Subscribers connect to replica A, writes go through
 * replica C:
 *  (a) A's subscriber receives `cartUpdated` for a write through C within 1 s of its answer;
 *  (b) a subscriber whose token cannot read the cart receives nothing for it, while a
 *      legitimate one on the same replica receives the same event;
 *  (c) A is SIGKILLed while its client follows a cart: the client reconnects to C with the
 *      `Last-Event-ID` it last saw and is given every event published meanwhile, in order, once;
 * and a webhook the store delivers again (its id) to another replica reaches subscribers once.
 * The per-caller limit across the three replicas is test/replicas/replicas.test.ts's.
 *
 * The same scenarios run on one `npm start` without REDIS_URL (the integration made with the
 * gateway's createIntegration mutation): A, B and C are that one process, and for (c) the client
 * drops its connection and reconnects to it. A process that is killed and started again has
 * lost its in-process window, as docs/subscriptions.md says: the id is answered EVENTS_MISSED.
 */
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';
import { type MainProcess, scriptArgs, spawnMain } from '../support/main-process.ts';
import { describeWithRedis, type RedisServer, startRedis } from '../support/redis.ts';
import { type SseFrame, type SseSubscription, subscribe } from '../support/sse.ts';

const SECRET = 'replicas-webhook-secret-0123456789';
const DEMO = { id: 'demo', secret: 'demo-secret' };
const OTHER = { id: 'other', secret: 'other-secret' };

const CART_UPDATED = `subscription($id: ID!) {
  cartUpdated(cartId: $id) { eventId cart { upstreamId items { sku } } } }`;

/** The gateway processes of one deployment, by the role each plays in the scenarios. */
interface Deployment {
  stack: Stack;
  /** Where subscribers connect (replica A). */
  a: MainProcess;
  /** Where the store's webhooks arrive (replica B). */
  b: MainProcess;
  /** Where writes go, and where a dropped client reconnects (replica C). */
  c: MainProcess;
  /**
   * Loses `sub`'s connection as the deployment would (Redis: A is SIGKILLed; one process: the
   * client drops it).
   */
  drop(sub: SseSubscription): Promise<void>;
  /** Customer tokens of two shoppers of the demo store, by name. */
  customers: Record<'ada' | 'bob', { id: string; token: string }>;
}

const receiverOf = (replica: MainProcess) =>
  replica.url.replace(/\/graphql$/, '/webhooks/commerce');

async function gql(
  replica: MainProcess,
  token: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  const response = await fetch(replica.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as any;
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

/** The npm script a user runs, with this environment; resolves with its stdout. */
function runScript(script: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...scriptArgs(script), ...args],
      { env: { ...process.env, ...env } },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}${stderr}`)) : resolve(stdout),
    );
  });
}

/** Two customers of the demo store, signed in through the gateway as a storefront does. */
async function signIn(stack: Stack, replica: MainProcess): Promise<Deployment['customers']> {
  const customers: Partial<Deployment['customers']> = {};
  for (const name of ['ada', 'bob'] as const) {
    const made = await fetch(`${stack.serviceUrl}/v2/customers`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await stack.token()}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        data: {
          type: 'customer',
          name,
          email: `${name}@example.com`,
          password: `${name}-password`,
        },
      }),
    });
    expect(made.status).toBe(201);
    const data = await gql(
      replica,
      await stack.implicitToken(),
      `mutation($i: CreateCustomerTokenInput!) {
        createCustomerToken(input: $i) { token customer { upstreamId } } }`,
      { i: { email: `${name}@example.com`, password: `${name}-password` } },
    );
    const { token, customer } = data.createCustomerToken;
    customers[name] = { id: customer.upstreamId, token };
  }
  return customers as Deployment['customers'];
}

async function createCart(d: Deployment, name: string): Promise<string> {
  const data = await gql(
    d.c,
    await d.stack.token(),
    'mutation($n: String!) { createCart(input: { name: $n }) { cart { upstreamId } } }',
    { n: name },
  );
  return data.createCart.cart.upstreamId;
}

/** Adds an item through C (as the store, or as a customer); resolves when C has answered. */
async function addItem(d: Deployment, cartId: string, sku: string, customerToken?: string) {
  const data = await gql(
    d.c,
    await d.stack.implicitToken(),
    `mutation($i: AddCartCustomItemInput!) { addCartCustomItem(input: $i) { userErrors { code } } }`,
    { i: { cartId, name: sku, sku, quantity: 1, price: { amount: 500 } } },
    customerToken ? { 'x-moltin-customer-token': customerToken } : {},
  );
  expect(data.addCartCustomItem.userErrors).toEqual([]);
}

const skus = (frame: SseFrame | undefined): string[] =>
  (frame?.data.data.cartUpdated.cart.items ?? []).map((item: { sku: string }) => item.sku);

function order(id: string | undefined): [number, number] {
  const [ms = 0, seq = 0] = (id ?? '').split('-').map(Number);
  return [ms, seq];
}

const increasing = (ids: (string | undefined)[]) =>
  ids.every((id, i) => {
    if (i === 0) return true;
    const [am, as] = order(ids[i - 1]);
    const [bm, bs] = order(id);
    return am < bm || (am === bm && as < bs);
  });

/** The scenarios, on whatever processes `deployment()` gives. */
function scenarios(deployment: () => Deployment) {
  it('(a) a subscriber on A receives cartUpdated for a write through C within 1 s', async () => {
    const d = deployment();
    const cartId = await createCart(d, 'Followed');
    const sub = await subscribe(d.a.url, CART_UPDATED, {
      variables: { id: cartId },
      token: await d.stack.implicitToken(),
    });
    expect(sub.status).toBe(200);
    await addItem(d, cartId, 'FIRST');
    const answered = performance.now();
    const frame = await sub.next(5_000);
    const latency = performance.now() - answered;
    sub.close();
    expect(frame?.id).toMatch(/^\d+-\d+$/);
    expect(frame?.data.data.cartUpdated).toEqual({
      eventId: frame?.id,
      cart: { upstreamId: cartId, items: [{ sku: 'FIRST' }] },
    });
    expect(latency).toBeLessThanOrEqual(1_000);
  });

  it('(b) a subscriber whose token cannot read the cart receives nothing for it', async () => {
    const d = deployment();
    const { ada, bob } = d.customers;
    const implicit = await d.stack.implicitToken();
    const cartId = await createCart(d, 'Ada’s');
    // A guest's cart: anyone of the store with its id may follow it, until it becomes Ada's.
    const guest = await subscribe(d.a.url, CART_UPDATED, {
      variables: { id: cartId },
      token: implicit,
    });
    const asAda = { 'x-moltin-customer-token': ada.token };
    const owner = await subscribe(d.a.url, CART_UPDATED, {
      variables: { id: cartId },
      token: implicit,
      headers: asAda,
    });
    // The store makes it Ada's, through C: from this event on, the guest may not read it.
    const associated = await gql(
      d.c,
      await d.stack.token(),
      `mutation($i: AssociateCartInput!) { associateCart(input: $i) { userErrors { code } } }`,
      { i: { cartId, customerId: ada.id } },
    );
    expect(associated.associateCart.userErrors).toEqual([]);
    // Another customer, and another store, are refused at once, before any event.
    const refused = [
      await subscribe(d.a.url, CART_UPDATED, {
        variables: { id: cartId },
        token: implicit,
        headers: { 'x-moltin-customer-token': bob.token },
      }),
      await subscribe(d.a.url, CART_UPDATED, {
        variables: { id: cartId },
        token: await d.stack.token(OTHER.id),
      }),
    ];
    for (const sub of refused) {
      const frame = await sub.next(5_000);
      expect(frame?.data.errors[0].extensions.code).toBe('NOT_FOUND');
      expect(frame?.data.data ?? null).toBeNull();
    }
    await addItem(d, cartId, 'ADAS', ada.token);

    // Ada receives both events (the association, the item: the store may deliver them in
    // either order, each read as the cart is then) on A...
    const received = [await owner.next(5_000), await owner.next(5_000)];
    expect(received.map((frame) => frame?.data.data.cartUpdated.cart.upstreamId)).toEqual([
      cartId,
      cartId,
    ]);
    expect(received.map(skus)).toContainEqual(['ADAS']);
    // ...and, given time to read them too, the guest and the refused receive nothing.
    await new Promise((resolve) => setTimeout(resolve, 500));
    owner.close();
    const answers = (sub: SseSubscription) => sub.frames.filter((f) => f.event === 'next');
    expect(answers(guest)).toEqual([]);
    // The refused: their refusal, and nothing after it.
    for (const sub of refused) expect(answers(sub)).toHaveLength(1);
    for (const sub of [guest, ...refused]) sub.close();
  });

  it('a delivery the store repeats, to another replica, reaches subscribers once', async () => {
    const d = deployment();
    const cartId = await createCart(d, 'Repeated');
    const sub = await subscribe(d.a.url, CART_UPDATED, {
      variables: { id: cartId },
      token: await d.stack.token(),
    });
    // At least once: the store's deliverer sends the same webhook (its id) again after a
    // timeout, and the balancer may route the repeat to another replica.
    const webhook = JSON.stringify({
      id: `repeat-${cartId}`,
      triggered_by: 'cart.updated',
      payload: { data: { id: cartId, type: 'cart' } },
    });
    for (const replica of [d.b, d.c]) {
      const delivered = await fetch(receiverOf(replica), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-moltin-secret-key': SECRET },
        body: webhook,
      });
      expect(delivered.status).toBe(200);
    }
    expect((await sub.next(5_000))?.data.data.cartUpdated.cart.upstreamId).toBe(cartId);
    expect(await sub.next(1_000)).toBeUndefined();
    sub.close();
  });

  it('(c) a client that loses its replica resumes on C with Last-Event-ID: every event, in order, once', async () => {
    const d = deployment();
    const token = await d.stack.token();
    const cartId = await createCart(d, 'Resumed');
    const client = await subscribe(d.a.url, CART_UPDATED, { variables: { id: cartId }, token });
    // A witness that stays connected to C sees every event the client should.
    const witness = await subscribe(d.c.url, CART_UPDATED, { variables: { id: cartId }, token });
    await addItem(d, cartId, 'SEEN');
    const seen = await client.next(5_000);
    expect(skus(seen)).toEqual(['SEEN']);
    expect((await witness.next(5_000))?.id).toBe(seen?.id);

    await d.drop(client);
    expect(await client.next(5_000)).toBeUndefined();
    for (const sku of ['MISSED-1', 'MISSED-2', 'MISSED-3']) await addItem(d, cartId, sku);
    const missed: (string | undefined)[] = [];
    for (let i = 0; i < 3; i++) missed.push((await witness.next(5_000))?.id);
    expect(missed.every((id) => id !== undefined)).toBe(true);

    const resumed = await subscribe(d.c.url, CART_UPDATED, {
      variables: { id: cartId },
      token,
      headers: { 'last-event-id': seen?.id ?? '' },
    });
    const replayed: (string | undefined)[] = [];
    for (let i = 0; i < 3; i++) replayed.push((await resumed.next(5_000))?.id);
    expect(replayed).toEqual(missed);
    // Then live, without a repeat of what was replayed.
    await addItem(d, cartId, 'LIVE');
    const live = await resumed.next(5_000);
    const liveOnWitness = await witness.next(5_000);
    expect(live?.id).toBe(liveOnWitness?.id);
    expect(skus(live)).toEqual(['SEEN', 'MISSED-1', 'MISSED-2', 'MISSED-3', 'LIVE']);
    expect(await resumed.next(500)).toBeUndefined();
    resumed.close();
    witness.close();
    const ids = [seen?.id, ...replayed, live?.id];
    expect(new Set(ids).size).toBe(ids.length);
    expect(increasing(ids)).toBe(true);
  });
}

function stop(replica: MainProcess | undefined): Promise<void> {
  const child = replica?.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

function kill(replica: MainProcess): Promise<void> {
  return new Promise((resolve) => {
    replica.child.once('exit', () => resolve());
    replica.child.kill('SIGKILL');
  });
}

const GATEWAY_ENV = { LOG_REQUESTS: '0', METRICS: '0', WEBHOOK_SECRET: SECRET };

describeWithRedis('subscriptions across three replicas on one Redis', () => {
  let redis: RedisServer;
  let d: Deployment;
  const replicas: MainProcess[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    const stack = await startStack({ clients: [DEMO, OTHER] });
    replicas.push(
      ...(await Promise.all(
        [0, 1, 2].map(() =>
          spawnMain({ ...GATEWAY_ENV, UPSTREAM_URL: stack.serviceUrl, REDIS_URL: redis.url }),
        ),
      )),
    );
    const [a, b, c] = replicas as [MainProcess, MainProcess, MainProcess];
    // As the README says to do against production: one integration, to the balancer's address
    // (here: replica B's receiver).
    const made = await runScript('webhooks:create', ['--url', receiverOf(b)], {
      UPSTREAM_URL: stack.serviceUrl,
      STORE_CLIENT_ID: DEMO.id,
      STORE_CLIENT_SECRET: DEMO.secret,
      WEBHOOK_SECRET: SECRET,
    });
    expect(made).toMatch(/^created integration \S+ \(commerce-gateway-subscriptions\)/);
    d = {
      stack,
      a,
      b,
      c,
      drop: async () => kill(a),
      customers: await signIn(stack, c),
    };
  });

  afterAll(async () => {
    await Promise.all(replicas.map(stop));
    await d?.stack.close();
    await redis?.stop();
  });

  scenarios(() => d);
});

describe('the same subscriptions on one process, without Redis', () => {
  let d: Deployment;
  let restarted: MainProcess | undefined;

  beforeAll(async () => {
    const stack = await startStack({ clients: [DEMO, OTHER] });
    const one = await spawnMain({
      ...GATEWAY_ENV,
      UPSTREAM_URL: stack.serviceUrl,
      REDIS_URL: undefined,
    });
    expect(one.output()).not.toContain('shared through Redis');
    // The gateway's own mutation makes the integration, with the store's token.
    const made = await gql(
      one,
      await stack.token(),
      `mutation($i: CreateIntegrationInput!) {
        createIntegration(input: $i) { integration { id } userErrors { code } } }`,
      {
        i: {
          name: 'commerce-gateway-subscriptions',
          url: receiverOf(one),
          secretKey: SECRET,
          observes: [
            'cart.updated',
            'order.created',
            'order.updated',
            'stock-transaction.created',
            'catalog-release.created',
          ],
        },
      },
    );
    expect(made.createIntegration.userErrors).toEqual([]);
    d = {
      stack,
      a: one,
      b: one,
      c: one,
      drop: async (sub) => sub.close(),
      customers: await signIn(stack, one),
    };
  });

  afterAll(async () => {
    await stop(d?.a);
    await stop(restarted);
    await d?.stack.close();
  });

  scenarios(() => d);

  it('a process killed and started again kept no window: the id is EVENTS_MISSED', async () => {
    const token = await d.stack.token();
    const cartId = await createCart(d, 'Lost');
    const sub = await subscribe(d.a.url, CART_UPDATED, { variables: { id: cartId }, token });
    await addItem(d, cartId, 'BEFORE');
    const seen = await sub.next(5_000);
    expect(seen?.id).toBeDefined();
    await kill(d.a);
    sub.close();
    restarted = await spawnMain({
      ...GATEWAY_ENV,
      UPSTREAM_URL: d.stack.serviceUrl,
      REDIS_URL: undefined,
    });
    const resumed = await subscribe(restarted.url, CART_UPDATED, {
      variables: { id: cartId },
      token,
      headers: { 'last-event-id': seen?.id ?? '' },
    });
    const answer = await resumed.next(5_000);
    resumed.close();
    expect(answer?.data.errors[0].extensions).toEqual({
      code: 'EVENTS_MISSED',
      field: 'Last-Event-ID',
    });
  });
});
