/**
 * Building a release's search index, when a search-enabled catalog (`enable_search`) is
 * published: inside the publish transaction, so the release and its index appear together
 * (and a failed build leaves neither). The index belongs to the release: it is read only for
 * that release and goes when the release goes (migrations: 0900).
 *
 * What is written: one search_indexes row (the columns filters, facets and sorts read, as one
 * JSON document) and, per product, a row in each full-text table under its docid (the
 * release's products take consecutive docids, in the release's product order).
 */
import type { CatalogRow, ReleaseRow } from '../catalogs/records.ts';
import type { ReleaseProductRow } from '../catalogs/views.ts';
import { cachedStatement, type Db } from '../db.ts';
import type { StoredColumns } from './columns.ts';
import { documentFields, type TreeNames } from './fields.ts';
import { rememberBuiltIndex } from './release-index.ts';

export type { StoredColumns, StoredStringColumn } from './columns.ts';

/** Whether a catalog's releases get a search index (its `enable_search` attribute). */
export function searchEnabled(catalog: Pick<CatalogRow, 'extra'>): boolean {
  const extra = JSON.parse(catalog.extra) as { enable_search?: unknown };
  return extra.enable_search === true;
}

function treeNames(db: Db, releaseId: string): TreeNames {
  const nodes = new Map<string, { name: string; hierarchyId: string }>();
  for (const row of db
    .prepare('SELECT id, name, hierarchy_id FROM release_nodes WHERE release_id = ?')
    .all(releaseId) as { id: string; name: string; hierarchy_id: string }[]) {
    nodes.set(row.id, { name: row.name, hierarchyId: row.hierarchy_id });
  }
  const hierarchies = new Map<string, string>();
  for (const row of db
    .prepare('SELECT id, name FROM release_hierarchies WHERE release_id = ?')
    .all(releaseId) as { id: string; name: string }[]) {
    hierarchies.set(row.id, row.name);
  }
  return { nodes, hierarchies };
}

/**
 * Indexes the release when its catalog is search-enabled (else does nothing). Call inside the
 * publish transaction, after the release's snapshot rows are written. Returns the build time
 * in ms, or undefined when the catalog is not search-enabled.
 */
export function indexRelease(db: Db, catalog: CatalogRow, release: ReleaseRow): number | undefined {
  if (!searchEnabled(catalog)) return undefined;
  const started = performance.now();
  const products = db
    .prepare('SELECT * FROM release_products WHERE release_id = ? ORDER BY position')
    .all(release.id) as ReleaseProductRow[];
  const tree = treeNames(db, release.id);
  const next = cachedStatement(
    db,
    'SELECT COALESCE(MAX(first_docid + documents), 1) FROM search_indexes',
  )
    .pluck()
    .get() as number;
  const insertText = cachedStatement(
    db,
    `INSERT INTO search_text (rowid, name, description, sku, slug, custom)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const insertPrefix = cachedStatement(
    db,
    'INSERT INTO search_prefix (rowid, words) VALUES (?, ?)',
  );
  const columns: StoredColumns = {
    ids: [],
    skus: [],
    names: [],
    created: [],
    updated: [],
    strings: {},
    numbers: {},
  };
  const numberColumn = (name: string) => {
    let column = columns.numbers[name];
    if (column === undefined) {
      column = new Array<number | null>(products.length).fill(null);
      columns.numbers[name] = column;
    }
    return column;
  };
  // String columns are gathered per doc first, then CSR-encoded once every field is known.
  const perField = new Map<string, { index: Map<string, number>; docs: number[][] }>();
  products.forEach((row, i) => {
    const fields = documentFields(row, tree);
    columns.ids.push(row.id);
    columns.skus.push(row.sku);
    columns.names.push(row.name);
    columns.created.push(Date.parse(row.created_at));
    columns.updated.push(Date.parse(row.updated_at));
    for (const [name, values] of fields.strings) {
      let field = perField.get(name);
      if (field === undefined) {
        field = { index: new Map(), docs: [] };
        perField.set(name, field);
      }
      const refs: number[] = [];
      for (const value of values) {
        let ref = field.index.get(value);
        if (ref === undefined) {
          ref = field.index.size;
          field.index.set(value, ref);
        }
        refs.push(ref);
      }
      field.docs[i] = refs;
    }
    for (const [name, value] of fields.numbers) {
      const column = numberColumn(name);
      column[i] = value;
    }
    const docid = next + i;
    const description = row.description ?? '';
    insertText.run(docid, row.name, description, row.sku ?? '', row.slug ?? '', fields.customText);
    insertPrefix.run(
      docid,
      `${row.name} ${description} ${row.sku ?? ''} ${row.slug ?? ''} ${fields.customText}`,
    );
  });
  for (const [name, field] of perField) {
    const offsets = [0];
    const refs: number[] = [];
    for (let i = 0; i < products.length; i++) {
      for (const ref of field.docs[i] ?? []) refs.push(ref);
      offsets.push(refs.length);
    }
    columns.strings[name] = { values: [...field.index.keys()], offsets, refs };
  }
  const duration = Math.round(performance.now() - started);
  cachedStatement(
    db,
    `INSERT INTO search_indexes (release_id, store_id, catalog_id, first_docid, documents, columns,
       duration_ms, built_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    release.id,
    release.store_id,
    release.catalog_id,
    next,
    products.length,
    JSON.stringify(columns),
    duration,
    release.published_at,
  );
  rememberBuiltIndex(db, release.id, next, columns);
  return duration;
}
