/**
 * A promotion's codes and usages, for both engines (the bases of promotions.ts):
 * `POST|GET|DELETE …/{id}/codes`, `DELETE …/{id}/codes/{codeId}`, `GET …/{id}/usages`,
 * `GET …/{id}/codes/{code}/usages` (sort and `used_on` ranges, as production documents them,
 * plus the created_at / updated_at / id keyset every list here takes; a usage's created_at is
 * its used_on) and `POST …/usages/anonymize`. Store scope (scopes.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import { badRequest, notFound, unprocessable } from '../errors.ts';
import { isUuid, newId } from '../ids.ts';
import { type ListAttribute, listResources, standardListSpec } from '../listing/index.ts';
import {
  isObject,
  type JsonObject,
  optionalBoolean,
  requireData,
  requireInteger,
} from '../request-body.ts';
import type { PromotionKind } from './bodies.ts';
import { judgeCode } from './cart-codes.ts';
import {
  type CodeRow,
  codeKey,
  findPromotion,
  presentCode,
  presentUsage,
  type UsageRow,
} from './records.ts';
import { PROMOTION_BASES, type PromotionParams } from './routes.ts';

/** Codes in one POST or DELETE, and usages in one anonymize request. */
export const MAX_CODES_PER_REQUEST = 100;
const USES = { min: 1, max: 1_000_000_000 };

const range: ListAttribute['ops'] = ['eq', 'gt', 'ge', 'lt', 'le'];
const usageSpec = standardListSpec({
  filters: {
    used_on: { column: 'created_at', kind: 'timestamp', ops: range },
    code: { column: 'code_key', kind: 'string', ops: ['eq'] },
  },
  sorts: {
    used_on: 'created_at',
    code: 'code_key',
    customer_id: 'customer_id',
    customer_email: 'customer_email',
    order_id: 'order_id',
  },
  defaultSort: '-updated_at',
});
const codeSpec = standardListSpec({
  filters: { code: { column: 'code_key', kind: 'string', ops: ['eq'] } },
});

interface CodeInput {
  code: string;
  maxUses: number | null;
  perShopper: number | null;
  includesGuests: boolean;
}

/** `data.codes`: 1 to MAX_CODES_PER_REQUEST objects, each with a code. */
function readCodes(body: unknown, withLimits: boolean): CodeInput[] {
  const data = requireData(body);
  const codes = data.codes;
  if (!Array.isArray(codes) || codes.length === 0 || codes.length > MAX_CODES_PER_REQUEST) {
    throw badRequest(
      `data.codes must be a list of 1 to ${MAX_CODES_PER_REQUEST} codes.`,
      'data.codes',
    );
  }
  return codes.map((entry: unknown, i) => {
    const prefix = `data.codes[${i}]`;
    if (!isObject(entry)) throw badRequest(`${prefix} must be an object.`, prefix);
    const code = judgeCode(entry.code, `${prefix}.code`);
    if (!withLimits) return { code, maxUses: null, perShopper: null, includesGuests: false };
    const maxUses = entry.uses == null ? null : requireInteger(entry, 'uses', USES, prefix);
    let perShopper: number | null = null;
    let includesGuests = false;
    if (entry.max_uses_per_shopper != null) {
      if (!isObject(entry.max_uses_per_shopper)) {
        throw badRequest(`${prefix}.max_uses_per_shopper must be an object.`, prefix);
      }
      const limits = entry.max_uses_per_shopper as JsonObject;
      const where = `${prefix}.max_uses_per_shopper`;
      perShopper = requireInteger(limits, 'max_uses', USES, where);
      includesGuests = optionalBoolean(limits, 'includes_guests', where) ?? false;
    }
    return { code, maxUses, perShopper, includesGuests };
  });
}

/** `data.usage_ids`: 1 to MAX_CODES_PER_REQUEST uuids. */
function readUsageIds(body: unknown): string[] {
  const ids = requireData(body).usage_ids;
  if (
    !Array.isArray(ids) ||
    ids.length === 0 ||
    ids.length > MAX_CODES_PER_REQUEST ||
    !ids.every((id) => typeof id === 'string' && isUuid(id))
  ) {
    throw badRequest(
      `data.usage_ids must be a list of 1 to ${MAX_CODES_PER_REQUEST} usage ids.`,
      'data.usage_ids',
    );
  }
  return ids.map((id: string) => id.toLowerCase());
}

