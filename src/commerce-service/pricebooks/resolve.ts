/**
 * Which price a shopper pays for a SKU, given the price books of a catalog with their
 * priorities: the price of the highest-priority book that has the SKU, in the requested
 * currency, with its sale at that moment (the narrowest active schedule; a sale without one is
 * permanent) and its volume tiers. Reads the database once for any number of SKUs, so a page
 * of 100 products prices in one query; the rest is pure. For the shopper catalog and carts.
 */
import { cachedStatement, type Db } from '../db.ts';
import { formatTimestamp } from '../time.ts';
import type { CurrencyMap, SaleMap, SaleSchedule, TierValue } from './bodies.ts';

/** A price book of a catalog: higher `priority` wins; equal priorities go by list order. */
export interface PricebookPriority {
  id: string;
  priority: number;
}

/** A stored price as resolution reads it. */
export interface PriceRecord {
  id: string;
  pricebook_id: string;
  sku: string;
  currencies: CurrencyMap;
  sales: SaleMap | null;
}

/** The sale a price is on: the "is" amount; `valid_to` null when it does not end. */
export interface ActiveSale {
  id: string;
  amount: number;
  valid_to: string | null;
}

/** A SKU's price in one currency at one moment. */
export interface ResolvedPrice {
  pricebook_id: string;
  price_id: string;
  /** What the shopper pays for one: the sale's amount when on sale, else the list price. */
  amount: number;
  includes_tax: boolean;
  /**
   * Volume tiers of what applies: on sale, the sale's own tiers (none when it has none: the
   * list price's tiers never apply to a sale, as production documents); else the list price's.
   */
  tiers: Record<string, TierValue>;
  /** The list ("was") price, equal to `amount` when not on sale. */
  original_amount: number;
  sale?: ActiveSale;
}

export interface ResolveOptions {
  /** Pricing an option inside this bundle: its sales for the bundle apply too. */
  bundleId?: string;
}

interface PriceRow {
  id: string;
  pricebook_id: string;
  sku: string;
  currencies: string;
  sales: string | null;
}

const FIND_PRICES = `
  SELECT id, pricebook_id, sku, currencies, sales FROM prices
  WHERE store_id = ? AND pricebook_id IN (SELECT value FROM json_each(?))
    AND sku IN (SELECT value FROM json_each(?))`;

/**
 * The winning stored price of each SKU that any of `books` has (one query, whatever the
 * number of SKUs): the one in the book with the highest priority.
 */
export function findPrices(
  db: Db,
  storeId: string,
  books: readonly PricebookPriority[],
  skus: readonly string[],
): Map<string, PriceRecord> {
  const found = new Map<string, PriceRecord>();
  if (books.length === 0 || skus.length === 0) return found;
  // Rank of each book: lower is better (priority descending, then list order).
  const ranked = books
    .map((book, index) => ({ id: book.id.toLowerCase(), priority: book.priority, index }))
    .sort((a, b) => b.priority - a.priority || a.index - b.index);
  const rank = new Map<string, number>();
  for (const [position, book] of ranked.entries()) {
    if (!rank.has(book.id)) rank.set(book.id, position);
  }
  const rows = cachedStatement(db, FIND_PRICES).all(
    storeId,
    JSON.stringify([...rank.keys()]),
    JSON.stringify([...new Set(skus)]),
  ) as PriceRow[];
  const bestRank = new Map<string, number>();
  for (const row of rows) {
    const position = rank.get(row.pricebook_id) ?? Number.POSITIVE_INFINITY;
    if (position >= (bestRank.get(row.sku) ?? Number.POSITIVE_INFINITY)) continue;
    bestRank.set(row.sku, position);
    found.set(row.sku, {
      id: row.id,
      pricebook_id: row.pricebook_id,
      sku: row.sku,
      currencies: JSON.parse(row.currencies) as CurrencyMap,
      sales: row.sales === null ? null : (JSON.parse(row.sales) as SaleMap),
    });
  }
  return found;
}

function isActive(schedule: SaleSchedule | undefined, at: string): boolean {
  if (schedule === undefined) return true;
  return (
    (schedule.valid_from === null || schedule.valid_from <= at) &&
    (schedule.valid_to === null || at < schedule.valid_to)
  );
}

/** How long a schedule lasts, in ms; a missing end (or no schedule) lasts forever. */
function width(schedule: SaleSchedule | undefined): number {
  if (schedule === undefined || schedule.valid_from === null || schedule.valid_to === null) {
    return Number.POSITIVE_INFINITY;
  }
  return Date.parse(schedule.valid_to) - Date.parse(schedule.valid_from);
}

