/**
 * Field definitions of Custom APIs (`…/custom-apis/{id}/fields`) and what they mean for entries:
 * reading a definition from a request, its JSON, judging an entry's values against the
 * definitions (400 naming `data.<slug>`, 409 for a duplicate of a unique value), and the filter
 * attributes they add to the entry list.
 *
 * Choices where production's documentation is silent (docs/embedded-service.md, "Custom APIs"):
 * - `validation` is replaced as a whole on PUT (top-level attributes are a partial update).
 * - A field that does not allow null values must be given when an entry is created; on update it
 *   may be left out (it keeps its value) but not set to null. Entries stored before the field was
 *   defined are not rewritten.
 * - `immutable`: once an entry has a value for the field (null included), a different value is
 *   refused; setting it on an entry that never had it is allowed.
 * - `regex` is a JavaScript (`u` flag) pattern that must match somewhere in the value, as RE2's
 *   partial match does; anchor it with ^…$ for a whole-value match.
 * - `unique_case_insensitivity` folds ASCII case (SQLite's lower()).
 * - Attributes that are not fields are still accepted and stored unvalidated, as before fields.
 */
import type { Db } from '../db.ts';
import { cachedStatement } from '../db.ts';
import { badRequest, conflict } from '../errors.ts';
import type { AttributeKind, FilterOpName, ListAttribute } from '../listing/index.ts';
import { describeValue, isObject, type JsonObject } from '../request-body.ts';

