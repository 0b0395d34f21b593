/**
 * Judging typed input against a field's definition before any upstream call, and rendering
 * typed filters in the v2 syntax. What the gateway can judge: type (GraphQL's own scalars),
 * nulls, length, bounds and regex. What it cannot (uniqueness, immutability) the upstream
 * judges: its 409 and 400 arrive as CONFLICT and BAD_USER_INPUT.
 */
import type { FieldRules, FieldType } from '../../upstream/custom-api-definitions.ts';
import { BadUserInputError } from '../../upstream/errors.ts';
import { MAX_IN_VALUES } from '../../upstream/paging/plan.ts';
import { filterClause } from '../../upstream/paging/query.ts';

/** The longest string value the v2 API stores, in characters. */
export const MAX_STRING_CHARS = 65_535;

/** A field of a typed Custom API: its slug upstream, its GraphQL name, type and rules. */
export interface MappedField {
  slug: string;
  name: string;
  type: FieldType;
  description: string;
  rules: FieldRules;
}

const patterns = new Map<string, RegExp | null>();

/**
 * The rule's pattern as a JavaScript regex, or null when JavaScript cannot compile it (RE2 and
 * JavaScript differ at the edges): then the upstream alone judges it.
 */
function patternOf(source: string): RegExp | null {
  let pattern = patterns.get(source);
  if (pattern === undefined) {
    try {
      pattern = new RegExp(source, 'u');
    } catch {
      pattern = null;
    }
    if (patterns.size > 1000) patterns.clear();
    patterns.set(source, pattern);
  }
  return pattern;
}

function bad(message: string, field: string): never {
  throw new BadUserInputError(message, { field });
}

/** Throws BAD_USER_INPUT naming `path` when `value` breaks the field's rules. */
export function judgeFieldValue(field: MappedField, value: unknown, path: string): void {
  const { rules } = field;
  if (value === null) {
    if (!rules.allowNull) bad(`${path} cannot be null: the field does not allow null values`, path);
    return;
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (length > MAX_STRING_CHARS)
      bad(`${path} is longer than ${MAX_STRING_CHARS} characters`, path);
    if (rules.minLength !== undefined && length < rules.minLength) {
      bad(`${path} must be at least ${rules.minLength} characters long`, path);
    }
    if (rules.maxLength !== undefined && length > rules.maxLength) {
      bad(`${path} must be at most ${rules.maxLength} characters long`, path);
    }
    const pattern = rules.regex === undefined ? null : patternOf(rules.regex);
    if (pattern !== null && !pattern.test(value)) {
      bad(`${path} does not match the pattern ${rules.regex}`, path);
    }
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) bad(`${path} must be a finite number`, path);
    if (rules.minValue !== undefined && value < rules.minValue) {
      bad(`${path} must be at least ${rules.minValue}, got ${value}`, path);
    }
    if (rules.maxValue !== undefined && value > rules.maxValue) {
      bad(`${path} must be at most ${rules.maxValue}, got ${value}`, path);
    }
  }
}

/**
 * The attributes of a create or update input, keyed by slug. On create, a field that does not
 * allow null values must be given.
 */
export function judgeFieldInput(
  fields: readonly MappedField[],
  input: Record<string, unknown>,
  mode: 'create' | 'update',
): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  for (const field of fields) {
    const path = `input.${field.name}`;
    // Own keys only: a field named `constructor` or `toString` must not read Object.prototype.
    const value = Object.hasOwn(input, field.name) ? input[field.name] : undefined;
    if (value === undefined) {
      if (mode === 'create' && !field.rules.allowNull) {
        bad(`${path} is required: the field does not allow null values`, path);
      }
      continue;
    }
    judgeFieldValue(field, value, path);
    // Defined, not assigned: a slug `__proto__` would otherwise set the object's prototype
    // and the value would silently never be sent.
    Object.defineProperty(attributes, field.slug, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return attributes;
}

/** The operators of each type, as GraphQL filter fields → v2 operators. */
export const FILTER_OPS: Record<FieldType, readonly string[]> = {
  string: ['eq', 'in', 'lt', 'le', 'gt', 'ge', 'like', 'isNull'],
  integer: ['eq', 'in', 'lt', 'le', 'gt', 'ge', 'isNull'],
  float: ['in', 'lt', 'le', 'gt', 'ge', 'isNull'],
  boolean: ['eq', 'isNull'],
};

function renderValue(value: unknown, path: string, inList: boolean): string {
  if (typeof value === 'string') {
    if (value === '') bad(`${path} must not be empty`, path);
    // The v2 filter syntax has no escapes: these characters would end the clause or the list.
    if (/[()]/.test(value) || (inList && value.includes(','))) {
      bad(`${path} cannot contain "(", ")"${inList ? ' or ","' : ''} (v2 filter syntax)`, path);
    }
    return value;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return bad(`${path} has an unsupported value`, path);
}

/**
 * A filter value, or an `in` list of 1 to MAX_IN_VALUES values, in the v2 syntax; a value the
 * syntax cannot carry is refused naming `path`. Shared by the typed and the described lists.
 */
export function renderFilterValue(value: unknown, path: string): string {
  if (!Array.isArray(value)) return renderValue(value, path, false);
  if (value.length === 0 || value.length > MAX_IN_VALUES) {
    bad(`${path} takes a list of 1 to ${MAX_IN_VALUES} values`, path);
  }
  return value.map((v) => renderValue(v, path, true)).join(',');
}

/** v2 filter clauses for the typed part of a filter input (`{ code: { eq: "A" } }`). */
export function renderFieldFilters(
  fields: readonly MappedField[],
  filter: Record<string, unknown> | null | undefined,
): string[] {
  if (!filter) return [];
  const clauses: string[] = [];
  for (const field of fields) {
    const ops = (Object.hasOwn(filter, field.name) ? filter[field.name] : undefined) as
      | Record<string, unknown>
      | null
      | undefined;
    if (!ops) continue;
    for (const op of FILTER_OPS[field.type]) {
      const value = ops[op];
      if (value === undefined || value === null) continue;
      const path = `filter.${field.name}.${op}`;
      if (op === 'isNull') {
        clauses.push(filterClause('is_null', field.slug, String(value === true)));
      } else if (op === 'in') {
        clauses.push(filterClause('in', field.slug, renderFilterValue(value as unknown[], path)));
      } else {
        clauses.push(filterClause(op, field.slug, renderFilterValue(value, path)));
      }
    }
  }
  return clauses;
}
