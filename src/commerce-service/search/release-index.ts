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
import type { StoredColumns } from './columns.ts';

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
  /** Every sale schedule's start and end (ms), sorted: between two, no sale starts or ends. */
  boundaries: number[];
  /** Amounts with the sales of a moment, per currency, valid for [from, until). */
  current: Map<string, { amounts: Float64Array; from: number; until: number }>;
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
  const boundaries = new Set<number>();
  records.forEach((record, i) => {
    if (record?.sales == null || Object.keys(record.sales).length === 0) return;
    onSale.push(i);
    for (const sale of Object.values(record.sales)) {
      for (const at of [sale.schedule?.valid_from, sale.schedule?.valid_to]) {
        if (typeof at === 'string') boundaries.add(Date.parse(at));
      }
    }
  });
  return {
    records,
    onSale,
    base: new Map(),
    boundaries: [...boundaries].sort((a, b) => a - b),
    current: new Map(),
  };
}

function load(db: Db, releaseId: string, firstDocid: number, stored: StoredColumns): ReleaseIndex {
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
  const cache = caches.get(db);
  const cached = cache?.get(releaseId);
  if (row === undefined) {
    cache?.delete(releaseId);
    return undefined;
  }
  if (cached !== undefined && cached.firstDocid === row.first_docid) return remember(db, cached);
  const text = cachedStatement(db, 'SELECT columns FROM search_indexes WHERE release_id = ?')
    .pluck()
    .get(releaseId) as string;
  return remember(db, load(db, releaseId, row.first_docid, JSON.parse(text) as StoredColumns));
}

/** Keeps the index, most recently used last, and at most KEPT of them. */
function remember(db: Db, index: ReleaseIndex): ReleaseIndex {
  let cache = caches.get(db);
  if (cache === undefined) {
    cache = new Map();
    caches.set(db, cache);
  }
  cache.delete(index.releaseId);
  cache.set(index.releaseId, index);
  while (cache.size > KEPT) {
    const oldest = cache.keys().next().value;
    if (oldest === undefined) break;
    cache.delete(oldest);
  }
  return index;
}

/**
 * Keeps the index a publish just built (build.ts, inside its transaction), so the release's
 * first search does not parse it again. Should the publish roll back, the index row is not
 * there and releaseIndex forgets it.
 */
export function rememberBuiltIndex(
  db: Db,
  releaseId: string,
  firstDocid: number,
  columns: StoredColumns,
): void {
  remember(db, load(db, releaseId, firstDocid, columns));
}

/** The window of sale boundaries around `now`: [last boundary ≤ now, next boundary > now). */
function windowAt(boundaries: number[], now: number): { from: number; until: number } {
  let low = 0;
  let high = boundaries.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((boundaries[mid] as number) <= now) low = mid + 1;
    else high = mid;
  }
  return {
    from: low === 0 ? Number.NEGATIVE_INFINITY : (boundaries[low - 1] as number),
    until: low === boundaries.length ? Number.POSITIVE_INFINITY : (boundaries[low] as number),
  };
}

/**
 * Each doc's amount in `currency` (minor units; NaN when it has no price in it) at `now`, the
 * sale of the moment applied (as priceInCurrency decides it). The list amounts are kept per
 * currency, and the amounts with sales for as long as no sale starts or ends.
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
  const cached = prices.current.get(currency);
  if (cached !== undefined && cached.from <= now && now < cached.until) return cached.amounts;
  const amounts = base.slice();
  for (const i of prices.onSale) {
    const record = prices.records[i];
    if (record === undefined) continue;
    const resolved = priceInCurrency(record, currency, now);
    amounts[i] = resolved === undefined ? Number.NaN : resolved.amount;
  }
  prices.current.set(currency, { amounts, ...windowAt(prices.boundaries, now) });
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
