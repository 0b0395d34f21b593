/**
 * Price books (`/pcm/pricebooks`): create, list (filter `eq(external_ref,…)`, `eq`/`like` on
 * name), read (`include=prices`), partial update, delete (its prices and modifiers go with it)
 * and replicate (a copy with every price and modifier, in one transaction: all or nothing).
 * The store's own data: client_credentials only (scopes.ts).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { newId } from '../ids.ts';
import { parseIncludes } from '../includes.ts';
import { creationOrderListSpec, listResources } from '../listing/index.ts';
import { type PricebookInput, parsePricebook, parseReplicate } from './bodies.ts';
import {
  findPricebook,
  type ModifierRow,
  type PricebookRow,
  type PriceRow,
  presentPrice,
  presentPricebook,
} from './records.ts';

export interface PricebookParams {
  pricebookId: string;
}

const spec = creationOrderListSpec({
  external_ref: { column: 'external_ref', kind: 'string', ops: ['eq'] },
  name: { column: 'name', kind: 'string', ops: ['eq', 'like'] },
});

function insertPricebook(db: Db, row: PricebookRow): void {
  db.prepare(
    `INSERT INTO pricebooks (id, store_id, name, description, external_ref, created_at, updated_at)
     VALUES (@id, @store_id, @name, @description, @external_ref, @created_at, @updated_at)`,
  ).run(row);
}

/** `include=prices`, or nothing (either form parseIncludes reads); anything else is a 400. */
function includesPrices(request: FastifyRequest): boolean {
  return parseIncludes((request.query as Record<string, unknown>).include, ['prices']).size > 0;
}

/**
 * Copies `source` with its prices and modifiers into a new book. Every copy takes `now` (one
 * timestamp: thousands of prices would otherwise run the record clock ahead) and a new id.
 */
function replicate(db: Db, source: PricebookRow, input: PricebookInput, now: string) {
  const copy: PricebookRow = {
    ...source,
    id: newId(),
    name: input.name ?? source.name,
    description: input.description === undefined ? source.description : input.description,
    external_ref: input.external_ref === undefined ? source.external_ref : input.external_ref,
    created_at: now,
    updated_at: now,
  };
  insertPricebook(db, copy);
  const prices = db
    .prepare('SELECT * FROM prices WHERE store_id = ? AND pricebook_id = ? ORDER BY created_at, id')
    .all(source.store_id, source.id) as PriceRow[];
  const insertPrice = db.prepare(
    `INSERT INTO prices (id, store_id, pricebook_id, sku, currencies, sales, external_ref,
                         admin_attributes, shopper_attributes, created_at, updated_at)
     VALUES (@id, @store_id, @pricebook_id, @sku, @currencies, @sales, @external_ref,
             @admin_attributes, @shopper_attributes, @created_at, @updated_at)`,
  );
  for (const price of prices) {
    insertPrice.run({
      ...price,
      id: newId(),
      pricebook_id: copy.id,
      created_at: now,
      updated_at: now,
    });
  }
  const modifiers = db
    .prepare(
      'SELECT * FROM price_modifiers WHERE store_id = ? AND pricebook_id = ? ORDER BY created_at, id',
    )
    .all(source.store_id, source.id) as ModifierRow[];
  const insertModifier = db.prepare(
    `INSERT INTO price_modifiers (id, store_id, pricebook_id, name, modifier_type, currencies,
                                  external_ref, created_at, updated_at)
     VALUES (@id, @store_id, @pricebook_id, @name, @modifier_type, @currencies, @external_ref,
             @created_at, @updated_at)`,
  );
  for (const modifier of modifiers) {
    insertModifier.run({
      ...modifier,
      id: newId(),
      pricebook_id: copy.id,
      created_at: now,
      updated_at: now,
    });
  }
  return copy;
}

export function pricebookRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  return async (app) => {
    app.post('/pricebooks', async (request, reply) => {
      const input = parsePricebook(request.body, true);
      const now = ctx.timestamp();
      const row: PricebookRow = {
        id: newId(),
        store_id: request.store.id,
        name: input.name ?? '',
        description: input.description ?? null,
        external_ref: input.external_ref ?? null,
        created_at: now,
        updated_at: now,
      };
      insertPricebook(db, row);
      reply.code(201);
      return { data: presentPricebook(row) };
    });

    app.get('/pricebooks', async (request) =>
      listResources({
        request,
        db,
        table: 'pricebooks',
        scope: { store_id: request.store.id },
        spec,
        map: presentPricebook,
      }),
    );

    app.get<{ Params: PricebookParams }>('/pricebooks/:pricebookId', async (request) => {
      const withPrices = includesPrices(request);
      return db.transaction(() => {
        const book = findPricebook(db, request.store.id, request.params.pricebookId);
        if (!withPrices) return { data: presentPricebook(book) };
        const prices = db
          .prepare(
            'SELECT * FROM prices WHERE store_id = ? AND pricebook_id = ? ORDER BY created_at, id',
          )
          .all(book.store_id, book.id) as PriceRow[];
        return { data: presentPricebook(book), included: prices.map(presentPrice) };
      })();
    });

    app.put<{ Params: PricebookParams }>('/pricebooks/:pricebookId', async (request) => {
      const input = parsePricebook(request.body, false, request.params.pricebookId);
      const row = db.transaction(() => {
        const current = findPricebook(db, request.store.id, request.params.pricebookId);
        const next: PricebookRow = {
          ...current,
          name: input.name ?? current.name,
          description: input.description === undefined ? current.description : input.description,
          external_ref:
            input.external_ref === undefined ? current.external_ref : input.external_ref,
          updated_at: ctx.timestamp(),
        };
        db.prepare(
          `UPDATE pricebooks SET name = @name, description = @description,
             external_ref = @external_ref, updated_at = @updated_at WHERE id = @id`,
        ).run(next);
        return next;
      })();
      return { data: presentPricebook(row) };
    });

    app.delete<{ Params: PricebookParams }>('/pricebooks/:pricebookId', async (request, reply) => {
      const book = findPricebook(db, request.store.id, request.params.pricebookId);
      // Its prices and modifiers go with it (ON DELETE CASCADE).
      db.prepare('DELETE FROM pricebooks WHERE id = ?').run(book.id);
      return reply.code(204).send();
    });

    app.post<{ Params: PricebookParams }>(
      '/pricebooks/:pricebookId/replicate',
      async (request, reply) => {
        const input = parseReplicate(request.body);
        const copy = db
          .transaction(() => {
            const source = findPricebook(db, request.store.id, request.params.pricebookId);
            return replicate(db, source, input, ctx.timestamp());
          })
          .immediate();
        reply.code(201);
        return { data: presentPricebook(copy) };
      },
    );
  };
}
