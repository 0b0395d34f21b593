/**
 * A cart's row and its items' rows as SQLite keeps them: their own module, read by storage.ts
 * (which loads and writes them) and reprice.ts (which prices them) without either importing the
 * other.
 */

export interface CartRow {
  id: string;
  store_id: string;
  name: string;
  description: string;
  currency: string;
  custom_discounts_enabled: number;
  /** The customer whose token created the cart (migration 0600); null for a guest cart. */
  customer_id: string | null;
  /** The account whose member's token created the cart (migration 0850); null otherwise. */
  account_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface ItemRow {
  id: string;
  cart_id: string;
  /** `custom_item`, or `cart_item` for a catalog product (with product_id and catalog_id). */
  type?: string;
  product_id?: string | null;
  catalog_id?: string | null;
  /** The catalog rule that chose catalog_id for the shopper who added the line (migration 0860). */
  catalog_rule_id?: string | null;
  /** A bundle's selected options, `{"selected_options": …}` JSON (carts/bundles.ts, 0900). */
  bundle_configuration?: string | null;
  name: string;
  sku: string;
  description: string;
  quantity: number;
  /**
   * Stored: the price given (custom item) or the last price the catalog gave (catalog line). In
   * a CartState, a catalog line's price now (carts/reprice.ts).
   */
  unit_amount: number;
  includes_tax: number;
  created_at: string;
  updated_at: string;
}

/** The `:cartId` of every cart route's path. */
export interface CartParams {
  cartId: string;
}
