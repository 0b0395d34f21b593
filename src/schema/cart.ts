/**
 * Cart: a shopping cart with its items, their custom discounts and the totals, as a node, the
 * `cart` query and a connection (a customer's carts, customer.ts). The cart and its items are two
 * upstream GETs (`/carts/{id}` and `/carts/{id}/items`); the items call is made only when a query
 * selects items. Its writes are cart-mutations.ts and custom-discount-mutations.ts, and what they
 * hand their payloads is cart-write.ts.
 */

import { expectResource, isJsonObject, type JsonObject } from '../upstream/client.ts';
import type { GatewayContext } from '../upstream/session.ts';
import { builder } from './builder.ts';
import { CartItemRef, type CartItemShape, fetchCartItems } from './cart-item.ts';
import { defineListArgs, type Listed, pinnedAtField } from './connection.ts';
import {
  attachedDiscounts,
  CustomDiscountRef,
  type CustomDiscountShape,
  includedDiscounts,
} from './custom-discount.ts';
import { ID_INPUTS, idKind, judgeId } from './kit/ids.ts';
import { nullWhenNotFound } from './lookups.ts';
import { CartTotalsRef, type CartTotalsShape, toTotals } from './money.ts';
import { type CartPromotionsShape, readCartPromotions } from './promotion-discount.ts';
import { judgeCartId, readObject, readOptionalString, readString, readTimestamps } from './rows.ts';

export interface CartShape {
  upstreamId: string;
  /** ISO 4217 code of the cart's prices (null when the upstream does not say). */
  currency: string | null;
  customDiscounts: CustomDiscountShape[];
  name: string | null;
  description: string | null;
  customDiscountsEnabled: boolean | null;
  totals: CartTotalsShape;
  createdAt: string | null;
  updatedAt: string | null;
  /** Promotion lines and applied codes (promotion-cart.ts shows them). */
  promotions: CartPromotionsShape;
  /** Items already in hand (an item write answers with all of them); else `items` GETs them. */
  preloadedItems?: CartItemShape[];
}

export function toCart(row: JsonObject, included: Map<string, JsonObject>): CartShape {
  const meta = readObject(row, 'meta', 'cart');
  const settings = isJsonObject(row.discount_settings) ? row.discount_settings : {};
  const hasTimestamps = isJsonObject(meta.timestamps);
  const timestamps = hasTimestamps ? readTimestamps(row, 'cart') : null;
  return {
    upstreamId: readString(row, 'id', 'cart'),
    currency: currencyOf(row, meta),
    customDiscounts: attachedDiscounts(row, included),
    name: readOptionalString(row, 'name'),
    description: readOptionalString(row, 'description'),
    customDiscountsEnabled:
      typeof settings.custom_discounts_enabled === 'boolean'
        ? settings.custom_discounts_enabled
        : null,
    totals: toTotals(readObject(meta, 'display_price', 'cart.meta'), 'cart.display_price'),
    createdAt: timestamps?.createdAt ?? null,
    updatedAt: timestamps?.updatedAt ?? null,
    promotions: readCartPromotions(row),
  };
}

/** `currency`, or the currency of the cart's total (what production's answer always carries). */
function currencyOf(row: JsonObject, meta: JsonObject): string | null {
  if (typeof row.currency === 'string' && row.currency !== '') return row.currency;
  const price = isJsonObject(meta.display_price) ? meta.display_price : {};
  const total = isJsonObject(price.with_tax) ? price.with_tax : {};
  return typeof total.currency === 'string' && total.currency !== '' ? total.currency : null;
}

export async function fetchCart(context: GatewayContext, cartId: string): Promise<CartShape> {
  const response = await context.get(['carts', cartId], { include: 'custom_discounts' });
  return toCart(expectResource(response), includedDiscounts(response.body));
}

export const CartRef = builder.objectRef<CartShape>('Cart');

builder.node(CartRef, {
  description: 'A shopping cart with its items, their custom discounts and the totals.',
  id: { resolve: (cart) => cart.upstreamId },
  loadOne: (id, context) => nullWhenNotFound(fetchCart(context, judgeCartId(id, 'id'))),
  fields: (t) => ({
    upstreamId: t.exposeID('upstreamId', {
      description: 'The cart id upstream; pass it as `cartId`.',
    }),
    name: t.exposeString('name', { nullable: true, description: 'Cart name.' }),
    currency: t.exposeString('currency', {
      nullable: true,
      description:
        'ISO 4217 code of the cart’s prices, fixed when it was created (X-Moltin-Currency or ' +
        '@inContext(currency:)); null when the upstream does not say.',
    }),
    description: t.exposeString('description', {
      nullable: true,
      description: 'Cart description.',
    }),
    customDiscountsEnabled: t.exposeBoolean('customDiscountsEnabled', {
      nullable: true,
      description: 'Whether custom discounts may be applied to this cart.',
    }),
    totals: t.expose('totals', {
      type: CartTotalsRef,
      description: 'Cart totals with every discount applied.',
    }),
    createdAt: t.expose('createdAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Creation time.',
    }),
    updatedAt: t.expose('updatedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Last update time.',
    }),
    customDiscounts: t.expose('customDiscounts', {
      type: [CustomDiscountRef],
      description: 'Custom discounts on the whole cart (item discounts are on each item).',
    }),
    items: t.field({
      type: [CartItemRef],
      description: 'The items of the cart with their custom discounts (one more upstream GET).',
      resolve: (cart, _args, context) =>
        cart.preloadedItems ?? fetchCartItems(context, cart.upstreamId),
      // One GET per cart: the query cost counts it (src/gateway/query-cost.ts).
      extensions: { upstreamCalls: 1 },
    }),
  }),
});

/** A cart: its id is caller-chosen in production (letters, digits, `-`, `_`), not a uuid. */
export const CART = idKind('Cart', true, 'cart');
ID_INPUTS.set('Query.cart(id:)', CART);

builder.queryField('cart', (t) =>
  t.field({
    type: CartRef,
    nullable: true,
    description: 'One cart by id; null when the store has no such cart.',
    args: {
      id: t.arg.id({ required: true, description: 'The cart: a Cart id or its upstreamId.' }),
    },
    resolve: (_root, args, context) =>
      nullWhenNotFound(fetchCart(context, judgeId(args.id, 'id', CART))),
  }),
);

/** A cart in a list (`GET /v2/carts`): the connection needs its timestamps. */
export function toListedCart(row: JsonObject): CartShape & Listed {
  return { ...toCart(row, new Map()), ...readTimestamps(row, 'cart') };
}

export const CartConnection = builder.connectionObject(
  {
    type: CartRef,
    name: 'CartConnection',
    description: 'A page of carts.',
    fields: (t) => ({ pinnedAt: pinnedAtField(t) }),
  },
  { name: 'CartEdge', description: 'One of the carts with its cursor.' },
);
export const cartListArgs = defineListArgs('Cart', 'carts');
