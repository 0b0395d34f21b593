/**
 * Customers (`POST|GET /v2/customers`, `GET|PUT|DELETE /v2/customers/{id}`) and customer tokens
 * (`POST /v2/customers/tokens`). Passwords are stored as salted scrypt hashes and never
 * returned. Who may see what:
 * - with `X-Moltin-Customer-Token`, the list and the single read answer for that customer only
 *   (another customer's id is a 404), under a client_credentials or an implicit token;
 * - without one, a client_credentials token sees every customer of the store; an implicit token
 *   none (403, scopes.ts): a shopper's token lives in browsers, and customers' emails are not
 *   public;
 * - writes need a client_credentials token (scopes.ts), except `POST /v2/customers/tokens`, the
 *   shopper's sign-in, which any token may make, within the failed sign-in limits
 *   (sign-in-limits.ts).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { badRequest, conflict, notFound, unauthorized } from '../errors.ts';
import { isUuid, newId } from '../ids.ts';
import { emitEvent } from '../integrations/events.ts';
import { listResources, standardListSpec } from '../listing/index.ts';
import {
  type JsonObject,
  MAX_TEXT,
  optionalEmail,
  optionalText,
  requireData,
  requireEmail,
  requireText,
} from '../request-body.ts';
import { hashPassword, issueCustomerToken, verifyPassword } from './records.ts';

export interface CustomerRow {
  id: string;
  store_id: string;
  name: string;
  email: string;
  email_key: string;
  password_hash: string | null;
  created_at: string;
  updated_at: string;
}

/** Shortest password accepted (the production API sets none; a storefront should not go lower). */
export const MIN_PASSWORD = 8;
/** Longest password: scrypt hashes any length, but a megabyte of "password" is an attack. */
export const MAX_PASSWORD = 1024;

/** A customer as the API shows it: never the password or its hash. */
export function presentCustomer(row: CustomerRow) {
  return {
    type: 'customer',
    id: row.id,
    name: row.name,
    email: row.email,
    links: { self: `/v2/customers/${row.id}` },
    meta: { timestamps: { created_at: row.created_at, updated_at: row.updated_at } },
  };
}

function password(data: JsonObject): string | undefined {
  const value = data.password;
  if (value === undefined || value === null) return undefined;
  // Never echo the value.
  if (typeof value !== 'string')
    throw badRequest('data.password must be a string.', 'data.password');
  if (value.length < MIN_PASSWORD || value.length > MAX_PASSWORD) {
    throw badRequest(
      `data.password must be ${MIN_PASSWORD} to ${MAX_PASSWORD} characters long.`,
      'data.password',
    );
  }
  return value;
}

function customerBody(body: unknown, creating: boolean) {
  const data = requireData(body);
  if (creating ? data.type !== 'customer' : data.type !== undefined && data.type !== 'customer') {
    throw badRequest('data.type must be "customer".', 'data.type');
  }
  return {
    name: creating ? requireText(data, 'name') : optionalText(data, 'name'),
    email: creating ? requireEmail(data, 'email') : optionalEmail(data, 'email'),
    password: password(data),
  };
}

/**
 * The customer this request may see: the customer token's own, else any (scopes.ts lets only a
 * client_credentials token here without a customer token).
 */
function visibleScope(request: FastifyRequest): { id?: string } {
  return request.customer ? { id: request.customer.id } : {};
}

export function findCustomer(db: Db, request: FastifyRequest, id: string): CustomerRow {
  const scope = visibleScope(request);
  const row = isUuid(id)
    ? (db
        .prepare('SELECT * FROM customers WHERE store_id = ? AND id = ?')
        .get(request.store.id, id.toLowerCase()) as CustomerRow | undefined)
    : undefined;
  if (!row || (scope.id !== undefined && scope.id !== row.id)) {
    throw notFound(`No customer with id ${id}.`);
  }
  return row;
}

/** SQLite's UNIQUE failure on (store_id, email_key) as the API's 409. */
function duplicateEmail(error: unknown): never {
  if (error instanceof Error && /UNIQUE constraint failed: customers/.test(error.message)) {
    throw conflict('A customer with this email already exists in this store.', 'data.email');
  }
  throw error;
}

