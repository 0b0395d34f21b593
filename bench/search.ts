/**
 * Catalog Search at scale: seeds 100,000 live products (bulk SQL, one transaction, temp-file
 * database) in 10 departments × 5 shelves, each with tags, a brand (an extension field) and a
 * USD price (one in eight on sale), publishes a search-enabled catalog of them (the index is
 * built inside the publish, as for any catalog with enable_search) and measures, over real
 * HTTP and one request at a time, `GET /catalog/search` with three facets
 * (meta.search.categories.lvl1, attributes.tags, extensions.products(specs).brand) and a
 * price sort (price.USD.float_price:asc), 20 hits a page:
 *   - a text query matching about 1% of the products (one of 100 nouns; each request another),
 *   - a match-all query (q=*),
 *   - the 1% query in stock only (`filter_by=meta.stock.in_stock:=true`: stock is read live,
 *     not from the index; one product in ten is sold out),
 *   - match-all in stock with a sale (a stock decrement over HTTP, not timed) before each
 *     request, so every search first catches its stock column up.
 * Prints p50/p95/p99 per query, the index build time (search_indexes.duration_ms) and the
 * whole publish, and the load average (figures taken while other work runs are noisy).
 * `BENCH_PRODUCTS` and `BENCH_REQUESTS` override the sizes. Goals on a 2-core machine: p95 ≤
 * 25 ms for the 1% query, ≤ 100 ms for match-all, build ≤ 15 s.
 *
 * Run: npm run bench -- search
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createCommerceService } from '../src/commerce-service/app.ts';
import { publishCatalog } from '../src/commerce-service/catalogs/publish.ts';
import type { CatalogRow } from '../src/commerce-service/catalogs/records.ts';
import { openDatabase } from '../src/commerce-service/db.ts';
import { ensureStores } from '../src/commerce-service/stores.ts';
import { fetchClientToken } from '../src/upstream/oauth.ts';
import { BENCH_CLIENT, percentile, progress } from './lib.ts';

const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 100_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const WARMUP = 20;
const PER_PAGE = 20;

const ADJECTIVES = ['Classic', 'Compact', 'Deluxe', 'Eco', 'Light', 'Pro', 'Smart', 'Travel'];
const MATERIALS = ['steel', 'oak', 'linen', 'glass', 'copper', 'wool', 'clay', 'bamboo'];
const BRANDS = Array.from({ length: 20 }, (_, i) => `Brand ${String.fromCharCode(65 + i)}`);
const TAGS = ['new', 'sale', 'eco', 'bestseller', 'gift'];
const DEPARTMENTS = [
  'Kitchen',
  'Garden',
  'Outdoor',
  'Office',
  'Apparel',
  'Home',
  'Toys',
  'Tools',
  'Bath',
  'Pets',
];
/** 100 nouns: each is the product noun of 1% of the products. */
const NOUNS = [
  'anchor',
  'apron',
  'basket',
  'beaker',
  'bench',
  'blanket',
  'bottle',
  'bracket',
  'brush',
  'bucket',
  'cabinet',
  'candle',
  'canister',
  'carafe',
  'chair',
  'chisel',
  'clock',
  'coaster',
  'colander',
  'crate',
  'cushion',
  'decanter',
  'desk',
  'drawer',
  'easel',
  'faucet',
  'fence',
  'flask',
  'funnel',
  'goblet',
  'grater',
  'hammer',
  'hammock',
  'hanger',
  'helmet',
  'hook',
  'jacket',
  'jug',
  'kettle',
  'ladder',
  'ladle',
  'lamp',
  'lantern',
  'locker',
  'mallet',
  'mirror',
  'mitten',
  'mortar',
  'napkin',
  'needle',
  'notebook',
  'ottoman',
  'paddle',
  'pail',
  'pencil',
  'pillow',
  'pitcher',
  'planter',
  'platter',
  'pliers',
  'pouch',
  'quilt',
  'rack',
  'rake',
  'ribbon',
  'ruler',
  'saddle',
  'satchel',
  'saucer',
  'scarf',
  'scoop',
  'shovel',
  'sieve',
  'skillet',
  'slipper',
  'spatula',
  'spoon',
  'stapler',
  'stool',
  'strainer',
  'sweater',
  'table',
  'teapot',
  'thermos',
  'tongs',
  'towel',
  'tray',
  'trowel',
  'tumbler',
  'umbrella',
  'vase',
  'wallet',
  'whisk',
  'wrench',
  'trivet',
  'kayak',
  'compass',
  'tripod',
  'duvet',
  'ukulele',
];

