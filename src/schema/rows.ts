/**
 * Readers for upstream JSON rows and judges for caller input. A row missing what the schema
 * promises is an unusable upstream answer (UPSTREAM_UNAVAILABLE), never a half-filled object;
 * input the gateway can judge is refused with BAD_USER_INPUT naming the field, before any call.
 */
import { isJsonObject, type JsonObject } from '../upstream/client.ts';
import {
  BadUserInputError,
  UpstreamUnavailableError,
  ValueOutOfRangeError,
} from '../upstream/errors.ts';

/** An upstream answer the gateway cannot read; `what` names the part. */
export function unusable(what: string): UpstreamUnavailableError {
  return new UpstreamUnavailableError(`The commerce service sent an unusable answer (${what})`, {
    reason: 'invalid-body',
  });
}

/** The id of a row's to-one relationship (`relationships.<name>.data.id`), or null. */
export function relationId(row: JsonObject, name: string): string | null {
  const relationships = isJsonObject(row.relationships) ? row.relationships : {};
  const relation = relationships[name];
  const data = isJsonObject(relation) ? relation.data : undefined;
  return isJsonObject(data) && typeof data.id === 'string' ? data.id : null;
}

export function readString(row: JsonObject, key: string, type: string): string {
  const value = row[key];
  if (typeof value !== 'string') throw unusable(`${type}.${key} is not a string`);
  return value;
}

export function readOptionalString(row: JsonObject, key: string): string | null {
  const value = row[key];
  return typeof value === 'string' ? value : null;
}

/**
 * The largest amount (minor units) and quantity a client can receive: GraphQL's `Int` is 32-bit.
 * The embedded service keeps every price, discount and total within ±MAX_AMOUNT; the gateway
 * judges its input against it too.
 */
export const MAX_AMOUNT = 2 ** 31 - 1;

function outOfRange(what: string, value: number, shown = String(value)): ValueOutOfRangeError {
  return new ValueOutOfRangeError(
    `${what} is ${shown}, beyond the 32-bit Int this API returns (±${MAX_AMOUNT})`,
  );
}

/** An integer the schema returns as `Int`: one beyond 32 bits is VALUE_OUT_OF_RANGE. */
export function readInt(row: JsonObject, key: string, type: string): number {
  const value = row[key];
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw unusable(`${type}.${key} is not an integer`);
  }
  if (value > MAX_AMOUNT || value < -MAX_AMOUNT - 1) throw outOfRange(`${type}.${key}`, value);
  return value;
}

export function readBoolean(row: JsonObject, key: string, type: string): boolean {
  const value = row[key];
  if (typeof value !== 'boolean') throw unusable(`${type}.${key} is not a boolean`);
  return value;
}

export function readObject(row: JsonObject, key: string, type: string): JsonObject {
  const value = row[key];
  if (!isJsonObject(value)) throw unusable(`${type}.${key} is not an object`);
  return value;
}

/** `meta.timestamps.{created_at,updated_at}`, the place every v2 resource keeps them. */
export function readTimestamps(
  row: JsonObject,
  type: string,
): { createdAt: string; updatedAt: string } {
  const timestamps = readObject(readObject(row, 'meta', type), 'timestamps', `${type}.meta`);
  return {
    createdAt: readString(timestamps, 'created_at', `${type}.meta.timestamps`),
    updatedAt: readString(timestamps, 'updated_at', `${type}.meta.timestamps`),
  };
}

/** An amount in minor units with its currency and display form. */
export interface MoneyShape {
  amount: number;
  currency: string;
  formatted: string;
}

export function readMoney(value: unknown, type: string): MoneyShape {
  if (!isJsonObject(value)) throw unusable(`${type} is not a money object`);
  const currency = readString(value, 'currency', type);
  const formatted = readString(value, 'formatted', type);
  const amount = value.amount;
  if (typeof amount !== 'number' || !Number.isInteger(amount)) {
    throw unusable(`${type}.amount is not an integer`);
  }
  if (amount > MAX_AMOUNT || amount < -MAX_AMOUNT - 1) {
    // The display form is exact at any size: the message carries it.
    throw outOfRange(`${type}.amount`, amount, `${amount} (${formatted})`);
  }
  return { amount, currency, formatted };
}

// ---- input judges ----

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
// Production carts may carry caller-chosen ids; anything outside this alphabet cannot be one.
const CART_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * An upstream id (uuid form) of a Custom API, entry, item, discount, order, file or account, in
 * the lower case the upstream writes them in: uuids are case-insensitive, and the batch loaders
 * match the rows that come back to the ids asked for by equality.
 */
export function judgeUuid(value: string, field: string): string {
  if (!UUID.test(value)) {
    throw new BadUserInputError(`${field} must be an upstream id (a uuid)`, { field });
  }
  return value.toLowerCase();
}

/** An id of a filter: lower-cased when it is a uuid (as judgeUuid), any other id as it is. */
export function normalizeFilterId(value: string): string {
  return UUID.test(value) ? value.toLowerCase() : value;
}

export function judgeCartId(value: string, field: string): string {
  if (!CART_ID.test(value)) {
    throw new BadUserInputError(`${field} must be a cart id (1-64 letters, digits, "-" or "_")`, {
      field,
    });
  }
  return value;
}

export function judgeNonEmpty(value: string, field: string, max = 255): string {
  if (value.trim() === '') {
    throw new BadUserInputError(`${field} must not be empty`, { field });
  }
  if (value.length > max) {
    throw new BadUserInputError(`${field} must be at most ${max} characters`, { field });
  }
  return value;
}

// A weak or strong entity tag, or the bare etag_id hash the entry exposes.
const ETAG = /^(W\/)?"[\x21\x23-\x7e]{1,200}"$/;
const BARE_ETAG = /^[\x21\x23-\x7e]{1,200}$/;

/** `ifMatch` as an If-Match header value: a full entity tag, or the bare hash wrapped as weak. */
export function judgeIfMatch(value: string, field: string): string {
  if (ETAG.test(value)) return value;
  if (BARE_ETAG.test(value)) return `W/"${value}"`;
  throw new BadUserInputError(`${field} must be an entity tag such as W/"<etag>"`, { field });
}

/**
 * An optional `ifMatch`: absent (null or not given) means no precondition; anything given is
 * judged, so an empty string is refused rather than silently dropping the precondition.
 */
export function optionalIfMatch(value: unknown, field: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw new BadUserInputError(
      `${field} must be an entity tag such as W/"<etag>", or left out for no precondition`,
      { field },
    );
  }
  return judgeIfMatch(value, field);
}
