/**
 * Catalog Search and the shopper catalog agree on who sees what: for each caller (no context, a
 * channel's rule, an account token's rule, another account, a tag whose catalog is not
 * search-enabled, a rule not yet in its schedule, the store's token), the products a match-all
 * search finds are exactly the products /catalog/products lists, from the same catalog. And
 * the index belongs to the release: a new publish is searched at once, an older release keeps
 * its own index until it is deleted, and a catalog without enable_search has none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from './catalog-fixtures.ts';
import {
  attach,
  buildSearchFixture,
  publishRelease,
  type SearchFixture,
} from './search-fixtures.ts';
import {
  type CallOptions,
  errorOf,
  type ServiceUnderTest,
  startService,
} from './service-helpers.ts';

let service: ServiceUnderTest;
let fx: SearchFixture;
let admin: string;
let implicit: string;
let now = Date.parse('2026-05-01T10:00:00.000Z');
const tick = () => {
  now += 1000;
};
/** Account tokens: a member of Acme (whose rule gives it the Trade catalog) and of Beta. */
const tokens: Record<'acme' | 'beta', string> = { acme: '', beta: '' };
const catalogs: Record<string, string> = {};

async function call(path: string, options: CallOptions = {}) {
  const result = await service.call('GET', path, options);
  if (result.status !== 200)
    throw new Error(`${path}: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body;
}

/** A member of a new account, signed in: its account token. */
async function accountToken(
  name: string,
  email: string,
): Promise<{ account: string; token: string }> {
  const settings = await call('/v2/settings/account-authentication', { token: admin });
  const realm = settings.data.relationships.authentication_realm.data.id;
  const profile = (
    await call(`/v2/authentication-realms/${realm}/password-profiles`, { token: admin })
  ).data[0].id;
  const body = (type: string, attributes: Record<string, unknown>) => ({
    json: { data: { type, ...attributes } },
    token: admin,
  });
  const made = async (path: string, type: string, attributes: Record<string, unknown>) => {
    const result = await service.call('POST', path, body(type, attributes));
    if (result.status !== 201) throw new Error(`${path}: ${JSON.stringify(result.body)}`);
    return result.body.data as { id: string };
  };
  const account = await made('/v2/accounts', 'account', { name });
  const uai = await made(
    `/v2/authentication-realms/${realm}/user-authentication-info`,
    'user_authentication_info',
    { name, email },
  );
  await service.call(
    'POST',
    `/v2/authentication-realms/${realm}/user-authentication-info/${uai.id}/user-authentication-password-profile-info`,
    body('user_authentication_password_profile_info', {
      username: email,
      password: 'a-long-password',
      password_profile_id: profile,
    }),
  );
  await service.call(
    'POST',
    `/v2/accounts/${account.id}/account-memberships`,
    body('account_membership', { account_member_id: uai.id }),
  );
  const signIn = await service.call('POST', '/v2/account-members/tokens', {
    token: implicit,
    json: {
      data: {
        type: 'account_management_authentication_token',
        authentication_mechanism: 'password',
        password_profile_id: profile,
        username: email,
        password: 'a-long-password',
      },
    },
  });
  if (signIn.status !== 201) throw new Error(`sign in: ${JSON.stringify(signIn.body)}`);
  return { account: account.id, token: signIn.body.data[0].token };
}

beforeAll(async () => {
  service = await startService({ now: () => now });
  fx = await buildSearchFixture(service, tick);
  admin = await service.token('alpha');
  implicit = await service.token('alpha', 'implicit');
  const acme = await accountToken('Acme Trading', 'ada@example.com');
  const beta = await accountToken('Beta Shop', 'bo@example.com');
  tokens.acme = acme.token;
  tokens.beta = beta.token;
  // Outdoor: its own hierarchy (shoes, hose and a tent only it holds), for the mobile channel.
  const outdoor = (await post(service, '/pcm/hierarchies', 'hierarchy', { name: 'Outdoor' })).id;
  const camping = (
    await post(service, `/pcm/hierarchies/${outdoor}/nodes`, 'node', { name: 'Camping' })
  ).id;
  const tent = (
    await post(service, '/pcm/products', 'product', {
      name: 'Tent',
      sku: 'TENT-1',
      commodity_type: 'physical',
      status: 'live',
    })
  ).id;
  await attach(service, outdoor, camping, [
    fx.products.shoes as string,
    fx.products.hose as string,
    tent,
  ]);
  const catalog = async (name: string, hierarchies: string[], search: boolean) => {
    tick();
    const id = (
      await post(service, '/catalogs', 'catalog', {
        name,
        hierarchy_ids: hierarchies,
        pricebook_id: fx.book,
        enable_search: search,
      })
    ).id as string;
    await publishRelease(service, id);
    return id;
  };
  catalogs.outdoor = await catalog('Outdoor', [outdoor], true);
  catalogs.trade = await catalog('Trade', [fx.brands], true);
  catalogs.plain = await catalog('Plain', [fx.store], false);
  const rule = (attributes: Record<string, unknown>) =>
    post(service, '/catalogs/rules', 'catalog_rule', attributes);
  await rule({ name: 'mobile', catalog_id: catalogs.outdoor, channels: ['mobile'] });
  await rule({ name: 'acme', catalog_id: catalogs.trade, account_ids: [acme.account] });
  await rule({ name: 'plain', catalog_id: catalogs.plain, tags: ['plain'] });
  await rule({
    name: 'later',
    catalog_id: catalogs.outdoor,
    channels: ['later'],
    schedules: [{ valid_from: '2030-01-01T00:00:00.000Z', valid_to: '2031-01-01T00:00:00.000Z' }],
  });
});
afterAll(() => service?.close());

/** Every product id /catalog/products lists for the caller, and the catalog it comes from. */
async function catalogView(options: CallOptions) {
  const ids: string[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await call(`/catalog/products?page[limit]=100&page[offset]=${offset}`, options);
    ids.push(...page.data.map((p: { id: string }) => p.id));
    if (page.data.length < 100) break;
  }
  const catalogId = (await call('/catalog', options)).data.attributes.catalog_id as string;
  return { ids: ids.sort(), catalogId };
}

/** Every product id a match-all search finds for the caller, page by page. */
async function searchView(options: CallOptions) {
  const ids: string[] = [];
  const catalogIds = new Set<string>();
  for (let page = 1; ; page++) {
    const result = await call(`/catalog/search?q=*&per_page=100&page=${page}`, options);
    for (const hit of result.hits) {
      ids.push(hit.document.id);
      catalogIds.add(hit.document.meta.catalog_id);
    }
    if (result.hits.length < 100) return { ids: ids.sort(), found: result.found, catalogIds };
  }
}

describe('search agrees with /catalog/products on what each caller sees', () => {
  const callers: [string, () => CallOptions, string][] = [
    ['a guest (no context): the oldest catalog', () => ({ token: implicit }), 'Everything'],
    [
      'the mobile channel: its rule’s catalog',
      () => ({ token: implicit, headers: { 'ep-channel': 'mobile' } }),
      'Outdoor',
    ],
    [
      'an Acme account member: the account’s rule',
      () => ({
        token: implicit,
        headers: { 'ep-account-management-authentication-token': tokens.acme },
      }),
      'Trade',
    ],
    [
      'a member of another account: no rule of theirs',
      () => ({
        token: implicit,
        headers: { 'ep-account-management-authentication-token': tokens.beta },
      }),
      'Everything',
    ],
    [
      'a channel whose rule is not yet scheduled',
      () => ({ token: implicit, headers: { 'ep-channel': 'later' } }),
      'Everything',
    ],
    ['the store’s own token', () => ({ token: admin }), 'Everything'],
  ];
  it.each(callers)('%s', async (_who, options, catalogName) => {
    const expected = await catalogView(options());
    const found = await searchView(options());
    expect(found.ids).toEqual(expected.ids);
    expect(found.found).toBe(expected.ids.length);
    expect([...found.catalogIds]).toEqual([expected.catalogId]);
    const named = { Everything: fx.catalog, ...catalogs } as Record<string, string>;
    expect(expected.catalogId).toBe(
      named[catalogName === 'Everything' ? 'Everything' : catalogName.toLowerCase()],
    );
    // A text query finds only what the caller may see, too.
    const shoes = await call('/catalog/search?q=shoes', options());
    for (const hit of shoes.hits) expect(expected.ids).toContain(hit.document.id);
  });

  it('refuses, with a 404 that says why, a caller whose catalog is not search-enabled', async () => {
    const options = { token: implicit, headers: { 'ep-context-tag': 'plain' } };
    expect((await catalogView(options)).catalogId).toBe(catalogs.plain);
    const result = await service.call('GET', '/catalog/search?q=*', options);
    expect(result.status).toBe(404);
    expect(errorOf(result).detail).toMatch(/enable_search/);
  });
});

describe('the index belongs to the release', () => {
  it('searches a new publish at once; an older release keeps its own index until deleted', async () => {
    const first = fx.release;
    tick();
    const kettle = (
      await post(service, '/pcm/products', 'product', {
        name: 'Kettle',
        sku: 'KETTLE-1',
        commodity_type: 'physical',
        status: 'live',
      })
    ).id;
    await attach(service, fx.store, fx.kitchen, [kettle]);
    // Not in the published release yet.
    expect((await call('/catalog/search?q=kettle', { token: implicit })).found).toBe(0);
    tick();
    const second = await publishRelease(service, fx.catalog);
    const found = await call('/catalog/search?q=kettle', { token: implicit });
    expect(found.hits.map((h: any) => [h.document.id, h.document.meta.release_id])).toEqual([
      [kettle, second],
    ]);
    const old = `/catalogs/${fx.catalog}/releases/${first}/search?q=kettle`;
    expect((await call(old, { token: admin })).found).toBe(0);
    // Three more publishes: the first release (and its index) is deleted.
    for (let i = 0; i < 3; i++) {
      tick();
      await publishRelease(service, fx.catalog);
    }
    expect((await service.call('GET', old, { token: admin })).status).toBe(404);
    expect((await call('/catalog/search?q=kettle', { token: implicit })).found).toBe(1);
  });

  it('gives no index to a release of a catalog whose search is turned off', async () => {
    const update = await service.call('PUT', `/catalogs/${fx.catalog}`, {
      json: { data: { type: 'catalog', id: fx.catalog, attributes: { enable_search: false } } },
    });
    expect(update.status).toBe(200);
    expect(update.body.data.attributes.enable_search).toBe(false);
    tick();
    await publishRelease(service, fx.catalog);
    const result = await service.call('GET', '/catalog/search?q=kettle', { token: implicit });
    expect(result.status).toBe(404);
    expect((await call('/catalog/products', { token: implicit })).data.length).toBeGreaterThan(0);
  });
});
