/**
 * What the Product Experience Manager routes (/pcm) share: finding a record of the caller's
 * store by a path id, the attribute shapes several resources take (slugs, locales, custom
 * attribute maps, sort orders), and JSON columns.
 */
import type { Db } from '../db.ts';
import { badRequest, notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { describeValue, isObject, type JsonObject } from '../request-body.ts';

/** Every record here belongs to the store (production also has organization-owned ones). */
export const OWNER = 'store';

/** Where nested bodies keep their attributes, for error sources. */
export const ATTRIBUTES = 'data.attributes';

/** Slugs: A-Z, a-z, 0-9, hyphen, underscore and period, as production documents. */
export const SLUG = /^[A-Za-z0-9_.-]+$/;

/**
 * A parent product's slug may also hold `{…}` placeholders for its options' slug_builder
 * modifiers (`tee-{size}`); a built child's slug must be a plain SLUG.
 */
export const PRODUCT_SLUG = /^[A-Za-z0-9_.{}-]+$/;

/** `sort_order` bounds: a 32-bit integer (production documents any integer). */
export const SORT_ORDER = { min: -2_147_483_647, max: 2_147_483_647 };

/** Tables findRecord may read; names are code's, never a request's. */
type PcmTable =
  | 'pcm_products'
  | 'pcm_variations'
  | 'pcm_variation_options'
  | 'pcm_option_modifiers'
  | 'pcm_hierarchies'
  | 'pcm_nodes'
  | 'pcm_jobs';

/**
 * The row of `table` with this id in the caller's store, or 404 naming `what`. A path id that
 * is not a uuid cannot name a record: 404 too.
 */
export function findRecord<Row>(
  db: Db,
  table: PcmTable,
  storeId: string,
  id: string,
  what: string,
  extra: { column: string; value: string } | undefined = undefined,
): Row {
  const row = isUuid(id)
    ? (db
        .prepare(
          `SELECT * FROM ${table} WHERE store_id = ? AND id = ?${extra ? ` AND ${extra.column} = ?` : ''}`,
        )
        .get(storeId, id.toLowerCase(), ...(extra ? [extra.value] : [])) as Row | undefined)
    : undefined;
  if (!row) throw notFound(`No ${what} with id ${id}.`);
  return row;
}

export function parseJson<T>(text: string | null): T | undefined {
  return text === null ? undefined : (JSON.parse(text) as T);
}

const LOCALE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;
const MAX_LOCALES = 100;

/**
 * `locales`: `{ "fr-FR": { name?, description? } }`; undefined when absent, null clears.
 * Each locale's members are strings (name at most 255 characters).
 */
export function readLocales(
  attributes: JsonObject,
  prefix = ATTRIBUTES,
): Record<string, { name?: string; description?: string }> | null | undefined {
  const value = attributes.locales;
  if (value === undefined) return undefined;
  if (value === null) return null;
  const source = `${prefix}.locales`;
  if (!isObject(value)) throw badRequest(`${source} must be an object of locales.`, source);
  const entries = Object.entries(value);
  if (entries.length > MAX_LOCALES) {
    throw badRequest(`${source} may hold at most ${MAX_LOCALES} locales.`, source);
  }
  const out: Record<string, { name?: string; description?: string }> = {};
  for (const [locale, body] of entries) {
    const at = `${source}.${locale}`;
    if (!LOCALE.test(locale)) {
      throw badRequest(`${source}: "${locale}" is not a language tag such as fr-FR.`, at);
    }
    if (!isObject(body)) throw badRequest(`${at} must be an object {name, description}.`, at);
    const entry: { name?: string; description?: string } = {};
    for (const [key, text] of Object.entries(body)) {
      if (key !== 'name' && key !== 'description') {
        throw badRequest(`${at} takes name and description only, got "${key}".`, `${at}.${key}`);
      }
      if (typeof text !== 'string') {
        throw badRequest(`${at}.${key} must be a string.`, `${at}.${key}`);
      }
      if (text.length > (key === 'name' ? 255 : 65_535)) {
        throw badRequest(`${at}.${key} is too long.`, `${at}.${key}`);
      }
      entry[key] = text;
    }
    out[locale] = entry;
  }
  return out;
}

const MAX_CUSTOM_KEYS = 100;

/**
 * `admin_attributes` / `shopper_attributes`: string → string or null, at most 100 keys. A null
 * value removes the key on update (merge with `current`), as production documents.
 */
export function readCustomAttributes(
  attributes: JsonObject,
  key: 'admin_attributes' | 'shopper_attributes',
  current: Record<string, string> | undefined,
  prefix = ATTRIBUTES,
): Record<string, string> | undefined {
  const value = attributes[key];
  if (value === undefined) return undefined;
  const source = `${prefix}.${key}`;
  if (value === null) return {};
  if (!isObject(value)) throw badRequest(`${source} must be an object of strings.`, source);
  const merged: Record<string, string> = { ...current };
  for (const [name, text] of Object.entries(value)) {
    if (text === null) {
      delete merged[name];
      continue;
    }
    if (typeof text !== 'string' || text.length > 1024 || name.length > 255 || name === '') {
      throw badRequest(
        `${source}.${name} must be a string of at most 1024 characters (or null to remove it).`,
        `${source}.${name}`,
      );
    }
    merged[name] = text;
  }
  if (Object.keys(merged).length > MAX_CUSTOM_KEYS) {
    throw badRequest(`${source} may hold at most ${MAX_CUSTOM_KEYS} keys.`, source);
  }
  return merged;
}

/** A body's `meta.sort_order`: an integer, null to clear, undefined when absent. */
export function readSortOrder(holder: JsonObject, source: string): number | null | undefined {
  const value = holder.sort_order;
  if (value === undefined) return undefined;
  if (value === null) return null;
  if (
    typeof value !== 'number' ||
    !Number.isSafeInteger(value) ||
    value < SORT_ORDER.min ||
    value > SORT_ORDER.max
  ) {
    throw badRequest(
      `${source} must be an integer from ${SORT_ORDER.min} to ${SORT_ORDER.max}, got ${describeValue(value)}.`,
      source,
    );
  }
  return value;
}

/** A `{type,id}` relationship object's id from `relationships[key].data`, or null/undefined. */
export function relationshipData(relationships: JsonObject, key: string): unknown {
  const value = relationships[key];
  if (value === undefined) return undefined;
  if (!isObject(value) || !('data' in value)) {
    throw badRequest(
      `data.relationships.${key} must be an object {"data": …}.`,
      `data.relationships.${key}`,
    );
  }
  return value.data;
}
