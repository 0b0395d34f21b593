/**
 * A release's search index in memory: the columns build.ts stored (typed arrays), loaded once
 * per release and kept for the few releases searched last. A release never changes once
 * published, so its index never goes stale; each search still checks the index row exists
 * (the release may have been deleted) and is the one loaded (its docids), in one lookup.
 *
 * Prices for filters, facets and sorts are the release's stored prices (its catalog's price
 * books, as the release snapshot holds them) with the sale of the moment; what a hit shows is
 * priced by the shopper catalog's own presentation (catalogs/views.ts).
 */
import { cachedStatement, type Db } from '../db.ts';
import type { CurrencyMap, SaleMap } from '../pricebooks/bodies.ts';
import { type PriceRecord, priceInCurrency } from '../pricebooks/resolve.ts';
import type { StoredColumns } from './build.ts';

export interface StringColumn {
  values: string[];
  offsets: Int32Array;
  refs: Int32Array;
  /** Each value's place in sorted order (built on first sort by the field). */
  ranks?: Int32Array;
}

export interface ReleaseIndex {
  releaseId: string;
  firstDocid: number;
  size: number;
  ids: string[];
  names: string[];
  created: Float64Array;
  updated: Float64Array;
  strings: Map<string, StringColumn>;
  numbers: Map<string, Float64Array>;
  known: { strings: Set<string>; numbers: Set<string> };
  /** Lower-cased id → doc. */
  byId: Map<string, number>;
  prices: Prices;
}

interface Prices {
  records: (PriceRecord | undefined)[];
  /** Docs whose price has sales (their amount depends on the moment). */
  onSale: number[];
  base: Map<string, Float64Array>;
}

/** How many releases' indexes a database keeps in memory. */
const KEPT = 6;
const caches = new WeakMap<Db, Map<string, ReleaseIndex>>();

function loadPrices(db: Db, releaseId: string, skus: (string | null)[]): Prices {
  const bySku = new Map<string, PriceRecord>();
  for (const row of db
    .prepare(
      'SELECT sku, price_id, pricebook_id, currencies, sales FROM release_prices WHERE release_id = ?',
    )
    .all(releaseId) as {
    sku: string;
    price_id: string;
    pricebook_id: string;
    currencies: string;
    sales: string | null;
  }[]) {
    bySku.set(row.sku, {
      id: row.price_id,
      pricebook_id: row.pricebook_id,
      sku: row.sku,
      currencies: JSON.parse(row.currencies) as CurrencyMap,
      sales: row.sales === null ? null : (JSON.parse(row.sales) as SaleMap),
    });
  }
  const records = skus.map((sku) => (sku === null ? undefined : bySku.get(sku)));
  const onSale: number[] = [];
  records.forEach((record, i) => {
    if (record?.sales != null && Object.keys(record.sales).length > 0) onSale.push(i);
  });
  return { records, onSale, base: new Map() };
}

function load(db: Db, releaseId: string, firstDocid: number, text: string): ReleaseIndex {
  const stored = JSON.parse(text) as StoredColumns;
  const strings = new Map<string, StringColumn>();
  for (const [name, column] of Object.entries(stored.strings)) {
    strings.set(name, {
      values: column.values,
      offsets: Int32Array.from(column.offsets),
      refs: Int32Array.from(column.refs),
    });
  }
  const numbers = new Map<string, Float64Array>();
  for (const [name, column] of Object.entries(stored.numbers)) {
    numbers.set(
      name,
      Float64Array.from(column, (v) => (v === null ? Number.NaN : v)),
    );
  }
  const byId = new Map<string, number>();
  stored.ids.forEach((id, i) => {
    byId.set(id.toLowerCase(), i);
  });
  return {
    releaseId,
    firstDocid,
    size: stored.ids.length,
    ids: stored.ids,
    names: stored.names,
    created: Float64Array.from(stored.created),
    updated: Float64Array.from(stored.updated),
    strings,
    numbers,
    known: { strings: new Set(strings.keys()), numbers: new Set(numbers.keys()) },
    byId,
    prices: loadPrices(db, releaseId, stored.skus),
  };
}

/** The release's index, or undefined when the release has none (not search-enabled). */
export function releaseIndex(db: Db, releaseId: string): ReleaseIndex | undefined {
  const row = cachedStatement(
    db,
    'SELECT first_docid FROM search_indexes WHERE release_id = ?',
  ).get(releaseId) as { first_docid: number } | undefined;
  let cache = caches.get(db);
  if (cache === undefined) {
    cache = new Map();
    caches.set(db, cache);
  }
  const cached = cache.get(releaseId);
  if (row === undefined) {
    cache.delete(releaseId);
    return undefined;
  }
  if (cached !== undefined && cached.firstDocid === row.first_docid) {
    // Most recently used last.
    cache.delete(releaseId);
    cache.set(releaseId, cached);
    return cached;
  }
  const text = cachedStatement(db, 'SELECT columns FROM search_indexes WHERE release_id = ?')
    .pluck()
    .get(releaseId) as string;
  const index = load(db, releaseId, row.first_docid, text);
  cache.delete(releaseId);
  cache.set(releaseId, index);
  while (cache.size > KEPT) {
    const oldest = cache.keys().next().value;
    if (oldest === undefined) break;
    cache.delete(oldest);
  }
  return index;
}

/**
 * Each doc's amount in `currency` (minor units; NaN when it has no price in it) at `now`, the
 * sale of the moment applied. The list amounts are kept per currency; only docs on sale are
 * priced again per call.
 */
export function amountsIn(index: ReleaseIndex, currency: string, now: number): Float64Array {
  const { prices } = index;
  let base = prices.base.get(currency);
  if (base === undefined) {
    base = new Float64Array(index.size);
    prices.records.forEach((record, i) => {
      const list = record?.currencies[currency];
      (base as Float64Array)[i] = list === undefined ? Number.NaN : list.amount;
    });
    prices.base.set(currency, base);
  }
  if (prices.onSale.length === 0) return base;
  const amounts = base.slice();
  for (const i of prices.onSale) {
    const record = prices.records[i];
    if (record === undefined) continue;
    const resolved = priceInCurrency(record, currency, now);
    amounts[i] = resolved === undefined ? Number.NaN : resolved.amount;
  }
  return amounts;
}

/** Each value's place in the field's sorted values (case-insensitive, then as written). */
export function ranksOf(column: StringColumn): Int32Array {
  if (column.ranks !== undefined) return column.ranks;
  const order = column.values.map((_, i) => i);
  const folded = column.values.map((v) => v.toLowerCase());
  order.sort((a, b) => {
    const x = folded[a] as string;
    const y = folded[b] as string;
    if (x !== y) return x < y ? -1 : 1;
    const p = column.values[a] as string;
    const q = column.values[b] as string;
    return p < q ? -1 : p > q ? 1 : 0;
  });
  const ranks = new Int32Array(order.length);
  order.forEach((value, rank) => {
    ranks[value] = rank;
  });
  column.ranks = ranks;
  return ranks;
}
