/**
 * Account memberships: which account members belong to which accounts.
 * `POST|GET /v2/accounts/{id}/account-memberships` (`include=account_member` puts the members
 * under `included.account_members`), `GET|PUT|DELETE …/{membershipId}`,
 * `GET …/account-memberships/unassigned-account-members` (the realm's members not in the
 * account) and `GET /v2/account-members/{memberId}/account-memberships` (a member's, each
 * with its account). A member is in an account at most once (409) and an account has at most
 * 1,000 members (422). Leaving an account ends the member's tokens for it. All
 * client_credentials only (scopes.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import { findAccount } from '../accounts/routes.ts';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { badRequest, conflict, notFound, unprocessable } from '../errors.ts';
import { isUuid, newId } from '../ids.ts';
import { parseIncludes } from '../includes.ts';
import { listResources, standardListSpec } from '../listing/index.ts';
import {
  checkType,
  type JsonObject,
  rejectUnknownKeys,
  requireData,
  requireType,
} from '../request-body.ts';
import {
  type AccountMembershipRow,
  accountMembersByIds,
  accountRealmId,
  findAccountMember,
  insertMembership,
  MAX_MEMBERSHIPS_PER_ACCOUNT,
  presentAccountMember,
  presentMembership,
} from './records.ts';

const TYPE = 'account_membership';

function memberIdOf(data: JsonObject): string {
  const value = data.account_member_id;
  if (typeof value !== 'string' || !isUuid(value)) {
    throw badRequest(
      'data.account_member_id is required: the id (a uuid) of an account member.',
      'data.account_member_id',
    );
  }
  return value.toLowerCase();
}

/** `include=account_member` (or `account_members`), in either form parseIncludes reads. */
function parseInclude(raw: unknown): boolean {
  return parseIncludes(raw, ['account_member'], { account_members: 'account_member' }).size > 0;
}

function findMembership(
  db: Db,
  storeId: string,
  accountId: string,
  id: string,
): AccountMembershipRow {
  const row = isUuid(id)
    ? (db
        .prepare(
          'SELECT * FROM account_memberships WHERE store_id = ? AND account_id = ? AND id = ?',
        )
        .get(storeId, accountId, id.toLowerCase()) as AccountMembershipRow | undefined)
    : undefined;
  if (!row) throw notFound(`No account membership with id ${id} in account ${accountId}.`);
  return row;
}

interface AccountParams {
  accountId: string;
}
interface MembershipParams extends AccountParams {
  membershipId: string;
}

const BASE = '/accounts/:accountId/account-memberships';

