/**
 * Judges of the merchandiser's input (src/schema/pcm/*): every value is checked here, before any
 * upstream call, against what the catalog API accepts, and refused with BAD_USER_INPUT naming
 * its field. The bounds are the service's (src/commerce-service/pcm, pricebooks, catalogs):
 * a gateway that let more through would only move the refusal upstream, after a call.
 */
import { BadUserInputError } from '../../upstream/errors.ts';
import { judgeNonEmpty, MAX_AMOUNT } from '../rows.ts';

const refuse = (field: string, message: string): never => {
  throw new BadUserInputError(`${field} ${message}`, { field });
};

/** Names, 1–255 characters, not blank. */
export const judgeName = (value: string, field: string) => judgeNonEmpty(value, field, 255);

/** Descriptions: up to 1,024 characters (price books, catalogs and rules take no more). */
export function judgeDescription(value: string, field: string): string {
  if (value.length > 1024) refuse(field, 'must be at most 1024 characters');
  return value;
}

// SKUs go into `filter=in(sku,…)` and `eq(sku,…)`: nothing that would end or join a clause.
const SKU = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,254}$/;

export function judgeSku(value: string, field: string): string {
  if (!SKU.test(value)) {
    refuse(
      field,
      'must be a SKU: 1-255 letters, digits, ".", "_", "/" or "-", starting with a letter or digit',
    );
  }
  return value;
}

// The service's slugs: letters, digits, `_ . -`; a parent product's may hold `{option}` parts.
const SLUG = /^[A-Za-z0-9_.-]{1,255}$/;
const PRODUCT_SLUG = /^[A-Za-z0-9_.{}-]{1,255}$/;

export function judgeSlug(value: string, field: string): string {
  if (!SLUG.test(value)) refuse(field, 'must be a slug: 1-255 letters, digits, "_", "." or "-"');
  return value;
}

export function judgeProductSlug(value: string, field: string): string {
  if (!PRODUCT_SLUG.test(value)) {
    refuse(field, 'must be a slug: 1-255 letters, digits, "_", ".", "-" (and "{option}" parts)');
  }
  return value;
}

/** A text attribute of a product (UPC/EAN, MPN, external reference): 1–2,048 characters. */
export const judgeRef = (value: string, field: string) => judgeNonEmpty(value, field, 2048);

/** ISO 4217: three letters, sent upper-case. */
export function judgeCurrency(value: string, field: string): string {
  if (!/^[A-Za-z]{3}$/.test(value)) refuse(field, 'must be a 3-letter ISO 4217 currency code');
  return value.toUpperCase();
}

/** A price in minor units: 0 to 2^31−1 (what Money.amount can show). */
export function judgeAmount(value: number, field: string): number {
  if (!Number.isInteger(value) || value < 0 || value > MAX_AMOUNT) {
    refuse(field, `must be an integer number of minor units from 0 to ${MAX_AMOUNT}`);
  }
  return value;
}

/** A stock quantity: 0 to 2^31−1 (the service's MAX_STOCK). */
export function judgeQuantity(value: number, field: string, min = 0): number {
  if (!Number.isInteger(value) || value < min || value > MAX_AMOUNT) {
    refuse(field, `must be an integer from ${min} to ${MAX_AMOUNT}`);
  }
  return value;
}

/** `sort_order` and price book priorities: a 32-bit integer. */
export function judgeInt32(value: number, field: string): number {
  if (!Number.isInteger(value) || value < -MAX_AMOUNT || value > MAX_AMOUNT) {
    refuse(field, `must be an integer from -${MAX_AMOUNT} to ${MAX_AMOUNT}`);
  }
  return value;
}

/** A list of at most `max` items, each judged at `field[i]`; duplicates refused. */
export function judgeList<T, U>(
  values: readonly T[],
  field: string,
  max: number,
  judge: (value: T, field: string) => U,
  min = 0,
): U[] {
  if (values.length < min || values.length > max) {
    refuse(field, `must list ${min === 0 ? 'at most' : `${min} to`} ${max} items`);
  }
  const out = values.map((value, i) => judge(value, `${field}[${i}]`));
  if (new Set(out.map((v) => JSON.stringify(v))).size !== out.length) {
    refuse(field, 'lists the same item twice');
  }
  return out;
}

// Catalog rule channels and tags: what the EP-Channel / EP-Context-Tag headers can carry.
const RULE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,254}$/;

export function judgeChannel(value: string, field: string): string {
  if (!RULE_NAME.test(value)) {
    refuse(
      field,
      'must be 1-255 letters, digits, "_", ".", ":", "/" or "-" (a header can carry it)',
    );
  }
  return value;
}

/** An ISO-8601 instant with a zone, as the service's schedules take; sent as given. */
export function judgeInstant(value: string, field: string): string {
  if (
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/.test(value) ||
    Number.isNaN(Date.parse(value))
  ) {
    refuse(field, 'must be an ISO-8601 time with a zone, e.g. 2026-01-01T00:00:00Z');
  }
  return new Date(Date.parse(value)).toISOString();
}
