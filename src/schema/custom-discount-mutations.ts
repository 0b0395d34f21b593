/**
 * The custom discount writes: add, update and delete, on the whole cart and on one of its items.
 */

import { expectResource } from '../upstream/client.ts';
import { builder } from './builder.ts';
import { type CartChange, cartChangePayload, type InputFieldBuilder } from './cart-write.ts';
import {
  CustomDiscountRef,
  type CustomDiscountShape,
  toCustomDiscount,
} from './custom-discount.ts';
import { judgeDiscountAmount } from './money.ts';
import { judgeCartId, judgeNonEmpty, judgeUuid } from './rows.ts';

interface DiscountChange extends CartChange {
  customDiscount: () => CustomDiscountShape;
}

function discountPayload(name: string, description: string) {
  return cartChangePayload<DiscountChange>(name, description, (t) => ({
    customDiscount: t.field({
      type: CustomDiscountRef,
      nullable: true,
      description:
        'The discount as stored, its amount as amount, currency and formatted (null, with a ' +
        'WRITE_COMMITTED error, when the write happened but its answer was unusable).',
      resolve: (change) => change.customDiscount(),
    }),
  }));
}

interface DeletedDiscount extends CartChange {
  deletedCustomDiscountId: string;
}

function deletedDiscountPayload(name: string, description: string) {
  return cartChangePayload<DeletedDiscount>(name, description, (t) => ({
    deletedCustomDiscountId: t.exposeID('deletedCustomDiscountId', {
      description: 'Upstream id of the discount that was removed.',
    }),
  }));
}

interface DiscountInput {
  amount: number;
  description: string;
  discountCode: string;
  discountEngine: string;
  externalId: string;
}

/** The v2 body of a custom discount, every field judged before any call. */
function discountBody(input: DiscountInput) {
  return {
    data: {
      type: 'custom_discount',
      amount: judgeDiscountAmount(input.amount, 'input.amount'),
      description: judgeNonEmpty(input.description, 'input.description'),
      discount_code: judgeNonEmpty(input.discountCode, 'input.discountCode'),
      discount_engine: judgeNonEmpty(input.discountEngine, 'input.discountEngine'),
      external_id: judgeNonEmpty(input.externalId, 'input.externalId'),
    },
  };
}

/** The five fields every custom discount write takes, all required (the seed's rule). */
const discountInputFields = (t: InputFieldBuilder) => ({
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
});

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

const UpdateCustomDiscountPayload = discountPayload(
  'UpdateCartItemCustomDiscountPayload',
  'The custom discount after the update, and the cart it changed.',
);

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
      const data = {
        type: 'custom_discount',
        amount: judgeDiscountAmount(input.amount, 'input.amount'),
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
      return { cartId, customDiscount: () => toCustomDiscount(expectResource(response)) };
    },
  }),
);

// custom discounts ----------------------------------------------------------------------------

const AddCartItemCustomDiscountInput = builder.inputType('AddCartItemCustomDiscountInput', {
  description:
    'A custom discount for a cart item; every field is required. At most five per item, and ' +
    'only on a cart with custom discounts enabled (the upstream judges those two).',
  fields: (t) => ({
    cartId: t.id({ required: true, description: 'The cart id upstream.' }),
    cartItemId: t.id({ required: true, description: 'Upstream id of the cart item.' }),
    ...discountInputFields(t),
  }),
});

const AddCartItemCustomDiscountPayload = discountPayload(
  'AddCartItemCustomDiscountPayload',
  'The new item discount and the cart it changed.',
);

builder.mutationField('addCartItemCustomDiscount', (t) =>
  t.field({
    type: AddCartItemCustomDiscountPayload,
    description:
      'Adds a custom discount to a cart item (POST /v2/carts/{cartID}/items/{itemID}/custom-discounts).',
    args: {
      input: t.arg({
        type: AddCartItemCustomDiscountInput,
        required: true,
        description: 'The discount.',
      }),
    },
    resolve: async (_root, { input }, context) => {
      const cartId = judgeCartId(input.cartId, 'input.cartId');
      const itemId = judgeUuid(input.cartItemId, 'input.cartItemId');
      const body = discountBody(input);
      const response = await context.write({
        method: 'POST',
        segments: ['carts', cartId, 'items', itemId, 'custom-discounts'],
        body,
      });
      return { cartId, customDiscount: () => toCustomDiscount(expectResource(response)) };
    },
  }),
);

const DeleteCartItemCustomDiscountInput = builder.inputType('DeleteCartItemCustomDiscountInput', {
  description: 'The item discount to remove.',
  fields: (t) => ({
    cartId: t.id({ required: true, description: 'The cart id upstream.' }),
    cartItemId: t.id({ required: true, description: 'Upstream id of the cart item.' }),
    customDiscountId: t.id({ required: true, description: 'Upstream id of the discount.' }),
  }),
});

const DeleteCartItemCustomDiscountPayload = deletedDiscountPayload(
  'DeleteCartItemCustomDiscountPayload',
  'The removed item discount’s id and the cart it changed.',
);

