/**
 * Opaque connection cursors and the validation of every value that may end up inside a v2
 * `filter` expression. A cursor is input: it is decoded strictly, every field is checked, and
 * nothing from it reaches a filter unless it passed the same checks as a schema argument.
 */
import { createHash } from 'node:crypto';
import { BadUserInputError } from '../errors.ts';

/** Bumped whenever the cursor's shape or meaning changes; older cursors are then refused. */
export const CURSOR_VERSION = 1;

/** Longest cursor string accepted; real ones are ~250 characters. */
const MAX_CURSOR_LENGTH = 1024;

const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const ISO_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?(Z|[+-]\d{2}:\d{2})$/;

export type SortDirection = 'asc' | 'desc';

/** What a cursor is bound to: using it with any other value of these is refused. */
export interface CursorIdentity {
  connection: string;
  sortKey: 'created_at' | 'updated_at' | 'id';
  direction: SortDirection;
  /** Hash of the rendered user filters and updatedSince (see `filterHash`). */
  filterHash: string;
}

/** A decoded, validated cursor: one record's place in one pinned walk. */
export interface CursorState {
  /** Upper bound on the pinned timestamp attribute, fixed at the walk's first page. */
  pin: string;
  /** Index of the record in connection order, as of `total` (exact while the set is unchanged). */
  index: number;
  /** Size of the pinned set when the cursor was issued. */
  total: number;
  /** The record's sort value for timestamp sorts; undefined for sort by id. */
  sortValue: string | undefined;
  /** The record's id: the tie-breaker of the keyset position. */
  id: string;
}

interface CursorWire {
  v: number;
  c: string;
  k: string;
  d: string;
  f: string;
  p: string;
  i: number;
  n: number;
  s?: string;
  id: string;
}

const WIRE_KEYS = new Set(['v', 'c', 'k', 'd', 'f', 'p', 'i', 'n', 's', 'id']);

/** An id as it may appear in a filter: `^[A-Za-z0-9_-]{1,64}$` (uuids included). */
export function isValidId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value);
}

/** Days in each month of a common year; February gets its leap day in `isCanonicalInstant`. */
const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The number written by `count` ASCII digits at `at`, or -1 when one of them is not a digit. */
function digitsAt(value: string, at: number, count: number): number {
  let number = 0;
  for (let i = at; i < at + count; i++) {
    const digit = value.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    number = number * 10 + digit;
  }
  return number;
}

/**
 * True when `value` is exactly `YYYY-MM-DDTHH:mm:ss.sssZ` naming a real instant (proleptic
 * Gregorian calendar, hours 0–23, no leap second): precisely the strings that
 * `new Date(Date.parse(value)).toISOString()` renders back unchanged. Checked with character
 * codes, no regex and no Date, because it runs for every row of every list page.
 */
function isCanonicalInstant(value: string): boolean {
  if (
    value.length !== 24 ||
    value.charCodeAt(4) !== 45 || // -
    value.charCodeAt(7) !== 45 ||
    value.charCodeAt(10) !== 84 || // T
    value.charCodeAt(13) !== 58 || // :
    value.charCodeAt(16) !== 58 ||
    value.charCodeAt(19) !== 46 || // .
    value.charCodeAt(23) !== 90 // Z
  ) {
    return false;
  }
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 2);
  const day = digitsAt(value, 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (month === 2 && leap ? 29 : (DAYS_IN_MONTH[month] as number))) return false;
  const hour = digitsAt(value, 11, 2);
  const minute = digitsAt(value, 14, 2);
  const second = digitsAt(value, 17, 2);
  return (
    hour >= 0 &&
    hour <= 23 &&
    minute >= 0 &&
    minute <= 59 &&
    second >= 0 &&
    second <= 59 &&
    digitsAt(value, 20, 3) >= 0
  );
}

/**
 * Parses a strict ISO-8601 timestamp (date, time, at most millisecond precision, `Z` or an
 * offset) and renders it in the 24-character UTC form the upstream compares. Returns undefined
 * for anything else, including impossible dates such as February 30th. More than three
 * fractional digits are refused rather than truncated: truncating would change `ge`/`le`.
 */
