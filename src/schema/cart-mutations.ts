/**
 * The storefront's cart writes: create a cart, add, change and remove its items, delete it
 * (its custom discounts: custom-discount-mutations.ts; checkout: order.ts). Every input is judged
 * before any call; the payloads read the cart after the write (cart-write.ts).
 */

import type { JsonObject } from '../upstream/client.ts';
import { expectResource } from '../upstream/client.ts';
import { BadUserInputError } from '../upstream/errors.ts';
import { builder } from './builder.ts';
import { CartRef, type CartShape, toCart } from './cart.ts';
import { cartChangePayload, cartIdField, cartItemIdField, writeItems } from './cart-write.ts';
import { idKind, judgeId } from './kit/ids.ts';
import { defineMutation, definePayload } from './kit/mutation.ts';
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

const CreateCartInput = builder.inputType('CreateCartInput', {
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
});

const CreateCartPayload = definePayload<{ cart: () => CartShape }>('CreateCartPayload', {
  description: 'The cart that was created.',
  fields: (t) => ({
    cart: t.field({
      type: CartRef,
      nullable: true,
      description:
        'The new cart (empty, totals zero); null, with a WRITE_COMMITTED error, when it was ' +
        'created but the answer was unusable.',
      resolve: (payload) => payload.cart(),
    }),
  }),
});

defineMutation('createCart', {
  description: 'Creates a cart (POST /v2/carts).',
  input: CreateCartInput,
  payload: CreateCartPayload,
  resolve: async (input, context) => {
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
    const response = await context.write({
      method: 'POST',
      segments: ['carts'],
      body: { data },
      ...(currency ? { headers: { 'x-moltin-currency': currency.toUpperCase() } } : {}),
    });
    return { cart: () => toCart(expectResource(response), new Map()) };
  },
});

// items ---------------------------------------------------------------------------------------

const CustomItemPriceInput = builder.inputType('CustomItemPriceInput', {
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

const AddCartCustomItemInput = builder.inputType('AddCartCustomItemInput', {
  description: 'A custom item (not from a catalog) to add to a cart.',
  fields: (t) => ({
    ...cartIdField(t),
    name: t.string({ required: true, description: 'Item name.' }),
    sku: t.string({ required: true, description: 'Stock keeping unit.' }),
    description: t.string({ required: false, description: 'Item description.' }),
    quantity: t.int({ required: true, description: `Units, 1 to ${MAX_QUANTITY}.` }),
    price: t.field({ type: CustomItemPriceInput, required: true, description: 'Unit price.' }),
  }),
});

const AddCartCustomItemPayload = cartChangePayload(
  'AddCartCustomItemPayload',
  'The cart with the new item.',
);

defineMutation('addCartCustomItem', {
  description: 'Adds a custom item to a cart (POST /v2/carts/{cartID}/items).',
  input: AddCartCustomItemInput,
  payload: AddCartCustomItemPayload,
  resolve: (input, context) => {
    const cartId = judgeId(input.cartId, 'input.cartId', idKind('Cart', true, 'cart'));
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

const UpdateCartItemInput = builder.inputType('UpdateCartItemInput', {
  description: 'A new quantity for a cart item; 0 removes it.',
  fields: (t) => ({
    ...cartIdField(t),
    ...cartItemIdField(t),
    quantity: t.int({ required: true, description: `Units, 0 (remove) to ${MAX_QUANTITY}.` }),
  }),
});

const UpdateCartItemPayload = cartChangePayload(
  'UpdateCartItemPayload',
  'The cart after the change.',
);

defineMutation('updateCartItem', {
  description: 'Changes the quantity of a cart item (PUT /v2/carts/{cartID}/items/{itemID}).',
  input: UpdateCartItemInput,
  payload: UpdateCartItemPayload,
  resolve: (input, context) => {
    const cartId = judgeId(input.cartId, 'input.cartId', idKind('Cart', true, 'cart'));
    const itemId = judgeId(input.cartItemId, 'input.cartItemId', idKind('CartItem', false));
    const quantity = judgeQuantity(input.quantity, 'input.quantity', 0);
    return writeItems(context, cartId, {
      method: 'PUT',
      segments: ['carts', cartId, 'items', itemId],
      body: { data: { type: 'cart_item', quantity } },
    });
  },
});

const RemoveCartItemInput = builder.inputType('RemoveCartItemInput', {
  description: 'The cart item to remove (its custom discounts go with it).',
  fields: (t) => ({
    ...cartIdField(t),
    ...cartItemIdField(t),
  }),
});

const RemoveCartItemPayload = cartChangePayload(
  'RemoveCartItemPayload',
  'The cart without the item.',
);

defineMutation('removeCartItem', {
  description: 'Removes an item from a cart (DELETE /v2/carts/{cartID}/items/{itemID}).',
  input: RemoveCartItemInput,
  payload: RemoveCartItemPayload,
  resolve: (input, context) => {
    const cartId = judgeId(input.cartId, 'input.cartId', idKind('Cart', true, 'cart'));
    const itemId = judgeId(input.cartItemId, 'input.cartItemId', idKind('CartItem', false));
    return writeItems(context, cartId, {
      method: 'DELETE',
      segments: ['carts', cartId, 'items', itemId],
    });
  },
});

// deleteCart ----------------------------------------------------------------------------------

const DeleteCartInput = builder.inputType('DeleteCartInput', {
  description: 'The cart to delete, with its items and discounts.',
  fields: cartIdField,
});

const DeleteCartPayload = definePayload<{ deletedId: string }>('DeleteCartPayload', {
  description: 'The id of the cart that was deleted.',
  fields: (t) => ({
    deletedId: t.exposeID('deletedId', { description: 'Upstream id of the cart.' }),
  }),
});

defineMutation('deleteCart', {
  description: 'Deletes a cart (DELETE /v2/carts/{cartID}); its orders stay.',
  input: DeleteCartInput,
  payload: DeleteCartPayload,
  resolve: async (input, context) => {
    const cartId = judgeId(input.cartId, 'input.cartId', idKind('Cart', true, 'cart'));
    await context.write({ method: 'DELETE', segments: ['carts', cartId] });
    return { deletedId: cartId };
  },
});
