/**
 * An in-memory v2 list endpoint implementing the REST contract of the team contracts exactly:
 * `page[limit]` 1..100, `page[offset]` refused above the offset limit, `sort` on created_at /
 * updated_at / id with ties broken by id in the sort direction, `filter` clauses (eq, in, gt, ge,
 * lt, le; `:` = AND outside parentheses; timestamps normalised before comparing) and
 * `results.total`. It records every call and the most calls ever in flight at once.
 */
import type { FetchPage, ListPage } from '../../src/upstream/paging/plan.ts';

export interface FakeRecord {
  id: string;
  created_at: string;
  updated_at: string;
}

export interface FakeQuery {
  limit: number;
  offset: number;
  sort: string;
  filter?: string;
}

export interface FakeList {
  fetchPage: FetchPage<FakeRecord>;
  calls: FakeQuery[];
  readonly maxInFlight: number;
  reset(): void;
  records: FakeRecord[];
  /** Runs before each call is answered (after its delay), e.g. to change the data mid-walk. */
  beforeAnswer?: (query: FakeQuery) => void;
}

type Attr = 'id' | 'created_at' | 'updated_at';
const ATTRS = new Set(['id', 'created_at', 'updated_at']);

export class FakeListError extends Error {
  override name = 'FakeListError';
}

function normalizeTs(raw: string): string {
  const ms = Date.parse(raw);
  if (Number.isNaN(ms)) throw new FakeListError(`400: invalid timestamp ${raw}`);
  return new Date(ms).toISOString();
}

function splitClauses(filter: string): string[] {
  const clauses: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of filter) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ':' && depth === 0) {
      clauses.push(current);
      current = '';
    } else current += char;
  }
  clauses.push(current);
  return clauses;
}

type Predicate = (record: FakeRecord) => boolean;

/** A parsed clause: the predicate, plus what the range narrowing below needs. */
interface Clause {
  op: string;
  attr: Attr;
  value: string;
  test: Predicate;
}

export function parseFilter(filter: string | undefined): Clause[] {
  if (filter === undefined || filter === '') return [];
  const clauses = splitClauses(filter);
  if (clauses.length > 10) throw new FakeListError('400: at most 10 filters');
  return clauses.map((clause) => {
    const match = /^(eq|in|gt|ge|lt|le)\(([a-z_]+),([^()]*)\)$/.exec(clause);
    if (!match) throw new FakeListError(`400: unparsable filter ${clause}`);
    const [, op, attr, raw] = match as unknown as [string, string, Attr, string];
    if (!ATTRS.has(attr)) throw new FakeListError(`400: unknown attribute ${attr}`);
    const norm = (v: string) => (attr === 'id' ? v : normalizeTs(v));
    if (op === 'in') {
      const set = new Set(raw.split(',').map(norm));
      return { op, attr, value: raw, test: (r) => set.has(r[attr]) };
    }
    const value = norm(raw);
    const test: Predicate =
      op === 'eq'
        ? (r) => r[attr] === value
        : op === 'gt'
          ? (r) => r[attr] > value
          : op === 'ge'
            ? (r) => r[attr] >= value
            : op === 'lt'
              ? (r) => r[attr] < value
              : (r) => r[attr] <= value;
    return { op, attr, value, test };
  });
}

/** First index in rows[lo, hi) where `isRight` holds, given it is monotone (false… then true…). */
function partition(rows: FakeRecord[], lo: number, hi: number, isRight: Predicate): number {
  let a = lo;
  let b = hi;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (isRight(rows[mid] as FakeRecord)) b = mid;
    else a = mid + 1;
  }
  return a;
}

/**
 * The matching rows of a sorted array, as a database with an index on (sort attr, id) would
 * find them: clauses on the sort attribute (and on id inside an equal-sort-value run) narrow a
 * contiguous range by binary search; clauses true for every record are skipped; anything else is
 * checked row by row. Same answer as filtering every row, much faster.
 */
