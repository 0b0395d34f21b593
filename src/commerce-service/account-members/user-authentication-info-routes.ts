/**
 * The user-authentication-info records of the store's account-authentication realm,
 * `POST|GET /v2/authentication-realms/{realmId}/user-authentication-info` and
 * `GET|PUT|DELETE …/user-authentication-info/{id}`. Each record is an account member
 * (account-members/routes.ts) with the same id. The create body is `{type, name, email}` in the
 * docs and `{type, username}` in the 2026 spec (UNCERTAIN): both are accepted. Deleting a
 * record deletes the member's passwords, memberships and tokens. All client_credentials only
 * (scopes.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { badRequest, notFound } from '../errors.ts';
import { isUuid, newId } from '../ids.ts';
import { listResources, standardListSpec } from '../listing/index.ts';
import {
  checkType,
  type JsonObject,
  optionalEmail,
  optionalText,
  rejectUnknownKeys,
  requireData,
  requireType,
} from '../request-body.ts';
import {
  insertUserAuthenticationInfo,
  presentUserAuthenticationInfo,
  requireRealm,
  type UserAuthenticationInfoRow,
} from './records.ts';

const TYPE = 'user_authentication_info';
const FIELDS = ['name', 'email', 'username'] as const;
type Field = (typeof FIELDS)[number];

/** Reads name, email and username; `null` clears one on update. */
function readFields(data: JsonObject): Partial<Record<Field, string | null>> {
  rejectUnknownKeys(data, ['type', 'id', 'meta', 'links', ...FIELDS]);
  const out: Partial<Record<Field, string | null>> = {};
  for (const field of FIELDS) {
    if (data[field] === null) out[field] = null;
    else if (data[field] !== undefined) {
      out[field] =
        field === 'email'
          ? (optionalEmail(data, field) ?? null)
          : (optionalText(data, field) ?? null);
    }
  }
  return out;
}

function parseCreate(body: unknown): Record<Field, string | null> {
  const data = requireData(body);
  requireType(data, TYPE);
  const fields = readFields(data);
  const username = fields.username ?? null;
  // The docs' form needs both name and email; the spec's needs the username.
  if (username === null) {
    for (const field of ['name', 'email'] as const) {
      if (!fields[field]) {
        throw badRequest(
          `data.${field} is required (or give data.username instead of name and email).`,
          `data.${field}`,
        );
      }
    }
  }
  return { name: fields.name ?? null, email: fields.email ?? null, username };
}

export function findUserAuthenticationInfo(
  db: Db,
  storeId: string,
  realmId: string,
  id: string,
): UserAuthenticationInfoRow {
  const row = isUuid(id)
    ? (db
        .prepare(
          'SELECT * FROM user_authentication_info WHERE store_id = ? AND realm_id = ? AND id = ?',
        )
        .get(storeId, realmId, id.toLowerCase()) as UserAuthenticationInfoRow | undefined)
    : undefined;
  if (!row) throw notFound(`No user authentication info with id ${id} in this realm.`);
  return row;
}

interface RealmParams {
  realmId: string;
}
interface UaiParams extends RealmParams {
  uaiId: string;
}

const BASE = '/authentication-realms/:realmId/user-authentication-info';

export function userAuthenticationInfoRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const spec = standardListSpec({
    filters: {
      name: { column: 'name', kind: 'string', ops: ['eq', 'like'] },
      email: { column: 'email', kind: 'string', ops: ['eq', 'like'] },
    },
  });
  return async (app) => {
    app.post<{ Params: RealmParams }>(BASE, async (request, reply) => {
      const realm = requireRealm(request.store.id, request.params.realmId);
      const input = parseCreate(request.body);
      const now = ctx.timestamp();
      const row: UserAuthenticationInfoRow = {
        id: newId(),
        store_id: request.store.id,
        realm_id: realm,
        ...input,
        created_at: now,
        updated_at: now,
      };
      db.transaction(() => insertUserAuthenticationInfo(db, row))();
      reply.code(201);
      return { data: presentUserAuthenticationInfo(row) };
    });

    app.get<{ Params: RealmParams }>(BASE, async (request) => {
      const realm = requireRealm(request.store.id, request.params.realmId);
      return listResources({
        request,
        db,
        table: 'user_authentication_info',
        scope: { store_id: request.store.id, realm_id: realm },
        spec,
        map: presentUserAuthenticationInfo,
      });
    });

    app.get<{ Params: UaiParams }>(`${BASE}/:uaiId`, async (request) => {
      const realm = requireRealm(request.store.id, request.params.realmId);
      return {
        data: presentUserAuthenticationInfo(
          findUserAuthenticationInfo(db, request.store.id, realm, request.params.uaiId),
        ),
      };
    });

    app.put<{ Params: UaiParams }>(`${BASE}/:uaiId`, async (request) => {
      const realm = requireRealm(request.store.id, request.params.realmId);
      const data = requireData(request.body);
      checkType(data, TYPE);
      const input = readFields(data);
      const row = db.transaction(() => {
        const current = findUserAuthenticationInfo(
          db,
          request.store.id,
          realm,
          request.params.uaiId,
        );
        const next: UserAuthenticationInfoRow = {
          ...current,
          ...input,
          updated_at: ctx.timestamp(),
        };
        db.prepare(
          `UPDATE user_authentication_info SET name = @name, email = @email, username = @username,
             updated_at = @updated_at WHERE id = @id`,
        ).run(next);
        return next;
      })();
      return { data: presentUserAuthenticationInfo(row) };
    });

    app.delete<{ Params: UaiParams }>(`${BASE}/:uaiId`, async (request, reply) => {
      const realm = requireRealm(request.store.id, request.params.realmId);
      const row = findUserAuthenticationInfo(db, request.store.id, realm, request.params.uaiId);
      // Its passwords, memberships and tokens go with it (foreign keys, migration 0850).
      db.prepare('DELETE FROM user_authentication_info WHERE id = ?').run(row.id);
      return reply.code(204).send();
    });
  };
}
