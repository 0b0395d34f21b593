/**
 * `npm run seed -- [--orders N] [--products N] [--bulk-node-products N] [--db path]`: replaces the demo store's data (the store of the
 * first client in COMMERCE_CLIENTS) with a fresh deterministic data set of N orders (default
 * 12,000), for benchmarks and demos. The database is COMMERCE_DB unless --db is given. Other
 * stores, settings and tokens are left alone. Safe beside a running service (SQLite WAL,
 * busy timeout): the whole re-seed is one transaction.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { startSeededCartLifetimes } from '../carts/storage.ts';
import { ConfigError, loadServiceConfig } from '../config.ts';
import { openDatabase } from '../db.ts';
import { ensureStores } from '../stores.ts';
import { formatTimestamp } from '../time.ts';
import { DEFAULT_SEED_PRODUCTS } from './catalog.ts';
import { DEFAULT_SEED_ORDERS, seedDemoStore } from './index.ts';

const USAGE = `Usage: npm run seed -- [--orders N] [--products N] [--bulk-node-products N] [--db path]

Re-seeds the demo store (first client in COMMERCE_CLIENTS) with N orders, replacing its
previous data.
  --orders N               number of orders, a whole number from 0 (default ${DEFAULT_SEED_ORDERS})
  --products N             catalog products in the departments (default ${DEFAULT_SEED_PRODUCTS})
  --bulk-node-products N   products under one "Bulk" node, published (default 0: no node);
                           20000 puts a node's product list past the 10,000 offset limit
  --db path                SQLite file (default COMMERCE_DB, else .data/commerce.db)
  --help                   show this help`;

export class UsageError extends Error {
  override name = 'UsageError';
}

export interface SeedCliOptions {
  orders: number;
  /** Present only when given on the command line. */
  products?: number;
  bulkNodeProducts?: number;
  dbPath: string | undefined;
  help: boolean;
}

/** Parses the command line; throws UsageError with a message fit for the terminal. */
export function parseSeedArgs(argv: string[]): SeedCliOptions {
  let values: {
    orders?: string;
    products?: string;
    'bulk-node-products'?: string;
    db?: string;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        orders: { type: 'string' },
        products: { type: 'string' },
        'bulk-node-products': { type: 'string' },
        db: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const count = (flag: string, value: string | undefined): number | undefined => {
    if (value === undefined) return undefined;
    const raw = value.replaceAll('_', '');
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
      throw new UsageError(`--${flag} must be a whole number >= 0, got "${value}"`);
    }
    return Number(raw);
  };
  const orders = count('orders', values.orders) ?? DEFAULT_SEED_ORDERS;
  const products = count('products', values.products);
  const bulkNodeProducts = count('bulk-node-products', values['bulk-node-products']);
  if (values.db !== undefined && values.db.trim() === '') {
    throw new UsageError('--db needs a path');
  }
  return {
    orders,
    ...(products === undefined ? {} : { products }),
    ...(bulkNodeProducts === undefined ? {} : { bulkNodeProducts }),
    dbPath: values.db,
    help: values.help === true,
  };
}

function main(): number {
  let options: SeedCliOptions;
  try {
    options = parseSeedArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`seed: ${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    throw error;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let config: ReturnType<typeof loadServiceConfig>;
  try {
    config = loadServiceConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`seed: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const dbPath = options.dbPath ?? config.dbPath;
  if (dbPath !== ':memory:') mkdirSync(dirname(dbPath), { recursive: true });
  const db = openDatabase(dbPath);
  try {
    const now = formatTimestamp(Date.now());
    const [storeId] = ensureStores(db, config.clients, now);
    if (storeId === undefined) throw new Error('no client configured');
    const summary = seedDemoStore(db, storeId, {
      orders: options.orders,
      ...(options.products === undefined ? {} : { products: options.products }),
      ...(options.bulkNodeProducts === undefined
        ? {}
        : { bulkNodeProducts: options.bulkNodeProducts }),
    });
    startSeededCartLifetimes(db, storeId, now);
    // Marks the store as seeded, so the service does not seed it again at start.
    db.prepare('UPDATE stores SET seeded_at = ? WHERE id = ?').run(now, storeId);
    process.stdout.write(
      `Seeded store ${storeId} (client "${config.clients[0]?.id}") in ${dbPath}: ` +
        `${summary.orders} orders (${summary.orderItems} items), ${summary.customApis} Custom ` +
        `APIs with ${summary.entries} entries, ${summary.carts} cart, ${summary.files} files, ` +
        `${summary.accounts} accounts, ${summary.products} catalog products in ${summary.ms} ms\n`,
    );
  } finally {
    db.close();
  }
  return 0;
}

// Run only as a script, so tests can import parseSeedArgs.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main();
}
