/**
 * A cart's items (`/v2/carts/{id}/items[/{itemId}]`): custom items only, as this service has
 * no catalog. Every write answers with the cart's whole item list and totals, as production
 * does, and judges the cart's totals (money bounds) before it writes. Registered by carts.ts,
 * behind its check of who may use the cart.
 */
import type { FastifyPluginAsync } from 'fastify';
import { parseCustomItem, parseQuantityUpdate } from '../carts/bodies.ts';
import { presentItems } from '../carts/present.ts';
import {
  type CartState,
  deleteItems,
  findItem,
  type ItemRow,
  insertItem,
  loadCart,
  setItemQuantity,
  touchCart,
} from '../carts/storage.ts';
import { judgeCartTotals } from '../carts/totals.ts';
import type { ServiceContext } from '../context.ts';
import { newId } from '../ids.ts';
import type { CartParams } from './carts.ts';

interface ItemParams extends CartParams {
  itemId: string;
}

export function cartItemRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;

  /**
   * Runs `write` on the cart in one transaction, then touches the cart and answers with its
   * items as they are now. `now()` stamps the write; it is taken once, on first use, so a write
   * refused before it takes no timestamp.
   */
  function writeItems(
    storeId: string,
    cartId: string,
    write: (state: CartState, now: () => string) => void,
  ) {
    return db.transaction(() => {
      const state = loadCart(db, storeId, cartId);
      let stamp: string | undefined;
      const now = () => {
        stamp ??= ctx.timestamp();
        return stamp;
      };
      write(state, now);
      touchCart(db, state.cart.id, now());
      return presentItems(loadCart(db, storeId, state.cart.id));
    })();
  }

  return async (app) => {
    app.get<{ Params: CartParams }>('/carts/:cartId/items', async (request) =>
      presentItems(loadCart(db, request.store.id, request.params.cartId)),
    );

    app.post<{ Params: CartParams }>('/carts/:cartId/items', async (request, reply) => {
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

    app.delete<{ Params: CartParams }>('/carts/:cartId/items', async (request) =>
      writeItems(request.store.id, request.params.cartId, (state) => {
        deleteItems(db, state.cart.id);
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
        const stamp = now();
        const items = state.items.map((i) => (i === item ? { ...i, quantity } : i));
        judgeCartTotals({ ...state, items }, 'data.quantity', 'This quantity');
        setItemQuantity(db, item.id, quantity, stamp);
      });
    });

    app.delete<{ Params: ItemParams }>('/carts/:cartId/items/:itemId', async (request) =>
      writeItems(request.store.id, request.params.cartId, (state) => {
        deleteItems(db, state.cart.id, findItem(state, request.params.itemId).id);
      }),
    );
  };
}
