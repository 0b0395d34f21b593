/**
 * The bodies of price books, prices and price modifiers (`/pcm/pricebooks…`), judged through
 * request-body.ts: what each attribute may hold, with a 400 naming the field
 * (`data.attributes.currencies.USD.amount`). Amounts are integers of minor units within the
 * money bounds (money.ts), quantities within the cart's, currency codes three upper-case
 * letters. Also the shapes the rest of the service reads prices as.
 */
import { badRequest } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { MAX_AMOUNT, MAX_QUANTITY } from '../money.ts';
import {
  isObject,
  type JsonObject,
  optionalBoolean,
  optionalText,
  rejectUnknownKeys,
  requireInteger,
  requireText,
} from '../request-body.ts';
import { optionalMapEntries, optionalStringMap, readResource } from '../resource-body.ts';
import { parseTimestamp } from '../time.ts';

export interface TierValue {
  minimum_quantity: number;
  amount: number;
}

/** One currency of a price, a sale or a modifier: `{amount, includes_tax, tiers?}`. */
export interface CurrencyValue {
  amount: number;
  includes_tax: boolean;
  tiers?: Record<string, TierValue>;
}

/** ISO code → its price. */
export type CurrencyMap = Record<string, CurrencyValue>;

export interface SaleSchedule {
  /** 24-character ISO timestamps; null for an open end. */
  valid_from: string | null;
  valid_to: string | null;
}

export interface SaleValue {
  schedule?: SaleSchedule;
  currencies: CurrencyMap;
  bundle_ids?: string[];
}

/** Sale id → the sale. */
export type SaleMap = Record<string, SaleValue>;

export type ModifierType = 'price_increment' | 'price_decrement' | 'price_equals';
export const MODIFIER_TYPES: readonly ModifierType[] = [
  'price_increment',
  'price_decrement',
  'price_equals',
];

/** Production's limit on an `external_ref`. */
export const MAX_EXTERNAL_REF = 2048;
const MAX_DESCRIPTION = 1024;
const MAX_CURRENCIES = 50;
const MAX_TIERS = 20;
const MAX_SALES = 20;
const MAX_BUNDLE_IDS = 100;
/** Production allows up to 100 keys in each custom attribute map. */
const MAX_CUSTOM_ATTRIBUTES = 100;

const ATTRIBUTES = 'data.attributes';
const READ_ONLY = ['created_at', 'updated_at'];
const CURRENCY_CODE = { pattern: /^[A-Z]{3}$/, says: 'three upper-case letters (ISO 4217: USD)' };
const NAME_KEY = { pattern: /^.{1,255}$/su, says: '1 to 255 characters' };

function amountOf(value: JsonObject, key: string, prefix: string): number {
  return requireInteger(value, key, { min: 0, max: MAX_AMOUNT, unit: 'minor units' }, prefix);
}

function parseTiers(value: JsonObject, prefix: string): Record<string, TierValue> | undefined {
  const entries = optionalMapEntries(value, 'tiers', {
    prefix,
    maxKeys: MAX_TIERS,
    keyPattern: NAME_KEY,
  });
  if (entries === undefined) return undefined;
  const tiers: Record<string, TierValue> = {};
  const seen = new Map<number, string>();
  for (const [name, tier] of entries) {
    const at = `${prefix}.tiers.${name}`;
    if (!isObject(tier)) throw badRequest(`${at} must be an object.`, at);
    rejectUnknownKeys(tier, ['minimum_quantity', 'amount'], at);
    const minimum = requireInteger(tier, 'minimum_quantity', { min: 1, max: MAX_QUANTITY }, at);
    const other = seen.get(minimum);
    if (other !== undefined) {
      throw badRequest(
        `${at}.minimum_quantity repeats the minimum quantity of tier "${other}"; tiers of one currency must differ.`,
        `${at}.minimum_quantity`,
      );
    }
    seen.set(minimum, name);
    tiers[name] = { minimum_quantity: minimum, amount: amountOf(tier, 'amount', at) };
  }
  return tiers;
}

