/**
 * Account management authentication tokens: what `POST /v2/account-members/tokens` issues, one
 * per account the member belongs to, and what `EP-Account-Management-Authentication-Token`
 * carries. Like customer tokens they are random, returned once and stored only as a sha256
 * hash with their store, member, account and expiry; they are never logged. The /v2 hook
 * (app.ts) resolves the header once into `request.accountMember`.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db.ts';
import { unauthorized } from '../errors.ts';
import { sha256Hex } from '../ids.ts';
import { type Clock, formatTimestamp } from '../time.ts';

/** Lifetime of an account token, in seconds (production's default, 24 hours). */
export const ACCOUNT_TOKEN_TTL_SECONDS = 24 * 3600;

/** The header that carries an account token (Node lowercases header names). */
export const ACCOUNT_TOKEN_HEADER = 'ep-account-management-authentication-token';

/** One token of the answer, as production shows it (`expires` an ISO timestamp). */
export interface AccountTokenJson {
  type: 'account_management_authentication_token';
  account_id: string;
  account_name: string;
  token: string;
  expires: string;
}

/**
 * Issues a token of `memberId` for each of `accounts` (in their order), in one transaction
 * that also sweeps expired tokens. The caller has checked that the member belongs to each.
 * `ttlSeconds` is the store's account_management_authentication_token_timeout_secs.
 */
export function issueAccountTokens(
  db: Db,
  clock: Clock,
  storeId: string,
  memberId: string,
  accounts: readonly { id: string; name: string }[],
  ttlSeconds = ACCOUNT_TOKEN_TTL_SECONDS,
): AccountTokenJson[] {
  const now = clock();
  const expiresAt = now + ttlSeconds * 1000;
  const insert = db.prepare(
    `INSERT INTO account_tokens (token_hash, store_id, account_member_id, account_id, expires_at,
                                 created_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  return db.transaction(() => {
    db.prepare('DELETE FROM account_tokens WHERE expires_at <= ?').run(now);
    return accounts.map((account) => {
      const token = randomBytes(32).toString('hex');
      insert.run(sha256Hex(token), storeId, memberId, account.id, expiresAt, formatTimestamp(now));
      return {
        type: 'account_management_authentication_token' as const,
        account_id: account.id,
        account_name: account.name,
        token,
        expires: formatTimestamp(expiresAt),
      };
    });
  })();
}

/** The account member a request acts for, and the account it acts in. */
export interface AccountMemberContext {
  memberId: string;
  accountId: string;
}

/**
 * Resolves `EP-Account-Management-Authentication-Token` to a member acting in one account of
 * the request's store: null without the header; 401 when it is malformed, unknown, expired,
 * another store's, or the member has since left the account (without saying which).
 */
export function createAccountMemberResolver(db: Db, clock: Clock) {
  const lookup = db.prepare(
    `SELECT t.account_member_id, t.account_id, t.store_id, t.expires_at FROM account_tokens t
       JOIN account_memberships m
         ON m.account_id = t.account_id AND m.account_member_id = t.account_member_id
      WHERE t.token_hash = ?`,
  );
  return (request: FastifyRequest, storeId: string): AccountMemberContext | null => {
    const header = request.headers[ACCOUNT_TOKEN_HEADER];
    if (header === undefined) return null;
    if (typeof header !== 'string' || !/^[A-Za-z0-9._~+/=-]{1,4096}$/.test(header)) {
      throw unauthorized('The account management authentication token is not valid.');
    }
    const row = lookup.get(sha256Hex(header)) as
      | { account_member_id: string; account_id: string; store_id: string; expires_at: number }
      | undefined;
    if (!row || row.store_id !== storeId || row.expires_at <= clock()) {
      throw unauthorized(
        'The account management authentication token is not valid or has expired; sign in again (POST /v2/account-members/tokens).',
      );
    }
    return { memberId: row.account_member_id, accountId: row.account_id };
  };
}
