/**
 * Cart, its items, their custom discounts (seed endpoint 2) and totals, plus Money. The cart and
 * its items are two upstream GETs (`/carts/{id}` and `/carts/{id}/items`); the items call is made
 * only when a query selects items.
 */

import { expectResource, isJsonObject, type JsonObject } from '../upstream/client.ts';
import { BadUserInputError, UpstreamUnavailableError } from '../upstream/errors.ts';
import type { GatewayContext } from '../upstream/session.ts';
import { builder } from './builder.ts';
import { nullWhenNotFound } from './lookups.ts';
import {
  judgeCartId,
  judgeNonEmpty,
  judgeUuid,
  type MoneyShape,
  readInt,
  readMoney,
  readObject,
  readOptionalString,
  readString,
  readTimestamps,
} from './rows.ts';

export const MoneyRef = builder.objectRef<MoneyShape>('Money').implement({
  description: 'An amount of money in minor units (cents), with its currency.',
  fields: (t) => ({
    amount: t.exposeInt('amount', {
      description: 'Amount in minor units of the currency (e.g. -1000 = -$10.00).',
    }),
    currency: t.exposeString('currency', { description: 'ISO 4217 currency code.' }),
    formatted: t.exposeString('formatted', { description: 'Display form, e.g. "-$10.00".' }),
  }),
});

export interface CustomDiscountShape {
  id: string;
  type: string;
  amount: MoneyShape;
  description: string;
  discountCode: string;
  discountEngine: string;
  externalId: string;
}

export function toCustomDiscount(row: JsonObject): CustomDiscountShape {
  return {
    id: readString(row, 'id', 'custom_discount'),
    type: readString(row, 'type', 'custom_discount'),
    amount: readMoney(row.amount, 'custom_discount.amount'),
    description: readString(row, 'description', 'custom_discount'),
    discountCode: readString(row, 'discount_code', 'custom_discount'),
    discountEngine: readString(row, 'discount_engine', 'custom_discount'),
    externalId: readString(row, 'external_id', 'custom_discount'),
  };
}

export const CustomDiscountRef = builder.objectRef<CustomDiscountShape>('CustomDiscount');
CustomDiscountRef.implement({
  description: 'A discount on a cart item applied from an external discount engine.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Upstream id of the custom discount (uuid).' }),
    type: t.exposeString('type', { description: 'Always `custom_discount`.' }),
    amount: t.expose('amount', {
      type: MoneyRef,
      description: 'The discount (negative), in the cart’s currency.',
    }),
    description: t.exposeString('description', { description: 'What the discount is.' }),
    discountCode: t.exposeString('discountCode', { description: 'The code that was used.' }),
    discountEngine: t.exposeString('discountEngine', {
      description: 'The system the discount comes from.',
    }),
    externalId: t.exposeString('externalId', {
      description: 'The discount’s id in that system.',
    }),
  }),
});

export interface CartTotalsShape {
  withTax: MoneyShape;
  withoutTax: MoneyShape;
  tax: MoneyShape | null;
  discount: MoneyShape;
  withoutDiscount: MoneyShape;
}

function toTotals(
  displayPrice: JsonObject,
  type: string,
  pick?: 'unit' | 'value',
): CartTotalsShape {
  const read = (key: string) => {
    const value = displayPrice[key];
    return readMoney(pick && isJsonObject(value) ? value[pick] : value, `${type}.${key}`);
  };
  return {
    withTax: read('with_tax'),
    withoutTax: read('without_tax'),
    tax: displayPrice.tax === undefined ? null : read('tax'),
    discount: read('discount'),
    withoutDiscount: read('without_discount'),
  };
}

