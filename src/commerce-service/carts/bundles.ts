/**
 * A bundle in a cart (cart_checkout.yaml, "Dynamic Bundles"): a `cart_item` for a bundle may
 * carry `bundle_configuration: {selected_options: {component: {productId: quantity}}}`, the
 * shopper's choice (the `POST /catalog/products/{id}/configure` answer's, or the bundle's
 * default options when absent). It is judged against the bundle of the shopper's catalog
 * (catalogs/bundles.ts: 400s naming `data.bundle_configuration.selected_options.<component>…`),
 * kept on the line (its canonical JSON: the same choice twice is one line, another choice is
 * another line), shown on the cart item, copied to the order's item at checkout, and priced as
 * the catalog prices the bundle: by the bundle's own SKU price when it has one, else the sum of
 * its selected options' list prices — on the add and on every reprice (carts/reprice.ts through
 * product-items.ts priceProductItem).
 */
import {
  bundleComponents,
  componentProductIds,
  cumulativePrice,
  defaultSelection,
  judgeSelection,
  readSelectedOptions,
  releaseRowsById,
  type Selection,
} from '../catalogs/bundles.ts';
import { type PricingRelease, releasePriceRecords } from '../catalogs/release-prices.ts';
import type { ReleaseProductRow } from '../catalogs/views.ts';
import { cachedStatement, type Db } from '../db.ts';
import { ApiError, badRequest, isApiError } from '../errors.ts';
import { priceInCurrency, unitAmount } from '../pricebooks/resolve.ts';
import { isObject, type JsonObject, rejectUnknownKeys } from '../request-body.ts';
import type { PricedProduct } from './priced-product.ts';

const SOURCE = 'data.bundle_configuration';
const OPTIONS = `${SOURCE}.selected_options`;

/** `data.bundle_configuration` of a cart_item body (its shape only); undefined when absent. */
export function readBundleConfiguration(data: JsonObject): Selection | undefined {
  const value = data.bundle_configuration;
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) {
    throw badRequest(`${SOURCE} must be an object {"selected_options": {…}}.`, SOURCE);
  }
  // The spec's request lists component_products too: the catalog's business, ignored here.
  rejectUnknownKeys(value, ['selected_options', 'component_products'], SOURCE);
  return readSelectedOptions(value.selected_options, OPTIONS);
}

/** The stored configuration of a line, for its reprice. */
export function storedSelection(configuration: string | null | undefined): Selection | undefined {
  if (configuration == null) return undefined;
  return (JSON.parse(configuration) as { selected_options: Selection }).selected_options;
}

/**
 * `product` of `release` (a bundle, or any product when `given` is set) priced for `quantity`
 * in `currency` with the shopper's selection `given` (the bundle's defaults when undefined).
 */
export function priceBundleItem(
  db: Db,
  release: PricingRelease,
  product: ReleaseProductRow,
  given: Selection | undefined,
  currency: string,
  quantity: number,
  now: number,
): PricedProduct {
  if (product.product_type !== 'bundle') {
    throw badRequest(
      `Product ${product.id} is not a bundle: only a bundle takes a bundle_configuration.`,
      SOURCE,
    );
  }
  const components = bundleComponents(product.extra);
  const rows = releaseRowsById(db, release.id, componentProductIds(components));
  let selection: Selection;
  try {
    selection = judgeSelection(
      product.id,
      components,
      given ?? defaultSelection(components),
      OPTIONS,
      (id) => rows.has(id),
    );
  } catch (error) {
    if (given !== undefined || !isApiError(error)) throw error;
    throw new ApiError(
      error.status,
      `${SOURCE} is missing, and bundle ${product.id}'s default options do not make a valid ` +
        `choice (${error.detail}): send the shopper's selected_options.`,
      { source: SOURCE },
    );
  }
  const skus = [...rows.values()].flatMap((row) => (row.sku === null ? [] : [row.sku]));
  const prices = releasePriceRecords(db, release, [...skus, ...(product.sku ? [product.sku] : [])]);
  const own = product.sku === null ? undefined : prices.get(product.sku);
  const record = own ?? cumulativePrice(selection, rows, prices, now);
  const price = record && priceInCurrency(record, currency, now);
  if (price === undefined) {
    const why = own === undefined ? ' (its selected options are not all priced in it)' : '';
    throw badRequest(
      `Bundle ${product.id} has no price in ${currency}, the cart's currency${why}.`,
      'data.id',
    );
  }
  return {
    product,
    // A SKU-less bundle's line has none either, as production's shows.
    sku: product.sku ?? '',
    unitAmount: own === undefined ? price.amount : unitAmount(price, quantity),
    includesTax: price.includes_tax,
    bundleConfiguration: JSON.stringify({ selected_options: selection }),
  };
}

/** Keeps a new line's configuration (the add path's insert writes the rest of the line). */
export function keepBundleConfiguration(db: Db, itemId: string, configuration: string): void {
  cachedStatement(db, 'UPDATE cart_items SET bundle_configuration = ? WHERE id = ?').run(
    configuration,
    itemId,
  );
}

/** A stored configuration as a cart or order item shows it. */
export function shownBundleConfiguration(configuration: string | null | undefined) {
  return configuration == null
    ? {}
    : { bundle_configuration: JSON.parse(configuration) as { selected_options: Selection } };
}
