/**
 * Opaque connection cursors and the validation of every value that may end up inside a v2
 * `filter` expression. A cursor is input: it is decoded strictly, every field is checked, and
 * nothing from it reaches a filter unless it passed the same checks as a schema argument.
 */
import { createHash } from 'node:crypto';
import { BadUserInputError } from './errors.ts';

/** Bumped whenever the cursor's shape or meaning changes; older cursors are then refused. */
export const CURSOR_VERSION = 1;

/** Longest cursor string accepted; real ones are ~250 characters. */
const MAX_CURSOR_LENGTH = 1024;

const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const ISO_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?(Z|[+-]\d{2}:\d{2})$/;
const CANONICAL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

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

/**
 * Parses a strict ISO-8601 timestamp (date, time, at most millisecond precision, `Z` or an
 * offset) and renders it in the 24-character UTC form the upstream compares. Returns undefined
 * for anything else, including impossible dates such as February 30th. More than three
 * fractional digits are refused rather than truncated: truncating would change `ge`/`le`.
 */
export function normalizeTimestamp(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  // Fast path for what the upstream sends on every row: already canonical (Feb 30 fails here,
  // since Date rolls it over to another rendering, and takes the full check below).
  if (CANONICAL_ISO.test(value)) {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms) && new Date(ms).toISOString() === value) return value;
  }
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
  return CANONICAL_ISO.test(rendered) ? rendered : undefined;
}

/** Canonical-form check for values that must already be normalized (cursor fields). */
function isCanonicalTimestamp(value: unknown): value is string {
  return typeof value === 'string' && normalizeTimestamp(value) === value;
}

/** Stable short hash of the filters a walk was started with, so a cursor cannot change them. */
export function filterHash(renderedClauses: readonly string[], updatedSince?: string): string {
  const material = JSON.stringify([[...renderedClauses].sort(), updatedSince ?? null]);
  return createHash('sha256').update(material).digest('base64url').slice(0, 16);
}

export function encodeCursor(identity: CursorIdentity, state: CursorState): string {
  const wire: CursorWire = {
    v: CURSOR_VERSION,
    c: identity.connection,
    k: identity.sortKey,
    d: identity.direction,
    f: identity.filterHash,
    p: state.pin,
    i: state.index,
    n: state.total,
    id: state.id,
  };
  if (state.sortValue !== undefined) wire.s = state.sortValue;
  return Buffer.from(JSON.stringify(wire), 'utf8').toString('base64url');
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
  if (w.c !== identity.connection) return refuse('cursor belongs to another connection');
  if (w.k !== identity.sortKey || w.d !== identity.direction) {
    return refuse('cursor belongs to another sortKey or direction (reverse)');
  }
  if (w.f !== identity.filterHash) return refuse('cursor belongs to other filters or updatedSince');
  if (!isCanonicalTimestamp(w.p)) return refuse('malformed consistency bound');
  const index = w.i;
  const total = w.n;
  if (
    !Number.isSafeInteger(index) ||
    !Number.isSafeInteger(total) ||
    (index as number) < 0 ||
    (index as number) >= (total as number)
  ) {
    return refuse('malformed position');
  }
  if (!isValidId(w.id)) return refuse('malformed id');
  let sortValue: string | undefined;
  if (identity.sortKey === 'id') {
    if (w.s !== undefined) return refuse('malformed sort value');
  } else {
    if (!isCanonicalTimestamp(w.s)) return refuse('malformed sort value');
    sortValue = w.s;
  }
  return {
    pin: w.p,
    index: index as number,
    total: total as number,
    sortValue,
    id: w.id,
  };
}
