/**
 * Custom discounts, one factory for both levels: on the cart (`/v2/carts/{id}/custom-discounts`)
 * and on one item (`/v2/carts/{id}/items/{itemId}/custom-discounts`), each with POST, PUT and
 * DELETE of `…/{discountId}`. A cart takes them only when its `custom_discounts_enabled` is on,
 * at most MAX_CUSTOM_DISCOUNTS per item and as many at cart level, and a cart-level one only
 * once the cart has an item. Registered by carts.ts, behind its check of who may use the cart.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import { badRequest, unprocessable } from '../errors.ts';
import { newId } from '../ids.ts';
import { parseCustomDiscount } from './bodies.ts';
import { emitCartUpdated } from './events.ts';
import { presentDiscount } from './present.ts';
import {
  type CartState,
  type DiscountRow,
  deleteDiscount,
  discountsOn,
  findDiscount,
  findItem,
  insertDiscount,
  loadCart,
  touchCart,
  updateDiscount,
} from './storage.ts';

/** At most this many custom discounts per item, and this many at cart level. */
export const MAX_CUSTOM_DISCOUNTS = 5;

/** Where the discounts of a factory's routes apply. */
export type DiscountLevel = 'cart' | 'item';

interface DiscountParams {
  cartId: string;
  /** Set on the item level only. */
  itemId?: string;
}

function requireDiscountsEnabled(state: CartState): void {
  if (state.cart.custom_discounts_enabled !== 1) {
    throw badRequest('Custom discounts not enabled for this cart', 'discount_settings');
  }
}

export function cartDiscountRoutes(ctx: ServiceContext, level: DiscountLevel): FastifyPluginAsync {
  const { db } = ctx;
  // The official JS SDK posts item discounts to `…/items/{itemID}//custom-discounts`: the
  // router's ignoreDuplicateSlashes (app.ts) sends that here too.
  const path =
    level === 'cart'
      ? '/carts/:cartId/custom-discounts'
      : '/carts/:cartId/items/:itemId/custom-discounts';

  /** The cart of the request and, on the item level, its item's id (null on the cart's). */
  function target(
    storeId: string,
    params: DiscountParams,
  ): { state: CartState; itemId: string | null } {
    const state = loadCart(db, storeId, params.cartId, ctx.clock());
    const itemId = params.itemId === undefined ? null : findItem(state, params.itemId).id;
    return { state, itemId };
  }

  function add(storeId: string, params: DiscountParams, body: unknown) {
    const { state, itemId } = target(storeId, params);
    requireDiscountsEnabled(state);
    const input = parseCustomDiscount(body, state.cart.currency, false);
    if (discountsOn(state, itemId).length >= MAX_CUSTOM_DISCOUNTS) {
      const where = itemId === null ? 'this cart' : 'this item';
      throw unprocessable(
        `Maximum of ${MAX_CUSTOM_DISCOUNTS} custom discounts reached for ${where}.`,
        'data',
      );
    }
    if (itemId === null && state.items.length === 0) {
      throw unprocessable(
        'This cart is empty: add an item before adding a cart-level custom discount.',
        'data',
      );
    }
    const now = ctx.timestamp();
    const row: DiscountRow = {
      id: newId(),
      cart_id: state.cart.id,
      item_id: itemId,
      ...input,
      created_at: now,
      updated_at: now,
    };
    insertDiscount(db, storeId, row, now);
    touchCart(db, state.cart.id, now);
    emitCartUpdated(db, storeId, state.cart.id, ctx.clock());
    return presentDiscount(row, state.cart.currency);
  }

  function change(storeId: string, params: DiscountParams, discountId: string, body: unknown) {
    const { state, itemId } = target(storeId, params);
    const existing = findDiscount(state, discountId, itemId);
    requireDiscountsEnabled(state);
    const input = parseCustomDiscount(body, state.cart.currency, true);
    const now = ctx.timestamp();
    const row: DiscountRow = { ...existing, ...input, updated_at: now };
    updateDiscount(db, row, now);
    touchCart(db, state.cart.id, now);
    emitCartUpdated(db, storeId, state.cart.id, ctx.clock());
    return presentDiscount(row, state.cart.currency);
  }

  function remove(storeId: string, params: DiscountParams, discountId: string): void {
    const { state, itemId } = target(storeId, params);
    const existing = findDiscount(state, discountId, itemId);
    deleteDiscount(db, existing.id);
    touchCart(db, state.cart.id, ctx.timestamp());
    emitCartUpdated(db, storeId, state.cart.id, ctx.clock());
  }

  return async (app) => {
    app.post<{ Params: DiscountParams }>(path, async (request, reply) => {
      const { store, params, body } = request;
      const data = db.transaction(() => add(store.id, params, body))();
      reply.code(201);
      return { data };
    });

    app.put<{ Params: DiscountParams & { discountId: string } }>(
      `${path}/:discountId`,
      async (request) => {
        const { store, params, body } = request;
        return { data: db.transaction(() => change(store.id, params, params.discountId, body))() };
      },
    );

    app.delete<{ Params: DiscountParams & { discountId: string } }>(
      `${path}/:discountId`,
      async (request, reply) => {
        const { store, params } = request;
        db.transaction(() => remove(store.id, params, params.discountId))();
        return reply.code(204).send();
      },
    );
  };
}
