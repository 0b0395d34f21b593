/**
 * Running one search over a release's index: the text match (or every product for `*`), the
 * filter, facet counts over every hit (not only the page), the sort and the page. Sorting
 * keeps only the first `offset + per_page` hits in order (a bounded heap), so a match-all over
 * 100,000 products costs one pass; ties go to the release's product order, which is also the
 * order without a sort and without a query (as /catalog/products lists them).
 */
import type { Db } from '../db.ts';
import { ApiError } from '../errors.ts';
import {
  compileFilter,
  fieldOf,
  numericColumn,
  type Predicate,
  type QueryContext,
  stringColumn,
} from './compile.ts';
import type { SearchParams } from './params.ts';
import { type ReleaseIndex, ranksOf } from './release-index.ts';
import { matchText, queryWords } from './text.ts';

export interface FacetCount {
  field_name: string;
  counts: { count: number; highlighted: string; value: string }[];
  sampled: boolean;
  stats: Record<string, number>;
}

export interface SearchOutcome {
  words: string[];
  /** Every hit's doc, unordered (autocomplete reads them). */
  hits: Int32Array;
  /** The page's docs, in order. */
  page: number[];
  scores: Map<number, number> | undefined;
  corrected: boolean;
  facets: FacetCount[];
}

/** Sort key of a doc: smaller first. NaN (no value) always last. */
type Key = (doc: number) => number;

function keysFor(
  index: ReleaseIndex,
  params: SearchParams,
  scores: Map<number, number> | undefined,
  context: QueryContext,
  prefix: string,
): Key[] {
  const clauses =
    params.sortBy.length > 0
      ? params.sortBy
      : scores !== undefined
        ? [{ field: '_text_match', desc: true }]
        : [];
  return clauses.map(({ field, desc }) => {
    const ref = fieldOf(index, field, `${prefix}sort_by`);
    const sign = desc ? -1 : 1;
    if (ref.kind === 'relevance') {
      return (doc) => sign * (scores?.get(doc) ?? 0);
    }
    if (ref.kind === 'id') {
      throw new ApiError(400, `${prefix}sort_by: "${field}" cannot be sorted on.`, {
        source: `${prefix}sort_by`,
      });
    }
    if (ref.kind === 'string') {
      const column = stringColumn(index, ref.name, context);
      const ranks = ranksOf(column);
      return (doc) => {
        const start = column.offsets[doc] as number;
        if (start === column.offsets[doc + 1]) return Number.NaN;
        return sign * (ranks[column.refs[start] as number] as number);
      };
    }
    const column = numericColumn(index, ref, context);
    const values = column?.values ?? new Float64Array(index.size).fill(Number.NaN);
    return (doc) => sign * (values[doc] as number);
  });
}

function compare(keys: Key[], a: number, b: number): number {
  for (const key of keys) {
    const x = key(a);
    const y = key(b);
    if (x === y) continue;
    if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : 1;
    if (Number.isNaN(y)) return -1;
    return x < y ? -1 : 1;
  }
  return a - b;
}

/** The first `k` of `docs` in order: a bounded max-heap, then sorted. */
function firstInOrder(docs: Int32Array, k: number, keys: Key[]): number[] {
  if (k <= 0) return [];
  if (keys.length === 0) {
    // Release order: docs ascending.
    return Array.from(Int32Array.from(docs).sort().subarray(0, k));
  }
  const heap: number[] = [];
  const worse = (a: number, b: number) => compare(keys, a, b) > 0;
  const up = (i: number) => {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!worse(heap[i] as number, heap[parent] as number)) break;
      [heap[i], heap[parent]] = [heap[parent] as number, heap[i] as number];
      i = parent;
    }
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let top = i;
      if (l < heap.length && worse(heap[l] as number, heap[top] as number)) top = l;
      if (r < heap.length && worse(heap[r] as number, heap[top] as number)) top = r;
      if (top === i) return;
      [heap[i], heap[top]] = [heap[top] as number, heap[i] as number];
      i = top;
    }
  };
  for (const doc of docs) {
    if (heap.length < k) {
      heap.push(doc);
      up(heap.length - 1);
    } else if (worse(heap[0] as number, doc)) {
      heap[0] = doc;
      down(0);
    }
  }
  return heap.sort((a, b) => compare(keys, a, b));
}

