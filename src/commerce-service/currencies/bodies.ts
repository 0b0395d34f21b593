/**
 * Bodies of `POST /v2/currencies` (every attribute the specification marks required) and
 * `PUT /v2/currencies/{id}` (any of them). Each attribute is judged here; the store-wide rules
 * (one default, at most ten, codes unique) are the routes'.
 */
import { badRequest } from '../errors.ts';
import {
  checkType,
  describeValue,
  type JsonObject,
  optionalBoolean,
  optionalInteger,
  optionalString,
  requireData,
} from '../request-body.ts';

export interface CurrencyInput {
  code: string;
  exchangeRate: number;
  format: string;
  decimalPoint: string;
  thousandSeparator: string;
  decimalPlaces: number;
  isDefault: boolean;
  enabled: boolean;
}

/** Three letters (`GBP`, or the specification's own example `YEN`), kept upper case. */
const CODE = /^[A-Za-z]{3}$/;
/** Separators are punctuation or spaces: a digit would make a formatted number ambiguous. */
const SEPARATOR = /^[^0-9{}]*$/;
const MAX_FORMAT = 64;
/** Decimal places beyond 8 have no currency; 10^8 keeps every formatted amount exact. */
const MAX_DECIMAL_PLACES = 8;

const FIELDS: Record<keyof CurrencyInput, string> = {
  code: 'code',
  exchangeRate: 'exchange_rate',
  format: 'format',
  decimalPoint: 'decimal_point',
  thousandSeparator: 'thousand_separator',
  decimalPlaces: 'decimal_places',
  isDefault: 'default',
  enabled: 'enabled',
};

function readExchangeRate(data: JsonObject): number | undefined {
  const value = data.exchange_rate;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1e12) {
    throw badRequest(
      `data.exchange_rate must be a number from 0 to 1e12, got ${describeValue(value)}.`,
      'data.exchange_rate',
    );
  }
  return value;
}

function readFormat(data: JsonObject): string | undefined {
  const format = optionalString(data, 'format', { min: 1, max: MAX_FORMAT });
  if (format !== undefined && !format.includes('{price}')) {
    throw badRequest(
      'format must hold "{price}" where the number goes, for example "£{price}" or "{price} kr".',
      'data.format',
    );
  }
  return format;
}

function readSeparator(data: JsonObject, key: string, min: number): string | undefined {
  const value = optionalString(data, key, { min, max: 4 });
  if (value !== undefined && !SEPARATOR.test(value)) {
    throw badRequest(`${key} must not hold digits or braces.`, `data.${key}`);
  }
  return value;
}

/** Every attribute given in `data`, judged; absent ones are left out. */
function readAttributes(data: JsonObject): Partial<CurrencyInput> {
  checkType(data, 'currency');
  const code = optionalString(data, 'code', { pattern: CODE });
  const input: Partial<CurrencyInput> = {
    code: code?.toUpperCase(),
    exchangeRate: readExchangeRate(data),
    format: readFormat(data),
    decimalPoint: readSeparator(data, 'decimal_point', 1),
    thousandSeparator: readSeparator(data, 'thousand_separator', 0),
    decimalPlaces: optionalInteger(data, 'decimal_places', { min: 0, max: MAX_DECIMAL_PLACES }),
    isDefault: optionalBoolean(data, 'default'),
    enabled: optionalBoolean(data, 'enabled'),
  };
  return Object.fromEntries(
    Object.entries(input).filter(([, value]) => value !== undefined),
  ) as Partial<CurrencyInput>;
}

/** A new currency: every attribute of the specification's Data.CreateCurrencies. */
export function parseNewCurrency(body: unknown): CurrencyInput {
  const input = readAttributes(requireData(body));
  for (const [key, field] of Object.entries(FIELDS) as [keyof CurrencyInput, string][]) {
    if (input[key] === undefined) throw badRequest(`${field} is required.`, `data.${field}`);
  }
  return input as CurrencyInput;
}

/** A change: any of the attributes. */
export function parseCurrencyUpdate(body: unknown): Partial<CurrencyInput> {
  return readAttributes(requireData(body));
}
