/**
 * Publishing a catalog: a release, a read-only snapshot of the catalog's hierarchies (in the
 * catalog's order), their nodes (depth first, children as PXM orders them: sort_order desc,
 * then updated_at desc) with breadcrumbs, the live products attached to those nodes and the
 * live children of those that are parents, and the winning price of each of their SKUs from
 * the catalog's price books (prices are stored whole, sales included, so a sale starts and
 * ends on time within the release), and their prices in every price book a rule of the catalog
 * names (release-prices.ts: a rule's books price its shoppers from the release). Synchronous: the release is PUBLISHED when the call
 * returns. Only the newest three releases of a catalog are kept.
 */
import { cachedStatement, type Db } from '../db.ts';
import { newId } from '../ids.ts';
import type { ProductRow } from '../pcm/products.ts';
import { findPrices } from '../pricebooks/resolve.ts';
import { indexRelease } from '../search/build.ts';
import { type CatalogRow, catalogPricebooks, type ReleaseRow } from './records.ts';
import { snapshotRuleBookPrices } from './release-prices.ts';
import { snapshotVariations } from './variations.ts';

/** Releases a catalog keeps: publishing a fourth deletes the oldest. */
export const KEPT_RELEASES = 3;

interface TreeRow {
  id: string;
  hierarchy_id: string;
  parent_id: string | null;
  name: string;
  slug: string | null;
  description: string | null;
  extra: string;
  created_at: string;
  updated_at: string;
}

interface HierarchySnapshotRow extends Omit<TreeRow, 'hierarchy_id' | 'parent_id'> {}

