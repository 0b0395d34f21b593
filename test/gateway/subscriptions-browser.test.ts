/**
 * A browser's own EventSource (headless Chromium, test/support/chromium.ts) follows a cart
 * through the gateway: the page's GET carries no header but Accept (its token in `access_token`),
 * the store's webhook reaches the receiver, and the page receives `next` events whose
 * `lastEventId` is the event's id, what the browser sends back as Last-Event-ID on reconnect.
 */
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
});
