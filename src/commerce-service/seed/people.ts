/**
 * The demo store's people who can sign in: customers (`POST /v2/customers/tokens`) and B2B
 * account members (`POST /v2/account-members/tokens`), with the passwords docs/storefront.md documents.
 * Each set comes from a PRNG stream of its own, so adding it changed no other seeded row, and
 * passwords are hashed with salts from that stream (hashPasswordSync): deterministic, and about
 * 40 ms of scrypt each.
 */
import {
  accountRealmId,
  DEFAULT_ACCOUNT_AUTHENTICATION_SETTINGS,
  defaultPasswordProfileId,
  ensureAccountRealms,
  writeAccountAuthenticationSettings,
} from '../account-members/records.ts';
import { hashPasswordSync } from '../customers/records.ts';
import type { Db } from '../db.ts';
import { createRandom, iso, SEED_EPOCH } from './random.ts';

/**
 * The demo store's customers and their passwords (documented in docs/storefront.md, so a storefront
 * developer can sign in: `POST /v2/customers/tokens`, or `createCustomerToken` in GraphQL).
 */
export const DEMO_CUSTOMERS = [
  { name: 'Ada Lovelace', email: 'ada@example.com', password: 'ada-demo-password' },
  { name: 'Grace Hopper', email: 'grace@example.com', password: 'grace-demo-password' },
] as const;

/** The demo B2B accounts whose members can sign in (docs/embedded-service.md, demo data). */
export const DEMO_MEMBER_ACCOUNTS = ['Acme Corp', 'Beta LLC'] as const;

/**
 * The demo account members: username (their email, in the store's default "Username &
 * password" profile), password, and the accounts of DEMO_MEMBER_ACCOUNTS they belong to.
 */
export const DEMO_ACCOUNT_MEMBERS = [
  {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    password: 'ada-password',
    accounts: ['Acme Corp', 'Beta LLC'],
  },
  { name: 'Bo Baker', email: 'bo@example.com', password: 'bo-password', accounts: ['Beta LLC'] },
] as const;

const DAY = 86_400_000;

/** DEMO_CUSTOMERS; returns how many were written. */
export function seedCustomers(db: Db, storeId: string): number {
  const people = createRandom(`commerce-seed-customers:${storeId}`);
  const customerStmt = db.prepare(
    `INSERT INTO customers (id, store_id, name, email, email_key, password_hash, created_at,
                            updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  DEMO_CUSTOMERS.forEach((customer, i) => {
    const at = iso(SEED_EPOCH - 31 * DAY + i * 60_000);
    const salt = Buffer.from(people.uuid().replaceAll('-', ''), 'hex');
    customerStmt.run(
      people.uuid(),
      storeId,
      customer.name,
      customer.email,
      customer.email.toLowerCase(),
      hashPasswordSync(customer.password, salt),
      at,
      at,
    );
  });
  return DEMO_CUSTOMERS.length;
}

/**
 * DEMO_MEMBER_ACCOUNTS and DEMO_ACCOUNT_MEMBERS with their passwords and memberships, dated
 * before every other seeded record (so the first pages of the seeded lists are as they were).
 */
export function seedAccountMembers(db: Db, storeId: string): { accounts: number; members: number } {
  const people = createRandom(`commerce-seed-account-members:${storeId}`);
  let clock = SEED_EPOCH - 32 * DAY;
  const tick = () => {
    clock += 60_000;
    return iso(clock);
  };
  ensureAccountRealms(db, [storeId], iso(SEED_EPOCH - 32 * DAY));
  // Shoppers may sign themselves up, each with an account of their own, as the reference
  // storefront's registration page expects.
  writeAccountAuthenticationSettings(
    db,
    storeId,
    {
      ...DEFAULT_ACCOUNT_AUTHENTICATION_SETTINGS,
      enable_self_signup: true,
      auto_create_account_for_account_members: true,
    },
    iso(SEED_EPOCH - 32 * DAY),
  );
  const realm = accountRealmId(storeId);
  const profile = defaultPasswordProfileId(storeId);
  const accountIds = new Map<string, string>();
  const insertAccount = db.prepare(
    `INSERT INTO accounts (id, store_id, name, legal_name, registration_id, created_at, updated_at)
     VALUES (?, ?, ?, ?, NULL, ?, ?)`,
  );
  for (const name of DEMO_MEMBER_ACCOUNTS) {
    const id = people.uuid();
    const at = tick();
    insertAccount.run(id, storeId, name, `${name}.`, at, at);
    accountIds.set(name, id);
  }
  const insertMember = db.prepare(
    `INSERT INTO user_authentication_info (id, store_id, realm_id, name, email, username,
                                           created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, NULL, ?, ?)`,
  );
  const insertPassword = db.prepare(
    `INSERT INTO user_authentication_password_profile_info (id, store_id,
       user_authentication_info_id, password_profile_id, username, username_key, password_hash,
       created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertMembership = db.prepare(
    `INSERT INTO account_memberships (id, store_id, account_id, account_member_id, created_at,
                                      updated_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  for (const member of DEMO_ACCOUNT_MEMBERS) {
    const id = people.uuid();
    const at = tick();
    insertMember.run(id, storeId, realm, member.name, member.email, at, at);
    const salt = Buffer.from(people.uuid().replaceAll('-', ''), 'hex');
    insertPassword.run(
      people.uuid(),
      storeId,
      id,
      profile,
      member.email,
      member.email.toLowerCase(),
      hashPasswordSync(member.password, salt),
      at,
      at,
    );
    for (const account of member.accounts) {
      const joined = tick();
      insertMembership.run(people.uuid(), storeId, accountIds.get(account), id, joined, joined);
    }
  }
  return { accounts: DEMO_MEMBER_ACCOUNTS.length, members: DEMO_ACCOUNT_MEMBERS.length };
}
