/**
 * Reading the resource-level shapes of JSON:API request bodies, on top of ./request-body.ts's
 * field judges: a flat write's attributes, a nested (`/pcm`-style) resource with its
 * relationships and meta, maps of entries (a price's currencies) and identifier lists
 * (`{type, id}` relationships). The same wording rules as request-body.ts: `source` is the dotted
 * path of the offending field.
 */
import { badRequest } from './errors.ts';
import { isUuid } from './ids.ts';
import {
  checkType,
  describeValue,
  isObject,
  type JsonObject,
  oneOf,
  optionalObject,
  rejectUnknownKeys,
  requireData,
  requireObject,
} from './request-body.ts';

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

/** Members of a nested (`{data:{type,id,attributes}}`) resource; any other is a 400. */
const RESOURCE_MEMBERS = ['type', 'id', 'attributes', 'links', 'meta', 'relationships'];

/** A nested-style resource (`{data:{type, id?, attributes, relationships?, meta?}}`), read. */
export interface ResourceBody {
  id: string | undefined;
  attributes: JsonObject;
  relationships: JsonObject;
  meta: JsonObject;
}

export interface ResourceRule {
  /** `data.attributes` must be an object; otherwise it may be absent (read as `{}`). */
  requireAttributes?: boolean;
  /** The attributes a write may carry: 400 naming the first other one; unchecked when not given. */
  attributes?: readonly string[];
  /** Attributes a client may send back unchanged from a read (`created_at`); dropped. */
  readOnly?: readonly string[];
  /** The relationships the resource takes: 400 naming the first other one, when given. */
  relationships?: readonly string[];
  /** The id of the path: a `data.id`, when sent, must be it (any case), else 400. */
  id?: string;
}

/**
 * The `data` of a write of a nested (`/pcm`-style) `type` resource:
 * `{"data":{"type":…,"id"?:…,"attributes":{…},"relationships"?:{…},"meta"?:{…}}}`.
 * `data.type` is checked when present (missing means `type`); `attributes`, `relationships`
 * and `meta` must be objects when present (null counts as absent), `links` is ignored, and any
 * other member of `data` is a 400 naming it. `id` is returned as sent when it is a string (the
 * caller compares it with the path, or `rule.id` does). Attributes named in `rule.readOnly`
 * are dropped; with `rule.attributes`, the first other attribute is a 400
 * (`data.attributes.<key>`); with `rule.relationships`, likewise for relationships.
 */
export function readResource(
  body: unknown,
  type: string | readonly string[],
  rule: ResourceRule = {},
): ResourceBody {
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
  const id = data.id ?? undefined;
  if (id !== undefined && typeof id !== 'string') {
    throw badRequest('data.id must be a string.', 'data.id');
  }
  if (rule.id !== undefined && id !== undefined && id.toLowerCase() !== rule.id.toLowerCase()) {
    throw badRequest('data.id must be the id of the path.', 'data.id');
  }
  const given =
    rule.requireAttributes === true
      ? requireObject(data, 'attributes', {
          shape: `{"data":{"type":"${typeof type === 'string' ? type : type[0]}","attributes":{…}}}`,
        })
      : (optionalObject(data, 'attributes') ?? {});
  const readOnly = rule.readOnly ?? [];
  const attributes = Object.fromEntries(
    Object.entries(given).filter(([key]) => !readOnly.includes(key)),
  );
  if (rule.attributes !== undefined) {
    rejectUnknownKeys(attributes, rule.attributes, 'data.attributes');
  }
  const relationships = optionalObject(data, 'relationships') ?? {};
  if (rule.relationships !== undefined) {
    rejectUnknownKeys(relationships, rule.relationships, 'data.relationships');
  }
  return { id, attributes, relationships, meta: optionalObject(data, 'meta') ?? {} };
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

/** One `{type, id}` resource identifier; `source` names it in errors. */
export function readIdentifier(
  value: unknown,
  type: string | readonly string[],
  source: string,
): { id: string; item: JsonObject } {
  if (!isObject(value)) {
    throw badRequest(`${source} must be an object {"type","id"}.`, source);
  }
  const allowed = typeof type === 'string' ? [type] : type;
  if (
    value.type !== undefined &&
    !(typeof value.type === 'string' && allowed.includes(value.type))
  ) {
    const got = typeof value.type === 'string' ? `"${value.type}"` : describeValue(value.type);
    throw badRequest(`${source}.type must be ${oneOf(allowed)}, got ${got}.`, `${source}.type`);
  }
  const id = value.id;
  if (typeof id !== 'string' || !isUuid(id)) {
    throw badRequest(`${source}.id must be a uuid.`, `${source}.id`);
  }
  return { id: id.toLowerCase(), item: value };
}

/**
 * The identifiers of a relationship body, `{"data":[{"type","id"},…]}`: at least one and at
 * most `max`, each judged by `readIdentifier`; duplicates are one.
 */
export function readIdentifierList(
  body: unknown,
  type: string | readonly string[],
  max: number,
): { id: string; item: JsonObject }[] {
  if (!isObject(body) || !Array.isArray(body.data)) {
    throw badRequest('The request body must be {"data":[{"type","id"},…]}.', 'data');
  }
  const list = body.data;
  if (list.length === 0) throw badRequest('data must list at least one resource.', 'data');
  if (list.length > max) throw badRequest(`data may list at most ${max} resources.`, 'data');
  const seen = new Map<string, { id: string; item: JsonObject }>();
  list.forEach((value, i) => {
    const read = readIdentifier(value, type, `data[${i}]`);
    if (!seen.has(read.id)) seen.set(read.id, read);
  });
  return [...seen.values()];
}
