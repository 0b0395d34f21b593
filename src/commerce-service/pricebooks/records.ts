/**
 * Price books, prices and price modifiers as stored and as the API shows them (nested
 * `{id, type, attributes, meta, links}`), and finding one by its path ids: a path id that is
 * not a uuid is a 400, another store's or a missing one a 404.
 */

import { parsePathId } from '../custom-apis/routes.ts';
import { cachedStatement, type Db } from '../db.ts';
import { notFound } from '../errors.ts';

export interface PricebookRow {
  id: string;
  store_id: string;
  name: string;
  description: string | null;
  external_ref: string | null;
  created_at: string;
  updated_at: string;
}

export interface PriceRow {
  id: string;
  store_id: string;
  pricebook_id: string;
  sku: string;
  /** JSON of a CurrencyMap. */
  currencies: string;
  /** JSON of a SaleMap, or null. */
  sales: string | null;
  external_ref: string | null;
  admin_attributes: string | null;
  shopper_attributes: string | null;
  created_at: string;
  updated_at: string;
}

export interface ModifierRow {
  id: string;
  store_id: string;
  pricebook_id: string;
  name: string;
  modifier_type: string;
  currencies: string;
  external_ref: string | null;
  created_at: string;
  updated_at: string;
}

export const PRICEBOOKS = '/pcm/pricebooks';

/** `{key: value}` when the value is set, else nothing: optional attributes are left out. */
function present<T>(key: string, value: T | null): Record<string, T> {
  return value === null ? {} : { [key]: value };
}

function json(key: string, value: string | null): Record<string, unknown> {
  return value === null ? {} : { [key]: JSON.parse(value) };
}

export function presentPricebook(row: PricebookRow) {
  return {
    id: row.id,
    type: 'pricebook',
    attributes: {
      name: row.name,
      ...present('description', row.description),
      ...present('external_ref', row.external_ref),
      created_at: row.created_at,
      updated_at: row.updated_at,
    },
    meta: { owner: 'store' },
    links: { self: `${PRICEBOOKS}/${row.id}` },
  };
}

export function presentPrice(row: PriceRow) {
  return {
    id: row.id,
    type: 'product-price',
    attributes: {
      sku: row.sku,
      currencies: JSON.parse(row.currencies),
      ...json('sales', row.sales),
      ...present('external_ref', row.external_ref),
      ...json('admin_attributes', row.admin_attributes),
      ...json('shopper_attributes', row.shopper_attributes),
      created_at: row.created_at,
      updated_at: row.updated_at,
    },
    meta: { owner: 'store', pricebook_id: row.pricebook_id },
    links: { self: `${PRICEBOOKS}/${row.pricebook_id}/prices/${row.id}` },
  };
}

export function presentModifier(row: ModifierRow) {
  return {
    id: row.id,
    type: 'price-modifier',
    attributes: {
      name: row.name,
      modifier_type: row.modifier_type,
      currencies: JSON.parse(row.currencies),
      ...present('external_ref', row.external_ref),
      created_at: row.created_at,
      updated_at: row.updated_at,
    },
    meta: { owner: 'store', pricebook_id: row.pricebook_id },
    links: { self: `${PRICEBOOKS}/${row.pricebook_id}/modifiers/${row.id}` },
  };
}

export function findPricebook(db: Db, storeId: string, rawId: string): PricebookRow {
  const id = parsePathId(rawId, 'price book');
  const row = cachedStatement(db, 'SELECT * FROM pricebooks WHERE store_id = ? AND id = ?').get(
    storeId,
    id,
  ) as PricebookRow | undefined;
  if (!row) throw notFound(`No price book with id ${id}.`);
  return row;
}

export function findPrice(db: Db, book: PricebookRow, rawId: string): PriceRow {
  const id = parsePathId(rawId, 'price');
  const row = cachedStatement(
    db,
    'SELECT * FROM prices WHERE store_id = ? AND pricebook_id = ? AND id = ?',
  ).get(book.store_id, book.id, id) as PriceRow | undefined;
  if (!row) throw notFound(`No price with id ${id} in price book ${book.id}.`);
  return row;
}

export function findModifier(db: Db, book: PricebookRow, rawId: string): ModifierRow {
  const id = parsePathId(rawId, 'price modifier');
  const row = cachedStatement(
    db,
    'SELECT * FROM price_modifiers WHERE store_id = ? AND pricebook_id = ? AND id = ?',
  ).get(book.store_id, book.id, id) as ModifierRow | undefined;
  if (!row) throw notFound(`No price modifier with id ${id} in price book ${book.id}.`);
  return row;
}

/** JSON text of a value, or null: how optional JSON columns are written. */
export function jsonOrNull(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}
