/**
 * What pricing a catalog line answers (product-items.ts for a plain product, bundles.ts for a
 * bundle): its own module, so the two pricers share it without importing each other.
 */
import type { ReleaseProductRow } from '../catalogs/records.ts';

export interface PricedProduct {
  product: ReleaseProductRow;
  sku: string;
  unitAmount: number;
  includesTax: boolean;
  /** A bundle's line: its judged selection, `{"selected_options": …}` JSON (carts/bundles.ts). */
  bundleConfiguration?: string;
}
