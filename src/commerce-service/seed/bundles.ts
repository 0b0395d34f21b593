/**
 * The demo store's bundles (catalogs/bundles.ts), made of demo products, beside the first Tee
 * (whose Size × Colour children carry the variation matrix a storefront's option picker reads):
 *
 * - "Tee Starter Kit" (slug `tee-starter-kit`), no SKU, so priced from what the shopper picks:
 *   one Tee 1 child (the first, by default) and up to two extras of the first three demo items
 *   (one to three of each; the first by default).
 * - "Gift Box" (SKU `BUNDLE-GIFT`), a fixed price of its own in the Retail price book: one of
 *   demo item 4 and two of demo item 5, nothing to choose.
 *
 * Called by seed/catalog.ts once its products and price books exist and before it publishes.
 * Deterministic without a PRNG draw (ids hashed from the store id, a fixed date), so every other
 * seeded row is what it was before the bundles existed.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../db.ts';
import { uuidFromBytes } from '../ids.ts';
import { iso, SEED_EPOCH } from './random.ts';

const seededId = (storeId: string, name: string) =>
  uuidFromBytes(createHash('sha256').update(`commerce-seed-bundle:${storeId}:${name}`).digest());

/** Writes the demo bundles; returns how many products it made (0 when the catalog is too small). */
export function seedBundles(db: Db, storeId: string, retailBook: string): number {
  const idOf = (sku: string) =>
    db
      .prepare("SELECT id FROM pcm_products WHERE store_id = ? AND sku = ? AND status = 'live'")
      .pluck()
      .get(storeId, sku) as string | undefined;
  const tee = idOf('TEE-001');
  const items = ['SKU-00001', 'SKU-00002', 'SKU-00003', 'SKU-00004', 'SKU-00005'].map(idOf);
  const node =
    tee === undefined
      ? undefined
      : (db
          .prepare('SELECT node_id FROM pcm_node_products WHERE product_id = ? LIMIT 1')
          .pluck()
          .get(tee) as string | undefined);
  const [a, b, c, d, e] = items;
  if (tee === undefined || node === undefined || !(a && b && c && d && e)) return 0;
  const shirts = db
    .prepare('SELECT id FROM pcm_products WHERE parent_id = ? ORDER BY sku')
    .pluck()
    .all(tee) as string[];
  // After every product of the catalog seed (its clock starts 60 days before the epoch and
  // ticks by the millisecond): the bundles come last in the release, not on its first page.
  const at = iso(SEED_EPOCH - 59 * 86_400_000);
  const option = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    type: 'product',
    quantity: 1,
    ...extra,
  });
  const bundles = [
    {
      name: 'Tee Starter Kit',
      sku: null,
      components: {
        tee: {
          name: 'Your tee',
          min: 1,
          max: 1,
          sort_order: 1,
          options: shirts.map((id, i) => option(id, { default: i === 0, sort_order: i })),
        },
        extras: {
          name: 'Extras',
          min: 0,
          max: 2,
          sort_order: 2,
          options: [a, b, c].map((id, i) =>
            option(id, { min: 1, max: 3, default: i === 0, sort_order: i }),
          ),
        },
      },
    },
    {
      name: 'Gift Box',
      sku: 'BUNDLE-GIFT',
      components: {
        treats: {
          name: 'In the box',
          min: 2,
          max: 2,
          options: [option(d, { default: true }), option(e, { quantity: 2, default: true })],
        },
      },
    },
  ];
  const insert = db.prepare(
    `INSERT INTO pcm_products (id, store_id, name, commodity_type, sku, slug, status, description,
       extra, product_type, created_at, updated_at)
     VALUES (?, ?, ?, 'physical', ?, ?, 'live', ?, ?, 'bundle', ?, ?)`,
  );
  const link = db.prepare(
    `INSERT INTO pcm_node_products (store_id, node_id, product_id, product_created_at, created_at)
     VALUES (?, ?, ?, ?, ?)`,
  );
  for (const bundle of bundles) {
    const id = seededId(storeId, bundle.name);
    const slug = bundle.name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    insert.run(
      id,
      storeId,
      bundle.name,
      bundle.sku,
      slug,
      `${bundle.name}: a demo bundle.`,
      JSON.stringify({ components: bundle.components }),
      at,
      at,
    );
    link.run(storeId, node, id, at, at);
  }
  db.prepare(
    `INSERT INTO prices (id, store_id, pricebook_id, sku, currencies, sales, created_at, updated_at)
     VALUES (?, ?, ?, 'BUNDLE-GIFT', ?, NULL, ?, ?)`,
  ).run(
    seededId(storeId, 'Gift Box price'),
    storeId,
    retailBook,
    JSON.stringify({
      USD: { amount: 4999, includes_tax: false },
      EUR: { amount: 4599, includes_tax: true },
    }),
    at,
    at,
  );
  return bundles.length;
}
