/**
 * Reading JSON:API request bodies (`{"data":{…}}`): the one judge of a body's shape, with 400s
 * whose `source` is the dotted path of the offending field (`data.price.amount`). Route modules
 * read bodies through these helpers only and add nothing but their domain's rules.
 *
 * Two wordings live here, each kept because clients have seen it: the attribute helpers
 * (`…String`, `optionalBoolean`) name the attribute (`name must be a string.`); the helpers
 * that take a `prefix` for nested objects (`…Text`, `…Email`, `requireBoolean`,
 * `requireInteger`, `requireObject`) name the whole path (`data.customer.name must be a
 * string.`), since a nested field's bare name is ambiguous.
 */
import { badRequest } from './errors.ts';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What a value is, in words, for an error detail: never the value itself, which may be an
 * arbitrarily deep structure or a secret. Strings are quoted by the callers that echo them.
 */
export function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return Number.isInteger(value) ? 'a whole number' : 'a number';
  return typeof value === 'boolean' ? `${value}` : typeof value;
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

/** `"a"`, `"a" or "b"`, `"a", "b" or "c"`. */
export function oneOf(expected: readonly string[]): string {
  const quoted = expected.map((name) => `"${name}"`);
  const last = quoted.pop();
  return quoted.length === 0 ? `${last}` : `${quoted.join(', ')} or ${last}`;
}

/**
 * Checks `data.type` when present: it must be `expected` (or one of them). A missing type is
 * accepted (the seed marks it optional) and means `expected`. `why`, when given, is a sentence
 * the detail ends with.
 */
export function checkType(
  data: JsonObject,
  expected: string | readonly string[],
  why?: string,
): void {
  const type = data.type;
  if (type === undefined) return;
  const allowed = typeof expected === 'string' ? [expected] : expected;
  if (typeof type === 'string' && allowed.includes(type)) return;
  // Only a string is echoed: anything else is described (describeValue).
  const got = typeof type === 'string' ? `"${type}"` : describeValue(type);
  const reason = why === undefined ? '' : ` ${why}`;
  throw badRequest(`data.type must be ${oneOf(allowed)}, got ${got}.${reason}`, 'data.type');
}

/** `data.type` must be given and be `expected`; as `checkType` otherwise. */
export function requireType(data: JsonObject, expected: string, why?: string): void {
  if (data.type === undefined) {
    const reason = why === undefined ? '' : ` ${why}`;
    throw badRequest(`data.type is required and must be "${expected}".${reason}`, 'data.type');
  }
  checkType(data, expected, why);
}

export interface StringRule {
  min?: number;
  max?: number;
  pattern?: RegExp;
  /** The path of the object the field is in; default `data` (`data.attributes` for nested bodies). */
  prefix?: string;
}

/** A string field; undefined when absent (null counts as absent). Length in characters. */
export function optionalString(
  data: JsonObject,
  key: string,
  rule: StringRule = {},
): string | undefined {
  const value = data[key];
  if (value === undefined || value === null) return undefined;
  const source = `${rule.prefix ?? 'data'}.${key}`;
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
  if (value === undefined) {
    throw badRequest(`${key} is required.`, `${rule.prefix ?? 'data'}.${key}`);
  }
  return value;
}

/** One of `allowed` (a string), or undefined when absent (null counts as absent). */
export function optionalEnum<T extends string>(
  data: JsonObject,
  key: string,
  allowed: readonly T[],
  prefix = 'data',
): T | undefined {
  const value = data[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) {
    return value as T;
  }
  const source = `${prefix}.${key}`;
  const got = typeof value === 'string' ? `"${value}"` : describeValue(value);
  throw badRequest(`${source} must be ${oneOf(allowed)}, got ${got}.`, source);
}

/** As `optionalEnum`, and 400 `<path> is required.` when absent. */
export function requireEnum<T extends string>(
  data: JsonObject,
  key: string,
  allowed: readonly T[],
  prefix = 'data',
): T {
  const value = optionalEnum(data, key, allowed, prefix);
  if (value === undefined) {
    throw badRequest(`${prefix}.${key} is required: ${oneOf(allowed)}.`, `${prefix}.${key}`);
  }
  return value;
}

/**
 * A list of strings, each judged by `rule.item` (its errors name `<path>[i]`), at most
 * `rule.maxItems` long; undefined when absent (null counts as absent).
 */
export function optionalStringList(
  data: JsonObject,
  key: string,
  rule: { prefix?: string; maxItems: number; item?: StringRule },
): string[] | undefined {
  const value = data[key];
  if (value === undefined || value === null) return undefined;
  const source = `${rule.prefix ?? 'data'}.${key}`;
  if (!Array.isArray(value)) throw badRequest(`${source} must be a list of strings.`, source);
  if (value.length > rule.maxItems) {
    throw badRequest(`${source} may hold at most ${rule.maxItems} items.`, source);
  }
  return value.map((item, i) =>
    requireString({ [`${key}[${i}]`]: item }, `${key}[${i}]`, {
      ...rule.item,
      prefix: rule.prefix ?? 'data',
    }),
  );
}

