/**
 * The bodies of catalogs and catalog rules (`/catalogs`, `/catalogs/rules`), nested style
 * (request-body.ts `readResource`), judged with a 400 naming the field. A catalog names its
 * hierarchies (required, ordered) and its price books, either `pricebook_id` (one) or
 * `pricebook_ids: [{id, priority}]` (at most 5; the higher priority wins). A rule names its
 * catalog and the shopper context it matches: channels, tags, customer and account ids and
 * schedules `[{valid_from, valid_to}]` (epcc-cli sends `from`/`to`: accepted too).
 */
import { badRequest } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { ATTRIBUTES, readLocales } from '../pcm/common.ts';
import type { PricebookPriority } from '../pricebooks/resolve.ts';
import {
  isObject,
  type JsonObject,
  optionalBoolean,
  optionalStringList,
  optionalText,
  requireText,
} from '../request-body.ts';
import { readResource } from '../resource-body.ts';
import { parseTimestamp } from '../time.ts';

export const MAX_CATALOG_PRICEBOOKS = 5;
const MAX_HIERARCHIES = 100;
const MAX_RULE_VALUES = 100;
const MAX_SCHEDULES = 20;
const MAX_DESCRIPTION = 1024;
const READ_ONLY = ['created_at', 'updated_at', 'owner'];

export interface CatalogInput {
  name?: string;
  description?: string | null;
  hierarchy_ids?: string[];
  /** Undefined: unchanged; the list replaces the catalog's price books. */
  pricebooks?: PricebookPriority[];
  single_pricebook?: boolean;
  locales?: Record<string, unknown> | null;
  enable_price_segmentation?: boolean;
  /** Its releases get a search index when published (search/build.ts). */
  enable_search?: boolean;
}

function uuidList(attributes: JsonObject, key: string, max: number): string[] | undefined {
  const list = optionalStringList(attributes, key, { prefix: ATTRIBUTES, maxItems: max });
  if (list === undefined) return undefined;
  list.forEach((id, i) => {
    if (!isUuid(id)) {
      throw badRequest(`${ATTRIBUTES}.${key}[${i}] must be a uuid.`, `${ATTRIBUTES}.${key}[${i}]`);
    }
  });
  return [...new Set(list.map((id) => id.toLowerCase()))];
}

/** `pricebook_ids: [{id, priority}]`: each a uuid with an integer priority (default 0). */
export function readPricebookIds(attributes: JsonObject): PricebookPriority[] | undefined {
  const value = attributes.pricebook_ids;
  if (value === undefined || value === null) return undefined;
  const source = `${ATTRIBUTES}.pricebook_ids`;
  if (!Array.isArray(value)) {
    throw badRequest(`${source} must be a list of {"id","priority"}.`, source);
  }
  if (value.length > MAX_CATALOG_PRICEBOOKS) {
    throw badRequest(`${source} may hold at most ${MAX_CATALOG_PRICEBOOKS} price books.`, source);
  }
  const seen = new Set<string>();
  return value.map((item, i) => {
    const at = `${source}[${i}]`;
    if (!isObject(item) || typeof item.id !== 'string' || !isUuid(item.id)) {
      throw badRequest(`${at}.id must be a uuid.`, `${at}.id`);
    }
    const priority = item.priority ?? 0;
    if (typeof priority !== 'number' || !Number.isSafeInteger(priority)) {
      throw badRequest(`${at}.priority must be an integer.`, `${at}.priority`);
    }
    const id = item.id.toLowerCase();
    if (seen.has(id)) throw badRequest(`${at}.id lists a price book twice.`, `${at}.id`);
    seen.add(id);
    return { id, priority };
  });
}

/** A catalog's body; `create` requires name and hierarchy_ids. */
export function parseCatalog(body: unknown, create: boolean, pathId?: string): CatalogInput {
  const { attributes } = readResource(body, 'catalog', {
    requireAttributes: create,
    readOnly: READ_ONLY,
    attributes: [
      'name',
      'description',
      'hierarchy_ids',
      'pricebook_id',
      'pricebook_ids',
      'locales',
      'enable_price_segmentation',
      'enable_search',
    ],
    ...(pathId === undefined ? {} : { id: pathId }),
  });
  const input: CatalogInput = {};
  const name = create
    ? requireText(attributes, 'name', { prefix: ATTRIBUTES })
    : optionalText(attributes, 'name', { prefix: ATTRIBUTES });
  if (name !== undefined) input.name = name;
  if (attributes.description === null) input.description = null;
  const description = optionalText(attributes, 'description', {
    prefix: ATTRIBUTES,
    blank: true,
    max: MAX_DESCRIPTION,
  });
  if (description !== undefined) input.description = description;
  const hierarchies = uuidList(attributes, 'hierarchy_ids', MAX_HIERARCHIES);
  if (hierarchies === undefined && create) {
    throw badRequest(`${ATTRIBUTES}.hierarchy_ids is required.`, `${ATTRIBUTES}.hierarchy_ids`);
  }
  if (hierarchies !== undefined) input.hierarchy_ids = hierarchies;
  const single = attributes.pricebook_id;
  const many = readPricebookIds(attributes);
  if (single !== undefined && single !== null && many !== undefined) {
    throw badRequest(
      'Send pricebook_id or pricebook_ids, not both.',
      `${ATTRIBUTES}.pricebook_ids`,
    );
  }
  if (single !== undefined && single !== null) {
    if (typeof single !== 'string' || !isUuid(single)) {
      throw badRequest(`${ATTRIBUTES}.pricebook_id must be a uuid.`, `${ATTRIBUTES}.pricebook_id`);
    }
    input.pricebooks = [{ id: single.toLowerCase(), priority: 0 }];
    input.single_pricebook = true;
  } else if (many !== undefined) {
    input.pricebooks = many;
    input.single_pricebook = false;
  } else if (single === null) {
    input.pricebooks = [];
    input.single_pricebook = true;
  }
  const locales = readLocales(attributes);
  if (locales !== undefined) input.locales = locales;
  const segmentation = optionalBoolean(attributes, 'enable_price_segmentation', ATTRIBUTES);
  if (segmentation !== undefined) input.enable_price_segmentation = segmentation;
  const search = optionalBoolean(attributes, 'enable_search', ATTRIBUTES);
  if (search !== undefined) input.enable_search = search;
  return input;
}