const CartTotalsRef = builder.objectRef<CartTotalsShape>('CartTotals').implement({
  description: 'Totals with every discount applied (upstream `meta.display_price`).',
  fields: (t) => ({
    withTax: t.expose('withTax', { type: MoneyRef, description: 'Total including tax.' }),
    withoutTax: t.expose('withoutTax', { type: MoneyRef, description: 'Total before tax.' }),
    tax: t.expose('tax', { type: MoneyRef, nullable: true, description: 'Tax, when reported.' }),
    discount: t.expose('discount', {
      type: MoneyRef,
      description: 'All applied discounts (zero or negative).',
    }),
    withoutDiscount: t.expose('withoutDiscount', {
      type: MoneyRef,
      description: 'Total before any discount.',
    }),
  }),
});

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
}

/**
 * An item's (or the cart's) discounts: inline `custom_discounts` (the embedded service) or, as the production
 * API returns them with `include=custom_discounts`, referenced from `included`.
 */
function itemDiscounts(row: JsonObject, included: Map<string, JsonObject>): CustomDiscountShape[] {
  if (Array.isArray(row.custom_discounts)) {
    return row.custom_discounts.map((d) => {
      if (!isJsonObject(d)) throw invalid('cart_item.custom_discounts');
      return toCustomDiscount(d);
    });
  }
  const relationships = isJsonObject(row.relationships) ? row.relationships : {};
  const related = isJsonObject(relationships.custom_discounts)
    ? relationships.custom_discounts.data
    : undefined;
  if (!Array.isArray(related)) return [];
  return related.map((ref) => {
    const id = isJsonObject(ref) ? ref.id : undefined;
    const found = typeof id === 'string' ? included.get(id) : undefined;
    if (found === undefined) throw invalid('cart_item.custom_discounts reference');
    return toCustomDiscount(found);
  });
}

function invalid(what: string): UpstreamUnavailableError {
  return new UpstreamUnavailableError(`The commerce service sent an unusable answer (${what})`, {
    reason: 'invalid-body',
  });
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
    customDiscounts: itemDiscounts(row, included),
  };
}

const CartItemRef = builder.objectRef<CartItemShape>('CartItem').implement({
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

export interface CartShape {
  upstreamId: string;
  customDiscounts: CustomDiscountShape[];
  name: string | null;
  description: string | null;
  customDiscountsEnabled: boolean | null;
  totals: CartTotalsShape;
  createdAt: string | null;
  updatedAt: string | null;
}

function toCart(row: JsonObject, included: Map<string, JsonObject>): CartShape {
  const meta = readObject(row, 'meta', 'cart');
  const settings = isJsonObject(row.discount_settings) ? row.discount_settings : {};
  const hasTimestamps = isJsonObject(meta.timestamps);
  const timestamps = hasTimestamps ? readTimestamps(row, 'cart') : null;
  return {
    upstreamId: readString(row, 'id', 'cart'),
    customDiscounts: itemDiscounts(row, included),
    name: readOptionalString(row, 'name'),
    description: readOptionalString(row, 'description'),
    customDiscountsEnabled:
      typeof settings.custom_discounts_enabled === 'boolean'
        ? settings.custom_discounts_enabled
        : null,
    totals: toTotals(readObject(meta, 'display_price', 'cart.meta'), 'cart.display_price'),
    createdAt: timestamps?.createdAt ?? null,
    updatedAt: timestamps?.updatedAt ?? null,
  };
}

/** `included.custom_discounts` of a response, by id. */
function includedDiscounts(body: unknown): Map<string, JsonObject> {
  const included = new Map<string, JsonObject>();
  const extra =
    isJsonObject(body) && isJsonObject(body.included) ? body.included.custom_discounts : undefined;
  if (Array.isArray(extra)) {
    for (const d of extra) if (isJsonObject(d) && typeof d.id === 'string') included.set(d.id, d);
  }
  return included;
}

async function fetchCart(context: GatewayContext, cartId: string): Promise<CartShape> {
  const response = await context.get(['carts', cartId], { include: 'custom_discounts' });
  return toCart(expectResource(response), includedDiscounts(response.body));
}

async function fetchCartItems(context: GatewayContext, cartId: string): Promise<CartItemShape[]> {
  const response = await context.get(['carts', cartId, 'items'], {
    include: 'custom_discounts',
  });
  const body = response.body;
  if (!isJsonObject(body) || !Array.isArray(body.data)) throw invalid('cart items');
  const included = includedDiscounts(body);
  return body.data.map((row) => {
    if (!isJsonObject(row)) throw invalid('cart item');
    return toCartItem(row, included);
  });
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
      resolve: (cart, _args, context) => fetchCartItems(context, cart.upstreamId),
    }),
  }),
});

