/**
 * The shared catalog cache against upstreams that price by catalog rule (issue 28, findings 3
 * and 4): a stand-in of production's /catalog (test/support/rule-priced-upstream.ts: one
 * catalog, one release, rules with their own price books) and the embedded service, which
 * applies a rule's price books too. For guests, customers, account members and channels, in
 * both orders of first reader, every field of the page a second caller gets through a gateway
 * the first caller warmed equals what the upstream gives that caller directly (a gateway that
 * shares nothing); a VIP's contract price is never shown to a guest; and a page holding a sale
 * in a currency other than the display one stops being served when that sale ends.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/create-gateway.ts';
import { createRequestListener } from '../../src/gateway/fast-path.ts';
import { saleEnds } from '../../src/schema/catalog/shared-catalog.ts';
import { buildCatalogFixture, type CatalogFixture, publish } from '../service/catalog-fixtures.ts';
import type { CallOptions, ServiceUnderTest } from '../service/service-helpers.ts';
import { type Stack, startStack } from '../support/harness.ts';
import {
  type RulePricedUpstream,
  startRulePricedUpstream,
} from '../support/rule-priced-upstream.ts';
import type { Json } from './fixtures.ts';

const PRICE = `fragment P on CatalogPrice { currency includesTax amount { amount currency formatted }
  withTax { amount formatted } withoutTax { amount formatted } original { amount formatted } }`;
const PAGE = `query($s: String!) { catalog { product(slug: $s) { upstreamId sku catalogId releaseId
  usd: price(currency: "USD") { ...P } eur: price(currency: "EUR") { ...P }
  breadcrumbs { upstreamId name }
  children(first: 10) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node {
    upstreamId sku name productType parentId catalogId releaseId
    usd: price(currency: "USD") { ...P } eur: price(currency: "EUR") { ...P } } } } } } }
  ${PRICE}`;

interface Caller {
  name: string;
  token: string;
  headers: Record<string, string>;
}

interface Gateway {
  read(caller: Caller, slug: string, headers?: Record<string, string>): Promise<Json>;
  close(): Promise<void>;
}

/** A gateway over `upstreamUrl` on a real socket; `catalogCacheSeconds` 0 shares nothing. */
async function startGateway(upstreamUrl: string, catalogCacheSeconds: number): Promise<Gateway> {
  const gateway = createGateway({ graphiql: false, upstreamUrl, catalogCacheSeconds });
  const server: Server = createServer(createRequestListener(gateway, {}));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  return {
    async read(caller, slug, headers = {}) {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${caller.token}`,
          ...caller.headers,
          ...headers,
        },
        body: JSON.stringify({ query: PAGE, variables: { s: slug } }),
      });
      const body = (await response.json()) as Json;
      expect(body.errors, `${caller.name}: ${JSON.stringify(body.errors)}`).toBeUndefined();
      return body.data;
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await gateway.dispose();
    },
  };
}

/**
 * Every ordered pair of callers: the second reader's answer through a gateway the first warmed
 * equals its answer through a gateway that shares nothing. Returns how many pairs were served
 * the children page from the shared reads (so a test can tell sharing still happens).
 */
async function everyPairMatches(
  upstreamUrl: string,
  callers: readonly Caller[],
  slug: string,
  childCalls: () => number,
): Promise<string[]> {
  const direct = await startGateway(upstreamUrl, 0);
  const shared: string[] = [];
  try {
    const own = new Map<string, Json>();
    for (const caller of callers) own.set(caller.name, await direct.read(caller, slug));
    for (const first of callers) {
      for (const second of callers) {
        if (first === second) continue;
        const gateway = await startGateway(upstreamUrl, 60);
        try {
          await gateway.read(first, slug);
          const before = childCalls();
          const answer = await gateway.read(second, slug);
          if (childCalls() === before) shared.push(`${first.name}→${second.name}`);
          expect(answer, `${second.name} after ${first.name}`).toEqual(own.get(second.name));
        } finally {
          await gateway.close();
        }
      }
    }
  } finally {
    await direct.close();
  }
  return shared;
}

const childPrice = (page: Json, sku: string) =>
  page.catalog.product.children.edges.find((e: Json) => e.node.sku === sku)?.node.usd?.amount
    .amount;

describe('a stand-in of production that prices by catalog rule', () => {
  let upstream: RulePricedUpstream;
  const guest: Caller = { name: 'guest', token: 'implicit-1', headers: {} };
  const callers: Caller[] = [
    guest,
    { name: 'another guest', token: 'implicit-2', headers: {} },
    {
      name: 'VIP customer',
      token: 'implicit-1',
      headers: { 'x-moltin-customer-token': 'vip-customer-token' },
    },
    {
      name: 'plain customer',
      token: 'implicit-1',
      headers: { 'x-moltin-customer-token': 'plain-customer-token' },
    },
    {
      name: 'Acme account member',
      token: 'implicit-1',
      headers: { 'ep-account-management-authentication-token': 'acme-member-token' },
    },
    { name: 'mobile channel', token: 'implicit-1', headers: { 'ep-channel': 'mobile' } },
    { name: 'tagged guest', token: 'implicit-1', headers: { 'ep-context-tag': 'summer' } },
  ];
  beforeAll(async () => {
    upstream = await startRulePricedUpstream();
  });
  afterAll(() => upstream?.close());
  const children = () => upstream.calls.filter((c) => c.includes('/children')).length;

  it('never shows a VIP customer’s contract price (111) to a guest (999)', async () => {
    const gateway = await startGateway(upstream.url, 60);
    try {
      const vip = await gateway.read(callers[2] as Caller, 'tee');
      expect(childPrice(vip, 'TEE-S')).toBe(111);
      const before = children();
      const page = await gateway.read(guest, 'tee');
      expect(childPrice(page, 'TEE-S')).toBe(999);
      expect(children()).toBe(before + 1);
      // The VIP's and the Acme member's parent answers are alike (book C), their children not.
      const acme = await gateway.read(callers[4] as Caller, 'tee');
      expect(acme.catalog.product.usd).toEqual(vip.catalog.product.usd);
      expect(childPrice(acme, 'TEE-S')).toBe(222);
    } finally {
      await gateway.close();
    }
  });

  it('gives every second reader what the upstream gives them, in every order', async () => {
    const shared = await everyPairMatches(upstream.url, callers, 'tee', children);
    // Guests of one channel and tag still share, whatever their bearer token.
    expect(shared).toContain('guest→another guest');
    expect(shared).toContain('another guest→guest');
    expect(shared).not.toContain('guest→plain customer');
  });
});

/** The embedded service behind a ServiceUnderTest face, for the catalog fixture builder. */
function serviceFace(stack: Stack): ServiceUnderTest {
  return {
    url: stack.serviceUrl,
    token: (_client, grant = 'client_credentials') =>
      grant === 'implicit' ? stack.implicitToken() : stack.token(),
    async call(method: string, path: string, options: CallOptions = {}) {
      const token = options.token === undefined ? await stack.token() : options.token;
      const response = await fetch(`${stack.serviceUrl}${path}`, {
        method,
        headers: {
          ...(token === null ? {} : { authorization: `Bearer ${token}` }),
          ...(options.json === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
        ...(options.json === undefined ? {} : { body: JSON.stringify(options.json) }),
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text && JSON.parse(text) };
    },
    close: async () => undefined,
  };
}

describe('the embedded service, which applies a rule’s price books', () => {
  let stack: Stack;
  let service: ServiceUnderTest;
  let fx: CatalogFixture;
  let catalog: string;
  const callers: Caller[] = [];
  const children = () => stack.upstreamRequests.filter((r) => r.url.includes('/children')).length;

  async function ok(method: string, path: string, data: unknown, token?: string) {
    const result = await service.call(method, path, { json: { data }, token });
    expect(result.status, `${path}: ${JSON.stringify(result.body)}`).toBeLessThan(300);
    return result.body.data;
  }

  async function book(name: string, prices: Record<string, Record<string, number>>) {
    const id = (await ok('POST', '/pcm/pricebooks', { type: 'pricebook', attributes: { name } }))
      .id as string;
    for (const [sku, amounts] of Object.entries(prices)) {
      const currencies = Object.fromEntries(
        Object.entries(amounts).map(([c, amount]) => [c, { amount, includes_tax: false }]),
      );
      await ok('POST', `/pcm/pricebooks/${id}/prices`, {
        type: 'product-price',
        attributes: { sku, currencies },
      });
    }
    return id;
  }

  /** An account member of a new account, signed in: their account token. */
  async function accountMemberToken(
    guestToken: string,
  ): Promise<{ account: string; token: string }> {
    const settings = await service.call('GET', '/v2/settings/account-authentication');
    const realm = settings.body.data.relationships.authentication_realm.data.id;
    const profiles = await service.call(
      'GET',
      `/v2/authentication-realms/${realm}/password-profiles`,
    );
    const profile = profiles.body.data[0].id;
    const account = (await ok('POST', '/v2/accounts', { type: 'account', name: 'Acme' })).id;
    const uai = `/v2/authentication-realms/${realm}/user-authentication-info`;
    const member = await ok('POST', uai, {
      type: 'user_authentication_info',
      name: 'Ada',
      email: 'ada@example.com',
    });
    await ok('POST', `${uai}/${member.id}/user-authentication-password-profile-info`, {
      type: 'user_authentication_password_profile_info',
      username: 'ada@example.com',
      password: 'ada-password',
      password_profile_id: profile,
    });
    await ok('POST', `/v2/accounts/${account}/account-memberships`, {
      type: 'account_membership',
      account_member_id: member.id,
    });
    const tokens = await ok(
      'POST',
      '/v2/account-members/tokens',
      {
        type: 'account_management_authentication_token',
        authentication_mechanism: 'password',
        password_profile_id: profile,
        username: 'ada@example.com',
        password: 'ada-password',
      },
      guestToken,
    );
    return { account, token: tokens[0].token };
  }

  async function customerToken(name: string, guestToken: string) {
    const email = `${name}@example.com`;
    const customer = await ok('POST', '/v2/customers', {
      type: 'customer',
      name,
      email,
      password: `${name}-password`,
    });
    const signIn = await ok(
      'POST',
      '/v2/customers/tokens',
      { type: 'token', email, password: `${name}-password` },
      guestToken,
    );
    return { id: customer.id as string, token: signIn.token as string };
  }

  beforeAll(async () => {
    stack = await startStack({ seed: false });
    service = serviceFace(stack);
    fx = await buildCatalogFixture(service);
    const vipBook = await book('VIP', { 'TEE-S': { USD: 111, EUR: 101 } });
    const acmeBook = await book('Acme', { 'TEE-S': { USD: 222 }, 'TEE-M': { USD: 223 } });
    const mobileBook = await book('Mobile', { 'TEE-M': { USD: 333 } });
    catalog = (
      await ok('POST', '/catalogs', {
        type: 'catalog',
        attributes: { name: 'Shop', hierarchy_ids: [fx.apparel], pricebook_id: fx.book },
      })
    ).id;
    const guest = await stack.implicitToken();
    const vip = await customerToken('vera', guest);
    const plain = await customerToken('paul', guest);
    const member = await accountMemberToken(guest);
    const rule = (name: string, criteria: Record<string, unknown>, books: string[]) =>
      ok('POST', '/catalogs/rules', {
        type: 'catalog_rule',
        attributes: {
          name,
          catalog_id: catalog,
          ...criteria,
          pricebook_ids: books.map((id, i) => ({ id, priority: books.length - i })),
        },
      });
    await rule('vip', { customer_ids: [vip.id] }, [vipBook]);
    await rule('acme', { account_ids: [member.account] }, [acmeBook]);
    await rule('mobile', { channels: ['mobile'] }, [mobileBook]);
    await publish(service, catalog);
    const other = await (async () => {
      const form = new URLSearchParams({ grant_type: 'implicit', client_id: 'demo' });
      const response = await fetch(`${stack.serviceUrl}/oauth/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      });
      return ((await response.json()) as { access_token: string }).access_token;
    })();
    callers.push(
      { name: 'guest', token: guest, headers: {} },
      { name: 'another guest', token: other, headers: {} },
      { name: 'VIP customer', token: guest, headers: { 'x-moltin-customer-token': vip.token } },
      { name: 'plain customer', token: guest, headers: { 'x-moltin-customer-token': plain.token } },
      {
        name: 'Acme account member',
        token: guest,
        headers: { 'ep-account-management-authentication-token': member.token },
      },
      { name: 'mobile channel', token: guest, headers: { 'ep-channel': 'mobile' } },
    );
  });
  afterAll(() => stack?.close());

  it('gives every second reader what the service gives them, in every order', async () => {
    expect(callers[1]?.token).not.toBe(callers[0]?.token);
    const direct = await startGateway(stack.serviceUrl, 0);
    try {
      const vip = await direct.read(callers[2] as Caller, 'tee');
      expect(childPrice(vip, 'TEE-S')).toBe(111);
      expect(childPrice(await direct.read(callers[0] as Caller, 'tee'), 'TEE-S')).toBe(1500);
    } finally {
      await direct.close();
    }
    const shared = await everyPairMatches(stack.serviceUrl, callers, 'tee', children);
    expect(shared).toContain('guest→another guest');
  });

  it('stops serving a page when a sale ends in a currency other than the display one', async () => {
    // A EUR-only sale on TEE-S that ends in four seconds; the page is read in USD.
    const prices = await service.call('GET', `/pcm/pricebooks/${fx.book}/prices`);
    const price = (prices.body.data as Json[]).find((p) => p.attributes.sku === 'TEE-S');
    const ends = Date.now() + 4_000;
    await ok('PUT', `/pcm/pricebooks/${fx.book}/prices/${price.id}`, {
      type: 'product-price',
      id: price.id,
      attributes: {
        sales: {
          flash: {
            schedule: {
              valid_from: new Date(ends - 60_000).toISOString(),
              valid_to: new Date(ends).toISOString(),
            },
            currencies: { EUR: { amount: 1, includes_tax: false } },
          },
        },
      },
    });
    await publish(service, catalog);
    const gateway = await startGateway(stack.serviceUrl, 60);
    const usd = { 'x-moltin-currency': 'USD' };
    const eur = (page: Json) =>
      page.catalog.product.children.edges.find((e: Json) => e.node.sku === 'TEE-S').node.eur;
    try {
      const during = await gateway.read(callers[0] as Caller, 'tee', usd);
      expect(eur(during)).toMatchObject({ amount: { amount: 1 }, original: { amount: 1400 } });
      // Shared while the sale runs: another guest reads the children page without a call.
      const calls = children();
      expect(await gateway.read(callers[1] as Caller, 'tee', usd)).toEqual(during);
      expect(children()).toBe(calls);
      while (Date.now() <= ends + 50) await new Promise((r) => setTimeout(r, 100));
      const before = children();
      const after = await gateway.read(callers[1] as Caller, 'tee', usd);
      expect(eur(after)).toMatchObject({ amount: { amount: 1400 }, original: null });
      expect(children()).toBe(before + 1);
    } finally {
      await gateway.close();
    }
  });
});

