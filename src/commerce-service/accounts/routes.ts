/**
 * Accounts (B2B buyer organisations): `name` required, `legal_name` and `registration_id`
 * optional. The list has the soft offset limit: deep offsets are served, merely slower.
 * Deleting an account deletes its memberships, its members' tokens for it and its carts
 * (foreign keys, migration 0850); its orders stay.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { badRequest, notFound } from '../errors.ts';
import { isUuid, newId } from '../ids.ts';
import { emitEvent } from '../integrations/events.ts';
import { listResources, standardListSpec } from '../listing/index.ts';

export interface AccountRow {
  id: string;
  store_id: string;
  name: string;
  legal_name: string | null;
  registration_id: string | null;
  created_at: string;
  updated_at: string;
}

const MAX_TEXT = 255;
const FIELDS = ['name', 'legal_name', 'registration_id'] as const;
type Field = (typeof FIELDS)[number];

export function presentAccount(row: AccountRow) {
  return {
    id: row.id,
    type: 'account',
    name: row.name,
    ...(row.legal_name === null ? {} : { legal_name: row.legal_name }),
    ...(row.registration_id === null ? {} : { registration_id: row.registration_id }),
    links: { self: `/v2/accounts/${row.id}` },
    meta: { timestamps: { created_at: row.created_at, updated_at: row.updated_at } },
  };
}

/**
 * Reads the account attributes of a body. On create `name` is required; on update every
 * attribute is optional (partial update) and `null` clears an optional one.
 */
function parseAccount(body: unknown, creating: boolean): Partial<Record<Field, string | null>> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('The request body must be a JSON object with a "data" object.', 'data');
  }
  const data = (body as { data?: unknown }).data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw badRequest('The request body must have a "data" object.', 'data');
  }
  const d = data as Record<string, unknown>;
  if (creating ? d.type !== 'account' : d.type !== undefined && d.type !== 'account') {
    throw badRequest('data.type must be "account".', 'data.type');
  }
  const out: Partial<Record<Field, string | null>> = {};
  for (const field of FIELDS) {
    const value = d[field];
    const source = `data.${field}`;
    if (value === undefined) continue;
    if (value === null && field !== 'name') {
      out[field] = null;
      continue;
    }
    if (typeof value !== 'string') throw badRequest(`${source} must be a string.`, source);
    if (value.trim() === '') throw badRequest(`${source} must not be empty.`, source);
    if (value.length > MAX_TEXT) {
      throw badRequest(`${source} must be at most ${MAX_TEXT} characters.`, source);
    }
    out[field] = value;
  }
  if (creating && out.name === undefined) {
    throw badRequest('data.name is required.', 'data.name');
  }
  return out;
}

export function findAccount(db: Db, storeId: string, id: string): AccountRow {
  const row = isUuid(id)
    ? (db
        .prepare('SELECT * FROM accounts WHERE store_id = ? AND id = ?')
        .get(storeId, id.toLowerCase()) as AccountRow | undefined)
    : undefined;
  if (!row) throw notFound(`No account with id ${id}.`);
  return row;
}

/**
 * The account of the path as this request may see it: with an account token (scopes.ts lets an
 * implicit token here only with one), the token's own account only; another answers 404, as if
 * it did not exist, so account ids cannot be probed (production answers 403 for some of these;
 * a 404 says less).
 */
function visibleAccount(db: Db, request: FastifyRequest<{ Params: { accountId: string } }>) {
  const own = request.accountMember?.accountId;
  const { accountId } = request.params;
  if (own !== undefined && accountId.toLowerCase() !== own) {
    throw notFound(`No account with id ${accountId}.`);
  }
  return findAccount(db, request.store.id, accountId);
}

/** Writes a new account: account.created. */
export function insertAccount(db: Db, row: AccountRow): void {
  db.prepare(
    `INSERT INTO accounts (id, store_id, name, legal_name, registration_id, created_at,
                           updated_at)
     VALUES (@id, @store_id, @name, @legal_name, @registration_id, @created_at, @updated_at)`,
  ).run(row);
  emitEvent(db, row.store_id, 'account.created', () => ({ data: presentAccount(row) }));
}

export function accountRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const spec = standardListSpec();
  return async (app) => {
    app.post('/accounts', async (request, reply) => {
      const input = parseAccount(request.body, true);
      const now = ctx.timestamp();
      const row: AccountRow = {
        id: newId(),
        store_id: request.store.id,
        name: input.name ?? '',
        legal_name: input.legal_name ?? null,
        registration_id: input.registration_id ?? null,
        created_at: now,
        updated_at: now,
      };
      db.transaction(() => insertAccount(db, row))();
      reply.code(201);
      return { data: presentAccount(row) };
    });

    app.get('/accounts', async (request) =>
      listResources({
        request,
        db,
        table: 'accounts',
        // With an account token (scopes.ts), the token's own account alone.
        scope: request.accountMember
          ? { store_id: request.store.id, id: request.accountMember.accountId }
          : { store_id: request.store.id },
        spec,
        map: presentAccount,
      }),
    );

    app.get<{ Params: { accountId: string } }>('/accounts/:accountId', async (request) => ({
      data: presentAccount(visibleAccount(db, request)),
    }));

    // The store's token, or a member of the account with its token (the storefront's account
    // summary page): another account is a 404 for the member.
    app.put<{ Params: { accountId: string } }>('/accounts/:accountId', async (request) => {
      const input = parseAccount(request.body, false);
      const row = db.transaction(() => {
        const current = visibleAccount(db, request);
        const next: AccountRow = { ...current, updated_at: ctx.timestamp() };
        if (input.name) next.name = input.name;
        if (input.legal_name !== undefined) next.legal_name = input.legal_name;
        if (input.registration_id !== undefined) next.registration_id = input.registration_id;
        db.prepare(
          `UPDATE accounts SET name = @name, legal_name = @legal_name,
             registration_id = @registration_id, updated_at = @updated_at WHERE id = @id`,
        ).run(next);
        return next;
      })();
      return { data: presentAccount(row) };
    });

    app.delete<{ Params: { accountId: string } }>(
      '/accounts/:accountId',
      async (request, reply) => {
        const row = findAccount(db, request.store.id, request.params.accountId);
        db.prepare('DELETE FROM accounts WHERE id = ?').run(row.id);
        return reply.code(204).send();
      },
    );
  };
}
