/**
 * The bodies of `/v2/inventories`, judged through request-body.ts. Both forms production has
 * are read: the basic one (`{data:{quantity}}`, `{data:{type,action,quantity}}`) and the
 * multi-location one (`{data:{id,type:"stock",attributes:{available}}}`,
 * `{data:{attributes:{action,quantity,…}}}`, which the official SDK sends). Per-location
 * quantities are not served: a `location` or a non-empty `locations` is a 400 saying so.
 */
import { badRequest } from '../errors.ts';
import { isUuid } from '../ids.ts';
import {
  isObject,
  type JsonObject,
  rejectUnknownKeys,
  requireData,
  requireInteger,
} from '../request-body.ts';
import { readResource, requireAttributes } from '../resource-body.ts';
import { MAX_STOCK, STOCK_ACTIONS, type StockAction } from './stock.ts';

/** Products of one `POST /v2/inventories/multiple`. */
export const MAX_MULTIPLE = 100;

const NO_LOCATIONS =
  'per-location stock is not supported by this service (only the totals of the multi-location form are)';

/** `POST /v2/inventories/{id}`: `{data:{quantity}}`, 0 to MAX_STOCK. */
export function parseStockCreate(body: unknown): number {
  const data = requireAttributes(body, 'stock', ['type', 'quantity']);
  return requireInteger(data, 'quantity', { min: 0, max: MAX_STOCK });
}

/**
 * `POST /v2/inventories` (multi-location form): `{data:{id,type:"stock",attributes:{available?}}}`;
 * `available` defaults to 0.
 */
export function parseMultiLocationCreate(body: unknown): { productId: string; available: number } {
  const data = requireData(body);
  const id = data.id;
  if (typeof id !== 'string' || !isUuid(id)) {
    throw badRequest('data.id is required: the id (a uuid) of the product.', 'data.id');
  }
  const attributes = readResource(body, 'stock', {
    requireAttributes: true,
    attributes: ['available', 'locations'],
  }).attributes;
  rejectLocations(attributes, 'locations', 'data.attributes');
  const available =
    attributes.available === undefined || attributes.available === null
      ? 0
      : requireInteger(attributes, 'available', { min: 0, max: MAX_STOCK }, 'data.attributes');
  return { productId: id.toLowerCase(), available };
}

function rejectLocations(data: JsonObject, key: string, prefix: string): void {
  const value = data[key];
  if (value === undefined || value === null) return;
  if (!isObject(value)) throw badRequest(`${prefix}.${key} must be an object.`, `${prefix}.${key}`);
  if (Object.keys(value).length > 0) {
    throw badRequest(`${prefix}.${key}: ${NO_LOCATIONS}.`, `${prefix}.${key}`);
  }
}

export interface TransactionInput {
  action: StockAction;
  quantity: number;
  /** Where the quantity was, for a 400 about it. */
  quantitySource: string;
}

/**
 * A stock transaction: flat `{data:{type,action,quantity}}` or nested
 * `{data:{type?,attributes:{type?,action,quantity,product_id?}}}`. `quantity` is 1 to
 * MAX_STOCK (0 allowed for `set`); a `product_id` must be the path's.
 */
export function parseTransaction(body: unknown, productId: string): TransactionInput {
  const data = requireData(body);
  let fields: JsonObject;
  let prefix: string;
  if (isObject(data.attributes)) {
    fields = readResource(body, 'stock-transaction', {
      requireAttributes: true,
      attributes: ['type', 'action', 'quantity', 'product_id', 'location'],
    }).attributes;
    prefix = 'data.attributes';
    if (fields.type !== undefined && fields.type !== 'stock-transaction') {
      throw badRequest('data.attributes.type must be "stock-transaction".', 'data.attributes.type');
    }
    if (fields.location !== undefined && fields.location !== null) {
      throw badRequest(`data.attributes.location: ${NO_LOCATIONS}.`, 'data.attributes.location');
    }
    const claimed = fields.product_id;
    if (
      claimed !== undefined &&
      claimed !== null &&
      (typeof claimed !== 'string' || claimed.toLowerCase() !== productId)
    ) {
      throw badRequest(
        'data.attributes.product_id must be the product id of the path.',
        'data.attributes.product_id',
      );
    }
  } else {
    fields = requireAttributes(body, 'stock-transaction', ['type', 'action', 'quantity']);
    prefix = 'data';
  }
  const action = fields.action;
  if (typeof action !== 'string' || !STOCK_ACTIONS.includes(action as StockAction)) {
    throw badRequest(
      `${prefix}.action must be one of ${STOCK_ACTIONS.join(', ')}.`,
      `${prefix}.action`,
    );
  }
  const min = action === 'set' ? 0 : 1;
  const quantity = requireInteger(fields, 'quantity', { min, max: MAX_STOCK }, prefix);
  return { action: action as StockAction, quantity, quantitySource: `${prefix}.quantity` };
}

/** `POST /v2/inventories/multiple`: `{data:[{id},…]}`, 1 to MAX_MULTIPLE product ids. */
export function parseMultiple(body: unknown): string[] {
  const data = isObject(body) ? body.data : undefined;
  if (!Array.isArray(data) || data.length === 0 || data.length > MAX_MULTIPLE) {
    throw badRequest(
      `The body must be {"data":[{"id":"<product id>"},…]} with 1 to ${MAX_MULTIPLE} products.`,
      'data',
    );
  }
  return data.map((item, index) => {
    const source = `data.${index}`;
    if (!isObject(item)) throw badRequest(`${source} must be an object: {"id":…}.`, source);
    rejectUnknownKeys(item, ['id', 'type'], source);
    if (item.type !== undefined && item.type !== 'stock') {
      throw badRequest(`${source}.type must be "stock".`, `${source}.type`);
    }
    if (typeof item.id !== 'string' || !isUuid(item.id)) {
      throw badRequest(`${source}.id must be a product id (a uuid).`, `${source}.id`);
    }
    return item.id.toLowerCase();
  });
}
