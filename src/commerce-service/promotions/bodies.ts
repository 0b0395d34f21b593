/**
 * The bodies of both promotion APIs, judged before anything is read or written: the fields the
 * two share (name, description, enabled, automatic, start, end), the standard promotion's
 * `promotion_type` and `schema` (this file) and the Promotions Builder's `rule_set`
 * (rule-bodies.ts), each turned into an `Offer`. An update is the stored body with the given
 * fields laid over it, judged whole again, so a promotion is never stored half-valid.
 */
import { badRequest } from '../errors.ts';
import { MAX_AMOUNT } from '../money.ts';
import {
  isObject,
  type JsonObject,
  optionalBoolean,
  optionalInteger,
  optionalText,
  requireBoolean,
  requireData,
  requireInteger,
  requireText,
} from '../request-body.ts';
import { parseTimestamp } from '../time.ts';
import type { Offer } from './offer.ts';

/** The two engines: `standard` (/v2/promotions) and `rule` (/v2/rule-promotions). */
export type PromotionKind = 'standard' | 'rule';

export interface PromotionInput {
  name: string;
  enabled: boolean;
  automatic: boolean;
  start: string;
  end: string;
  priority: number;
  stackable: boolean;
  overrideStacking: boolean;
  offer: Offer;
  /** The body's fields as they will be shown (the client's, judged). */
  document: JsonObject;
}

export const MAX_SKUS = 100;
export const MAX_CURRENCIES = 20;
export const MAX_DESCRIPTION = 1000;
const CURRENCY = /^[A-Z]{3}$/;
/** A fixed discount: at least one minor unit, at most the largest amount. */
export const DISCOUNT_AMOUNT = { min: 1, max: MAX_AMOUNT, unit: 'minor units' };

/** A percentage from 0 to 100 (decimals allowed). */
export function readPercent(value: unknown, source: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 100) {
    throw badRequest(`${source} must be a number from 0 to 100.`, source);
  }
  return value;
}

/** A list of at most MAX_SKUS non-empty SKUs. */
export function readSkus(value: unknown, source: string): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_SKUS) {
    throw badRequest(`${source} must be a list of 1 to ${MAX_SKUS} SKUs.`, source);
  }
  return value.map((sku, i) => {
    if (typeof sku !== 'string' || sku.trim() === '' || sku.length > 255) {
      throw badRequest(`${source}[${i}] must be a SKU (1 to 255 characters).`, `${source}[${i}]`);
    }
    return sku;
  });
}

/** An ISO 4217 code (upper case), as carts store theirs. */
export function readCurrency(value: unknown, source: string): string {
  if (typeof value !== 'string' || !CURRENCY.test(value.toUpperCase())) {
    throw badRequest(`${source} must be a 3-letter currency code.`, source);
  }
  return value.toUpperCase();
}

/** `[{currency, <key>}]` → currency → value, each judged by `read`; 1 to MAX_CURRENCIES rows. */
export function readCurrencyList(
  value: unknown,
  source: string,
  read: (row: JsonObject, prefix: string) => number,
): Record<string, number> {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_CURRENCIES) {
    throw badRequest(`${source} must be a list of 1 to ${MAX_CURRENCIES} currencies.`, source);
  }
  const out: Record<string, number> = {};
  value.forEach((row, i) => {
    const prefix = `${source}[${i}]`;
    if (!isObject(row)) throw badRequest(`${prefix} must be an object.`, prefix);
    const currency = readCurrency(row.currency, `${prefix}.currency`);
    if (currency in out) throw badRequest(`${prefix}.currency is listed twice.`, prefix);
    out[currency] = read(row, prefix);
  });
  return out;
}

function readInstant(data: JsonObject, key: string): string {
  const raw = requireText(data, key);
  const parsed = parseTimestamp(raw);
  if (parsed === undefined) {
    throw badRequest(`data.${key} must be an ISO-8601 date or date-time.`, `data.${key}`);
  }
  return parsed.iso;
}

const STANDARD_TYPES = [
  'fixed_discount',
  'percent_discount',
  'item_fixed_discount',
  'item_percent_discount',
] as const;

