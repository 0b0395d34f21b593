/**
 * Orders: created by cart checkout (routes/carts.ts) and by the seed; read here. The list has
 * the hard offset limit of the production API (page[offset] > 10,000 → 400): deep reads go
 * through the keyset pattern, which the (store_id, created_at|updated_at, id) indexes serve.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { badRequest, notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { listResources, OFFSET_LIMIT, standardListSpec } from '../listing.ts';
import { money } from '../money.ts';

export interface OrderRow {
  id: string;
  store_id: string;
  cart_id: string | null;
  status: string;
  payment: string;
  shipping: string;
  customer_name: string;
  customer_email: string;
  billing_address: string;
  shipping_address: string | null;
  currency: string;
  with_tax: number;
  without_discount: number;
  discount: number;
  created_at: string;
  updated_at: string;
}

interface OrderItemRow {
  id: string;
  order_id: string;
  name: string;
  sku: string;
  quantity: number;
  unit_amount: number;
  discount: number;
  currency: string;
  created_at: string;
  updated_at: string;
}

export const ORDER_COLUMNS =
  'id, store_id, cart_id, status, payment, shipping, customer_name, customer_email, ' +
  'billing_address, shipping_address, currency, with_tax, without_discount, discount, ' +
  'created_at, updated_at';

/** An order as the production API shows it (tax is not computed: tax is always zero). */
export function presentOrder(row: OrderRow, itemIds: readonly string[]) {
  const c = row.currency;
  const paid = row.payment === 'paid' ? row.with_tax : 0;
  return {
    type: 'order',
    id: row.id,
    status: row.status,
    payment: row.payment,
    shipping: row.shipping,
    anonymized: false,
    customer: { name: row.customer_name, email: row.customer_email },
    billing_address: JSON.parse(row.billing_address) as unknown,
    shipping_address:
      row.shipping_address === null ? null : (JSON.parse(row.shipping_address) as unknown),
    links: {},
    meta: {
      display_price: {
        with_tax: money(row.with_tax, c),
        without_tax: money(row.with_tax, c),
        tax: money(0, c),
        discount: money(row.discount, c),
        without_discount: money(row.without_discount, c),
        balance_owing: money(row.with_tax - paid, c),
        paid: money(paid, c),
        authorized: money(0, c),
      },
      timestamps: { created_at: row.created_at, updated_at: row.updated_at },
    },
    relationships: {
      items: { data: itemIds.map((id) => ({ type: 'item', id })) },
      customer: { data: null },
    },
  };
}

function presentOrderItem(row: OrderItemRow) {
  const c = row.currency;
  const value = row.unit_amount * row.quantity;
  const unitDiscount = Math.trunc(row.discount / row.quantity);
  const pair = (unit: number, total: number) => ({ unit: money(unit, c), value: money(total, c) });
  return {
    type: 'order_item',
    id: row.id,
    name: row.name,
    sku: row.sku,
    quantity: row.quantity,
    unit_price: { amount: row.unit_amount, currency: c, includes_tax: true },
    value: { amount: value, currency: c, includes_tax: true },
    links: {},
    meta: {
      display_price: {
        with_tax: pair(row.unit_amount + unitDiscount, value + row.discount),
        without_tax: pair(row.unit_amount + unitDiscount, value + row.discount),
        tax: pair(0, 0),
        discount: pair(unitDiscount, row.discount),
        without_discount: pair(row.unit_amount, value),
      },
      timestamps: { created_at: row.created_at, updated_at: row.updated_at },
    },
    relationships: { order: { data: { type: 'order', id: row.order_id } } },
  };
}

/** Item ids of many orders in one query (a list page needs them for relationships.items). */
export function itemIdsByOrder(db: Db, orderIds: readonly string[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  if (orderIds.length === 0) return map;
  const rows = db
    .prepare(
      `SELECT order_id, id FROM order_items
        WHERE order_id IN (SELECT value FROM json_each(?)) ORDER BY order_id, id`,
    )
    .all(JSON.stringify(orderIds)) as { order_id: string; id: string }[];
  for (const row of rows) {
    const list = map.get(row.order_id);
    if (list) list.push(row.id);
    else map.set(row.order_id, [row.id]);
  }
  return map;
}

function findOrder(db: Db, storeId: string, orderId: string): OrderRow {
  const row = isUuid(orderId)
    ? (db
        .prepare(`SELECT ${ORDER_COLUMNS} FROM orders WHERE store_id = ? AND id = ?`)
        .get(storeId, orderId.toLowerCase()) as OrderRow | undefined)
    : undefined;
  if (!row) throw notFound(`No order with id ${orderId}.`);
  return row;
}

function orderItems(db: Db, orderId: string): OrderItemRow[] {
  return db
    .prepare('SELECT * FROM order_items WHERE order_id = ? ORDER BY id')
    .all(orderId) as OrderItemRow[];
}

/** The `data` of `GET /v2/orders/{id}`; checkout answers with it too. */
export function loadOrderForResponse(db: Db, storeId: string, orderId: string) {
  const row = findOrder(db, storeId, orderId);
  return presentOrder(
    row,
    orderItems(db, row.id).map((i) => i.id),
  );
}

export function orderRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const spec = standardListSpec({ hardOffsetLimit: OFFSET_LIMIT });
  return async (app) => {
    app.get('/orders', async (request) => {
      const page = listResources({
        request,
        db,
        table: 'orders',
        columns: ORDER_COLUMNS,
        scope: { store_id: request.store.id },
        spec,
        map: (row: OrderRow) => row,
      });
      // Item ids for relationships.items: one query for the whole page, not one per order.
      const items = itemIdsByOrder(
        db,
        page.data.map((row) => row.id),
      );
      return { ...page, data: page.data.map((row) => presentOrder(row, items.get(row.id) ?? [])) };
    });

    app.get<{ Params: { orderId: string }; Querystring: { include?: unknown } }>(
      '/orders/:orderId',
      async (request) => {
        const include = request.query.include;
        if (include !== undefined && include !== '' && include !== 'items') {
          throw badRequest('Unknown include; the only one allowed is "items".', 'include');
        }
        const row = findOrder(db, request.store.id, request.params.orderId);
        const items = orderItems(db, row.id);
        const data = presentOrder(
          row,
          items.map((i) => i.id),
        );
        return include === 'items'
          ? { data, included: { items: items.map(presentOrderItem) } }
          : { data };
      },
    );
  };
}
