/**
 * Scalars: `DateTime` (ISO-8601 UTC, always written `YYYY-MM-DDTHH:mm:ss.sssZ`) and
 * `JSONObject` (a JSON object; the attributes of a Custom API entry).
 */
import { Kind, valueFromASTUntyped } from 'graphql';
import { isJsonObject, type JsonObject } from '../upstream/client.ts';
import { BadUserInputError } from '../upstream/errors.ts';
import { builder } from './builder.ts';

// A date, a time, and a zone: anything Date.parse would also guess at (e.g. "2024") is refused.
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** Parses an ISO-8601 date-time into the canonical 24-character UTC form. */
export function parseDateTime(value: unknown): string {
  if (typeof value !== 'string' || !ISO_DATE_TIME.test(value)) {
    throw new BadUserInputError(
      'DateTime must be an ISO-8601 date-time with a zone, e.g. 2024-05-01T12:00:00.000Z',
    );
  }
  const time = Date.parse(value);
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
