/**
 * Starts the commerce service alone on 127.0.0.1:0 and talks to it over real HTTP, as a client
 * of the production API would. Shared by the service-core suites.
 */
import { createCommerceService } from '../../src/commerce-service/app.ts';
import type {
  ClientCredentials,
  SignInLimits,
  WebhookDelivery,
} from '../../src/commerce-service/config.ts';
import type { Clock } from '../../src/commerce-service/time.ts';

export interface CallOptions {
  /** Bearer token; `null` sends no Authorization header. Default: the first client's token. */
  token?: string | null;
  /** A JSON body (sent as application/json). */
  json?: unknown;
  /** A raw body, sent with `contentType`. */
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  /** Parsed JSON when the body is JSON, else the text ('' for no body). */
  body: any;
}

export interface ServiceUnderTest {
  url: string;
  /** A fresh token for the client (default the first) and grant. */
  token(clientId?: string, grant?: 'client_credentials' | 'implicit'): Promise<string>;
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  close(): Promise<void>;
}

export const DEFAULT_TEST_CLIENTS: ClientCredentials[] = [
  { id: 'alpha', secret: 'alpha-secret' },
  { id: 'beta', secret: 'beta-secret' },
];

export async function startService(
  options: {
    clients?: ClientCredentials[];
    now?: Clock;
    dbPath?: string;
    signInLimits?: Partial<SignInLimits>;
    webhooks?: Partial<WebhookDelivery>;
  } = {},
): Promise<ServiceUnderTest> {
  const clients = options.clients ?? DEFAULT_TEST_CLIENTS;
  const app = await createCommerceService({
    dbPath: options.dbPath ?? ':memory:',
    clients,
    seed: false,
    ...(options.now ? { now: options.now } : {}),
    ...(options.signInLimits ? { signInLimits: options.signInLimits } : {}),
    ...(options.webhooks ? { webhooks: options.webhooks } : {}),
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });

  const token = async (clientId = clients[0]?.id ?? '', grant = 'client_credentials') => {
    const client = clients.find((c) => c.id === clientId);
    const form = new URLSearchParams({ grant_type: grant, client_id: clientId });
    if (grant === 'client_credentials') form.set('client_secret', client?.secret ?? '');
    const response = await fetch(`${url}/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    if (response.status !== 200) throw new Error(`token: ${response.status}`);
    const body = (await response.json()) as { access_token: string };
    return body.access_token;
  };

  let defaultToken: string | undefined;
  const call = async (method: string, path: string, opts: CallOptions = {}) => {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    let authToken = opts.token;
    if (authToken === undefined) {
      defaultToken ??= await token();
      authToken = defaultToken;
    }
    if (authToken !== null) headers.authorization = `Bearer ${authToken}`;
    let body: string | undefined;
    if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers['content-type'] = 'application/json';
    } else if (opts.raw !== undefined) {
      body = opts.raw;
      if (opts.contentType) headers['content-type'] = opts.contentType;
    }
    const response = await fetch(`${url}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text !== '') {
      parsed = JSON.parse(text);
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };

  return { url, token, call, close: () => app.close() };
}

/** Asserts nothing; returns the single error object of a JSON:API error body, or throws. */
export function errorOf(result: CallResult): {
  status: number;
  title: string;
  detail: string;
  source?: string;
} {
  const errors = (result.body as { errors?: unknown[] })?.errors;
  if (!Array.isArray(errors) || errors.length !== 1) {
    throw new Error(`expected one JSON:API error, got ${JSON.stringify(result.body)}`);
  }
  return errors[0] as { status: number; title: string; detail: string; source?: string };
}

export const CUSTOM_APIS = '/v2/settings/extensions/custom-apis';

/** Creates a Custom API and returns its id. */
export async function createCustomApi(
  service: ServiceUnderTest,
  attributes: Record<string, unknown> = {},
  token?: string,
): Promise<string> {
  const result = await service.call('POST', CUSTOM_APIS, {
    json: {
      data: {
        type: 'custom_api',
        name: 'Wishlists',
        slug: 'wishlists',
        api_type: 'wishlist_ext',
        ...attributes,
      },
    },
    ...(token ? { token } : {}),
  });
  if (result.status !== 201) throw new Error(`create custom api: ${JSON.stringify(result.body)}`);
  return (result.body as { data: { id: string } }).data.id;
}

/** Deterministic PRNG (mulberry32) so a failure can be replayed. */
export function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
