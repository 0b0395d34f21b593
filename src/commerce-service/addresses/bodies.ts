/**
 * The body of an address write: `{data:{type:"address", first_name, last_name, line_1, country,
 * …}}`. Every attribute is a line of text (at most 255 characters; `instructions` 1,000). The
 * specification marks none required; this service requires on create what a parcel cannot go
 * without (first_name, last_name, line_1, country), and `country` is the two-letter ISO 3166
 * code the specification names. An update changes what it sends; `null` clears an optional
 * attribute and a required one cannot be cleared.
 */
import { badRequest } from '../errors.ts';
import { optionalText, rejectUnknownKeys, requireData, requireType } from '../request-body.ts';
import { ADDRESS_FIELDS, type AddressField } from './records.ts';

const REQUIRED: readonly AddressField[] = ['first_name', 'last_name', 'line_1', 'country'];
const LONG: Partial<Record<AddressField, number>> = { instructions: 1000 };
const COUNTRY = /^[A-Za-z]{2}$/;

/** The attributes a write sets: a value, or null to clear (update only). */
export type AddressInput = Partial<Record<AddressField, string | null>>;

export function parseAddress(body: unknown, creating: boolean): AddressInput {
  const data = requireData(body);
  if (creating || data.type !== undefined) requireType(data, 'address');
  rejectUnknownKeys(data, ['type', 'id', ...ADDRESS_FIELDS]);
  const input: AddressInput = {};
  for (const field of ADDRESS_FIELDS) {
    const source = `data.${field}`;
    if (data[field] === null) {
      if (creating) continue;
      if (REQUIRED.includes(field)) throw badRequest(`${source} cannot be removed.`, source);
      input[field] = null;
      continue;
    }
    const value = optionalText(data, field, { max: LONG[field] ?? 255 });
    if (value === undefined) {
      if (creating && REQUIRED.includes(field)) {
        throw badRequest(`${source} is required: an address has ${REQUIRED.join(', ')}.`, source);
      }
      continue;
    }
    if (field === 'country') {
      if (!COUNTRY.test(value)) {
        throw badRequest(
          `${source} must be a two-letter ISO 3166 country code such as "GB" or "US".`,
          source,
        );
      }
      input.country = value.toUpperCase();
      continue;
    }
    input[field] = value;
  }
  return input;
}
