/**
 * The storefront's cart writes: create a cart, add, change and remove its items, delete it
 * (its custom discounts: custom-discount-mutations.ts; checkout: order.ts). Every input is judged
 * before any call; the payloads read the cart after the write (cart-write.ts).
 */

import { expectResource, type JsonObject, type UpstreamRequest } from '../upstream/client.ts';
import { BadUserInputError } from '../upstream/errors.ts';
import { builder } from './builder.ts';
import { CartRef, type CartShape, toCart } from './cart.ts';
import { CART_IDS, CART_ITEM_IDS, cartChangePayload, writeItems } from './cart-write.ts';
import { defineMutation } from './kit/mutation.ts';
import { answerPayload, defineDelete, writeAnswer } from './kit/writes.ts';
import { judgeLineTotal } from './money.ts';
import { judgeNonEmpty } from './rows.ts';

/** Largest quantity of one line the gateway passes on (the embedded service's bound too). */
export const MAX_QUANTITY = 1_000_000;
const CURRENCY = /^[A-Za-z]{3}$/;

export function judgeQuantity(value: number, field: string, min: number): number {
  if (!Number.isInteger(value) || value < min || value > MAX_QUANTITY) {
    throw new BadUserInputError(`${field} must be an integer from ${min} to ${MAX_QUANTITY}`, {
      field,
    });
  }
  return value;
}

function judgeOptional(value: string | null | undefined, field: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (value.length > 255) {
    throw new BadUserInputError(`${field} must be at most 255 characters`, { field });
  }
  return value;
}

// createCart ----------------------------------------------------------------------------------

defineMutation('createCart', {
  description: 'Creates a cart (POST /v2/carts).',
  input: {
    description: 'A new cart. With a customer token (X-Moltin-Customer-Token) it is theirs.',
    fields: (t) => ({
      name: t.string({ required: true, description: 'Cart name.' }),
      description: t.string({ required: false, description: 'Cart description.' }),
      customDiscountsEnabled: t.boolean({
        required: false,
        description: 'Whether custom discounts may be applied; default: the store’s cart setting.',
      }),
      currency: t.string({
        required: false,
        description:
          'ISO 4217 code, sent as the v2 currency header (X-Moltin-Currency); default the store’s.',
      }),
    }),
  },
  payload: answerPayload<CartShape>('CreateCartPayload', {
    description: 'The cart that was created.',
    field: 'cart',
    type: CartRef,
    about:
      'The new cart (empty, totals zero); null, with a WRITE_COMMITTED error, when it was ' +
      'created but the answer was unusable.',
  }),
  resolve: (input, context) => {
    const currency = input.currency ?? undefined;
    if (currency !== undefined && !CURRENCY.test(currency)) {
      throw new BadUserInputError('input.currency must be a 3-letter ISO 4217 code', {
        field: 'input.currency',
      });
    }
    const data: JsonObject = {
      type: 'cart',
      name: judgeNonEmpty(input.name, 'input.name'),
    };
    const description = judgeOptional(input.description, 'input.description');
    if (description !== undefined) data.description = description;
    if (input.customDiscountsEnabled !== null && input.customDiscountsEnabled !== undefined) {
      data.discount_settings = { custom_discounts_enabled: input.customDiscountsEnabled };
    }
    const request: UpstreamRequest = {
      method: 'POST',
      segments: ['carts'],
      body: { data },
      ...(currency ? { headers: { 'x-moltin-currency': currency.toUpperCase() } } : {}),
    };
    return writeAnswer(context, request, (response) => toCart(expectResource(response), new Map()));
  },
});

// items ---------------------------------------------------------------------------------------

export const CustomItemPriceInput = builder.inputType('CustomItemPriceInput', {
  description: 'The unit price of a custom item.',
  fields: (t) => ({
    amount: t.int({
      required: true,
      description: 'Unit price in minor units of the cart’s currency (0 or more).',
    }),
    includesTax: t.boolean({
      required: false,
      description: 'Whether the amount includes tax. Default true.',
    }),
  }),
});

defineMutation('addCartCustomItem', {
  description: 'Adds a custom item to a cart (POST /v2/carts/{cartID}/items).',
  ids: CART_IDS,
  input: {
    description: 'A custom item (not from a catalog) to add to a cart.',
    fields: (t) => ({
      name: t.string({ required: true, description: 'Item name.' }),
      sku: t.string({ required: true, description: 'Stock keeping unit.' }),
      description: t.string({ required: false, description: 'Item description.' }),
      quantity: t.int({ required: true, description: `Units, 1 to ${MAX_QUANTITY}.` }),
      price: t.field({ type: CustomItemPriceInput, required: true, description: 'Unit price.' }),
    }),
  },
  payload: cartChangePayload('AddCartCustomItemPayload', 'The cart with the new item.'),
  resolve: (input, context, { cartId }) => {
    if (input.price.amount < 0) {
      throw new BadUserInputError('input.price.amount must not be negative', {
        field: 'input.price.amount',
      });
    }
    const quantity = judgeQuantity(input.quantity, 'input.quantity', 1);
    judgeLineTotal(input.price.amount, quantity, {
      unitAmount: 'input.price.amount',
      quantity: 'input.quantity',
    });
    const data: JsonObject = {
      type: 'custom_item',
      name: judgeNonEmpty(input.name, 'input.name'),
      sku: judgeNonEmpty(input.sku, 'input.sku'),
      quantity,
      price: { amount: input.price.amount, includes_tax: input.price.includesTax ?? true },
    };
    const description = judgeOptional(input.description, 'input.description');
    if (description !== undefined) data.description = description;
    return writeItems(context, cartId, {
      method: 'POST',
      segments: ['carts', cartId, 'items'],
      body: { data },
    });
  },
});

defineMutation('updateCartItem', {
  description: 'Changes the quantity of a cart item (PUT /v2/carts/{cartID}/items/{itemID}).',
  ids: CART_ITEM_IDS,
  input: {
    description: 'A new quantity for a cart item; 0 removes it.',
    fields: (t) => ({
      quantity: t.int({ required: true, description: `Units, 0 (remove) to ${MAX_QUANTITY}.` }),
    }),
  },
  payload: cartChangePayload('UpdateCartItemPayload', 'The cart after the change.'),
  resolve: (input, context, { cartId, cartItemId }) => {
    const quantity = judgeQuantity(input.quantity, 'input.quantity', 0);
    return writeItems(context, cartId, {
      method: 'PUT',
      segments: ['carts', cartId, 'items', cartItemId],
      body: { data: { type: 'cart_item', quantity } },
    });
  },
});

defineMutation('removeCartItem', {
  description: 'Removes an item from a cart (DELETE /v2/carts/{cartID}/items/{itemID}).',
  ids: CART_ITEM_IDS,
  input: { description: 'The cart item to remove (its custom discounts go with it).' },
  payload: cartChangePayload('RemoveCartItemPayload', 'The cart without the item.'),
  resolve: (_input, context, { cartId, cartItemId }) =>
    writeItems(context, cartId, {
      method: 'DELETE',
      segments: ['carts', cartId, 'items', cartItemId],
    }),
});

defineDelete('deleteCart', {
  description: 'Deletes a cart (DELETE /v2/carts/{cartID}); its orders stay.',
  what: 'cart (with its items and discounts)',
  ids: CART_IDS,
  deleted: 'cartId',
  request: ({ cartId }) => ({ segments: ['carts', cartId] }),
});
