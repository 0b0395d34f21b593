/**
 * Promotions of both engines, one factory: standard (`/v2/promotions`, promotions/bodies.ts)
 * and Promotions Builder (`/v2/rule-promotions`, promotions/rule-bodies.ts). Create, list,
 * read, update (the given fields over the stored ones, judged whole) and delete; their codes
 * and usages are promotion-codes.ts. The store's own data: client_credentials only (scopes.ts).
 * The lists also sort and keyset on created_at / updated_at / id, which the gateway's
 * connections need (production documents neither for these lists).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import { newId } from '../ids.ts';
import { listResources, standardListSpec } from '../listing/index.ts';
import { type PromotionInput, type PromotionKind, parsePromotion } from './bodies.ts';
import {
  findPromotion,
  type PromotionRow,
  presentPromotion,
  promotionColumns,
  readDocument,
} from './records.ts';
import { ruleSetFields } from './rule-bodies.ts';

export const PROMOTION_BASES: Readonly<Record<PromotionKind, string>> = {
  standard: '/promotions',
  rule: '/rule-promotions',
};

export interface PromotionParams {
  promotionId: string;
}

const listSpec = standardListSpec({
  filters: {
    name: { column: 'name', kind: 'string', ops: ['eq', 'like'] },
    enabled: { column: 'enabled', kind: 'boolean', ops: ['eq'] },
  },
});

const COLUMNS = `name = @name, enabled = @enabled, automatic = @automatic,
  starts_at = @starts_at, ends_at = @ends_at, priority = @priority, stackable = @stackable,
  override_stacking = @override_stacking, offer = @offer, document = @document,
  updated_at = @updated_at`;

export function promotionRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const parse = (body: unknown, kind: PromotionKind, current?: PromotionRow): PromotionInput =>
    parsePromotion(body, kind, ruleSetFields, current && readDocument(current));

  return async (app) => {
    for (const [kind, base] of Object.entries(PROMOTION_BASES) as [PromotionKind, string][]) {
      const item = `${base}/:promotionId`;

      app.post(base, async (request, reply) => {
        const input = parse(request.body, kind);
        const now = ctx.timestamp();
        const row: PromotionRow = {
          id: newId(),
          store_id: request.store.id,
          kind,
          ...promotionColumns(input),
          created_at: now,
          updated_at: now,
        };
        db.prepare(
          `INSERT INTO promotions (id, store_id, kind, name, enabled, automatic, starts_at,
             ends_at, priority, stackable, override_stacking, offer, document, created_at,
             updated_at)
           VALUES (@id, @store_id, @kind, @name, @enabled, @automatic, @starts_at, @ends_at,
             @priority, @stackable, @override_stacking, @offer, @document, @created_at,
             @updated_at)`,
        ).run(row);
        reply.code(201);
        return { data: presentPromotion(row) };
      });

      app.get(base, async (request) =>
        listResources({
          request,
          db,
          table: 'promotions',
          scope: { store_id: request.store.id, kind },
          spec: listSpec,
          map: presentPromotion,
        }),
      );

      app.get<{ Params: PromotionParams }>(item, async (request) => ({
        data: presentPromotion(
          findPromotion(db, request.store.id, kind, request.params.promotionId),
        ),
      }));

      app.put<{ Params: PromotionParams }>(item, async (request) => {
        const row = db.transaction(() => {
          const current = findPromotion(db, request.store.id, kind, request.params.promotionId);
          const next: PromotionRow = {
            ...current,
            ...promotionColumns(parse(request.body, kind, current)),
            updated_at: ctx.timestamp(),
          };
          db.prepare(`UPDATE promotions SET ${COLUMNS} WHERE id = @id`).run(next);
          return next;
        })();
        return { data: presentPromotion(row) };
      });

      app.delete<{ Params: PromotionParams }>(item, async (request, reply) => {
        const row = findPromotion(db, request.store.id, kind, request.params.promotionId);
        db.prepare('DELETE FROM promotions WHERE id = ?').run(row.id);
        return reply.code(204).send();
      });
    }
  };
}