export function accountMembershipRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const spec = standardListSpec({
    filters: {
      account_member_id: { column: 'account_member_id', kind: 'id', ops: ['eq', 'like'] },
    },
  });
  const memberSpec = standardListSpec({
    filters: {
      email: { column: 'email', kind: 'string', ops: ['eq', 'like'] },
      name: { column: 'name', kind: 'string', ops: ['eq', 'like'] },
    },
    sorts: { email: 'email', name: 'name' },
  });

  return async (app) => {
    app.post<{ Params: AccountParams }>(BASE, async (request, reply) => {
      const data = requireData(request.body);
      requireType(data, TYPE);
      rejectUnknownKeys(data, ['type', 'account_member_id']);
      const memberId = memberIdOf(data);
      const row = db.transaction(() => {
        const account = findAccount(db, request.store.id, request.params.accountId);
        findAccountMember(db, request.store.id, memberId);
        const existing = db
          .prepare(
            'SELECT id FROM account_memberships WHERE account_id = ? AND account_member_id = ?',
          )
          .pluck()
          .get(account.id, memberId);
        if (existing !== undefined) {
          throw conflict(
            `Account member ${memberId} is already a member of account ${account.id} (membership ${String(existing)}).`,
            'data.account_member_id',
          );
        }
        const count = db
          .prepare('SELECT count(*) FROM account_memberships WHERE account_id = ?')
          .pluck()
          .get(account.id) as number;
        if (count >= MAX_MEMBERSHIPS_PER_ACCOUNT) {
          throw unprocessable(
            `An account has at most ${MAX_MEMBERSHIPS_PER_ACCOUNT} members; remove one before adding another.`,
            'data.account_member_id',
          );
        }
        const now = ctx.timestamp();
        const membership: AccountMembershipRow = {
          id: newId(),
          store_id: request.store.id,
          account_id: account.id,
          account_member_id: memberId,
          created_at: now,
          updated_at: now,
        };
        insertMembership(db, membership);
        return membership;
      })();
      reply.code(201);
      return { data: presentMembership(row) };
    });

    app.get<{ Params: AccountParams; Querystring: { include?: unknown } }>(
      BASE,
      async (request) => {
        const include = parseInclude(request.query.include);
        const account = findAccount(db, request.store.id, request.params.accountId);
        return db.transaction(() => {
          const page = listResources({
            request,
            db,
            table: 'account_memberships',
            scope: { store_id: request.store.id, account_id: account.id },
            spec,
            map: (row: AccountMembershipRow) => row,
          });
          const data = page.data.map((row) => presentMembership(row));
          if (!include) return { ...page, data };
          const members = accountMembersByIds(
            db,
            request.store.id,
            page.data.map((row) => row.account_member_id),
          );
          return {
            ...page,
            data,
            included: { account_members: members.map(presentAccountMember) },
          };
        })();
      },
    );

    app.get<{ Params: AccountParams }>(`${BASE}/unassigned-account-members`, async (request) => {
      const account = findAccount(db, request.store.id, request.params.accountId);
      return listResources({
        request,
        db,
        table: 'user_authentication_info',
        scope: { store_id: request.store.id, realm_id: accountRealmId(request.store.id) },
        spec: memberSpec,
        conditions: [
          {
            sql: `NOT EXISTS (SELECT 1 FROM account_memberships m
                   WHERE m.account_id = ? AND m.account_member_id = user_authentication_info.id)`,
            params: [account.id],
          },
        ],
        map: presentAccountMember,
      });
    });

    app.get<{ Params: MembershipParams }>(`${BASE}/:membershipId`, async (request) => {
      const account = findAccount(db, request.store.id, request.params.accountId);
      return {
        data: presentMembership(
          findMembership(db, request.store.id, account.id, request.params.membershipId),
        ),
      };
    });

    // Nothing of a membership but its timestamps can change; a PUT that names another member
    // is refused rather than silently ignored.
    app.put<{ Params: MembershipParams }>(`${BASE}/:membershipId`, async (request) => {
      const data = requireData(request.body);
      checkType(data, TYPE);
      rejectUnknownKeys(data, ['type', 'id', 'account_member_id']);
      const row = db.transaction(() => {
        const account = findAccount(db, request.store.id, request.params.accountId);
        const current = findMembership(
          db,
          request.store.id,
          account.id,
          request.params.membershipId,
        );
        if (
          data.account_member_id !== undefined &&
          memberIdOf(data) !== current.account_member_id
        ) {
          throw badRequest(
            'data.account_member_id cannot be changed; delete this membership and create another.',
            'data.account_member_id',
          );
        }
        const next = { ...current, updated_at: ctx.timestamp() };
        db.prepare('UPDATE account_memberships SET updated_at = ? WHERE id = ?').run(
          next.updated_at,
          next.id,
        );
        return next;
      })();
      return { data: presentMembership(row) };
    });

    app.delete<{ Params: MembershipParams }>(`${BASE}/:membershipId`, async (request, reply) => {
      db.transaction(() => {
        const account = findAccount(db, request.store.id, request.params.accountId);
        const row = findMembership(db, request.store.id, account.id, request.params.membershipId);
        db.prepare('DELETE FROM account_memberships WHERE id = ?').run(row.id);
        // Tokens for this account stop working with the membership (account-tokens.ts checks
        // it too); they are deleted here so none is left behind.
        db.prepare('DELETE FROM account_tokens WHERE account_id = ? AND account_member_id = ?').run(
          row.account_id,
          row.account_member_id,
        );
      })();
      return reply.code(204).send();
    });

    app.get<{ Params: { memberId: string } }>(
      '/account-members/:memberId/account-memberships',
      async (request) => {
        const member = findAccountMember(db, request.store.id, request.params.memberId);
        return listResources({
          request,
          db,
          table: 'account_memberships',
          scope: { store_id: request.store.id, account_member_id: member.id },
          spec,
          map: (row: AccountMembershipRow) => presentMembership(row, true),
        });
      },
    );
  };
}