function select(
  rows: FakeRecord[],
  sortAttr: Attr,
  desc: boolean,
  clauses: Clause[],
  bounds: Record<Attr, { min: string; max: string }>,
): FakeRecord[] {
  let lo = 0;
  let hi = rows.length;
  const rest: Clause[] = [];
  const eqSort = clauses.some((c) => c.attr === sortAttr && c.op === 'eq');
  const narrow = (c: Clause) => {
    // In sort direction, records with attr "before" the value come first.
    const before = (r: FakeRecord) => (desc ? r[c.attr] > c.value : r[c.attr] < c.value);
    const after = (r: FakeRecord) => (desc ? r[c.attr] < c.value : r[c.attr] > c.value);
    const startOfEq = partition(rows, lo, hi, (r) => !before(r));
    const endOfEq = partition(rows, lo, hi, after);
    const lower = (c.op === 'lt' || c.op === 'le') !== desc;
    if (c.op === 'eq') [lo, hi] = [startOfEq, endOfEq];
    else if (lower) hi = c.op === (desc ? 'ge' : 'le') ? endOfEq : startOfEq;
    else lo = c.op === (desc ? 'le' : 'ge') ? startOfEq : endOfEq;
  };
  for (const c of clauses) {
    const { min, max } = bounds[c.attr];
    const always =
      (c.op === 'le' && max <= c.value) ||
      (c.op === 'lt' && max < c.value) ||
      (c.op === 'ge' && min >= c.value) ||
      (c.op === 'gt' && min > c.value);
    if (always) continue;
    if (c.op !== 'in' && c.attr === sortAttr) narrow(c);
    else rest.push(c);
  }
  // Inside one run of equal sort values ids are sorted in the sort direction too.
  const idRest: Clause[] = [];
  for (const c of rest) {
    if (c.attr === 'id' && c.op !== 'in' && c.op !== 'eq' && eqSort) narrow(c);
    else idRest.push(c);
  }
  if (lo >= hi) return [];
  const range = rows.slice(lo, hi);
  return idRest.length === 0 ? range : range.filter((r) => idRest.every((c) => c.test(r)));
}

export function compareRecords(sort: string): (a: FakeRecord, b: FakeRecord) => number {
  const desc = sort.startsWith('-');
  const attr = (desc ? sort.slice(1) : sort) as Attr;
  if (!ATTRS.has(attr)) throw new FakeListError(`400: unknown sort ${sort}`);
  return (a, b) => {
    let c = 0;
    if (a[attr] !== b[attr]) c = a[attr] < b[attr] ? -1 : 1;
    else if (a.id !== b.id) c = a.id < b.id ? -1 : 1;
    return desc ? -c : c;
  };
}

export function createFakeList(
  records: FakeRecord[],
  options: { offsetLimit?: number; delayMs?: number } = {},
): FakeList {
  const offsetLimit = options.offsetLimit ?? 10_000;
  const sorted = new Map<string, FakeRecord[]>();
  let cacheStamp = '';
  let bounds = computeBounds(records);
  let inFlight = 0;
  let maxInFlight = 0;
  const list: FakeList = {
    calls: [],
    records,
    get maxInFlight() {
      return maxInFlight;
    },
    reset() {
      list.calls.length = 0;
      maxInFlight = 0;
    },
    fetchPage: async (query): Promise<ListPage<FakeRecord>> => {
      list.calls.push({ ...query });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        await new Promise((resolve) =>
          options.delayMs ? setTimeout(resolve, options.delayMs) : setImmediate(resolve),
        );
        list.beforeAnswer?.(query);
        const { limit, offset, sort, filter } = query;
        if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
          throw new FakeListError(`400: page[limit] ${limit}`);
        }
        if (!Number.isInteger(offset) || offset < 0 || offset > offsetLimit) {
          throw new FakeListError(`400: page[offset] ${offset} beyond ${offsetLimit}`);
        }
        const clauses = parseFilter(filter);
        const desc = sort.startsWith('-');
        const sortAttr = (desc ? sort.slice(1) : sort) as Attr;
        // The data may change between calls (tests mutate `records`); re-sort when it did.
        const stamp = `${list.records.length}#${version(list.records)}`;
        if (stamp !== cacheStamp) {
          sorted.clear();
          cacheStamp = stamp;
          bounds = computeBounds(list.records);
        }
        let rows = sorted.get(sort);
        if (rows === undefined) {
          rows = [...list.records].sort(compareRecords(sort));
          sorted.set(sort, rows);
        }
        const matching = select(rows, sortAttr, desc, clauses, bounds);
        return {
          data: matching.slice(offset, offset + limit).map((r) => ({ ...r })),
          total: matching.length,
        };
      } finally {
        inFlight--;
      }
    },
  };
  return list;
}

