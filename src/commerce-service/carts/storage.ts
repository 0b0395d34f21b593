/**
 * Carts in SQLite: the rows of a cart, its items and its custom discounts, read together into a
 * `CartState`, and every write the cart routes make. Callers run writes inside one transaction
 * with the read that judged them, so a failed rule never leaves a half-written cart.
 */
import { cachedStatement, type Db } from '../db.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { appliedCodes, cartPromotions } from '../promotions/cart-codes.ts';
import { type PromotionLine, promotionLines } from '../promotions/engine.ts';
import { repriceItems } from './reprice.ts';
import type { CartRow, ItemRow } from './rows.ts';

export type { CartRow, ItemRow } from './rows.ts';

export interface DiscountRow {
  id: string;
  cart_id: string;
  /** The item a discount is on; null for a cart-level discount. */
  item_id: string | null;
  amount: number;
  description: string;
  discount_code: string;
  discount_engine: string;
  external_id: string;
  created_at: string;
  updated_at: string;
}

/** A cart with everything its responses and totals need, read in one go. */
export interface CartState {
  cart: CartRow;
  /** Its lines, catalog lines priced as the catalog prices them at the read (reprice.ts). */
  items: ItemRow[];
  /** The catalog lines that have no price now (they keep their last one), with the reason. */
  unpriceable: Map<string, string>;
  discounts: DiscountRow[];
  /** The promotion codes applied to the cart (promotions/cart-codes.ts), live or not. */
  codes: string[];
  /** What its promotions take off, line by line (promotions/engine.ts), as read. */
  promotions: PromotionLine[];
}

// ---------------------------------------------------------------------------------------------
// Lifetime

/**
 * How long a cart lives after its last change: production deletes carts 7 days after they were
 * last updated (its carts specification; the store setting `cart_expiry_days` that changes it
 * is not served here). `meta.timestamps.expires_at` says when; from then on the cart is gone:
 * every request for it answers 404, lists leave it out, and `purgeExpiredCarts` deletes it.
 */
export const CART_LIFETIME_MS = 7 * 86_400_000;

/** When `cart` expires unless it changes first: its updated_at plus CART_LIFETIME_MS. */
export function cartExpiresAt(cart: Pick<CartRow, 'updated_at'>): string {
  return new Date(Date.parse(cart.updated_at) + CART_LIFETIME_MS).toISOString();
}

/** The updated_at at or before which a cart has expired at `now` (ms), as a stored timestamp. */
export function expiryCutoff(now: number): string {
  return new Date(now - CART_LIFETIME_MS).toISOString();
}

/**
 * Deletes the store's carts that expired by `now` (ms), with their items, discounts and codes
 * (ON DELETE CASCADE); the (store_id, updated_at) index finds them. Returns how many.
 */
export function purgeExpiredCarts(db: Db, storeId: string, now: number): number {
  return Number(
    cachedStatement(db, 'DELETE FROM carts WHERE store_id = ? AND updated_at <= ?').run(
      storeId,
      expiryCutoff(now),
    ).changes,
  );
}

/**
 * Starts the lifetime of a freshly seeded store's carts at `now` (the seeding): the seed dates
 * its records in a made-up past, from which its demo cart would be long expired.
 */
export function startSeededCartLifetimes(db: Db, storeId: string, now: string): void {
  db.prepare('UPDATE carts SET updated_at = ? WHERE store_id = ? AND updated_at < ?').run(
    now,
    storeId,
    now,
  );
}

// ---------------------------------------------------------------------------------------------
// Reads

/**
 * The cart `cartId` of the store with its items and discounts, its catalog lines priced at
 * `now` (ms since the epoch: the service's clock); 404 when there is none.
 */
