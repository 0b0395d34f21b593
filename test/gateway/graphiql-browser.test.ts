/**
 * GraphiQL in a real browser (headless Chromium driven by playwright-core): the page at /graphql
 * starts with the demo token and the first query prefilled, runs it, shows the result, and
 * nothing it loads comes from anywhere but the gateway's own origin, under a
 * Content-Security-Policy it never violates. The browser comes with `npm install`: the Chromium
 * that the @sparticuz/chromium dev dependency ships inside its package (test/support/chromium.ts),
 * or CHROMIUM_PATH's. Nothing is downloaded, no system browser is needed, and the test never
 * skips: a browser that cannot start fails it.
 */
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHIQL_CSP } from '../../src/gateway/graphiql.ts';
import { type ChromiumBinary, chromiumForTests } from '../support/chromium.ts';
import { type Stack, startStack } from '../support/harness.ts';

/** Monaco renders spaces as no-break spaces: compare text with whitespace made plain. */
const plain = (text: string) => text.replace(/\s+/g, ' ');

describe('GraphiQL in Chromium', () => {
  let stack: Stack;
  let browser: Browser;
  let token: string;
  let binary: ChromiumBinary;

  beforeAll(async () => {
    binary = await chromiumForTests();
    stack = await startStack({
      seed: true,
      gateway: { graphiql: true, demoToken: () => token },
    });
    token = await stack.token();
    // Playwright gives the browser a fresh temporary profile of its own (--user-data-dir).
    browser = await chromium.launch({
      executablePath: binary.executablePath,
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

  it("runs the browser it was given: the npm package's Chromium unless CHROMIUM_PATH names one", () => {
    const version = browser.version();
    // One line in the log says which browser ran (CI's run without a system Chromium reads it).
    console.log(
      `GraphiQL browser test: Chromium ${version} from ${binary.source.kind === 'package' ? `${binary.source.name}@${binary.source.version}` : 'CHROMIUM_PATH'} (${binary.executablePath})`,
    );
    if (process.env.CHROMIUM_PATH) {
      expect(binary).toEqual({
        executablePath: process.env.CHROMIUM_PATH,
        source: { kind: 'CHROMIUM_PATH' },
      });
      return;
    }
    expect(binary.source).toMatchObject({ kind: 'package', name: '@sparticuz/chromium' });
    expect(binary.executablePath).toMatch(
      /\/node_modules\/\.cache\/sparticuz-chromium-[\d.]+\/chromium$/,
    );
    // The package's major version is its Chromium's: the browser that answered is that one.
    const packageMajor =
      binary.source.kind === 'package' ? binary.source.version.split('.')[0] : '';
    expect(version.split('.')[0]).toBe(packageMajor);
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
    await expect.poll(() => editorText('.graphiql-query-editor')).toContain('query SearchPage {');
    await page.getByText('Headers', { exact: true }).click();
    await expect.poll(() => editorText('.graphiql-editor-tool')).toContain(`Bearer ${token}`);

    const executed = page.waitForResponse(
      (r) =>
        r.url() === stack.gatewayUrl &&
        r.request().method() === 'POST' &&
        (r.request().postData() ?? '').includes('SearchPage'),
    );
    await run.click();
    const result = (await (await executed).json()) as {
      data?: { catalog: { search: { totalCount: number } } };
      errors?: unknown;
    };
    expect(result.errors).toBeUndefined();
    expect(result.data?.catalog.search.totalCount).toBeGreaterThan(0);
    // …and the person sees it in the response pane.
    await expect
      .poll(() => editorText('.graphiql-response'), { timeout: 15_000 })
      .toMatch(/"search": \{ "totalCount": \d+/);

    expect(elsewhere()).toEqual([]);
    // Monaco's workers were started from the gateway too (their loads are requests as well).
    // A worker starts when the editor asks for it, which on a busy machine can come after the
    // response is painted: wait for its request rather than expect it already made.
    await expect
      .poll(() => requests.some((url) => url.endsWith('/graphql.worker.js')), { timeout: 15_000 })
      .toBe(true);
    expect(elsewhere()).toEqual([]);
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

describe('the browser of the browser tests', () => {
  it('is never skipped for want of one: a CHROMIUM_PATH that does not exist is an error', async () => {
    await expect(chromiumForTests({ CHROMIUM_PATH: '/nonexistent/chromium' })).rejects.toThrow(
      'CHROMIUM_PATH=/nonexistent/chromium does not exist: unset it to use the Chromium of @sparticuz/chromium',
    );
  });
});