builder.queryField('cart', (t) =>
  t.field({
    type: CartRef,
    nullable: true,
    description: 'One cart by id; null when the store has no such cart.',
    args: { id: t.arg.id({ required: true, description: 'The cart id upstream.' }) },
    resolve: (_root, args, context) =>
      nullWhenNotFound(fetchCart(context, judgeCartId(args.id, 'id'))),
  }),
);

const UpdateCustomDiscountInput = builder.inputType('UpdateCartItemCustomDiscountInput', {
  description: 'New values of a custom discount on a cart item; every field is required.',
  fields: (t) => ({
    cartId: t.id({ required: true, description: 'The cart id upstream.' }),
    cartItemId: t.id({ required: true, description: 'Upstream id of the cart item.' }),
    customDiscountId: t.id({ required: true, description: 'Upstream id of the discount.' }),
    amount: t.int({
      required: true,
      description: 'The discount in minor units of the cart’s currency; must be below zero.',
    }),
    description: t.string({ required: true, description: 'What the discount is.' }),
    discountCode: t.string({ required: true, description: 'The code that was used.' }),
    discountEngine: t.string({
      required: true,
      description: 'The system the discount is applied from.',
    }),
    externalId: t.string({ required: true, description: 'The discount’s id in that system.' }),
  }),
});

const UpdateCustomDiscountPayload = builder
  .objectRef<{ customDiscount: CustomDiscountShape }>('UpdateCartItemCustomDiscountPayload')
  .implement({
    description: 'The custom discount after the update.',
    fields: (t) => ({
      customDiscount: t.expose('customDiscount', {
        type: CustomDiscountRef,
        description: 'The discount as stored, its amount as amount, currency and formatted.',
      }),
    }),
  });

builder.mutationField('updateCartItemCustomDiscount', (t) =>
  t.field({
    type: UpdateCustomDiscountPayload,
    description:
      'Replaces a custom discount on a cart item (PUT /v2/carts/{cartID}/items/{cartitemID}/' +
      'custom-discounts/{customdiscountID}).',
    args: {
      input: t.arg({ type: UpdateCustomDiscountInput, required: true, description: 'The change.' }),
    },
    resolve: async (_root, { input }, context) => {
      const cartId = judgeCartId(input.cartId, 'input.cartId');
      const itemId = judgeUuid(input.cartItemId, 'input.cartItemId');
      const discountId = judgeUuid(input.customDiscountId, 'input.customDiscountId');
      if (input.amount >= 0) {
        throw new BadUserInputError('input.amount must be less than zero (a discount)', {
          field: 'input.amount',
        });
      }
      const data = {
        type: 'custom_discount',
        amount: input.amount,
        description: judgeNonEmpty(input.description, 'input.description'),
        discount_code: judgeNonEmpty(input.discountCode, 'input.discountCode'),
        discount_engine: judgeNonEmpty(input.discountEngine, 'input.discountEngine'),
        external_id: judgeNonEmpty(input.externalId, 'input.externalId'),
      };
      const response = await context.write({
        method: 'PUT',
        segments: ['carts', cartId, 'items', itemId, 'custom-discounts', discountId],
        body: { data },
      });
      return { customDiscount: toCustomDiscount(expectResource(response)) };
    },
  }),
);
