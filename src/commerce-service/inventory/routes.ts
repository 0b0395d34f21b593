/**
 * Stock per product (`/v2/inventories`): start managing a product's stock, read it (one, several
 * at once, or the list), stop managing it. Answers in the basic (flat) form, or the
 * multi-location (nested) form under `EP-Inventories-Multi-Location: true` (present.ts).
 * A shopper may read one product's stock and several at once; the rest is the store's
 * (scopes.ts). Transactions are stock-transactions.ts's.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import { parsePathId } from '../custom-apis/routes.ts';
import { cachedStatement } from '../db.ts';
import { creationOrderListSpec, listResources } from '../listing/index.ts';
import { parseMultiLocationCreate, parseMultiple, parseStockCreate } from './bodies.ts';
import { presentMultiLocationStock, stockPresenter } from './present.ts';
import { createStock, deleteStock, requireStock, type StockRow } from './stock.ts';

export interface ProductParams {
  productId: string;
}

// Production documents no filter on the basic list (the multi-location one's location filter
// needs per-location stock, which is not served).
const spec = creationOrderListSpec({}, 'product_id');

export function inventoryRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  return async (app) => {
    app.post('/inventories', async (request, reply) => {
      const { productId, available } = parseMultiLocationCreate(request.body);
      const row = createStock(db, request.store.id, productId, available, ctx.timestamp());
      reply.code(201);
      return { data: presentMultiLocationStock(row) };
    });

    app.get('/inventories', async (request) =>
      listResources({
        request,
        db,
        table: 'stock',
        scope: { store_id: request.store.id },
        spec,
        map: stockPresenter(request),
      }),
    );

    app.post('/inventories/multiple', async (request) => {
      const present = stockPresenter(request);
      const ids = parseMultiple(request.body);
      const rows = cachedStatement(
        db,
        `SELECT * FROM stock WHERE store_id = ? AND product_id IN (SELECT value FROM json_each(?))`,
      ).all(request.store.id, JSON.stringify(ids)) as StockRow[];
      const byId = new Map(rows.map((row) => [row.product_id, row]));
      // In the order asked, once each; a product whose stock is not managed is left out.
      const data = [...new Set(ids)].flatMap((id) => {
        const row = byId.get(id);
        return row === undefined ? [] : [present(row)];
      });
      return { data };
    });

    app.post<{ Params: ProductParams }>('/inventories/:productId', async (request, reply) => {
      const present = stockPresenter(request);
      const productId = parsePathId(request.params.productId, 'product');
      const quantity = parseStockCreate(request.body);
      const row = createStock(db, request.store.id, productId, quantity, ctx.timestamp());
      reply.code(201);
      return { data: present(row) };
    });

    app.get<{ Params: ProductParams }>('/inventories/:productId', async (request) => {
      const present = stockPresenter(request);
      const productId = parsePathId(request.params.productId, 'product');
      return { data: present(requireStock(db, request.store.id, productId)) };
    });

    app.delete<{ Params: ProductParams }>('/inventories/:productId', async (request, reply) => {
      const productId = parsePathId(request.params.productId, 'product');
      deleteStock(db, request.store.id, productId);
      return reply.code(204).send();
    });
  };
}
