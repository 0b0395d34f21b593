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
import { cartChangePayload, cartIdField, writeItems } from './cart-write.ts';
import { idKind, judgeId } from './kit/ids.ts';
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

interface CodeInput {
  cartId: string;
  code: string;
}

/** One of the two writes: its names, texts and the upstream request it makes. */
function defineCodeWrite(write: {
  name: 'applyCartPromotionCode' | 'removeCartPromotionCode';
  typeName: string;
  description: string;
  input: string;
  payload: string;
  request: (cartId: string, code: string) => Parameters<typeof writeItems>[2];
}): void {
  const Input = builder.inputRef<CodeInput>(`${write.typeName}Input`).implement({
    description: write.input,
    fields: (t) => ({
      ...cartIdField(t),
      code: t.string({
        required: true,
        description: 'The code: 1 to 64 letters, digits, "-", "_" or "." (any case).',
      }),
    }),
  });
  const Payload = cartChangePayload(`${write.typeName}Payload`, write.payload);
  defineMutation(write.name, {
    description: write.description,
    input: Input,
    payload: Payload,
    resolve: (input, context) => {
      const cartId = judgeId(input.cartId, 'input.cartId', idKind('Cart', true, 'cart'));
      const code = judgeCode(input.code, 'input.code');
      return writeItems(context, cartId, write.request(cartId, code));
    },
  });
}

defineCodeWrite({
  name: 'applyCartPromotionCode',
  typeName: 'ApplyCartPromotionCode',
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
  typeName: 'RemoveCartPromotionCode',
  description: 'Removes a promotion code from a cart (DELETE /v2/carts/{cartID}/discounts/{code}).',
  input: 'The promotion code to take off a cart.',
  payload: 'The cart without the code’s discount.',
  request: (cartId, code) => ({ method: 'DELETE', segments: ['carts', cartId, 'discounts', code] }),
});
