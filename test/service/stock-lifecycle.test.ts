/**
 * The stock movements carts and orders will use (inventory/stock.ts): adding to a cart checks
 * available stock (a 400 naming the quantity when short), checkout re-checks without
 * allocating, payment allocates all or nothing, a cancel deallocates and fulfilment takes the
 * allocated stock out. Products whose stock is not managed are never limited.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Db, openDatabase } from '../../src/commerce-service/db.ts';
import { ApiError } from '../../src/commerce-service/errors.ts';
import {
  allocateOrderStock,
  checkStock,
  createStock,
  deallocateOrderStock,
  findStock,
  fulfilOrderStock,
  recheckOrderStock,
} from '../../src/commerce-service/inventory/stock.ts';
import { ensureStores } from '../../src/commerce-service/stores.ts';

let db: Db;
let store: string;
const NOW = '2030-01-01T00:00:00.000Z';

beforeAll(() => {
  db = openDatabase(':memory:');
  [store = ''] = ensureStores(db, [{ id: 'alpha', secret: 'alpha-secret' }], NOW);
});

function product(available: number): string {
  const id = randomUUID();
  // Stock is managed only for a PXM product of the store.
  db.prepare(
    `INSERT INTO pcm_products (id, store_id, name, commodity_type, status, created_at, updated_at)
     VALUES (?, ?, 'Stocked', 'physical', 'live', ?, ?)`,
  ).run(id, store, NOW, NOW);
  createStock(db, store, id, available, NOW);
  return id;
}

const levels = (id: string) => {
  const row = findStock(db, store, id);
  return row && { total: row.total, available: row.available, allocated: row.allocated };
};
const transactions = (id: string) =>
  db
    .prepare('SELECT action, quantity FROM stock_transactions WHERE product_id = ? ORDER BY rowid')
    .all(id);

function refusal(run: () => void): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('adding to a cart and checking out', () => {
  it('checks available stock with a 400 at the quantity when short', () => {
    const id = product(3);
    expect(() => checkStock(db, store, id, 3)).not.toThrow();
    const error = refusal(() => checkStock(db, store, id, 4));
    expect(error).toMatchObject({ status: 400, source: 'data.quantity' });
    expect(error.detail).toContain('3 available, 4 requested');
    // Stock that is not managed does not limit.
    expect(() => checkStock(db, store, randomUUID(), 1_000_000)).not.toThrow();
  });

  it('re-checks every product of an order at checkout, summing its lines, without allocating', () => {
    const a = product(5);
    const b = product(2);
    const lines = [
      { productId: a, quantity: 2 },
      { productId: b, quantity: 1 },
      { productId: b, quantity: 1 },
    ];
    recheckOrderStock(db, store, lines);
    expect(levels(a)).toEqual({ total: 5, available: 5, allocated: 0 });
    const error = refusal(() =>
      recheckOrderStock(db, store, [...lines, { productId: b, quantity: 1 }]),
    );
    expect(error).toMatchObject({ status: 400, source: 'cart' });
  });
});

describe('an order’s life', () => {
  it('allocates on payment, all or nothing', () => {
    const a = product(5);
    const b = product(1);
    const unmanaged = randomUUID();
    const error = refusal(() =>
      allocateOrderStock(
        db,
        store,
        [
          { productId: a, quantity: 2 },
          { productId: b, quantity: 2 },
        ],
        NOW,
      ),
    );
    expect(error.status).toBe(400);
    expect(levels(a)).toEqual({ total: 5, available: 5, allocated: 0 });
    expect(transactions(a)).toEqual([]);
    allocateOrderStock(
      db,
      store,
      [
        { productId: a, quantity: 2 },
        { productId: b, quantity: 1 },
        { productId: unmanaged, quantity: 9 },
      ],
      NOW,
    );
    expect(levels(a)).toEqual({ total: 5, available: 3, allocated: 2 });
    expect(levels(b)).toEqual({ total: 1, available: 0, allocated: 1 });
    expect(transactions(a)).toEqual([{ action: 'allocate', quantity: 2 }]);
    expect(levels(unmanaged)).toBeUndefined();
  });

  it('deallocates on cancel and takes the allocated stock out on fulfilment', () => {
    const a = product(10);
    allocateOrderStock(db, store, [{ productId: a, quantity: 4 }], NOW);
    deallocateOrderStock(db, store, [{ productId: a, quantity: 1 }], NOW);
    expect(levels(a)).toEqual({ total: 10, available: 7, allocated: 3 });
    fulfilOrderStock(db, store, [{ productId: a, quantity: 3 }], NOW);
    expect(levels(a)).toEqual({ total: 7, available: 7, allocated: 0 });
    expect(transactions(a)).toEqual([
      { action: 'allocate', quantity: 4 },
      { action: 'deallocate', quantity: 1 },
      { action: 'decrement', quantity: 3 },
    ]);
  });

  it('moves only what is allocated, so a cancel or shipment always goes through', () => {
    const a = product(4);
    allocateOrderStock(db, store, [{ productId: a, quantity: 1 }], NOW);
    fulfilOrderStock(db, store, [{ productId: a, quantity: 3 }], NOW);
    expect(levels(a)).toEqual({ total: 3, available: 3, allocated: 0 });
    deallocateOrderStock(
      db,
      store,
      [
        { productId: a, quantity: 2 },
        { productId: randomUUID(), quantity: 1 },
      ],
      NOW,
    );
    expect(levels(a)).toEqual({ total: 3, available: 3, allocated: 0 });
  });

  it('runs inside the caller’s transaction: the caller’s failure undoes the movement', () => {
    const a = product(5);
    expect(() =>
      db.transaction(() => {
        allocateOrderStock(db, store, [{ productId: a, quantity: 2 }], NOW);
        throw new Error('payment failed after allocating');
      })(),
    ).toThrow('payment failed');
    expect(levels(a)).toEqual({ total: 5, available: 5, allocated: 0 });
  });
});
