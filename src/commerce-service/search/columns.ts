/**
 * The columns a release's search index keeps in memory beside its FTS5 tables: built by
 * build.ts, kept and read by release-index.ts (its own module, so neither imports the other).
 */

/** A string field's values, CSR-encoded: doc i has refs[offsets[i] .. offsets[i+1]). */
export interface StoredStringColumn {
  values: string[];
  offsets: number[];
  refs: number[];
}

/** The columns of a release's index, by doc index (the release's product order). */
export interface StoredColumns {
  ids: string[];
  skus: (string | null)[];
  names: string[];
  /** ms since the epoch. */
  created: number[];
  updated: number[];
  strings: Record<string, StoredStringColumn>;
  numbers: Record<string, (number | null)[]>;
}