export const FIELD_TYPES = ['string', 'integer', 'float', 'boolean'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/**
 * Slugs a field cannot take: members of the resource itself and the list's own attributes, and
 * `__proto__`, which no JSON body can carry as an attribute (the body parser refuses it, and a
 * JavaScript object would take it as its prototype), so a field of that name could never hold a
 * value. (`constructor` and `prototype` are ordinary keys: entries store them faithfully.)
 */
export const RESERVED_FIELD_SLUGS = [
  '__proto__',
  'id',
  'type',
  'meta',
  'links',
  'relationships',
  'attributes',
  'timestamps',
  'created_at',
  'updated_at',
  'data_size',
  'resource_version',
  'etag_id',
];

/** Longest string value (characters) and largest integer magnitude an entry may hold. */
export const MAX_STRING_LENGTH = 65_535;
export const MAX_INTEGER = 2 ** 53;
/** A regex must be shorter than this many characters. */
export const MAX_REGEX_LENGTH = 1024;

/** The rules of one field, as stored and as returned under `validation.<field_type>`. */
export interface FieldRules {
  min_length?: number;
  max_length?: number;
  regex?: string;
  min_value?: number;
  max_value?: number;
  allow_null_values: boolean;
  unique?: 'yes' | 'no';
  unique_case_insensitivity?: boolean;
  immutable: boolean;
}

export interface FieldRow {
  id: string;
  store_id: string;
  custom_api_id: string;
  name: string;
  slug: string;
  field_type: FieldType;
  description: string;
  validation: string;
  use_as_url_slug: number;
  sort_order: number | null;
  created_at: string;
  updated_at: string;
}

/** The operators each field type allows in `filter` (production's table). */
export const FIELD_FILTER_OPS: Record<FieldType, FilterOpName[]> = {
  string: ['eq', 'like', 'in', 'lt', 'le', 'gt', 'ge', 'is_null'],
  integer: ['eq', 'in', 'lt', 'le', 'gt', 'ge', 'is_null'],
  float: ['in', 'lt', 'le', 'gt', 'ge', 'is_null'],
  boolean: ['eq', 'is_null'],
};

const RULE_KEYS: Record<FieldType, readonly string[]> = {
  string: [
    'min_length',
    'max_length',
    'regex',
    'allow_null_values',
    'unique',
    'unique_case_insensitivity',
    'immutable',
  ],
  integer: ['min_value', 'max_value', 'allow_null_values', 'immutable'],
  float: ['min_value', 'max_value', 'allow_null_values', 'immutable'],
  boolean: ['allow_null_values', 'immutable'],
};

export function fieldJson(row: FieldRow) {
  return {
    id: row.id,
    type: 'custom_field',
    name: row.name,
    slug: row.slug,
    field_type: row.field_type,
    description: row.description,
    validation: { [row.field_type]: rulesOf(row) },
    use_as_url_slug: row.use_as_url_slug === 1,
    presentation: { sort_order: row.sort_order },
    links: { self: `/settings/extensions/custom-apis/${row.custom_api_id}/fields/${row.id}` },
    meta: { timestamps: { created_at: row.created_at, updated_at: row.updated_at } },
  };
}

export function rulesOf(row: Pick<FieldRow, 'validation'>): FieldRules {
  return JSON.parse(row.validation) as FieldRules;
}

const compiled = new Map<string, RegExp>();

/** The compiled pattern of a stored rule (compiled once per process: rules rarely change). */
function patternOf(source: string): RegExp {
  let regex = compiled.get(source);
  if (regex === undefined) {
    regex = new RegExp(source, 'u');
    if (compiled.size > 1000) compiled.clear();
    compiled.set(source, regex);
  }
  return regex;
}

/**
 * `validation` of a request for a field of `fieldType`: `{"<fieldType>":{…rules}}`, or absent
 * for the defaults (nulls allowed, not unique, mutable). 400s name the offending rule.
 */
export function parseValidation(fieldType: FieldType, raw: unknown): FieldRules {
  const rules: FieldRules = { allow_null_values: true, immutable: false };
  if (fieldType === 'string') {
    rules.unique = 'no';
    rules.unique_case_insensitivity = false;
  }
  if (raw === undefined || raw === null) return rules;
  if (!isObject(raw)) {
    throw badRequest(
      `validation must be an object keyed by the field type, e.g. {"${fieldType}":{…}}.`,
      'data.validation',
    );
  }
  for (const key of Object.keys(raw)) {
    if (key !== fieldType) {
      throw badRequest(
        `validation of a ${fieldType} field holds only "${fieldType}" rules, got "${key}".`,
        `data.validation.${key}`,
      );
    }
  }
  const given = raw[fieldType];
  if (given === undefined || given === null) return rules;
  const at = `data.validation.${fieldType}`;
  if (!isObject(given)) throw badRequest(`validation.${fieldType} must be an object.`, at);
  const allowed = RULE_KEYS[fieldType];
  for (const [key, value] of Object.entries(given)) {
    const source = `${at}.${key}`;
    if (!allowed.includes(key)) {
      throw badRequest(
        `Unknown ${fieldType} rule "${key}"; allowed: ${allowed.join(', ')}.`,
        source,
      );
    }
    if (value === null) continue;
    switch (key) {
      case 'min_length':
      case 'max_length':
        if (!Number.isInteger(value) || (value as number) < 0) {
          throw badRequest(`${key} must be a whole number of at least 0.`, source);
        }
        if ((value as number) > MAX_STRING_LENGTH) {
          throw badRequest(`${key} must be at most ${MAX_STRING_LENGTH}.`, source);
        }
        rules[key] = value as number;
        break;
      case 'regex': {
        if (typeof value !== 'string' || value === '') {
          throw badRequest('regex must be a non-empty string.', source);
        }
        if (value.length >= MAX_REGEX_LENGTH) {
          throw badRequest(`regex must be shorter than ${MAX_REGEX_LENGTH} characters.`, source);
        }
        try {
          patternOf(value);
        } catch (error) {
          throw badRequest(
            `regex cannot be compiled: ${(error as Error).message.slice(0, 200)}.`,
            source,
          );
        }
        rules.regex = value;
        break;
      }
      case 'min_value':
      case 'max_value': {
        const whole = fieldType === 'integer';
        const ok = whole
          ? Number.isInteger(value) && Math.abs(value as number) <= MAX_INTEGER
          : typeof value === 'number' && Number.isFinite(value);
        if (!ok) {
          throw badRequest(
            whole
              ? `${key} must be a whole number within ±2^53.`
              : `${key} must be a finite number.`,
            source,
          );
        }
        rules[key] = value as number;
        break;
      }
      case 'unique':
        if (value !== 'yes' && value !== 'no') {
          throw badRequest('unique must be "yes" or "no".', source);
        }
        rules.unique = value;
        break;
      default:
        if (typeof value !== 'boolean') throw badRequest(`${key} must be true or false.`, source);
        (rules as unknown as Record<string, boolean>)[key] = value;
    }
  }
  if (
    rules.min_length !== undefined &&
    rules.max_length !== undefined &&
    rules.min_length > rules.max_length
  ) {
    throw badRequest('min_length must not exceed max_length.', `${at}.min_length`);
  }
  if (
    rules.min_value !== undefined &&
    rules.max_value !== undefined &&
    rules.min_value > rules.max_value
  ) {
    throw badRequest('min_value must not exceed max_value.', `${at}.min_value`);
  }
  return rules;
}

/** The fields of a Custom API in presentation order. */
export function fieldsOf(db: Db, customApiId: string): FieldRow[] {
  return cachedStatement(
    db,
    `SELECT * FROM custom_api_fields WHERE custom_api_id = ?
     ORDER BY sort_order IS NULL, sort_order, created_at, id`,
  ).all(customApiId) as FieldRow[];
}

const KIND_NAME: Record<FieldType, string> = {
  string: 'a string',
  integer: 'a whole number',
  float: 'a number',
  boolean: 'true or false',
};

/** 400 naming `data.<slug>` when `value` breaks the field's type or rules. */
export function judgeFieldValue(field: FieldRow, rules: FieldRules, value: unknown): void {
  const { slug } = field;
  const source = `data.${slug}`;
  if (value === null) {
    if (!rules.allow_null_values) {
      throw badRequest(`${slug} cannot be null: the field does not allow null values.`, source);
    }
    return;
  }
  const type = field.field_type;
  const fits =
    type === 'string'
      ? typeof value === 'string'
      : type === 'integer'
        ? Number.isInteger(value)
        : type === 'float'
          ? typeof value === 'number' && Number.isFinite(value)
          : typeof value === 'boolean';
  if (!fits) {
    throw badRequest(`${slug} must be ${KIND_NAME[type]}, got ${describeValue(value)}.`, source);
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (length > MAX_STRING_LENGTH) {
      throw badRequest(`${slug} is longer than ${MAX_STRING_LENGTH} characters.`, source);
    }
    if (rules.min_length !== undefined && length < rules.min_length) {
      throw badRequest(`${slug} must be at least ${rules.min_length} characters long.`, source);
    }
    if (rules.max_length !== undefined && length > rules.max_length) {
      throw badRequest(`${slug} must be at most ${rules.max_length} characters long.`, source);
    }
    if (rules.regex !== undefined && !patternOf(rules.regex).test(value)) {
      throw badRequest(`${slug} does not match the pattern ${rules.regex}.`, source);
    }
  }
  if (typeof value === 'number') {
    if (type === 'integer' && Math.abs(value) > MAX_INTEGER) {
      throw badRequest(`${slug} must be within ±2^53 (±9007199254740992).`, source);
    }
    if (rules.min_value !== undefined && value < rules.min_value) {
      throw badRequest(`${slug} must be at least ${rules.min_value}, got ${value}.`, source);
    }
    if (rules.max_value !== undefined && value > rules.max_value) {
      throw badRequest(`${slug} must be at most ${rules.max_value}, got ${value}.`, source);
    }
  }
}

/** SQL that reads one field of the entry JSON; the slug is pattern-checked, never raw input. */
export function fieldColumn(slug: string): string {
  if (!/^[a-z0-9_-]{1,63}$/.test(slug)) throw new Error(`Not a field slug: ${slug}`);
  return `json_extract(data, '$."${slug}"')`;
}

/**
 * Judges the values of a write against the fields of its Custom API, then checks uniqueness.
 * `patch` is what the request sets; `current` the stored attributes on update (undefined on
 * create); `entryId` the entry written. Must run inside the write's transaction.
 */
export function judgeEntryFields(
  db: Db,
  fields: readonly FieldRow[],
  entry: { storeId: string; customApiId: string; entryId: string },
  patch: JsonObject,
  current: JsonObject | undefined,
): void {
  if (fields.length === 0) return;
  for (const field of fields) {
    const rules = rulesOf(field);
    const given = Object.hasOwn(patch, field.slug);
    if (!given) {
      if (current === undefined && !rules.allow_null_values) {
        throw badRequest(
          `${field.slug} is required: the field does not allow null values.`,
          `data.${field.slug}`,
        );
      }
      continue;
    }
    const value = patch[field.slug];
    judgeFieldValue(field, rules, value);
    if (
      rules.immutable &&
      current !== undefined &&
      Object.hasOwn(current, field.slug) &&
      JSON.stringify(current[field.slug]) !== JSON.stringify(value)
    ) {
      throw badRequest(
        `${field.slug} is immutable: it cannot change once set.`,
        `data.${field.slug}`,
      );
    }
  }
  for (const field of fields) {
    if (field.field_type !== 'string') continue;
    const rules = rulesOf(field);
    const value = patch[field.slug];
    if (rules.unique !== 'yes' || typeof value !== 'string') continue;
    const column = fieldColumn(field.slug);
    const folded = rules.unique_case_insensitivity === true;
    const taken = cachedStatement(
      db,
      `SELECT 1 FROM custom_api_entries
       WHERE store_id = ? AND custom_api_id = ? AND id <> ? AND json_type(data, '$."${field.slug}"') = 'text'
         AND ${folded ? `lower(${column}) = lower(?)` : `${column} = ?`}
       LIMIT 1`,
    ).get(entry.storeId, entry.customApiId, entry.entryId, value);
    if (taken) {
      throw conflict(
        `Another entry already has this ${field.slug}${folded ? ' (ignoring case)' : ''}; ` +
          'the field is unique.',
        `data.${field.slug}`,
      );
    }
  }
}

const FILTER_KIND: Record<FieldType, AttributeKind> = {
  string: 'string',
  integer: 'integer',
  float: 'float',
  boolean: 'boolean',
};

/** JSON types a field's comparisons consider: a value of another type never matches. */
const JSON_TYPES: Record<FieldType, string> = {
  string: "('text')",
  integer: "('integer')",
  float: "('integer', 'real')",
  boolean: "('true', 'false')",
};

/** The filter attributes the fields add to their entry list, by slug. */
export function fieldFilters(fields: readonly FieldRow[]): Record<string, ListAttribute> {
  const filters: Record<string, ListAttribute> = {};
  for (const field of fields) {
    filters[field.slug] = {
      column: fieldColumn(field.slug),
      kind: FILTER_KIND[field.field_type],
      ops: FIELD_FILTER_OPS[field.field_type],
      guard: `json_type(data, '$."${field.slug}"') IN ${JSON_TYPES[field.field_type]}`,
    };
  }
  return filters;
}
