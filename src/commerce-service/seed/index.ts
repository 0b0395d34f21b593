/**
 * Deterministic demo data for a store. Every id, timestamp and value comes from a PRNG seeded
 * by the store id, so two seeds of the same store produce identical rows (tests and benchmarks
 * can rely on exact data), and nothing depends on the wall clock.
 *
 * Here: the steps that write a store's data set, in one transaction. Under seed/: the PRNG and
 * seeded timestamps (random.ts), the order generator (orders.ts), the demo Custom APIs
 * (custom-apis.ts) and the words records are drawn from (vocabulary.ts).
 */
import { createHash } from 'node:crypto';
import { dataSize, entryEtag } from '../custom-apis/entries-routes.ts';
import type { Db as Database } from '../db.ts';
import { uuidFromBytes } from '../ids.ts';
import { loadWithoutLadder } from '../ladder.ts';
import { type OrderRow, renderOrder } from '../orders/routes.ts';
import { type CatalogSeedOptions, seedCatalog, wipeCatalog } from './catalog.ts';
import { seedCurrencies } from './currencies.ts';
import { CUSTOM_APIS } from './custom-apis.ts';
import { seedProductImages } from './images.ts';
import { generateOrders } from './orders.ts';
import { seedAccountMembers, seedCustomers } from './people.ts';
import { seedPromotions } from './promotions.ts';
import { createRandom, iso, type Random, SEED_EPOCH } from './random.ts';
import { seedStock } from './stock.ts';

export interface SeedOptions extends CatalogSeedOptions {
  /** Number of orders to create. Default 12,000. */
  orders?: number;
}

export interface SeedSummary {
  customApis: number;
  entries: number;
  carts: number;
  orders: number;
  orderItems: number;
  files: number;
  accounts: number;
  customers: number;
  /** Account members who can sign in (seed/people.ts). */
  accountMembers: number;
  /** PXM products (children included) of the demo catalog. */
  products: number;
  /** Wall time of the whole seed, milliseconds. */
  ms: number;
}

export const DEFAULT_SEED_ORDERS = 12_000;

// The people who can sign in live in seed/people.ts; their names and passwords are docs/storefront.md's.
export { DEMO_ACCOUNT_MEMBERS, DEMO_CUSTOMERS, DEMO_MEMBER_ACCOUNTS } from './people.ts';

/** From this many orders on, the order indexes are rebuilt after the load instead of kept up. */
const BULK_THRESHOLD = 2_000;

/**
 * Deletes every record of a store that the seed creates (Custom APIs and their entries, carts,
 * orders, files, accounts), leaving the store, its settings and its tokens. Used by the seed CLI
 * to re-seed, and by seedDemoStore itself so that a seed is always the complete data set.
 */
export function wipeStoreData(db: Database, storeId: string): void {
  db.transaction(() => {
    // Children first by store_id: one scan each instead of a cascade per parent row.
    db.prepare('DELETE FROM custom_api_entries WHERE store_id = ?').run(storeId);
    db.prepare('DELETE FROM custom_api_fields WHERE store_id = ?').run(storeId);
    db.prepare('DELETE FROM custom_apis WHERE store_id = ?').run(storeId);
    db.prepare('DELETE FROM cart_custom_discounts WHERE store_id = ?').run(storeId);
    db.prepare('DELETE FROM cart_items WHERE store_id = ?').run(storeId);
    db.prepare('DELETE FROM carts WHERE store_id = ?').run(storeId);
    db.prepare('DELETE FROM order_items WHERE store_id = ?').run(storeId);
    db.prepare('DELETE FROM orders WHERE store_id = ?').run(storeId);
    db.prepare(
      'DELETE FROM file_contents WHERE file_id IN (SELECT id FROM files WHERE store_id = ?)',
    ).run(storeId);
    db.prepare('DELETE FROM files WHERE store_id = ?').run(storeId);
    // Members first: their passwords, memberships and tokens go with them (foreign keys).
    db.prepare('DELETE FROM user_authentication_info WHERE store_id = ?').run(storeId);
    db.prepare('DELETE FROM accounts WHERE store_id = ?').run(storeId);
    db.prepare('DELETE FROM customers WHERE store_id = ?').run(storeId);
    wipeCatalog(db, storeId);
  })();
}

