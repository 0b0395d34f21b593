/**
 * `npm start` wires the embedded service's webhook integration to the gateway by itself: a
 * subscriber of the process users start receives cartUpdated with nothing configured. On SIGTERM
 * open subscriptions end with `complete` (their clients reconnect elsewhere) instead of holding
 * the drain until SHUTDOWN_TIMEOUT_MS cuts them off, and the process exits 0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MainProcess, spawnMain } from '../support/main-process.ts';
import { subscribe } from '../support/sse.ts';

describe('npm start and subscriptions', () => {
  let main: MainProcess;
  let token: string;

  beforeAll(async () => {
    main = await spawnMain({
      COMMERCE_DB: ':memory:',
      COMMERCE_PORT: '0',
      LOG_REQUESTS: '0',
      SHUTDOWN_TIMEOUT_MS: '60000',
      WEBHOOK_SECRET: undefined,
    });
    const [, found = ''] = await main.waitFor(/Authorization: Bearer (\S+)/);
    token = found;
  });

  afterAll(() => {
    if (main?.child.exitCode === null) main.child.kill('SIGKILL');
  });

  it('says where the store’s events arrive, and a subscriber receives them', async () => {
    expect(main.output()).toMatch(
      /store events: +http:\/\/127\.0\.0\.1:\d+\/webhooks\/commerce ← the demo store's integration "commerce-gateway-subscriptions"/,
    );
    // The generated secret is never printed.
    expect(main.output()).not.toMatch(/secret[^:]*: [A-Za-z0-9_-]{40,}/i);
    const gql = async (query: string) =>
      (
        await fetch(main.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ query }),
        })
      ).json();
    const made = await gql(
      'mutation { createCart(input: { name: "Started" }) { cart { upstreamId } } }',
    );
    const cartId = made.data.createCart.cart.upstreamId as string;
    const sub = await subscribe(
      main.url,
      `subscription { cartUpdated(cartId: "${cartId}") { eventId cart { items { sku } } } }`,
      { token },
    );
    await gql(
      `mutation { addCartCustomItem(input: { cartId: "${cartId}", name: "Mug", sku: "STARTED",
        quantity: 1, price: { amount: 100 } }) { userErrors { code } } }`,
    );
    const frame = await sub.next(10_000);
    expect(frame?.data.data.cartUpdated.cart.items).toEqual([{ sku: 'STARTED' }]);

    // SIGTERM: the subscription ends with `complete`, and the process exits 0 long before the
    // drain's 60 s timeout would have cut the stream.
    const exited = new Promise<number | null>((resolve) => main.child.once('exit', resolve));
    main.child.kill('SIGTERM');
    expect(await sub.next(30_000)).toBeUndefined();
    expect(sub.frames.at(-1)?.event).toBe('complete');
    expect(await exited).toBe(0);
    sub.close();
  }, 60_000);
});
