/**
 * `payOrder`: records a payment of an order taken elsewhere (the `manual` gateway,
 * `POST /v2/orders/{id}/payments`). The first one allocates the order's stock; when a product
 * is short nothing is paid or allocated and the answer is OUT_OF_STOCK.
 */
import { isJsonObject } from '../upstream/client.ts';
import { isGatewayError, OutOfStockError } from '../upstream/errors.ts';
import { builder } from './builder.ts';
import { money } from './catalog/product-fields.ts';
import { MoneyRef } from './money.ts';
import type { MoneyShape } from './rows.ts';
import { judgeUuid } from './rows.ts';

interface PaymentShape {
  orderId: string;
  method: string;
  orderPayment: string;
  amount: MoneyShape;
}

const PaymentMethod = builder.enumType('OrderPaymentMethod', {
  description: 'How the payment was taken.',
  values: {
    PURCHASE: { value: 'purchase', description: 'Captured: the order is paid.' },
    AUTHORIZE: { value: 'authorize', description: 'Authorized only: the order is authorized.' },
  },
});

const PaymentRef = builder.objectRef<PaymentShape>('OrderPayment').implement({
  description: 'A payment recorded on an order.',
  fields: (t) => ({
    orderId: t.exposeID('orderId', { description: 'The order (upstream id).' }),
    method: t.exposeString('method', { description: '`purchase` or `authorize`.' }),
    orderPayment: t.exposeString('orderPayment', {
      description: 'The order’s payment status now: `paid` or `authorized`.',
    }),
    amount: t.field({ type: MoneyRef, resolve: (p) => p.amount, description: 'Amount.' }),
  }),
});

builder.mutationField('payOrder', (t) =>
  t.field({
    type: PaymentRef,
    description:
      'Records a payment of an order taken outside the store (the manual gateway). The first ' +
      'payment allocates the order’s stock, all or nothing: OUT_OF_STOCK when a product is ' +
      'short; an order already paid or authorized is BAD_USER_INPUT.',
    args: {
      orderId: t.arg.id({ required: true, description: 'The order (uuid).' }),
      method: t.arg({
        type: PaymentMethod,
        required: false,
        defaultValue: 'purchase',
        description: 'Default PURCHASE.',
      }),
    },
    resolve: async (_root, args, context) => {
      const orderId = judgeUuid(String(args.orderId), 'orderId');
      let response: Awaited<ReturnType<typeof context.write>>;
      try {
        response = await context.write({
          method: 'POST',
          segments: ['orders', orderId, 'payments'],
          body: { data: { gateway: 'manual', method: args.method ?? 'purchase' } },
        });
      } catch (error) {
        if (isGatewayError(error) && /insufficient stock/i.test(error.message)) {
          throw new OutOfStockError(error.message, {
            upstreamStatus: error.upstreamStatus,
            field: 'orderId',
            cause: error,
          });
        }
        throw error;
      }
      const data =
        isJsonObject(response.body) && isJsonObject(response.body.data) ? response.body.data : {};
      const meta = isJsonObject(data.meta) ? data.meta : {};
      const amount = typeof data.amount === 'number' ? data.amount : 0;
      const currency = typeof data.currency === 'string' ? data.currency : 'USD';
      return {
        orderId,
        method: String(data.transaction_type ?? args.method ?? 'purchase'),
        orderPayment: String(meta.order_payment ?? ''),
        amount: money(amount, currency),
      };
    },
  }),
);
