/**
 * Deterministic demo data for a store. Every id, timestamp and value comes from a PRNG seeded
 * by the store id, so two seeds of the same store produce identical rows (tests and benchmarks
 * can rely on exact data), and nothing depends on the wall clock.
 *
 * Orders come in bursts of 300–600 rows sharing one created_at (a bulk import), and some
 * groups share one updated_at (a bulk status change), so that keyset paging across equal
 * timestamps is exercised: a burst is larger than the maximum page (100).
 */
import { createHash } from 'node:crypto';
import { hashPasswordSync } from './customers.ts';
import type { Db as Database } from './db.ts';
import { uuidFromBytes } from './ids.ts';
import { loadWithoutLadder } from './ladder.ts';
import { dataSize, entryEtag } from './routes/entries.ts';
import { type OrderRow, renderOrder } from './routes/orders.ts';

export interface SeedOptions {
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
  /** Wall time of the whole seed, milliseconds. */
  ms: number;
}

export const DEFAULT_SEED_ORDERS = 12_000;

/**
 * The demo store's customers and their passwords (documented in the README, so a storefront
 * developer can sign in: `POST /v2/customers/tokens`, or `createCustomerToken` in GraphQL).
 */
export const DEMO_CUSTOMERS = [
  { name: 'Ada Lovelace', email: 'ada@example.com', password: 'ada-demo-password' },
  { name: 'Grace Hopper', email: 'grace@example.com', password: 'grace-demo-password' },
] as const;

/** From this many orders on, the order indexes are rebuilt after the load instead of kept up. */
const BULK_THRESHOLD = 2_000;

/** Every seeded timestamp is derived from this instant, never from the clock. */
const SEED_EPOCH = Date.parse('2025-01-06T09:00:00.000Z');

/** sfc32: small, fast, 128-bit state; good enough for demo data and fully reproducible. */
export interface Random {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  pick<T>(values: readonly T[]): T;
  /** A lowercase uuid in v4 form whose bits come from this generator. */
  uuid(): string;
}

export function createRandom(seed: string): Random {
  const h = createHash('sha256').update(seed).digest();
  let a = h.readUInt32LE(0);
  let b = h.readUInt32LE(4);
  let c = h.readUInt32LE(8);
  let d = h.readUInt32LE(12);
  const u32 = (): number => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  // Warm up: the first outputs of sfc32 correlate with the seed words.
  for (let i = 0; i < 15; i++) u32();
  return {
    next: () => u32() / 4294967296,
    int(min, max) {
      return min + Math.floor((u32() / 4294967296) * (max - min + 1));
    },
    pick<T>(values: readonly T[]): T {
      const value = values[Math.floor((u32() / 4294967296) * values.length)];
      if (value === undefined) throw new RangeError('pick from an empty list');
      return value;
    },
    uuid() {
      // Same layout as ids.ts's uuidFromBytes (v4 version and variant bits), built from
      // strings: seeding makes hundreds of thousands of these.
      const w0 = u32();
      const w1 = u32();
      const w2 = u32();
      const w3 = u32();
      const h1 = hex8(w1);
      const h2 = hex8(((w2 & 0x3fffffff) | 0x80000000) >>> 0);
      return `${hex8(w0)}-${h1.slice(0, 4)}-4${h1.slice(5)}-${h2.slice(0, 4)}-${h2.slice(4)}${hex8(w3)}`;
    },
  };
}

const hex8 = (n: number): string => n.toString(16).padStart(8, '0');

let isoDay = Number.NaN;
let isoPrefix = '';
/**
 * `new Date(ms).toISOString()`, with the date part cached per UTC day: the seed formats one or
 * two timestamps per order, and order timestamps move through few distinct days.
 */
function iso(ms: number): string {
  const day = Math.floor(ms / 86_400_000);
  if (day !== isoDay) {
    isoDay = day;
    isoPrefix = new Date(day * 86_400_000).toISOString().slice(0, 11);
  }
  let rest = ms - day * 86_400_000;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const sec = Math.floor(rest / 1000);
  const milli = rest - sec * 1000;
  const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);
  return `${isoPrefix}${two(h)}:${two(m)}:${two(sec)}.${milli < 10 ? `00${milli}` : milli < 100 ? `0${milli}` : milli}Z`;
}

const FIRST_NAMES = ['Ada', 'Grace', 'Alan', 'Edsger', 'Barbara', 'Donald', 'Frances', 'Ken'];
const LAST_NAMES = ['Lovelace', 'Hopper', 'Turing', 'Dijkstra', 'Liskov', 'Knuth', 'Allen'];
const CITIES: readonly [string, string, string][] = [
  ['Portland', 'OR', 'US'],
  ['Austin', 'TX', 'US'],
  ['Leeds', 'West Yorkshire', 'GB'],
  ['Lyon', 'Auvergne-Rhône-Alpes', 'FR'],
];
const PRODUCTS: readonly [string, string, number][] = [
  ['Espresso beans 1 kg', 'COF-ESP-1K', 2400],
  ['Pour-over kettle', 'KET-PO-01', 5900],
  ['Ceramic mug', 'MUG-CER-03', 1500],
  ['Paper filters (100)', 'FIL-100', 650],
  ['Hand grinder', 'GRI-HND-02', 8900],
  ['Gift card', 'GIFT-25', 2500],
];