export function loadCart(db: Db, storeId: string, cartId: string, now: number): CartState {
  if (!isUuid(cartId)) throw notFound(`No cart ${cartId}: cart ids are uuids.`);
  const cart = db
    .prepare('SELECT * FROM carts WHERE id = ? AND store_id = ?')
    .get(cartId.toLowerCase(), storeId) as CartRow | undefined;
  if (!cart) throw notFound(`No cart with id ${cartId}.`);
  if (cart.updated_at <= expiryCutoff(now)) {
    throw notFound(
      `Cart ${cart.id} expired at ${cartExpiresAt(cart)}: carts are deleted 7 days after ` +
        'their last change. Create a new cart.',
    );
  }
  const stored = db
    .prepare('SELECT * FROM cart_items WHERE cart_id = ? ORDER BY created_at, id')
    .all(cart.id) as ItemRow[];
  // Promotions below see the repriced lines, so their discounts follow the prices too.
  const { items, unpriceable } = repriceItems(db, cart, stored, now);
  const discounts = db
    .prepare('SELECT * FROM cart_custom_discounts WHERE cart_id = ? ORDER BY created_at, id')
    .all(cart.id) as DiscountRow[];
  // Promotions are live by the wall clock, as in production: a cart read after a promotion
  // ends loses its discount.
  const candidates = cartPromotions(db, storeId, cart.id, new Date().toISOString());
  const engineItems = items.map((item) => ({
    id: item.id,
    sku: item.sku,
    quantity: item.quantity,
    unitAmount: item.unit_amount,
    customDiscount: discounts.reduce((sum, d) => sum + (d.item_id === item.id ? d.amount : 0), 0),
  }));
  const promotions =
    candidates.length === 0 ? [] : promotionLines(candidates, engineItems, cart.currency);
  return { cart, items, unpriceable, discounts, codes: appliedCodes(db, cart.id), promotions };
}

/**
 * Who a cart belongs to: its customer or its account (both null for a guest cart); undefined
 * when the store has no such cart.
 */
export function cartOwner(
  db: Db,
  storeId: string,
  cartId: string,
): Pick<CartRow, 'customer_id' | 'account_id'> | undefined {
  return db
    .prepare('SELECT customer_id, account_id FROM carts WHERE id = ? AND store_id = ?')
    .get(cartId.toLowerCase(), storeId) as Pick<CartRow, 'customer_id' | 'account_id'> | undefined;
}

export function findItem(state: CartState, itemId: string): ItemRow {
  const item = isUuid(itemId) ? state.items.find((i) => i.id === itemId.toLowerCase()) : undefined;
  if (!item) throw notFound(`No item with id ${itemId} in cart ${state.cart.id}.`);
  return item;
}

/** A custom discount of the cart (`itemId` null) or of one item; 404 when it has none. */
export function findDiscount(
  state: CartState,
  discountId: string,
  itemId: string | null,
): DiscountRow {
  const discount = isUuid(discountId)
    ? state.discounts.find((d) => d.id === discountId.toLowerCase() && d.item_id === itemId)
    : undefined;
  if (!discount) {
    const where = itemId === null ? `cart ${state.cart.id}` : `item ${itemId}`;
    throw notFound(`No custom discount with id ${discountId} on ${where}.`);
  }
  return discount;
}

/** The discounts of one item, or the cart-level ones (`itemId` null). */
export function discountsOn(state: CartState, itemId: string | null): DiscountRow[] {
  return state.discounts.filter((d) => d.item_id === itemId);
}

// ---------------------------------------------------------------------------------------------
// Writes

export function insertCart(
  db: Db,
  cart: Omit<CartRow, 'created_at' | 'updated_at'>,
  now: string,
): void {
  cachedStatement(
    db,
    `INSERT INTO carts (id, store_id, name, description, currency, custom_discounts_enabled,
                        customer_id, account_id, created_at, updated_at)
     VALUES (@id, @store_id, @name, @description, @currency, @enabled, @customer_id, @account_id,
             @now, @now)`,
  ).run({
    id: cart.id,
    store_id: cart.store_id,
    name: cart.name,
    description: cart.description,
    currency: cart.currency,
    enabled: cart.custom_discounts_enabled,
    customer_id: cart.customer_id,
    account_id: cart.account_id,
    now,
  });
}

/**
 * Renames, describes and turns custom discounts on or off. A cart without custom discounts
 * has none: turning them off removes them, rather than leaving discounts that apply but can no
 * longer be changed.
 */
export function updateCart(
  db: Db,
  cart: Pick<CartRow, 'id' | 'name' | 'description' | 'custom_discounts_enabled'>,
  now: string,
): void {
  db.prepare(
    `UPDATE carts SET name = ?, description = ?, custom_discounts_enabled = ?, updated_at = ?
           WHERE id = ?`,
  ).run(cart.name, cart.description, cart.custom_discounts_enabled, now, cart.id);
  if (cart.custom_discounts_enabled === 0) {
    db.prepare('DELETE FROM cart_custom_discounts WHERE cart_id = ?').run(cart.id);
  }
}

export function deleteCart(db: Db, cartId: string): void {
  db.prepare('DELETE FROM carts WHERE id = ?').run(cartId);
}

export function touchCart(db: Db, cartId: string, now: string): void {
  db.prepare('UPDATE carts SET updated_at = ? WHERE id = ?').run(now, cartId);
}

