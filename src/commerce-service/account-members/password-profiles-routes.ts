/**
 * Passwords of account members: the realm's password profiles
 * (`POST|GET /v2/authentication-realms/{realmId}/password-profiles`, `GET …/{id}`; every store
 * starts with "Username & password", account-members.ts) and a member's username and password
 * in one profile (`POST|GET …/user-authentication-info/{uaiId}/user-authentication-password-profile-info`,
 * `GET|PUT|DELETE …/{id}`). Passwords are stored as salted scrypt hashes (customers.ts) and never
 * returned; a username is unique within its profile (409), and a member has at most one username
 * per profile (409). A new password signs the member out of every account. All client_credentials
 * only (scopes.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import { hashPassword } from '../customers/records.ts';
import { MAX_PASSWORD, MIN_PASSWORD } from '../customers/routes.ts';
import type { Db } from '../db.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { isUuid, newId } from '../ids.ts';
import { listResources, standardListSpec } from '../listing/index.ts';
import {
  checkType,
  type JsonObject,
  optionalBoolean,
  optionalEmail,
  optionalEnum,
  optionalText,
  rejectUnknownKeys,
  requireData,
  requireText,
  requireType,
} from '../request-body.ts';
import { requireRealm } from './records.ts';
import { findUserAuthenticationInfo } from './user-authentication-info-routes.ts';

export interface PasswordProfileRow {
  id: string;
  store_id: string;
  realm_id: string;
  name: string;
  username_format: 'any' | 'email';
  created_at: string;
  updated_at: string;
}

export interface PasswordInfoRow {
  id: string;
  store_id: string;
  user_authentication_info_id: string;
  password_profile_id: string;
  username: string;
  username_key: string;
  password_hash: string;
  created_at: string;
  updated_at: string;
}

function presentProfile(row: PasswordProfileRow) {
  return {
    id: row.id,
    type: 'password_profile',
    name: row.name,
    username_format: row.username_format,
    enable_one_time_password_token: false,
    links: { self: `/v2/authentication-realms/${row.realm_id}/password-profiles/${row.id}` },
    meta: { created_at: row.created_at, updated_at: row.updated_at },
  };
}

/** A member's username in a profile: never the password or its hash. */
function presentInfo(row: PasswordInfoRow) {
  return {
    id: row.id,
    type: 'user_authentication_password_profile_info',
    username: row.username,
    password_profile_id: row.password_profile_id,
    meta: { created_at: row.created_at, updated_at: row.updated_at },
  };
}

/** A password profile of the store's realm; `source` names where its id came from. */
export function findPasswordProfile(
  db: Db,
  storeId: string,
  id: string,
  source?: string,
): PasswordProfileRow {
  const row = isUuid(id)
    ? (db
        .prepare('SELECT * FROM password_profiles WHERE store_id = ? AND id = ?')
        .get(storeId, id.toLowerCase()) as PasswordProfileRow | undefined)
    : undefined;
  if (!row) {
    const detail = `No password profile with id ${id} in this store's account realm.`;
    throw source === undefined ? notFound(detail) : badRequest(detail, source);
  }
  return row;
}

/** A password, never echoed: a string of MIN_PASSWORD to MAX_PASSWORD characters. */
export function password(data: JsonObject, required: boolean): string | undefined {
  const value = data.password;
  if (value === undefined || value === null) {
    if (required) throw badRequest('data.password is required.', 'data.password');
    return undefined;
  }
  if (typeof value !== 'string' || value.length < MIN_PASSWORD || value.length > MAX_PASSWORD) {
    throw badRequest(
      `data.password must be a string of ${MIN_PASSWORD} to ${MAX_PASSWORD} characters.`,
      'data.password',
    );
  }
  return value;
}

/** The username of `data` in the profile's format (an email address for `email`). */
export function username(data: JsonObject, profile: PasswordProfileRow, required: boolean) {
  const value =
    profile.username_format === 'email'
      ? optionalEmail(data, 'username')
      : optionalText(data, 'username');
  if (value === undefined && required) {
    throw badRequest('data.username is required.', 'data.username');
  }
  return value;
}

