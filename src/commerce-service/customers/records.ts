/**
 * Customers' secrets: password hashes (scrypt, a random salt per password, compared in constant
 * time) and customer tokens (random, returned once, stored only as a sha256 hash with their
 * customer and expiry, like access tokens). A request's `X-Moltin-Customer-Token` is resolved
 * here, once, by the /v2 hook (app.ts): routes read `request.customer`.
 */
import { randomBytes, scrypt as scryptCallback, scryptSync, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db.ts';
import { unauthorized } from '../errors.ts';
import { newId, sha256Hex } from '../ids.ts';
import { type Clock, formatTimestamp } from '../time.ts';

/** Lifetime of a customer token, in seconds (the production API's 24 hours). */
export const CUSTOMER_TOKEN_TTL_SECONDS = 24 * 3600;

/** The header that carries a customer token (Node lowercases header names). */
export const CUSTOMER_TOKEN_HEADER = 'x-moltin-customer-token';

// scrypt's recommended interactive parameters: 16 MiB and ~40 ms of CPU per hash.
const SCRYPT = { N: 16_384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;

function format(salt: Buffer, hash: Buffer): string {
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** A salted scrypt hash of `password`, off the event loop. */
export function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  return new Promise((resolve, reject) => {
    scryptCallback(password, salt, KEY_LENGTH, SCRYPT, (error, hash) => {
      if (error) reject(error);
      else resolve(format(salt, hash));
    });
  });
}

/** The same hash with a given salt, synchronously: for the deterministic demo seed only. */
export function hashPasswordSync(password: string, salt: Buffer): string {
  return format(salt, scryptSync(password, salt, KEY_LENGTH, SCRYPT));
}

// A hash of nothing in particular: checked when the email is unknown, so that an unknown email
// and a wrong password take the same time and answer the same way.
let decoy: string | undefined;

/** Whether `password` matches `stored` (a hash from hashPassword); `null` never matches. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  decoy ??= hashPasswordSync('decoy', Buffer.alloc(SALT_BYTES));
  const parts = (stored ?? decoy).split('$');
  const [scheme, n, r, p, salt, hash] = parts;
  if (parts.length !== 6 || scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await new Promise<Buffer>((resolve, reject) => {
    scryptCallback(
      password,
      Buffer.from(salt, 'base64'),
      expected.length,
      { N: Number(n), r: Number(r), p: Number(p) },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
  return stored !== null && timingSafeEqual(actual, expected);
}

/** The body of `POST /v2/customers/tokens`, as the production API returns it. */
export interface CustomerTokenResponse {
  type: 'token';
  id: string;
  customer_id: string;
  token: string;
  /** Expiry in epoch seconds. */
  expires: number;
}

export function issueCustomerToken(
  db: Db,
  clock: Clock,
  storeId: string,
  customerId: string,
): CustomerTokenResponse {
  const now = clock();
  const token = randomBytes(32).toString('hex');
  const id = newId();
  const expiresAt = now + CUSTOMER_TOKEN_TTL_SECONDS * 1000;
  db.transaction(() => {
    db.prepare('DELETE FROM customer_tokens WHERE expires_at <= ?').run(now);
    db.prepare(
      `INSERT INTO customer_tokens (token_hash, id, store_id, customer_id, expires_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    ).run(sha256Hex(token), id, storeId, customerId, expiresAt, formatTimestamp(now));
  })();
  return {
    type: 'token',
    id,
    customer_id: customerId,
    token,
    expires: Math.floor(expiresAt / 1000),
  };
}

/** The customer a request acts for. */
export interface CustomerContext {
  id: string;
}

/**
 * Resolves `X-Moltin-Customer-Token` to a customer of the request's store: null without the
 * header; 401 when it is malformed, unknown, expired or another store's (without saying which).
 */
export function createCustomerResolver(db: Db, clock: Clock) {
  const lookup = db.prepare(
    'SELECT customer_id, store_id, expires_at FROM customer_tokens WHERE token_hash = ?',
  );
  return (request: FastifyRequest, storeId: string): CustomerContext | null => {
    const header = request.headers[CUSTOMER_TOKEN_HEADER];
    if (header === undefined) return null;
    if (typeof header !== 'string' || !/^[A-Za-z0-9._~+/=-]{1,4096}$/.test(header)) {
      throw unauthorized('The customer token is not valid.');
    }
    const row = lookup.get(sha256Hex(header)) as
      | { customer_id: string; store_id: string; expires_at: number }
      | undefined;
    if (!row || row.store_id !== storeId || row.expires_at <= clock()) {
      throw unauthorized('The customer token is not valid or has expired; sign in again.');
    }
    return { id: row.customer_id };
  };
}
