/**
 * Every input of the account-member routes judged, over real HTTP: bodies of the wrong shape or
 * type, ids that are not uuids, unbounded usernames and passwords (never echoed), unknown and
 * unserved sign-in mechanisms, a member added twice (409) or to a full account (422), bad
 * account tokens, and an account checkout's body. Each is a 4xx with the error document and a
 * `source` where a field is at fault; none is a 5xx and none writes anything.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../../src/commerce-service/db.ts';
import { storeIdForClient } from '../../src/commerce-service/ids.ts';
import { errorOf, type ServiceUnderTest, startService } from './service-helpers.ts';

let dir: string;
let service: ServiceUnderTest;
let db: Db;
let implicit: string;
let realm: string;
let profile: string;
let account: string;
let member: string;
let accountToken: string;
const NO_SUCH = '00000000-0000-4000-8000-000000000000';
const SECRET = 'hunter2-hunter2';

const ADDRESS = {
  first_name: 'A',
  last_name: 'B',
  line_1: '1 Road',
  region: 'R',
  postcode: 'P1',
  country: 'GB',
};

/** Row counts of every table these routes write. */
function counts() {
  const n = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get();
  return {
    uai: n('user_authentication_info'),
    passwords: n('user_authentication_password_profile_info'),
    profiles: n('password_profiles'),
    memberships: n('account_memberships'),
    tokens: n('account_tokens'),
    orders: n('orders'),
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'service-account-members-'));
  const dbPath = join(dir, 'commerce.sqlite');
  service = await startService({ dbPath });
  db = openDatabase(dbPath);
  implicit = await service.token('alpha', 'implicit');
  const settings = await service.call('GET', '/v2/settings/account-authentication');
  realm = settings.body.data.relationships.authentication_realm.data.id;
  profile = (await service.call('GET', `/v2/authentication-realms/${realm}/password-profiles`)).body
    .data[0].id;
  account = (
    await service.call('POST', '/v2/accounts', {
      json: { data: { type: 'account', name: 'Acme' } },
    })
  ).body.data.id;
  member = (
    await service.call('POST', `/v2/authentication-realms/${realm}/user-authentication-info`, {
      json: { data: { type: 'user_authentication_info', name: 'M', email: 'm@example.com' } },
    })
  ).body.data.id;
  await service.call(
    'POST',
    `/v2/authentication-realms/${realm}/user-authentication-info/${member}/user-authentication-password-profile-info`,
    {
      json: {
        data: {
          type: 'user_authentication_password_profile_info',
          username: 'm@example.com',
          password: SECRET,
          password_profile_id: profile,
        },
      },
    },
  );
  await service.call('POST', `/v2/accounts/${account}/account-memberships`, {
    json: { data: { type: 'account_membership', account_member_id: member } },
  });
  accountToken = (
    await service.call('POST', '/v2/account-members/tokens', {
      token: implicit,
      json: {
        data: {
          type: 'account_management_authentication_token',
          authentication_mechanism: 'password',
          password_profile_id: profile,
          username: 'm@example.com',
          password: SECRET,
        },
      },
    })
  ).body.data[0].token;
});
afterAll(async () => {
  db?.close();
  await service?.close();
  rmSync(dir, { recursive: true, force: true });
});

type Case = [method: string, path: string, body: unknown, status: number, source?: string];

async function expectRefused(
  cases: Case[],
  options: { token?: string; headers?: Record<string, string> } = {},
) {
  const before = counts();
  const problems: string[] = [];
  for (const [method, path, body, status, source] of cases) {
    const result = await service.call(method, path, {
      ...options,
      ...(body === undefined ? {} : { json: body }),
    });
    const error = result.status >= 400 ? errorOf(result) : undefined;
    if (result.status !== status || (source !== undefined && error?.source !== source)) {
      problems.push(
        `${method} ${path} ${JSON.stringify(body)}: ${result.status} ${JSON.stringify(result.body)}`,
      );
    }
    if (
      JSON.stringify(result.body).includes(SECRET) ||
      JSON.stringify(result.body).includes('x'.repeat(300))
    ) {
      problems.push(`${method} ${path}: echoed a secret or an over-long value`);
    }
  }
  expect(problems).toEqual([]);
  expect(counts()).toEqual(before);
}

