/**
 * When a list's filter is one interval of one column: the bounds of that interval, for the
 * counting shortcuts (count.ts) and the ladder read (laddered-read.ts).
 */
import type { SqlCondition } from './parse.ts';

/** The bounds of `lo ≺ column ≺ hi`; a missing side is unbounded. */
export interface ColumnInterval {
  column: string;
  lo?: { value: string; inclusive: boolean };
  hi?: { value: string; inclusive: boolean };
  /** No value can satisfy every clause (e.g. gt(c,5):lt(c,3)). */
  empty: boolean;
}

/** SQLite's BINARY order of text: memcmp of the UTF-8 bytes (JS `<` compares UTF-16 units). */
export function compareText(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * When every condition compares the same column of `columns` with a text value, the matching
 * rows are exactly those inside one interval of that column: the intersection of the clauses.
 * Otherwise undefined.
 */
export function singleColumnInterval(
  conditions: SqlCondition[],
  columns: readonly string[],
): ColumnInterval | undefined {
  const first = conditions[0]?.range;
  if (!first || !columns.includes(first.column)) return undefined;
  const interval: ColumnInterval = { column: first.column, empty: false };
  for (const condition of conditions) {
    const range = condition.range;
    if (!range || range.column !== first.column) return undefined;
    const { op, value } = range;
    if (op === '=' || op === '>' || op === '>=') {
      const inclusive = op !== '>';
      const cmp = interval.lo ? compareText(value, interval.lo.value) : 1;
      if (cmp > 0) interval.lo = { value, inclusive };
      else if (cmp === 0 && interval.lo && !inclusive) interval.lo.inclusive = false;
    }
    if (op === '=' || op === '<' || op === '<=') {
      const inclusive = op !== '<';
      const cmp = interval.hi ? compareText(value, interval.hi.value) : -1;
      if (cmp < 0) interval.hi = { value, inclusive };
      else if (cmp === 0 && interval.hi && !inclusive) interval.hi.inclusive = false;
    }
  }
  if (interval.lo && interval.hi) {
    const cmp = compareText(interval.lo.value, interval.hi.value);
    interval.empty = cmp > 0 || (cmp === 0 && !(interval.lo.inclusive && interval.hi.inclusive));
  }
  return interval;
}
