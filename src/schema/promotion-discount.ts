/**
 * A promotion's discount line on a cart, as the cart's `discounts` carry them upstream (item
 * and cart level, either engine), and the codes the shopper applied. Read from the cart row by
 * cart.ts; shown on Cart by promotion-cart.ts.
 */

import { isJsonObject, type JsonObject } from '../upstream/client.ts';
import { builder } from './builder.ts';
import { MoneyRef } from './money.ts';
import {
  type MoneyShape,
  readBoolean,
  readMoney,
  readOptionalString,
  readString,
  unusable,
} from './rows.ts';

export interface PromotionDiscountShape {
  promotionId: string;
  code: string | null;
  name: string | null;
  amount: MoneyShape;
  source: string;
  isCartDiscount: boolean;
  cartItemId: string | null;
}

export interface CartPromotionsShape {
  discounts: PromotionDiscountShape[];
  codes: string[];
}

export const PromotionDiscountRef = builder
  .objectRef<PromotionDiscountShape>('PromotionDiscount')
  .implement({
    description:
      'What one promotion takes off a cart: off one line (`cartItemId`) or off the subtotal.',
    fields: (t) => ({
      promotionId: t.exposeID('promotionId', { description: 'Upstream id of the promotion.' }),
      code: t.exposeString('code', {
        nullable: true,
        description: 'The code that brought it; null for an automatic promotion.',
      }),
      name: t.exposeString('name', { nullable: true, description: 'The promotion’s name.' }),
      amount: t.expose('amount', {
        type: MoneyRef,
        description: 'The discount, below zero, in the cart’s currency.',
      }),
      source: t.exposeString('source', {
        description: '`promotion` (standard) or `rule-promotion` (Promotions Builder).',
      }),
      isCartDiscount: t.exposeBoolean('isCartDiscount', {
        description: 'Whether it is off the subtotal rather than off one line.',
      }),
      cartItemId: t.exposeID('cartItemId', {
        nullable: true,
        description: 'The line it is off, for a line discount.',
      }),
    }),
  });

function toDiscount(value: unknown): PromotionDiscountShape {
  if (!isJsonObject(value)) throw unusable('cart discount');
  const code = readOptionalString(value, 'code');
  return {
    promotionId: readString(value, 'id', 'cart_discount'),
    code: code === '' ? null : code,
    name: readOptionalString(value, 'name'),
    amount: readMoney(value.amount, 'cart_discount.amount'),
    source: readOptionalString(value, 'promotion_source') ?? 'promotion',
    isCartDiscount: readBoolean(value, 'is_cart_discount', 'cart_discount'),
    cartItemId: readOptionalString(value, 'item_id'),
  };
}

/** The cart row's promotion lines and applied codes; none when the upstream shows none. */
export function readCartPromotions(row: JsonObject): CartPromotionsShape {
  const discounts = Array.isArray(row.discounts) ? row.discounts.map(toDiscount) : [];
  const codes = Array.isArray(row.promotion_codes)
    ? row.promotion_codes.filter((code): code is string => typeof code === 'string')
    : [];
  return { discounts, codes };
}