/** The catalog's hierarchies that still exist, in the catalog's order. */
function snapshotHierarchies(db: Db, releaseId: string, catalog: CatalogRow) {
  const ids = JSON.parse(catalog.hierarchy_ids) as string[];
  const find = cachedStatement(db, 'SELECT * FROM pcm_hierarchies WHERE store_id = ? AND id = ?');
  const insert = cachedStatement(
    db,
    `INSERT INTO release_hierarchies (release_id, store_id, id, position, name, slug, description,
       extra, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const kept: HierarchySnapshotRow[] = [];
  for (const id of ids) {
    const row = find.get(catalog.store_id, id) as HierarchySnapshotRow | undefined;
    if (row === undefined) continue;
    insert.run(
      releaseId,
      catalog.store_id,
      row.id,
      kept.length,
      row.name,
      row.slug,
      row.description,
      row.extra,
      row.created_at,
      row.updated_at,
    );
    kept.push(row);
  }
  return kept;
}

/** Every node of the hierarchies, depth first; returns each node's breadcrumb (ids from the top). */
function snapshotNodes(
  db: Db,
  releaseId: string,
  storeId: string,
  hierarchyIds: readonly string[],
): Map<string, { hierarchyId: string; crumb: string[] }> {
  const crumbs = new Map<string, { hierarchyId: string; crumb: string[] }>();
  const insert = cachedStatement(
    db,
    `INSERT INTO release_nodes (release_id, store_id, id, hierarchy_id, parent_key, position, name,
       slug, description, extra, bread_crumb, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const select = cachedStatement(
    db,
    `SELECT id, hierarchy_id, parent_id, name, slug, description, extra, created_at, updated_at
     FROM pcm_nodes WHERE store_id = ? AND hierarchy_id = ? ORDER BY child_order DESC, id DESC`,
  );
  let position = 0;
  for (const hierarchyId of hierarchyIds) {
    const rows = select.all(storeId, hierarchyId) as TreeRow[];
    const children = new Map<string, TreeRow[]>();
    for (const row of rows) {
      const key = row.parent_id ?? '';
      const list = children.get(key);
      if (list === undefined) children.set(key, [row]);
      else list.push(row);
    }
    const visit = (parentKey: string, above: string[]) => {
      for (const row of children.get(parentKey) ?? []) {
        const crumb = [...above, row.id];
        crumbs.set(row.id, { hierarchyId, crumb });
        insert.run(
          releaseId,
          storeId,
          row.id,
          hierarchyId,
          parentKey,
          position++,
          row.name,
          row.slug,
          row.description,
          row.extra,
          JSON.stringify(crumb),
          row.created_at,
          row.updated_at,
        );
        visit(row.id, crumb);
      }
    };
    visit('', []);
  }
  return crumbs;
}

/**
 * The live products of the nodes (each node's in PXM's order: curated first, then newest), and
 * the live children of live parents among them. Returns the SKUs to price.
 */
function snapshotProducts(
  db: Db,
  releaseId: string,
  storeId: string,
  nodes: Map<string, { hierarchyId: string; crumb: string[] }>,
): { skus: string[]; total: number } {
  const links = db
    .prepare(
      `SELECT np.node_id AS node_id, np.product_id AS product_id
       FROM pcm_node_products np JOIN pcm_products p ON p.id = np.product_id
       WHERE np.store_id = ? AND np.node_id IN (SELECT value FROM json_each(?))
         AND p.status = 'live'
       ORDER BY np.node_id, np.list_order DESC, np.product_id DESC`,
    )
    .all(storeId, JSON.stringify([...nodes.keys()])) as { node_id: string; product_id: string }[];
  const insertLink = cachedStatement(
    db,
    `INSERT INTO release_node_products (release_id, store_id, node_id, hierarchy_id, product_id,
       position) VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const breadCrumbs = new Map<string, Record<string, string[]>>();
  let place = 0;
  let lastNode = '';
  for (const link of links) {
    if (link.node_id !== lastNode) place = 0;
    lastNode = link.node_id;
    const node = nodes.get(link.node_id);
    if (node === undefined) continue;
    insertLink.run(releaseId, storeId, link.node_id, node.hierarchyId, link.product_id, place++);
    const crumbs = breadCrumbs.get(link.product_id) ?? {};
    crumbs[link.node_id] = node.crumb;
    breadCrumbs.set(link.product_id, crumbs);
  }
  const attached = [...breadCrumbs.keys()];
  const products = db
    .prepare(
      `SELECT * FROM pcm_products WHERE store_id = ?1 AND status = 'live'
         AND (id IN (SELECT value FROM json_each(?2))
           OR (parent_id IN (SELECT value FROM json_each(?2)) AND product_type = 'child'))
       ORDER BY created_at, id`,
    )
    .all(storeId, JSON.stringify(attached)) as ProductRow[];
  const insert = cachedStatement(
    db,
    `INSERT INTO release_products (release_id, store_id, id, position, name, commodity_type, sku,
       slug, description, upc_ean, mpn, external_ref, tags, extra, product_type, parent_id,
       child_variations, price_modifiers, main_image_id, files, bread_crumbs, created_at,
       updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const skus: string[] = [];
  for (const [position, p] of products.entries()) {
    if (p.sku !== null) skus.push(p.sku);
    insert.run(
      releaseId,
      storeId,
      p.id,
      position,
      p.name,
      p.commodity_type,
      p.sku,
      p.slug,
      p.description,
      p.upc_ean,
      p.mpn,
      p.external_ref,
      p.tags,
      p.extra,
      p.product_type,
      p.parent_id,
      p.child_variations,
      p.price_modifiers,
      p.main_image_id,
      p.files,
      JSON.stringify(breadCrumbs.get(p.id) ?? {}),
      p.created_at,
      p.updated_at,
    );
  }
  // Each hierarchy's products, once each, in the release's product order.
  const insertHierarchyLink = cachedStatement(
    db,
    `INSERT OR IGNORE INTO release_hierarchy_products (release_id, store_id, hierarchy_id,
       product_id, position) VALUES (?, ?, ?, ?, ?)`,
  );
  for (const [position, p] of products.entries()) {
    for (const nodeId of Object.keys(breadCrumbs.get(p.id) ?? {})) {
      const node = nodes.get(nodeId);
      if (node !== undefined) {
        insertHierarchyLink.run(releaseId, storeId, node.hierarchyId, p.id, position);
      }
    }
  }
  // Parents' variations and matrices (of the children just written): variations.ts.
  snapshotVariations(db, releaseId, storeId, products);
  return { skus, total: products.length };
}

/** Publishes `catalog` now; call inside an immediate transaction. */
export function publishCatalog(
  db: Db,
  catalog: CatalogRow,
  options: { now: string; name?: string; description?: string | null; id?: string },
): ReleaseRow {
  // The seed passes its own (deterministic) id.
  const id = options.id ?? newId();
  const books = catalogPricebooks(catalog);
  // The release row first: the snapshot rows refer to it.
  const release: ReleaseRow = {
    id,
    store_id: catalog.store_id,
    catalog_id: catalog.id,
    name: options.name ?? catalog.name,
    description: options.description ?? catalog.description,
    hierarchies: '[]',
    pricebooks: JSON.stringify(books),
    release_status: 'PUBLISHED',
    total_products: 0,
    total_nodes: 0,
    published_at: options.now,
    created_at: options.now,
    updated_at: options.now,
  };
  db.prepare(
    `INSERT INTO catalog_releases (id, store_id, catalog_id, name, description, hierarchies,
       pricebooks, release_status, total_products, total_nodes, published_at, created_at,
       updated_at)
     VALUES (@id, @store_id, @catalog_id, @name, @description, @hierarchies, @pricebooks,
       @release_status, @total_products, @total_nodes, @published_at, @created_at, @updated_at)`,
  ).run(release);
  const hierarchies = snapshotHierarchies(db, id, catalog);
  const nodes = snapshotNodes(
    db,
    id,
    catalog.store_id,
    hierarchies.map((h) => h.id),
  );
  const { skus, total } = snapshotProducts(db, id, catalog.store_id, nodes);
  const insertPrice = cachedStatement(
    db,
    `INSERT INTO release_prices (release_id, store_id, sku, price_id, pricebook_id, currencies,
       sales) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const price of findPrices(db, catalog.store_id, books, skus).values()) {
    insertPrice.run(
      id,
      catalog.store_id,
      price.sku,
      price.id,
      price.pricebook_id,
      JSON.stringify(price.currencies),
      price.sales === null ? null : JSON.stringify(price.sales),
    );
  }
  snapshotRuleBookPrices(db, id, catalog.store_id, catalog.id, skus);
  release.hierarchies = JSON.stringify(
    hierarchies.map((h) => ({ id: h.id, label: h.name, name: h.name })),
  );
  release.total_products = total;
  release.total_nodes = nodes.size;
  db.prepare(
    `UPDATE catalog_releases SET hierarchies = ?, total_products = ?, total_nodes = ?
     WHERE id = ?`,
  ).run(release.hierarchies, total, nodes.size, id);
  // A search-enabled catalog's release gets its search index now, with the release.
  indexRelease(db, catalog, release);
  // Keep the newest three (the snapshot rows go with a release: ON DELETE CASCADE).
  db.prepare(
    `DELETE FROM catalog_releases WHERE store_id = ? AND catalog_id = ? AND id NOT IN (
       SELECT id FROM catalog_releases WHERE store_id = ? AND catalog_id = ?
       ORDER BY created_at DESC, id DESC LIMIT ${KEPT_RELEASES})`,
  ).run(catalog.store_id, catalog.id, catalog.store_id, catalog.id);
  return release;
}
