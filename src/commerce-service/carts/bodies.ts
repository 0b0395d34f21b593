/**
 * The request bodies of the cart routes, judged through request-body.ts: every failure is a 400
 * whose `source` points at the offending field. What is here beyond request-body.ts is the
 * carts' own vocabulary: which fields each body has, their bounds (money.ts), a discount's
 * amount in the cart's currency, and the customer and addresses of a checkout.
 */
import { badRequest } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { MAX_AMOUNT, MAX_QUANTITY } from '../money.ts';
import {
  checkType,
  isObject,
  type JsonObject,
  optionalText,
  requireBoolean,
  requireData,
  requireEmail,
  requireInteger,
  requireObject,
  requireText,
  requireType,
} from '../request-body.ts';
import type { CartRow } from './storage.ts';

// ---------------------------------------------------------------------------------------------
// Carts

export interface CartInput {
  name: string;
  description: string;
  /** Whether the cart takes custom discounts; undefined: the store's default. */
  customDiscountsEnabled: boolean | undefined;
}

/** `POST /v2/carts`: a name, and optionally a description and `discount_settings`. */
export function parseNewCart(body: unknown): CartInput {
  const data = requireData(body);
  checkType(data, 'cart');
  const name = requireText(data, 'name');
  const description = optionalText(data, 'description', { blank: true }) ?? '';
  let customDiscountsEnabled: boolean | undefined;
  if (data.discount_settings !== undefined) {
    const settings = requireObject(data, 'discount_settings');
    if (settings.custom_discounts_enabled !== undefined) {
      customDiscountsEnabled = requireBoolean(
        settings,
        'custom_discounts_enabled',
        'data.discount_settings',
      );
    }
  }
  return { name, description, customDiscountsEnabled };
}

/**
 * `PUT /v2/carts/{id}` (its `data`, read before the cart): what is not given keeps its value;
 * `discount_settings`, when given, must say `custom_discounts_enabled`.
 */
export function parseCartUpdate(
  data: JsonObject,
  cart: CartRow,
): Pick<CartRow, 'name' | 'description' | 'custom_discounts_enabled'> {
  const name = data.name === undefined ? cart.name : requireText(data, 'name');
  const description = optionalText(data, 'description', { blank: true }) ?? cart.description;
  let enabled = cart.custom_discounts_enabled;
  if (data.discount_settings !== undefined) {
    const settings = isObject(data.discount_settings) ? data.discount_settings : {};
    const flag = requireBoolean(settings, 'custom_discounts_enabled', 'data.discount_settings');
    enabled = flag ? 1 : 0;
  }
  return { name, description, custom_discounts_enabled: enabled };
}

// ---------------------------------------------------------------------------------------------
// Items

export interface CustomItemInput {
  name: string;
  sku: string;
  description: string;
  quantity: number;
  amount: number;
  includesTax: boolean;
}

/** `POST …/items`: a custom item, the only kind this service has. */
export function parseCustomItem(body: unknown): CustomItemInput {
  const data = requireData(body);
  requireType(
    data,
    'custom_item',
    'A cart takes custom_item (name, sku, price), cart_item (a catalog product by id or sku) ' +
      'or promotion_item (a code).',
  );
  const price = requireObject(data, 'price', {
    shape: '{"amount": <minor units>, "includes_tax": bool}',
  });
  const amount = requireInteger(
    price,
    'amount',
    { min: 0, max: MAX_AMOUNT, unit: 'minor units' },
    'data.price',
  );
  const includesTax =
    price.includes_tax === undefined ? true : requireBoolean(price, 'includes_tax', 'data.price');
  return {
    name: requireText(data, 'name'),
    sku: requireText(data, 'sku'),
    description: optionalText(data, 'description', { blank: true }) ?? '',
    quantity: requireInteger(data, 'quantity', { min: 1, max: MAX_QUANTITY }),
    amount,
    includesTax,
  };
}

/** `PUT …/items/{id}`: the new quantity; 0 removes the item, as in the production API. */
export function parseQuantityUpdate(body: unknown): number {
  const data = requireData(body);
  checkType(data, ['custom_item', 'cart_item']);
  return requireInteger(data, 'quantity', { min: 0, max: MAX_QUANTITY });
}

