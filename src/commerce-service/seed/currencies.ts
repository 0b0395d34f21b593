/**
 * The demo store's currencies: USD, its default (what every store starts with), and EUR, the
 * other currency of the demo price books, both in the formats prices have always been written
 * in here, so the demo's formatted prices read as before.
 */
import {
  builtInCurrency,
  ensureDefaultCurrencies,
  insertCurrencyIfAbsent,
} from '../currencies/records.ts';
import type { Db } from '../db.ts';
import { iso, SEED_EPOCH } from './random.ts';

/** EUR per USD, as the demo price books price it (seed/catalog.ts: EUR ≈ USD × 0.92). */
const EUR_RATE = 0.92;

export function seedCurrencies(db: Db, storeId: string): void {
  const at = iso(SEED_EPOCH - 60 * 86_400_000);
  ensureDefaultCurrencies(db, [storeId], at);
  insertCurrencyIfAbsent(
    db,
    builtInCurrency(storeId, 'EUR', { isDefault: false, exchangeRate: EUR_RATE, now: at }),
  );
}