/**
 * A currency map at `data[key]` (`{USD:{amount, includes_tax?, tiers?}}`), or undefined when
 * absent. `tiers` are refused where they mean nothing (`allowTiers: false`, a modifier).
 */
export function optionalCurrencies(
  data: JsonObject,
  key: string,
  prefix: string,
  allowTiers = true,
): CurrencyMap | undefined {
  const entries = optionalMapEntries(data, key, {
    prefix,
    maxKeys: MAX_CURRENCIES,
    keyPattern: CURRENCY_CODE,
  });
  if (entries === undefined) return undefined;
  const source = `${prefix}.${key}`;
  if (entries.length === 0) {
    throw badRequest(
      `${source} needs at least one currency, e.g. {"USD":{"amount":1000}}.`,
      source,
    );
  }
  const map: CurrencyMap = {};
  for (const [code, value] of entries) {
    const at = `${source}.${code}`;
    if (!isObject(value)) throw badRequest(`${at} must be an object: {"amount":…}.`, at);
    rejectUnknownKeys(
      value,
      allowTiers ? ['amount', 'includes_tax', 'tiers'] : ['amount', 'includes_tax'],
      at,
    );
    const currency: CurrencyValue = {
      amount: amountOf(value, 'amount', at),
      includes_tax: optionalBoolean(value, 'includes_tax', at) ?? false,
    };
    const tiers = parseTiers(value, at);
    if (tiers !== undefined) currency.tiers = tiers;
    map[code] = currency;
  }
  return map;
}

function requireCurrencies(
  data: JsonObject,
  key: string,
  prefix: string,
  allowTiers = true,
): CurrencyMap {
  const map = optionalCurrencies(data, key, prefix, allowTiers);
  if (map === undefined) {
    const source = `${prefix}.${key}`;
    throw badRequest(
      `${source} is required, e.g. {"USD":{"amount":1000,"includes_tax":false}}.`,
      source,
    );
  }
  return map;
}

function scheduleBound(schedule: JsonObject, key: string, at: string): string | null {
  const value = schedule[key];
  if (value === undefined || value === null) return null;
  const parsed = typeof value === 'string' ? parseTimestamp(value) : undefined;
  if (parsed === undefined) {
    throw badRequest(
      `${at}.${key} must be an ISO-8601 date-time (2024-05-01T10:00:00Z).`,
      `${at}.${key}`,
    );
  }
  return parsed.iso;
}

function parseSchedule(sale: JsonObject, at: string): SaleSchedule | undefined {
  const value = sale.schedule;
  if (value === undefined || value === null) return undefined;
  const source = `${at}.schedule`;
  if (!isObject(value)) throw badRequest(`${source} must be an object or null.`, source);
  rejectUnknownKeys(value, ['valid_from', 'valid_to'], source);
  const schedule = {
    valid_from: scheduleBound(value, 'valid_from', source),
    valid_to: scheduleBound(value, 'valid_to', source),
  };
  if (schedule.valid_from === null && schedule.valid_to === null) return undefined;
  if (schedule.valid_from !== null && schedule.valid_to !== null) {
    if (schedule.valid_from >= schedule.valid_to) {
      throw badRequest(`${source}.valid_to must be after valid_from.`, `${source}.valid_to`);
    }
  }
  return schedule;
}

/**
 * The `sales` of a price. Overlapping schedules are allowed (the narrowest wins, resolve.ts);
 * a price with one sale may leave it unscheduled (a permanent sale), but with several every
 * sale needs a schedule and no two may be the same, as production documents.
 */