/** The object at `key`, or undefined when absent (null counts as absent); else 400. */
export function optionalObject(
  data: JsonObject,
  key: string,
  prefix = 'data',
): JsonObject | undefined {
  const value = data[key];
  if (value === undefined || value === null) return undefined;
  if (isObject(value)) return value;
  throw badRequest(`${prefix}.${key} must be an object.`, `${prefix}.${key}`);
}

/** As `requireInteger`, but undefined when absent (null counts as absent). */
export function optionalInteger(
  data: JsonObject,
  key: string,
  rule: IntegerRule,
  prefix = 'data',
): number | undefined {
  const value = data[key];
  if (value === undefined || value === null) return undefined;
  return requireInteger(data, key, rule, prefix);
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

/** A boolean that must be given (null is not one): 400 `<path> must be a boolean.` */
export function requireBoolean(data: JsonObject, key: string, prefix = 'data'): boolean {
  const value = data[key];
  const source = `${prefix}.${key}`;
  if (typeof value !== 'boolean') throw badRequest(`${source} must be a boolean.`, source);
  return value;
}

/** The longest line of text (a name, a SKU, an address line), in UTF-16 code units. */
export const MAX_TEXT = 255;

export interface TextRule {
  /** The path of the object the field is in; default `data`. */
  prefix?: string;
  /** Whether an empty or all-blank string is a value (a description); default no. */
  blank?: boolean;
  /** The most UTF-16 code units; default MAX_TEXT (an `external_ref` allows 2,048). */
  max?: number;
}

/**
 * A line of text a person reads (a name, a SKU, an address line): a string, not blank unless
 * `rule.blank`, at most MAX_TEXT UTF-16 code units, as the gateway counts, so both refuse the
 * same input. Undefined when absent (null counts as absent).
 */
export function optionalText(
  data: JsonObject,
  key: string,
  rule: TextRule = {},
): string | undefined {
  const value = data[key];
  if (value === undefined || value === null) return undefined;
  const source = `${rule.prefix ?? 'data'}.${key}`;
  if (typeof value !== 'string') throw badRequest(`${source} must be a string.`, source);
  if (rule.blank !== true && value.trim() === '') {
    throw badRequest(`${source} must not be empty.`, source);
  }
  const max = rule.max ?? MAX_TEXT;
  if (value.length > max) {
    throw badRequest(`${source} must be at most ${max} characters.`, source);
  }
  return value;
}

/** As `optionalText`, and 400 `<path> is required.` when absent. */
export function requireText(data: JsonObject, key: string, rule: TextRule = {}): string {
  const value = optionalText(data, key, rule);
  if (value === undefined) {
    const source = `${rule.prefix ?? 'data'}.${key}`;
    throw badRequest(`${source} is required.`, source);
  }
  return value;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function judgeEmail(value: string, source: string): string {
  if (!EMAIL.test(value)) throw badRequest(`${source} is not an email address.`, source);
  return value;
}

/** A line of text (`optionalText`) that is an email address: something@somewhere.tld. */
export function optionalEmail(data: JsonObject, key: string, prefix = 'data'): string | undefined {
  const value = optionalText(data, key, { prefix });
  return value === undefined ? undefined : judgeEmail(value, `${prefix}.${key}`);
}

/** As `optionalEmail`, and 400 `<path> is required.` when absent. */
export function requireEmail(data: JsonObject, key: string, prefix = 'data'): string {
  return judgeEmail(requireText(data, key, { prefix }), `${prefix}.${key}`);
}

export interface IntegerRule {
  min: number;
  max: number;
  /** What is counted, named in the detail: `minor units` → "an integer number of minor units". */
  unit?: string;
}

/**
 * A whole number from `rule.min` to `rule.max` (a JSON number, not a numeric string): 400
 * `<path> is required.` when absent (null counts as absent), else one detail that says the
 * range, for any other value.
 */
export function requireInteger(
  data: JsonObject,
  key: string,
  rule: IntegerRule,
  prefix = 'data',
): number {
  const value = data[key];
  const source = `${prefix}.${key}`;
  if (value === undefined || value === null) throw badRequest(`${source} is required.`, source);
  if (
    typeof value !== 'number' ||
    !Number.isSafeInteger(value) ||
    value < rule.min ||
    value > rule.max
  ) {
    const what = rule.unit === undefined ? 'an integer' : `an integer number of ${rule.unit}`;
    throw badRequest(`${source} must be ${what} from ${rule.min} to ${rule.max}.`, source);
  }
  return value;
}

/**
 * The object at `key`, for any other value a 400: `<path> is required: <shape>.` when `shape`
 * says what to send, else `<path> must be an object.`
 */
export function requireObject(
  data: JsonObject,
  key: string,
  options: { prefix?: string; shape?: string } = {},
): JsonObject {
  const value = data[key];
  if (isObject(value)) return value;
  const source = `${options.prefix ?? 'data'}.${key}`;
  throw badRequest(
    options.shape === undefined
      ? `${source} must be an object.`
      : `${source} is required: ${options.shape}.`,
    source,
  );
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
