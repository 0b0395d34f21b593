/**
 * Time in the service: one injectable clock (so tests can expire tokens) and the timestamp
 * format of every record, ISO-8601 UTC with milliseconds in exactly 24 characters, so that
 * string order is time order in SQLite indexes.
 */

/** Milliseconds since the epoch; `Date.now` unless a test injects another clock. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

// Years 0000-9999 only: outside them toISOString() no longer gives 24 characters.
const MIN_MS = -62_167_219_200_000; // 0000-01-01T00:00:00.000Z
const MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** The 24-character form, `YYYY-MM-DDTHH:mm:ss.sssZ`. */
export function formatTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * A source of record timestamps that never goes backwards and never repeats within one
 * process: when the clock has not advanced since the last stamp, the next millisecond is used.
 * Uniqueness is a convenience for keyset paging, not a promise: seeded data and other writers
 * may still share timestamps, and every ordering breaks ties by id.
 */
export function createTimestamper(clock: Clock): () => string {
  let last = Number.NEGATIVE_INFINITY;
  return () => {
    const now = clock();
    last = now > last ? now : last + 1;
    return formatTimestamp(last);
  };
}

const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** A parsed instant: whole milliseconds, and whether a sub-millisecond remainder was dropped. */
export interface ParsedTimestamp {
  ms: number;
  /** The 24-character form of `ms`. */
  iso: string;
  /** False when the input had digits below the millisecond that were truncated. */
  exact: boolean;
}

/**
 * Parses any ISO-8601 calendar date or date-time (`2024-05-01`, `2024-05-01T10:00Z`,
 * `2024-05-01T12:00:00.5+02:00`, …). A value without an offset is taken as UTC. Returns
 * undefined for anything else, including impossible dates like February 30.
 */
export function parseTimestamp(raw: string): ParsedTimestamp | undefined {
  const m = ISO_8601.exec(raw.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone = 'Z'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) {
    return undefined;
  }
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  const millis = Number(frac.slice(0, 3).padEnd(3, '0'));
  const exact = /^0*$/.test(frac.slice(3));
  let offsetMinutes = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = Number(digits.slice(2) || '0');
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = sign * (oh * 60 + om);
  }
  date.setUTCHours(hour, minute, second, millis);
  const ms = date.getTime() - offsetMinutes * 60_000;
  if (!Number.isFinite(ms) || ms < MIN_MS || ms > MAX_MS) return undefined;
  return { ms, iso: formatTimestamp(ms), exact };
}