export function customerRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const spec = standardListSpec({
    filters: {
      email: { column: 'email', kind: 'string', ops: ['eq', 'like'] },
      name: { column: 'name', kind: 'string', ops: ['eq', 'like'] },
    },
  });
  return async (app) => {
    app.post('/customers', async (request, reply) => {
      const input = customerBody(request.body, true);
      const hash = input.password === undefined ? null : await hashPassword(input.password);
      const now = ctx.timestamp();
      const row: CustomerRow = {
        id: newId(),
        store_id: request.store.id,
        name: input.name as string,
        email: input.email as string,
        email_key: (input.email as string).toLowerCase(),
        password_hash: hash,
        created_at: now,
        updated_at: now,
      };
      try {
        db.transaction(() => {
          db.prepare(
            `INSERT INTO customers (id, store_id, name, email, email_key, password_hash,
                                    created_at, updated_at)
             VALUES (@id, @store_id, @name, @email, @email_key, @password_hash, @created_at,
                     @updated_at)`,
          ).run(row);
          emitEvent(db, row.store_id, 'customer.created', () => ({ data: presentCustomer(row) }));
        })();
      } catch (error) {
        duplicateEmail(error);
      }
      reply.code(201);
      return { data: presentCustomer(row) };
    });

    app.get('/customers', async (request) => {
      const scope = visibleScope(request);
      return listResources({
        request,
        db,
        table: 'customers',
        scope: { store_id: request.store.id, ...scope },
        spec,
        map: presentCustomer,
      });
    });

    app.get<{ Params: { customerId: string } }>('/customers/:customerId', async (request) => ({
      data: presentCustomer(findCustomer(db, request, request.params.customerId)),
    }));

    app.put<{ Params: { customerId: string } }>('/customers/:customerId', async (request) => {
      const input = customerBody(request.body, false);
      const hash = input.password === undefined ? undefined : await hashPassword(input.password);
      const row = db.transaction(() => {
        const current = findCustomer(db, request, request.params.customerId);
        const next: CustomerRow = { ...current, updated_at: ctx.timestamp() };
        if (input.name !== undefined) next.name = input.name;
        if (input.email !== undefined) {
          next.email = input.email;
          next.email_key = input.email.toLowerCase();
        }
        if (hash !== undefined) next.password_hash = hash;
        try {
          db.prepare(
            `UPDATE customers SET name = @name, email = @email, email_key = @email_key,
               password_hash = @password_hash, updated_at = @updated_at WHERE id = @id`,
          ).run(next);
        } catch (error) {
          duplicateEmail(error);
        }
        if (hash !== undefined) {
          // A new password signs the customer out everywhere.
          db.prepare('DELETE FROM customer_tokens WHERE customer_id = ?').run(next.id);
        }
        return next;
      })();
      return { data: presentCustomer(row) };
    });

    app.delete<{ Params: { customerId: string } }>(
      '/customers/:customerId',
      async (request, reply) => {
        const row = findCustomer(db, request, request.params.customerId);
        db.prepare('DELETE FROM customers WHERE id = ?').run(row.id);
        return reply.code(204).send();
      },
    );

    app.post('/customers/tokens', async (request) => {
      const data = requireData(request.body);
      if (data.type !== 'token') throw badRequest('data.type must be "token".', 'data.type');
      const given = data.email;
      const secret = data.password;
      if (typeof given !== 'string' || given === '' || given.length > MAX_TEXT) {
        throw badRequest('data.email is required: the customer’s email.', 'data.email');
      }
      if (typeof secret !== 'string' || secret === '' || secret.length > MAX_PASSWORD) {
        throw badRequest('data.password is required: the customer’s password.', 'data.password');
      }
      // Over the failed sign-in limits: 429 before any password is checked.
      const attempt = ctx.signInLimiter.begin(request.store.id, given, request.ip);
      let row: { id: string; password_hash: string | null } | undefined;
      let ok: boolean | undefined;
      try {
        row = db
          .prepare('SELECT id, password_hash FROM customers WHERE store_id = ? AND email_key = ?')
          .get(request.store.id, given.toLowerCase()) as typeof row;
        // Unknown email, no password set, wrong password: one answer, one cost.
        ok = await verifyPassword(secret, row?.password_hash ?? null);
      } finally {
        // A check that broke says nothing about the password.
        if (ok === undefined) attempt.abandoned();
      }
      if (!row || !ok) {
        attempt.failed();
        throw unauthorized('The email or password is not correct.');
      }
      attempt.succeeded();
      return { data: issueCustomerToken(db, ctx.clock, request.store.id, row.id) };
    });
  };
}