function computeBounds(records: FakeRecord[]): Record<Attr, { min: string; max: string }> {
  const bounds = {} as Record<Attr, { min: string; max: string }>;
  for (const attr of ['id', 'created_at', 'updated_at'] as Attr[]) {
    let min = '\uffff';
    let max = '';
    for (const r of records) {
      if (r[attr] < min) min = r[attr];
      if (r[attr] > max) max = r[attr];
    }
    bounds[attr] = { min, max };
  }
  return bounds;
}

/** Cheap change detector: tests that mutate records bump `__version` on the array. */
function version(records: FakeRecord[]): number {
  return (records as FakeRecord[] & { __version?: number }).__version ?? 0;
}

export function bumpVersion(records: FakeRecord[]): void {
  const r = records as FakeRecord[] & { __version?: number };
  r.__version = (r.__version ?? 0) + 1;
}

/** Deterministic PRNG (mulberry32). */
export function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)) };
}

function uuid(random: ReturnType<typeof createRandom>): string {
  const hex = () => Math.floor(random.next() * 16).toString(16);
  const part = (n: number) => Array.from({ length: n }, hex).join('');
  return `${part(8)}-${part(4)}-4${part(3)}-a${part(3)}-${part(12)}`;
}

/**
 * Records with equal-timestamp bursts on created_at (sizes in `bursts`, cycled) between runs of
 * distinct instants, and bulk-update groups sharing one updated_at. Ids are random, so id order
 * has nothing to do with time order.
 */
export function generateRecords(
  count: number,
  options: { seed?: number; bursts?: number[]; gap?: number } = {},
): FakeRecord[] {
  const random = createRandom(options.seed ?? 42);
  const bursts = options.bursts ?? [150, 320, 1200, 101, 480];
  const gap = options.gap ?? 400;
  const records: FakeRecord[] = [];
  let t = Date.parse('2025-01-06T09:00:00.000Z');
  let burstIndex = 0;
  let untilBurst = random.int(gap / 2, gap);
  let burstLeft = 0;
  let updateGroupLeft = 0;
  let updateGroupAt = '';
  while (records.length < count) {
    if (burstLeft > 0) burstLeft--;
    else {
      t += random.int(1, 5000);
      if (--untilBurst <= 0) {
        burstLeft = (bursts[burstIndex++ % bursts.length] as number) - 1;
        untilBurst = random.int(gap / 2, gap);
      }
    }
    const created = new Date(t).toISOString();
    let updated: string;
    if (updateGroupLeft > 0) {
      updateGroupLeft--;
      updated = updateGroupAt;
    } else if (random.next() < 0.002) {
      updateGroupLeft = random.int(100, 300);
      updateGroupAt = new Date(t + 86_400_000).toISOString();
      updated = updateGroupAt;
    } else {
      updated = new Date(t + random.int(0, 3) * 1000).toISOString();
    }
    records.push({ id: uuid(random), created_at: created, updated_at: updated });
  }
  return records;
}
