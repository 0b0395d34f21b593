/**
 * Money in the commerce service: integer minor units plus an ISO 4217 currency code. Pure
 * functions only (no database), so cart totals and formatting are testable in isolation.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The `{amount, currency, formatted}` object every price in a response is shaped as. */
export interface MoneyValue {
  amount: number;
  currency: string;
  formatted: string;
}

/**
 * How a currency's amounts are written: the store's currency record (`/v2/currencies`,
 * currencies/), or a built-in one. `template` holds `{price}` where the number goes.
 */
export interface CurrencyFormat {
  /** `${price}`, `£{price}`, `{price} kr`: the number replaces `{price}`. */
  template: string;
  decimalPoint: string;
  thousandSeparator: string;
  /** Number of minor-unit digits (2 for USD, 0 for JPY): what an amount's integer counts. */
  decimalPlaces: number;
}

const builtIn = (symbol: string, decimalPlaces = 2): CurrencyFormat => ({
  template: `${symbol}{price}`,
  decimalPoint: '.',
  thousandSeparator: ',',
  decimalPlaces,
});

/**
 * Formats of the currencies a storefront most often uses, for a currency the store has no
 * record of (and outside a request: the seed). Anything else falls back to `-10.00 XYZ` (two
 * decimals, the code after the number), which is unambiguous for any code.
 * Not `Intl.NumberFormat`: in `en-US` it writes CHF and SEK with a no-break space, other codes
 * before the number and with their own decimals, so strings clients see would change (docs/benchmarks.md,
 * "Library or hand-written").
 */
const CURRENCY_FORMATS: Readonly<Record<string, CurrencyFormat>> = {
  USD: builtIn('$'),
  EUR: builtIn('€'),
  GBP: builtIn('£'),
  JPY: builtIn('¥', 0),
  CAD: builtIn('CA$'),
  AUD: builtIn('A$'),
  NZD: builtIn('NZ$'),
  CHF: builtIn('CHF '),
  INR: builtIn('₹'),
  CNY: builtIn('CN¥'),
  SEK: builtIn('SEK '),
};

/** The built-in format of a code (`{price} XYZ` for a code without one). */
export function builtInFormat(code: string): CurrencyFormat {
  const upper = code.toUpperCase();
  return CURRENCY_FORMATS[upper] ?? { ...builtIn(''), template: `{price} ${upper}` };
}

/**
 * The store's formats for the request being answered: every `formatted` string of a response
 * (carts, orders, catalogs) is made deep inside presenters that know a currency code but not
 * the store, so the request's async scope carries the store's lookup (app.ts enters it before
 * each handler) instead of threading it through every presenter. Outside a request (the seed,
 * webhook retries) there is no scope and the built-in formats apply.
 */
const formatScope = new AsyncLocalStorage<(code: string) => CurrencyFormat | undefined>();

/** Runs `fn` (and everything it awaits) with `lookup` as the store's currency formats. */
export function runWithCurrencyFormats<T>(
  lookup: (code: string) => CurrencyFormat | undefined,
  fn: () => T,
): T {
  return formatScope.run(lookup, fn);
}

/** The format that applies to `currency` now: the store's record, else the built-in one. */
export function currencyFormat(currency: string): CurrencyFormat {
  const code = currency.toUpperCase();
  return formatScope.getStore()?.(code) ?? builtInFormat(code);
}

export const DEFAULT_CURRENCY = 'USD';

/**
 * The largest amount of minor units any price, discount or total may reach: 2^31 − 1, the
 * largest value of GraphQL's `Int`, which is what a client of the gateway receives
 * (`Money.amount`). Writes are judged against it before anything is stored, so every amount a
 * cart or an order shows fits; discounts may go down to its negation.
 */
export const MAX_AMOUNT = 2_147_483_647;

/** The largest quantity of one cart line. */
export const MAX_QUANTITY = 1_000_000;

/** `1234567` → `1,234,567`: thousands separators for a string of digits. */
function groupThousands(digits: string, separator: string): string {
  if (separator === '') return digits;
  let grouped = digits.slice(0, digits.length % 3 || 3);
  for (let i = grouped.length; i < digits.length; i += 3) {
    grouped += `${separator}${digits.slice(i, i + 3)}`;
  }
  return grouped;
}

/** The unsigned number part of `formatMoney`, for amounts beyond 2^53 minor units. */
function formatLargeAmount(amount: number, format: CurrencyFormat): string {
  // BigInt keeps amounts beyond 2^53 minor units exact (a sum of line totals can get there).
  const decimals = format.decimalPlaces;
  const abs = BigInt(Math.abs(Math.trunc(amount)));
  const scale = 10n ** BigInt(decimals);
  const whole = groupThousands((abs / scale).toString(), format.thousandSeparator);
  return decimals > 0
    ? `${whole}${format.decimalPoint}${(abs % scale).toString().padStart(decimals, '0')}`
    : whole;
}

