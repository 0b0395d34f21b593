/**
 * Orders: created by cart checkout (carts/checkout-routes.ts) and by the seed; read here. The list has
 * the hard offset limit of the production API (page[offset] > 10,000 → 400): deep reads go
 * through the keyset pattern, which the (store_id, created_at|updated_at, id) indexes serve.
 *
 * An order never changes once written, so its JSON:API object is rendered once, by whoever
 * writes it, and stored as text in orders.doc (migration 0400); reads concatenate those texts
 * instead of rendering each order on every page. presentOrder stays the one renderer: a stored
 * document is its output, byte for byte. An order without a document (written before 0400, or
 * by a raw insert) is rendered on read exactly as before, and the orders that predate 0400 are
 * rendered and stored when the service starts (storePendingOrderDocuments).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { shownBundleConfiguration } from '../carts/bundles.ts';
import type { ServiceContext } from '../context.ts';
import { cachedStatement, type Db } from '../db.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { parseIncludes } from '../includes.ts';
import { listResources, OFFSET_LIMIT, standardListSpec } from '../listing/index.ts';
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
  /** The customer the order belongs to (migration 0600), null for a guest's. */
  customer_id: string | null;
  /** The account and member of an account member's checkout (migration 0850), else null. */
  account_id?: string | null;
  account_member_id?: string | null;
  created_at: string;
  updated_at: string;
}

interface OrderItemRow {
  id: string;
  order_id: string;
  /** The catalog product of a catalog line (migration 0840); null for a custom item's. */
  product_id: string | null;
  name: string;
  sku: string;
  quantity: number;
  unit_amount: number;
  discount: number;
  currency: string;
  /** A bundle's selected options (carts/bundles.ts); null for any other line. */
  bundle_configuration?: string | null;
  created_at: string;
  updated_at: string;
}

export const ORDER_COLUMNS =
  'id, store_id, cart_id, status, payment, shipping, customer_name, customer_email, ' +
  'billing_address, shipping_address, currency, with_tax, without_discount, discount, ' +
  'customer_id, account_id, account_member_id, created_at, updated_at';

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
    // An account's order names its contact, as production's do (only then: the documents of
    // every other order stay byte for byte what they were).
    ...(row.account_id ? { contact: { name: row.customer_name, email: row.customer_email } } : {}),
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
      customer: { data: row.customer_id ? { type: 'customer', id: row.customer_id } : null },
      ...(row.account_id
        ? {
            account: { data: { type: 'account', id: row.account_id } },
            account_member: {
              data: row.account_member_id
                ? { type: 'account_member', id: row.account_member_id }
                : null,
            },
          }
        : {}),
    },
  };
}

/**
 * The stored document of an order: presentOrder's object as JSON text, which is exactly the
 * text fastify's serializer (JSON.stringify) wrote for it inside a response.
 */
export function renderOrder(row: OrderRow, itemIds: readonly string[]): string {
  return JSON.stringify(presentOrder(row, itemIds));
}

/** What fastify sets for an object payload; the routes here send prebuilt JSON text. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

function presentOrderItem(row: OrderItemRow) {
  const c = row.currency;
  const value = row.unit_amount * row.quantity;
  const unitDiscount = Math.trunc(row.discount / row.quantity);
  const pair = (unit: number, total: number) => ({ unit: money(unit, c), value: money(total, c) });
  return {
    type: 'order_item',
    id: row.id,
    // The catalog product a line was ordered from (what a storefront loads images and links
    // by); a custom item has none, and shows none, as in the cart.
    ...(row.product_id == null ? {} : { product_id: row.product_id }),
    name: row.name,
    sku: row.sku,
    quantity: row.quantity,
    ...shownBundleConfiguration(row.bundle_configuration),
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
  const rows = cachedStatement(
    db,
    `SELECT order_id, id FROM order_items
      WHERE order_id IN (SELECT value FROM json_each(?)) ORDER BY order_id, id`,
  ).all(JSON.stringify(orderIds)) as { order_id: string; id: string }[];
  for (const row of rows) {
    const list = map.get(row.order_id);
    if (list) list.push(row.id);
    else map.set(row.order_id, [row.id]);
  }
  return map;
}

/**
 * Renders the documents of the given orders from their columns and item ids (two queries for
 * any number of orders), keyed by order id; ids with no order are absent.
 */
