/**
 * Promotions on a cart: the Cart's promotion lines and applied codes, and the storefront's two
 * writes, `applyCartPromotionCode` (POST /v2/carts/{id}/items, a `promotion_item`) and
 * `removeCartPromotionCode` (DELETE /v2/carts/{id}/discounts/{code}). Both are item writes of
 * the house pattern (cart-write.ts): the payload's cart, its totals with every discount, is read
 * after the write. A code with no use left is refused upstream (BAD_USER_INPUT, upstream 422)
 * and nothing is applied.
 */

import { builder } from './builder.ts';
import { CartRef } from './cart.ts';
import { CART_IDS, cartChangePayload, writeItems } from './cart-write.ts';
import { defineMutation } from './kit/mutation.ts';
import { PromotionDiscountRef } from './promotion-discount.ts';
import { judgeCode } from './promotion-input.ts';

builder.objectFields(CartRef, (t) => ({
  promotionDiscounts: t.field({
    type: [PromotionDiscountRef],
    description:
      'What promotions take off, line by line and off the subtotal (README, Promotions, for ' +
      'the order in which they and custom discounts apply).',
    resolve: (cart) => cart.promotions.discounts,
  }),
  promotionCodes: t.stringList({
    description: 'The codes applied to the cart, whether their promotion applies now or not.',
    resolve: (cart) => cart.promotions.codes,
  }),
}));

/** One of the two writes: its names, texts and the upstream request it makes. */
function defineCodeWrite(write: {
  name: 'applyCartPromotionCode' | 'removeCartPromotionCode';
  description: string;
  input: string;
  payload: string;
  request: (cartId: string, code: string) => Parameters<typeof writeItems>[2];
}): void {
  const typeName = write.name.charAt(0).toUpperCase() + write.name.slice(1);
  defineMutation(write.name, {
    description: write.description,
    ids: CART_IDS,
    input: {
      description: write.input,
      fields: (t) => ({
        code: t.string({
          required: true,
          description: 'The code: 1 to 64 letters, digits, "-", "_" or "." (any case).',
        }),
      }),
    },
    payload: cartChangePayload(`${typeName}Payload`, write.payload),
    resolve: (input, context, { cartId }) =>
      writeItems(context, cartId, write.request(cartId, judgeCode(input.code, 'input.code'))),
  });
}

defineCodeWrite({
  name: 'applyCartPromotionCode',
  description:
    'Applies a promotion code to a cart (POST /v2/carts/{cartID}/items, a promotion_item). ' +
    'Refused, with nothing applied, when no live promotion has the code or it has no use left.',
  input: 'A promotion code for a cart.',
  payload: 'The cart with the code applied, its totals discounted.',
  request: (cartId, code) => ({
    method: 'POST',
    segments: ['carts', cartId, 'items'],
    body: { data: { type: 'promotion_item', code } },
  }),
});

defineCodeWrite({
  name: 'removeCartPromotionCode',
  description: 'Removes a promotion code from a cart (DELETE /v2/carts/{cartID}/discounts/{code}).',
  input: 'The promotion code to take off a cart.',
  payload: 'The cart without the code’s discount.',
  request: (cartId, code) => ({ method: 'DELETE', segments: ['carts', cartId, 'discounts', code] }),
});
