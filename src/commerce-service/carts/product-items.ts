/**
 * Catalog products in a cart (v2-catalog-notes §8): `{data:{type:"cart_item", id | sku,
 * quantity}}` names a product of the caller's resolved catalog (the same rule resolution as
 * `/catalog`), priced from that release in the cart's currency (by the winning rule's price books
 * when it has any: catalogs/release-prices.ts, as the catalog showed it; 400 when the product has no
 * price in it; volume tiers apply to the quantity); the add route checks it against stock (400
 * when short). Adding a product already in the cart adds to that item's quantity, as production
 * does. `priceProductItem` is the one way a catalog line is priced: on the add, and again on
 * every read, write and checkout of the cart (reprice.ts).
 */

import type { Selection } from '../catalogs/bundles.ts';
import { type PricingRelease, releasePriceRecords } from '../catalogs/release-prices.ts';
import type { ReleaseProductRow } from '../catalogs/views.ts';
import { cachedStatement, type Db } from '../db.ts';
import { badRequest, notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { MAX_QUANTITY } from '../money.ts';
import { priceInCurrency, unitAmount } from '../pricebooks/resolve.ts';
import { type JsonObject, optionalText, requireData, requireInteger } from '../request-body.ts';
import { priceBundleItem, readBundleConfiguration } from './bundles.ts';
import type { PricedProduct } from './priced-product.ts';

export interface ProductItemInput {
  id?: string;
  sku?: string;
  quantity: number;
  /** A bundle's selected options (carts/bundles.ts): as sent on an add, as kept on a reprice. */
  bundle?: Selection;
}

/** The body's `data` when it is a `cart_item`; undefined for any other type. */
export function cartItemData(body: unknown): JsonObject | undefined {
  const data = requireData(body);
  return data.type === 'cart_item' ? data : undefined;
}

export function parseProductItem(data: JsonObject): ProductItemInput {
  const id = data.id;
  const sku = optionalText(data, 'sku');
  if (id !== undefined && id !== null && (typeof id !== 'string' || !isUuid(id))) {
    throw badRequest('data.id must be the uuid of a catalog product.', 'data.id');
  }
  if ((id === undefined || id === null) && sku === undefined) {
    throw badRequest('A cart_item names its product: send data.id or data.sku.', 'data.id');
  }
  const bundle = readBundleConfiguration(data);
  return {
    ...(typeof id === 'string' ? { id: id.toLowerCase() } : {}),
    ...(sku === undefined ? {} : { sku }),
    quantity: requireInteger(data, 'quantity', { min: 1, max: MAX_QUANTITY }),
    ...(bundle === undefined ? {} : { bundle }),
  };
}

export type { PricedProduct } from './priced-product.ts';

/**
 * The product of `input` in `release`, priced in `currency` for `quantity` (the quantity the
 * item will have) at `now`. 404 when the catalog has no such product; 400 when it has no price
 * in the currency. Stock is the caller's to check: a cart read reprices without judging stock.
 */
export function priceProductItem(
  db: Db,
  release: PricingRelease,
  input: ProductItemInput,
  currency: string,
  quantity: number,
  now: number,
): PricedProduct {
  const product = (
    input.id !== undefined
      ? cachedStatement(db, 'SELECT * FROM release_products WHERE release_id = ? AND id = ?').get(
          release.id,
          input.id,
        )
      : cachedStatement(
          db,
          'SELECT * FROM release_products WHERE release_id = ? AND sku = ? LIMIT 1',
        ).get(release.id, input.sku ?? '')
  ) as ReleaseProductRow | undefined;
  if (product === undefined) {
    const named = input.id !== undefined ? `id ${input.id}` : `SKU ${input.sku}`;
    throw notFound(`No product with ${named} in the shopper's catalog.`);
  }
  if (product.product_type === 'bundle' || input.bundle !== undefined) {
    return priceBundleItem(db, release, product, input.bundle, currency, quantity, now);
  }
  if (product.sku === null) {
    throw badRequest(`Product ${product.id} has no SKU, so it has no price.`, 'data.id');
  }
  const stored = releasePriceRecords(db, release, [product.sku]).get(product.sku);
  const price = stored && priceInCurrency(stored, currency, now);
  if (price === undefined) {
    throw badRequest(
      `Product ${product.id} has no price in ${currency}, the cart's currency.`,
      'data.id',
    );
  }
  return {
    product,
    sku: product.sku,
    unitAmount: unitAmount(price, quantity),
    includesTax: price.includes_tax,
  };
}
