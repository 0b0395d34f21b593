/**
 * Price resolution (pricebooks/resolve.ts) and modifiers (pricebooks/apply-modifier.ts), as the
 * shopper catalog and carts will use them: the highest-priority book that has the SKU wins, a
 * missing currency is no price, sales by schedule (narrowest window wins, an unscheduled sale
 * is permanent, bundle sales only inside their bundles), volume tiers, and one query for a
 * whole page of SKUs.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Db, openDatabase } from '../../src/commerce-service/db.ts';
import { newId } from '../../src/commerce-service/ids.ts';
import {
  applyModifier,
  applyModifierToPrice,
} from '../../src/commerce-service/pricebooks/apply-modifier.ts';
import type { CurrencyMap, SaleMap } from '../../src/commerce-service/pricebooks/bodies.ts';
import {
  type PricebookPriority,
  resolvePrice,
  resolvePrices,
  unitAmount,
} from '../../src/commerce-service/pricebooks/resolve.ts';
import { Statement } from '../../src/commerce-service/sqlite.ts';
import { ensureStores } from '../../src/commerce-service/stores.ts';

let db: Db;
let store: string;
const NOW = '2030-01-01T00:00:00.000Z';
const at = (iso: string) => Date.parse(iso);

function book(): string {
  const id = newId();
  db.prepare(
    'INSERT INTO pricebooks (id, store_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
  ).run(id, store, 'Book', NOW, NOW);
  return id;
}

function price(bookId: string, sku: string, currencies: CurrencyMap, sales?: SaleMap): void {
  db.prepare(
    `INSERT INTO prices (id, store_id, pricebook_id, sku, currencies, sales, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    newId(),
    store,
    bookId,
    sku,
    JSON.stringify(currencies),
    sales ? JSON.stringify(sales) : null,
    NOW,
    NOW,
  );
}

const usd = (amount: number, tiers?: CurrencyMap[string]['tiers']): CurrencyMap => ({
  USD: { amount, includes_tax: false, ...(tiers ? { tiers } : {}) },
});

beforeAll(() => {
  db = openDatabase(':memory:');
  [store = ''] = ensureStores(db, [{ id: 'alpha', secret: 'alpha-secret' }], NOW);
});
afterEach(() => vi.restoreAllMocks());

describe('which book prices a SKU', () => {
  it('takes the highest-priority book that has the SKU; equal priorities go by list order', () => {
    const low = book();
    const high = book();
    price(low, 'p-1', usd(100));
    price(high, 'p-1', usd(90));
    price(low, 'p-2', usd(200));
    const books: PricebookPriority[] = [
      { id: low, priority: 1 },
      { id: high, priority: 5 },
    ];
    expect(resolvePrice(db, store, books, 'p-1', 'USD', at(NOW))).toMatchObject({
      pricebook_id: high,
      amount: 90,
      original_amount: 90,
      includes_tax: false,
    });
    // Only the low book has p-2.
    expect(resolvePrice(db, store, books, 'p-2', 'USD', at(NOW))?.amount).toBe(200);
    const tied = [
      { id: low, priority: 3 },
      { id: high, priority: 3 },
    ];
    expect(resolvePrice(db, store, tied, 'p-1', 'USD', at(NOW))?.pricebook_id).toBe(low);
    expect(resolvePrice(db, store, books, 'unknown', 'USD', at(NOW))).toBeUndefined();
    expect(resolvePrice(db, store, [], 'p-1', 'USD', at(NOW))).toBeUndefined();
  });

  it('answers no price when the winning book lacks the currency', () => {
    const low = book();
    const high = book();
    price(low, 'c-1', {
      USD: { amount: 100, includes_tax: false },
      EUR: { amount: 95, includes_tax: true },
    });
    price(high, 'c-1', usd(90));
    const books = [
      { id: low, priority: 1 },
      { id: high, priority: 2 },
    ];
    expect(resolvePrice(db, store, books, 'c-1', 'EUR', at(NOW))).toBeUndefined();
    expect(
      resolvePrice(db, store, [{ id: low, priority: 1 }], 'c-1', 'EUR', at(NOW)),
    ).toMatchObject({
      amount: 95,
      includes_tax: true,
    });
  });

  it('prices a page of 100 SKUs in one query', () => {
    const id = book();
    const skus = Array.from({ length: 100 }, (_, i) => `batch-${i}`);
    for (const [i, sku] of skus.entries()) price(id, sku, usd(1000 + i));
    const reads = vi.spyOn(Statement.prototype, 'all');
    const resolved = resolvePrices(db, store, [{ id, priority: 1 }], skus, 'USD', at(NOW));
    expect(reads).toHaveBeenCalledTimes(1);
    expect(resolved.size).toBe(100);
    expect(resolved.get('batch-42')?.amount).toBe(1042);
  });
});

describe('sales', () => {
  const june = { valid_from: '2030-06-01T00:00:00.000Z', valid_to: '2030-07-01T00:00:00.000Z' };
  const year = { valid_from: '2030-01-01T00:00:00.000Z', valid_to: '2031-01-01T00:00:00.000Z' };
  let books: PricebookPriority[];
  beforeAll(() => {
    const id = book();
    books = [{ id, priority: 1 }];
    price(id, 'permanent', usd(100), { always: { currencies: usd(80) } });
    price(id, 'windows', usd(100), {
      year: { schedule: year, currencies: usd(90) },
      june: { schedule: june, currencies: usd(70) },
      later: {
        schedule: { valid_from: '2030-05-01T00:00:00.000Z', valid_to: null },
        currencies: usd(60),
      },
    });
    price(
      id,
      'usd-only-sale',
      { ...usd(100), EUR: { amount: 95, includes_tax: false } },
      {
        s: { currencies: usd(50) },
      },
    );
    price(id, 'bundled', usd(100), {
      b: { currencies: usd(40), bundle_ids: ['11111111-1111-4111-8111-111111111111'] },
    });
  });

  it('applies an unscheduled sale at any time, with the list price as the original', () => {
    expect(resolvePrice(db, store, books, 'permanent', 'USD', at('1999-01-01'))).toMatchObject({
      amount: 80,
      original_amount: 100,
      sale: { id: 'always', amount: 80, valid_to: null },
    });
  });

  it('picks the narrowest active window; outside every window the list price', () => {
    const on = (iso: string) => resolvePrice(db, store, books, 'windows', 'USD', at(iso));
    expect(on('2029-12-31T23:59:59Z')).toMatchObject({ amount: 100, original_amount: 100 });
    expect(on('2029-12-31T23:59:59Z')).not.toHaveProperty('sale');
    expect(on('2030-02-01')?.sale).toEqual({ id: 'year', amount: 90, valid_to: year.valid_to });
    // From May an open-ended sale is active too, but the year's window is narrower.
    expect(on('2030-05-15')?.sale?.id).toBe('year');
    expect(on('2030-06-15')?.sale).toEqual({ id: 'june', amount: 70, valid_to: june.valid_to });
    // valid_to is exclusive.
    expect(on('2030-07-01T00:00:00Z')?.sale?.id).toBe('year');
    expect(on('2031-03-01')?.sale?.id).toBe('later');
  });

  it('leaves a currency the sale does not price at its list price', () => {
    expect(resolvePrice(db, store, books, 'usd-only-sale', 'EUR', at(NOW))).toMatchObject({
      amount: 95,
    });
    expect(resolvePrice(db, store, books, 'usd-only-sale', 'EUR', at(NOW))).not.toHaveProperty(
      'sale',
    );
    expect(resolvePrice(db, store, books, 'usd-only-sale', 'USD', at(NOW))?.amount).toBe(50);
  });

  it('applies a bundle sale only inside its bundle', () => {
    expect(resolvePrice(db, store, books, 'bundled', 'USD', at(NOW))?.amount).toBe(100);
    const inBundle = resolvePrice(db, store, books, 'bundled', 'USD', at(NOW), {
      bundleId: '11111111-1111-4111-8111-111111111111',
    });
    expect(inBundle?.amount).toBe(40);
  });
});

describe('volume tiers', () => {
  it('charges the tier of the largest minimum quantity reached; a sale uses its own tiers only', () => {
    const id = book();
    const tiers = {
      five: { minimum_quantity: 5, amount: 90 },
      ten: { minimum_quantity: 10, amount: 80 },
    };
    price(id, 'tiered', usd(100, tiers));
    price(id, 'tiered-sale', usd(100, tiers), { s: { currencies: usd(95) } });
    price(id, 'tiered-sale-tiers', usd(100, tiers), {
      s: { currencies: usd(95, { three: { minimum_quantity: 3, amount: 85 } }) },
    });
    const books = [{ id, priority: 1 }];
    const tiered = resolvePrice(db, store, books, 'tiered', 'USD', at(NOW));
    if (tiered === undefined) throw new Error('no price');
    expect([1, 4, 5, 9, 10, 500].map((q) => unitAmount(tiered, q))).toEqual([
      100, 100, 90, 90, 80, 80,
    ]);
    const sale = resolvePrice(db, store, books, 'tiered-sale', 'USD', at(NOW));
    if (sale === undefined) throw new Error('no price');
    expect(sale.tiers).toEqual({});
    expect(unitAmount(sale, 10)).toBe(95);
    const saleTiers = resolvePrice(db, store, books, 'tiered-sale-tiers', 'USD', at(NOW));
    if (saleTiers === undefined) throw new Error('no price');
    expect([1, 3, 10].map((q) => unitAmount(saleTiers, q))).toEqual([95, 85, 85]);
  });
});

describe('price modifiers', () => {
  const modifier = (
    modifier_type: 'price_increment' | 'price_decrement' | 'price_equals',
    amount: number,
  ) => ({
    modifier_type,
    currencies: usd(amount),
  });

  it('increments, decrements (never below zero) and replaces an amount', () => {
    expect(applyModifier(1000, modifier('price_increment', 250), 'USD')).toBe(1250);
    expect(applyModifier(1000, modifier('price_decrement', 250), 'USD')).toBe(750);
    expect(applyModifier(100, modifier('price_decrement', 250), 'USD')).toBe(0);
    expect(applyModifier(1000, modifier('price_equals', 5), 'USD')).toBe(5);
    expect(applyModifier(2 ** 31 - 10, modifier('price_increment', 100), 'USD')).toBe(2 ** 31 - 1);
    // A modifier without the currency leaves the price as it is.
    expect(applyModifier(1000, modifier('price_equals', 5), 'EUR')).toBe(1000);
  });

  it('applies to every amount of a resolved price', () => {
    const price = {
      pricebook_id: 'b',
      price_id: 'p',
      amount: 800,
      includes_tax: false,
      tiers: { ten: { minimum_quantity: 10, amount: 700 } },
      original_amount: 1000,
      sale: { id: 's', amount: 800, valid_to: null },
    };
    expect(applyModifierToPrice(price, modifier('price_increment', 100), 'USD')).toEqual({
      ...price,
      amount: 900,
      original_amount: 1100,
      tiers: { ten: { minimum_quantity: 10, amount: 800 } },
      sale: { id: 's', amount: 900, valid_to: null },
    });
  });
});
