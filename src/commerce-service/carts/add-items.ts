/**
 * Adding to a cart, one line at a time: a catalog product (priced for the caller's catalog and
 * the cart's currency, added to the product's line when the cart has one), a custom item, a
 * promotion code, and a merge, which adds every line of another cart the caller may use the
 * same way. Each step judges everything (price, stock, the cart's money bounds and its
 * MAX_CART_LINES) before it writes, and runs in a savepoint, so a refused step leaves nothing.
 *
 * A request of several entries (item-requests.ts) runs them in order inside the route's one
 * transaction. With `add_all_or_nothing` the first refused step refuses the whole request and
 * the transaction rolls back; without it, each refused step is reported (production's 201
 * with `errors`, each with `meta` naming the entry's product, SKU, code or merged cart) and the
 * others stay.
 *
 * A merge, as production's specification describes it: the merged cart's lines are added to
 * this one, a product already here gets the merged quantity added, and the merged cart stays
 * as it was (its items, custom discounts and promotion codes remain in it). Catalog lines are
 * priced as this cart prices them (the caller's catalog, this cart's currency); custom items
 * keep their price, which must be in this cart's currency.
 */
import type { FastifyRequest } from 'fastify';
import type { ResolvedCatalog } from '../catalogs/resolve.ts';
import type { Db } from '../db.ts';
import { ApiError, type ApiErrorObject, badRequest, isApiError, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { checkStock } from '../inventory/stock.ts';
import { applyCode } from '../promotions/cart-codes.ts';
import { mayUseCart } from './access.ts';
import type { CustomItemInput } from './bodies.ts';
import { keepBundleConfiguration, storedSelection } from './bundles.ts';
import { atEntry, type ItemEntry, type ItemsRequest } from './item-requests.ts';
import { type ProductItemInput, priceProductItem } from './product-items.ts';
import { addToItem, type CartState, type ItemRow, insertItem, loadCart } from './storage.ts';
import { judgeCartTotals } from './totals.ts';

/** Production's bound: "a cart can contain a maximum of 100 unique items". */
export const MAX_CART_LINES = 100;

/** What the steps need of the request and the service. */
export interface AddContext {
  db: Db;
  request: FastifyRequest;
  /** The service's clock (ms), for catalog prices and cart expiry. */
  clock: number;
  /** The write's timestamp (taken once, on first use). */
  stamp: () => string;
  /** The caller's resolved catalog (404 when none is published); called only when needed. */
  catalog: () => ResolvedCatalog;
}

/** The cart being written, its lines kept current as steps succeed. */
export interface Draft {
  state: CartState;
  items: ItemRow[];
}

/** One refused step, as production's 201 reports it (`errors`). */
export interface ItemError extends ApiErrorObject {
  meta: Record<string, string>;
}

function judgeNewLine(draft: Draft, source: string): void {
  if (draft.items.length >= MAX_CART_LINES) {
    throw badRequest(
      `A cart holds at most ${MAX_CART_LINES} distinct items, and this one is full: remove an ` +
        'item or add to one already in it.',
      source,
    );
  }
}

/** A catalog product, `quantity` more of it (its line's quantity grows when it has one). */
export function addProduct(ctx: AddContext, draft: Draft, input: ProductItemInput): void {
  const { db } = ctx;
  const { cart } = draft.state;
  const { release, ruleId } = ctx.catalog();
  const probe = priceProductItem(db, release, input, cart.currency, 1, ctx.clock);
  // A bundle chosen otherwise is another line (its configuration: ./bundles.ts).
  const existing = draft.items.find(
    (i) =>
      i.product_id === probe.product.id &&
      (i.bundle_configuration ?? undefined) === probe.bundleConfiguration,
  );
  const quantity = (existing?.quantity ?? 0) + input.quantity;
  // The whole line's price for its new quantity, now: more units can reach a tier, and a sale
  // that ended since the first add no longer applies to any of them.
  const priced = priceProductItem(
    db,
    release,
    { ...input, id: probe.product.id, quantity },
    cart.currency,
    quantity,
    ctx.clock,
  );
  checkStock(db, release.store_id, priced.product.id, quantity);
  const source = { catalog_id: release.catalog_id, catalog_rule_id: ruleId ?? null };
  if (existing !== undefined) {
    // This add's catalog (the caller's now) prices the line from here on.
    const line: ItemRow = {
      ...existing,
      ...source,
      quantity,
      unit_amount: priced.unitAmount,
      includes_tax: priced.includesTax ? 1 : 0,
    };
    const items = draft.items.map((i) => (i === existing ? line : i));
    judgeCartTotals({ ...draft.state, items }, 'data.quantity', 'Adding this item');
    addToItem(db, line, ctx.stamp());
    draft.items = items;
    return;
  }
  judgeNewLine(draft, 'data');
  const stamp = ctx.stamp();
  const item: ItemRow = {
    id: newId(),
    cart_id: cart.id,
    type: 'cart_item',
    product_id: priced.product.id,
    ...source,
    name: priced.product.name,
    sku: priced.sku,
    description: priced.product.description ?? '',
    quantity,
    unit_amount: priced.unitAmount,
    includes_tax: priced.includesTax ? 1 : 0,
    ...(priced.bundleConfiguration === undefined
      ? {}
      : { bundle_configuration: priced.bundleConfiguration }),
    created_at: stamp,
    updated_at: stamp,
  };
  const items = [...draft.items, item];
  judgeCartTotals({ ...draft.state, items }, 'data.quantity', 'Adding this item');
  insertItem(db, cart.store_id, item, stamp);
  if (priced.bundleConfiguration !== undefined) {
    keepBundleConfiguration(db, item.id, priced.bundleConfiguration);
  }
  draft.items = items;
}

/** A custom item: always a line of its own, at the price given. */
export function addCustom(ctx: AddContext, draft: Draft, input: CustomItemInput): void {
  judgeNewLine(draft, 'data');
  const { cart } = draft.state;
  const created = ctx.stamp();
  const item: ItemRow = {
    id: newId(),
    cart_id: cart.id,
    name: input.name,
    sku: input.sku,
    description: input.description,
    quantity: input.quantity,
    unit_amount: input.amount,
    includes_tax: input.includesTax ? 1 : 0,
    created_at: created,
    updated_at: created,
  };
  const items = [...draft.items, item];
  judgeCartTotals({ ...draft.state, items }, 'data.quantity', 'Adding this item');
  insertItem(ctx.db, cart.store_id, item, created);
  draft.items = items;
}

/** The cart a merge reads from: one the caller may use, not this one, not expired. */
function mergeSource(ctx: AddContext, draft: Draft, cartId: string): CartState {
  if (cartId === draft.state.cart.id) {
    throw badRequest(
      'A cart cannot be merged into itself: data.cart_id is this cart.',
      'data.cart_id',
    );
  }
  if (!mayUseCart(ctx.db, ctx.request, cartId)) throw notFound(`No cart with id ${cartId}.`);
  const source = loadCart(ctx.db, ctx.request.store.id, cartId, ctx.clock);
  if (source.items.length > MAX_CART_LINES) {
    throw badRequest(
      `Cart ${cartId} has ${source.items.length} items, more than a cart may hold ` +
        `(${MAX_CART_LINES}): it cannot be merged.`,
      'data.cart_id',
    );
  }
  return source;
}

/** One line of a merged cart, added as its kind is added. */
function addMergedLine(ctx: AddContext, draft: Draft, line: ItemRow, from: CartState): void {
  if (line.product_id != null) {
    // A bundle keeps its chosen options (./bundles.ts).
    const bundle = storedSelection(line.bundle_configuration);
    addProduct(ctx, draft, {
      id: line.product_id,
      quantity: line.quantity,
      ...(bundle === undefined ? {} : { bundle }),
    });
    return;
  }
  if (from.cart.currency !== draft.state.cart.currency) {
    throw badRequest(
      `Custom item "${line.name}" is priced in ${from.cart.currency}, and this cart is in ` +
        `${draft.state.cart.currency}: add it again with a price in ${draft.state.cart.currency}.`,
      'data.cart_id',
    );
  }
  addCustom(ctx, draft, {
    name: line.name,
    sku: line.sku,
    description: line.description,
    quantity: line.quantity,
    amount: line.unit_amount,
    includesTax: line.includes_tax === 1,
  });
}

function entryMeta(entry: ItemEntry): Record<string, string> {
  switch (entry.type) {
    case 'cart_item':
      return entry.input.id !== undefined ? { id: entry.input.id } : { sku: entry.input.sku ?? '' };
    case 'custom_item':
      return { sku: entry.input.sku };
    case 'promotion_item':
      return { code: entry.code };
    case 'cart_items':
      return { cart_id: entry.cartId };
  }
}

/** `error` with another detail or source: the error family's objects are immutable. */
function restated(error: ApiError, change: { detail?: string; source?: string }): ApiError {
  return new ApiError(error.status, change.detail ?? error.detail, {
    title: error.title,
    source: change.source ?? error.source,
  });
}

/** The refusal that ends an all-or-nothing request, carried out of the steps as it is. */
class Refused extends Error {
  readonly error: ApiError;
  constructor(error: ApiError) {
    super(error.detail);
    this.error = error;
  }
}

/**
 * Applies the entries of `request` to `draft` in order (call inside the route's transaction);
 * returns the refused steps when add_all_or_nothing is off, throws the first one when it is on.
 */
export function applyEntries(ctx: AddContext, draft: Draft, request: ItemsRequest): ItemError[] {
  const errors: ItemError[] = [];
  const refuse = (error: unknown, index: number, meta: Record<string, string>): void => {
    if (error instanceof Refused || !isApiError(error) || error.status >= 500) throw error;
    const named = request.bulk ? atEntry(error, index) : error;
    if (request.allOrNothing) {
      throw new Refused(
        restated(named, {
          detail: `Nothing was added (options.add_all_or_nothing is true): ${named.detail}`,
        }),
      );
    }
    errors.push({ ...named.toJSON(), meta });
  };
  // Each step in a savepoint: a refused one undoes only its own writes.
  const step = (run: () => void) => ctx.db.transaction(run)();
  const apply = (entry: ItemEntry, index: number): void => {
    switch (entry.type) {
      case 'cart_item':
        step(() => addProduct(ctx, draft, entry.input));
        return;
      case 'custom_item':
        step(() => addCustom(ctx, draft, entry.input));
        return;
      case 'promotion_item':
        step(() =>
          applyCode(ctx.db, ctx.request.store.id, draft.state.cart, entry.code, ctx.stamp()),
        );
        return;
      case 'cart_items': {
        const from = mergeSource(ctx, draft, entry.cartId);
        for (const line of from.items) {
          try {
            step(() => addMergedLine(ctx, draft, line, from));
          } catch (error) {
            // A merged line's refusal points at the merge, whatever field it named.
            const relocated = isApiError(error)
              ? restated(error, { source: 'data.cart_id' })
              : error;
            refuse(relocated, index, { ...entryMeta(entry), item_id: line.id, sku: line.sku });
          }
        }
        return;
      }
    }
  };
  try {
    request.entries.forEach((entry, index) => {
      try {
        apply(entry, index);
      } catch (error) {
        refuse(error, index, entryMeta(entry));
      }
    });
  } catch (error) {
    throw error instanceof Refused ? error.error : error;
  }
  return errors;
}
