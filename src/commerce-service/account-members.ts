/**
 * Account members' records, shared by their routes (routes/user-authentication-info.ts,
 * routes/password-profiles.ts, routes/account-members.ts, routes/account-memberships.ts), the
 * account tokens (account-tokens.ts) and the seed: the store's account-authentication realm, its
 * default password profile, and how each record is shown.
 *
 * Production gives each store one account-authentication realm; account members are the
 * user-authentication-info records of that realm, one to one, sharing their ids. Here the realm
 * and its default password profile have ids derived from the store id, so they are stable for
 * the life of the store (and across restarts) without a row of their own for the realm.
 */
import { createHash } from 'node:crypto';
import type { Db } from './db.ts';
import { notFound } from './errors.ts';
import { isUuid, uuidFromBytes } from './ids.ts';

function derivedId(kind: string, storeId: string): string {
  return uuidFromBytes(createHash('sha256').update(`${kind}:${storeId}`).digest());
}

/** The id of a store's account-authentication realm. */
export function accountRealmId(storeId: string): string {
  return derivedId('account-authentication-realm', storeId);
}

/** The id of the settings object of `GET /v2/settings/account-authentication`. */
export function accountAuthenticationSettingsId(storeId: string): string {
  return derivedId('account-authentication-settings', storeId);
}

/** The id of the password profile every store starts with. */
export function defaultPasswordProfileId(storeId: string): string {
  return derivedId('account-password-profile', storeId);
}

/** The name production gives the password profile a store starts with. */
export const DEFAULT_PASSWORD_PROFILE_NAME = 'Username & password';

/**
 * Creates the default password profile of each store that has none. Idempotent: called for
 * every configured store when the service starts, and by the seed.
 */
export function ensureAccountRealms(db: Db, storeIds: readonly string[], now: string): void {
  const insert = db.prepare(
    `INSERT INTO password_profiles (id, store_id, realm_id, name, username_format, created_at,
                                    updated_at)
     VALUES (?, ?, ?, ?, 'any', ?, ?) ON CONFLICT (id) DO NOTHING`,
  );
  db.transaction(() => {
    for (const storeId of storeIds) {
      insert.run(
        defaultPasswordProfileId(storeId),
        storeId,
        accountRealmId(storeId),
        DEFAULT_PASSWORD_PROFILE_NAME,
        now,
        now,
      );
    }
  })();
}

/** The realm of a path, when it is the store's account realm (the only realm served); else 404. */
export function requireRealm(storeId: string, realmId: string): string {
  const realm = accountRealmId(storeId);
  if (!isUuid(realmId) || realmId.toLowerCase() !== realm) {
    throw notFound(`No authentication realm with id ${realmId} in this store.`);
  }
  return realm;
}

export interface UserAuthenticationInfoRow {
  id: string;
  store_id: string;
  realm_id: string;
  name: string | null;
  email: string | null;
  username: string | null;
  created_at: string;
  updated_at: string;
}

export function presentUserAuthenticationInfo(row: UserAuthenticationInfoRow) {
  return {
    id: row.id,
    type: 'user_authentication_info',
    name: row.name,
    email: row.email,
    ...(row.username === null ? {} : { username: row.username }),
    links: { self: `/v2/authentication-realms/${row.realm_id}/user-authentication-info/${row.id}` },
    meta: { created_at: row.created_at, updated_at: row.updated_at },
  };
}

/** An account member: the user-authentication-info record of the account realm, as a member. */
export function presentAccountMember(row: UserAuthenticationInfoRow) {
  return {
    id: row.id,
    type: 'account_member',
    name: row.name,
    email: row.email,
    links: { self: `/v2/account-members/${row.id}` },
    meta: { timestamps: { created_at: row.created_at, updated_at: row.updated_at } },
  };
}

/** The member `id` of the store's account realm; 404 when there is none. */
export function findAccountMember(db: Db, storeId: string, id: string): UserAuthenticationInfoRow {
  const row = isUuid(id)
    ? (db
        .prepare('SELECT * FROM user_authentication_info WHERE store_id = ? AND id = ?')
        .get(storeId, id.toLowerCase()) as UserAuthenticationInfoRow | undefined)
    : undefined;
  if (!row) throw notFound(`No account member with id ${id}.`);
  return row;
}

/** Members by id, for a page's `included.account_members` (one query for any number). */
export function accountMembersByIds(
  db: Db,
  storeId: string,
  ids: readonly string[],
): UserAuthenticationInfoRow[] {
  if (ids.length === 0) return [];
  return db
    .prepare(
      `SELECT * FROM user_authentication_info
        WHERE store_id = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY id`,
    )
    .all(storeId, JSON.stringify([...new Set(ids)])) as UserAuthenticationInfoRow[];
}

export interface AccountMembershipRow {
  id: string;
  store_id: string;
  account_id: string;
  account_member_id: string;
  created_at: string;
  updated_at: string;
}

/** Most members one account may have (production's limit). */
export const MAX_MEMBERSHIPS_PER_ACCOUNT = 1000;

/**
 * A membership as production shows it. `withAccount` adds the account it is in, for the lists
 * read from the member's side (`GET /v2/account-members/{id}/account-memberships`), where the
 * account is what the caller does not know.
 */
export function presentMembership(row: AccountMembershipRow, withAccount = false) {
  return {
    id: row.id,
    type: 'account_membership',
    relationships: {
      account_member: { data: { id: row.account_member_id, type: 'account_member' } },
      ...(withAccount ? { account: { data: { id: row.account_id, type: 'account' } } } : {}),
    },
    links: { self: `/v2/accounts/${row.account_id}/account-memberships/${row.id}` },
    meta: { timestamps: { created_at: row.created_at, updated_at: row.updated_at } },
  };
}
