/**
 * The demo store's mugs: a small family of products a storefront's search can find by a word a
 * shopper types ("mug"), with tags to facet by and prices to sort by — the catalog's other
 * products are named "<Adjective> item N". Standard products in the node of the first demo item,
 * priced in the Retail (USD, EUR) and Mobile (USD) books; images and stock come with every
 * product later in the seed (seed/images.ts, seed/stock.ts).
 *
 * Called by seed/catalog.ts once its products and price books exist and before it publishes.
 * Deterministic without a PRNG draw (ids hashed from the store id, a fixed date), so every other
 * seeded row is what it was before the mugs existed.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../db.ts';
import { uuidFromBytes } from '../ids.ts';
import { iso, SEED_EPOCH } from './random.ts';

const seededId = (storeId: string, name: string) =>
  uuidFromBytes(createHash('sha256').update(`commerce-seed-mug:${storeId}:${name}`).digest());

/** Name, SKU, USD minor units, tags. */
const MUGS: readonly [string, string, number, readonly string[]][] = [
  ['Ceramic mug', 'MUG-001', 1500, ['kitchen', 'ceramic']],
  ['Stoneware mug', 'MUG-002', 1800, ['kitchen', 'ceramic']],
  ['Espresso mug', 'MUG-003', 1200, ['kitchen', 'ceramic', 'coffee']],
  ['Latte mug', 'MUG-004', 1600, ['kitchen', 'ceramic', 'coffee']],
  ['Enamel camp mug', 'MUG-005', 1400, ['outdoor', 'enamel']],
  ['Glass mug', 'MUG-006', 1700, ['kitchen', 'glass']],
  ['Double-wall glass mug', 'MUG-007', 2400, ['kitchen', 'glass', 'coffee']],
  ['Travel mug', 'MUG-008', 2600, ['outdoor', 'steel', 'coffee']],
  ['Insulated travel mug', 'MUG-009', 3200, ['outdoor', 'steel']],
  ['Tea mug with infuser', 'MUG-010', 2200, ['kitchen', 'ceramic', 'tea']],
  ["Kids' mug", 'MUG-011', 900, ['kitchen', 'melamine']],
  ['Mug set of four', 'MUG-012', 4800, ['kitchen', 'ceramic', 'gift']],
];

/** Writes the demo mugs; returns how many products it made (0 when the catalog is too small). */
export function seedMugs(db: Db, storeId: string, retailBook: string, mobileBook: string): number {
  const first = db
    .prepare("SELECT id FROM pcm_products WHERE store_id = ? AND sku = 'SKU-00001'")
    .pluck()
    .get(storeId) as string | undefined;
  const node =
    first === undefined
      ? undefined
      : (db
          .prepare('SELECT node_id FROM pcm_node_products WHERE product_id = ? LIMIT 1')
          .pluck()
          .get(first) as string | undefined);
  if (node === undefined) return 0;
  // After every product of the catalog seed, as the bundles are: the mugs come last in a release.
  const at = iso(SEED_EPOCH - 59 * 86_400_000 + 1000);
  const insert = db.prepare(
    `INSERT INTO pcm_products (id, store_id, name, commodity_type, sku, slug, status, description,
       tags, product_type, created_at, updated_at)
     VALUES (?, ?, ?, 'physical', ?, ?, 'live', ?, ?, 'standard', ?, ?)`,
  );
  const link = db.prepare(
    `INSERT INTO pcm_node_products (store_id, node_id, product_id, product_created_at, created_at)
     VALUES (?, ?, ?, ?, ?)`,
  );
  const price = db.prepare(
    `INSERT INTO prices (id, store_id, pricebook_id, sku, currencies, sales, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, NULL, ?, ?)`,
  );
  for (const [name, sku, usd, tags] of MUGS) {
    const id = seededId(storeId, sku);
    const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    insert.run(
      id,
      storeId,
      name,
      sku,
      slug,
      `${name}: holds a good drink.`,
      JSON.stringify(['mug', ...tags]),
      at,
      at,
    );
    link.run(storeId, node, id, at, at);
    const retail = {
      USD: { amount: usd, includes_tax: false },
      EUR: { amount: Math.round(usd * 0.92), includes_tax: true },
    };
    price.run(
      seededId(storeId, `${sku} retail`),
      storeId,
      retailBook,
      sku,
      JSON.stringify(retail),
      at,
      at,
    );
    const mobile = { USD: { amount: Math.round(usd * 0.95), includes_tax: false } };
    price.run(
      seededId(storeId, `${sku} mobile`),
      storeId,
      mobileBook,
      sku,
      JSON.stringify(mobile),
      at,
      at,
    );
  }
  return MUGS.length;
}