/** The seeded lists whose prefix ladder (migration 0410) a seed rebuilds in bulk. */
const LADDERED_TABLES = ['orders', 'files', 'accounts', 'custom_api_entries'];

/**
 * Fills a store with the demo data set, replacing whatever seeded data it had, in one
 * transaction. Deterministic: the same store id and options give identical rows.
 */
export function seedDemoStore(
  db: Database,
  storeId: string,
  options: SeedOptions = {},
): SeedSummary {
  const started = performance.now();
  const orderCount = options.orders ?? DEFAULT_SEED_ORDERS;
  if (!Number.isSafeInteger(orderCount) || orderCount < 0) {
    throw new RangeError(`orders must be a non-negative integer, got ${orderCount}`);
  }
  const random = createRandom(`commerce-seed:${storeId}`);
  // Everything but the orders is dated in the weeks before the first order.
  let clock = SEED_EPOCH - 30 * 86_400_000;
  const tick = (): string => {
    clock += random.int(1, 3_600) * 1000 + random.int(0, 999);
    return iso(clock);
  };
  const seed: SeedRun = {
    db,
    storeId,
    random,
    tick,
    summary: {
      customApis: 0,
      entries: 0,
      carts: 0,
      orders: 0,
      orderItems: 0,
      files: 0,
      accounts: 0,
      customers: 0,
      accountMembers: 0,
      products: 0,
      ms: 0,
    },
  };

  // The ladder's triggers would cost 15 upserts per row; the bulk load recounts it once instead.
  // The steps draw from one PRNG stream, in this order: reordering them changes every row.
  const run = db.transaction(() =>
    loadWithoutLadder(db, storeId, LADDERED_TABLES, () => {
      wipeStoreData(db, storeId);
      seedCustomApis(seed);
      seedAccounts(seed);
      seedFiles(seed);
      seedDemoCart(seed);
      seedOrders(seed, orderCount);
      seed.summary.customers = seedCustomers(db, storeId);
      const people = seedAccountMembers(db, storeId);
      seed.summary.accounts += people.accounts;
      seed.summary.accountMembers = people.members;
      // Its own PRNG stream: the rows above are what they were before the catalog existed.
      seed.summary.products = seedCatalog(db, storeId, options).products;
      // What a storefront shows beside the catalog; none draws from a PRNG stream.
      seedCurrencies(db, storeId);
      seedProductImages(db, storeId);
      seedStock(db, storeId);
      seedPromotions(db, storeId);
    }),
  );
  run();
  seed.summary.ms = Math.round(performance.now() - started);
  return seed.summary;
}

/** What every step of a seed writes with: one PRNG stream and one clock for the whole seed. */
interface SeedRun {
  db: Database;
  storeId: string;
  random: Random;
  /** The next timestamp of the records before the orders. */
  tick: () => string;
  summary: SeedSummary;
}

