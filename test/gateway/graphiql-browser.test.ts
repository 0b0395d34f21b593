/**
 * GraphiQL in a real browser (Debian's Chromium, headless, driven by playwright-core): the page
 * at /graphql starts with the demo token and the first query prefilled, runs it, shows the
 * result, and nothing it loads comes from anywhere but the gateway's own origin, under a
 * Content-Security-Policy it never violates. No browser is downloaded: without Chromium at
 * CHROMIUM_PATH (default /usr/bin/chromium) this test fails; `.ci/run` installs it.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHIQL_CSP } from '../../src/gateway/graphiql.ts';
import { type Stack, startStack } from '../support/harness.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Monaco renders spaces as no-break spaces: compare text with whitespace made plain. */
const plain = (text: string) => text.replace(/\s+/g, ' ');

describe('GraphiQL in Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  let token: string;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `Chromium not found at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`,
      );
    }
    stack = await startStack({
      seed: true,
      gateway: { graphiql: true, demoToken: () => token },
    });
    token = await stack.token();
    // Playwright gives the browser a fresh temporary profile of its own (--user-data-dir).
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  it('runs the prefilled first query with the demo token, loading only from the gateway', async () => {
    const origin = new URL(stack.gatewayUrl).origin;
    const context = await browser.newContext();
    const page = await context.newPage();
    const requests: string[] = [];
    context.on('request', (request) => requests.push(request.url()));
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    // A CSP-blocked load never becomes a request: the browser reports it as a violation.
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
      });
    });

    const response = await page.goto(stack.gatewayUrl);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toBe(GRAPHIQL_CSP);

    const elsewhere = () =>
      requests.filter((url) => {
        const { protocol } = new URL(url);
        if (protocol === 'data:' || protocol === 'blob:') return false;
        return new URL(url).origin !== origin;
      });

    const run = page.getByRole('button', { name: /execute query/i });
    await run.waitFor({ timeout: 30_000 }).catch((error: Error) => {
      // A page that never comes up: say what it tried to load and what the browser refused.
      throw new Error(
        `GraphiQL did not render (${error.message.split('\n')[0]}); requests elsewhere: ${JSON.stringify(elsewhere())}; problems: ${JSON.stringify(problems)}`,
      );
    });
    // The first query and the demo token are there before anyone types.
    const editorText = async (selector: string) => plain(await page.locator(selector).innerText());
    await expect.poll(() => editorText('.graphiql-query-editor')).toContain('query FirstLook {');
    await page.getByText('Headers', { exact: true }).click();
    await expect.poll(() => editorText('.graphiql-editor-tool')).toContain(`Bearer ${token}`);

    const executed = page.waitForResponse(
      (r) =>
        r.url() === stack.gatewayUrl &&
        r.request().method() === 'POST' &&
        (r.request().postData() ?? '').includes('FirstLook'),
    );
    await run.click();
    const result = (await (await executed).json()) as {
      data?: { customApis: { totalCount: number }; orders: { totalCount: number } };
      errors?: unknown;
    };
    expect(result.errors).toBeUndefined();
    expect(result.data?.orders.totalCount).toBeGreaterThan(0);
    // …and the person sees it in the response pane.
    await expect
      .poll(() => editorText('.graphiql-response'), { timeout: 15_000 })
      .toMatch(/"customApis": \{ "totalCount": \d+/);

    expect(elsewhere()).toEqual([]);
    // Monaco's workers were started from the gateway too (their loads are requests as well).
    expect(requests.some((url) => url.endsWith('/graphql.worker.js'))).toBe(true);
    expect(problems).toEqual([]);

    // The token is renewed every 50 minutes by `npm start`; a reload shows the renewed one.
    const firstToken = token;
    token = await stack.implicitToken();
    expect(token).not.toBe(firstToken);
    await page.reload();
    await page.getByText('Headers', { exact: true }).click();
    await expect.poll(() => editorText('.graphiql-editor-tool')).toContain(`Bearer ${token}`);
    expect(await editorText('.graphiql-editor-tool')).not.toContain(firstToken);
    expect(elsewhere()).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