function facetCounts(
  index: ReleaseIndex,
  params: SearchParams,
  hits: Int32Array,
  context: QueryContext,
  prefix: string,
): FacetCount[] {
  return params.facetBy.map((field) => {
    const ref = fieldOf(index, field, `${prefix}facet_by`, 'Invalid Facet');
    const query = params.facetQuery?.field === field ? params.facetQuery.text : undefined;
    const keep = (value: string) =>
      query === undefined ||
      value
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .some((w) => w.startsWith(query));
    let counted: { value: string; count: number }[] = [];
    const stats: Record<string, number> = {};
    if (ref.kind === 'string') {
      const column = stringColumn(index, ref.name, context);
      const counts = new Int32Array(column.values.length);
      for (const doc of hits) {
        for (let j = column.offsets[doc] as number; j < (column.offsets[doc + 1] as number); j++) {
          const ref = column.refs[j] as number;
          counts[ref] = (counts[ref] as number) + 1;
        }
      }
      counts.forEach((count, ref) => {
        if (count > 0) counted.push({ value: column.values[ref] as string, count });
      });
      stats.total_values = counted.length;
    } else if (ref.kind === 'id' || ref.kind === 'relevance') {
      throw new ApiError(400, `${prefix}facet_by: "${field}" cannot be faceted.`, {
        source: `${prefix}facet_by`,
        title: 'Invalid Facet',
      });
    } else {
      const column = numericColumn(index, ref, context);
      const values = column?.values ?? new Float64Array(0);
      const counts = new Map<number, number>();
      let min = Number.POSITIVE_INFINITY;
      let max = Number.NEGATIVE_INFINITY;
      let sum = 0;
      let n = 0;
      for (const doc of hits) {
        const v = values[doc] as number;
        if (Number.isNaN(v)) continue;
        counts.set(v, (counts.get(v) ?? 0) + 1);
        if (v < min) min = v;
        if (v > max) max = v;
        sum += v;
        n++;
      }
      const show = column?.show ?? String;
      counted = [...counts].map(([v, count]) => ({ value: show(v), count }));
      if (n > 0) {
        const number = (v: number) => Number(show(v));
        Object.assign(stats, {
          min: number(min),
          max: number(max),
          sum: number(sum),
          avg: number(sum / n),
          total_values: counts.size,
        });
      } else stats.total_values = 0;
    }
    counted = counted.filter((c) => keep(c.value));
    counted.sort(
      (a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0),
    );
    return {
      field_name: field,
      counts: counted.slice(0, params.maxFacetValues).map((c) => ({
        count: c.count,
        highlighted: c.value,
        value: c.value,
      })),
      sampled: false,
      stats,
    };
  });
}

/** Runs the search; 400s name the parameter (`prefix` says which search of a multi-search). */
export function executeSearch(
  db: Db,
  index: ReleaseIndex,
  params: SearchParams,
  context: QueryContext,
  prefix: string,
): SearchOutcome {
  // Judge every named field before any work, so a bad field is a 400 however many hits.
  for (const field of params.facetBy) fieldOf(index, field, `${prefix}facet_by`, 'Invalid Facet');
  const filter: Predicate | undefined =
    params.filter === undefined
      ? undefined
      : compileFilter(params.filter, index, context, `${prefix}filter_by`);
  const words = queryWords(params.q);
  let scores: Map<number, number> | undefined;
  let corrected = false;
  let candidates: Int32Array;
  if (words.length === 0) {
    candidates = new Int32Array(index.size);
    for (let i = 0; i < index.size; i++) candidates[i] = i;
  } else {
    const matched = matchText(db, index, words);
    scores = matched.scores;
    corrected = matched.corrected;
    candidates = Int32Array.from(scores.keys());
  }
  let hits = candidates;
  if (filter !== undefined) {
    const kept = new Int32Array(candidates.length);
    let n = 0;
    for (const doc of candidates) if (filter(doc)) kept[n++] = doc;
    hits = kept.subarray(0, n);
  }
  const keys = keysFor(index, params, scores, context, prefix);
  const offset = (params.page - 1) * params.perPage;
  const first = firstInOrder(hits, offset + params.perPage, keys);
  return {
    words,
    hits,
    page: first.slice(offset),
    scores,
    corrected,
    facets: facetCounts(index, params, hits, context, prefix),
  };
}
