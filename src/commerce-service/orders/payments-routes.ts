/**
 * Paying an order (`POST /v2/orders/{id}/payments`), with the `manual` gateway only: the store
 * takes the money elsewhere and records it here. What it moves is the stock (v2-catalog-notes
 * §9): checkout re-checks stock and allocates none; the first successful payment (`purchase` or
 * `authorize`) allocates every managed product of the order, all or nothing, in the same
 * transaction that marks the order `paid` or `authorized`. A paid order cannot oversell: when
 * one product is short the payment is refused (400) and nothing changes.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import { cachedStatement } from '../db.ts';
import { notFound, unprocessable } from '../errors.ts';
import { isUuid, newId } from '../ids.ts';
import { emitEvent } from '../integrations/events.ts';
import { allocateOrderStock, type OrderLine } from '../inventory/stock.ts';
import { money } from '../money.ts';
import { requireData, requireEnum } from '../request-body.ts';
import { storeOrderDocument } from './routes.ts';

interface OrderPaymentRow {
  id: string;
  payment: string;
  currency: string;
  with_tax: number;
  customer_id: string | null;
  account_id: string | null;
}

export function orderPaymentRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  return async (app) => {
    app.post<{ Params: { orderId: string } }>(
      '/orders/:orderId/payments',
      async (request, reply) => {
        const data = requireData(request.body);
        requireEnum(data, 'gateway', ['manual']);
        const method = requireEnum(data, 'method', ['purchase', 'authorize']);
        const storeId = request.store.id;
        const orderId = request.params.orderId.toLowerCase();
        const transaction = db.transaction(() => {
          const order = !isUuid(orderId)
            ? undefined
            : (cachedStatement(
                db,
                `SELECT id, payment, currency, with_tax, customer_id, account_id FROM orders
                  WHERE store_id = ? AND id = ?`,
              ).get(storeId, orderId) as OrderPaymentRow | undefined);
          // A customer pays only their own orders, an account member only the account's;
          // another's is as unknown as a missing one.
          if (
            order === undefined ||
            (request.customer && order.customer_id !== request.customer.id) ||
            (request.accountMember && order.account_id !== request.accountMember.accountId)
          ) {
            throw notFound(`No order ${request.params.orderId} in this store.`);
          }
          if (order.payment !== 'unpaid') {
            throw unprocessable(`Order ${order.id} is already ${order.payment}.`);
          }
          const lines = cachedStatement(
            db,
            `SELECT product_id AS productId, quantity FROM order_items
             WHERE order_id = ? AND product_id IS NOT NULL`,
          ).all(order.id) as unknown as OrderLine[];
          const now = ctx.timestamp();
          allocateOrderStock(db, storeId, lines, now);
          const payment = method === 'purchase' ? 'paid' : 'authorized';
          cachedStatement(db, 'UPDATE orders SET payment = ?, updated_at = ? WHERE id = ?').run(
            payment,
            now,
            order.id,
          );
          const doc = storeOrderDocument(db, order.id);
          emitEvent(db, storeId, 'order.updated', () => ({ data: JSON.parse(doc) }));
          const total = JSON.parse(doc).meta.display_price.with_tax;
          return {
            id: newId(),
            type: 'transaction',
            // The specification's TransactionResponse names it `transaction-type`; the
            // underscore form stays for the clients (the gateway) that read it already.
            'transaction-type': method,
            transaction_type: method,
            gateway: 'manual',
            status: 'complete',
            amount: order.with_tax,
            refunded_amount: 0,
            currency: order.currency,
            relationships: { order: { data: { type: 'order', id: order.id } } },
            meta: {
              order_payment: payment,
              display_price: total,
              display_refunded_amount: money(0, order.currency),
              timestamps: { created_at: now, updated_at: now },
            },
          };
        })();
        reply.code(201);
        return { data: transaction };
      },
    );
  };
}
