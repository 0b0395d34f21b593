/**
 * Stock transactions of a product (`/v2/inventories/{id}/transactions`): increment, decrement,
 * allocate, deallocate and set, each one movement of stock.ts (400 with nothing written when
 * the stock does not allow it); the product's list (creation order) and one by id. The
 * store's (scopes.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import { parsePathId } from '../custom-apis/routes.ts';
import { cachedStatement } from '../db.ts';
import { notFound } from '../errors.ts';
import { creationOrderListSpec, listResources } from '../listing/index.ts';
import { parseTransaction } from './bodies.ts';
import { transactionPresenter } from './present.ts';
import type { ProductParams } from './routes.ts';
import { applyStockAction, requireStock, type TransactionRow } from './stock.ts';

interface TransactionParams extends ProductParams {
  transactionId: string;
}

const spec = creationOrderListSpec({});

export function stockTransactionRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  return async (app) => {
    app.post<{ Params: ProductParams }>(
      '/inventories/:productId/transactions',
      async (request, reply) => {
        const present = transactionPresenter(request);
        const productId = parsePathId(request.params.productId, 'product');
        const input = parseTransaction(request.body, productId);
        const { transaction } = applyStockAction(
          db,
          request.store.id,
          productId,
          input.action,
          input.quantity,
          ctx.timestamp(),
          input.quantitySource,
        );
        reply.code(201);
        return { data: present(transaction) };
      },
    );

    app.get<{ Params: ProductParams }>('/inventories/:productId/transactions', async (request) => {
      const present = transactionPresenter(request);
      const productId = parsePathId(request.params.productId, 'product');
      const stock = requireStock(db, request.store.id, productId);
      return listResources({
        request,
        db,
        table: 'stock_transactions',
        scope: { store_id: stock.store_id, product_id: stock.product_id },
        spec,
        map: present,
      });
    });

    app.get<{ Params: TransactionParams }>(
      '/inventories/:productId/transactions/:transactionId',
      async (request) => {
        const present = transactionPresenter(request);
        const productId = parsePathId(request.params.productId, 'product');
        const id = parsePathId(request.params.transactionId, 'transaction');
        const row = cachedStatement(
          db,
          'SELECT * FROM stock_transactions WHERE store_id = ? AND product_id = ? AND id = ?',
        ).get(request.store.id, productId, id) as TransactionRow | undefined;
        if (!row) throw notFound(`No stock transaction ${id} for product ${productId}.`);
        return { data: present(row) };
      },
    );
  };
}
