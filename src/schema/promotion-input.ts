/**
 * Judges of promotion input, before any upstream call: codes (length and characters, as the
 * embedded service takes them), amounts (1 to MAX_AMOUNT minor units), percentages (0–100),
 * currencies, SKU lists and a start before the end. Each refusal is BAD_USER_INPUT naming the
 * field.
 */

import { BadUserInputError } from '../upstream/errors.ts';
import { MAX_AMOUNT } from './rows.ts';

export const MAX_CODES = 100;
export const MAX_SKUS = 100;
export const MAX_CURRENCIES = 20;
export const MAX_USES = 1_000_000_000;
const CODE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const CURRENCY = /^[A-Za-z]{3}$/;

const refuse = (field: string, message: string): never => {
  throw new BadUserInputError(`${field} ${message}`, { field });
};

/** A promotion code: 1 to 64 letters, digits, `-`, `_` or `.`, starting with a letter or digit. */
export function judgeCode(value: string, field: string): string {
  if (!CODE.test(value)) {
    refuse(
      field,
      'must be 1 to 64 letters, digits, "-", "_" or ".", starting with a letter or digit',
    );
  }
  return value;
}

export function judgeAmount(value: number, field: string, min = 1): number {
  if (!Number.isInteger(value) || value < min || value > MAX_AMOUNT) {
    refuse(field, `must be an integer number of minor units from ${min} to ${MAX_AMOUNT}`);
  }
  return value;
}

export function judgePercent(value: number, field: string): number {
  if (!Number.isFinite(value) || value < 0 || value > 100) refuse(field, 'must be from 0 to 100');
  return value;
}

export function judgeCurrency(value: string, field: string): string {
  if (!CURRENCY.test(value)) refuse(field, 'must be a 3-letter currency code');
  return value.toUpperCase();
}

export function judgeCount(value: number, field: string, max = MAX_USES): number {
  if (!Number.isInteger(value) || value < 1 || value > max) {
    refuse(field, `must be an integer from 1 to ${max}`);
  }
  return value;
}

export function judgeSkus(values: readonly string[], field: string): string[] {
  if (values.length === 0 || values.length > MAX_SKUS) {
    refuse(field, `must hold 1 to ${MAX_SKUS} SKUs`);
  }
  return values.map((sku, i) => {
    if (sku.trim() === '' || sku.length > 255)
      refuse(`${field}[${i}]`, 'must be 1 to 255 characters');
    return sku;
  });
}

export interface CurrencyAmount {
  currency: string;
  amount: number;
}

/** `[{currency, amount}]` as the v2 body's list, each judged; `min` the smallest amount. */
export function judgeCurrencyAmounts(
  values: readonly CurrencyAmount[],
  field: string,
  min = 1,
): CurrencyAmount[] {
  if (values.length === 0 || values.length > MAX_CURRENCIES) {
    refuse(field, `must hold 1 to ${MAX_CURRENCIES} currencies`);
  }
  const seen = new Set<string>();
  return values.map((value, i) => {
    const currency = judgeCurrency(value.currency, `${field}[${i}].currency`);
    if (seen.has(currency)) refuse(`${field}[${i}].currency`, 'is listed twice');
    seen.add(currency);
    return { currency, amount: judgeAmount(value.amount, `${field}[${i}].amount`, min) };
  });
}

/** A start strictly before the end (DateTime values, already ISO). */
export function judgeWindow(start: string, end: string, field: string): void {
  if (Date.parse(end) <= Date.parse(start)) refuse(field, 'must be after input.start');
}