/** `schema` of a standard promotion → its offer (min_cart_value read by the caller). */
function standardOffer(data: JsonObject): Omit<Offer, 'minSubtotal' | 'requiredSkus'> {
  const type = data.promotion_type;
  if (typeof type !== 'string' || !(STANDARD_TYPES as readonly string[]).includes(type)) {
    throw badRequest(
      `data.promotion_type must be one of ${STANDARD_TYPES.join(', ')}.`,
      'data.promotion_type',
    );
  }
  if (!isObject(data.schema)) throw badRequest('data.schema must be an object.', 'data.schema');
  const schema = data.schema;
  const level = type.startsWith('item_') ? 'item' : 'cart';
  const skus = level === 'item' ? readSkus(schema.targets, 'data.schema.targets') : null;
  if (type.endsWith('fixed_discount')) {
    const amounts = readCurrencyList(schema.currencies, 'data.schema.currencies', (row, p) =>
      requireInteger(row, 'amount', DISCOUNT_AMOUNT, p),
    );
    return { level, method: 'fixed', amounts, percent: 0, skus };
  }
  let percent: number;
  if (schema.percent !== undefined) {
    percent = readPercent(schema.percent, 'data.schema.percent');
  } else {
    const byCurrency = readCurrencyList(schema.currencies, 'data.schema.currencies', (row, p) =>
      readPercent(row.percentage, `${p}.percentage`),
    );
    const values = new Set(Object.values(byCurrency));
    if (values.size !== 1) {
      throw badRequest(
        'data.schema.currencies must give every currency the same percentage.',
        'data.schema.currencies',
      );
    }
    percent = [...values][0] ?? 0;
  }
  return { level, method: 'percent', amounts: {}, percent, skus };
}

/** The standard promotion's own fields: promotion_type, schema, min_cart_value. */
function standardFields(data: JsonObject): { offer: Offer; document: JsonObject } {
  const offer = standardOffer(data);
  const minSubtotal =
    data.min_cart_value === undefined || data.min_cart_value === null
      ? null
      : readCurrencyList(data.min_cart_value, 'data.min_cart_value', (row, p) =>
          requireInteger(row, 'amount', { min: 0, max: MAX_AMOUNT, unit: 'minor units' }, p),
        );
  return {
    offer: { ...offer, minSubtotal, requiredSkus: null },
    document: {
      promotion_type: data.promotion_type,
      schema: data.schema,
      ...(minSubtotal === null ? {} : { min_cart_value: data.min_cart_value }),
    },
  };
}

/**
 * A whole promotion body of `kind`. `current` is the stored document on an update (the given
 * fields replace its own); the type is checked when given, and must be the kind's.
 */
export function parsePromotion(
  body: unknown,
  kind: PromotionKind,
  ruleFields: (data: JsonObject) => { offer: Offer; document: JsonObject },
  current?: JsonObject,
): PromotionInput {
  const given = requireData(body);
  const type = kind === 'standard' ? 'promotion' : 'rule_promotion';
  if (given.type !== undefined && given.type !== type) {
    throw badRequest(`data.type must be "${type}".`, 'data.type');
  }
  const data: JsonObject = { ...current, ...given };
  const name = requireText(data, 'name');
  const description = optionalText(data, 'description', { blank: true, max: MAX_DESCRIPTION });
  const enabled = requireBoolean(data, 'enabled');
  const automatic = optionalBoolean(data, 'automatic') ?? false;
  const start = readInstant(data, 'start');
  const end = readInstant(data, 'end');
  if (end <= start) throw badRequest('data.end must be after data.start.', 'data.end');
  const own = kind === 'standard' ? standardFields(data) : ruleFields(data);
  const priority =
    kind === 'rule' ? (optionalInteger(data, 'priority', { min: 0, max: 1_000_000 }) ?? 0) : 0;
  const stackable = kind === 'rule' ? (optionalBoolean(data, 'stackable') ?? true) : true;
  const overrideStacking =
    kind === 'rule' ? (optionalBoolean(data, 'override_stacking') ?? false) : false;
  const document: JsonObject = {
    name,
    description: description ?? '',
    enabled,
    automatic,
    start,
    end,
    ...(kind === 'rule' ? { priority, stackable, override_stacking: overrideStacking } : {}),
    ...own.document,
  };
  return {
    name,
    enabled,
    automatic,
    start,
    end,
    priority,
    stackable,
    overrideStacking,
    offer: own.offer,
    document,
  };
}