/**
 * Formats an integer amount of minor units: `formatMoney(-1000, 'USD')` → `-$10.00`,
 * `formatMoney(123456, 'EUR')` → `€1,234.56`, `formatMoney(-1000, 'XYZ')` → `-10.00 XYZ`,
 * with the store's format of the currency when it has one (`currencyFormat`), else the
 * built-in one. The sign always comes first, as the production API writes it. Every price of
 * every cart and order response goes through here, so safe integers (all but absurd totals)
 * take a plain number path; larger amounts, and non-finite ones (which throw), take the BigInt
 * one.
 */
export function formatMoney(
  amount: number,
  currency: string,
  format: CurrencyFormat = currencyFormat(currency),
): string {
  const decimals = format.decimalPlaces;
  const sign = amount < 0 ? '-' : '';
  const abs = Math.abs(Math.trunc(amount));
  let number: string;
  if (abs <= Number.MAX_SAFE_INTEGER) {
    const scale = 10 ** decimals;
    const minor = abs % scale;
    // (abs - minor) is a multiple of scale, so the division is exact.
    const whole = (abs - minor) / scale;
    number = groupThousands(String(whole), format.thousandSeparator);
    if (decimals > 0) number += `${format.decimalPoint}${String(minor).padStart(decimals, '0')}`;
  } else {
    number = formatLargeAmount(amount, format);
  }
  return `${sign}${format.template.replaceAll('{price}', number)}`;
}

/** Minor-unit digits of a currency (2 for USD, 0 for JPY; 2 for codes without a format). */
export function currencyDecimals(currency: string): number {
  return currencyFormat(currency).decimalPlaces;
}

export function money(amount: number, currency: string): MoneyValue {
  return { amount, currency, formatted: formatMoney(amount, currency) };
}

/** One line of a cart as the totals need it. */
export interface TotalsItem {
  /** Unit price in minor units. */
  unitAmount: number;
  quantity: number;
  /** Amounts (each < 0) of the item's custom discounts. */
  discounts: readonly number[];
}

export interface ItemTotals {
  /** unitAmount × quantity. */
  withoutDiscount: number;
  /** Applied item discount (≤ 0), capped so the line never goes below zero. */
  discount: number;
  /** withoutDiscount + discount. */
  value: number;
}

export interface CartTotals {
  items: ItemTotals[];
  /** Sum of every line before any discount. */
  withoutDiscount: number;
  /** All applied discounts, item and cart level (≤ 0). */
  discount: number;
  /** Applied cart-level discount (≤ 0), a part of `discount`. */
  cartDiscount: number;
  /** withoutDiscount + discount, never below zero. */
  total: number;
}

/** One total of a cart that is above MAX_AMOUNT: what it is and how large. */
export interface AmountOverflow {
  /** `line` (one item's unit price × quantity) or `cart` (the sum of every line). */
  what: 'line' | 'cart';
  /** Index of the item, for a line. */
  index?: number;
  amount: number;
}

/**
 * The first total of `totals` that is above MAX_AMOUNT, or undefined when all fit. Only the
 * totals before discount need checking: discounts never take a total below zero, so every
 * other amount (discount, value, total) lies between 0 and them, or between them and 0.
 */
export function amountOverflow(totals: CartTotals): AmountOverflow | undefined {
  const index = totals.items.findIndex((line) => line.withoutDiscount > MAX_AMOUNT);
  const line = totals.items[index];
  if (line !== undefined) return { what: 'line', index, amount: line.withoutDiscount };
  if (totals.withoutDiscount > MAX_AMOUNT) return { what: 'cart', amount: totals.withoutDiscount };
  return undefined;
}

/**
 * Cart totals: each line is unit price × quantity minus its own discounts (never below zero),
 * then the cart-level discounts come off the sum (never below zero). Discounts larger than
 * what they apply to are capped, so `withoutDiscount + discount === total` always holds.
 * Tax is not computed: the service has no tax rates, so with_tax and without_tax are equal.
 */
export function computeCartTotals(
  items: readonly TotalsItem[],
  cartDiscounts: readonly number[],
): CartTotals {
  const lines = items.map((item): ItemTotals => {
    const withoutDiscount = item.unitAmount * item.quantity;
    const requested = item.discounts.reduce((sum, d) => sum + d, 0);
    const discount = Math.max(requested, -withoutDiscount);
    return { withoutDiscount, discount, value: withoutDiscount + discount };
  });
  const withoutDiscount = lines.reduce((sum, l) => sum + l.withoutDiscount, 0);
  const afterItems = lines.reduce((sum, l) => sum + l.value, 0);
  const requestedCart = cartDiscounts.reduce((sum, d) => sum + d, 0);
  const cartDiscount = Math.max(requestedCart, -afterItems);
  const total = afterItems + cartDiscount;
  return {
    items: lines,
    withoutDiscount,
    discount: total - withoutDiscount,
    cartDiscount,
    total,
  };
}
