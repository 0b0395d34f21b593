/**
 * A catalog line's price is never frozen: it is what the catalog says for the line's current
 * quantity at the current time (volume tiers, sales that start and end), recomputed on every
 * cart read, every item write and at checkout. Custom items keep the price they were given.
 *
 * Where a line is priced from: the catalog it was last added through (`catalog_id`, with the
 * catalog rule that chose it, `catalog_rule_id`), read at that catalog's newest release, through
 * `priceProductItem`, the very function the add uses. A line whose product is no longer in that
 * catalog, or has no price in the cart's currency any more, keeps the last price it had and is
 * marked unpriceable: reads show it, writes to it and checkout refuse it (409, naming it).
 *
 * Cost: one query for the newest releases of every catalog the cart's lines come from (one
 * catalog, nearly always), one for the price books of their rules, then priceProductItem's
 * indexed lookups per catalog line.
 */
import type { ReleaseRow } from '../catalogs/records.ts';
import type { PricingRelease } from '../catalogs/release-prices.ts';
import { cachedStatement, type Db } from '../db.ts';
import { type ApiError, conflict, isApiError } from '../errors.ts';
import type { PricebookPriority } from '../pricebooks/resolve.ts';
import { storedSelection } from './bundles.ts';
import { priceProductItem } from './product-items.ts';
import type { CartRow, ItemRow } from './rows.ts';

/** What a catalog line costs now, or why it has no price now. */
export type LinePrice =
  | { unitAmount: number; includesTax: boolean; unpriceable?: undefined }
  | { unpriceable: string };

const NEWEST_RELEASES = `
  SELECT r.* FROM catalog_releases r
  WHERE r.store_id = ? AND r.catalog_id IN (SELECT value FROM json_each(?))
    AND r.id = (SELECT n.id FROM catalog_releases n
                WHERE n.store_id = r.store_id AND n.catalog_id = r.catalog_id
                ORDER BY n.created_at DESC, n.id DESC LIMIT 1)`;

/** The newest release of each of `catalogIds` that still has one, in one query. */
function newestReleases(
  db: Db,
  storeId: string,
  catalogIds: readonly string[],
): Map<string, ReleaseRow> {
  if (catalogIds.length === 0) return new Map();
  const rows = cachedStatement(db, NEWEST_RELEASES).all(
    storeId,
    JSON.stringify([...new Set(catalogIds)]),
  ) as ReleaseRow[];
  return new Map(rows.map((row) => [row.catalog_id, row]));
}

const RULE_BOOKS = `SELECT id, pricebook_ids FROM catalog_rules
  WHERE store_id = ? AND id IN (SELECT value FROM json_each(?))`;

/**
 * The price books of each of `ruleIds` that still exists, in one query: a line added under a
 * rule is priced from that rule's books (release-prices.ts), as the catalog showed it then. A
 * rule deleted since leaves the line to the catalog's own books.
 */
function ruleBooks(
  db: Db,
  storeId: string,
  ruleIds: readonly string[],
): Map<string, PricebookPriority[]> {
  if (ruleIds.length === 0) return new Map();
  const rows = cachedStatement(db, RULE_BOOKS).all(
    storeId,
    JSON.stringify([...new Set(ruleIds)]),
  ) as { id: string; pricebook_ids: string }[];
  return new Map(rows.map((row) => [row.id, JSON.parse(row.pricebook_ids) as PricebookPriority[]]));
}

/** The release a line is priced from: its catalog's newest, with its rule's price books. */
function pricingRelease(
  release: ReleaseRow | undefined,
  item: CatalogLine,
  books: Map<string, PricebookPriority[]>,
): PricingRelease | undefined {
  if (release === undefined || item.catalog_rule_id == null) return release;
  const rulePricebooks = books.get(item.catalog_rule_id);
  return rulePricebooks === undefined ? release : { ...release, rulePricebooks };
}

type CatalogLine = Pick<
  ItemRow,
  'product_id' | 'catalog_id' | 'catalog_rule_id' | 'bundle_configuration'
>;

