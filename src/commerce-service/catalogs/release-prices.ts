/**
 * Which stored price of a release prices a SKU for a shopper: the one function the shopper
 * catalog (views.ts) and cart adds (carts/product-items.ts) both read, so a product costs in a
 * cart what the catalog showed.
 *
 * A release snapshots at publish (publish.ts) the winning price of each SKU from the catalog's
 * own price books (`release_prices`) and the price of each SKU in every price book any rule of
 * the catalog names (`release_book_prices`). When the rule that resolved the shopper's catalog
 * has `pricebook_ids` (production's price segmentation, v2-catalog-notes §6), a SKU is priced
 * from the highest-priority of those books that has it (equal priorities go by list order); a
 * SKU none of them has falls back to the catalog's own winner, so a rule's books may carry only
 * the prices that differ. The book that priced it is `meta.pricebook_id`. A book a rule came to
 * name after the publish is not in the snapshot (like every price change, it needs a publish).
 */
import { cachedStatement, type Db } from '../db.ts';
import type { CurrencyMap, SaleMap } from '../pricebooks/bodies.ts';
import type { PricebookPriority, PriceRecord } from '../pricebooks/resolve.ts';
import type { ReleaseRow } from './records.ts';

/** A release as a shopper's request resolved it: with the winning rule's price books, if any. */
export interface PricingRelease extends ReleaseRow {
  /** The `pricebook_ids` of the rule that chose this catalog; absent or empty: the catalog's. */
  rulePricebooks?: readonly PricebookPriority[] | undefined;
}

interface StoredPriceRow {
  sku: string;
  price_id: string;
  pricebook_id: string;
  currencies: string;
  sales: string | null;
}

function record(row: StoredPriceRow): PriceRecord {
  return {
    id: row.price_id,
    pricebook_id: row.pricebook_id,
    sku: row.sku,
    currencies: JSON.parse(row.currencies) as CurrencyMap,
    sales: row.sales === null ? null : (JSON.parse(row.sales) as SaleMap),
  };
}

/** Each book's rank: lower is better (priority descending, then list order). */
function ranks(books: readonly PricebookPriority[]): Map<string, number> {
  const ranked = books
    .map((book, index) => ({ id: book.id.toLowerCase(), priority: book.priority, index }))
    .sort((a, b) => b.priority - a.priority || a.index - b.index);
  const rank = new Map<string, number>();
  for (const [position, book] of ranked.entries()) {
    if (!rank.has(book.id)) rank.set(book.id, position);
  }
  return rank;
}

/** The stored price of each SKU for a shopper of `release`, in at most two queries. */
export function releasePriceRecords(
  db: Db,
  release: PricingRelease,
  skus: readonly string[],
): Map<string, PriceRecord> {
  const wanted = [...new Set(skus)];
  const found = new Map<string, PriceRecord>();
  if (wanted.length === 0) return found;
  const books = release.rulePricebooks ?? [];
  if (books.length > 0) {
    const rank = ranks(books);
    const rows = cachedStatement(
      db,
      `SELECT sku, price_id, pricebook_id, currencies, sales FROM release_book_prices
       WHERE release_id = ? AND sku IN (SELECT value FROM json_each(?))
         AND pricebook_id IN (SELECT value FROM json_each(?))`,
    ).all(release.id, JSON.stringify(wanted), JSON.stringify([...rank.keys()])) as StoredPriceRow[];
    const best = new Map<string, number>();
    for (const row of rows) {
      const position = rank.get(row.pricebook_id) ?? Number.POSITIVE_INFINITY;
      if (position >= (best.get(row.sku) ?? Number.POSITIVE_INFINITY)) continue;
      best.set(row.sku, position);
      found.set(row.sku, record(row));
    }
  }
  const rest = wanted.filter((sku) => !found.has(sku));
  if (rest.length === 0) return found;
  const rows = cachedStatement(
    db,
    `SELECT sku, price_id, pricebook_id, currencies, sales FROM release_prices
     WHERE release_id = ? AND sku IN (SELECT value FROM json_each(?))`,
  ).all(release.id, JSON.stringify(rest)) as StoredPriceRow[];
  for (const row of rows) found.set(row.sku, record(row));
  return found;
}

/** Every price book the rules of a catalog name, for the publish to snapshot. */
export function ruleBooksOfCatalog(db: Db, storeId: string, catalogId: string): string[] {
  const lists = cachedStatement(
    db,
    'SELECT pricebook_ids FROM catalog_rules WHERE store_id = ? AND catalog_id = ?',
  )
    .pluck()
    .all(storeId, catalogId) as string[];
  const ids = new Set<string>();
  for (const list of lists) {
    for (const book of JSON.parse(list) as PricebookPriority[]) ids.add(book.id.toLowerCase());
  }
  return [...ids];
}

/** Snapshots into the release every price the rule books hold for the release's SKUs. */
export function snapshotRuleBookPrices(
  db: Db,
  releaseId: string,
  storeId: string,
  catalogId: string,
  skus: readonly string[],
): void {
  const books = ruleBooksOfCatalog(db, storeId, catalogId);
  if (books.length === 0 || skus.length === 0) return;
  cachedStatement(
    db,
    `INSERT INTO release_book_prices (release_id, store_id, pricebook_id, sku, price_id,
       currencies, sales)
     SELECT ?, store_id, pricebook_id, sku, id, currencies, sales FROM prices
     WHERE store_id = ? AND pricebook_id IN (SELECT value FROM json_each(?))
       AND sku IN (SELECT value FROM json_each(?))`,
  ).run(releaseId, storeId, JSON.stringify(books), JSON.stringify([...new Set(skus)]));
}
