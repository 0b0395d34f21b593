/**
 * The body of `POST /v2/carts/{id}/items` in the forms beyond one item (production's carts
 * specification, manageCarts): `data` as an array of items (BulkAddItemsRequest), a cart merge
 * `{type:"cart_items", cart_id}` (CartMergeObjectRequest, alone or in the array), and
 * `options.add_all_or_nothing`. A malformed entry refuses the whole request (400 naming
 * `data[i].field`): the request is wrong, whatever the option says. What depends on the store
 * (a product, a price, stock, a code, the merged cart) is judged when the entry is applied
 * (add-items.ts).
 */
import { ApiError, badRequest, isApiError } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { judgeCode } from '../promotions/cart-codes.ts';
import { describeValue, isObject, type JsonObject, rejectUnknownKeys } from '../request-body.ts';
import { type CustomItemInput, parseCustomItem } from './bodies.ts';
import { type ProductItemInput, parseProductItem } from './product-items.ts';

/** Entries of one request: production's bound on a cart's distinct items. */
export const MAX_ENTRIES = 100;
/** `cart_items` (merge) entries of one request: each may bring up to MAX_CART_LINES lines. */
export const MAX_MERGES = 5;

export type ItemEntry =
  | { type: 'cart_item'; input: ProductItemInput }
  | { type: 'custom_item'; input: CustomItemInput }
  | { type: 'promotion_item'; code: string }
  | { type: 'cart_items'; cartId: string };

export interface ItemsRequest {
  entries: ItemEntry[];
  /** `options.add_all_or_nothing`; production's default is false. */
  allOrNothing: boolean;
  /** `data` was an array: the answer reports entries by their index. */
  bulk: boolean;
}

const TYPES = ['cart_item', 'custom_item', 'promotion_item', 'cart_items'];

/**
 * `options` of an items request: an object whose only key is `add_all_or_nothing`, a boolean;
 * absent means false.
 */
export function parseItemOptions(body: unknown): boolean {
  if (!isObject(body) || body.options === undefined || body.options === null) return false;
  const options = body.options;
  if (!isObject(options)) {
    throw badRequest(
      `options must be an object {"add_all_or_nothing": bool}, got ${describeValue(options)}.`,
      'options',
    );
  }
  rejectUnknownKeys(options, ['add_all_or_nothing'], 'options');
  const flag = options.add_all_or_nothing;
  if (flag === undefined || flag === null) return false;
  if (typeof flag !== 'boolean') {
    throw badRequest(
      `options.add_all_or_nothing must be true or false, got ${describeValue(flag)}.`,
      'options.add_all_or_nothing',
    );
  }
  return flag;
}

/** `data.x` → `data[i].x` in an error's source and detail, so it names the entry. */
export function atEntry(error: ApiError, index: number): ApiError {
  const path = `data[${index}]`;
  const source =
    error.source === undefined || !/^data\b/.test(error.source)
      ? path
      : error.source.replace(/^data/, path);
  return new ApiError(error.status, error.detail.replace(/\bdata\./g, `${path}.`), {
    title: error.title,
    source,
  });
}

function parseMerge(data: JsonObject, prefix: string): string {
  rejectUnknownKeys(data, ['type', 'cart_id'], prefix);
  const id = data.cart_id;
  if (typeof id !== 'string' || !isUuid(id)) {
    throw badRequest(
      `${prefix}.cart_id must be the id (a uuid) of the cart to merge from, got ${describeValue(id)}.`,
      `${prefix}.cart_id`,
    );
  }
  return id.toLowerCase();
}

/** One entry of `data`, judged as the single-item body of its type would be. */
function parseEntry(data: unknown): ItemEntry {
  if (!isObject(data)) {
    throw badRequest(`data must be an item object, got ${describeValue(data)}.`, 'data');
  }
  const type = data.type;
  switch (type) {
    case 'cart_item':
      return { type, input: parseProductItem(data) };
    case 'custom_item':
      return { type, input: parseCustomItem({ data }) };
    case 'promotion_item':
      return { type, code: judgeCode(data.code, 'data.code') };
    case 'cart_items':
      return { type, cartId: parseMerge(data, 'data') };
    case 'order_items':
      throw badRequest(
        'Re-ordering (order_items) is not served by this service; add the items instead.',
        'data.type',
      );
    default:
      throw badRequest(
        `data.type must be one of ${TYPES.join(', ')}, got ${
          typeof type === 'string' ? `"${type.slice(0, 64)}"` : describeValue(type)
        }.`,
        'data.type',
      );
  }
}

/**
 * The items request of `body` when it is one of the forms here (`data` an array, or a merge);
 * undefined for a single item, which the route reads as before.
 */
export function parseItemsRequest(body: unknown): ItemsRequest | undefined {
  if (!isObject(body)) return undefined;
  const data = body.data;
  if (isObject(data) && data.type === 'cart_items') {
    const allOrNothing = parseItemOptions(body);
    return {
      entries: [{ type: 'cart_items', cartId: parseMerge(data, 'data') }],
      allOrNothing,
      bulk: false,
    };
  }
  if (!Array.isArray(data)) return undefined;
  const allOrNothing = parseItemOptions(body);
  if (data.length === 0) throw badRequest('data must list at least one item.', 'data');
  if (data.length > MAX_ENTRIES) {
    throw badRequest(
      `data may list at most ${MAX_ENTRIES} items in one request (a cart holds at most ` +
        `${MAX_ENTRIES} distinct items); got ${data.length}.`,
      'data',
    );
  }
  const entries = data.map((entry, index) => {
    try {
      return parseEntry(entry);
    } catch (error) {
      throw isApiError(error) ? atEntry(error, index) : error;
    }
  });
  const merges = entries.filter((e) => e.type === 'cart_items').length;
  if (merges > MAX_MERGES) {
    throw badRequest(
      `data may merge at most ${MAX_MERGES} carts (cart_items) in one request; got ${merges}.`,
      'data',
    );
  }
  return { entries, allOrNothing, bulk: true };
}
