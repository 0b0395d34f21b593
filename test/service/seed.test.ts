import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createCommerceService } from '../../src/commerce-service/app.ts';
import { openDatabase } from '../../src/commerce-service/db.ts';
import { storeIdForClient } from '../../src/commerce-service/ids.ts';
import { parseSeedArgs } from '../../src/commerce-service/seed/cli.ts';
import { seedDemoStore, wipeStoreData } from '../../src/commerce-service/seed/index.ts';
import { createRandom } from '../../src/commerce-service/seed/random.ts';
import { ensureStores } from '../../src/commerce-service/stores.ts';
import { startSeededService } from './seeded-service.ts';

const run = promisify(execFile);
const ALPHA = storeIdForClient('alpha');
const BETA = storeIdForClient('beta');

function freshDb() {
  const db = openDatabase(':memory:');
  ensureStores(
    db,
    [
      { id: 'alpha', secret: 'a' },
      { id: 'beta', secret: 'b' },
    ],
    '2025-01-01T00:00:00.000Z',
  );
  return db;
}

type Db = ReturnType<typeof freshDb>;

function snapshot(db: Db, storeId: string) {
  const q = (sql: string) => db.prepare(sql).all(storeId);
  return {
    orders: q('SELECT * FROM orders WHERE store_id = ? ORDER BY id'),
    items: q('SELECT * FROM order_items WHERE store_id = ? ORDER BY id'),
    apis: q('SELECT * FROM custom_apis WHERE store_id = ? ORDER BY id'),
    entries: q('SELECT * FROM custom_api_entries WHERE store_id = ? ORDER BY id'),
    carts: q('SELECT * FROM carts WHERE store_id = ?'),
    discounts: q('SELECT * FROM cart_custom_discounts WHERE store_id = ? ORDER BY id'),
    files: q('SELECT * FROM files WHERE store_id = ? ORDER BY id'),
    accounts: q('SELECT * FROM accounts WHERE store_id = ? ORDER BY id'),
  };
}

