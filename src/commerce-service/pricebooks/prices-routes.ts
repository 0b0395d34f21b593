/**
 * Prices of a price book (`/pcm/pricebooks/{id}/prices`), keyed by SKU: one price per SKU in a
 * book (a second → 409, the first unchanged), a currency map with tiers and sales (bodies.ts).
 * The book's list filters on `eq(external_ref)`, `eq`/`in` sku; the cross-book list
 * (`/pcm/pricebooks/prices`) on id, sku, external_ref and `gt`/`lt` of created_at and
 * updated_at, as production documents. client_credentials only (scopes.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import { cachedStatement, type Db } from '../db.ts';
import { conflict } from '../errors.ts';
import { newId } from '../ids.ts';
import { creationOrderListSpec, listResources } from '../listing/index.ts';
import { parsePrice } from './bodies.ts';
import { findPrice, findPricebook, jsonOrNull, type PriceRow, presentPrice } from './records.ts';
import type { PricebookParams } from './routes.ts';

interface PriceParams extends PricebookParams {
  priceId: string;
}

const bookSpec = creationOrderListSpec({
  external_ref: { column: 'external_ref', kind: 'string', ops: ['eq'] },
  sku: { column: 'sku', kind: 'string', ops: ['eq', 'in'] },
});

const storeSpec = creationOrderListSpec({
  id: { column: 'id', kind: 'id', ops: ['eq', 'in'] },
  sku: { column: 'sku', kind: 'string', ops: ['eq', 'in', 'like'] },
  external_ref: { column: 'external_ref', kind: 'string', ops: ['eq', 'in', 'like'] },
  created_at: { column: 'created_at', kind: 'timestamp', ops: ['gt', 'lt'] },
  updated_at: { column: 'updated_at', kind: 'timestamp', ops: ['gt', 'lt'] },
});

/** 409 when the book already has a price for `sku` (other than `exceptId`). */
function checkSkuFree(db: Db, storeId: string, bookId: string, sku: string, exceptId = ''): void {
  const taken = cachedStatement(
    db,
    'SELECT id FROM prices WHERE store_id = ? AND pricebook_id = ? AND sku = ? AND id != ?',
  )
    .pluck(true)
    .get(storeId, bookId, sku, exceptId);
  if (taken !== undefined) {
    throw conflict(
      `Price book ${bookId} already has a price for SKU "${sku}" (price ${String(taken)}); update that price instead.`,
      'data.attributes.sku',
    );
  }
}

export function priceRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  return async (app) => {
    app.get('/pricebooks/prices', async (request) =>
      listResources({
        request,
        db,
        table: 'prices',
        scope: { store_id: request.store.id },
        spec: storeSpec,
        map: presentPrice,
      }),
    );

    app.post<{ Params: PricebookParams }>(
      '/pricebooks/:pricebookId/prices',
      async (request, reply) => {
        const input = parsePrice(request.body, true);
        const row = db
          .transaction(() => {
            const book = findPricebook(db, request.store.id, request.params.pricebookId);
            const sku = input.sku ?? '';
            checkSkuFree(db, book.store_id, book.id, sku);
            const now = ctx.timestamp();
            const price: PriceRow = {
              id: newId(),
              store_id: book.store_id,
              pricebook_id: book.id,
              sku,
              currencies: JSON.stringify(input.currencies ?? {}),
              sales: jsonOrNull(input.sales),
              external_ref: input.external_ref ?? null,
              admin_attributes: jsonOrNull(input.admin_attributes),
              shopper_attributes: jsonOrNull(input.shopper_attributes),
              created_at: now,
              updated_at: now,
            };
            db.prepare(
              `INSERT INTO prices (id, store_id, pricebook_id, sku, currencies, sales, external_ref,
                                 admin_attributes, shopper_attributes, created_at, updated_at)
             VALUES (@id, @store_id, @pricebook_id, @sku, @currencies, @sales, @external_ref,
                     @admin_attributes, @shopper_attributes, @created_at, @updated_at)`,
            ).run(price);
            return price;
          })
          .immediate();
        reply.code(201);
        return { data: presentPrice(row) };
      },
    );

    app.get<{ Params: PricebookParams }>('/pricebooks/:pricebookId/prices', async (request) => {
      const book = findPricebook(db, request.store.id, request.params.pricebookId);
      return listResources({
        request,
        db,
        table: 'prices',
        scope: { store_id: book.store_id, pricebook_id: book.id },
        spec: bookSpec,
        map: presentPrice,
      });
    });

    app.get<{ Params: PriceParams }>(
      '/pricebooks/:pricebookId/prices/:priceId',
      async (request) => {
        const book = findPricebook(db, request.store.id, request.params.pricebookId);
        return { data: presentPrice(findPrice(db, book, request.params.priceId)) };
      },
    );

    app.put<{ Params: PriceParams }>(
      '/pricebooks/:pricebookId/prices/:priceId',
      async (request) => {
        const input = parsePrice(request.body, false, request.params.priceId);
        const row = db
          .transaction(() => {
            const book = findPricebook(db, request.store.id, request.params.pricebookId);
            const current = findPrice(db, book, request.params.priceId);
            if (input.sku !== undefined && input.sku !== current.sku) {
              checkSkuFree(db, book.store_id, book.id, input.sku, current.id);
            }
            const next: PriceRow = {
              ...current,
              sku: input.sku ?? current.sku,
              currencies:
                input.currencies === undefined
                  ? current.currencies
                  : JSON.stringify(input.currencies),
              sales: input.sales === undefined ? current.sales : jsonOrNull(input.sales),
              external_ref:
                input.external_ref === undefined ? current.external_ref : input.external_ref,
              admin_attributes:
                input.admin_attributes === undefined
                  ? current.admin_attributes
                  : jsonOrNull(input.admin_attributes),
              shopper_attributes:
                input.shopper_attributes === undefined
                  ? current.shopper_attributes
                  : jsonOrNull(input.shopper_attributes),
              updated_at: ctx.timestamp(),
            };
            db.prepare(
              `UPDATE prices SET sku = @sku, currencies = @currencies, sales = @sales,
             external_ref = @external_ref, admin_attributes = @admin_attributes,
             shopper_attributes = @shopper_attributes, updated_at = @updated_at WHERE id = @id`,
            ).run(next);
            return next;
          })
          .immediate();
        return { data: presentPrice(row) };
      },
    );

    app.delete<{ Params: PriceParams }>(
      '/pricebooks/:pricebookId/prices/:priceId',
      async (request, reply) => {
        const book = findPricebook(db, request.store.id, request.params.pricebookId);
        const price = findPrice(db, book, request.params.priceId);
        db.prepare('DELETE FROM prices WHERE id = ?').run(price.id);
        return reply.code(204).send();
      },
    );
  };
}