function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-search-'));
  const dbPath = join(dir, 'bench.db');
  const shown = progress('search');
  shown.step(`seeding ${PRODUCTS.toLocaleString('en')} products`);
  const db = openDatabase(dbPath);
  db.pragma('cache_size = -1000000');
  db.pragma('journal_mode = MEMORY');
  db.pragma('synchronous = OFF');
  const at = (i: number) =>
    new Date(Date.parse('2025-01-01T00:00:00.000Z') + i * 1000).toISOString();
  const [storeId = ''] = ensureStores(db, [BENCH_CLIENT], at(0));
  const hierarchy = randomUUID();
  const book = randomUUID();
  const leaves: string[] = [];
  /** Products with stock to sell in the "a sale before each" scenario. */
  const stocked: string[] = [];
  db.transaction(() => {
    db.prepare(
      `INSERT INTO pcm_hierarchies (id, store_id, name, created_at, updated_at)
       VALUES (?, ?, 'Departments', ?, ?)`,
    ).run(hierarchy, storeId, at(0), at(0));
    const node = db.prepare(
      `INSERT INTO pcm_nodes (id, store_id, hierarchy_id, parent_id, name, sort_order, created_at,
         updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)`,
    );
    for (const department of DEPARTMENTS) {
      const top = randomUUID();
      node.run(top, storeId, hierarchy, null, department, at(0), at(0));
      for (let shelf = 1; shelf <= 5; shelf++) {
        const leaf = randomUUID();
        node.run(leaf, storeId, hierarchy, top, `${department} shelf ${shelf}`, at(0), at(0));
        leaves.push(leaf);
      }
    }
    db.prepare(
      `INSERT INTO pricebooks (id, store_id, name, created_at, updated_at)
       VALUES (?, ?, 'Retail', ?, ?)`,
    ).run(book, storeId, at(0), at(0));
    const product = db.prepare(
      `INSERT INTO pcm_products (id, store_id, name, commodity_type, sku, slug, status,
         description, tags, extra, created_at, updated_at)
       VALUES (?, ?, ?, 'physical', ?, ?, 'live', ?, ?, ?, ?, ?)`,
    );
    const link = db.prepare(
      `INSERT INTO pcm_node_products (store_id, node_id, product_id, product_created_at, created_at)
       VALUES (?, ?, ?, ?, ?)`,
    );
    const stock = db.prepare(
      `INSERT INTO stock (store_id, product_id, stock_id, total, available, allocated,
         created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)`,
    );
    const price = db.prepare(
      `INSERT INTO prices (id, store_id, pricebook_id, sku, currencies, sales, created_at,
         updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (let i = 0; i < PRODUCTS; i++) {
      const noun = NOUNS[i % NOUNS.length] as string;
      const material = MATERIALS[(i >> 3) % MATERIALS.length] as string;
      const brand = BRANDS[(i * 7) % BRANDS.length] as string;
      const name = `${ADJECTIVES[i % ADJECTIVES.length]} ${material} ${noun} ${i}`;
      const sku = `SKU-${String(i).padStart(6, '0')}`;
      const id = randomUUID();
      const created = at(i + 1);
      const tags = TAGS.filter((_, t) => (i + t) % 3 === 0);
      product.run(
        id,
        storeId,
        name,
        sku,
        sku.toLowerCase(),
        `A ${material} ${noun} by ${brand}, made to last.`,
        JSON.stringify(tags),
        JSON.stringify({ extensions: { 'products(specs)': { brand, weight: (i % 50) * 10 } } }),
        created,
        created,
      );
      link.run(storeId, leaves[(i * 13) % leaves.length], id, created, created);
      // One product in ten sold out (of every noun's too); the others 1 to 1,000 units.
      const tenth = Math.floor(i / NOUNS.length) % 10;
      const units = tenth === 0 ? 0 : 1 + ((i * 7919) % 1000);
      stock.run(storeId, id, randomUUID(), units, units, created, created);
      if (tenth === 1) stocked.push(id);
      const usd = 500 + ((i * 7919) % 40_000);
      const sales =
        i % 8 === 0
          ? JSON.stringify({
              clearance: {
                currencies: { USD: { amount: Math.round(usd * 0.8), includes_tax: false } },
              },
            })
          : null;
      price.run(
        randomUUID(),
        storeId,
        book,
        sku,
        JSON.stringify({ USD: { amount: usd, includes_tax: false } }),
        sales,
        created,
        created,
      );
      if (i % 4096 === 0) shown.tick(() => `${i.toLocaleString('en')} products`);
    }
  })();
  const catalog: CatalogRow = {
    id: randomUUID(),
    store_id: storeId,
    name: 'Bench',
    description: null,
    hierarchy_ids: JSON.stringify([hierarchy]),
    pricebooks: JSON.stringify([{ id: book, priority: 0 }]),
    single_pricebook: 1,
    extra: JSON.stringify({ enable_search: true }),
    created_at: at(0),
    updated_at: at(0),
  };
  db.prepare(
    `INSERT INTO catalogs (id, store_id, name, description, hierarchy_ids, pricebooks,
       single_pricebook, extra, created_at, updated_at)
     VALUES (@id, @store_id, @name, @description, @hierarchy_ids, @pricebooks,
       @single_pricebook, @extra, @created_at, @updated_at)`,
  ).run(catalog);
  shown.step('publishing the catalog (snapshot and search index)');
  const publishStart = performance.now();
  const release = db.transaction(() =>
    publishCatalog(db, catalog, { now: new Date().toISOString() }),
  )();
  const publishMs = performance.now() - publishStart;
  const build = db
    .prepare('SELECT duration_ms, documents FROM search_indexes WHERE release_id = ?')
    .get(release.id) as { duration_ms: number; documents: number };
  db.pragma('journal_mode = WAL');
  db.close();

  const app = await createCommerceService({ dbPath, clients: [BENCH_CLIENT], seed: false });
  try {
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const token = await fetchClientToken(url, BENCH_CLIENT);
    const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
    const common =
      `facet_by=${encodeURIComponent('meta.search.categories.lvl1,attributes.tags,extensions.products(specs).brand')}` +
      `&sort_by=${encodeURIComponent('price.USD.float_price:asc')}&per_page=${PER_PAGE}`;
    const inStock = `filter_by=${encodeURIComponent('meta.stock.in_stock:=true')}`;
    /** A sale: one unit of a stocked product (not timed). */
    const sell = async (i: number) => {
      const id = stocked[i % stocked.length] as string;
      const response = await fetch(`${url}/v2/inventories/${id}/transactions`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({
          data: { type: 'stock-transaction', action: 'decrement', quantity: 1 },
        }),
      });
      if (response.status !== 201) throw new Error(`a sale: HTTP ${response.status}`);
    };
    const scenarios: [string, (i: number) => string, ((i: number) => Promise<void>)?][] = [
      [
        '1% text query (q=<noun>)',
        (i) => `${url}/catalog/search?q=${NOUNS[i % NOUNS.length]}&${common}`,
      ],
      ['match-all (q=*)', () => `${url}/catalog/search?q=*&${common}`],
      [
        '1% query, in stock',
        (i) => `${url}/catalog/search?q=${NOUNS[i % NOUNS.length]}&${inStock}&${common}`,
      ],
      [
        'match-all in stock, a sale before each',
        () => `${url}/catalog/search?q=*&${inStock}&${common}`,
        sell,
      ],
    ];
    console.log(
      `${build.documents.toLocaleString('en')} products indexed in ${(build.duration_ms / 1000).toFixed(2)} s ` +
        `(the whole publish, snapshot included: ${(publishMs / 1000).toFixed(2)} s); ` +
        `${REQUESTS} sequential requests per query after ${WARMUP} warm-up requests; ` +
        `three facets, price sort, ${PER_PAGE} hits a page`,
    );
    console.log(`load average before measuring: ${loadAverage()}`);
    console.log(
      `${'query'.padEnd(40)}${'p50 ms'.padStart(9)}${'p95 ms'.padStart(9)}${'p99 ms'.padStart(9)}  found`,
    );
    for (const [name, target, before] of scenarios) {
      const times: number[] = [];
      let found = 0;
      shown.step(`measuring "${name}": ${WARMUP + REQUESTS} requests`);
      for (let i = 0; i < WARMUP + REQUESTS; i++) {
        if (before) await before(i);
        const start = performance.now();
        const response = await fetch(target(i), { headers });
        const body = (await response.json()) as {
          found: number;
          hits: unknown[];
          facet_counts: unknown[];
        };
        const elapsed = performance.now() - start;
        if (response.status !== 200 || body.facet_counts.length !== 3) {
          throw new Error(`${name}: HTTP ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
        }
        found = body.found;
        if (i >= WARMUP) times.push(elapsed);
      }
      times.sort((a, b) => a - b);
      console.log(
        `${name.padEnd(40)}${percentile(times, 50).toFixed(2).padStart(9)}` +
          `${percentile(times, 95).toFixed(2).padStart(9)}${percentile(times, 99).toFixed(2).padStart(9)}` +
          `  ${found.toLocaleString('en')}`,
      );
    }
    console.log(`load average after measuring: ${loadAverage()}`);
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