describe('the demo seed', () => {
  const dbs: Db[] = [];
  afterAll(() => {
    for (const db of dbs) db.close();
  });

  it('is deterministic: two seeds of the same store give identical rows and ids', () => {
    const a = freshDb();
    const b = freshDb();
    dbs.push(a, b);
    const summaryA = seedDemoStore(a, ALPHA, { orders: 3_000 });
    const summaryB = seedDemoStore(b, ALPHA, { orders: 3_000 });
    expect({ ...summaryA, ms: 0 }).toEqual({ ...summaryB, ms: 0 });
    expect(snapshot(a, ALPHA)).toEqual(snapshot(b, ALPHA));
    // A different store gets different ids (they are global primary keys).
    seedDemoStore(b, BETA, { orders: 10 });
    const alphaIds = new Set(snapshot(b, ALPHA).orders.map((o: any) => o.id));
    expect(snapshot(b, BETA).orders.some((o: any) => alphaIds.has(o.id))).toBe(false);
  });

  it('seeds 12,000 orders with bursts of 300–600 equal created_at and updated_at ties', () => {
    const db = freshDb();
    dbs.push(db);
    const summary = seedDemoStore(db, ALPHA);
    // Timing is reported, not asserted tightly: the machine may be shared.
    console.info(`seedDemoStore: 12,000 orders in ${summary.ms} ms`);
    expect(summary).toMatchObject({
      orders: 12_000,
      customApis: 3,
      carts: 1,
      files: 5,
      // 30 generated, and Acme Corp and Beta LLC with their demo members.
      accounts: 32,
      accountMembers: 2,
    });
    expect(summary.entries).toBeGreaterThan(100);
    expect(summary.orderItems).toBeGreaterThanOrEqual(12_000);

    const bursts = db
      .prepare(
        `SELECT created_at, count(*) AS n FROM orders WHERE store_id = ?
          GROUP BY created_at HAVING n > 100 ORDER BY created_at`,
      )
      .all(ALPHA) as { n: number }[];
    expect(bursts.length).toBeGreaterThanOrEqual(5);
    for (const burst of bursts) {
      expect(burst.n).toBeGreaterThanOrEqual(300);
      expect(burst.n).toBeLessThanOrEqual(600);
    }
    const updatedTies = db
      .prepare(
        `SELECT max(n) FROM (SELECT count(*) AS n FROM orders WHERE store_id = ? GROUP BY updated_at)`,
      )
      .pluck()
      .get(ALPHA) as number;
    expect(updatedTies).toBeGreaterThan(100);
    const bad = db
      .prepare(
        `SELECT count(*) FROM orders WHERE store_id = ?
           AND (updated_at < created_at OR length(created_at) != 24 OR length(updated_at) != 24
                OR with_tax != without_discount + discount OR with_tax < 0)`,
      )
      .pluck()
      .get(ALPHA);
    expect(bad).toBe(0);
    // The order indexes are back after the bulk load (they are dropped and rebuilt).
    const indexes = db
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'orders' AND sql IS NOT NULL`,
      )
      .pluck()
      .all();
    expect(indexes.sort()).toEqual([
      'orders_account_created',
      'orders_created',
      'orders_customer_created',
      'orders_customer_id',
      'orders_customer_updated',
      'orders_id',
      'orders_updated',
    ]);
  });

  it('re-seeding replaces the store data and leaves other stores alone', () => {
    const db = freshDb();
    dbs.push(db);
    seedDemoStore(db, BETA, { orders: 50 });
    seedDemoStore(db, ALPHA, { orders: 500 });
    const again = seedDemoStore(db, ALPHA, { orders: 200 });
    expect(again.orders).toBe(200);
    expect(snapshot(db, ALPHA).orders).toHaveLength(200);
    expect(snapshot(db, ALPHA).apis).toHaveLength(3);
    expect(snapshot(db, BETA).orders).toHaveLength(50);
    wipeStoreData(db, ALPHA);
    const empty = snapshot(db, ALPHA);
    expect(Object.values(empty).every((rows) => rows.length === 0)).toBe(true);
    // What is left is the other store's: its five files and its products' images.
    const betaFiles = db.prepare('SELECT count(*) FROM files WHERE store_id = ?').pluck().get(BETA);
    expect(db.prepare('SELECT count(*) FROM file_contents').pluck().get()).toBe(betaFiles);
    expect(betaFiles).toBe(
      5 +
        (db
          .prepare('SELECT count(*) FROM pcm_products WHERE store_id = ?')
          .pluck()
          .get(BETA) as number),
    );
  });

  it('makes v4-form uuids from its PRNG', () => {
    const random = createRandom('x');
    for (let i = 0; i < 1000; i++) {
      expect(random.uuid()).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
    }
    expect(createRandom('x').uuid()).toBe(createRandom('x').uuid());
    expect(createRandom('x').uuid()).not.toBe(createRandom('y').uuid());
  });

  it('is what createCommerceService seeds into an empty demo store, once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'seed-start-'));
    const dbPath = join(dir, 'c.db');
    const clients = [
      { id: 'alpha', secret: 'a' },
      { id: 'beta', secret: 'b' },
    ];
    const countOrders = async (seedOrders: number) => {
      const app = await createCommerceService({
        dbPath,
        clients,
        seed: true,
        seedOptions: { orders: seedOrders },
      });
      try {
        const url = await app.listen({ port: 0, host: '127.0.0.1' });
        const token = await fetch(`${url}/oauth/access_token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials&client_id=alpha&client_secret=a',
        });
        const { access_token } = (await token.json()) as { access_token: string };
        const get = async (path: string) =>
          (
            await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${access_token}` } })
          ).json() as Promise<any>;
        const apis = await get('/v2/settings/extensions/custom-apis');
        expect(apis.data.map((a: { api_type: string }) => a.api_type).sort()).toEqual([
          'loyalty_points_ext',
          'product_reviews_ext',
          'wishlists_ext',
        ]);
        const entries = await get('/v2/extensions/wishlists');
        expect(entries.meta.results.total).toBe(40);
        expect(entries.data[0].type).toBe('wishlists_ext');
        // Five files, and a main image for each of the products (seed/images.ts).
        const products = (await get('/pcm/products?page[limit]=1')).meta.results.total;
        expect((await get('/v2/files')).meta.results.total).toBe(5 + products);
        expect((await get('/v2/accounts')).meta.results.total).toBe(32);
        return (await get('/v2/orders')).meta.results.total as number;
      } finally {
        await app.close();
      }
    };
    try {
      expect(await countOrders(100)).toBe(100);
      // Already seeded: a restart does not seed again (nor wipe what is there).
      expect(await countOrders(200)).toBe(100);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('seeds account members who sign in with the documented passwords', async () => {
    const seeded = await startSeededService(0);
    try {
      const implicit = await seeded.token(undefined, 'implicit');
      const settings = await seeded.call('GET', '/v2/settings/account-authentication');
      const realm = settings.body.data.relationships.authentication_realm.data.id;
      // Shoppers sign themselves up, each with an account of their own (the storefront's
      // registration page).
      expect(settings.body.data).toMatchObject({
        enable_self_signup: true,
        auto_create_account_for_account_members: true,
      });
      const profiles = await seeded.call(
        'GET',
        `/v2/authentication-realms/${realm}/password-profiles`,
      );
      expect(profiles.body.data.map((p: { name: string }) => p.name)).toEqual([
        'Username & password',
      ]);
      const signIn = (username: string, password: string) =>
        seeded.call('POST', '/v2/account-members/tokens', {
          token: implicit,
          json: {
            data: {
              type: 'account_management_authentication_token',
              authentication_mechanism: 'password',
              password_profile_id: profiles.body.data[0].id,
              username,
              password,
            },
          },
        });
      const ada = await signIn('ada@example.com', 'ada-password');
      expect(ada.status).toBe(201);
      expect(ada.body.data.map((t: { account_name: string }) => t.account_name)).toEqual([
        'Acme Corp',
        'Beta LLC',
      ]);
      const bo = await signIn('bo@example.com', 'bo-password');
      expect(bo.body.data.map((t: { account_name: string }) => t.account_name)).toEqual([
        'Beta LLC',
      ]);
      expect((await signIn('bo@example.com', 'ada-password')).status).toBe(401);
      const members = await seeded.call('GET', '/v2/account-members?sort=email');
      expect(members.body.data.map((m: { email: string }) => m.email)).toEqual([
        'ada@example.com',
        'bo@example.com',
      ]);
    } finally {
      await seeded.close();
    }
  });

  it('seeds the demo cart with a custom item and discounts, visible over HTTP', async () => {
    // The cart id is deterministic, so a second seed of the same store tells us what it is.
    const reference = freshDb();
    dbs.push(reference);
    seedDemoStore(reference, ALPHA, { orders: 0 });
    const cartId = (snapshot(reference, ALPHA).carts[0] as { id: string }).id;
    const seeded = await startSeededService(0);
    try {
      const cart = await seeded.call('GET', `/v2/carts/${cartId}?include=items,custom_discounts`);
      expect(cart.status).toBe(200);
      expect(cart.body.data.discount_settings.custom_discounts_enabled).toBe(true);
      expect(cart.body.included.items).toHaveLength(1);
      expect(cart.body.included.items[0].custom_discounts[0].amount.formatted).toBe('-$10.00');
      expect(cart.body.included.custom_discounts).toHaveLength(1);
      // 2 × $89.00 − $10.00 − $5.00
      expect(cart.body.data.meta.display_price.with_tax.formatted).toBe('$163.00');
    } finally {
      await seeded.close();
    }
  });
});

describe('npm run seed (seed/cli.ts)', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('parses --orders and --db, and refuses bad flags with a usage error', () => {
    expect(parseSeedArgs([])).toEqual({ orders: 12_000, dbPath: undefined, help: false });
    expect(parseSeedArgs(['--orders', '100000', '--db', 'x.db'])).toEqual({
      orders: 100_000,
      dbPath: 'x.db',
      help: false,
    });
    expect(parseSeedArgs(['--orders=1_000']).orders).toBe(1000);
    for (const argv of [
      ['--orders', '-1'],
      ['--orders', '1.5'],
      ['--orders', 'many'],
      ['--bogus'],
      ['extra'],
      ['--db', ''],
    ]) {
      expect(() => parseSeedArgs(argv), argv.join(' ')).toThrow(/orders|Unknown|unexpected|db/i);
    }
  });

  it('re-seeds the first client store of a database file, replacing its previous data', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'seed-cli-'));
    dirs.push(dir);
    const dbPath = join(dir, 'nested', 'c.db');
    const env = { ...process.env, COMMERCE_CLIENTS: 'alpha:a,beta:b' };
    const cli = ['scripts/ts.mjs', 'src/commerce-service/seed/cli.ts'];
    const first = await run(process.execPath, [...cli, '--orders', '300', '--db', dbPath], { env });
    expect(first.stdout).toMatch(/300 orders/);
    await run(process.execPath, [...cli, '--orders', '120', '--db', dbPath], { env });
    const db = openDatabase(dbPath);
    try {
      expect(snapshot(db, ALPHA).orders).toHaveLength(120);
      expect(
        db.prepare('SELECT seeded_at FROM stores WHERE id = ?').pluck().get(ALPHA),
      ).toBeTruthy();
    } finally {
      db.close();
    }
    const bad = await run(process.execPath, [...cli, '--orders', 'lots'], { env }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect((bad as { code: number }).code).toBe(2);
    expect((bad as { stderr: string }).stderr).toMatch(/--orders must be a whole number/);
    expect((bad as { stderr: string }).stderr).toMatch(/Usage: npm run seed/);
  });
});
