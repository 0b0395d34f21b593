/**
 * CustomDiscount: a discount from an external engine on a cart or on one of its items, and how
 * an upstream answer carries them (inline, or referenced from `included`). Its writes are
 * custom-discount-mutations.ts.
 */

import { isJsonObject, type JsonObject } from '../upstream/client.ts';
import { builder } from './builder.ts';
import { MoneyRef } from './money.ts';
import { type MoneyShape, readMoney, readString, unusable } from './rows.ts';

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

/** `included.custom_discounts` of a response, by id. */
export function includedDiscounts(body: unknown): Map<string, JsonObject> {
  const included = new Map<string, JsonObject>();
  const extra =
    isJsonObject(body) && isJsonObject(body.included) ? body.included.custom_discounts : undefined;
  if (Array.isArray(extra)) {
    for (const d of extra) if (isJsonObject(d) && typeof d.id === 'string') included.set(d.id, d);
  }
  return included;
}

/**
 * An item's (or the cart's) discounts: inline `custom_discounts` (the embedded service) or, as
 * the production API returns them with `include=custom_discounts`, referenced from `included`.
 */
export function attachedDiscounts(
  row: JsonObject,
  included: Map<string, JsonObject>,
): CustomDiscountShape[] {
  if (Array.isArray(row.custom_discounts)) {
    return row.custom_discounts.map((d) => {
      if (!isJsonObject(d)) throw unusable('cart_item.custom_discounts');
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
    if (found === undefined) throw unusable('cart_item.custom_discounts reference');
    return toCustomDiscount(found);
  });
}