/** The Custom APIs of seed/custom-apis.ts, their field definitions and their entries. */
function seedCustomApis({ db, storeId, random, tick, summary }: SeedRun): void {
  const insertApi = db.prepare(
    `INSERT INTO custom_apis (id, store_id, name, description, slug, api_type, allow_upserts,
                            created_at, updated_at)
   VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?)`,
  );
  const insertEntry = db.prepare(
    `INSERT INTO custom_api_entries (store_id, custom_api_id, id, data, data_size,
                                   resource_version, etag_id, created_at, updated_at)
   VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)`,
  );
  const insertField = db.prepare(
    `INSERT INTO custom_api_fields (id, store_id, custom_api_id, name, slug, field_type,
       description, validation, use_as_url_slug, sort_order, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
  );
  for (const api of CUSTOM_APIS) {
    const apiId = random.uuid();
    const created = tick();
    insertApi.run(
      apiId,
      storeId,
      api.name,
      api.description,
      api.slug,
      api.apiType,
      created,
      created,
    );
    summary.customApis++;
    api.fields.forEach((definition, order) => {
      // Derived, not drawn: the PRNG stream (and so every later id) stays as it was.
      const fieldId = uuidFromBytes(
        createHash('sha256').update(`commerce-seed-field:${apiId}:${definition.slug}`).digest(),
      );
      insertField.run(
        fieldId,
        storeId,
        apiId,
        definition.name,
        definition.slug,
        definition.field_type,
        definition.description,
        JSON.stringify(definition.validation),
        (order + 1) * 10,
        created,
        created,
      );
    });
    for (let i = 0; i < api.entries; i++) {
      const id = random.uuid();
      const at = tick();
      const attributes = api.attributes(random, i);
      const data = JSON.stringify(attributes);
      const etag = entryEtag(id, 0, at, data);
      insertEntry.run(storeId, apiId, id, data, dataSize(attributes), etag, at, at);
      summary.entries++;
    }
  }
}

function seedAccounts({ db, storeId, random, tick, summary }: SeedRun): void {
  const accountStmt = db.prepare(
    `INSERT INTO accounts (id, store_id, name, legal_name, registration_id, created_at, updated_at)
   VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const companies = ['Acme', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Stark', 'Wayne'];
  for (let i = 0; i < 30; i++) {
    const at = tick();
    const name = `${random.pick(companies)} ${random.pick(['Coffee', 'Supplies', 'Foods'])} ${i + 1}`;
    accountStmt.run(
      random.uuid(),
      storeId,
      name,
      random.next() < 0.7 ? `${name} Ltd.` : null,
      random.next() < 0.6 ? `REG-${random.int(100000, 999999)}` : null,
      at,
      at,
    );
    summary.accounts++;
  }
}

function seedFiles({ db, storeId, random, tick, summary }: SeedRun): void {
  const fileStmt = db.prepare(
    `INSERT INTO files (id, store_id, file_name, mime_type, file_size, public, created_at,
                      updated_at)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const contentStmt = db.prepare('INSERT INTO file_contents (file_id, content) VALUES (?, ?)');
  const files: [string, string, string][] = [
    ['price-list.csv', 'text/csv', 'sku,price\nCOF-ESP-1K,24.00\nMUG-CER-03,15.00\n'],
    ['returns-policy.txt', 'text/plain', 'Returns accepted within 30 days.\n'],
    ['catalog.json', 'application/json', '{"products":6}\n'],
    ['logo.svg', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>'],
    ['terms.txt', 'text/plain', 'Terms of sale: be nice.\n'],
  ];
  for (const [name, mime, text] of files) {
    const id = random.uuid();
    const at = tick();
    const bytes = Buffer.from(text, 'utf8');
    fileStmt.run(id, storeId, name, mime, bytes.length, random.next() < 0.5 ? 1 : 0, at, at);
    contentStmt.run(id, bytes);
    summary.files++;
  }
}

function seedDemoCart({ db, storeId, random, tick, summary }: SeedRun): void {
  // One cart with custom discounts enabled, a custom item, an item discount and a cart one.
  const cartId = random.uuid();
  const itemId = random.uuid();
  const cartAt = tick();
  db.prepare(
    `INSERT INTO carts (id, store_id, name, description, currency, custom_discounts_enabled,
                      created_at, updated_at)
   VALUES (?, ?, 'Demo cart', 'Seeded: a custom item with custom discounts', 'USD', 1, ?, ?)`,
  ).run(cartId, storeId, cartAt, cartAt);
  db.prepare(
    `INSERT INTO cart_items (id, store_id, cart_id, name, sku, description, quantity,
                           unit_amount, includes_tax, created_at, updated_at)
   VALUES (?, ?, ?, 'Hand grinder', 'GRI-HND-02', 'Conical burrs', 2, 8900, 1, ?, ?)`,
  ).run(itemId, storeId, cartId, cartAt, cartAt);
  const discountStmt = db.prepare(
    `INSERT INTO cart_custom_discounts (id, store_id, cart_id, item_id, amount, description,
     discount_code, discount_engine, external_id, created_at, updated_at)
   VALUES (?, ?, ?, ?, ?, ?, ?, 'demo-engine', ?, ?, ?)`,
  );
  discountStmt.run(
    random.uuid(),
    storeId,
    cartId,
    itemId,
    -1000,
    'Grinder launch offer',
    'GRIND10',
    'ext-grind-10',
    cartAt,
    cartAt,
  );
  discountStmt.run(
    random.uuid(),
    storeId,
    cartId,
    null,
    -500,
    'Welcome discount',
    'WELCOME5',
    'ext-welcome-5',
    cartAt,
    cartAt,
  );
  summary.carts++;
}

/** `orderCount` orders of seed/orders.ts, each written with its document and its items. */
function seedOrders({ db, storeId, random, summary }: SeedRun, orderCount: number): void {
  // Bulk load: building the secondary indexes once afterwards (a sort) is several times
  // cheaper than maintaining them row by row. Their definitions are read back from the
  // schema, so the migrations stay the one place that defines them.
  const indexes =
    orderCount >= BULK_THRESHOLD
      ? (db
          .prepare(
            `SELECT name, sql FROM sqlite_master
            WHERE type = 'index' AND tbl_name IN ('orders', 'order_items') AND sql IS NOT NULL`,
          )
          .all() as { name: string; sql: string }[])
      : [];
  for (const index of indexes) db.exec(`DROP INDEX "${index.name}"`);

  const orderStmt = db.prepare(
    `INSERT INTO orders (id, store_id, cart_id, status, payment, shipping, customer_name,
     customer_email, billing_address, shipping_address, currency, with_tax, without_discount,
     discount, created_at, updated_at, doc)
   VALUES (?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const itemStmt = db.prepare(
    `INSERT INTO order_items (id, store_id, order_id, name, sku, quantity, unit_amount,
                            discount, currency, created_at, updated_at)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // An order is written with its document, which lists its item ids, and its items after it
  // (their foreign key): so each order waits here until the generator has made its items.
  let pending: OrderRow | undefined;
  const pendingItems: unknown[][] = [];
  const pendingItemIds: string[] = [];
  const flush = () => {
    const order = pending;
    if (order === undefined) return;
    // In the order a read lists them (ORDER BY id: lowercase hex, same order in JS).
    pendingItemIds.sort();
    orderStmt.run(
      order.id,
      storeId,
      order.status,
      order.payment,
      order.shipping,
      order.customer_name,
      order.customer_email,
      order.billing_address,
      order.shipping_address,
      order.currency,
      order.with_tax,
      order.without_discount,
      order.discount,
      order.created_at,
      order.updated_at,
      renderOrder(order, pendingItemIds),
    );
    for (const item of pendingItems) itemStmt.run(item);
    summary.orders++;
    summary.orderItems += pendingItems.length;
    pending = undefined;
    pendingItems.length = 0;
    pendingItemIds.length = 0;
  };
  generateOrders(random, orderCount, {
    order(
      id,
      status,
      payment,
      shipping,
      name,
      email,
      address,
      currency,
      total,
      gross,
      discount,
      createdAt,
      updatedAt,
    ) {
      flush();
      pending = {
        id,
        store_id: storeId,
        cart_id: null,
        status,
        payment,
        shipping,
        customer_name: name,
        customer_email: email,
        billing_address: address,
        shipping_address: address,
        currency,
        with_tax: total,
        without_discount: gross,
        discount,
        customer_id: null,
        created_at: createdAt,
        updated_at: updatedAt,
      };
    },
    item(id, orderId, name, sku, quantity, unitAmount, discount, currency, createdAt) {
      pendingItemIds.push(id);
      pendingItems.push([
        id,
        storeId,
        orderId,
        name,
        sku,
        quantity,
        unitAmount,
        discount,
        currency,
        createdAt,
        createdAt,
      ]);
    },
  });
  flush();
  for (const index of indexes) db.exec(index.sql);
}