export interface RuleSchedule {
  valid_from: string | null;
  valid_to: string | null;
}

export interface RuleInput {
  name?: string;
  catalog_id?: string;
  description?: string | null;
  account_ids?: string[];
  account_tag_ids?: string[];
  customer_ids?: string[];
  channels?: string[];
  tags?: string[];
  schedules?: RuleSchedule[];
  pricebook_ids?: PricebookPriority[];
}

/** The context lists of a rule, in the order resolution compares them. */
export const RULE_LISTS = [
  'account_ids',
  'account_tag_ids',
  'customer_ids',
  'channels',
  'tags',
] as const;

function readEnd(item: JsonObject, keys: readonly string[], at: string): string | null {
  for (const key of keys) {
    const value = item[key];
    if (value === undefined || value === null) continue;
    const parsed = typeof value === 'string' ? parseTimestamp(value) : undefined;
    if (parsed === undefined) {
      throw badRequest(`${at}.${key} must be an ISO-8601 date-time.`, `${at}.${key}`);
    }
    return parsed.iso;
  }
  return null;
}

function readSchedules(attributes: JsonObject): RuleSchedule[] | undefined {
  const value = attributes.schedules;
  if (value === undefined || value === null) return undefined;
  const source = `${ATTRIBUTES}.schedules`;
  if (!Array.isArray(value)) {
    throw badRequest(`${source} must be a list of {"valid_from","valid_to"}.`, source);
  }
  if (value.length > MAX_SCHEDULES) {
    throw badRequest(`${source} may hold at most ${MAX_SCHEDULES} schedules.`, source);
  }
  return value.map((item, i) => {
    const at = `${source}[${i}]`;
    if (!isObject(item)) throw badRequest(`${at} must be an object.`, at);
    const schedule = {
      valid_from: readEnd(item, ['valid_from', 'from'], at),
      valid_to: readEnd(item, ['valid_to', 'to'], at),
    };
    if (
      schedule.valid_from !== null &&
      schedule.valid_to !== null &&
      schedule.valid_to <= schedule.valid_from
    ) {
      throw badRequest(`${at}.valid_to must be after valid_from.`, `${at}.valid_to`);
    }
    return schedule;
  });
}

/** A rule's body; `create` requires name and catalog_id. Names have no spaces (production). */
export function parseRule(body: unknown, create: boolean, pathId?: string): RuleInput {
  const { attributes } = readResource(body, ['catalog_rule', 'catalog-rule'], {
    requireAttributes: create,
    readOnly: READ_ONLY,
    attributes: ['name', 'catalog_id', 'description', ...RULE_LISTS, 'schedules', 'pricebook_ids'],
    ...(pathId === undefined ? {} : { id: pathId }),
  });
  const input: RuleInput = {};
  const name = create
    ? requireText(attributes, 'name', { prefix: ATTRIBUTES })
    : optionalText(attributes, 'name', { prefix: ATTRIBUTES });
  if (name !== undefined) {
    if (/\s/u.test(name)) {
      throw badRequest(`${ATTRIBUTES}.name must not contain spaces.`, `${ATTRIBUTES}.name`);
    }
    input.name = name;
  }
  const catalogId = attributes.catalog_id;
  if (catalogId === undefined || catalogId === null) {
    if (create) {
      throw badRequest(`${ATTRIBUTES}.catalog_id is required.`, `${ATTRIBUTES}.catalog_id`);
    }
  } else if (typeof catalogId !== 'string' || !isUuid(catalogId)) {
    throw badRequest(`${ATTRIBUTES}.catalog_id must be a uuid.`, `${ATTRIBUTES}.catalog_id`);
  } else {
    input.catalog_id = catalogId.toLowerCase();
  }
  if (attributes.description === null) input.description = null;
  const description = optionalText(attributes, 'description', {
    prefix: ATTRIBUTES,
    blank: true,
    max: MAX_DESCRIPTION,
  });
  if (description !== undefined) input.description = description;
  for (const key of RULE_LISTS) {
    const list = optionalStringList(attributes, key, {
      prefix: ATTRIBUTES,
      maxItems: MAX_RULE_VALUES,
      item: { max: 255 },
    });
    if (list !== undefined) {
      input[key] = [...new Set(key.endsWith('_ids') ? list.map((v) => v.toLowerCase()) : list)];
    }
  }
  const schedules = readSchedules(attributes);
  if (schedules !== undefined) input.schedules = schedules;
  const books = readPricebookIds(attributes);
  if (books !== undefined) input.pricebook_ids = books;
  return input;
}
