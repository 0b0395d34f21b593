/**
 * A cart's items (`/v2/carts/{id}/items[/{itemId}]`): custom items, and catalog products
 * (`cart_item`, carts/product-items.ts) from the caller's resolved catalog, priced for their
 * quantity now on every read and write (carts/reprice.ts). Every write answers with the cart's
 * whole item list and totals, as production does, and judges the cart's totals (money bounds)
 * before it writes. Registered by carts.ts, behind its check of who may use the cart.
 */
import type { FastifyPluginAsync } from 'fastify';
import { parseCustomItem, parseQuantityUpdate } from '../carts/bodies.ts';
import { emitCartUpdated } from '../carts/events.ts';
import { presentItems } from '../carts/present.ts';
import { cartItemData, parseProductItem, priceProductItem } from '../carts/product-items.ts';
import { includedPromotions } from '../carts/promotion-display.ts';
import { priceCatalogLine, unpriceableError } from '../carts/reprice.ts';
import {
  addToItem,
  type CartState,
  deleteItems,
  findItem,
  type ItemRow,
  insertItem,
  loadCart,
  setItemQuantity,
  storeLinePrices,
  touchCart,
} from '../carts/storage.ts';
import { judgeCartTotals } from '../carts/totals.ts';
import type { ServiceContext } from '../context.ts';
import { newId } from '../ids.ts';
import { checkStock } from '../inventory/stock.ts';
import {
  applyCode,
  judgeCode,
  promotionItemCode,
  removeAllCodes,
  removeCode,
} from '../promotions/cart-codes.ts';
import type { CartParams } from './carts.ts';
import { resolvedCatalog } from './shopper-catalog.ts';

interface ItemParams extends CartParams {
  itemId: string;
}

