/**
 * What test/service/reference-storefront.test.ts replays the reference storefront with: its
 * `@epcc-sdk/sdks-shopper` client built as examples/core/src/lib/create-elastic-path-client.ts
 * builds it (the interceptors of packages/sdks/nextjs, with the cookies they read kept in a
 * jar), a record of every request the SDK sent, and the checks of an answer's shape.
 */
import { createClient } from '@epcc-sdk/sdks-shopper';
import { expect } from 'vitest';

/** The storefront's cookies: `_store_ep_credentials`, `_store_ep_cart`, the member token. */
export interface CookieJar {
  /** The implicit token's response (`createAnAccessToken`), as the middleware keeps it. */
  credentials?: { access_token: string; expires: number };
  cart?: string;
  /** `_store_ep_account_member_token`: one token per account, the selected one, the member. */
  member?: {
    accounts: Record<string, { account_id: string; account_name: string; token: string }>;
    selected: string;
    accountMemberId: string;
  };
  /** getPreferredCurrency(lang, getAllCurrencies()): undefined while the store lists none. */
  currency?: string;
}

export interface SentRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: Record<string, string>;
  status: number;
}

/** A fetch that records what the SDK sends: it changes nothing of the request. */
export function recordingFetch(baseUrl: string, sent: SentRequest[]) {
  return async (request: Request): Promise<Response> => {
    const response = await fetch(request);
    sent.push({
      method: request.method,
      path: request.url.slice(baseUrl.length),
      headers: Object.fromEntries(request.headers.entries()),
      status: response.status,
    });
    return response;
  };
}

/**
 * createElasticPathClient(): createClient({ baseUrl }) then applyDefaultNextMiddleware (the
 * auth-cookie interceptor: Authorization from the credentials cookie unless the call set one;
 * the account-cookie interceptor: EP-Account-Management-Authentication-Token of the selected
 * account) and applyMultiLocationInventoryMiddleware (EP-Inventories-Multi-Location: true).
 */
export function storefrontClient(baseUrl: string, jar: CookieJar, sent: SentRequest[]) {
  const client = createClient({ baseUrl, fetch: recordingFetch(baseUrl, sent) } as never);
  client.interceptors.request.use((request: Request) => {
    const token = jar.credentials?.access_token;
    if (token && !request.headers.has('Authorization')) {
      request.headers.set('Authorization', `Bearer ${token}`);
    }
    return request;
  });
  client.interceptors.request.use((request: Request) => {
    const token = jar.member?.accounts[jar.member.selected]?.token;
    if (token) request.headers.set('EP-Account-Management-Authentication-Token', token);
    return request;
  });
  client.interceptors.request.use((request: Request) => {
    request.headers.set('EP-Inventories-Multi-Location', 'true');
    return request;
  });
  return client;
}

/** An SDK call's result: the storefront reads `data`; every call of the visit must be 2xx. */
export function ok(
  result: { data?: unknown; error?: unknown; response?: Response },
  what: string,
): any {
  const status = result.response?.status ?? 0;
  expect(status >= 200 && status < 300, `${what}: ${status} ${JSON.stringify(result.error)}`).toBe(
    true,
  );
  return result.data;
}

type Kind = 'string' | 'number' | 'boolean' | 'object' | 'array' | 'id';

/**
 * Asserts the fields the storefront dereferences (and the specification requires): each key is
 * a dotted path, `[]` stepping into every element of a non-empty array.
 */
export function expectShape(value: unknown, fields: Record<string, Kind>, what: string): void {
  for (const [path, kind] of Object.entries(fields)) {
    for (const [where, found] of walk(value, path.split('.'), what)) {
      expect(kindOf(found), `${where} should be ${kind}: ${JSON.stringify(found)}`).toBe(
        kind === 'id' ? 'string' : kind,
      );
      if (kind === 'id') expect(found, where).toMatch(/^[0-9a-f-]{36}$/);
    }
  }
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value;
}

function walk(value: unknown, steps: string[], where: string): [string, unknown][] {
  const [step, ...rest] = steps;
  if (step === undefined) return [[where, value]];
  if (step.endsWith('[]')) {
    const key = step.slice(0, -2);
    const list = key === '' ? value : (value as Record<string, unknown> | undefined)?.[key];
    expect(
      Array.isArray(list) && list.length > 0,
      `${where}.${step} should be a non-empty array`,
    ).toBe(true);
    return (list as unknown[]).flatMap((item, i) => walk(item, rest, `${where}.${key}[${i}]`));
  }
  const next = (value as Record<string, unknown> | undefined)?.[step];
  return walk(next, rest, `${where}.${step}`);
}

/** A display price as the specification gives one (amount, currency, formatted). */
export function price(prefix: string): Record<string, Kind> {
  return {
    [`${prefix}.amount`]: 'number',
    [`${prefix}.currency`]: 'string',
    [`${prefix}.formatted`]: 'string',
  };
}