/** SQLite's UNIQUE failures of the table as the API's 409s. */
function duplicate(error: unknown): never {
  const message = error instanceof Error ? error.message : '';
  if (/UNIQUE constraint failed: .*username_key/.test(message)) {
    throw conflict('This username is already taken in this password profile.', 'data.username');
  }
  if (/UNIQUE constraint failed: .*user_authentication_info_id/.test(message)) {
    throw conflict(
      'This user already has a username and password in this password profile; update it instead.',
      'data.password_profile_id',
    );
  }
  throw error;
}

/** Writes a member's username and password hash in a profile; 409 when either is taken. */
export function insertPasswordInfo(db: Db, row: PasswordInfoRow): void {
  try {
    db.prepare(
      `INSERT INTO user_authentication_password_profile_info (id, store_id,
         user_authentication_info_id, password_profile_id, username, username_key,
         password_hash, created_at, updated_at)
       VALUES (@id, @store_id, @user_authentication_info_id, @password_profile_id, @username,
         @username_key, @password_hash, @created_at, @updated_at)`,
    ).run(row);
  } catch (error) {
    duplicate(error);
  }
}

interface RealmParams {
  realmId: string;
}
interface InfoParams extends RealmParams {
  uaiId: string;
  infoId: string;
}

const PROFILES = '/authentication-realms/:realmId/password-profiles';
const INFOS =
  '/authentication-realms/:realmId/user-authentication-info/:uaiId/user-authentication-password-profile-info';
const INFO_TYPE = 'user_authentication_password_profile_info';

