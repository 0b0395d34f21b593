/**
 * The demo catalog: two hierarchies (Departments, three levels deep, and Brands), live
 * products (a few drafts) spread over their nodes, parents with children built by the PXM
 * build, price books in USD and EUR (some prices on sale), stock for some products, and two
 * published catalogs: "Storefront" (the default: the oldest) and "Mobile", which a rule gives
 * to the `mobile` channel, both search-enabled (Catalog Search indexes their releases). With
 * `bulkNodeProducts`, one more node ("Bulk") holds that many
 * products, for benchmarks past the 10,000 offset limit.
 *
 * Its own PRNG stream and clock (dated before everything else), so the rest of the seed's rows
 * are what they were before the catalog existed.
 */
import { createHash } from 'node:crypto';
import { publishCatalog } from '../catalogs/publish.ts';
import type { CatalogRow } from '../catalogs/records.ts';
import type { Db } from '../db.ts';
import { uuidFromBytes } from '../ids.ts';
import { buildChildren } from '../pcm/build.ts';
import type { ProductRow } from '../pcm/products.ts';
import { seedBundles } from './bundles.ts';
import { seedMugs } from './mugs.ts';
import { createRandom, iso, SEED_EPOCH } from './random.ts';

export interface CatalogSeedOptions {
  /** Standard products in the departments. Default 2,000. */
  products?: number;
  /** Products under the one "Bulk" node (for benchmarks). Default 0: no such node. */
  bulkNodeProducts?: number;
}

export interface CatalogSeedSummary {
  products: number;
  nodes: number;
  prices: number;
  catalogs: number;
}

export const DEFAULT_SEED_PRODUCTS = 2_000;

const DEPARTMENTS: readonly [string, readonly string[]][] = [
  ['Kitchen', ['Coffee', 'Tea', 'Cookware', 'Tableware']],
  ['Garden', ['Tools', 'Plants', 'Furniture', 'Lighting']],
  ['Outdoor', ['Camping', 'Cycling', 'Running', 'Climbing']],
  ['Office', ['Desks', 'Chairs', 'Paper', 'Pens']],
  ['Apparel', ['Shirts', 'Trousers', 'Shoes', 'Hats']],
  ['Home', ['Bedding', 'Bath', 'Storage', 'Decor']],
];
const LEVEL_THREE = ['Essentials', 'Premium'];
const BRANDS = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Stark', 'Wayne', 'Tyrell', 'Cyberdyne'];
const ADJECTIVES = ['Classic', 'Compact', 'Deluxe', 'Eco', 'Light', 'Pro', 'Smart', 'Travel'];
const TAGS = ['new', 'sale', 'eco', 'bestseller', 'gift'];
const SIZES = ['S', 'M', 'L'];
const COLOURS = ['Red', 'Blue'];
const PARENTS = 20;

const slugOf = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-');

