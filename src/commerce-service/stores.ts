/**
 * Stores and their settings. One store per configured client, its id derived from the client
 * id. Other route modules read settings through `readStoreSettings` (or `request.store`), never
 * by querying the table themselves, so the settings' storage can change in one place.
 */
import type { ClientCredentials } from './config.ts';
import type { Db } from './db.ts';
import { storeIdForClient } from './ids.ts';

/** Store-wide settings (`GET /v2/settings`, `GET /v2/settings/cart`). */
export interface StoreSettings {
  /** Default `page[limit]` of every list, 1..100 (default 25). */
  pageLength: number;
  /** Default of `discount_settings.custom_discounts_enabled` for new carts (default false). */
  customDiscountsEnabled: boolean;
}

/** The store a request acts on, set by the /v2 auth hook. */
export interface StoreContext {
  id: string;
  clientId: string;
  /** `implicit` tokens are a shopper's: what they may do is scopes.ts's. */
  grant: 'client_credentials' | 'implicit';
  settings: StoreSettings;
}

interface StoreRow {
  page_length: number;
  custom_discounts_enabled: number;
}

export function settingsFromRow(row: StoreRow): StoreSettings {
  return {
    pageLength: row.page_length,
    customDiscountsEnabled: row.custom_discounts_enabled === 1,
  };
}

/** Creates the store of every client that has none yet; returns the store ids in client order. */
export function ensureStores(db: Db, clients: ClientCredentials[], now: string): string[] {
  const insert = db.prepare(
    `INSERT INTO stores (id, client_id, created_at, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (id) DO NOTHING`,
  );
  return db.transaction(() =>
    clients.map((client) => {
      const id = storeIdForClient(client.id);
      insert.run(id, client.id, now, now);
      return id;
    }),
  )();
}

/** The settings of a store; throws if the store does not exist (a bug, not a client error). */
export function readStoreSettings(db: Db, storeId: string): StoreSettings {
  const row = db
    .prepare('SELECT page_length, custom_discounts_enabled FROM stores WHERE id = ?')
    .get(storeId) as StoreRow | undefined;
  if (!row) throw new Error(`No store ${storeId}`);
  return settingsFromRow(row);
}

/** Changes some settings of a store and returns all of them. */
export function updateStoreSettings(
  db: Db,
  storeId: string,
  patch: Partial<StoreSettings>,
  now: string,
): StoreSettings {
  db.prepare(
    `UPDATE stores SET
       page_length = COALESCE(@pageLength, page_length),
       custom_discounts_enabled = COALESCE(@customDiscountsEnabled, custom_discounts_enabled),
       updated_at = @now
     WHERE id = @storeId`,
  ).run({
    storeId,
    now,
    pageLength: patch.pageLength ?? null,
    customDiscountsEnabled:
      patch.customDiscountsEnabled === undefined ? null : patch.customDiscountsEnabled ? 1 : 0,
  });
  return readStoreSettings(db, storeId);
}