builder.mutationField('deleteCartItemCustomDiscount', (t) =>
  t.field({
    type: DeleteCartItemCustomDiscountPayload,
    description:
      'Removes a custom discount from a cart item (DELETE /v2/carts/{cartID}/items/{itemID}/' +
      'custom-discounts/{id}).',
    args: {
      input: t.arg({
        type: DeleteCartItemCustomDiscountInput,
        required: true,
        description: 'The discount.',
      }),
    },
    resolve: async (_root, { input }, context) => {
      const cartId = judgeCartId(input.cartId, 'input.cartId');
      const itemId = judgeUuid(input.cartItemId, 'input.cartItemId');
      const discountId = judgeUuid(input.customDiscountId, 'input.customDiscountId');
      await context.write({
        method: 'DELETE',
        segments: ['carts', cartId, 'items', itemId, 'custom-discounts', discountId],
      });
      return { cartId, deletedCustomDiscountId: discountId };
    },
  }),
);

const AddCartCustomDiscountInput = builder.inputType('AddCartCustomDiscountInput', {
  description:
    'A custom discount on the whole cart; every field is required. At most five per cart, ' +
    'only on a cart with custom discounts enabled and at least one item (the upstream judges).',
  fields: (t) => ({
    cartId: t.id({ required: true, description: 'The cart id upstream.' }),
    ...discountInputFields(t),
  }),
});

const AddCartCustomDiscountPayload = discountPayload(
  'AddCartCustomDiscountPayload',
  'The new cart discount and the cart it changed.',
);

builder.mutationField('addCartCustomDiscount', (t) =>
  t.field({
    type: AddCartCustomDiscountPayload,
    description: 'Adds a cart-level custom discount (POST /v2/carts/{cartID}/custom-discounts).',
    args: {
      input: t.arg({
        type: AddCartCustomDiscountInput,
        required: true,
        description: 'The discount.',
      }),
    },
    resolve: async (_root, { input }, context) => {
      const cartId = judgeCartId(input.cartId, 'input.cartId');
      const body = discountBody(input);
      const response = await context.write({
        method: 'POST',
        segments: ['carts', cartId, 'custom-discounts'],
        body,
      });
      return { cartId, customDiscount: () => toCustomDiscount(expectResource(response)) };
    },
  }),
);

const UpdateCartCustomDiscountInput = builder.inputType('UpdateCartCustomDiscountInput', {
  description: 'New values of a cart-level custom discount; every field is required.',
  fields: (t) => ({
    cartId: t.id({ required: true, description: 'The cart id upstream.' }),
    customDiscountId: t.id({ required: true, description: 'Upstream id of the discount.' }),
    ...discountInputFields(t),
  }),
});

const UpdateCartCustomDiscountPayload = discountPayload(
  'UpdateCartCustomDiscountPayload',
  'The cart discount after the update and the cart it changed.',
);

builder.mutationField('updateCartCustomDiscount', (t) =>
  t.field({
    type: UpdateCartCustomDiscountPayload,
    description:
      'Replaces a cart-level custom discount (PUT /v2/carts/{cartID}/custom-discounts/{id}).',
    args: {
      input: t.arg({
        type: UpdateCartCustomDiscountInput,
        required: true,
        description: 'The change.',
      }),
    },
    resolve: async (_root, { input }, context) => {
      const cartId = judgeCartId(input.cartId, 'input.cartId');
      const discountId = judgeUuid(input.customDiscountId, 'input.customDiscountId');
      const body = discountBody(input);
      const response = await context.write({
        method: 'PUT',
        segments: ['carts', cartId, 'custom-discounts', discountId],
        body,
      });
      return { cartId, customDiscount: () => toCustomDiscount(expectResource(response)) };
    },
  }),
);

const DeleteCartCustomDiscountInput = builder.inputType('DeleteCartCustomDiscountInput', {
  description: 'The cart-level discount to remove.',
  fields: (t) => ({
    cartId: t.id({ required: true, description: 'The cart id upstream.' }),
    customDiscountId: t.id({ required: true, description: 'Upstream id of the discount.' }),
  }),
});

const DeleteCartCustomDiscountPayload = deletedDiscountPayload(
  'DeleteCartCustomDiscountPayload',
  'The removed cart discount’s id and the cart it changed.',
);

builder.mutationField('deleteCartCustomDiscount', (t) =>
  t.field({
    type: DeleteCartCustomDiscountPayload,
    description:
      'Removes a cart-level custom discount (DELETE /v2/carts/{cartID}/custom-discounts/{id}).',
    args: {
      input: t.arg({
        type: DeleteCartCustomDiscountInput,
        required: true,
        description: 'The discount.',
      }),
    },
    resolve: async (_root, { input }, context) => {
      const cartId = judgeCartId(input.cartId, 'input.cartId');
      const discountId = judgeUuid(input.customDiscountId, 'input.customDiscountId');
      await context.write({
        method: 'DELETE',
        segments: ['carts', cartId, 'custom-discounts', discountId],
      });
      return { cartId, deletedCustomDiscountId: discountId };
    },
  }),
);
