/**
 * Account members (read-only, flat): `GET /v2/account-members` and `GET /v2/account-members/{id}`
 * (the user-authentication-info records of the store's account realm, as members), and signing
 * in, `POST /v2/account-members/tokens`, which answers one account token per account the member
 * belongs to. Mechanisms served: `password` (a password profile's username and password) and
 * `account_management_authentication_token` (switching: the current token in
 * `EP-Account-Management-Authentication-Token`, a token for another of the member's accounts in
 * the answer) and `self_signup` (when the store's account-authentication settings enable it: a
 * new member with the username and password given in a password profile, and, when the settings
 * say so, an account of their own named after them; then their tokens, none without an account).
 * `oidc` and `passwordless` need an identity provider or email delivery this service does not
 * have: 400 that says so. Tokens live the settings' account_management_authentication_token_timeout_secs.
 *
 * Who may see what (scopes.ts): the list is the store's; one member is the store's or, with an
 * account token, the token's own member only (any other id is a 404). Signing in is any token's,
 * within the failed sign-in limits (sign-in-limits.ts), as for customers.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { insertAccount } from '../accounts/routes.ts';
import type { ServiceContext } from '../context.ts';
import { hashPassword, verifyPassword } from '../customers/records.ts';
import { MAX_PASSWORD } from '../customers/routes.ts';
import { badRequest, forbidden, notFound, unauthorized } from '../errors.ts';
import { isUuid, newId } from '../ids.ts';
import { listResources, MAX_PAGE_LIMIT, standardListSpec } from '../listing/index.ts';
import {
  type JsonObject,
  MAX_TEXT,
  oneOf,
  rejectUnknownKeys,
  requireData,
  requireEmail,
  requireText,
  requireType,
} from '../request-body.ts';
import {
  findPasswordProfile,
  insertPasswordInfo,
  password,
  username,
} from './password-profiles-routes.ts';
import {
  accountRealmId,
  findAccountMember,
  insertMembership,
  insertUserAuthenticationInfo,
  presentAccountMember,
  readAccountAuthenticationSettings,
  type UserAuthenticationInfoRow,
} from './records.ts';
import { type AccountTokenJson, issueAccountTokens } from './tokens.ts';

const MECHANISMS = [
  'password',
  'account_management_authentication_token',
  'oidc',
  'passwordless',
  'self_signup',
] as const;
const SERVED = ['password', 'account_management_authentication_token', 'self_signup'];

/** One answer for an unknown username, a wrong password and an unknown profile. */
const WRONG_CREDENTIALS = 'The username or password is not correct for this password profile.';

function credential(data: JsonObject, key: 'username' | 'password', max: number): string {
  const value = data[key];
  // Never echo the value.
  if (typeof value !== 'string' || value === '' || value.length > max) {
    throw badRequest(`data.${key} is required: a string of 1 to ${max} characters.`, `data.${key}`);
  }
  return value;
}

function requireUuid(data: JsonObject, key: string): string {
  const value = data[key];
  if (typeof value !== 'string' || !isUuid(value)) {
    throw badRequest(`data.${key} is required and must be a uuid.`, `data.${key}`);
  }
  return value.toLowerCase();
}

/** `page[limit]` (1..100, default 100) and `page[offset]` of the token answer. */
function tokenPage(query: unknown): { limit: number; offset: number } {
  const q = (query ?? {}) as Record<string, unknown>;
  const read = (name: string, fallback: number, min: number, max: number): number => {
    const raw = q[name];
    if (raw === undefined) return fallback;
    if (
      typeof raw !== 'string' ||
      !/^\d{1,9}$/.test(raw) ||
      Number(raw) < min ||
      Number(raw) > max
    ) {
      throw badRequest(`${name} must be a whole number from ${min} to ${max}.`, name);
    }
    return Number(raw);
  };
  return {
    limit: read('page[limit]', MAX_PAGE_LIMIT, 1, MAX_PAGE_LIMIT),
    offset: read('page[offset]', 0, 0, 1_000_000),
  };
}

interface MemberAccount {
  id: string;
  name: string;
}