export function normalizeTimestamp(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  // Fast path for what the upstream sends on every row: already canonical.
  if (isCanonicalInstant(value)) return value;
  const match = ISO_PATTERN.exec(value);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second] = match;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return undefined;
  // Date.parse rolls impossible days over (Feb 30 → Mar 2); check the calendar fields.
  const y = Number(year);
  const mo = Number(month);
  const d = Number(day);
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth) return undefined;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return undefined;
  const rendered = new Date(ms).toISOString();
  return isCanonicalInstant(rendered) ? rendered : undefined;
}

/** Canonical-form check for values that must already be normalized (cursor fields). */
function isCanonicalTimestamp(value: unknown): value is string {
  return typeof value === 'string' && normalizeTimestamp(value) === value;
}

/** Stable short hash of the filters a walk was started with, so a cursor cannot change them. */
export function filterHash(renderedClauses: readonly string[], updatedSince?: string): string {
  const material = JSON.stringify([[...renderedClauses].sort(), updatedSince ?? null]);
  let hash = filterHashes.get(material);
  if (hash === undefined) {
    hash = createHash('sha256').update(material).digest('base64url').slice(0, 16);
    // Most walks share a handful of filters (none, above all): a sha256 per page is not needed.
    if (filterHashes.size >= 1000) filterHashes.clear();
    filterHashes.set(material, hash);
  }
  return hash;
}
const filterHashes = new Map<string, string>();

/** Encodes the cursor of one record of one page; see `createCursorEncoder`. */
export type CursorEncoder = (index: number, sortValue: string | undefined, id: string) => string;

/**
 * The cursor encoder of one page of one walk. A cursor is the base64url of its JSON wire form,
 * and everything before the record's own fields (version, connection, sort, filters, pin) is the
 * same for every edge of the page: that prefix is serialised once and the base64 of its whole
 * 3-byte groups computed once, so each cursor encodes only a few dozen bytes. The strings are
 * exactly those of encoding the whole JSON at once, since base64 encodes 3-byte groups alone.
 */
export function createCursorEncoder(
  identity: CursorIdentity,
  pin: string,
  total: number,
): CursorEncoder {
  const head: Omit<CursorWire, 'i' | 'n' | 'id' | 's'> = {
    v: CURSOR_VERSION,
    c: identity.connection,
    k: identity.sortKey,
    d: identity.direction,
    f: identity.filterHash,
    p: pin,
  };
  // The wire key order: v c k d f p, then i n id, then s when there is one.
  const prefix = `${JSON.stringify(head).slice(0, -1)},"i":`;
  const bytes = Buffer.from(prefix, 'utf8');
  const aligned = bytes.length - (bytes.length % 3);
  const headBase64 = bytes.subarray(0, aligned).toString('base64url');
  // The prefix ends in ASCII (`"i":`), so its last 0–2 bytes are its last 0–2 characters.
  const carry = prefix.slice(prefix.length - (bytes.length - aligned));
  const middle = `,"n":${JSON.stringify(total)},"id":`;
  return (index, sortValue, id) => {
    let rest = `${carry}${JSON.stringify(index)}${middle}${JSON.stringify(id)}`;
    if (sortValue !== undefined) rest += `,"s":${JSON.stringify(sortValue)}`;
    return headBase64 + Buffer.from(`${rest}}`, 'utf8').toString('base64url');
  };
}

/** One cursor on its own (tests, tools); pages use `createCursorEncoder`. */
export function encodeCursor(identity: CursorIdentity, state: CursorState): string {
  return createCursorEncoder(identity, state.pin, state.total)(
    state.index,
    state.sortValue,
    state.id,
  );
}

/** The wire form of a cursor, checked only for being one of this API's; or a refusal. */
function readWire(raw: string, argument: 'after' | 'before'): Record<string, unknown> {
  const refuse = (why: string): never => {
    throw new BadUserInputError(`Invalid cursor in \`${argument}\`: ${why}`, { field: argument });
  };
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_CURSOR_LENGTH) {
    return refuse('not a cursor of this API');
  }
  if (!/^[A-Za-z0-9_-]+$/.test(raw)) return refuse('not a cursor of this API');
  let wire: unknown;
  try {
    wire = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    return refuse('not a cursor of this API');
  }
  if (typeof wire !== 'object' || wire === null || Array.isArray(wire)) {
    return refuse('not a cursor of this API');
  }
  const w = wire as Record<string, unknown>;
  if (Object.keys(w).some((key) => !WIRE_KEYS.has(key))) return refuse('not a cursor of this API');
  if (w.v !== CURSOR_VERSION) return refuse('cursor from an older or newer version; start again');
  return w;
}

