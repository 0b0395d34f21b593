/**
 * Price modifiers of a price book (`/pcm/pricebooks/{id}/modifiers`): a name unique in the
 * book (case-sensitive, as production; a second → 409), a modifier type and a currency map of
 * amounts. Child products use them by name (apply-modifier.ts). The list filters on
 * `eq(external_ref)` and `eq(name)`. client_credentials only (scopes.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import { cachedStatement, type Db } from '../db.ts';
import { conflict } from '../errors.ts';
import { newId } from '../ids.ts';
import { creationOrderListSpec, listResources } from '../listing/index.ts';
import { parseModifier } from './bodies.ts';
import { findModifier, findPricebook, type ModifierRow, presentModifier } from './records.ts';
import type { PricebookParams } from './routes.ts';

interface ModifierParams extends PricebookParams {
  modifierId: string;
}

const spec = creationOrderListSpec({
  external_ref: { column: 'external_ref', kind: 'string', ops: ['eq'] },
  name: { column: 'name', kind: 'string', ops: ['eq'] },
});

/** 409 when the book already has a modifier named `name` (other than `exceptId`). */
function checkNameFree(
  db: Db,
  row: { store_id: string; pricebook_id: string; name: string },
  exceptId = '',
) {
  const taken = cachedStatement(
    db,
    'SELECT id FROM price_modifiers WHERE store_id = ? AND pricebook_id = ? AND name = ? AND id != ?',
  )
    .pluck(true)
    .get(row.store_id, row.pricebook_id, row.name, exceptId);
  if (taken !== undefined) {
    throw conflict(
      `Price book ${row.pricebook_id} already has a price modifier named "${row.name}"; names are unique in a book.`,
      'data.attributes.name',
    );
  }
}

export function priceModifierRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  return async (app) => {
    app.post<{ Params: PricebookParams }>(
      '/pricebooks/:pricebookId/modifiers',
      async (request, reply) => {
        const input = parseModifier(request.body, true);
        const row = db
          .transaction(() => {
            const book = findPricebook(db, request.store.id, request.params.pricebookId);
            const now = ctx.timestamp();
            const modifier: ModifierRow = {
              id: newId(),
              store_id: book.store_id,
              pricebook_id: book.id,
              name: input.name ?? '',
              modifier_type: input.modifier_type ?? 'price_equals',
              currencies: JSON.stringify(input.currencies ?? {}),
              external_ref: input.external_ref ?? null,
              created_at: now,
              updated_at: now,
            };
            checkNameFree(db, modifier);
            db.prepare(
              `INSERT INTO price_modifiers (id, store_id, pricebook_id, name, modifier_type,
                                          currencies, external_ref, created_at, updated_at)
             VALUES (@id, @store_id, @pricebook_id, @name, @modifier_type, @currencies,
                     @external_ref, @created_at, @updated_at)`,
            ).run(modifier);
            return modifier;
          })
          .immediate();
        reply.code(201);
        return { data: presentModifier(row) };
      },
    );

    app.get<{ Params: PricebookParams }>('/pricebooks/:pricebookId/modifiers', async (request) => {
      const book = findPricebook(db, request.store.id, request.params.pricebookId);
      return listResources({
        request,
        db,
        table: 'price_modifiers',
        scope: { store_id: book.store_id, pricebook_id: book.id },
        spec,
        map: presentModifier,
      });
    });

    app.get<{ Params: ModifierParams }>(
      '/pricebooks/:pricebookId/modifiers/:modifierId',
      async (request) => {
        const book = findPricebook(db, request.store.id, request.params.pricebookId);
        return { data: presentModifier(findModifier(db, book, request.params.modifierId)) };
      },
    );

    app.put<{ Params: ModifierParams }>(
      '/pricebooks/:pricebookId/modifiers/:modifierId',
      async (request) => {
        const input = parseModifier(request.body, false, request.params.modifierId);
        const row = db
          .transaction(() => {
            const book = findPricebook(db, request.store.id, request.params.pricebookId);
            const current = findModifier(db, book, request.params.modifierId);
            const next: ModifierRow = {
              ...current,
              name: input.name ?? current.name,
              modifier_type: input.modifier_type ?? current.modifier_type,
              currencies:
                input.currencies === undefined
                  ? current.currencies
                  : JSON.stringify(input.currencies),
              external_ref:
                input.external_ref === undefined ? current.external_ref : input.external_ref,
              updated_at: ctx.timestamp(),
            };
            if (next.name !== current.name) checkNameFree(db, next, current.id);
            db.prepare(
              `UPDATE price_modifiers SET name = @name, modifier_type = @modifier_type,
               currencies = @currencies, external_ref = @external_ref, updated_at = @updated_at
             WHERE id = @id`,
            ).run(next);
            return next;
          })
          .immediate();
        return { data: presentModifier(row) };
      },
    );

    app.delete<{ Params: ModifierParams }>(
      '/pricebooks/:pricebookId/modifiers/:modifierId',
      async (request, reply) => {
        const book = findPricebook(db, request.store.id, request.params.pricebookId);
        const modifier = findModifier(db, book, request.params.modifierId);
        db.prepare('DELETE FROM price_modifiers WHERE id = ?').run(modifier.id);
        return reply.code(204).send();
      },
    );
  };
}