function optionalSales(data: JsonObject): SaleMap | null | undefined {
  if (data.sales === null) return null;
  const entries = optionalMapEntries(data, 'sales', {
    prefix: ATTRIBUTES,
    maxKeys: MAX_SALES,
    keyPattern: NAME_KEY,
  });
  if (entries === undefined) return undefined;
  const sales: SaleMap = {};
  const schedules = new Map<string, string>();
  for (const [id, value] of entries) {
    const at = `${ATTRIBUTES}.sales.${id}`;
    if (!isObject(value)) throw badRequest(`${at} must be an object.`, at);
    rejectUnknownKeys(value, ['schedule', 'currencies', 'bundle_ids'], at);
    const sale: SaleValue = { currencies: requireCurrencies(value, 'currencies', at) };
    const schedule = parseSchedule(value, at);
    if (schedule === undefined && entries.length > 1) {
      throw badRequest(
        `${at}.schedule is required: a price with several sales needs a schedule on each (only a single sale may be permanent).`,
        `${at}.schedule`,
      );
    }
    if (schedule !== undefined) {
      const key = `${schedule.valid_from}/${schedule.valid_to}`;
      const other = schedules.get(key);
      if (other !== undefined) {
        throw badRequest(
          `${at}.schedule is the same as the schedule of sale "${other}"; schedules must differ.`,
          `${at}.schedule`,
        );
      }
      schedules.set(key, id);
      sale.schedule = schedule;
    }
    const bundleIds = value.bundle_ids;
    if (bundleIds !== undefined && bundleIds !== null) {
      const source = `${at}.bundle_ids`;
      if (
        !Array.isArray(bundleIds) ||
        bundleIds.length > MAX_BUNDLE_IDS ||
        !bundleIds.every((b) => typeof b === 'string' && isUuid(b))
      ) {
        throw badRequest(
          `${source} must be a list of at most ${MAX_BUNDLE_IDS} product ids.`,
          source,
        );
      }
      if (bundleIds.length > 0) sale.bundle_ids = bundleIds.map((b: string) => b.toLowerCase());
    }
    sales[id] = sale;
  }
  return sales;
}

/** A nullable text attribute: the value, null to clear it, undefined when not sent. */
function nullableText(
  attributes: JsonObject,
  key: string,
  max: number,
  blank: boolean,
): string | null | undefined {
  if (attributes[key] === null) return null;
  return optionalText(attributes, key, { prefix: ATTRIBUTES, max, blank });
}

function customAttributes(attributes: JsonObject, key: string) {
  if (attributes[key] === null) return null;
  return optionalStringMap(attributes, key, {
    prefix: ATTRIBUTES,
    maxKeys: MAX_CUSTOM_ATTRIBUTES,
    maxValue: MAX_EXTERNAL_REF,
  });
}

export interface PricebookInput {
  name?: string;
  description?: string | null;
  external_ref?: string | null;
}

/**
 * A price book's attributes: `name` (required on create) 1–255 characters, `description` up to
 * 1,024, `external_ref` up to 2,048; null clears the optional ones. `id` is the path's on PUT.
 */
export function parsePricebook(body: unknown, creating: boolean, id?: string): PricebookInput {
  const attributes = readResource(body, 'pricebook', {
    requireAttributes: true,
    attributes: ['name', 'description', 'external_ref'],
    readOnly: READ_ONLY,
    ...(id === undefined ? {} : { id }),
  }).attributes;
  const input: PricebookInput = {};
  const name = creating
    ? requireText(attributes, 'name', { prefix: ATTRIBUTES })
    : optionalText(attributes, 'name', { prefix: ATTRIBUTES });
  if (name !== undefined) input.name = name;
  const description = nullableText(attributes, 'description', MAX_DESCRIPTION, true);
  if (description !== undefined) input.description = description;
  const externalRef = nullableText(attributes, 'external_ref', MAX_EXTERNAL_REF, false);
  if (externalRef !== undefined) input.external_ref = externalRef;
  return input;
}

/** A replicate request: the copy's name, description and external_ref, each optional. */
export function parseReplicate(body: unknown): PricebookInput {
  if (body === undefined || body === null) return {};
  return parsePricebook(body, false);
}

