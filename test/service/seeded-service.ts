/**
 * A service whose first store ('alpha') holds the demo data set, for the orders, keyset and
 * seed suites. The data is written straight into a temporary database file with
 * seedDemoStore (bulk inserts, no HTTP), then the service is started on that file.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSeededCartLifetimes } from '../../src/commerce-service/carts/storage.ts';
import { openDatabase } from '../../src/commerce-service/db.ts';
import { storeIdForClient } from '../../src/commerce-service/ids.ts';
import { type SeedSummary, seedDemoStore } from '../../src/commerce-service/seed/index.ts';
import { ensureStores } from '../../src/commerce-service/stores.ts';
import { DEFAULT_TEST_CLIENTS, type ServiceUnderTest, startService } from './service-helpers.ts';

export interface SeededService extends ServiceUnderTest {
  summary: SeedSummary;
}

export async function startSeededService(orders?: number): Promise<SeededService> {
  const dir = await mkdtemp(join(tmpdir(), 'commerce-seed-'));
  const dbPath = join(dir, 'commerce.db');
  const db = openDatabase(dbPath);
  let summary: SeedSummary;
  try {
    ensureStores(db, DEFAULT_TEST_CLIENTS, '2025-01-01T00:00:00.000Z');
    const storeId = storeIdForClient(DEFAULT_TEST_CLIENTS[0]?.id ?? '');
    summary = seedDemoStore(db, storeId, orders === undefined ? {} : { orders });
    // As `npm run seed` and the service's own seeding do: the demo cart lives from now.
    startSeededCartLifetimes(db, storeId, new Date().toISOString());
  } finally {
    db.close();
  }
  const service = await startService({ dbPath });
  return {
    ...service,
    summary,
    close: async () => {
      await service.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