/**
 * `item`'s price for `quantity` at `now` from `release` (its catalog's newest, or undefined when
 * that catalog has none any more). The line's rule (`catalog_rule_id`) is the shopper's pricing
 * context of the add; `release` is the rule's catalog read now.
 */
function priceFrom(
  db: Db,
  release: PricingRelease | undefined,
  item: CatalogLine,
  currency: string,
  quantity: number,
  now: number,
): LinePrice {
  if (item.product_id == null || item.catalog_id == null || release === undefined) {
    return {
      unpriceable: `Catalog ${item.catalog_id ?? '(unknown)'} has no published release any more.`,
    };
  }
  try {
    // A bundle's line is priced from the selection it keeps (carts/bundles.ts).
    const bundle = storedSelection(item.bundle_configuration);
    const priced = priceProductItem(
      db,
      release,
      { id: item.product_id, quantity, ...(bundle === undefined ? {} : { bundle }) },
      currency,
      quantity,
      now,
    );
    return { unitAmount: priced.unitAmount, includesTax: priced.includesTax };
  } catch (error) {
    if (!isApiError(error) || error.status >= 500) throw error;
    return {
      unpriceable:
        error.status === 404
          ? `Product ${item.product_id} is no longer in catalog ${item.catalog_id}.`
          : error.detail,
    };
  }
}

/** One catalog line's price for `quantity` at `now` (a PUT of its quantity). */
export function priceCatalogLine(
  db: Db,
  cart: CartRow,
  item: CatalogLine,
  quantity: number,
  now: number,
): LinePrice {
  const newest =
    item.catalog_id == null
      ? undefined
      : newestReleases(db, cart.store_id, [item.catalog_id]).get(item.catalog_id);
  const books = ruleBooks(
    db,
    cart.store_id,
    item.catalog_rule_id == null ? [] : [item.catalog_rule_id],
  );
  return priceFrom(db, pricingRelease(newest, item, books), item, cart.currency, quantity, now);
}

/**
 * Every line of the cart at `now`: catalog lines repriced for their quantity (unit_amount and
 * includes_tax as the catalog says), custom items as they are, and the item ids of the catalog
 * lines that have no price now with the reason (they keep their last stored price).
 */
export function repriceItems(
  db: Db,
  cart: CartRow,
  items: readonly ItemRow[],
  now: number,
): { items: ItemRow[]; unpriceable: Map<string, string> } {
  const unpriceable = new Map<string, string>();
  const catalogIds = items.flatMap((i) =>
    i.product_id != null && i.catalog_id != null ? [i.catalog_id] : [],
  );
  if (catalogIds.length === 0) return { items: [...items], unpriceable };
  const releases = newestReleases(db, cart.store_id, catalogIds);
  const books = ruleBooks(
    db,
    cart.store_id,
    items.flatMap((i) =>
      i.product_id != null && i.catalog_rule_id != null ? [i.catalog_rule_id] : [],
    ),
  );
  const repriced = items.map((item) => {
    if (item.product_id == null) return item;
    const newest = item.catalog_id == null ? undefined : releases.get(item.catalog_id);
    const release = pricingRelease(newest, item, books);
    const price = priceFrom(db, release, item, cart.currency, item.quantity, now);
    if (price.unpriceable !== undefined) {
      unpriceable.set(item.id, price.unpriceable);
      return item;
    }
    return { ...item, unit_amount: price.unitAmount, includes_tax: price.includesTax ? 1 : 0 };
  });
  return { items: repriced, unpriceable };
}

/**
 * 409 for a catalog line that cannot be priced now, naming it and saying why: `doing` is what
 * was refused ("check out", "change its quantity").
 */
export function unpriceableError(
  lines: readonly { item: ItemRow; reason: string }[],
  doing: string,
  source: string,
): ApiError {
  const named = lines
    .map(({ item, reason }) => {
      const why = reason.replace(/\.$/, '');
      return `item ${item.id} ("${item.name}", SKU ${item.sku}) has no price now (${why})`;
    })
    .join('; ');
  return conflict(
    `Cannot ${doing}: ${named}. Remove the item (DELETE /v2/carts/{cartId}/items/{itemId}), ` +
      'or add the product again from a catalog that prices it.',
    source,
  );
}
