/**
 * Scalars: `DateTime` (ISO-8601 UTC, always written `YYYY-MM-DDTHH:mm:ss.sssZ`) and
 * `JSONObject` (a JSON object; the attributes of a Custom API entry).
 */
import { Kind, valueFromASTUntyped } from 'graphql';
import { isJsonObject, type JsonObject } from '../upstream/client.ts';
import { BadUserInputError } from '../upstream/errors.ts';
import { builder } from './builder.ts';

// A date, a time, and a zone: anything Date.parse would also guess at (e.g. "2024") is refused.
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2}))$/;

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/**
 * Parses an ISO-8601 date-time into the canonical 24-character UTC form. Each calendar field is
 * judged first: Date.parse rolls impossible ones over (`2024-02-30` → March 1st, `T24:00` →
 * the next day), which would filter on a time the caller never wrote.
 */
export function parseDateTime(value: unknown): string {
  const match = typeof value === 'string' ? ISO_DATE_TIME.exec(value) : null;
  if (match === null) {
    throw new BadUserInputError(
      'DateTime must be an ISO-8601 date-time with a zone, e.g. 2024-05-01T12:00:00.000Z',
    );
  }
  const [, year, month, day, hour, minute, second = '0', , , zoneHour = '0', zoneMinute = '0'] =
    match;
  const y = Number(year);
  const mo = Number(month);
  const d = Number(day);
  if (mo < 1 || mo > 12) {
    throw new BadUserInputError(`"${value}" is not a date: the month must be 01 to 12`);
  }
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (d < 1 || d > daysInMonth) {
    throw new BadUserInputError(
      `"${value}" is not a date: ${MONTHS[mo - 1]} ${year} has ${daysInMonth} days`,
    );
  }
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) {
    throw new BadUserInputError(`"${value}" is not a time of day (00:00:00 to 23:59:59)`);
  }
  if (Number(zoneHour) > 23 || Number(zoneMinute) > 59) {
    throw new BadUserInputError(`"${value}" has an impossible zone offset`);
  }
  const time = Date.parse(value as string);
  if (Number.isNaN(time)) throw new BadUserInputError(`"${value}" is not a valid date-time`);
  return new Date(time).toISOString();
}

builder.scalarType('DateTime', {
  description: 'A point in time, ISO-8601 in UTC with milliseconds: 2024-05-01T12:00:00.000Z.',
  serialize: (value) => value,
  parseValue: parseDateTime,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new BadUserInputError('DateTime must be a string');
    return parseDateTime(ast.value);
  },
});

builder.scalarType('JSONObject', {
  description: 'A JSON object (keys to any JSON values).',
  serialize: (value) => value,
  parseValue: (value) => {
    if (!isJsonObject(value)) throw new BadUserInputError('JSONObject must be a JSON object');
    return value;
  },
  parseLiteral: (ast, variables) => {
    if (ast.kind !== Kind.OBJECT) throw new BadUserInputError('JSONObject must be an object');
    return valueFromASTUntyped(ast, variables) as JsonObject;
  },
});

const CURRENCY_CODE = /^[A-Za-z]{3}$/;

function parseCurrencyCode(value: unknown): string {
  if (typeof value !== 'string' || !CURRENCY_CODE.test(value)) {
    const shown = typeof value === 'string' ? `"${value.slice(0, 20)}"` : typeof value;
    throw new BadUserInputError(
      `${shown} is not an ISO 4217 currency code (three letters, e.g. EUR)`,
    );
  }
  return value.toUpperCase();
}

builder.scalarType('CurrencyCode', {
  description: 'An ISO 4217 currency code, three letters (read in any case): EUR.',
  serialize: (value) => value,
  parseValue: parseCurrencyCode,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new BadUserInputError('CurrencyCode must be a string');
    return parseCurrencyCode(ast.value);
  },
});