// ---------------------------------------------------------------------------------------------
// Custom discounts

export interface CustomDiscountInput {
  amount: number;
  description: string;
  discount_code: string;
  discount_engine: string;
  external_id: string;
}

/** A discount's amount: below zero, down to the negation of the largest amount. */
const DISCOUNT_AMOUNT = { min: -MAX_AMOUNT, max: -1, unit: 'minor units' } as const;

/**
 * A custom discount body. Every field is required, on create and on update alike. `amount` is
 * an integer number of minor units below zero; on update the response's object form
 * `{amount, currency, formatted}` is accepted too (the official SDK types it so), as long as
 * its currency, when given, is the cart's.
 */
export function parseCustomDiscount(
  body: unknown,
  currency: string,
  acceptObjectAmount: boolean,
): CustomDiscountInput {
  const data = requireData(body);
  requireType(data, 'custom_discount');
  let amount: number;
  if (acceptObjectAmount && isObject(data.amount)) {
    const given = data.amount;
    if (given.currency !== undefined && given.currency !== currency) {
      throw badRequest(
        `data.amount.currency must be the cart's currency (${currency}).`,
        'data.amount.currency',
      );
    }
    amount = requireInteger(given, 'amount', DISCOUNT_AMOUNT, 'data.amount');
  } else {
    amount = requireInteger(data, 'amount', DISCOUNT_AMOUNT);
  }
  return {
    amount,
    description: requireText(data, 'description'),
    discount_code: requireText(data, 'discount_code'),
    discount_engine: requireText(data, 'discount_engine'),
    external_id: requireText(data, 'external_id'),
  };
}

// ---------------------------------------------------------------------------------------------
// Checkout

const ADDRESS_REQUIRED = ['first_name', 'last_name', 'line_1', 'region', 'postcode', 'country'];
const ADDRESS_OPTIONAL = [
  'company_name',
  'line_2',
  'city',
  'county',
  'phone_number',
  'instructions',
];

function parseAddress(data: JsonObject, key: string): Record<string, string> {
  const source = `data.${key}`;
  const value = requireObject(data, key, {
    shape: `an object with ${ADDRESS_REQUIRED.join(', ')}`,
  });
  const address: Record<string, string> = {};
  for (const field of ADDRESS_REQUIRED) {
    address[field] = requireText(value, field, { prefix: source });
  }
  for (const field of ADDRESS_OPTIONAL) {
    const text = optionalText(value, field, { prefix: source, blank: true });
    if (text !== undefined) address[field] = text;
  }
  return address;
}

export interface CheckoutInput {
  /**
   * A guest (`{email, name}`), an existing customer (`{id}`), or null: the body named none,
   * which only a request with a customer token may do (the order is then that customer's).
   */
  customer: { name: string; email: string } | { id: string } | null;
  billingAddress: Record<string, string>;
  shippingAddress: Record<string, string> | undefined;
}

function parseCheckoutCustomer(data: JsonObject, signedIn: boolean): CheckoutInput['customer'] {
  if (data.customer === undefined && signedIn) return null;
  const customer = requireObject(data, 'customer', {
    shape: '{"email": "…", "name": "…"} or {"id": "<customer id>"}',
  });
  if (customer.id !== undefined) {
    const id = customer.id;
    if (typeof id !== 'string' || !isUuid(id)) {
      throw badRequest('data.customer.id must be a customer id (a uuid).', 'data.customer.id');
    }
    return { id: id.toLowerCase() };
  }
  const name = requireText(customer, 'name', { prefix: 'data.customer' });
  const email = requireEmail(customer, 'email', 'data.customer');
  return { name, email };
}

/** `POST …/checkout`; `signedIn`: the request has a customer token. */
export function parseCheckout(body: unknown, signedIn = false): CheckoutInput {
  const data = requireData(body);
  return {
    customer: parseCheckoutCustomer(data, signedIn),
    billingAddress: parseAddress(data, 'billing_address'),
    shippingAddress:
      data.shipping_address === undefined || data.shipping_address === null
        ? undefined
        : parseAddress(data, 'shipping_address'),
  };
}
