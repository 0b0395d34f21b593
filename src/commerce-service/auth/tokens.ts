/**
 * Tokens: issuing them (`POST /oauth/access_token`, see auth/routes.ts) and checking them on
 * every /v2 request. Tokens are random, returned once, and stored only as a sha256 hash with
 * their store, grant and expiry, so a leaked database does not leak usable tokens.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { ClientCredentials } from '../config.ts';
import type { Db } from '../db.ts';
import { unauthorized } from '../errors.ts';
import { sha256Hex, storeIdForClient } from '../ids.ts';
import { type StoreContext, settingsFromRow } from '../stores.ts';
import { type Clock, formatTimestamp } from '../time.ts';

/** Lifetime of every token, in seconds (the production API's one hour). */
export const TOKEN_TTL_SECONDS = 3600;

export type GrantType = 'client_credentials' | 'implicit';

/** The unwrapped body of `POST /oauth/access_token`, as the production API returns it. */
export interface AccessTokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  /** Expiry in epoch seconds. */
  expires: number;
  identifier: GrantType;
}

function sameSecret(given: string, expected: string): boolean {
  // Hash first so the comparison is constant-time and length-independent.
  const a = Buffer.from(sha256Hex(given), 'hex');
  const b = Buffer.from(sha256Hex(expected), 'hex');
  return timingSafeEqual(a, b);
}

/** Finds the client for a grant; undefined when the id is unknown or the secret is wrong. */
export function findClient(
  clients: ClientCredentials[],
  clientId: string,
  secret: string | undefined,
): ClientCredentials | undefined {
  const client = clients.find((c) => c.id === clientId);
  if (!client) return undefined;
  if (secret !== undefined && !sameSecret(secret, client.secret)) return undefined;
  return client;
}

/** Issues and stores a new token for a client whose credentials were already checked. */
export function issueToken(
  db: Db,
  clock: Clock,
  client: ClientCredentials,
  grant: GrantType,
): AccessTokenResponse {
  const now = clock();
  const token = randomBytes(20).toString('hex');
  const expiresAt = now + TOKEN_TTL_SECONDS * 1000;
  db.transaction(() => {
    // Expired tokens are useless; sweep them here so the table cannot grow without bound.
    db.prepare('DELETE FROM access_tokens WHERE expires_at <= ?').run(now);
    db.prepare(
      `INSERT INTO access_tokens (token_hash, store_id, client_id, grant_type, expires_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    ).run(
      sha256Hex(token),
      storeIdForClient(client.id),
      client.id,
      grant,
      expiresAt,
      formatTimestamp(now),
    );
  })();
  return {
    access_token: token,
    token_type: 'Bearer',
    expires_in: TOKEN_TTL_SECONDS,
    expires: Math.floor(expiresAt / 1000),
    identifier: grant,
  };
}

interface TokenRow {
  store_id: string;
  client_id: string;
  grant_type: GrantType;
  expires_at: number;
  page_length: number;
  custom_discounts_enabled: number;
}

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/**
 * Resolves the request's bearer token to its store. Throws 401 when the header is missing or
 * malformed, or the token unknown or expired. What each kind of token may do is scopes.ts's.
 */
export function createAuthenticator(db: Db, clock: Clock) {
  const lookup = db.prepare(
    `SELECT t.store_id, t.client_id, t.grant_type, t.expires_at,
            s.page_length, s.custom_discounts_enabled
       FROM access_tokens t JOIN stores s ON s.id = t.store_id
      WHERE t.token_hash = ?`,
  );
  return (request: FastifyRequest): StoreContext => {
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') {
      throw unauthorized('Missing Authorization header; send "Authorization: Bearer <token>".');
    }
    const match = BEARER.exec(header);
    if (!match?.[1]) {
      throw unauthorized('Malformed Authorization header; expected "Bearer <token>".');
    }
    const row = lookup.get(sha256Hex(match[1])) as TokenRow | undefined;
    if (!row) throw unauthorized('The access token is not valid.');
    if (row.expires_at <= clock()) {
      throw unauthorized('The access token has expired; request a new one.');
    }
    return {
      id: row.store_id,
      clientId: row.client_id,
      grant: row.grant_type,
      settings: settingsFromRow(row),
    };
  };
}
