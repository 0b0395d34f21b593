/** Order: a checked-out cart (`/v2/orders`), as a node and a connection. */

import { isJsonObject, type JsonObject } from '../upstream/client.ts';
import type { GatewayContext } from '../upstream/session.ts';
import { builder } from './builder.ts';
import { MoneyRef } from './cart.ts';
import { defineListArgs, type Listed, resolveList } from './connection.ts';
import type { EntityDefinition } from './federation.ts';
import { loadById } from './lookups.ts';
import {
  judgeUuid,
  type MoneyShape,
  readMoney,
  readObject,
  readOptionalString,
  readString,
  readTimestamps,
} from './rows.ts';

export interface OrderShape extends Listed {
  status: string;
  payment: string | null;
  shipping: string | null;
  customerName: string | null;
  customerEmail: string | null;
  total: MoneyShape;
}

export function toOrder(row: JsonObject): OrderShape {
  const meta = readObject(row, 'meta', 'order');
  const displayPrice = readObject(meta, 'display_price', 'order.meta');
  const customer = isJsonObject(row.customer) ? row.customer : {};
  return {
    upstreamId: readString(row, 'id', 'order'),
    status: readString(row, 'status', 'order'),
    payment: readOptionalString(row, 'payment'),
    shipping: readOptionalString(row, 'shipping'),
    customerName: readOptionalString(customer, 'name'),
    customerEmail: readOptionalString(customer, 'email'),
    total: readMoney(displayPrice.with_tax, 'order.display_price.with_tax'),
    ...readTimestamps(row, 'order'),
  };
}

/** One row by upstream id through the per-request `in(id,…)` batch loader; null when missing. */
export function fetchOrder(context: GatewayContext, id: string): Promise<OrderShape | null> {
  return loadById(context, ['orders'], id, toOrder);
}

export const OrderRef = builder.objectRef<OrderShape>('Order');

export const OrderConnection = builder.connectionObject(
  { type: OrderRef, name: 'OrderConnection', description: 'A page of orders.' },
  { name: 'OrderEdge', description: 'One of the orders with its cursor.' },
);
const orderListArgs = defineListArgs('Order', 'orders');

builder.node(OrderRef, {
  description: 'An order: a cart that was checked out.',
  id: { resolve: (order) => order.upstreamId },
  loadOne: (id, context) => fetchOrder(context, judgeUuid(id, 'id')),
  fields: (t) => ({
    upstreamId: t.exposeID('upstreamId', { description: 'The order id upstream (uuid).' }),
    status: t.exposeString('status', { description: 'Order status, e.g. `complete`.' }),
    payment: t.exposeString('payment', {
      nullable: true,
      description: 'Payment status, e.g. `paid`.',
    }),
    shipping: t.exposeString('shipping', {
      nullable: true,
      description: 'Shipping status, e.g. `fulfilled`.',
    }),
    customerName: t.exposeString('customerName', {
      nullable: true,
      description: 'Name of the customer.',
    }),
    customerEmail: t.exposeString('customerEmail', {
      nullable: true,
      description: 'Email of the customer.',
    }),
    total: t.expose('total', { type: MoneyRef, description: 'Order total including tax.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'Creation time.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'Last update time.' }),
  }),
});

builder.queryFields((t) => ({
  order: t.field({
    type: OrderRef,
    nullable: true,
    description: 'One order by upstream id; null when the store has no such order.',
    args: { id: t.arg.id({ required: true, description: 'Upstream id of the order.' }) },
    resolve: (_root, args, context) => fetchOrder(context, judgeUuid(args.id, 'id')),
  }),
  orders: t.connection(
    {
      type: OrderRef,
      description: 'The orders of the store; pages past the 10,000 offset limit are served too.',
      args: orderListArgs,
      resolve: (_root, args, context) =>
        resolveList(context, args, { connection: 'orders', segments: ['orders'], toNode: toOrder }),
    },
    OrderConnection,
  ),
}));

/** Federation: Order is an entity keyed by `upstreamId` (src/schema/federation.ts). */
export const OrderEntity: EntityDefinition = {
  typeName: 'Order',
  keyFields: ['upstreamId'],
  resolve: (representation, context) =>
    fetchOrder(context, judgeUuid(representation.upstreamId as string, 'upstreamId')),
};