export function passwordProfileRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const spec = standardListSpec();
  return async (app) => {
    app.post<{ Params: RealmParams }>(PROFILES, async (request, reply) => {
      const realm = requireRealm(request.store.id, request.params.realmId);
      const data = requireData(request.body);
      requireType(data, 'password_profile');
      rejectUnknownKeys(data, [
        'type',
        'name',
        'username_format',
        'enable_one_time_password_token',
      ]);
      const name = requireText(data, 'name');
      const format = optionalEnum(data, 'username_format', ['any', 'email'] as const) ?? 'any';
      if (optionalBoolean(data, 'enable_one_time_password_token') === true) {
        throw badRequest(
          'One-time password tokens are not supported by this service.',
          'data.enable_one_time_password_token',
        );
      }
      const now = ctx.timestamp();
      const row: PasswordProfileRow = {
        id: newId(),
        store_id: request.store.id,
        realm_id: realm,
        name,
        username_format: format,
        created_at: now,
        updated_at: now,
      };
      db.prepare(
        `INSERT INTO password_profiles (id, store_id, realm_id, name, username_format, created_at,
                                        updated_at)
         VALUES (@id, @store_id, @realm_id, @name, @username_format, @created_at, @updated_at)`,
      ).run(row);
      reply.code(201);
      return { data: presentProfile(row) };
    });

    app.get<{ Params: RealmParams }>(PROFILES, async (request) => {
      const realm = requireRealm(request.store.id, request.params.realmId);
      return listResources({
        request,
        db,
        table: 'password_profiles',
        scope: { store_id: request.store.id, realm_id: realm },
        spec,
        map: presentProfile,
      });
    });

    app.get<{ Params: RealmParams & { profileId: string } }>(
      `${PROFILES}/:profileId`,
      async (request) => {
        requireRealm(request.store.id, request.params.realmId);
        return {
          data: presentProfile(findPasswordProfile(db, request.store.id, request.params.profileId)),
        };
      },
    );

    const uaiOf = (params: RealmParams & { uaiId: string }, storeId: string) =>
      findUserAuthenticationInfo(db, storeId, requireRealm(storeId, params.realmId), params.uaiId);

    const findInfo = (storeId: string, uaiId: string, infoId: string): PasswordInfoRow => {
      const row = isUuid(infoId)
        ? (db
            .prepare(
              `SELECT * FROM user_authentication_password_profile_info
                WHERE store_id = ? AND user_authentication_info_id = ? AND id = ?`,
            )
            .get(storeId, uaiId, infoId.toLowerCase()) as PasswordInfoRow | undefined)
        : undefined;
      if (!row) throw notFound(`No password profile info with id ${infoId} for this user.`);
      return row;
    };

    app.post<{ Params: RealmParams & { uaiId: string } }>(INFOS, async (request, reply) => {
      const uai = uaiOf(request.params, request.store.id);
      const data = requireData(request.body);
      requireType(data, INFO_TYPE);
      rejectUnknownKeys(data, ['type', 'username', 'password', 'password_profile_id']);
      const profileId = requireText(data, 'password_profile_id');
      const profile = findPasswordProfile(
        db,
        request.store.id,
        profileId,
        'data.password_profile_id',
      );
      const name = username(data, profile, true) as string;
      const hash = await hashPassword(password(data, true) as string);
      const now = ctx.timestamp();
      const row: PasswordInfoRow = {
        id: newId(),
        store_id: request.store.id,
        user_authentication_info_id: uai.id,
        password_profile_id: profile.id,
        username: name,
        username_key: name.toLowerCase(),
        password_hash: hash,
        created_at: now,
        updated_at: now,
      };
      insertPasswordInfo(db, row);
      reply.code(201);
      return { data: presentInfo(row) };
    });

    app.get<{ Params: RealmParams & { uaiId: string } }>(INFOS, async (request) => {
      const uai = uaiOf(request.params, request.store.id);
      return listResources({
        request,
        db,
        table: 'user_authentication_password_profile_info',
        scope: { store_id: request.store.id, user_authentication_info_id: uai.id },
        spec,
        map: presentInfo,
      });
    });

    app.get<{ Params: InfoParams }>(`${INFOS}/:infoId`, async (request) => {
      const uai = uaiOf(request.params, request.store.id);
      return { data: presentInfo(findInfo(request.store.id, uai.id, request.params.infoId)) };
    });

    app.put<{ Params: InfoParams }>(`${INFOS}/:infoId`, async (request) => {
      const data = requireData(request.body);
      checkType(data, INFO_TYPE);
      rejectUnknownKeys(data, ['type', 'id', 'username', 'password', 'password_profile_id']);
      const secret = password(data, false);
      const hash = secret === undefined ? undefined : await hashPassword(secret);
      const row = db.transaction(() => {
        const uai = uaiOf(request.params, request.store.id);
        const current = findInfo(request.store.id, uai.id, request.params.infoId);
        const given = data.password_profile_id;
        if (given !== undefined && given !== null && given !== current.password_profile_id) {
          throw badRequest(
            'data.password_profile_id cannot be changed; create a new password profile info instead.',
            'data.password_profile_id',
          );
        }
        const profile = findPasswordProfile(db, request.store.id, current.password_profile_id);
        const name = username(data, profile, false);
        const next: PasswordInfoRow = { ...current, updated_at: ctx.timestamp() };
        if (name !== undefined) {
          next.username = name;
          next.username_key = name.toLowerCase();
        }
        if (hash !== undefined) next.password_hash = hash;
        try {
          db.prepare(
            `UPDATE user_authentication_password_profile_info SET username = @username,
               username_key = @username_key, password_hash = @password_hash,
               updated_at = @updated_at WHERE id = @id`,
          ).run(next);
        } catch (error) {
          duplicate(error);
        }
        if (hash !== undefined) {
          // A new password signs the member out of every account.
          db.prepare('DELETE FROM account_tokens WHERE account_member_id = ?').run(uai.id);
        }
        return next;
      })();
      return { data: presentInfo(row) };
    });

    app.delete<{ Params: InfoParams }>(`${INFOS}/:infoId`, async (request, reply) => {
      const uai = uaiOf(request.params, request.store.id);
      const row = findInfo(request.store.id, uai.id, request.params.infoId);
      db.prepare('DELETE FROM user_authentication_password_profile_info WHERE id = ?').run(row.id);
      return reply.code(204).send();
    });
  };
}
