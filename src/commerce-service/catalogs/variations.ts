/**
 * Variations in the shopper catalog (catalog_view.yaml's product-meta): what an option picker
 * needs to map "Size M, Blue" to a child product.
 *
 * - A parent's (a built product's) `meta.variations`: its variations in the product's order, each with the options
 *   its build included (the options some built child has; every option when it has no child
 *   yet), options ordered as PXM orders them (sort_order desc, then creation).
 * - A parent's `meta.variation_matrix`: option id → option id → … → child product id, one level
 *   per variation in the product's order, for the live children in the release (production's
 *   nesting; a combination the build rules excluded or whose child is a draft is absent).
 * - A child's `meta.child_variations` (each variation with the option it chose) is stored on
 *   the child by the build; `meta.child_option_ids` lists those option ids.
 *
 * Both are computed when the release is published, so they stay what the release froze.
 */
import { cachedStatement, type Db } from '../db.ts';
import type { ProductRow } from '../pcm/products.ts';

interface OptionShown {
  id: string;
  name: string;
  description: string;
  sort_order?: number;
}

interface VariationShown {
  id: string;
  name: string;
  sort_order?: number;
  options: OptionShown[];
}

type Matrix = { [optionId: string]: Matrix | string };

/** The ids of a child's chosen options, in its variations' order. */
export function childOptionIds(childVariations: string | null): string[] {
  if (childVariations === null) return [];
  const parsed = JSON.parse(childVariations) as { option?: { id?: unknown } }[];
  return parsed.flatMap((v) => (typeof v.option?.id === 'string' ? [v.option.id] : []));
}

/** Writes the variations and matrix of every product of the release that has variations. */
export function snapshotVariations(
  db: Db,
  releaseId: string,
  storeId: string,
  products: readonly ProductRow[],
): void {
  // Only parents: a product with variations but no build is a standard product to a shopper.
  const bases = products.filter((p) => p.product_type === 'parent').map((p) => p.id);
  if (bases.length === 0) return;
  const links = db
    .prepare(
      `SELECT pv.product_id AS product_id, v.id AS id, v.name AS name, v.sort_order AS sort_order
       FROM pcm_product_variations pv JOIN pcm_variations v ON v.id = pv.variation_id
       WHERE pv.product_id IN (SELECT value FROM json_each(?))
       ORDER BY pv.product_id, pv.position`,
    )
    .all(JSON.stringify(bases)) as {
    product_id: string;
    id: string;
    name: string;
    sort_order: number | null;
  }[];
  if (links.length === 0) return;
  const byProduct = new Map<string, typeof links>();
  for (const link of links) {
    const list = byProduct.get(link.product_id) ?? [];
    list.push(link);
    byProduct.set(link.product_id, list);
  }
  const options = db
    .prepare(
      `SELECT id, variation_id, name, description, sort_order FROM pcm_variation_options
       WHERE variation_id IN (SELECT value FROM json_each(?))
       ORDER BY sort_order DESC, created_at, id`,
    )
    .all(JSON.stringify([...new Set(links.map((l) => l.id))])) as {
    id: string;
    variation_id: string;
    name: string;
    description: string | null;
    sort_order: number | null;
  }[];
  // The options each parent's build included: those its children (any status) were built from.
  const built = new Map<string, Set<string>>();
  for (const row of db
    .prepare(
      `SELECT parent_id, child_key FROM pcm_products
       WHERE parent_id IN (SELECT value FROM json_each(?)) AND child_key IS NOT NULL`,
    )
    .all(JSON.stringify([...byProduct.keys()])) as { parent_id: string; child_key: string }[]) {
    const set = built.get(row.parent_id) ?? new Set<string>();
    for (const id of row.child_key.split(',')) set.add(id);
    built.set(row.parent_id, set);
  }
  // The matrix: the release's (live) children by their chosen options.
  const matrices = new Map<string, Matrix>();
  for (const child of products) {
    if (child.product_type !== 'child' || child.parent_id === null) continue;
    const path = childOptionIds(child.child_variations);
    if (path.length === 0) continue;
    const matrix = matrices.get(child.parent_id) ?? {};
    matrices.set(child.parent_id, matrix);
    let level = matrix;
    path.forEach((optionId, i) => {
      if (i === path.length - 1) {
        level[optionId] = child.id;
        return;
      }
      const next = level[optionId];
      const nested: Matrix = typeof next === 'object' ? next : {};
      level[optionId] = nested;
      level = nested;
    });
  }
  const insert = cachedStatement(
    db,
    `INSERT INTO release_product_variations (release_id, store_id, product_id, variations,
       variation_matrix) VALUES (?, ?, ?, ?, ?)`,
  );
  for (const [productId, variations] of byProduct) {
    const included = built.get(productId);
    const shown: VariationShown[] = variations.map((v) => ({
      id: v.id,
      name: v.name,
      ...(v.sort_order === null ? {} : { sort_order: v.sort_order }),
      options: options
        .filter((o) => o.variation_id === v.id && (included === undefined || included.has(o.id)))
        .map((o) => ({
          id: o.id,
          name: o.name,
          description: o.description ?? '',
          ...(o.sort_order === null ? {} : { sort_order: o.sort_order }),
        })),
    }));
    insert.run(
      releaseId,
      storeId,
      productId,
      JSON.stringify(shown),
      JSON.stringify(matrices.get(productId) ?? {}),
    );
  }
}

/** The variations and matrix of those of `productIds` that have variations, in one query. */
export function releaseVariations(
  db: Db,
  releaseId: string,
  productIds: readonly string[],
): Map<string, { variations: VariationShown[]; variation_matrix: Matrix }> {
  const rows = cachedStatement(
    db,
    `SELECT product_id, variations, variation_matrix FROM release_product_variations
     WHERE release_id = ? AND product_id IN (SELECT value FROM json_each(?))`,
  ).all(releaseId, JSON.stringify(productIds)) as {
    product_id: string;
    variations: string;
    variation_matrix: string;
  }[];
  return new Map(
    rows.map((row) => [
      row.product_id,
      {
        variations: JSON.parse(row.variations) as VariationShown[],
        variation_matrix: JSON.parse(row.variation_matrix) as Matrix,
      },
    ]),
  );
}
