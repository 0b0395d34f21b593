/**
 * `npm run webhooks:create -- --url https://<gateway>/webhooks/commerce`: creates (or, run again,
 * updates) the store's webhook integration that feeds the gateway's subscriptions, against any
 * v2 API (production included). One integration named `commerce-gateway-subscriptions`, observing
 * cart.updated, order.created, order.updated, stock-transaction.created and
 * catalog-release.created, posting to `--url` with WEBHOOK_SECRET as its X-Moltin-Secret-Key.
 *
 * Reads from the environment (never from the command line, where a secret would sit in the shell
 * history and the process list): UPSTREAM_URL (the API's base URL, without /v2), STORE_CLIENT_ID
 * and STORE_CLIENT_SECRET (a client_credentials key of the store), WEBHOOK_SECRET (the gateway's,
 * at least 16 characters). Prints the integration's id; never the secret nor the token.
 */
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { ensureWebhookIntegration, INTEGRATION_NAME } from '../src/webhook-integration.ts';

function fail(message: string): never {
  console.error(`webhooks:create: ${message}`);
  process.exit(1);
}

const { values } = parseArgs({ options: { url: { type: 'string' } } });
const url = values.url ?? fail('--url <the gateway’s https://…/webhooks/commerce> is required');
let target: URL;
try {
  target = new URL(url);
} catch {
  fail(`--url is not a URL: ${url}`);
}
const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname);
if (target.protocol !== 'https:' && !(target.protocol === 'http:' && loopback)) {
  fail('--url must be https (the secret travels in a header), or http on this machine');
}
const apiUrl = (process.env.UPSTREAM_URL ?? '').replace(/\/+$/, '') || fail('set UPSTREAM_URL');
const clientId = process.env.STORE_CLIENT_ID || fail('set STORE_CLIENT_ID');
const clientSecret = process.env.STORE_CLIENT_SECRET || fail('set STORE_CLIENT_SECRET');
const secret = process.env.WEBHOOK_SECRET ?? '';
if (secret.length < 16) fail('set WEBHOOK_SECRET (the gateway’s, at least 16 characters)');

const form = new URLSearchParams({
  grant_type: 'client_credentials',
  client_id: clientId,
  client_secret: clientSecret,
});
const answer = await request(`${apiUrl}/oauth/access_token`, {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: form.toString(),
}).catch((error: unknown) =>
  fail(`cannot reach ${apiUrl}: ${(error as { code?: string }).code ?? String(error)}`),
);
const body = (await answer.body.json().catch(() => ({}))) as { access_token?: unknown };
if (answer.statusCode !== 200 || typeof body.access_token !== 'string') {
  fail(`the store refused the client credentials (${answer.statusCode})`);
}
try {
  const made = await ensureWebhookIntegration({ apiUrl, token: body.access_token, url, secret });
  console.log(
    `${made.created ? 'created' : 'updated'} integration ${made.id} (${INTEGRATION_NAME}) → ${url}`,
  );
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