export function accountMemberRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const spec = standardListSpec({
    filters: {
      email: { column: 'email', kind: 'string', ops: ['eq', 'like'] },
      name: { column: 'name', kind: 'string', ops: ['eq', 'like'] },
    },
    sorts: { email: 'email', name: 'name' },
  });

  const accountsOf = (memberId: string, limit: number, offset: number) => {
    const rows = db
      .prepare(
        `SELECT a.id, a.name FROM account_memberships m JOIN accounts a ON a.id = m.account_id
          WHERE m.account_member_id = ? ORDER BY a.name, a.id LIMIT ? OFFSET ?`,
      )
      .all(memberId, limit, offset) as MemberAccount[];
    const total = db
      .prepare('SELECT count(*) FROM account_memberships WHERE account_member_id = ?')
      .pluck()
      .get(memberId) as number;
    return { rows, total };
  };

  const answer = (
    memberId: string,
    tokens: AccountTokenJson[],
    page: { limit: number; offset: number },
    total: number,
  ) => ({
    data: tokens,
    meta: {
      account_member_id: memberId,
      page: {
        limit: page.limit,
        offset: page.offset,
        current: Math.floor(page.offset / page.limit) + 1,
        total: Math.max(1, Math.ceil(total / page.limit)),
      },
      results: { total },
    },
  });

  /** The member of a username and password, or 401 (one answer, one cost for every failure). */
  const signIn = async (request: FastifyRequest, data: JsonObject): Promise<string> => {
    const profileId = requireUuid(data, 'password_profile_id');
    const username = credential(data, 'username', MAX_TEXT);
    const secret = credential(data, 'password', MAX_PASSWORD);
    const attempt = ctx.signInLimiter.begin(
      request.store.id,
      `account-member:${profileId}:${username}`,
      request.ip,
    );
    let row: { member: string; password_hash: string } | undefined;
    let ok: boolean | undefined;
    try {
      row = db
        .prepare(
          `SELECT user_authentication_info_id AS member, password_hash
             FROM user_authentication_password_profile_info
            WHERE store_id = ? AND password_profile_id = ? AND username_key = ?`,
        )
        .get(request.store.id, profileId, username.toLowerCase()) as typeof row;
      // Unknown profile or username, wrong password: the decoy hash costs the same.
      ok = await verifyPassword(secret, row?.password_hash ?? null);
    } finally {
      if (ok === undefined) attempt.abandoned();
    }
    if (!row || !ok) {
      attempt.failed();
      throw unauthorized(WRONG_CREDENTIALS);
    }
    attempt.succeeded();
    return row.member;
  };

  /**
   * A new member from a self sign-up body, with their username and password in the profile and,
   * when the settings say so, an account of their own; all or nothing. 403 when the store's
   * settings do not enable self sign-up; 409 when the username is taken in the profile.
   */
  const signUp = async (request: FastifyRequest, data: JsonObject): Promise<string> => {
    const storeId = request.store.id;
    const settings = readAccountAuthenticationSettings(db, storeId);
    if (!settings.enable_self_signup) {
      throw forbidden(
        'Self sign-up is not enabled for this store: the account-authentication settings have enable_self_signup false.',
      );
    }
    rejectUnknownKeys(data, [
      'type',
      'authentication_mechanism',
      'password_profile_id',
      'username',
      'password',
      'name',
      'email',
    ]);
    const profile = findPasswordProfile(
      db,
      storeId,
      requireUuid(data, 'password_profile_id'),
      'data.password_profile_id',
    );
    const name = requireText(data, 'name');
    const email = requireEmail(data, 'email');
    const chosen = username(data, profile, true) as string;
    const hash = await hashPassword(password(data, true) as string);
    return db.transaction(() => {
      const now = ctx.timestamp();
      const member: UserAuthenticationInfoRow = {
        id: newId(),
        store_id: storeId,
        realm_id: accountRealmId(storeId),
        name,
        email,
        username: null,
        created_at: now,
        updated_at: now,
      };
      insertUserAuthenticationInfo(db, member);
      insertPasswordInfo(db, {
        id: newId(),
        store_id: storeId,
        user_authentication_info_id: member.id,
        password_profile_id: profile.id,
        username: chosen,
        username_key: chosen.toLowerCase(),
        password_hash: hash,
        created_at: now,
        updated_at: now,
      });
      if (settings.auto_create_account_for_account_members) {
        const account = {
          id: newId(),
          store_id: storeId,
          name,
          legal_name: null,
          registration_id: null,
          created_at: now,
          updated_at: now,
        };
        insertAccount(db, account);
        insertMembership(db, {
          id: newId(),
          store_id: storeId,
          account_id: account.id,
          account_member_id: member.id,
          created_at: now,
          updated_at: now,
        });
      }
      return member.id;
    })();
  };

  return async (app) => {
    app.get('/account-members', async (request) =>
      listResources({
        request,
        db,
        table: 'user_authentication_info',
        // With an account token (scopes.ts), the token's own member alone.
        scope: request.accountMember
          ? {
              store_id: request.store.id,
              realm_id: accountRealmId(request.store.id),
              id: request.accountMember.memberId,
            }
          : { store_id: request.store.id, realm_id: accountRealmId(request.store.id) },
        spec,
        map: presentAccountMember,
      }),
    );

    app.get<{ Params: { memberId: string } }>('/account-members/:memberId', async (request) => {
      const own = request.accountMember?.memberId;
      const { memberId } = request.params;
      // With an account token, the token's own member only: another id does not exist.
      if (own !== undefined && memberId.toLowerCase() !== own) {
        throw notFound(`No account member with id ${memberId}.`);
      }
      const row: UserAuthenticationInfoRow = findAccountMember(db, request.store.id, memberId);
      return { data: presentAccountMember(row) };
    });

    app.post('/account-members/tokens', async (request, reply) => {
      const data = requireData(request.body);
      requireType(data, 'account_management_authentication_token');
      const mechanism = data.authentication_mechanism;
      if (typeof mechanism !== 'string' || !(MECHANISMS as readonly string[]).includes(mechanism)) {
        throw badRequest(
          `data.authentication_mechanism is required: ${oneOf(SERVED)} (production also names oidc and passwordless).`,
          'data.authentication_mechanism',
        );
      }
      if (!SERVED.includes(mechanism)) {
        throw badRequest(
          `The authentication mechanism "${mechanism}" needs an identity provider or email delivery this service does not have; use "password", "self_signup", or "account_management_authentication_token" to switch accounts.`,
          'data.authentication_mechanism',
        );
      }
      const page = tokenPage(request.query);
      const ttl = readAccountAuthenticationSettings(
        db,
        request.store.id,
      ).account_management_authentication_token_timeout_secs;
      if (mechanism === 'password' || mechanism === 'self_signup') {
        const memberId =
          mechanism === 'password' ? await signIn(request, data) : await signUp(request, data);
        const { rows, total } = accountsOf(memberId, page.limit, page.offset);
        const tokens = issueAccountTokens(db, ctx.clock, request.store.id, memberId, rows, ttl);
        reply.code(201);
        return answer(memberId, tokens, page, total);
      }
      // Switching accounts: the current token says who; the body says which account.
      const current = request.accountMember;
      if (current === null) {
        throw unauthorized(
          'To switch accounts, send the current token in EP-Account-Management-Authentication-Token.',
        );
      }
      const accountId = requireUuid(data, 'account_id');
      const account = db
        .prepare(
          `SELECT a.id, a.name FROM account_memberships m JOIN accounts a ON a.id = m.account_id
            WHERE m.account_member_id = ? AND m.account_id = ? AND a.store_id = ?`,
        )
        .get(current.memberId, accountId, request.store.id) as MemberAccount | undefined;
      if (!account) {
        throw notFound(`No account with id ${accountId} among this account member's accounts.`);
      }
      const tokens = issueAccountTokens(
        db,
        ctx.clock,
        request.store.id,
        current.memberId,
        [account],
        ttl,
      );
      reply.code(201);
      return answer(current.memberId, tokens, { limit: 1, offset: 0 }, 1);
    });
  };
}