export function seedCatalog(
  db: Db,
  storeId: string,
  options: CatalogSeedOptions = {},
): CatalogSeedSummary {
  const count = options.products ?? DEFAULT_SEED_PRODUCTS;
  const bulk = options.bulkNodeProducts ?? 0;
  const random = createRandom(`commerce-seed-catalog:${storeId}`);
  let clock = SEED_EPOCH - 60 * 86_400_000;
  const tick = () => iso(clock++);
  const summary: CatalogSeedSummary = { products: 0, nodes: 0, prices: 0, catalogs: 0 };

  const insertHierarchy = db.prepare(
    `INSERT INTO pcm_hierarchies (id, store_id, name, slug, description, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertNode = db.prepare(
    `INSERT INTO pcm_nodes (id, store_id, hierarchy_id, parent_id, name, slug, sort_order,
       created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const hierarchy = (name: string, description: string) => {
    const id = random.uuid();
    const at = tick();
    insertHierarchy.run(id, storeId, name, slugOf(name), description, at, at);
    return id;
  };
  const node = (h: string, parent: string | null, name: string, sortOrder: number) => {
    const id = random.uuid();
    const at = tick();
    insertNode.run(id, storeId, h, parent, name, slugOf(name), sortOrder, at, at);
    summary.nodes++;
    return id;
  };
  const departments = hierarchy('Departments', 'What the shop sells, by department');
  const brands = hierarchy('Brands', 'Who makes it');
  const leaves: string[] = [];
  DEPARTMENTS.forEach(([top, children], i) => {
    const topId = node(departments, null, top, DEPARTMENTS.length - i);
    children.forEach((child, j) => {
      const childId = node(departments, topId, child, children.length - j);
      LEVEL_THREE.forEach((level, k) => {
        // Sibling slugs are unique per parent: "coffee-essentials", not "essentials" twice.
        leaves.push(node(departments, childId, `${child} ${level}`, LEVEL_THREE.length - k));
      });
    });
  });
  const brandNodes = BRANDS.map((brand, i) => node(brands, null, brand, BRANDS.length - i));

  const insertProduct = db.prepare(
    `INSERT INTO pcm_products (id, store_id, name, commodity_type, sku, slug, status, description,
       tags, product_type, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertLink = db.prepare(
    `INSERT INTO pcm_node_products (store_id, node_id, product_id, product_created_at, created_at)
     VALUES (?, ?, ?, ?, ?)`,
  );
  const skus: string[] = [];
  const product = (name: string, sku: string, status: string, type: string, nodes: string[]) => {
    const id = random.uuid();
    const at = tick();
    const tags = TAGS.filter(() => random.int(0, 4) === 0);
    insertProduct.run(
      id,
      storeId,
      name,
      random.int(0, 9) === 0 ? 'digital' : 'physical',
      sku,
      slugOf(`${name} ${sku}`),
      status,
      `${name}: a demo product.`,
      JSON.stringify(tags),
      type,
      at,
      at,
    );
    for (const nodeId of nodes) insertLink.run(storeId, nodeId, id, at, at);
    skus.push(sku);
    summary.products++;
    return id;
  };
  const stocked: string[] = [];
  for (let i = 1; i <= count; i++) {
    const leaf = random.pick(leaves);
    const nodes = random.int(0, 2) === 0 ? [leaf, random.pick(brandNodes)] : [leaf];
    const name = `${random.pick(ADJECTIVES)} item ${i}`;
    // About one in a hundred is a draft: in PXM, never in a release.
    const status = i % 97 === 0 ? 'draft' : 'live';
    const id = product(name, `SKU-${String(i).padStart(5, '0')}`, status, 'standard', nodes);
    if (i % 5 === 0) stocked.push(id);
  }

  // Parents: Size × Colour, six children each, made by the PXM build.
  const variation = (name: string, options: readonly string[]) => {
    const id = random.uuid();
    const at = tick();
    db.prepare(
      `INSERT INTO pcm_variations (id, store_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
    ).run(id, storeId, name, at, at);
    for (const option of options) {
      const optionId = random.uuid();
      db.prepare(
        `INSERT INTO pcm_variation_options (id, store_id, variation_id, name, description,
           created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ).run(optionId, storeId, id, option, option, at, at);
      for (const [type, value] of [
        ['sku_append', `-${option.toUpperCase()}`],
        ['name_append', ` ${option}`],
      ] as const) {
        db.prepare(
          `INSERT INTO pcm_option_modifiers (id, store_id, option_id, modifier_type, body,
             created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        ).run(random.uuid(), storeId, optionId, type, JSON.stringify({ value }), at, at);
      }
      // A child's own slug (`tee-1-tee-001-m-blue`), for the storefront's product URL. Its id is
      // derived, not drawn, so the seed's random stream (and every other row) stays as it was.
      db.prepare(
        `INSERT INTO pcm_option_modifiers (id, store_id, option_id, modifier_type, body,
           created_at, updated_at) VALUES (?, ?, ?, 'slug_append', ?, ?, ?)`,
      ).run(
        uuidFromBytes(createHash('sha256').update(`commerce-seed-slug:${optionId}`).digest()),
        storeId,
        optionId,
        JSON.stringify({ value: `-${option.toLowerCase()}` }),
        at,
        at,
      );
    }
    return id;
  };
  const size = variation('Size', SIZES);
  const colour = variation('Colour', COLOURS);
  const apparelLeaves = leaves.slice(32, 40);
  for (let i = 1; i <= PARENTS; i++) {
    const sku = `TEE-${String(i).padStart(3, '0')}`;
    const id = product(`Tee ${i}`, sku, 'live', 'parent', [random.pick(apparelLeaves)]);
    db.prepare(
      'INSERT INTO pcm_product_variations (product_id, variation_id, position) VALUES (?, ?, ?), (?, ?, ?)',
    ).run(id, size, 0, id, colour, 1);
    const parent = db.prepare('SELECT * FROM pcm_products WHERE id = ?').get(id) as ProductRow;
    buildChildren(db, parent, tick);
    // The build draws its ids from the system's randomness: give the children seeded ones.
    const children = db
      .prepare('SELECT id, sku FROM pcm_products WHERE parent_id = ? ORDER BY child_key')
      .all(id) as { id: string; sku: string }[];
    for (const child of children) {
      const seeded = uuidFromBytes(
        createHash('sha256').update(`commerce-seed-child:${id}:${child.sku}`).digest(),
      );
      db.prepare('UPDATE pcm_products SET id = ? WHERE id = ?').run(seeded, child.id);
      skus.push(child.sku);
      summary.products++;
    }
  }

  if (bulk > 0) {
    const bulkNode = node(departments, null, 'Bulk', 0);
    for (let i = 1; i <= bulk; i++) {
      product(`Bulk item ${i}`, `BULK-${String(i).padStart(6, '0')}`, 'live', 'standard', [
        bulkNode,
      ]);
    }
  }

  // Price books: Retail in USD and EUR (one in eight on sale), Mobile in USD at 5% off.
  const insertBook = db.prepare(
    `INSERT INTO pricebooks (id, store_id, name, description, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const insertPrice = db.prepare(
    `INSERT INTO prices (id, store_id, pricebook_id, sku, currencies, sales, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const book = (name: string, description: string) => {
    const id = random.uuid();
    const at = tick();
    insertBook.run(id, storeId, name, description, at, at);
    return id;
  };
  const retail = book('Retail', 'List prices, USD and EUR');
  const mobileBook = book('Mobile', 'App prices, USD');
  for (const sku of skus) {
    const usd = random.int(5, 400) * 100 - 1;
    const eur = Math.round(usd * 0.92);
    const at = tick();
    const sales =
      random.int(0, 7) === 0
        ? JSON.stringify({
            clearance: {
              currencies: {
                USD: { amount: Math.round(usd * 0.8), includes_tax: false },
                EUR: { amount: Math.round(eur * 0.8), includes_tax: false },
              },
            },
          })
        : null;
    const currencies = {
      USD: { amount: usd, includes_tax: false },
      EUR: { amount: eur, includes_tax: true },
    };
    insertPrice.run(random.uuid(), storeId, retail, sku, JSON.stringify(currencies), sales, at, at);
    const mobile = { USD: { amount: Math.round(usd * 0.95), includes_tax: false } };
    insertPrice.run(random.uuid(), storeId, mobileBook, sku, JSON.stringify(mobile), null, at, at);
    summary.prices += 2;
  }

  const insertStock = db.prepare(
    `INSERT INTO stock (store_id, product_id, stock_id, total, available, allocated, created_at,
       updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)`,
  );
  for (const productId of stocked) {
    const available = random.int(0, 50);
    const at = tick();
    insertStock.run(storeId, productId, random.uuid(), available, available, at, at);
  }

  summary.products += seedBundles(db, storeId, retail);
  summary.products += seedMugs(db, storeId, retail, mobileBook);

  // Catalogs: Storefront (the oldest, so the default) and Mobile (the "mobile" channel's rule).
  const catalog = (name: string, hierarchies: string[], books: unknown[]): CatalogRow => {
    const at = tick();
    const row: CatalogRow = {
      id: random.uuid(),
      store_id: storeId,
      name,
      description: `${name} catalog`,
      hierarchy_ids: JSON.stringify(hierarchies),
      pricebooks: JSON.stringify(books),
      single_pricebook: 0,
      // Both are search-enabled: their releases are indexed when published (search/build.ts).
      extra: '{"enable_search":true}',
      created_at: at,
      updated_at: at,
    };
    db.prepare(
      `INSERT INTO catalogs (id, store_id, name, description, hierarchy_ids, pricebooks,
         single_pricebook, extra, created_at, updated_at)
       VALUES (@id, @store_id, @name, @description, @hierarchy_ids, @pricebooks,
         @single_pricebook, @extra, @created_at, @updated_at)`,
    ).run(row);
    publishCatalog(db, row, { now: tick(), id: random.uuid() });
    summary.catalogs++;
    return row;
  };
  catalog('Storefront', [departments, brands], [{ id: retail, priority: 1 }]);
  const mobile = catalog(
    'Mobile',
    [departments],
    [
      { id: mobileBook, priority: 10 },
      { id: retail, priority: 1 },
    ],
  );
  const at = tick();
  db.prepare(
    `INSERT INTO catalog_rules (id, store_id, name, catalog_id, description, channels, created_at,
       updated_at) VALUES (?, ?, 'mobile', ?, 'The app sees the Mobile catalog', '["mobile"]', ?, ?)`,
  ).run(random.uuid(), storeId, mobile.id, at, at);
  return summary;
}

/** Deletes the catalog data of a store (before a re-seed). */
export function wipeCatalog(db: Db, storeId: string): void {
  for (const table of [
    'catalog_rules',
    'catalog_releases',
    'catalogs',
    'stock_transactions',
    'stock',
    'prices',
    'price_modifiers',
    'pricebooks',
    'pcm_node_products',
    'pcm_nodes',
    'pcm_hierarchies',
  ]) {
    db.prepare(`DELETE FROM ${table} WHERE store_id = ?`).run(storeId);
  }
  // Children first (their parent_id), then the rest; variations after the products using them.
  db.prepare("DELETE FROM pcm_products WHERE store_id = ? AND product_type = 'child'").run(storeId);
  db.prepare('DELETE FROM pcm_products WHERE store_id = ?').run(storeId);
  for (const table of [
    'pcm_option_modifiers',
    'pcm_variation_options',
    'pcm_variations',
    'pcm_jobs',
  ]) {
    db.prepare(`DELETE FROM ${table} WHERE store_id = ?`).run(storeId);
  }
}
