/**
 * Stock per product and every movement of it: the transactions of `/v2/inventories`, the
 * check a cart makes when a product is added, and the movements of an order's life (checkout
 * re-checks without allocating, payment allocates, a cancel or failed payment deallocates,
 * fulfilment takes the allocated stock out). Invariant: total = available + allocated, neither
 * below zero, total at most MAX_STOCK. Each movement is one conditional UPDATE that only
 * matches when the stock allows it, so concurrent movements can never take it below zero, and
 * the table's CHECKs stand behind it. Functions that write run in a transaction of their own,
 * or in the caller's (a savepoint), so a failure writes nothing.
 */
import { cachedStatement, type Db } from '../db.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { emitEvent } from '../integrations/events.ts';
import { MAX_AMOUNT } from '../money.ts';
import { presentTransaction } from './present.ts';

export { STOCK_ACTIONS, type StockAction, type StockRow, type TransactionRow } from './records.ts';

import type { StockAction, StockRow, TransactionRow } from './records.ts';

/** The most stock one product may have: it reaches the gateway as a GraphQL `Int`. */
export const MAX_STOCK = MAX_AMOUNT;

/** Whether `productId` names a PXM product of the store (`/pcm/products`). */
export function productExists(db: Db, storeId: string, productId: string): boolean {
  return (
    cachedStatement(db, 'SELECT 1 FROM pcm_products WHERE store_id = ? AND id = ?').get(
      storeId,
      productId,
    ) !== undefined
  );
}

export function findStock(db: Db, storeId: string, productId: string): StockRow | undefined {
  return cachedStatement(db, 'SELECT * FROM stock WHERE store_id = ? AND product_id = ?').get(
    storeId,
    productId,
  ) as StockRow | undefined;
}

/** The stock of a product, or 404 when its stock is not managed. */
export function requireStock(db: Db, storeId: string, productId: string): StockRow {
  const row = findStock(db, storeId, productId);
  if (!row) {
    throw notFound(
      `No stock is managed for product ${productId}; start with POST /v2/inventories/${productId}.`,
    );
  }
  return row;
}

/** Starts managing a product's stock with `available` in stock; 409 when it already is. */
export function createStock(
  db: Db,
  storeId: string,
  productId: string,
  available: number,
  now: string,
): StockRow {
  return db.transaction(() => {
    if (!productExists(db, storeId, productId)) {
      throw notFound(`No product with id ${productId}.`);
    }
    if (findStock(db, storeId, productId)) {
      throw conflict(
        `Stock for product ${productId} is already managed; change it with a transaction.`,
      );
    }
    const row: StockRow = {
      store_id: storeId,
      product_id: productId,
      stock_id: newId(),
      total: available,
      available,
      allocated: 0,
      created_at: now,
      updated_at: now,
    };
    db.prepare(
      `INSERT INTO stock (store_id, product_id, stock_id, total, available, allocated, created_at,
                          updated_at)
       VALUES (@store_id, @product_id, @stock_id, @total, @available, @allocated, @created_at,
               @updated_at)`,
    ).run(row);
    return row;
  })();
}

/** Stops managing a product's stock (its transactions go with it); 404 when it is not. */
export function deleteStock(db: Db, storeId: string, productId: string): void {
  const result = db
    .prepare('DELETE FROM stock WHERE store_id = ? AND product_id = ?')
    .run(storeId, productId);
  if (result.changes === 0) requireStock(db, storeId, productId);
}

/** What each movement does to (total, available, allocated), and when it is allowed. */
const MOVES = {
  increment: {
    set: 'total = total + @q, available = available + @q',
    when: `total + @q <= ${MAX_STOCK}`,
  },
  decrement: { set: 'total = total - @q, available = available - @q', when: 'available >= @q' },
  allocate: {
    set: 'available = available - @q, allocated = allocated + @q',
    when: 'available >= @q',
  },
  deallocate: {
    set: 'available = available + @q, allocated = allocated - @q',
    when: 'allocated >= @q',
  },
  set: { set: 'total = @q, available = @q - allocated', when: 'allocated <= @q' },
  // An order's fulfilment: the allocated stock leaves the warehouse.
  fulfil: { set: 'total = total - @q, allocated = allocated - @q', when: 'allocated >= @q' },
} as const;

type Move = keyof typeof MOVES;

/** Why a movement of `quantity` cannot happen to `stock`, for a 400 detail. */
function refusal(move: Move, quantity: number, stock: StockRow): string {
  const id = stock.product_id;
  switch (move) {
    case 'increment':
      return `Cannot increment the stock of product ${id} by ${quantity}: the total (${stock.total}) may not pass ${MAX_STOCK}.`;
    case 'set':
      return `Cannot set the stock of product ${id} to ${quantity}: ${stock.allocated} are allocated, so the total may not go below that.`;
    case 'deallocate':
    case 'fulfil':
      return `Cannot ${move} ${quantity} of product ${id}: only ${stock.allocated} are allocated.`;
    default:
      return `Insufficient stock: cannot ${move} ${quantity} of product ${id}, only ${stock.available} available.`;
  }
}