export interface PriceInput {
  sku?: string;
  currencies?: CurrencyMap;
  sales?: SaleMap | null;
  external_ref?: string | null;
  admin_attributes?: Record<string, string | null> | null;
  shopper_attributes?: Record<string, string | null> | null;
}

/**
 * A price's attributes: `sku` and `currencies` required on create; PUT changes what it names
 * (null clears sales, external_ref and the custom attribute maps).
 */
export function parsePrice(body: unknown, creating: boolean, id?: string): PriceInput {
  const attributes = readResource(body, 'product-price', {
    requireAttributes: true,
    attributes: [
      'sku',
      'currencies',
      'sales',
      'external_ref',
      'admin_attributes',
      'shopper_attributes',
    ],
    readOnly: READ_ONLY,
    ...(id === undefined ? {} : { id }),
  }).attributes;
  const input: PriceInput = {};
  const sku = creating
    ? requireText(attributes, 'sku', { prefix: ATTRIBUTES })
    : optionalText(attributes, 'sku', { prefix: ATTRIBUTES });
  if (sku !== undefined) input.sku = sku;
  const currencies = creating
    ? requireCurrencies(attributes, 'currencies', ATTRIBUTES)
    : attributes.currencies === null
      ? requireCurrencies(attributes, 'currencies', ATTRIBUTES)
      : optionalCurrencies(attributes, 'currencies', ATTRIBUTES);
  if (currencies !== undefined) input.currencies = currencies;
  const sales = optionalSales(attributes);
  if (sales !== undefined) input.sales = sales;
  const externalRef = nullableText(attributes, 'external_ref', MAX_EXTERNAL_REF, false);
  if (externalRef !== undefined) input.external_ref = externalRef;
  for (const key of ['admin_attributes', 'shopper_attributes'] as const) {
    const map = customAttributes(attributes, key);
    if (map !== undefined) input[key] = map;
  }
  return input;
}

export interface ModifierInput {
  name?: string;
  modifier_type?: ModifierType;
  currencies?: CurrencyMap;
  external_ref?: string | null;
}

function optionalModifierType(attributes: JsonObject): ModifierType | undefined {
  const value = attributes.modifier_type;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !MODIFIER_TYPES.includes(value as ModifierType)) {
    throw badRequest(
      `${ATTRIBUTES}.modifier_type must be one of ${MODIFIER_TYPES.join(', ')}.`,
      `${ATTRIBUTES}.modifier_type`,
    );
  }
  return value as ModifierType;
}

/**
 * A price modifier's attributes: `name`, `modifier_type` and `currencies` (amounts only: a
 * modifier has no tiers) required on create; PUT changes what it names.
 */
export function parseModifier(body: unknown, creating: boolean, id?: string): ModifierInput {
  const attributes = readResource(body, 'price-modifier', {
    requireAttributes: true,
    attributes: ['name', 'modifier_type', 'currencies', 'external_ref'],
    readOnly: READ_ONLY,
    ...(id === undefined ? {} : { id }),
  }).attributes;
  const input: ModifierInput = {};
  const name = creating
    ? requireText(attributes, 'name', { prefix: ATTRIBUTES })
    : optionalText(attributes, 'name', { prefix: ATTRIBUTES });
  if (name !== undefined) input.name = name;
  const type = optionalModifierType(attributes);
  if (creating && type === undefined) {
    throw badRequest(
      `${ATTRIBUTES}.modifier_type is required: one of ${MODIFIER_TYPES.join(', ')}.`,
      `${ATTRIBUTES}.modifier_type`,
    );
  }
  if (type !== undefined) input.modifier_type = type;
  const currencies =
    creating || attributes.currencies === null
      ? requireCurrencies(attributes, 'currencies', ATTRIBUTES, false)
      : optionalCurrencies(attributes, 'currencies', ATTRIBUTES, false);
  if (currencies !== undefined) input.currencies = currencies;
  const externalRef = nullableText(attributes, 'external_ref', MAX_EXTERNAL_REF, false);
  if (externalRef !== undefined) input.external_ref = externalRef;
  return input;
}