export function insertItem(db: Db, storeId: string, item: ItemRow, now: string): void {
  cachedStatement(
    db,
    `INSERT INTO cart_items (id, store_id, cart_id, type, product_id, catalog_id,
                             catalog_rule_id, name, sku, description, quantity, unit_amount,
                             includes_tax, created_at, updated_at)
     VALUES (@id, @store_id, @cart_id, @type, @product_id, @catalog_id, @catalog_rule_id, @name,
             @sku, @description, @quantity, @amount, @includes_tax, @now, @now)`,
  ).run({
    id: item.id,
    type: item.type ?? 'custom_item',
    product_id: item.product_id ?? null,
    catalog_id: item.catalog_id ?? null,
    catalog_rule_id: item.catalog_rule_id ?? null,
    store_id: storeId,
    cart_id: item.cart_id,
    name: item.name,
    sku: item.sku,
    description: item.description,
    quantity: item.quantity,
    amount: item.unit_amount,
    includes_tax: item.includes_tax,
    now,
  });
}

export function setItemQuantity(db: Db, itemId: string, quantity: number, now: string): void {
  db.prepare('UPDATE cart_items SET quantity = ?, updated_at = ? WHERE id = ?').run(
    quantity,
    now,
    itemId,
  );
}

/**
 * More of a catalog product already in the cart: the new quantity, and the catalog (and rule)
 * of this add, which the line is priced from from now on.
 */
export function addToItem(
  db: Db,
  item: Pick<ItemRow, 'id' | 'quantity' | 'catalog_id' | 'catalog_rule_id'>,
  now: string,
): void {
  cachedStatement(
    db,
    `UPDATE cart_items SET quantity = ?, catalog_id = ?, catalog_rule_id = ?, updated_at = ?
     WHERE id = ?`,
  ).run(item.quantity, item.catalog_id ?? null, item.catalog_rule_id ?? null, now, item.id);
}

/**
 * Keeps each catalog line's stored price equal to its price now (`state` as loadCart read it),
 * so the stored price is the last the catalog gave. Not an edit: updated_at stays.
 */
export function storeLinePrices(db: Db, state: CartState): void {
  const update = cachedStatement(
    db,
    `UPDATE cart_items SET unit_amount = ?, includes_tax = ?
     WHERE id = ? AND (unit_amount != ? OR includes_tax != ?)`,
  );
  for (const item of state.items) {
    if (item.product_id == null || state.unpriceable.has(item.id)) continue;
    update.run(item.unit_amount, item.includes_tax, item.id, item.unit_amount, item.includes_tax);
  }
}

/** Removes one item (`itemId`) or every item of the cart, then `dropCartDiscountsIfEmpty`. */
export function deleteItems(db: Db, cartId: string, itemId?: string): void {
  if (itemId === undefined) {
    db.prepare('DELETE FROM cart_items WHERE cart_id = ?').run(cartId);
  } else {
    db.prepare('DELETE FROM cart_items WHERE id = ?').run(itemId);
  }
  dropCartDiscountsIfEmpty(db, cartId);
}

/**
 * Removing the last item also removes the cart-level discounts: an empty cart takes none,
 * and a discount left behind would silently apply to whatever is added next.
 */
function dropCartDiscountsIfEmpty(db: Db, cartId: string): void {
  const left = db.prepare('SELECT count(*) FROM cart_items WHERE cart_id = ?').pluck().get(cartId);
  if (left === 0) {
    db.prepare('DELETE FROM cart_custom_discounts WHERE cart_id = ? AND item_id IS NULL').run(
      cartId,
    );
  }
}

export function insertDiscount(db: Db, storeId: string, row: DiscountRow, now: string): void {
  cachedStatement(
    db,
    `INSERT INTO cart_custom_discounts (id, store_id, cart_id, item_id, amount, description,
       discount_code, discount_engine, external_id, created_at, updated_at)
     VALUES (@id, @store_id, @cart_id, @item_id, @amount, @description, @discount_code,
             @discount_engine, @external_id, @now, @now)`,
  ).run({ ...row, store_id: storeId, now });
}

export function updateDiscount(db: Db, row: DiscountRow, now: string): void {
  cachedStatement(
    db,
    `UPDATE cart_custom_discounts SET amount = @amount, description = @description,
       discount_code = @discount_code, discount_engine = @discount_engine,
       external_id = @external_id, updated_at = @now
     WHERE id = @id`,
  ).run({ ...row, now });
}

export function deleteDiscount(db: Db, discountId: string): void {
  db.prepare('DELETE FROM cart_custom_discounts WHERE id = ?').run(discountId);
}
