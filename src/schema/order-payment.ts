/**
 * `payOrder`: records a payment of an order taken elsewhere (the `manual` gateway,
 * `POST /v2/orders/{id}/payments`). The first one allocates the order's stock; when a product
 * is short nothing is paid or allocated and the answer is OUT_OF_STOCK.
 */
import { isJsonObject } from '../upstream/client.ts';
import { isGatewayError, OutOfStockError } from '../upstream/errors.ts';
import { builder } from './builder.ts';
import { money } from './catalog/product-fields.ts';
import { idKind } from './kit/ids.ts';
import { defineMutation, definePayload } from './kit/mutation.ts';
import { MoneyRef } from './money.ts';
import type { MoneyShape } from './rows.ts';

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
    method: t.field({
      type: PaymentMethod,
      description: 'PURCHASE or AUTHORIZE, as written.',
      resolve: (p) => p.method as 'purchase' | 'authorize',
    }),
    orderPayment: t.exposeString('orderPayment', {
      description: 'The order’s payment status now: `paid` or `authorized`.',
    }),
    amount: t.field({ type: MoneyRef, resolve: (p) => p.amount, description: 'Amount.' }),
  }),
});

const ORDER = idKind('Order');

const PayOrderPayload = definePayload<{ payment: PaymentShape }>('PayOrderPayload', {
  description: 'The payment recorded.',
  fields: (t) => ({
    payment: t.field({ type: PaymentRef, description: 'The payment.', resolve: (p) => p.payment }),
  }),
});

defineMutation('payOrder', {
  description:
    'Records a payment of an order taken outside the store (the manual gateway). The first ' +
    'payment allocates the order’s stock, all or nothing: OUT_OF_STOCK when a product is ' +
    'short; an order already paid or authorized is BAD_USER_INPUT.',
  input: {
    description: 'The order and how it was paid.',
    fields: (t) => ({
      method: t.field({
        type: PaymentMethod,
        required: false,
        defaultValue: 'purchase',
        description: 'Default PURCHASE.',
      }),
    }),
  },
  ids: { orderId: [ORDER, 'The order'] },
  payload: PayOrderPayload,
  resolve: async (input, context, { orderId }) => {
    let response: Awaited<ReturnType<typeof context.write>>;
    try {
      response = await context.write({
        method: 'POST',
        segments: ['orders', orderId, 'payments'],
        body: { data: { gateway: 'manual', method: input.method ?? 'purchase' } },
      });
    } catch (error) {
      if (isGatewayError(error) && /insufficient stock/i.test(error.message)) {
        throw new OutOfStockError(error.message, {
          upstreamStatus: error.upstreamStatus,
          field: 'input.orderId',
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
      payment: {
        orderId,
        method: String(data.transaction_type ?? input.method ?? 'purchase'),
        orderPayment: String(meta.order_payment ?? ''),
        amount: money(amount, currency),
      },
    };
  },
});
