/**
 * Account members' records, shared by their routes (account-members/user-authentication-info-routes.ts,
 * account-members/password-profiles-routes.ts, account-members/routes.ts, account-members/memberships-routes.ts), the
 * account tokens (account-tokens.ts) and the seed: the store's account-authentication realm, its
 * default password profile, and how each record is shown.
 *
 * Production gives each store one account-authentication realm; account members are the
 * user-authentication-info records of that realm, one to one, sharing their ids. Here the realm
 * and its default password profile have ids derived from the store id, so they are stable for
 * the life of the store (and across restarts) without a row of their own for the realm.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../db.ts';
import { notFound } from '../errors.ts';
import { isUuid, uuidFromBytes } from '../ids.ts';
import { emitEvent } from '../integrations/events.ts';

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

/** Writes a new user-authentication-info record (an account member too): account-member.created. */
export function insertUserAuthenticationInfo(db: Db, row: UserAuthenticationInfoRow): void {
  db.prepare(
    `INSERT INTO user_authentication_info (id, store_id, realm_id, name, email, username,
                                           created_at, updated_at)
     VALUES (@id, @store_id, @realm_id, @name, @email, @username, @created_at, @updated_at)`,
  ).run(row);
  // The record is an account member too (same id): production's account-member.created.
  emitEvent(db, row.store_id, 'account-member.created', () => ({
    data: presentAccountMember(row),
  }));
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

/** Writes a new membership (the caller checked the limit and duplicates): account-membership.created. */
export function insertMembership(db: Db, row: AccountMembershipRow): void {
  db.prepare(
    `INSERT INTO account_memberships (id, store_id, account_id, account_member_id,
                                      created_at, updated_at)
     VALUES (@id, @store_id, @account_id, @account_member_id, @created_at, @updated_at)`,
  ).run(row);
  emitEvent(db, row.store_id, 'account-membership.created', () => ({
    data: presentMembership(row),
  }));
}

/** The store's account-authentication settings (`/v2/settings/account-authentication`). */
export interface AccountAuthenticationSettings {
  /** Shoppers may sign themselves up (`self_signup` tokens). Default false. */
  enable_self_signup: boolean;
  /** A member who signs up gets an account of their own, named after them. Default false. */
  auto_create_account_for_account_members: boolean;
  /** Whether a member may update their own record; only `disabled` is served here. */
  account_member_self_management: 'disabled' | 'update_only';
  /** Lifetime of an account token, seconds. Default 86,400 (production's). */
  account_management_authentication_token_timeout_secs: number;
}

export const DEFAULT_ACCOUNT_AUTHENTICATION_SETTINGS: Readonly<AccountAuthenticationSettings> = {
  enable_self_signup: false,
  auto_create_account_for_account_members: false,
  account_member_self_management: 'disabled',
  account_management_authentication_token_timeout_secs: 24 * 3600,
};

interface SettingsRow {
  enable_self_signup: number;
  auto_create_account_for_account_members: number;
  account_member_self_management: 'disabled' | 'update_only';
  token_timeout_secs: number;
}

/** The store's settings; the defaults while it never changed them. */
export function readAccountAuthenticationSettings(
  db: Db,
  storeId: string,
): AccountAuthenticationSettings {
  const row = db
    .prepare('SELECT * FROM account_authentication_settings WHERE store_id = ?')
    .get(storeId) as SettingsRow | undefined;
  if (row === undefined) return { ...DEFAULT_ACCOUNT_AUTHENTICATION_SETTINGS };
  return {
    enable_self_signup: row.enable_self_signup === 1,
    auto_create_account_for_account_members: row.auto_create_account_for_account_members === 1,
    account_member_self_management: row.account_member_self_management,
    account_management_authentication_token_timeout_secs: row.token_timeout_secs,
  };
}

export function writeAccountAuthenticationSettings(
  db: Db,
  storeId: string,
  settings: AccountAuthenticationSettings,
  now: string,
): void {
  db.prepare(
    `INSERT INTO account_authentication_settings (store_id, enable_self_signup,
       auto_create_account_for_account_members, account_member_self_management,
       token_timeout_secs, updated_at)
     VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (store_id) DO UPDATE SET enable_self_signup = excluded.enable_self_signup,
       auto_create_account_for_account_members = excluded.auto_create_account_for_account_members,
       account_member_self_management = excluded.account_member_self_management,
       token_timeout_secs = excluded.token_timeout_secs, updated_at = excluded.updated_at`,
  ).run(
    storeId,
    settings.enable_self_signup ? 1 : 0,
    settings.auto_create_account_for_account_members ? 1 : 0,
    settings.account_member_self_management,
    settings.account_management_authentication_token_timeout_secs,
    now,
  );
}