function renderOrders(db: Db, orderIds: readonly string[]): Map<string, string> {
  const rows = cachedStatement(
    db,
    `SELECT ${ORDER_COLUMNS} FROM orders WHERE id IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(orderIds)) as OrderRow[];
  const items = itemIdsByOrder(db, orderIds);
  return new Map(rows.map((row) => [row.id, renderOrder(row, items.get(row.id) ?? [])]));
}

/** One order's document rendered from its rows. */
function renderedDocument(db: Db, orderId: string): string {
  const doc = renderOrders(db, [orderId]).get(orderId);
  if (doc === undefined) throw new Error(`No order ${orderId} to render`);
  return doc;
}

/**
 * An order as the read routes select it (DOC_COLUMNS): the stored document as UTF-8 bytes,
 * which go into the response as they are, never decoded into a string and encoded back; NULL
 * when the order has no document.
 */
interface OrderDocRow {
  id: string;
  doc: Buffer | null;
}

const DOC_COLUMNS = 'id, CAST(doc AS BLOB) AS doc';

/** An order's document: the stored one, or presentOrder's rendering when there is none. */
function documentOf(db: Db, row: OrderDocRow): Buffer {
  return row.doc ?? Buffer.from(renderedDocument(db, row.id));
}

/**
 * documentOf for a page of orders, rendering any without a document in one go. Call in the
 * read transaction that selected `rows`, so each row is still there.
 */
function documentsOf(db: Db, rows: readonly OrderDocRow[]): Buffer[] {
  const missing = rows.filter((row) => row.doc === null).map((row) => row.id);
  const rendered = missing.length > 0 ? renderOrders(db, missing) : new Map<string, string>();
  return rows.map((row) => {
    if (row.doc !== null) return row.doc;
    const doc = rendered.get(row.id);
    if (doc === undefined) throw new Error(`Order ${row.id} vanished inside its read`);
    return Buffer.from(doc);
  });
}

const LIST_START = Buffer.from('{"data":[');
const ONE_START = Buffer.from('{"data":');
const COMMA = Buffer.from(',');

/**
 * The list response exactly as fastify serialized the envelope before (JSON.stringify, `data`
 * first), with the documents copied in as bytes.
 */
function listBody(docs: readonly Buffer[], rest: object): Buffer {
  const parts: Buffer[] = [LIST_START];
  for (const doc of docs) {
    if (parts.length > 1) parts.push(COMMA);
    parts.push(doc);
  }
  parts.push(Buffer.from(`],${JSON.stringify(rest).slice(1)}`));
  return Buffer.concat(parts);
}

/**
 * Renders and stores the document of an order written in the current transaction, together
 * with all its items, and returns it. It is rendered from the rows as SQLite hands them back
 * (not from the values the writer bound), so it is what a read would have rendered even where
 * storing changes a value (a lone UTF-16 surrogate comes back as U+FFFD).
 */
export function storeOrderDocument(db: Db, orderId: string): string {
  const doc = renderedDocument(db, orderId);
  cachedStatement(db, 'UPDATE orders SET doc = ? WHERE id = ?').run(doc, orderId);
  return doc;
}

/**
 * Checkout's answer: stores the document of the order just written (storeOrderDocument) and
 * returns it with its items included as `GET /v2/orders/{id}?include=items` shows them, so a
 * guest, whose token may not read orders (scopes.ts), still gets the lines of the order it
 * placed. Call in the checkout's transaction.
 */
export function storeCheckedOutOrder(db: Db, orderId: string): string {
  const doc = storeOrderDocument(db, orderId);
  const items = orderItems(db, orderId).map(presentOrderItem);
  return `{"data":${doc},"included":${JSON.stringify({ items })}}`;
}

/** Orders rendered per transaction by storePendingOrderDocuments. */
const PENDING_BATCH = 500;

/**
 * Stores the documents of the orders that existed before migration 0400 (rowids up to
 * order_documents_backfill.last_rowid), so reads serve them from stored text too, then deletes
 * that row; returns how many were rendered. The service calls it when it starts: the first
 * start after the upgrade pays once (about 70 µs of CPU an order: 7 s for 100,000), later
 * ones find nothing to do. Rowid order reads and grows the rows where they lie in the table
 * (id order took three times as long); one transaction per batch keeps a concurrent writer
 * (the seed CLI) waiting briefly at most. Orders that got a document meanwhile keep it.
 */
export function storePendingOrderDocuments(db: Db): number {
  const lastRowid = db.prepare('SELECT last_rowid FROM order_documents_backfill').pluck().get();
  if (typeof lastRowid !== 'number') return 0;
  const next = db.prepare(
    `SELECT rowid AS order_rowid, ${ORDER_COLUMNS} FROM orders
      WHERE rowid > ? AND rowid <= ? AND doc IS NULL ORDER BY rowid LIMIT ?`,
  );
  const store = db.prepare('UPDATE orders SET doc = ? WHERE rowid = ?');
  let afterRowid = 0;
  let rendered = 0;
  const batch = db.transaction((): boolean => {
    const rows = next.all(afterRowid, lastRowid, PENDING_BATCH) as (OrderRow & {
      order_rowid: number;
    })[];
    if (rows.length === 0) {
      db.prepare('DELETE FROM order_documents_backfill').run();
      return false;
    }
    const items = itemIdsByOrder(
      db,
      rows.map((row) => row.id),
    );
    for (const row of rows) {
      store.run(renderOrder(row, items.get(row.id) ?? []), row.order_rowid);
      afterRowid = row.order_rowid;
    }
    rendered += rows.length;
    return true;
  });
  let more = true;
  while (more) more = batch();
  return rendered;
}

/**
 * Whose orders a request sees: a customer token's customer, an account token's account, or
 * (the store's token) every order. Scopes.ts lets an implicit token here only with one of them.
 */
function orderScope(request: FastifyRequest): {
  column?: 'customer_id' | 'account_id';
  id?: string;
} {
  if (request.customer) return { column: 'customer_id', id: request.customer.id };
  if (request.accountMember) return { column: 'account_id', id: request.accountMember.accountId };
  return {};
}

function orderListScope(request: FastifyRequest): Record<string, string> {
  const { column, id } = orderScope(request);
  const store = { store_id: request.store.id };
  return column === undefined || id === undefined ? store : { ...store, [column]: id };
}

function findOrder(db: Db, request: FastifyRequest, orderId: string): OrderDocRow {
  const { column, id } = orderScope(request);
  const storeId = request.store.id;
  const row = !isUuid(orderId)
    ? undefined
    : column === undefined
      ? (cachedStatement(db, `SELECT ${DOC_COLUMNS} FROM orders WHERE store_id = ? AND id = ?`).get(
          storeId,
          orderId.toLowerCase(),
        ) as OrderDocRow | undefined)
      : (cachedStatement(
          db,
          `SELECT ${DOC_COLUMNS} FROM orders WHERE store_id = ? AND id = ? AND ${column} = ?`,
        ).get(storeId, orderId.toLowerCase(), id) as OrderDocRow | undefined);
  if (!row) throw notFound(`No order with id ${orderId}.`);
  return row;
}

function orderItems(db: Db, orderId: string): OrderItemRow[] {
  return cachedStatement(db, 'SELECT * FROM order_items WHERE order_id = ? ORDER BY id').all(
    orderId,
  ) as OrderItemRow[];
}

/**
 * The items of a page of orders for `included.items` (one query for the whole page), in the
 * page's order of orders and each order's item order (by id, as `relationships.items` lists
 * them).
 */
function itemsOfOrders(db: Db, orderIds: readonly string[]): OrderItemRow[] {
  if (orderIds.length === 0) return [];
  const rows = cachedStatement(
    db,
    `SELECT * FROM order_items WHERE order_id IN (SELECT value FROM json_each(?))
      ORDER BY order_id, id`,
  ).all(JSON.stringify(orderIds)) as OrderItemRow[];
  const byOrder = new Map<string, OrderItemRow[]>();
  for (const row of rows) {
    const list = byOrder.get(row.order_id);
    if (list) list.push(row);
    else byOrder.set(row.order_id, [row]);
  }
  return orderIds.flatMap((id) => byOrder.get(id) ?? []);
}

/** `include=` of the order routes: `items`, in either form (includes.ts). */
function includesItems(raw: unknown): boolean {
  return parseIncludes(raw, ['items']).has('items');
}

export function orderRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  // The store's token may ask for one account's orders (eq(account_id,…)), which the
  // (store_id, account_id, created_at) index serves.
  const spec = standardListSpec({
    hardOffsetLimit: OFFSET_LIMIT,
    filters: { account_id: { column: 'account_id', kind: 'id', ops: ['eq'] } },
  });
  storePendingOrderDocuments(db);
  return async (app) => {
    app.get<{ Querystring: { include?: unknown } }>('/orders', async (request, reply) => {
      const withItems = includesItems(request.query.include);
      // One read transaction around the page and any rendering it needs (listResources' own
      // becomes a savepoint), so an order rendered on read is the row the page selected.
      const { data, ...rest } = db.transaction(() => {
        const page = listResources({
          request,
          db,
          table: 'orders',
          columns: DOC_COLUMNS,
          // With a customer or account token, that customer's or account's orders only.
          scope: orderListScope(request),
          spec,
          map: (row: OrderDocRow) => row,
        });
        const docs = documentsOf(db, page.data);
        if (!withItems) return { ...page, data: docs };
        // Production's `included.items`: every item of every order on the page.
        const items = itemsOfOrders(
          db,
          page.data.map((row) => row.id),
        ).map(presentOrderItem);
        return { ...page, data: docs, included: { items } };
      })();
      reply.type(JSON_CONTENT_TYPE);
      return listBody(data, rest);
    });

    app.get<{ Params: { orderId: string }; Querystring: { include?: unknown } }>(
      '/orders/:orderId',
      async (request, reply) => {
        const withItems = includesItems(request.query.include);
        const body = db.transaction(() => {
          const row = findOrder(db, request, request.params.orderId);
          const rest = withItems
            ? `,"included":${JSON.stringify({ items: orderItems(db, row.id).map(presentOrderItem) })}}`
            : '}';
          return Buffer.concat([ONE_START, documentOf(db, row), Buffer.from(rest)]);
        })();
        reply.type(JSON_CONTENT_TYPE);
        return body;
      },
    );
  };
}
