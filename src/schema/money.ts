/**
 * Money and the totals of a cart, an item or an order (upstream `display_price`), and the bounds
 * the gateway holds an amount a client sends to. Reading an upstream amount (and its 32-bit
 * bound, MAX_AMOUNT) is rows.ts's `readMoney`.
 */

import { isJsonObject, type JsonObject } from '../upstream/client.ts';
import { BadUserInputError } from '../upstream/errors.ts';
import { builder } from './builder.ts';
import { MAX_AMOUNT, type MoneyShape, readMoney } from './rows.ts';

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

export interface CartTotalsShape {
  withTax: MoneyShape;
  withoutTax: MoneyShape;
  tax: MoneyShape | null;
  discount: MoneyShape;
  withoutDiscount: MoneyShape;
}

/**
 * The totals of a `display_price`; `pick` chooses the `unit` or the `value` (whole line) half of
 * an item's, whose every amount is such a pair.
 */
export function toTotals(
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

export const CartTotalsRef = builder.objectRef<CartTotalsShape>('CartTotals').implement({
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

// ---- amounts a client sends, judged before any call ----

/** A discount: below zero, and no further below than an amount the schema can return. */
export function judgeDiscountAmount(value: number, field: string): number {
  if (!Number.isInteger(value) || value >= 0 || value < -MAX_AMOUNT) {
    throw new BadUserInputError(
      `${field} must be an integer number of minor units from -${MAX_AMOUNT} to -1 (a discount)`,
      { field },
    );
  }
  return value;
}

/**
 * A line (unit price × quantity) must fit Money.amount; the cart's total the upstream judges (it
 * knows the other lines), answering 400 before it writes anything.
 */
export function judgeLineTotal(
  unitAmount: number,
  quantity: number,
  fields: { unitAmount: string; quantity: string },
): void {
  if (unitAmount * quantity > MAX_AMOUNT) {
    throw new BadUserInputError(
      `${fields.quantity} × ${fields.unitAmount} is ${unitAmount * quantity} minor units, ` +
        `above the largest amount (${MAX_AMOUNT})`,
      { field: fields.quantity },
    );
  }
}
