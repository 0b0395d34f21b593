/**
 * The store's currencies (`/v2/currencies`): rows of table `currencies` (migration 0910), how
 * they are shown, and the lookup that makes every `formatted` price of a request follow them
 * (money.ts). A store always has exactly one default currency: app.ts gives a store without
 * currencies a USD default in today's built-in format, and the routes never leave it without one.
 */
import { createHash } from 'node:crypto';
import { cachedStatement, type Db } from '../db.ts';
import { notFound } from '../errors.ts';
import { isUuid, uuidFromBytes } from '../ids.ts';
import { builtInFormat, type CurrencyFormat, DEFAULT_CURRENCY } from '../money.ts';

/** Production's hard limit of currencies per store. */
export const MAX_CURRENCIES = 10;

export interface CurrencyRow {
  id: string;
  store_id: string;
  code: string;
  exchange_rate: number;
  format: string;
  decimal_point: string;
  thousand_separator: string;
  decimal_places: number;
  is_default: number;
  enabled: number;
  created_at: string;
  updated_at: string;
}

export const CURRENCY_COLUMNS =
  'id, store_id, code, exchange_rate, format, decimal_point, thousand_separator, ' +
  'decimal_places, is_default, enabled, created_at, updated_at';

export function presentCurrency(row: CurrencyRow) {
  return {
    id: row.id,
    type: 'currency',
    code: row.code,
    exchange_rate: row.exchange_rate,
    format: row.format,
    decimal_point: row.decimal_point,
    thousand_separator: row.thousand_separator,
    decimal_places: row.decimal_places,
    default: row.is_default === 1,
    enabled: row.enabled === 1,
    links: { self: `/v2/currencies/${row.id}` },
    meta: {
      owner: 'store',
      timestamps: { created_at: row.created_at, updated_at: row.updated_at },
    },
  };
}

export function findCurrency(db: Db, storeId: string, id: string): CurrencyRow {
  const row = isUuid(id)
    ? (cachedStatement(
        db,
        `SELECT ${CURRENCY_COLUMNS} FROM currencies WHERE store_id = ? AND id = ?`,
      ).get(storeId, id.toLowerCase()) as CurrencyRow | undefined)
    : undefined;
  if (row === undefined) throw notFound(`No currency with id ${id}.`);
  return row;
}

/**
 * The id of a store's currency that the service creates itself (the default USD, the demo
 * store's): derived from the store and the code, so a restart or a re-seed finds the same row.
 */
export function derivedCurrencyId(storeId: string, code: string): string {
  return uuidFromBytes(
    createHash('sha256').update(`commerce-currency:${storeId}:${code}`).digest(),
  );
}

/** A currency in the built-in format of its code (`${price}` for USD, `£{price}` for GBP…). */
export function builtInCurrency(
  storeId: string,
  code: string,
  options: { isDefault: boolean; exchangeRate: number; now: string },
): CurrencyRow {
  const format = builtInFormat(code);
  return {
    id: derivedCurrencyId(storeId, code),
    store_id: storeId,
    code,
    exchange_rate: options.exchangeRate,
    format: format.template,
    decimal_point: format.decimalPoint,
    thousand_separator: format.thousandSeparator,
    decimal_places: format.decimalPlaces,
    is_default: options.isDefault ? 1 : 0,
    enabled: 1,
    created_at: options.now,
    updated_at: options.now,
  };
}

const INSERT = `INSERT INTO currencies (${CURRENCY_COLUMNS}) VALUES (@id, @store_id, @code,
  @exchange_rate, @format, @decimal_point, @thousand_separator, @decimal_places, @is_default,
  @enabled, @created_at, @updated_at)`;

export function insertCurrency(db: Db, row: CurrencyRow): void {
  cachedStatement(db, INSERT).run(row);
}

/** Adds `row` unless the store already has a currency of its code (the seed re-runs). */
export function insertCurrencyIfAbsent(db: Db, row: CurrencyRow): void {
  cachedStatement(db, `${INSERT} ON CONFLICT (store_id, code) DO NOTHING`).run(row);
}

/**
 * Gives every store without currencies its default: USD, in today's built-in format, so the
 * prices a store shows read as they did before it had currencies.
 */
export function ensureDefaultCurrencies(db: Db, storeIds: readonly string[], now: string): void {
  const has = db.prepare('SELECT 1 FROM currencies WHERE store_id = ? LIMIT 1');
  db.transaction(() => {
    for (const storeId of storeIds) {
      if (has.get(storeId) !== undefined) continue;
      insertCurrency(
        db,
        builtInCurrency(storeId, DEFAULT_CURRENCY, { isDefault: true, exchangeRate: 1, now }),
      );
    }
  })();
}

/**
 * The formats of a store's currencies, read once, on the first price a request formats
 * (money.ts asks only when it formats). A code the store has no currency for is undefined:
 * money.ts then writes it in its built-in format.
 */
export function storeCurrencyFormats(
  db: Db,
  storeId: string,
): (code: string) => CurrencyFormat | undefined {
  let formats: Map<string, CurrencyFormat> | undefined;
  return (code) => {
    if (formats === undefined) {
      const rows = cachedStatement(
        db,
        `SELECT code, format, decimal_point, thousand_separator, decimal_places FROM currencies
         WHERE store_id = ?`,
      ).all(storeId) as Pick<
        CurrencyRow,
        'code' | 'format' | 'decimal_point' | 'thousand_separator' | 'decimal_places'
      >[];
      formats = new Map(
        rows.map((r) => [
          r.code,
          {
            template: r.format,
            decimalPoint: r.decimal_point,
            thousandSeparator: r.thousand_separator,
            decimalPlaces: r.decimal_places,
          },
        ]),
      );
    }
    return formats.get(code);
  };
}
