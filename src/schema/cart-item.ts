/**
 * CartItem: a line of a cart, read from `/carts/{id}/items` (also what every item write answers
 * with). Its writes are in cart-mutations.ts.
 */

import { isJsonObject, type JsonObject } from '../upstream/client.ts';
import type { GatewayContext } from '../upstream/session.ts';
import { builder } from './builder.ts';
import { type BundleConfigurationShape, readBundleConfiguration } from './bundle-configuration.ts';
import {
  attachedDiscounts,
  CustomDiscountRef,
  type CustomDiscountShape,
  includedDiscounts,
} from './custom-discount.ts';
import { CartTotalsRef, type CartTotalsShape, toTotals } from './money.ts';
import { readInt, readObject, readOptionalString, readString, unusable } from './rows.ts';

export interface CartItemShape {
  id: string;
  type: string;
  name: string;
  sku: string | null;
  description: string | null;
  quantity: number;
  unitTotals: CartTotalsShape;
  lineTotals: CartTotalsShape;
  customDiscounts: CustomDiscountShape[];
  /** The catalog product of a `cart_item` line (null for a custom or promotion line). */
  productId: string | null;
  bundleConfiguration: BundleConfigurationShape | null;
}

function toCartItem(row: JsonObject, included: Map<string, JsonObject>): CartItemShape {
  const displayPrice = readObject(readObject(row, 'meta', 'cart_item'), 'display_price', 'item');
  return {
    id: readString(row, 'id', 'cart_item'),
    type: readString(row, 'type', 'cart_item'),
    name: readString(row, 'name', 'cart_item'),
    sku: readOptionalString(row, 'sku'),
    description: readOptionalString(row, 'description'),
    quantity: readInt(row, 'quantity', 'cart_item'),
    unitTotals: toTotals(displayPrice, 'cart_item.display_price', 'unit'),
    lineTotals: toTotals(displayPrice, 'cart_item.display_price', 'value'),
    customDiscounts: attachedDiscounts(row, included),
    productId: readOptionalString(row, 'product_id'),
    bundleConfiguration: readBundleConfiguration(row),
  };
}

export const CartItemRef = builder.objectRef<CartItemShape>('CartItem').implement({
  description: 'A line of a cart.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Upstream id of the item; pass it as `cartItemId`.' }),
    type: t.exposeString('type', { description: 'Item kind, e.g. `custom_item`.' }),
    name: t.exposeString('name', { description: 'Item name.' }),
    sku: t.exposeString('sku', { nullable: true, description: 'Stock keeping unit.' }),
    description: t.exposeString('description', {
      nullable: true,
      description: 'Item description.',
    }),
    quantity: t.exposeInt('quantity', { description: 'Units in the cart.' }),
    unitPrice: t.expose('unitTotals', {
      type: CartTotalsRef,
      description: 'Prices of one unit, with its share of the item discounts.',
    }),
    totals: t.expose('lineTotals', {
      type: CartTotalsRef,
      description: 'Prices of the whole line (unit price × quantity, discounts applied).',
    }),
    customDiscounts: t.expose('customDiscounts', {
      type: [CustomDiscountRef],
      description: 'Custom discounts on this item.',
    }),
  }),
});

/** The body of `/carts/{id}/items` (also what every item write answers with) as items. */
export function toCartItems(body: unknown): CartItemShape[] {
  if (!isJsonObject(body) || !Array.isArray(body.data)) throw unusable('cart items');
  const included = includedDiscounts(body);
  return body.data.map((row) => {
    if (!isJsonObject(row)) throw unusable('cart item');
    return toCartItem(row, included);
  });
}

export async function fetchCartItems(
  context: GatewayContext,
  cartId: string,
): Promise<CartItemShape[]> {
  const response = await context.get(['carts', cartId, 'items'], {
    include: 'custom_discounts',
  });
  return toCartItems(response.body);
}