/**
 * Moves stock and records the transaction as `action`. 404 when the product's stock is not
 * managed; 400 (at `source`) when the stock does not allow it, with nothing written.
 */
function move(
  db: Db,
  storeId: string,
  productId: string,
  kind: Move,
  action: StockAction,
  quantity: number,
  now: string,
  source: string,
): { stock: StockRow; transaction: TransactionRow } {
  return db.transaction(() => {
    const { set, when } = MOVES[kind];
    const changed = cachedStatement(
      db,
      `UPDATE stock SET ${set}, updated_at = @now
       WHERE store_id = @store AND product_id = @product AND ${when}`,
    ).run({ q: quantity, now, store: storeId, product: productId }).changes;
    if (changed === 0) {
      throw badRequest(refusal(kind, quantity, requireStock(db, storeId, productId)), source);
    }
    const transaction: TransactionRow = {
      id: newId(),
      store_id: storeId,
      product_id: productId,
      action,
      quantity,
      created_at: now,
    };
    cachedStatement(
      db,
      `INSERT INTO stock_transactions (id, store_id, product_id, action, quantity, created_at)
       VALUES (@id, @store_id, @product_id, @action, @quantity, @created_at)`,
    ).run({ ...transaction });
    emitEvent(db, storeId, 'stock-transaction.created', () => ({
      data: presentTransaction(transaction),
    }));
    return { stock: requireStock(db, storeId, productId), transaction };
  })();
}

/** A transaction of `POST /v2/inventories/{id}/transactions`. */
export function applyStockAction(
  db: Db,
  storeId: string,
  productId: string,
  action: StockAction,
  quantity: number,
  now: string,
  source = 'data.quantity',
): { stock: StockRow; transaction: TransactionRow } {
  return move(db, storeId, productId, action, action, quantity, now, source);
}

/**
 * 400 (at `source`) when `quantity` of the product is more than its available stock. A
 * product whose stock is not managed is not limited. For a cart adding the product.
 */
export function checkStock(
  db: Db,
  storeId: string,
  productId: string,
  quantity: number,
  source = 'data.quantity',
): void {
  const stock = findStock(db, storeId, productId);
  if (stock !== undefined && stock.available < quantity) {
    throw badRequest(
      `Insufficient stock: product ${productId} has ${stock.available} available, ${quantity} requested.`,
      source,
    );
  }
}

/** One product and quantity of an order. */
export interface OrderLine {
  productId: string;
  quantity: number;
}

/** The lines summed per product, in first-seen order. */
function perProduct(lines: readonly OrderLine[]): [string, number][] {
  const sums = new Map<string, number>();
  for (const line of lines)
    sums.set(line.productId, (sums.get(line.productId) ?? 0) + line.quantity);
  return [...sums];
}

/** Checkout: every product of the order is re-checked (as `checkStock`); nothing is allocated. */
export function recheckOrderStock(
  db: Db,
  storeId: string,
  lines: readonly OrderLine[],
  source = 'cart',
): void {
  for (const [productId, quantity] of perProduct(lines)) {
    checkStock(db, storeId, productId, quantity, source);
  }
}

/**
 * Payment: allocates every managed product of the order, all or nothing (a paid order cannot
 * oversell: 400 when one is short, and nothing is allocated).
 */
export function allocateOrderStock(
  db: Db,
  storeId: string,
  lines: readonly OrderLine[],
  now: string,
  source = 'order',
): void {
  db.transaction(() => {
    for (const [productId, quantity] of perProduct(lines)) {
      if (findStock(db, storeId, productId) === undefined) continue;
      move(db, storeId, productId, 'allocate', 'allocate', quantity, now, source);
    }
  })();
}

/**
 * Moves up to each line's quantity of allocated stock; never fails for stock an admin moved
 * meanwhile (a cancel or a shipment must go through): it moves what is allocated.
 */
function releaseAllocated(
  db: Db,
  storeId: string,
  lines: readonly OrderLine[],
  now: string,
  kind: 'deallocate' | 'fulfil',
): void {
  db.transaction(() => {
    for (const [productId, quantity] of perProduct(lines)) {
      const stock = findStock(db, storeId, productId);
      const moved = Math.min(quantity, stock?.allocated ?? 0);
      if (moved === 0) continue;
      const action = kind === 'fulfil' ? 'decrement' : 'deallocate';
      move(db, storeId, productId, kind, action, moved, now, 'order');
    }
  })();
}

/** A cancelled order or a failed payment: its allocated stock becomes available again. */
export function deallocateOrderStock(
  db: Db,
  storeId: string,
  lines: readonly OrderLine[],
  now: string,
): void {
  releaseAllocated(db, storeId, lines, now, 'deallocate');
}

/**
 * A fulfilled (shipped) order: its allocated stock leaves (allocated and total drop), recorded
 * as a `decrement` transaction.
 */
export function fulfilOrderStock(
  db: Db,
  storeId: string,
  lines: readonly OrderLine[],
  now: string,
): void {
  releaseAllocated(db, storeId, lines, now, 'fulfil');
}