/** Receives generated rows, in the column order of the orders / order_items inserts. */
export interface OrderSink {
  order(
    id: string,
    status: string,
    payment: string,
    shipping: string,
    customerName: string,
    customerEmail: string,
    billingAddress: string,
    currency: string,
    withTax: number,
    withoutDiscount: number,
    discount: number,
    createdAt: string,
    updatedAt: string,
  ): void;
  item(
    id: string,
    orderId: string,
    name: string,
    sku: string,
    quantity: number,
    unitAmount: number,
    discount: number,
    currency: string,
    createdAt: string,
  ): void;
}

/**
 * Generates orders (and their items) straight into a sink, keeping nothing in memory, so that
 * 100,000 orders cost little more than their inserts. created_at advances in gaps of seconds to
 * minutes, with every so often a burst of 300–600 orders sharing one instant; updated_at is
 * created_at plus a little, except for bulk-update groups of 150–400 orders sharing one value.
 * Totals follow money.ts's rules (discounts capped at what they apply to).
 */
export function generateOrders(random: Random, count: number, sink: OrderSink): void {
  let clock = SEED_EPOCH;
  // Bursts and bulk updates are scheduled (not left to chance) so every seed of a few thousand
  // orders or more is guaranteed to contain them.
  let untilBurst = random.int(400, 1200);
  let burstLeft = 0;
  let untilBulk = random.int(800, 2000);
  let bulkLeft = 0;
  let bulkUpdatedAt = '';
  const lineName: string[] = [];
  const lineSku: string[] = [];
  const lineQty: number[] = [];
  const linePrice: number[] = [];
  const lineDiscount: number[] = [];
  for (let i = 0; i < count; i++) {
    if (burstLeft > 0) {
      burstLeft--;
    } else {
      clock += random.int(1, 600) * 1000 + random.int(0, 999);
      if (--untilBurst <= 0) {
        burstLeft = random.int(300, 600) - 1;
        untilBurst = random.int(800, 1600);
      }
    }
    if (bulkLeft === 0 && --untilBulk <= 0) {
      bulkLeft = random.int(150, 400);
      untilBulk = random.int(1500, 2500);
      // Two weeks on: later than every created_at in the group (at most 400 × ~10 minutes).
      bulkUpdatedAt = iso(clock + 14 * 86_400_000);
    }
    const created = iso(clock);
    const first = random.pick(FIRST_NAMES);
    const last = random.pick(LAST_NAMES);
    const place = random.pick(CITIES);
    const id = random.uuid();
    const lineCount = random.int(1, 3);
    let withoutDiscount = 0;
    let afterItems = 0;
    for (let l = 0; l < lineCount; l++) {
      const product = random.pick(PRODUCTS);
      const quantity = random.int(1, 4);
      const value = product[2] * quantity;
      const discount = random.next() < 0.15 ? Math.max(-random.int(1, 5) * 100, -value) : 0;
      lineName[l] = product[0];
      lineSku[l] = product[1];
      linePrice[l] = product[2];
      lineQty[l] = quantity;
      lineDiscount[l] = discount;
      withoutDiscount += value;
      afterItems += value + discount;
    }
    const cartDiscount = random.next() < 0.1 ? Math.max(-500, -afterItems) : 0;
    const total = afterItems + cartDiscount;
    const paid = random.next() < 0.7;
    const address = `{"first_name":"${first}","last_name":"${last}","line_1":"${random.int(1, 999)} Market Street","city":"${place[0]}","region":"${place[1]}","postcode":"${random.int(10000, 99999)}","country":"${place[2]}"}`;
    let updated: string;
    if (bulkLeft > 0) {
      updated = bulkUpdatedAt;
      bulkLeft--;
    } else {
      updated = paid ? iso(clock + random.int(1, 300_000)) : created;
    }
    sink.order(
      id,
      paid ? 'complete' : 'incomplete',
      paid ? 'paid' : 'unpaid',
      paid && random.next() < 0.8 ? 'fulfilled' : 'unfulfilled',
      `${first} ${last}`,
      `${first}.${last}.${i}@example.com`.toLowerCase(),
      address,
      'USD',
      total,
      withoutDiscount,
      total - withoutDiscount,
      created,
      updated,
    );
    for (let l = 0; l < lineCount; l++) {
      sink.item(
        random.uuid(),
        id,
        lineName[l] ?? '',
        lineSku[l] ?? '',
        lineQty[l] ?? 0,
        linePrice[l] ?? 0,
        lineDiscount[l] ?? 0,
        'USD',
        created,
      );
    }
  }
}