export function promotionCodeRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  return async (app) => {
    for (const [kind, base] of Object.entries(PROMOTION_BASES) as [PromotionKind, string][]) {
      const codes = `${base}/:promotionId/codes`;
      const promotion = (storeId: string, id: string) => findPromotion(db, storeId, kind, id);

      app.post<{ Params: PromotionParams }>(codes, async (request, reply) => {
        const inputs = readCodes(request.body, true);
        const rows = db.transaction(() => {
          const { id } = promotion(request.store.id, request.params.promotionId);
          const now = ctx.timestamp();
          const seen = new Set<string>();
          return inputs.map((input, i) => {
            const key = codeKey(input.code);
            const taken = db
              .prepare('SELECT 1 FROM promotion_codes WHERE promotion_id = ? AND code_key = ?')
              .get(id, key);
            if (taken !== undefined || seen.has(key)) {
              throw unprocessable(
                `The promotion already has the code "${input.code}".`,
                `data.codes[${i}].code`,
              );
            }
            seen.add(key);
            const row: CodeRow = {
              id: newId(),
              store_id: request.store.id,
              promotion_id: id,
              code: input.code,
              code_key: key,
              max_uses: input.maxUses,
              used: 0,
              max_uses_per_shopper: input.perShopper,
              includes_guests: input.includesGuests ? 1 : 0,
              created_at: now,
              updated_at: now,
            };
            db.prepare(
              `INSERT INTO promotion_codes (id, store_id, promotion_id, code, code_key, max_uses,
                 used, max_uses_per_shopper, includes_guests, created_at, updated_at)
               VALUES (@id, @store_id, @promotion_id, @code, @code_key, @max_uses, @used,
                 @max_uses_per_shopper, @includes_guests, @created_at, @updated_at)`,
            ).run(row);
            return row;
          });
        })();
        reply.code(201);
        return { data: rows.map(presentCode) };
      });

      app.get<{ Params: PromotionParams }>(codes, async (request) => {
        const { id } = promotion(request.store.id, request.params.promotionId);
        return listResources({
          request,
          db,
          table: 'promotion_codes',
          scope: { store_id: request.store.id, promotion_id: id },
          spec: codeSpec,
          map: presentCode,
        });
      });

      // Without a body: every code; with `data.codes`: those codes (the SDK's DeleteCodes).
      app.delete<{ Params: PromotionParams }>(codes, async (request, reply) => {
        const given = request.body == null ? undefined : readCodes(request.body, false);
        const { id } = promotion(request.store.id, request.params.promotionId);
        db.transaction(() => {
          if (given === undefined) {
            db.prepare('DELETE FROM promotion_codes WHERE promotion_id = ?').run(id);
            return;
          }
          const remove = db.prepare(
            'DELETE FROM promotion_codes WHERE promotion_id = ? AND code_key = ?',
          );
          for (const { code } of given) remove.run(id, codeKey(code));
        })();
        return reply.code(204).send();
      });

      app.delete<{ Params: PromotionParams & { codeId: string } }>(
        `${codes}/:codeId`,
        async (request, reply) => {
          const { id } = promotion(request.store.id, request.params.promotionId);
          const codeId = request.params.codeId.toLowerCase();
          const removed = isUuid(codeId)
            ? db
                .prepare('DELETE FROM promotion_codes WHERE promotion_id = ? AND id = ?')
                .run(id, codeId).changes
            : 0;
          if (removed === 0) throw notFound(`No code with id ${request.params.codeId}.`);
          return reply.code(204).send();
        },
      );

      app.get<{ Params: PromotionParams }>(`${base}/:promotionId/usages`, async (request) => {
        const { id } = promotion(request.store.id, request.params.promotionId);
        return listResources({
          request,
          db,
          table: 'promotion_usages',
          scope: { store_id: request.store.id, promotion_id: id },
          spec: usageSpec,
          map: presentUsage,
        });
      });

      app.get<{ Params: PromotionParams & { code: string } }>(
        `${codes}/:code/usages`,
        async (request) => {
          const code = judgeCode(request.params.code, 'code');
          const { id } = promotion(request.store.id, request.params.promotionId);
          return listResources({
            request,
            db,
            table: 'promotion_usages',
            scope: { store_id: request.store.id, promotion_id: id, code_key: codeKey(code) },
            spec: usageSpec,
            map: presentUsage,
          });
        },
      );

      app.post(`${base}/usages/anonymize`, async (request) => {
        const ids = readUsageIds(request.body);
        const rows = db.transaction(() => {
          const now = ctx.timestamp();
          const anonymize = db.prepare(
            // The email goes; the customer id stays, so uses per shopper still count.
            `UPDATE promotion_usages SET customer_email = NULL, anonymized = 1, updated_at = ?
             WHERE store_id = ? AND id = ? AND promotion_id IN
               (SELECT id FROM promotions WHERE store_id = ? AND kind = ?)
             RETURNING *`,
          );
          return ids.flatMap((usageId) => {
            const row = anonymize.get(now, request.store.id, usageId, request.store.id, kind);
            return row === undefined ? [] : [row as UsageRow];
          });
        })();
        return { data: rows.map(presentUsage) };
      });
    }
  };
}
