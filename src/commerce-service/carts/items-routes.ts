/**
 * A cart's items (`/v2/carts/{id}/items[/{itemId}]`): custom items, and catalog products
 * (`cart_item`, carts/product-items.ts) from the caller's resolved catalog, priced for their
 * quantity now on every read and write (carts/reprice.ts). Every write answers with the cart's
 * whole item list and totals, as production does, and judges the cart's totals (money bounds)
 * before it writes. Registered by carts.ts, behind its check of who may use the cart.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ResolvedCatalog } from '../catalogs/resolve.ts';
import { resolvedCatalog } from '../catalogs/shopper-routes.ts';
import type { ServiceContext } from '../context.ts';
import { checkStock } from '../inventory/stock.ts';
import {
  applyCode,
  judgeCode,
  promotionItemCode,
  removeAllCodes,
  removeCode,
} from '../promotions/cart-codes.ts';
import {
  type AddContext,
  addCustom,
  addProduct,
  applyEntries,
  type ItemError,
} from './add-items.ts';
import { parseCustomItem, parseQuantityUpdate } from './bodies.ts';
import { emitCartUpdated } from './events.ts';
import { parseItemOptions, parseItemsRequest } from './item-requests.ts';
import { presentItems } from './present.ts';
import { cartItemData, parseProductItem } from './product-items.ts';
import { includedPromotions } from './promotion-display.ts';
import { priceCatalogLine, unpriceableError } from './reprice.ts';
import type { CartParams } from './rows.ts';
import {
  type CartState,
  deleteItems,
  findItem,
  type ItemRow,
  loadCart,
  setItemQuantity,
  storeLinePrices,
  touchCart,
} from './storage.ts';
import { judgeCartTotals } from './totals.ts';

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
    write: (state: CartState, now: () => string) => ItemError[] | undefined,
  ) {
    return db.transaction(() => {
      const state = loadCart(db, storeId, cartId, ctx.clock());
      let stamp: string | undefined;
      const now = () => {
        stamp ??= ctx.timestamp();
        return stamp;
      };
      const errors = write(state, now) ?? [];
      touchCart(db, state.cart.id, now());
      const after = loadCart(db, storeId, state.cart.id, ctx.clock());
      storeLinePrices(db, after);
      emitCartUpdated(db, storeId, state.cart.id, ctx.clock());
      // Production's partial success: what was added, and `errors` for what was not.
      return errors.length === 0 ? presentItems(after) : { ...presentItems(after), errors };
    })();
  }

  /** What the add steps (carts/add-items.ts) need of this request. */
  function addContext(request: FastifyRequest, now: () => string): AddContext {
    let catalog: ResolvedCatalog | undefined;
    return {
      db,
      request,
      clock: ctx.clock(),
      stamp: now,
      catalog: () => {
        catalog ??= resolvedCatalog(ctx, request);
        return catalog;
      },
    };
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
      // `options` is judged whatever the body adds (it only matters for several items).
      parseItemOptions(request.body);
      const code = promotionItemCode(request.body);
      if (code !== undefined) {
        const result = writeItems(request.store.id, request.params.cartId, (state, now) => {
          applyCode(db, request.store.id, state.cart, code, now());
        });
        reply.code(201);
        return result;
      }
      // Several items (`data` an array) or a merge (`cart_items`): carts/add-items.ts.
      const many = parseItemsRequest(request.body);
      if (many !== undefined) {
        // Each line its own timestamp (strictly increasing), so the cart lists them in the
        // request's order; the cart's own change is stamped after them.
        const result = writeItems(request.store.id, request.params.cartId, (state) =>
          applyEntries(addContext(request, ctx.timestamp), { state, items: state.items }, many),
        );
        reply.code(201);
        return result;
      }
      const productData = cartItemData(request.body);
      const input = productData === undefined ? undefined : parseProductItem(productData);
      const custom = input === undefined ? parseCustomItem(request.body) : undefined;
      const result = writeItems(request.store.id, request.params.cartId, (state, now) => {
        const draft = { state, items: state.items };
        if (input !== undefined) addProduct(addContext(request, now), draft, input);
        else if (custom !== undefined) addCustom(addContext(request, now), draft, custom);
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
