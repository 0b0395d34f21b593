/**
 * Stock and its transactions as the API shows them: flat in the basic mode
 * (`{id, type:"stock", total, available, allocated}`), nested under `attributes` in the
 * multi-location mode (`EP-Inventories-Multi-Location: true`), which the service serves
 * without per-location quantities (`locations` is always empty).
 */
import type { FastifyRequest } from 'fastify';
import { badRequest } from '../errors.ts';
import type { StockRow, TransactionRow } from './records.ts';

const HEADER = 'ep-inventories-multi-location';

/**
 * Whether the request asks for the multi-location form: `EP-Inventories-Multi-Location: true`
 * (any case). `false` or no header is the basic form; any other value is a 400.
 */
export function isMultiLocation(request: FastifyRequest): boolean {
  const value = request.headers[HEADER];
  if (value === undefined) return false;
  const text = (Array.isArray(value) ? value.join(',') : value).trim().toLowerCase();
  if (text === 'true') return true;
  if (text === 'false' || text === '') return false;
  throw badRequest(
    'The header EP-Inventories-Multi-Location must be true or false.',
    `headers.${HEADER}`,
  );
}

export function presentStock(row: StockRow) {
  return {
    id: row.product_id,
    type: 'stock',
    total: row.total,
    available: row.available,
    allocated: row.allocated,
  };
}

export function presentMultiLocationStock(row: StockRow) {
  return {
    id: row.product_id,
    type: 'stock',
    attributes: {
      available: row.available,
      allocated: row.allocated,
      total: row.total,
      locations: {},
    },
    meta: {
      stock_id: row.stock_id,
      timestamps: { created_at: row.created_at, updated_at: row.updated_at },
    },
  };
}

/** The form of stock the request asked for. */
export function stockPresenter(request: FastifyRequest): (row: StockRow) => object {
  return isMultiLocation(request) ? presentMultiLocationStock : presentStock;
}

export function presentTransaction(row: TransactionRow) {
  return {
    id: row.id,
    type: 'stock-transaction',
    action: row.action,
    product_id: row.product_id,
    quantity: row.quantity,
    timestamps: { created_at: row.created_at },
  };
}

export function presentMultiLocationTransaction(row: TransactionRow) {
  return {
    id: row.id,
    type: 'stock-transaction',
    attributes: { action: row.action, product_id: row.product_id, quantity: row.quantity },
    meta: { timestamps: { created_at: row.created_at } },
  };
}

/** The form of transaction the request asked for. */
export function transactionPresenter(request: FastifyRequest): (row: TransactionRow) => object {
  return isMultiLocation(request) ? presentMultiLocationTransaction : presentTransaction;
}
