/**
 * Money and the totals of a cart, an item or an order (upstream `display_price`), and the bounds
 * the gateway holds an amount a client sends to. Reading an upstream amount (and its 32-bit
 * bound, MAX_AMOUNT) is rows.ts's `readMoney`.
 */

import { isJsonObject, type JsonObject } from '../upstream/client.ts';
import { BadUserInputError } from '../upstream/errors.ts';
import type { GatewayContext } from '../upstream/session.ts';
import { builder } from './builder.ts';
import { MAX_AMOUNT, type MoneyShape, readMoney } from './rows.ts';

/** A currency's digits after the decimal point (2 for USD, 0 for JPY), as Intl knows them. */
const digitsByCurrency = new Map<string, number>();
function currencyDigits(currency: string): number {
  let digits = digitsByCurrency.get(currency);
  if (digits === undefined) {
    try {
      digits =
        new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions()
          .maximumFractionDigits ?? 2;
    } catch {
      digits = 2;
    }
    digitsByCurrency.set(currency, digits);
  }
  return digits;
}

/** Minor units as a decimal string: -1250 USD → "-12.50", 500 JPY → "500". */
export function decimalOf(amount: number, currency: string): string {
  const digits = currencyDigits(currency);
  const sign = amount < 0 ? '-' : '';
  const units = String(Math.abs(amount)).padStart(digits + 1, '0');
  if (digits === 0) return sign + units;
  return `${sign}${units.slice(0, -digits)}.${units.slice(-digits)}`;
}

/** The first language of an Accept-Language list (`fr-CH, fr;q=0.9` → `fr-CH`), or null. */
function firstLanguage(list: string | undefined): string | null {
  const first = list?.split(',')[0]?.split(';')[0]?.trim();
  if (first === undefined || first === '' || first === '*') return null;
  try {
    return Intl.getCanonicalLocales(first)[0] ?? null;
  } catch {
    return null;
  }
}

/** The operation's language: `@inContext(language:)`, else the caller's Accept-Language. */
function localeOf(context: GatewayContext): string | null {
  const operation = context.operation;
  if (operation.locale === undefined) {
    operation.locale = firstLanguage(
      operation.headers?.['accept-language'] ??
        context.callerHeaders.get('accept-language') ??
        undefined,
    );
  }
  return operation.locale;
}

const formats = new Map<string, Intl.NumberFormat>();
/** `money` written for `locale` (its digits, grouping and symbol), else the upstream's form. */
function formattedFor(money: MoneyShape, locale: string | null): string {
  if (locale === null) return money.formatted;
  const key = `${locale}\u0000${money.currency}`;
  let format = formats.get(key);
  if (format === undefined) {
    try {
      format = new Intl.NumberFormat(locale, { style: 'currency', currency: money.currency });
    } catch {
      return money.formatted;
    }
    if (formats.size > 1000) formats.clear();
    formats.set(key, format);
  }
  return format.format(Number(decimalOf(money.amount, money.currency)));
}

export const MoneyRef = builder.objectRef<MoneyShape>('Money').implement({
  description: 'An amount of money in minor units (cents), with its currency.',
  fields: (t) => ({
    amount: t.exposeInt('amount', {
      description: 'Amount in minor units of the currency (e.g. -1000 = -$10.00).',
    }),
    currency: t.exposeString('currency', { description: 'ISO 4217 currency code.' }),
    decimal: t.string({
      description: 'The amount as a decimal string in the currency\'s units, e.g. "-10.00".',
      resolve: (money) => decimalOf(money.amount, money.currency),
    }),
    formatted: t.string({
      description:
        'Display form, e.g. "-$10.00": in the language of the operation (`@inContext(language:)`, ' +
        'else the Accept-Language header) as Intl writes it for that language, else as the store ' +
        'writes it (its currency template).',
      resolve: (money, _args, context) => formattedFor(money, localeOf(context)),
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