describe('saleEnds', () => {
  const row = (meta: Json, price: Json = {}) => ({ id: 'x', attributes: { price }, meta });
  const money = (amount: number) => ({ amount, includes_tax: false });

  it('is the earliest sale end in any currency a page holds', () => {
    const usd = row({ sale_id: 'a', sale_expires: '2030-01-02T00:00:00Z' });
    const eur = row(
      {
        original_price: { EUR: money(10) },
        sales: { b: { schedule: { valid_to: '2030-01-01T00:00:00Z' }, currencies: { EUR: {} } } },
      },
      { EUR: money(5) },
    );
    expect(saleEnds([usd, eur])).toBe(Date.parse('2030-01-01T00:00:00Z'));
  });

  it('is now (not shareable) for a sale in a currency whose end the answer does not tell', () => {
    const untold = row(
      {
        display_price: { without_tax: { amount: 10, currency: 'USD' } },
        original_price: { USD: money(10), EUR: money(10) },
      },
      { USD: money(10), EUR: money(5) },
    );
    expect(saleEnds([untold])).toBe(0);
    // On sale in the display currency only, with no end: a permanent sale, shareable.
    const permanent = row(
      {
        sale_id: 'p',
        display_price: { without_tax: { amount: 5, currency: 'USD' } },
        original_price: { USD: money(10) },
      },
      { USD: money(5) },
    );
    expect(saleEnds([permanent])).toBeUndefined();
  });
});
