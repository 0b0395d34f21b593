/**
 * Reading JSON:API request bodies (`{"data":{…}}`) with 400s that name the offending field
 * (`source` is a dotted path such as `data.name`).
 */
import { badRequest } from './errors.ts';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `data` object of a body; 400 when the body or `data` is not a JSON object. */
export function requireData(body: unknown): JsonObject {
  if (body === undefined || body === null) {
    throw badRequest(
      'The request has no body; send a JSON object of the form {"data":{…}} as application/json.',
    );
  }
  if (!isObject(body)) {
    throw badRequest('The request body must be a JSON object of the form {"data":{…}}.');
  }
  if (!isObject(body.data)) {
    throw badRequest('The request body needs a "data" object.', 'data');
  }
  return body.data;
}

/**
 * Checks `data.type` when present: it must equal `expected`. A missing type is accepted (the
 * seed marks it optional) and means `expected`.
 */
export function checkType(data: JsonObject, expected: string): void {
  if (data.type === undefined) return;
  if (data.type !== expected) {
    // Never stringify the value itself: it may be an arbitrarily deep structure.
    const kind = Array.isArray(data.type) ? 'list' : typeof data.type;
    const got = typeof data.type === 'string' ? `"${data.type}"` : `a ${kind}`;
    throw badRequest(`data.type must be "${expected}", got ${got}.`, 'data.type');
  }
}

export interface StringRule {
  min?: number;
  max?: number;
  pattern?: RegExp;
}

/** A string field; undefined when absent (null counts as absent). Length in characters. */
export function optionalString(
  data: JsonObject,
  key: string,
  rule: StringRule = {},
): string | undefined {
  const value = data[key];
  if (value === undefined || value === null) return undefined;
  const source = `data.${key}`;
  if (typeof value !== 'string') throw badRequest(`${key} must be a string.`, source);
  const length = [...value].length;
  if (rule.min !== undefined && length < rule.min) {
    throw badRequest(`${key} must be at least ${rule.min} characters long.`, source);
  }
  if (rule.max !== undefined && length > rule.max) {
    throw badRequest(`${key} must be at most ${rule.max} characters long.`, source);
  }
  if (rule.pattern && !rule.pattern.test(value)) {
    throw badRequest(`${key} must match ${rule.pattern.source}, got "${value}".`, source);
  }
  return value;
}

export function requireString(data: JsonObject, key: string, rule: StringRule = {}): string {
  const value = optionalString(data, key, rule);
  if (value === undefined) throw badRequest(`${key} is required.`, `data.${key}`);
  return value;
}

export function optionalBoolean(
  data: JsonObject,
  key: string,
  prefix = 'data',
): boolean | undefined {
  const value = data[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') {
    throw badRequest(`${key} must be true or false.`, `${prefix}.${key}`);
  }
  return value;
}

/** 400 naming the first key of `data` that is neither allowed nor ignored. */
export function rejectUnknownKeys(
  data: JsonObject,
  allowed: readonly string[],
  prefix = 'data',
): void {
  for (const key of Object.keys(data)) {
    if (!allowed.includes(key)) {
      throw badRequest(
        `Unknown attribute "${key}"; allowed: ${allowed.filter((k) => k !== 'type').join(', ')}.`,
        `${prefix}.${key}`,
      );
    }
  }
}
