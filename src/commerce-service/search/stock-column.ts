/**
 * Stock in Catalog Search, read live: a release's index is frozen at publish, stock is not. The
 * fields
 * - `meta.stock.available` (a number: the units available now; absent when the store does not
 *   manage the product's stock), and
 * - `meta.stock.in_stock` (`true` when the product can be bought now: its stock is not managed,
 *   as a cart then takes any quantity, or it has units available; else `false`)
 * filter, facet and sort as the index's own fields do. Their columns are built from the store's
 * `stock` table the first time a search names them and kept on the release's index beside the
 * store's stock version (migration 0915: every stock write moves it and logs the product), so
 * a search that names stock costs one indexed read of the version until stock moves, then a
 * read of the products moved since (a whole rebuild only when more than 1,000 moved), and one
 * that does not name stock costs nothing. Production's Catalog Search names no stock field;
 * these names follow the document's `meta.` paths.
 */
import { cachedStatement, type Db } from '../db.ts';
import type { ReleaseIndex, StringColumn } from './release-index.ts';

export const STOCK_AVAILABLE = 'meta.stock.available';
export const STOCK_IN_STOCK = 'meta.stock.in_stock';

/** Other spellings a request may use. */
export const STOCK_ALIASES: Record<string, string> = {
  'stock.available': STOCK_AVAILABLE,
  'stock.in_stock': STOCK_IN_STOCK,
};

export interface StockColumns {
  available: Float64Array;
  inStock: StringColumn;
}

interface Kept extends StockColumns {
  version: number;
}

/** Stock changes migration 0915 keeps logged per store (the newest). */
const CHANGES_KEPT = 1_000;

const kept = new WeakMap<ReleaseIndex, Kept>();

/** In stock: its stock is not managed (NaN), or it has units available. */
const inStockRef = (units: number) => (Number.isNaN(units) || units > 0 ? 1 : 0);

function rebuild(db: Db, index: ReleaseIndex, storeId: string, version: number): Kept {
  const available = new Float64Array(index.size).fill(Number.NaN);
  const rows = cachedStatement(
    db,
    'SELECT product_id, available FROM stock WHERE store_id = ?',
  ).all(storeId) as { product_id: string; available: number }[];
  for (const row of rows) {
    const doc = index.byId.get(row.product_id.toLowerCase());
    if (doc !== undefined) available[doc] = row.available;
  }
  // Values: 0 "false", 1 "true"; one value per doc.
  const refs = new Int32Array(index.size);
  for (let doc = 0; doc < index.size; doc++) refs[doc] = inStockRef(available[doc] as number);
  const offsets = new Int32Array(index.size + 1);
  for (let i = 0; i <= index.size; i++) offsets[i] = i;
  return { version, available, inStock: { values: ['false', 'true'], offsets, refs } };
}

/**
 * Brings the columns from `columns.version` to `version` by re-reading the products the log
 * names; false when the log no longer holds every change in between.
 */
function catchUp(db: Db, index: ReleaseIndex, storeId: string, columns: Kept, version: number) {
  if (version < columns.version || version - columns.version > CHANGES_KEPT) return false;
  const changes = cachedStatement(
    db,
    `SELECT c.product_id, s.available FROM stock_changes c
       LEFT JOIN stock s ON s.store_id = c.store_id AND s.product_id = c.product_id
     WHERE c.store_id = ? AND c.version > ? AND c.version <= ?`,
  ).all(storeId, columns.version, version) as { product_id: string; available: number | null }[];
  if (changes.length !== version - columns.version) return false;
  for (const change of changes) {
    const doc = index.byId.get(change.product_id.toLowerCase());
    if (doc === undefined) continue;
    const units = change.available ?? Number.NaN;
    columns.available[doc] = units;
    columns.inStock.refs[doc] = inStockRef(units);
  }
  columns.version = version;
  return true;
}

/** The release's stock columns as the store's stock is now. */
export function stockColumns(db: Db, index: ReleaseIndex, storeId: string): StockColumns {
  const version =
    (cachedStatement(db, 'SELECT version FROM stock_versions WHERE store_id = ?')
      .pluck()
      .get(storeId) as number | undefined) ?? 0;
  const cached = kept.get(index);
  if (cached !== undefined && cached.version === version) return cached;
  if (cached !== undefined && catchUp(db, index, storeId, cached, version)) return cached;
  const columns = rebuild(db, index, storeId, version);
  kept.set(index, columns);
  return columns;
}
