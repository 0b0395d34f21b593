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
function oneOf(expected: readonly string[]): string {
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

/** Members of a resource's JSON that a client may send back unchanged and a write ignores. */
const READ_ONLY_MEMBERS = ['id', 'links', 'meta', 'relationships'];

/**
 * The attributes of a write of a `type` resource: `data` (its `type` checked) without the
 * read-only members a client may echo back; 400 naming the first other key not `allowed`.
 */
export function requireAttributes(
  body: unknown,
  type: string,
  allowed: readonly string[],
): JsonObject {
  const data = requireData(body);
  checkType(data, type);
  const attributes = Object.fromEntries(
    Object.entries(data).filter(([key]) => !READ_ONLY_MEMBERS.includes(key)),
  );
  rejectUnknownKeys(attributes, allowed);
  return attributes;
}

/** Members of a nested (`{data:{type,id,attributes}}`) resource besides its attributes. */
const RESOURCE_MEMBERS = ['type', 'id', 'attributes', 'links', 'meta', 'relationships'];

export interface ResourceRule {
  /** Attributes a client may send back unchanged from a read (`created_at`); dropped. */
  readOnly?: readonly string[];
  /** The id of the path: a `data.id`, when sent, must be it (any case). */
  id?: string;
}

/**
 * The `data.attributes` of a write of a nested (`/pcm`-style) `type` resource:
 * `{"data":{"type":…,"id"?:…,"attributes":{…}}}`. `data.type` is checked when present,
 * `data.id` when `rule.id` is given; `links`, `meta` and `relationships` may be echoed back
 * and are ignored; 400 naming the first other key of `data` and the first attribute that is
 * neither `allowed` nor read-only (`data.attributes.<key>`).
 */
export function requireResourceAttributes(
  body: unknown,
  type: string,
  allowed: readonly string[],
  rule: ResourceRule = {},
): JsonObject {
  const data = requireData(body);
  checkType(data, type);
  for (const key of Object.keys(data)) {
    if (!RESOURCE_MEMBERS.includes(key)) {
      throw badRequest(
        `Unknown member "${key}" of data: attributes go under data.attributes.`,
        `data.${key}`,
      );
    }
  }
  if (rule.id !== undefined && data.id !== undefined && data.id !== null) {
    if (typeof data.id !== 'string' || data.id.toLowerCase() !== rule.id.toLowerCase()) {
      throw badRequest('data.id must be the id of the path.', 'data.id');
    }
  }
  const attributes = requireObject(data, 'attributes', {
    shape: `{"data":{"type":"${type}","attributes":{…}}}`,
  });
  const readOnly = rule.readOnly ?? [];
  const kept = Object.fromEntries(
    Object.entries(attributes).filter(([key]) => !readOnly.includes(key)),
  );
  rejectUnknownKeys(kept, allowed, 'data.attributes');
  return kept;
}

export interface MapRule {
  /** The path of the object the map is in. */
  prefix: string;
  /** The most keys. */
  maxKeys: number;
  /** What each key must look like, and how to say so. */
  keyPattern?: { pattern: RegExp; says: string };
}

/**
 * The entries of the object at `key` (a map keyed by names the client chose), or undefined
 * when absent (null counts as absent). 400 when it is not an object, has more than
 * `rule.maxKeys` keys, or a key that does not match `rule.keyPattern`.
 */
export function optionalMapEntries(
  data: JsonObject,
  key: string,
  rule: MapRule,
): [string, unknown][] | undefined {
  const value = data[key];
  if (value === undefined || value === null) return undefined;
  const source = `${rule.prefix}.${key}`;
  if (!isObject(value)) throw badRequest(`${source} must be an object.`, source);
  const entries = Object.entries(value);
  if (entries.length > rule.maxKeys) {
    throw badRequest(`${source} may have at most ${rule.maxKeys} keys.`, source);
  }
  if (rule.keyPattern !== undefined) {
    for (const [name] of entries) {
      if (!rule.keyPattern.pattern.test(name)) {
        // The key is echoed only when short: it is the client's own text, bounded here.
        const shown = name.length <= 64 ? `"${name}"` : 'a key';
        throw badRequest(
          `${source} has ${shown} as a key; keys must be ${rule.keyPattern.says}.`,
          `${source}.${name.slice(0, 64)}`,
        );
      }
    }
  }
  return entries;
}

/**
 * A map of custom attributes (`admin_attributes`, `shopper_attributes`): string keys of 1–255
 * characters to a string (at most `rule.maxValue` characters) or null, at most
 * `rule.maxKeys` keys. Undefined when absent.
 */
export function optionalStringMap(
  data: JsonObject,
  key: string,
  rule: { prefix: string; maxKeys: number; maxValue: number },
): Record<string, string | null> | undefined {
  const entries = optionalMapEntries(data, key, {
    prefix: rule.prefix,
    maxKeys: rule.maxKeys,
    keyPattern: { pattern: /^.{1,255}$/su, says: '1 to 255 characters' },
  });
  if (entries === undefined) return undefined;
  const map: Record<string, string | null> = {};
  for (const [name, value] of entries) {
    const source = `${rule.prefix}.${key}.${name}`;
    if (value !== null && typeof value !== 'string') {
      throw badRequest(`${source} must be a string or null.`, source);
    }
    if (typeof value === 'string' && value.length > rule.maxValue) {
      throw badRequest(`${source} must be at most ${rule.maxValue} characters.`, source);
    }
    map[name] = value;
  }
  return map;
}
