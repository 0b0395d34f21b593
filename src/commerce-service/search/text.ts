/**
 * Full-text matching with SQLite's FTS5, inside one release's docid range:
 * - every word of the query must match, stemmed (porter: "shoes" finds "shoe", "running"
 *   finds "run") in name, description, SKU, slug or a custom field;
 * - the last word is also a prefix ("red app" finds "red apple"), unstemmed, so a half-typed
 *   word finds the words it starts ("runni" finds "running");
 * - typo tolerance as far as a local engine serves it: only when the query finds nothing, each
 *   word of 4 letters or more that the index does not hold is widened to the indexed words
 *   within one edit (two from 7 letters), Damerau-Levenshtein, sharing its first letter (so
 *   "shoos" finds "shoes"; "hoes" never finds "shoes").
 * Relevance is FTS5's bm25 with weights name 10, SKU 6, slug 4, custom fields 3, description 2;
 * a match by the prefix alone ranks below every whole-word match.
 */
import type { Db } from '../db.ts';
import { cachedStatement } from '../db.ts';
import type { ReleaseIndex } from './release-index.ts';

export const MAX_QUERY_WORDS = 16;

/** The query's words: lower case, letters and digits (everything else separates). */
export function queryWords(q: string): string[] {
  if (q === '*' || q === '') return [];
  return q
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '')
    .slice(0, MAX_QUERY_WORDS);
}

export interface TextMatches {
  /** Relevance per matched doc (higher first). */
  scores: Map<number, number>;
  /** Whether typo correction widened a word. */
  corrected: boolean;
}

const quote = (word: string) => `"${word.replaceAll('"', '""')}"`;

/** The release's docs matching `expression` in search_text, with relevance (higher first). */
function scored(db: Db, expression: string, index: ReleaseIndex): Map<number, number> {
  const rows = cachedStatement(
    db,
    `SELECT rowid AS docid, -bm25(search_text, 10.0, 2.0, 6.0, 4.0, 3.0) AS score
     FROM search_text WHERE search_text MATCH ? AND rowid >= ? AND rowid < ?`,
  ).all(expression, index.firstDocid, index.firstDocid + index.size) as {
    docid: number;
    score: number;
  }[];
  const found = new Map<number, number>();
  for (const row of rows) found.set(row.docid - index.firstDocid, row.score);
  return found;
}

/** The release's docs matching `expression` in `table`, as doc numbers (no relevance). */
function matching(
  db: Db,
  table: 'search_text' | 'search_prefix',
  expression: string,
  index: ReleaseIndex,
): number[] {
  const rowids = cachedStatement(
    db,
    `SELECT rowid FROM ${table} WHERE ${table} MATCH ? AND rowid >= ? AND rowid < ?`,
  )
    .pluck()
    .all(expression, index.firstDocid, index.firstDocid + index.size) as number[];
  return rowids.map((rowid) => rowid - index.firstDocid);
}

function damerau(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    let best = row[0] as number;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = v;
      best = Math.min(best, v);
    }
    if (best > limit) return limit + 1;
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/** Indexed words near `word`, closest first (at most five), for typo tolerance. */
function nearWords(db: Db, word: string): string[] {
  const limit = word.length >= 7 ? 2 : 1;
  const first = word[0] as string;
  const next = String.fromCodePoint((first.codePointAt(0) as number) + 1);
  const terms = cachedStatement(
    db,
    'SELECT term FROM search_words WHERE term >= ? AND term < ? LIMIT 20000',
  )
    .pluck()
    .all(first, next) as string[];
  const near: [string, number][] = [];
  for (const term of terms) {
    const d = damerau(word, term, limit);
    if (d <= limit) near.push([term, d]);
  }
  near.sort((x, y) => x[1] - y[1] || (x[0] < y[0] ? -1 : 1));
  return near.slice(0, 5).map(([term]) => term);
}

/** The docs of the release that match `words`, with their relevance. */
export function matchText(db: Db, index: ReleaseIndex, words: readonly string[]): TextMatches {
  const last = words[words.length - 1] as string;
  const before = words.slice(0, -1).map(quote);
  // Whole words, stemmed, scored.
  const scores = scored(db, [...before, quote(last)].join(' AND '), index);
  // The last word as typed, as the prefix of any word (unstemmed), the others as above: these
  // rank below every whole-word match.
  const typed = matching(db, 'search_prefix', `${quote(last)}*`, index);
  if (typed.length > 0) {
    const rest =
      before.length > 0
        ? new Set(matching(db, 'search_text', before.join(' AND '), index))
        : undefined;
    let floor = 0;
    for (const s of scores.values()) floor = Math.min(floor, s);
    for (const doc of typed) {
      if (scores.has(doc) || (rest !== undefined && !rest.has(doc))) continue;
      scores.set(doc, floor - 1);
    }
  }
  if (scores.size > 0) return { scores, corrected: false };
  // Nothing: widen each unknown word of 4+ letters to its near words.
  let corrected = false;
  const widened = words.map((word, i) => {
    const known = cachedStatement(db, 'SELECT 1 FROM search_words WHERE term = ?').get(word);
    const prefixOnly = i === words.length - 1;
    if (known !== undefined || word.length < 4 || !/^\p{L}/u.test(word)) {
      return prefixOnly ? `(${quote(word)} OR ${quote(word)}*)` : quote(word);
    }
    const near = nearWords(db, word);
    if (near.length > 0) corrected = true;
    return `(${[word, ...near].map(quote).join(' OR ')})`;
  });
  if (!corrected) return { scores, corrected };
  return { scores: scored(db, widened.join(' AND '), index), corrected };
}