/** Index and total of a cursor's wire form, checked (0 ≤ index < total), or undefined. */
function positionOf(w: Record<string, unknown>): { index: number; total: number } | undefined {
  const index = w.i;
  const total = w.n;
  if (
    !Number.isSafeInteger(index) ||
    !Number.isSafeInteger(total) ||
    (index as number) < 0 ||
    (index as number) >= (total as number)
  ) {
    return undefined;
  }
  return { index: index as number, total: total as number };
}

/**
 * Decodes and validates a cursor for the given connection, sort and filters. Every failure is a
 * BadUserInputError naming the argument (`after` or `before`); nothing is fetched before this.
 */
export function decodeCursor(
  raw: string,
  identity: CursorIdentity,
  argument: 'after' | 'before',
): CursorState {
  const refuse = (why: string): never => {
    throw new BadUserInputError(`Invalid cursor in \`${argument}\`: ${why}`, { field: argument });
  };
  const w = readWire(raw, argument);
  if (w.c !== identity.connection) return refuse('cursor belongs to another connection');
  if (w.k !== identity.sortKey || w.d !== identity.direction) {
    return refuse('cursor belongs to another sortKey or direction (reverse)');
  }
  if (w.f !== identity.filterHash) return refuse('cursor belongs to other filters or updatedSince');
  if (!isCanonicalTimestamp(w.p)) return refuse('malformed consistency bound');
  const position = positionOf(w) ?? refuse('malformed position');
  if (!isValidId(w.id)) return refuse('malformed id');
  let sortValue: string | undefined;
  if (identity.sortKey === 'id') {
    if (w.s !== undefined) return refuse('malformed sort value');
  } else {
    if (!isCanonicalTimestamp(w.s)) return refuse('malformed sort value');
    sortValue = w.s;
  }
  return { pin: w.p, ...position, sortValue, id: w.id };
}

// ---- cursors of offset-only lists (./offset.ts): a place in the upstream's own order ----

/** What an offset cursor is bound to: its connection and its filters. */
export interface OffsetCursorIdentity {
  connection: string;
  filterHash: string;
}

/** An offset cursor: the record's offset in the list and the list's size when it was issued. */
export interface OffsetCursorState {
  index: number;
  total: number;
}

/** The sort word of an offset cursor's wire form: no keyset cursor carries it. */
const OFFSET_KIND = 'offset';

/** Encodes the cursors of one page of an offset list, as `createCursorEncoder` for keyset ones. */
export function createOffsetCursorEncoder(
  identity: OffsetCursorIdentity,
  total: number,
): (index: number) => string {
  const head = `{"v":${CURSOR_VERSION},"c":${JSON.stringify(identity.connection)},"k":"${OFFSET_KIND}","f":${JSON.stringify(identity.filterHash)},"n":${JSON.stringify(total)},"i":`;
  return (index) => Buffer.from(`${head}${JSON.stringify(index)}}`, 'utf8').toString('base64url');
}

/** Decodes an offset list's cursor; any failure is a BadUserInputError naming the argument. */
export function decodeOffsetCursor(
  raw: string,
  identity: OffsetCursorIdentity,
  argument: 'after' | 'before',
): OffsetCursorState {
  const refuse = (why: string): never => {
    throw new BadUserInputError(`Invalid cursor in \`${argument}\`: ${why}`, { field: argument });
  };
  const w = readWire(raw, argument);
  if (w.c !== identity.connection) return refuse('cursor belongs to another connection');
  if (w.k !== OFFSET_KIND || w.d !== undefined || w.p !== undefined || w.id !== undefined) {
    return refuse('cursor belongs to another kind of list');
  }
  if (w.s !== undefined) return refuse('not a cursor of this API');
  if (w.f !== identity.filterHash) return refuse('cursor belongs to other filters');
  return positionOf(w) ?? refuse('malformed position');
}