/**
 * The sale of `sales` that applies in `currency` at `at` (a 24-character timestamp): among the
 * active sales that price the currency (and, with bundle_ids, only inside those bundles), the
 * one with the narrowest window; equal windows go to the later start, then the sale id.
 */
export function activeSale(
  sales: SaleMap | null,
  currency: string,
  at: string,
  options: ResolveOptions = {},
): { id: string; schedule: SaleSchedule | undefined } | undefined {
  let best: { id: string; schedule: SaleSchedule | undefined; width: number } | undefined;
  for (const [id, sale] of Object.entries(sales ?? {})) {
    if (!Object.hasOwn(sale.currencies, currency) || !isActive(sale.schedule, at)) continue;
    if (sale.bundle_ids !== undefined && !sale.bundle_ids.includes(options.bundleId ?? '')) {
      continue;
    }
    const candidate = { id, schedule: sale.schedule, width: width(sale.schedule) };
    if (
      best === undefined ||
      candidate.width < best.width ||
      (candidate.width === best.width &&
        ((candidate.schedule?.valid_from ?? '') > (best.schedule?.valid_from ?? '') ||
          ((candidate.schedule?.valid_from ?? '') === (best.schedule?.valid_from ?? '') &&
            candidate.id < best.id)))
    ) {
      best = candidate;
    }
  }
  return best && { id: best.id, schedule: best.schedule };
}

/**
 * A stored price in `currency` at `now` (ms since the epoch), or undefined when the price has
 * no amount in that currency.
 */
export function priceInCurrency(
  record: PriceRecord,
  currency: string,
  now: number,
  options: ResolveOptions = {},
): ResolvedPrice | undefined {
  if (!Object.hasOwn(record.currencies, currency)) return undefined;
  const list = record.currencies[currency];
  if (list === undefined) return undefined;
  const base = { pricebook_id: record.pricebook_id, price_id: record.id };
  const sale = activeSale(record.sales, currency, formatTimestamp(now), options);
  const saleValue = sale && record.sales?.[sale.id]?.currencies[currency];
  if (sale === undefined || saleValue === undefined) {
    return {
      ...base,
      amount: list.amount,
      includes_tax: list.includes_tax,
      tiers: list.tiers ?? {},
      original_amount: list.amount,
    };
  }
  return {
    ...base,
    amount: saleValue.amount,
    includes_tax: saleValue.includes_tax,
    tiers: saleValue.tiers ?? {},
    original_amount: list.amount,
    sale: { id: sale.id, amount: saleValue.amount, valid_to: sale.schedule?.valid_to ?? null },
  };
}

/**
 * The price of each SKU in `currency` at `now`, from the highest-priority book that has it, in
 * one query. A SKU whose winning price has no amount in the currency is absent from the map
 * (a lower-priority book's price in that currency does not stand in: the winning book decides).
 */
export function resolvePrices(
  db: Db,
  storeId: string,
  books: readonly PricebookPriority[],
  skus: readonly string[],
  currency: string,
  now: number,
  options: ResolveOptions = {},
): Map<string, ResolvedPrice> {
  const resolved = new Map<string, ResolvedPrice>();
  for (const [sku, record] of findPrices(db, storeId, books, skus)) {
    const price = priceInCurrency(record, currency, now, options);
    if (price !== undefined) resolved.set(sku, price);
  }
  return resolved;
}

/** One SKU's price: `resolvePrices` for a single SKU; undefined when it has none. */
export function resolvePrice(
  db: Db,
  storeId: string,
  books: readonly PricebookPriority[],
  sku: string,
  currency: string,
  now: number,
  options: ResolveOptions = {},
): ResolvedPrice | undefined {
  return resolvePrices(db, storeId, books, [sku], currency, now, options).get(sku);
}

/**
 * The unit price for `quantity`: the amount of the tier with the largest minimum quantity the
 * quantity reaches, else the price's amount.
 */
export function unitAmount(price: ResolvedPrice, quantity: number): number {
  let best: TierValue | undefined;
  for (const tier of Object.values(price.tiers)) {
    if (tier.minimum_quantity > quantity) continue;
    if (best === undefined || tier.minimum_quantity > best.minimum_quantity) best = tier;
  }
  return best?.amount ?? price.amount;
}
