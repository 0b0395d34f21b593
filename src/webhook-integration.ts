/**
 * The store's webhook integration that feeds the gateway's subscriptions, made idempotently:
 * one integration named INTEGRATION_NAME per store, created when missing and otherwise updated
 * to the receiver's URL, the secret and the followed events (a restarted `npm start` has a new
 * secret). Used by src/main.ts against the embedded service and by `npm run webhooks:create`
 * (scripts/create-webhook.ts) against any v2 store; it speaks the v2 REST API with a store
 * (client_credentials) token, as production's does.
 */
import { Agent, type Dispatcher, request } from 'undici';
import { FOLLOWED_EVENTS } from './gateway/events/webhook-receiver.ts';

/** The name that marks the integration as the gateway's (the key of its idempotence). */
// No space or punctuation: a filter value the API reads unquoted.
export const INTEGRATION_NAME = 'commerce-gateway-subscriptions';

export interface EnsureIntegrationOptions {
  /** The v2 API's base URL, without `/v2`. */
  apiUrl: string;
  /** A store (client_credentials) token. */
  token: string;
  /** Where the store posts its events: the gateway's receiver. */
  url: string;
  /** Sent by the store in X-Moltin-Secret-Key; the gateway's WEBHOOK_SECRET. */
  secret: string;
  /** A certificate authority to trust (the embedded service's, with COMMERCE_HTTPS). */
  ca?: string;
  /**
   * The connections to send on (npm start: the gateway's own pool to the origin, so nothing
   * else reaches it). Default: a client of its own, closed after.
   */
  dispatcher?: Dispatcher;
}

interface Answer {
  status: number;
  body: unknown;
}

/** Creates or updates the integration; answers its id and whether it was created. */
export async function ensureWebhookIntegration(
  options: EnsureIntegrationOptions,
): Promise<{ id: string; created: boolean }> {
  // Ours to close only when made here.
  const own =
    options.dispatcher === undefined && options.ca
      ? new Agent({ connect: { ca: options.ca } })
      : undefined;
  const dispatcher = options.dispatcher ?? own;
  const call = async (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) => {
    const response = await request(`${options.apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${options.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...(dispatcher ? { dispatcher } : {}),
    });
    const text = await response.body.text();
    const answer: Answer = { status: response.statusCode, body: text ? JSON.parse(text) : null };
    if (answer.status >= 300) {
      // The store's own words; the secret is never in them (it is not read back).
      throw new Error(`${method} ${path} answered ${answer.status}: ${text.slice(0, 300)}`);
    }
    return answer;
  };
  try {
    const filter = encodeURIComponent(`eq(name,${INTEGRATION_NAME})`);
    const listed = await call('GET', `/v2/integrations?filter=${filter}`);
    const data = (listed.body as { data?: { id?: unknown }[] } | null)?.data ?? [];
    const existing = data.find((row) => typeof row.id === 'string')?.id as string | undefined;
    const attributes = {
      type: 'integration',
      name: INTEGRATION_NAME,
      description: 'Store events for the GraphQL gateway’s subscriptions.',
      enabled: true,
      integration_type: 'webhook',
      observes: [...FOLLOWED_EVENTS],
      configuration: { url: options.url, secret_key: options.secret },
    };
    if (existing !== undefined) {
      await call('PUT', `/v2/integrations/${encodeURIComponent(existing)}`, { data: attributes });
      return { id: existing, created: false };
    }
    const made = await call('POST', '/v2/integrations', { data: attributes });
    const id = (made.body as { data?: { id?: unknown } } | null)?.data?.id;
    if (typeof id !== 'string') throw new Error('POST /v2/integrations answered no id');
    return { id, created: true };
  } finally {
    await own?.close();
  }
}