describe('bad input to the account-member routes', () => {
  it('judges user-authentication-info bodies and ids', async () => {
    const base = `/v2/authentication-realms/${realm}/user-authentication-info`;
    const uai = (data: unknown) => ({ data });
    await expectRefused([
      ['POST', base, undefined, 400],
      ['POST', base, { data: [] }, 400, 'data'],
      ['POST', base, uai({ name: 'N', email: 'n@example.com' }), 400, 'data.type'],
      [
        'POST',
        base,
        uai({ type: 'account_member', name: 'N', email: 'n@example.com' }),
        400,
        'data.type',
      ],
      [
        'POST',
        base,
        uai({ type: 'user_authentication_info', name: 7, email: 'n@example.com' }),
        400,
        'data.name',
      ],
      [
        'POST',
        base,
        uai({ type: 'user_authentication_info', name: 'N', email: 'not-an-email' }),
        400,
        'data.email',
      ],
      [
        'POST',
        base,
        uai({ type: 'user_authentication_info', name: 'x'.repeat(300), email: 'n@example.com' }),
        400,
        'data.name',
      ],
      ['POST', base, uai({ type: 'user_authentication_info', name: 'N' }), 400, 'data.email'],
      ['POST', base, uai({ type: 'user_authentication_info', username: '' }), 400, 'data.username'],
      [
        'POST',
        base,
        uai({
          type: 'user_authentication_info',
          name: 'N',
          email: 'n@example.com',
          password: SECRET,
        }),
        400,
        'data.password',
      ],
      [
        'POST',
        `/v2/authentication-realms/not-a-realm/user-authentication-info`,
        uai({ type: 'user_authentication_info', username: 'u' }),
        404,
      ],
      [
        'POST',
        `/v2/authentication-realms/${NO_SUCH}/user-authentication-info`,
        uai({ type: 'user_authentication_info', username: 'u' }),
        404,
      ],
      ['GET', `${base}/not-a-uuid`, undefined, 404],
      [
        'PUT',
        `${base}/${member}`,
        uai({ type: 'user_authentication_info', email: 'nope' }),
        400,
        'data.email',
      ],
      ['PUT', `${base}/${NO_SUCH}`, uai({ type: 'user_authentication_info', name: 'N' }), 404],
      ['DELETE', `${base}/${NO_SUCH}`, undefined, 404],
      ['GET', `${base}?page[limit]=101`, undefined, 400, 'page[limit]'],
      ['GET', `${base}?sort=email`, undefined, 400, 'sort'],
      ['GET', `${base}?filter=eq(password,x)`, undefined, 400],
    ]);
  });

  it('judges passwords and password profiles, and never echoes a password', async () => {
    const infos = `/v2/authentication-realms/${realm}/user-authentication-info/${member}/user-authentication-password-profile-info`;
    const other = (
      await service.call('POST', `/v2/authentication-realms/${realm}/user-authentication-info`, {
        json: { data: { type: 'user_authentication_info', username: 'other' } },
      })
    ).body.data.id;
    const otherInfos = infos.replace(member, other);
    const info = (extra: Record<string, unknown>) => ({
      data: {
        type: 'user_authentication_password_profile_info',
        username: 'o@example.com',
        password: SECRET,
        password_profile_id: profile,
        ...extra,
      },
    });
    const infoId = (await service.call('GET', infos)).body.data[0].id;
    await expectRefused([
      ['POST', otherInfos, info({ password: undefined }), 400, 'data.password'],
      ['POST', otherInfos, info({ password: 'short' }), 400, 'data.password'],
      ['POST', otherInfos, info({ password: SECRET.repeat(100) }), 400, 'data.password'],
      ['POST', otherInfos, info({ password: 12345678 }), 400, 'data.password'],
      ['POST', otherInfos, info({ username: undefined }), 400, 'data.username'],
      ['POST', otherInfos, info({ username: 'x'.repeat(300) }), 400, 'data.username'],
      ['POST', otherInfos, info({ password_profile_id: 'nope' }), 400, 'data.password_profile_id'],
      ['POST', otherInfos, info({ password_profile_id: NO_SUCH }), 400, 'data.password_profile_id'],
      ['POST', otherInfos, info({ type: 'password' }), 400, 'data.type'],
      ['POST', otherInfos, info({ extra: 1 }), 400, 'data.extra'],
      // The member already has a username in this profile; the username is taken anyway.
      ['POST', infos, info({}), 409],
      ['POST', otherInfos, info({ username: 'M@example.com' }), 409, 'data.username'],
      [
        'PUT',
        `${infos}/${infoId}`,
        { data: { password_profile_id: NO_SUCH } },
        400,
        'data.password_profile_id',
      ],
      ['PUT', `${infos}/${infoId}`, { data: { password: 'short' } }, 400, 'data.password'],
      ['GET', `${infos}/not-a-uuid`, undefined, 404],
      ['GET', `${otherInfos}/${infoId}`, undefined, 404],
      [
        'POST',
        `/v2/authentication-realms/${realm}/password-profiles`,
        { data: { type: 'password_profile' } },
        400,
        'data.name',
      ],
      [
        'POST',
        `/v2/authentication-realms/${realm}/password-profiles`,
        { data: { type: 'password_profile', name: 'P', username_format: 'phone' } },
        400,
        'data.username_format',
      ],
      [
        'POST',
        `/v2/authentication-realms/${realm}/password-profiles`,
        { data: { type: 'password_profile', name: 'P', enable_one_time_password_token: true } },
        400,
        'data.enable_one_time_password_token',
      ],
      ['GET', `/v2/authentication-realms/${realm}/password-profiles/${NO_SUCH}`, undefined, 404],
    ]);
  });

  it('judges memberships: ids, type, duplicates, the 1,000-member limit, include and filters', async () => {
    const base = `/v2/accounts/${account}/account-memberships`;
    const membership = (extra: Record<string, unknown>) => ({
      data: { type: 'account_membership', account_member_id: member, ...extra },
    });
    await expectRefused([
      ['POST', base, membership({ account_member_id: undefined }), 400, 'data.account_member_id'],
      ['POST', base, membership({ account_member_id: 'm' }), 400, 'data.account_member_id'],
      ['POST', base, membership({ type: 'membership' }), 400, 'data.type'],
      ['POST', base, membership({ account_member_id: NO_SUCH }), 404],
      ['POST', base, membership({}), 409, 'data.account_member_id'],
      ['POST', '/v2/accounts/not-a-uuid/account-memberships', membership({}), 404],
      ['GET', `${base}?include=accounts`, undefined, 400, 'include'],
      ['GET', `${base}?filter=eq(email,x)`, undefined, 400],
      ['GET', `${base}/not-a-uuid`, undefined, 404],
      ['DELETE', `${base}/${NO_SUCH}`, undefined, 404],
      ['GET', '/v2/account-members?sort=password', undefined, 400, 'sort'],
      ['GET', '/v2/account-members/not-a-uuid', undefined, 404],
    ]);

    // Fill another account to the limit straight in the database, then one more over HTTP.
    const full = (
      await service.call('POST', '/v2/accounts', {
        json: { data: { type: 'account', name: 'Full' } },
      })
    ).body.data.id;
    const store = storeIdForClient('alpha');
    const now = '2026-01-01T00:00:00.000Z';
    db.transaction(() => {
      const uai = db.prepare(
        `INSERT INTO user_authentication_info (id, store_id, realm_id, name, email, created_at, updated_at)
         VALUES (?, ?, ?, 'bulk', NULL, ?, ?)`,
      );
      const join = db.prepare(
        `INSERT INTO account_memberships (id, store_id, account_id, account_member_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      );
      for (let i = 0; i < 1000; i++) {
        const id = `10000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
        uai.run(id, store, realm, now, now);
        join.run(
          `20000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
          store,
          full,
          id,
          now,
          now,
        );
      }
    })();
    await expectRefused([
      [
        'POST',
        `/v2/accounts/${full}/account-memberships`,
        membership({}),
        422,
        'data.account_member_id',
      ],
    ]);
  });

  it('judges sign-in bodies: type, mechanism, bounds, and the switch', async () => {
    const tokens = '/v2/account-members/tokens';
    const body = (extra: Record<string, unknown>) => ({
      data: {
        type: 'account_management_authentication_token',
        authentication_mechanism: 'password',
        password_profile_id: profile,
        username: 'm@example.com',
        password: SECRET,
        ...extra,
      },
    });
    await expectRefused(
      [
        ['POST', tokens, undefined, 400],
        ['POST', tokens, body({ type: 'token' }), 400, 'data.type'],
        [
          'POST',
          tokens,
          body({ authentication_mechanism: undefined }),
          400,
          'data.authentication_mechanism',
        ],
        [
          'POST',
          tokens,
          body({ authentication_mechanism: 'magic' }),
          400,
          'data.authentication_mechanism',
        ],
        [
          'POST',
          tokens,
          body({ authentication_mechanism: 'oidc' }),
          400,
          'data.authentication_mechanism',
        ],
        [
          'POST',
          tokens,
          body({ authentication_mechanism: 'passwordless' }),
          400,
          'data.authentication_mechanism',
        ],
        [
          'POST',
          tokens,
          // Served, but only where the store's settings enable it (account-signup.test.ts).
          body({ authentication_mechanism: 'self_signup' }),
          403,
        ],
        ['POST', tokens, body({ username: 'x'.repeat(300) }), 400, 'data.username'],
        ['POST', tokens, body({ username: 7 }), 400, 'data.username'],
        ['POST', tokens, body({ password: SECRET.repeat(100) }), 400, 'data.password'],
        ['POST', tokens, body({ password: '' }), 400, 'data.password'],
        ['POST', tokens, body({ password_profile_id: 'default' }), 400, 'data.password_profile_id'],
        ['POST', tokens, body({ password_profile_id: NO_SUCH }), 401],
        ['POST', `${tokens}?page[limit]=0`, body({}), 400, 'page[limit]'],
        // Switching needs the current token…
        [
          'POST',
          tokens,
          body({
            authentication_mechanism: 'account_management_authentication_token',
            account_id: account,
          }),
          401,
        ],
      ],
      { token: implicit },
    );
    // …and an account id of the member's.
    await expectRefused(
      [
        [
          'POST',
          tokens,
          body({ authentication_mechanism: 'account_management_authentication_token' }),
          400,
          'data.account_id',
        ],
        [
          'POST',
          tokens,
          body({
            authentication_mechanism: 'account_management_authentication_token',
            account_id: 'acme',
          }),
          400,
          'data.account_id',
        ],
        [
          'POST',
          tokens,
          body({
            authentication_mechanism: 'account_management_authentication_token',
            account_id: NO_SUCH,
          }),
          404,
        ],
      ],
      { token: implicit, headers: { 'ep-account-management-authentication-token': accountToken } },
    );
  });

  it('refuses malformed or unknown account tokens with 401 (both tokens together: account-members.test.ts)', async () => {
    for (const value of ['a b', 'x'.repeat(5000), 'ü', 'f'.repeat(64)]) {
      const result = await service.call('GET', '/v2/carts', {
        token: implicit,
        headers: { 'ep-account-management-authentication-token': value },
      });
      expect(result.status, value.slice(0, 10)).toBe(401);
    }
  });

  it('judges an account checkout body and places no order', async () => {
    const as = {
      token: implicit,
      headers: { 'ep-account-management-authentication-token': accountToken },
    };
    const cart = (await service.call('POST', '/v2/carts', { ...as, json: { data: { name: 'c' } } }))
      .body.data.id;
    await service.call('POST', `/v2/carts/${cart}/items`, {
      ...as,
      json: {
        data: { type: 'custom_item', name: 'n', sku: 's', quantity: 1, price: { amount: 100 } },
      },
    });
    const path = `/v2/carts/${cart}/checkout`;
    const checkout = (extra: Record<string, unknown>) => ({
      data: { contact: { name: 'C', email: 'c@example.com' }, billing_address: ADDRESS, ...extra },
    });
    await expectRefused(
      [
        ['POST', path, undefined, 400],
        ['POST', path, checkout({ contact: 'me' }), 400, 'data.contact'],
        [
          'POST',
          path,
          checkout({ contact: { name: 'C', email: 'nope' } }),
          400,
          'data.contact.email',
        ],
        ['POST', path, checkout({ contact: { email: 'c@example.com' } }), 400, 'data.contact.name'],
        ['POST', path, checkout({ account: 'acme' }), 400, 'data.account'],
        ['POST', path, checkout({ account: { id: 7 } }), 400, 'data.account.id'],
        ['POST', path, checkout({ account: { id: NO_SUCH } }), 403],
        ['POST', path, checkout({ account: { id: account, member_id: NO_SUCH } }), 403],
        ['POST', path, checkout({ contact: undefined, customer: { id: NO_SUCH } }), 403],
        ['POST', path, checkout({ billing_address: undefined }), 400, 'data.billing_address'],
        [
          'POST',
          path,
          checkout({ billing_address: { ...ADDRESS, country: 7 } }),
          400,
          'data.billing_address.country',
        ],
      ],
      as,
    );
  });
});
