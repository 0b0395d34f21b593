/**
 * What every cart write shares (cart-mutations.ts, custom-discount-mutations.ts): the input
 * fields naming the cart and its item, and the payload that shows the cart after the write.
 *
 * What a cart write hands to its payload: the cart is read after the write, lazily, and what
 * the write answered is turned into shapes by the payload's fields, never by the mutation's
 * resolver. Once the write is done nothing may fail the mutation itself: a payload field that
 * cannot be built is null with a WRITE_COMMITTED error (src/gateway/committed-writes.ts).
 */

import type { FieldMap } from '@pothos/core';
import type { UpstreamRequest } from '../upstream/client.ts';
import type { GatewayContext } from '../upstream/session.ts';
import type { builder } from './builder.ts';
import { CART, CartRef, type CartShape, fetchCart } from './cart.ts';
import { toCartItems } from './cart-item.ts';
import { idKind } from './kit/ids.ts';
import { definePayload, type IdFields } from './kit/mutation.ts';

export type InputFieldBuilder = Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0];

/** A cart item is no Node: its id is the upstream one only. */
export const CART_ITEM = idKind('CartItem', false);

/** `cartId`, the first id of every cart write's input. */
export const CART_IDS = { cartId: [CART, 'The cart'] } as const satisfies IdFields<'cartId'>;

/** `cartId` and `cartItemId`: the ids of a write on one item. */
export const CART_ITEM_IDS = {
  ...CART_IDS,
  cartItemId: [CART_ITEM, 'The cart item'],
} as const satisfies IdFields<'cartId' | 'cartItemId'>;

export interface CartChange {
  cartId: string;
  /** The body of an item write (every item of the cart), for the cart's `items`. */
  itemsBody?: unknown;
}

async function changedCart(context: GatewayContext, change: CartChange): Promise<CartShape> {
  const cart = await fetchCart(context, change.cartId);
  return change.itemsBody === undefined
    ? cart
    : { ...cart, preloadedItems: toCartItems(change.itemsBody) };
}

/**
 * An item write (items, promotion codes): its answer is every item of the cart, kept for the
 * payload's cart.
 */
export async function writeItems(
  context: GatewayContext,
  cartId: string,
  request: UpstreamRequest,
): Promise<CartChange> {
  const response = await context.write(request);
  return { cartId, itemsBody: response.body };
}

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/**
 * The payload of a cart write: its own fields (`fields`, none by default) and then `cart`, the
 * cart after the change.
 */
export function cartChangePayload<Change extends CartChange>(
  name: string,
  description: string,
  fields: (t: PothosSchemaTypes.ObjectFieldBuilder<Types, Change>) => FieldMap = () => ({}),
) {
  return definePayload<Change>(name, {
    description,
    fields: (t) => ({
      ...fields(t),
      cart: t.field({
        type: CartRef,
        nullable: true,
        description:
          'The cart after the change, totals with every discount applied (read after the ' +
          'write; one upstream GET, made only when selected). Null, with a WRITE_COMMITTED ' +
          'error, when the write happened but the cart could not be read: do not repeat the ' +
          'write.',
        resolve: (change, _args, context) => changedCart(context, change),
        // One GET: the query cost counts it (src/gateway/query-cost.ts).
        extensions: { upstreamCalls: 1 },
      }),
    }),
  });
}