interface SeedCustomApi {
  name: string;
  description: string;
  slug: string;
  apiType: string;
  entries: number;
  attributes: (random: Random, index: number) => Record<string, unknown>;
  /** Field definitions that every seeded entry satisfies (custom-fields.ts). */
  fields: readonly SeedField[];
}

interface SeedField {
  name: string;
  slug: string;
  field_type: 'string' | 'integer' | 'float' | 'boolean';
  description: string;
  validation: Record<string, unknown>;
}

const field = (
  slug: string,
  fieldType: SeedField['field_type'],
  description: string,
  rules: Record<string, unknown> = {},
): SeedField => ({
  name: slug.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase()),
  slug,
  field_type: fieldType,
  description,
  validation: {
    allow_null_values: false,
    immutable: false,
    ...(fieldType === 'string' ? { unique: 'no', unique_case_insensitivity: false } : {}),
    ...rules,
  },
});

const CUSTOM_APIS: readonly SeedCustomApi[] = [
  {
    name: 'Wishlists',
    description: 'Saved products per shopper',
    slug: 'wishlists',
    apiType: 'wishlists_ext',
    entries: 40,
    attributes: (random, i) => ({
      name: `${random.pick(FIRST_NAMES)}'s wishlist ${i + 1}`,
      items_count: random.int(0, 12),
      is_public: random.next() < 0.5,
    }),
    fields: [
      field('name', 'string', 'Name the shopper gave the list.', {
        min_length: 1,
        max_length: 255,
      }),
      field('items_count', 'integer', 'Products saved in the list.', { min_value: 0 }),
      field('is_public', 'boolean', 'Whether other shoppers may see the list.'),
    ],
  },
  {
    name: 'Product reviews',
    description: 'Ratings and reviews written by shoppers',
    slug: 'product-reviews',
    apiType: 'product_reviews_ext',
    entries: 60,
    attributes: (random) => {
      const [name, sku] = random.pick(PRODUCTS);
      return {
        product_sku: sku,
        rating: random.int(1, 5),
        title: `About the ${name.toLowerCase()}`,
        body: random.pick(['Love it.', 'Does the job.', 'Arrived late but works.', 'Meh.']),
        verified_purchase: random.next() < 0.8,
      };
    },
    fields: [
      field('product_sku', 'string', 'SKU of the reviewed product.', { min_length: 1 }),
      field('rating', 'integer', 'Stars from 1 to 5.', { min_value: 1, max_value: 5 }),
      field('title', 'string', 'Headline of the review.', { max_length: 255 }),
      field('body', 'string', 'Text of the review.'),
      field('verified_purchase', 'boolean', 'Whether the reviewer bought the product.'),
    ],
  },
  {
    name: 'Loyalty points',
    description: 'Points balance per customer',
    slug: 'loyalty-points',
    apiType: 'loyalty_points_ext',
    entries: 25,
    attributes: (random, i) => ({
      customer_email: `member${i + 1}@example.com`,
      points: random.int(0, 5000),
      tier: random.pick(['bronze', 'silver', 'gold']),
    }),
    fields: [
      field('customer_email', 'string', 'Email of the member; one balance per member.', {
        unique: 'yes',
        unique_case_insensitivity: true,
        immutable: true,
      }),
      field('points', 'integer', 'Current points balance.', { min_value: 0 }),
      field('tier', 'string', 'Membership tier.', { regex: '^(bronze|silver|gold)$' }),
    ],
  },
];

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
    db.prepare('DELETE FROM accounts WHERE store_id = ?').run(storeId);
    db.prepare('DELETE FROM customers WHERE store_id = ?').run(storeId);
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
  const summary: SeedSummary = {
    customApis: 0,
    entries: 0,
    carts: 0,
    orders: 0,
    orderItems: 0,
    files: 0,
    accounts: 0,
    customers: 0,
    ms: 0,
  };

  // The ladder's triggers would cost 15 upserts per row; the bulk load recounts it once instead.
  const run = db.transaction(() =>
    loadWithoutLadder(db, storeId, LADDERED_TABLES, () => {
      wipeStoreData(db, storeId);

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
        [
          'logo.svg',
          'image/svg+xml',
          '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>',
        ],
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

      // Customers from a generator of their own, so that adding them changed no other row.
      const people = createRandom(`commerce-seed-customers:${storeId}`);
      const customerStmt = db.prepare(
        `INSERT INTO customers (id, store_id, name, email, email_key, password_hash, created_at,
                                updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      DEMO_CUSTOMERS.forEach((customer, i) => {
        const at = iso(SEED_EPOCH - 31 * 86_400_000 + i * 60_000);
        const salt = Buffer.from(people.uuid().replaceAll('-', ''), 'hex');
        customerStmt.run(
          people.uuid(),
          storeId,
          customer.name,
          customer.email,
          customer.email.toLowerCase(),
          hashPasswordSync(customer.password, salt),
          at,
          at,
        );
        summary.customers++;
      });
    }),
  );
  run();
  summary.ms = Math.round(performance.now() - started);
  return summary;
}
