/**
 * A browser's own EventSource (headless Chromium, test/support/chromium.ts) follows a cart
 * through the gateway: the page's GET carries no header but Accept (its token in `access_token`),
 * the store's webhook reaches the receiver, and the page receives `next` events whose
 * `lastEventId` is the event's id; when the connection drops, the browser reconnects by itself
 * with that id as Last-Event-ID and receives what was published meanwhile.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/create-gateway.ts';
import { compareEventIds, createMemoryBus } from '../../src/gateway/events/memory-bus.ts';
import { createRequestListener } from '../../src/gateway/fast-path.ts';
import { ensureWebhookIntegration } from '../../src/webhook-integration.ts';
import { chromiumForTests } from '../support/chromium.ts';
import { type Stack, startStack } from '../support/harness.ts';

const SECRET = 'browser-webhook-secret';

describe('EventSource in Chromium', () => {
  let stack: Stack;
  let browser: Browser;

  beforeAll(async () => {
    const binary = await chromiumForTests();
    stack = await startStack({ gateway: { events: { webhookSecret: SECRET } } });
    await ensureWebhookIntegration({
      apiUrl: stack.serviceUrl,
      token: await stack.token(),
      url: stack.gatewayUrl.replace(/\/graphql$/, '/webhooks/commerce'),
      secret: SECRET,
    });
    browser = await chromium.launch({
      executablePath: binary.executablePath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('receives cartUpdated events with their ids', async () => {
    const made = await stack.graphql(
      'mutation { createCart(input: { name: "Browser" }) { cart { upstreamId } } }',
    );
    const cartId = made.body.data.createCart.cart.upstreamId as string;
    const token = await stack.implicitToken();
    const page = await browser.newPage();
    // A page of the gateway's own origin (the health answer will do): no CORS in the way.
    await page.goto(new URL('/healthz', stack.gatewayUrl).href);
    const query = `subscription { cartUpdated(cartId: "${cartId}") { eventId cart { items { sku } } } }`;
    const url = `${stack.gatewayUrl}?query=${encodeURIComponent(query)}&access_token=${token}`;
    await page.evaluate((source) => {
      const seen: { id: string; data: string }[] = [];
      (window as unknown as { seen: typeof seen }).seen = seen;
      const events = new EventSource(source);
      events.addEventListener('next', (event) => {
        const message = event as MessageEvent<string>;
        seen.push({ id: message.lastEventId, data: message.data });
      });
      (window as unknown as { opened: Promise<void> }).opened = new Promise((resolve) => {
        events.addEventListener('open', () => resolve());
      });
    }, url);
    await page.evaluate(() => (window as unknown as { opened: Promise<void> }).opened);

    await stack.graphql(
      `mutation($i: AddCartCustomItemInput!) { addCartCustomItem(input: $i) { userErrors { code } } }`,
      {
        i: { cartId, name: 'Browser mug', sku: 'BROWSER-MUG', quantity: 1, price: { amount: 100 } },
      },
    );
    await page.waitForFunction(
      () => (window as unknown as { seen: unknown[] }).seen.length > 0,
      undefined,
      { timeout: 10_000 },
    );
    const seen = await page.evaluate(
      () => (window as unknown as { seen: { id: string; data: string }[] }).seen,
    );
    await page.close();
    const first = seen[0];
    expect(first?.id).toMatch(/^\d+-\d+$/);
    expect(JSON.parse(first?.data ?? 'null')).toEqual({
      data: { cartUpdated: { eventId: first?.id, cart: { items: [{ sku: 'BROWSER-MUG' }] } } },
    });
  });

  it('reconnects by itself with Last-Event-ID and misses nothing published meanwhile', async () => {
    // A gateway of the test's own, so the test can drop its connections and publish to its bus.
    const bus = createMemoryBus();
    const gateway = createGateway({
      upstreamUrl: stack.serviceUrl,
      graphiql: false,
      events: { bus },
    });
    const server = createServer(createRequestListener(gateway));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const page = await browser.newPage();
    try {
      const made = await stack.graphql(
        'mutation { createCart(input: { name: "Reconnect" }) { cart { upstreamId } } }',
      );
      const cartId = made.body.data.createCart.cart.upstreamId as string;
      const resumedWith: (string | undefined)[] = [];
      page.on('request', (request) => {
        if (request.url().startsWith(`${base}/graphql`)) {
          void request.allHeaders().then((headers) => resumedWith.push(headers['last-event-id']));
        }
      });
      await page.goto(`${base}/healthz`);
      const query = `subscription { cartUpdated(cartId: "${cartId}") { eventId } }`;
      const token = await stack.implicitToken();
      await page.evaluate(
        (source) => {
          const seen: string[] = [];
          (window as unknown as { seen: string[] }).seen = seen;
          const events = new EventSource(source);
          events.addEventListener('next', (event) =>
            seen.push((event as MessageEvent).lastEventId),
          );
        },
        `${base}/graphql?query=${encodeURIComponent(query)}&access_token=${token}`,
      );
      const seen = () => page.evaluate(() => (window as unknown as { seen: string[] }).seen);
      const publish = () =>
        bus.publish({
          type: 'cart.updated',
          subject: { cartId },
          receivedAt: new Date().toISOString(),
        });
      // Publish until the page has one (its stream is open then).
      const published: string[] = [];
      for (let i = 0; i < 100 && (await seen()).length === 0; i += 1) {
        published.push((await publish()).id);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const [first] = await seen();
      // The connection drops; two events are published while the browser is away.
      server.closeAllConnections();
      const missed = [(await publish()).id, (await publish()).id];
      const last = missed[1] ?? '';
      await page.waitForFunction(
        (id) => (window as unknown as { seen: string[] }).seen.includes(id),
        last,
        { timeout: 15_000 },
      );
      const all = await seen();
      // Nothing missed, nothing twice: every id after the first, each once, in order.
      const after = [
        ...published.filter((id) => compareEventIds(id, first ?? '0-0') > 0),
        ...missed,
      ];
      expect(all.slice(all.indexOf(first ?? ''))).toEqual([first, ...after]);
      expect(resumedWith.at(-1)).toBe(all[all.indexOf(missed[0] ?? '') - 1]);
    } finally {
      await page.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await gateway.dispose();
      await bus.close();
    }
  }, 30_000);
});