export function cartItemRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;

  /**
   * Runs `write` on the cart in one transaction, then touches the cart and answers with its
   * items as they are now, catalog lines repriced for their quantity (and that price stored).
   * `now()` stamps the write; it is taken once, on first use, so a write refused before it takes
   * no timestamp.
   */
  function writeItems(
    storeId: string,
    cartId: string,
    write: (state: CartState, now: () => string) => void,
  ) {
    return db.transaction(() => {
      const state = loadCart(db, storeId, cartId, ctx.clock());
      let stamp: string | undefined;
      const now = () => {
        stamp ??= ctx.timestamp();
        return stamp;
      };
      write(state, now);
      touchCart(db, state.cart.id, now());
      const after = loadCart(db, storeId, state.cart.id, ctx.clock());
      storeLinePrices(db, after);
      emitCartUpdated(db, storeId, state.cart.id, ctx.clock());
      return presentItems(after);
    })();
  }

  return async (app) => {
    app.get<{ Params: CartParams; Querystring: { include?: unknown } }>(
      '/carts/:cartId/items',
      async (request) => {
        const state = loadCart(db, request.store.id, request.params.cartId, ctx.clock());
        // Production's Get Cart Items: every promotion, cart and item level, condensed.
        const include = request.query.include;
        if (typeof include !== 'string' || !include.split(',').includes('promotions')) {
          return presentItems(state);
        }
        return {
          ...presentItems(state),
          included: { promotions: includedPromotions(db, state, true) },
        };
      },
    );

    app.post<{ Params: CartParams }>('/carts/:cartId/items', async (request, reply) => {
      const code = promotionItemCode(request.body);
      if (code !== undefined) {
        const result = writeItems(request.store.id, request.params.cartId, (state, now) => {
          applyCode(db, request.store.id, state.cart, code, now());
        });
        reply.code(201);
        return result;
      }
      const productData = cartItemData(request.body);
      if (productData !== undefined) {
        const input = parseProductItem(productData);
        const result = writeItems(request.store.id, request.params.cartId, (state, now) => {
          const { release, ruleId } = resolvedCatalog(ctx, request);
          const probe = priceProductItem(db, release, input, state.cart.currency, 1, ctx.clock());
          const existing = state.items.find((i) => i.product_id === probe.product.id);
          const quantity = (existing?.quantity ?? 0) + input.quantity;
          // The whole line's price for its new quantity, now: more units can reach a tier, and
          // a sale that ended since the first add no longer applies to any of them.
          const priced = priceProductItem(
            db,
            release,
            { id: probe.product.id, quantity },
            state.cart.currency,
            quantity,
            ctx.clock(),
          );
          checkStock(db, release.store_id, priced.product.id, quantity);
          const source = { catalog_id: release.catalog_id, catalog_rule_id: ruleId ?? null };
          const stamp = now();
          if (existing !== undefined) {
            // This add's catalog (the caller's now) prices the line from here on.
            const line = {
              ...existing,
              ...source,
              quantity,
              unit_amount: priced.unitAmount,
              includes_tax: priced.includesTax ? 1 : 0,
            };
            const items = state.items.map((i) => (i === existing ? line : i));
            judgeCartTotals({ ...state, items }, 'data.quantity', 'Adding this item');
            addToItem(db, line, stamp);
            return;
          }
          const item: ItemRow = {
            id: newId(),
            cart_id: state.cart.id,
            type: 'cart_item',
            product_id: priced.product.id,
            ...source,
            name: priced.product.name,
            sku: priced.sku,
            description: priced.product.description ?? '',
            quantity,
            unit_amount: priced.unitAmount,
            includes_tax: priced.includesTax ? 1 : 0,
            created_at: stamp,
            updated_at: stamp,
          };
          judgeCartTotals(
            { ...state, items: [...state.items, item] },
            'data.quantity',
            'Adding this item',
          );
          insertItem(db, request.store.id, item, stamp);
        });
        reply.code(201);
        return result;
      }
      const input = parseCustomItem(request.body);
      const storeId = request.store.id;
      const result = writeItems(storeId, request.params.cartId, (state, now) => {
        const created = now();
        const item: ItemRow = {
          id: newId(),
          cart_id: state.cart.id,
          name: input.name,
          sku: input.sku,
          description: input.description,
          quantity: input.quantity,
          unit_amount: input.amount,
          includes_tax: input.includesTax ? 1 : 0,
          created_at: created,
          updated_at: created,
        };
        const after = { ...state, items: [...state.items, item] };
        judgeCartTotals(after, 'data.quantity', 'Adding this item');
        insertItem(db, storeId, item, created);
      });
      reply.code(201);
      return result;
    });

    // Emptying a cart takes its promotion codes with its items, as production does.
    app.delete<{ Params: CartParams }>('/carts/:cartId/items', async (request) =>
      writeItems(request.store.id, request.params.cartId, (state) => {
        deleteItems(db, state.cart.id);
        removeAllCodes(db, state.cart.id);
      }),
    );

    app.put<{ Params: ItemParams }>('/carts/:cartId/items/:itemId', async (request) => {
      const quantity = parseQuantityUpdate(request.body);
      return writeItems(request.store.id, request.params.cartId, (state, now) => {
        const item = findItem(state, request.params.itemId);
        if (quantity === 0) {
          deleteItems(db, state.cart.id, item.id);
          return;
        }
        let line: ItemRow = { ...item, quantity };
        if (item.product_id != null) {
          // Priced for the new quantity now: a tier reached or left changes the unit price.
          const price = priceCatalogLine(db, state.cart, item, quantity, ctx.clock());
          if (price.unpriceable !== undefined) {
            throw unpriceableError(
              [{ item, reason: price.unpriceable }],
              'change its quantity',
              'data.quantity',
            );
          }
          line = {
            ...line,
            unit_amount: price.unitAmount,
            includes_tax: price.includesTax ? 1 : 0,
          };
        }
        const stamp = now();
        const items = state.items.map((i) => (i === item ? line : i));
        judgeCartTotals({ ...state, items }, 'data.quantity', 'This quantity');
        if (item.product_id != null) checkStock(db, request.store.id, item.product_id, quantity);
        setItemQuantity(db, item.id, quantity, stamp);
      });
    });

    // Production's removal of a promotion code (the official SDK's RemovePromotion).
    app.delete<{ Params: CartParams & { code: string } }>(
      '/carts/:cartId/discounts/:code',
      async (request) => {
        const code = judgeCode(request.params.code, 'code');
        return writeItems(request.store.id, request.params.cartId, (state) => {
          removeCode(db, state.cart.id, code);
        });
      },
    );

    app.delete<{ Params: ItemParams }>('/carts/:cartId/items/:itemId', async (request) =>
      writeItems(request.store.id, request.params.cartId, (state) => {
        deleteItems(db, state.cart.id, findItem(state, request.params.itemId).id);
      }),
    );
  };
}
