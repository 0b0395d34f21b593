/**
 * Carts, custom items, custom discounts (item and cart level) and checkout: seed endpoint 2 and
 * what it needs. Every write runs in one SQLite transaction, so a failed rule never leaves a
 * half-written cart. Amounts are integers in minor units of the cart's currency.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { badRequest, forbidden, notFound, unprocessable } from '../errors.ts';
import { isUuid, newId } from '../ids.ts';
import { listResources, standardListSpec } from '../listing.ts';
import {
  amountOverflow,
  computeCartTotals,
  DEFAULT_CURRENCY,
  type ItemTotals,
  MAX_AMOUNT,
  MAX_QUANTITY,
  type MoneyValue,
  money,
} from '../money.ts';
import { isObject, type JsonObject, requireData } from '../request-body.ts';
import { JSON_CONTENT_TYPE, storeCheckedOutOrder } from './orders.ts';

/** At most this many custom discounts per item, and this many at cart level. */
export const MAX_CUSTOM_DISCOUNTS = 5;

const MAX_TEXT = 255;

interface CartRow {
  id: string;
  store_id: string;
  name: string;
  description: string;
  currency: string;
  custom_discounts_enabled: number;
  /** The customer whose token created the cart (migration 0600); null for a guest cart. */
  customer_id: string | null;
  created_at: string;
  updated_at: string;
}

interface ItemRow {
  id: string;
  cart_id: string;
  name: string;
  sku: string;
  description: string;
  quantity: number;
  unit_amount: number;
  includes_tax: number;
  created_at: string;
  updated_at: string;
}

interface DiscountRow {
  id: string;
  cart_id: string;
  item_id: string | null;
  amount: number;
  description: string;
  discount_code: string;
  discount_engine: string;
  external_id: string;
  created_at: string;
  updated_at: string;
}

/** A cart with everything its responses and totals need, read in one go. */
export interface CartState {
  cart: CartRow;
  items: ItemRow[];
  discounts: DiscountRow[];
}

// ---------------------------------------------------------------------------------------------
// Body validation: each failure is a 400 whose `source` points at the offending field.

type Json = JsonObject;

function requireText(data: Json, field: string, prefix = 'data'): string {
  const value = data[field];
  const source = `${prefix}.${field}`;
  if (value === undefined || value === null) throw badRequest(`${source} is required.`, source);
  if (typeof value !== 'string') throw badRequest(`${source} must be a string.`, source);
  if (value.trim() === '') throw badRequest(`${source} must not be empty.`, source);
  if (value.length > MAX_TEXT) {
    throw badRequest(`${source} must be at most ${MAX_TEXT} characters.`, source);
  }
  return value;
}

function optionalText(data: Json, field: string, prefix = 'data'): string | undefined {
  const value = data[field];
  if (value === undefined || value === null) return undefined;
  const source = `${prefix}.${field}`;
  if (typeof value !== 'string') throw badRequest(`${source} must be a string.`, source);
  if (value.length > MAX_TEXT) {
    throw badRequest(`${source} must be at most ${MAX_TEXT} characters.`, source);
  }
  return value;
}

function requireType(data: Json, expected: string): void {
  if (data.type === undefined) {
    throw badRequest(`data.type is required and must be "${expected}".`, 'data.type');
  }
  if (data.type !== expected) {
    throw badRequest(
      `data.type must be "${expected}", got ${JSON.stringify(data.type)}.`,
      'data.type',
    );
  }
}

function isMinorUnits(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

export interface CustomDiscountInput {
  amount: number;
  description: string;
  discount_code: string;
  discount_engine: string;
  external_id: string;
}

/**
 * Validates a custom discount body. Every field is required, on create and on update alike.
 * `amount` is an integer number of minor units below zero; on update the response's object
 * form `{amount, currency, formatted}` is accepted too (the official SDK types it so), as long
 * as its currency, when given, is the cart's.
 */
export function parseCustomDiscount(
  body: unknown,
  currency: string,
  acceptObjectAmount: boolean,
): CustomDiscountInput {
  const data = requireData(body);
  requireType(data, 'custom_discount');
  let amount: unknown = data.amount;
  let amountSource = 'data.amount';
  if (acceptObjectAmount && isObject(amount)) {
    const givenCurrency = amount.currency;
    if (givenCurrency !== undefined && givenCurrency !== currency) {
      throw badRequest(
        `data.amount.currency must be the cart's currency (${currency}).`,
        'data.amount.currency',
      );
    }
    amount = amount.amount;
    amountSource = 'data.amount.amount';
  }
  if (amount === undefined || amount === null) {
    throw badRequest(`${amountSource} is required.`, amountSource);
  }
  if (!isMinorUnits(amount)) {
    throw badRequest(
      `${amountSource} must be an integer number of minor units (e.g. -1000 for -10.00).`,
      amountSource,
    );
  }
  if (amount >= 0) {
    throw badRequest(`${amountSource} must be less than zero, got ${amount}.`, amountSource);
  }
  if (amount < -MAX_AMOUNT) {
    throw badRequest(
      `${amountSource} must be at least -${MAX_AMOUNT} (the largest amount), got ${amount}.`,
      amountSource,
    );
  }
  return {
    amount,
    description: requireText(data, 'description'),
    discount_code: requireText(data, 'discount_code'),
    discount_engine: requireText(data, 'discount_engine'),
    external_id: requireText(data, 'external_id'),
  };
}

interface CustomItemInput {
  name: string;
  sku: string;
  description: string;
  quantity: number;
  amount: number;
  includesTax: boolean;
}

function requireQuantity(data: Json, min: number): number {
  const quantity = data.quantity;
  if (quantity === undefined || quantity === null) {
    throw badRequest('data.quantity is required.', 'data.quantity');
  }
  if (
    typeof quantity !== 'number' ||
    !Number.isSafeInteger(quantity) ||
    quantity < min ||
    quantity > MAX_QUANTITY
  ) {
    throw badRequest(
      `data.quantity must be an integer from ${min} to ${MAX_QUANTITY}.`,
      'data.quantity',
    );
  }
  return quantity;
}

function parseCustomItem(body: unknown): CustomItemInput {
  const data = requireData(body);
  if (data.type !== 'custom_item') {
    throw badRequest(
      'data.type must be "custom_item": this service has no catalog, so only custom items can ' +
        'be added to a cart.',
      'data.type',
    );
  }
  const price = data.price;
  if (!isObject(price)) {
    throw badRequest(
      'data.price is required: {"amount": <minor units>, "includes_tax": bool}.',
      'data.price',
    );
  }
  if (!isMinorUnits(price.amount) || price.amount < 0 || price.amount > MAX_AMOUNT) {
    throw badRequest(
      `data.price.amount must be an integer number of minor units from 0 to ${MAX_AMOUNT}.`,
      'data.price.amount',
    );
  }
  if (price.includes_tax !== undefined && typeof price.includes_tax !== 'boolean') {
    throw badRequest('data.price.includes_tax must be a boolean.', 'data.price.includes_tax');
  }
  return {
    name: requireText(data, 'name'),
    sku: requireText(data, 'sku'),
    description: optionalText(data, 'description') ?? '',
    quantity: requireQuantity(data, 1),
    amount: price.amount,
    includesTax: price.includes_tax !== false,
  };
}

// ---------------------------------------------------------------------------------------------
// Storage

function loadCart(db: Db, storeId: string, cartId: string): CartState {
  if (!isUuid(cartId)) throw notFound(`No cart ${cartId}: cart ids are uuids.`);
  const cart = db
    .prepare('SELECT * FROM carts WHERE id = ? AND store_id = ?')
    .get(cartId.toLowerCase(), storeId) as CartRow | undefined;
  if (!cart) throw notFound(`No cart with id ${cartId}.`);
  const items = db
    .prepare('SELECT * FROM cart_items WHERE cart_id = ? ORDER BY created_at, id')
    .all(cart.id) as ItemRow[];
  const discounts = db
    .prepare('SELECT * FROM cart_custom_discounts WHERE cart_id = ? ORDER BY created_at, id')
    .all(cart.id) as DiscountRow[];
  return { cart, items, discounts };
}

/**
 * 400 naming `source` when the cart, as it would be after a write (or as it is, at checkout),
 * has a total above MAX_AMOUNT: judged before anything is written, so every amount a cart or
 * an order ever shows fits the `Int` a GraphQL client receives.
 */
function judgeCartTotals(state: CartState, source: string, doing: string): void {
  const overflow = amountOverflow(totalsOf(state));
  if (overflow === undefined) return;
  const what =
    overflow.what === 'line'
      ? `the line total of "${state.items[overflow.index ?? 0]?.name}" (unit price × quantity)`
      : 'the cart total (the sum of every line)';
  throw badRequest(
    `${doing} would make ${what} ${overflow.amount} minor units, above the largest amount ` +
      `(${MAX_AMOUNT}); lower the quantity or the price.`,
    source,
  );
}

/**
 * 400 when a stored item or discount is out of the bounds writes now keep (a cart written by
 * an older version): such a cart cannot become an order a client can read.
 */
function judgeCartItems(state: CartState): void {
  for (const item of state.items) {
    if (item.quantity > MAX_QUANTITY || item.unit_amount > MAX_AMOUNT) {
      throw badRequest(
        `Item ${item.id} has a quantity or unit price above the largest allowed ` +
          `(${MAX_QUANTITY} units, ${MAX_AMOUNT} minor units): change it before checking out.`,
        'cart',
      );
    }
  }
  for (const discount of state.discounts) {
    if (discount.amount < -MAX_AMOUNT) {
      throw badRequest(
        `Custom discount ${discount.id} is below -${MAX_AMOUNT} minor units: change it before ` +
          'checking out.',
        'cart',
      );
    }
  }
}

function findItem(state: CartState, itemId: string): ItemRow {
  const item = isUuid(itemId) ? state.items.find((i) => i.id === itemId.toLowerCase()) : undefined;
  if (!item) throw notFound(`No item with id ${itemId} in cart ${state.cart.id}.`);
  return item;
}

function findDiscount(state: CartState, discountId: string, itemId: string | null): DiscountRow {
  const discount = isUuid(discountId)
    ? state.discounts.find((d) => d.id === discountId.toLowerCase() && d.item_id === itemId)
    : undefined;
  if (!discount) {
    const where = itemId === null ? `cart ${state.cart.id}` : `item ${itemId}`;
    throw notFound(`No custom discount with id ${discountId} on ${where}.`);
  }
  return discount;
}

function touchCart(db: Db, cartId: string, now: string): void {
  db.prepare('UPDATE carts SET updated_at = ? WHERE id = ?').run(now, cartId);
}

// ---------------------------------------------------------------------------------------------
// Response shapes (close to the production API's)

function discountsOf(state: CartState, itemId: string | null): number[] {
  return state.discounts.filter((d) => d.item_id === itemId).map((d) => d.amount);
}

export function totalsOf(state: CartState) {
  return computeCartTotals(
    state.items.map((item) => ({
      unitAmount: item.unit_amount,
      quantity: item.quantity,
      discounts: discountsOf(state, item.id),
    })),
    discountsOf(state, null),
  );
}

export function displayPrice(
  totals: { withoutDiscount: number; discount: number; total: number },
  currency: string,
): Record<string, MoneyValue> {
  return {
    with_tax: money(totals.total, currency),
    without_tax: money(totals.total, currency),
    tax: money(0, currency),
    discount: money(totals.discount, currency),
    without_discount: money(totals.withoutDiscount, currency),
  };
}

export function presentDiscount(row: DiscountRow, currency: string) {
  return {
    id: row.id,
    type: 'custom_discount',
    amount: money(row.amount, currency),
    description: row.description,
    discount_code: row.discount_code,
    discount_engine: row.discount_engine,
    external_id: row.external_id,
    ...(row.item_id === null
      ? {}
      : { relationships: { item: { data: { type: 'custom_item', id: row.item_id } } } }),
    meta: { timestamps: { created_at: row.created_at, updated_at: row.updated_at } },
  };
}

function presentItem(state: CartState, item: ItemRow, line: ItemTotals | undefined) {
  const currency = state.cart.currency;
  line ??= { withoutDiscount: 0, discount: 0, value: 0 };
  const unitDiscount = Math.trunc(line.discount / item.quantity);
  const pair = (unit: number, value: number) => ({
    unit: money(unit, currency),
    value: money(value, currency),
  });
  const discounts = state.discounts.filter((d) => d.item_id === item.id);
  return {
    id: item.id,
    type: 'custom_item',
    name: item.name,
    description: item.description,
    sku: item.sku,
    quantity: item.quantity,
    manage_stock: false,
    unit_price: { amount: item.unit_amount, currency, includes_tax: item.includes_tax === 1 },
    value: { amount: line.withoutDiscount, currency, includes_tax: item.includes_tax === 1 },
    links: {},
    meta: {
      display_price: {
        with_tax: pair(item.unit_amount + unitDiscount, line.value),
        without_tax: pair(item.unit_amount + unitDiscount, line.value),
        tax: pair(0, 0),
        discount: pair(unitDiscount, line.discount),
        without_discount: pair(item.unit_amount, line.withoutDiscount),
      },
      timestamps: { created_at: item.created_at, updated_at: item.updated_at },
    },
    relationships: {
      custom_discounts: {
        data: discounts.map((d) => ({ type: 'custom_discount', id: d.id })),
      },
    },
    custom_discounts: discounts.map((d) => presentDiscount(d, currency)),
  };
}

function cartMeta(state: CartState) {
  return {
    display_price: displayPrice(totalsOf(state), state.cart.currency),
    timestamps: { created_at: state.cart.created_at, updated_at: state.cart.updated_at },
  };
}

function presentCart(state: CartState) {
  const { cart } = state;
  return {
    id: cart.id,
    type: 'cart',
    name: cart.name,
    description: cart.description,
    currency: cart.currency,
    discount_settings: {
      custom_discounts_enabled: cart.custom_discounts_enabled === 1,
      use_rule_promotions: false,
    },
    links: { self: `/v2/carts/${cart.id}` },
    meta: cartMeta(state),
    relationships: {
      ...(cart.customer_id === null
        ? {}
        : { customers: { data: [{ type: 'customer', id: cart.customer_id }] } }),
      items: { data: state.items.map((i) => ({ type: 'custom_item', id: i.id })) },
      custom_discounts: {
        data: state.discounts
          .filter((d) => d.item_id === null)
          .map((d) => ({ type: 'custom_discount', id: d.id })),
      },
    },
  };
}

/** Every item of the cart, with the line totals computed once for all of them. */
function presentAllItems(state: CartState) {
  const lines = totalsOf(state).items;
  return state.items.map((item, i) => presentItem(state, item, lines[i]));
}

/** The production API answers every item write with the cart's whole item list and totals. */
function presentItems(state: CartState) {
  return { data: presentAllItems(state), meta: cartMeta(state) };
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
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function parseAddress(value: unknown, source: string): Record<string, string> {
  if (!isObject(value)) {
    throw badRequest(
      `${source} is required: an object with ${ADDRESS_REQUIRED.join(', ')}.`,
      source,
    );
  }
  const address: Record<string, string> = {};
  for (const field of ADDRESS_REQUIRED) address[field] = requireText(value, field, source);
  for (const field of ADDRESS_OPTIONAL) {
    const text = optionalText(value, field, source);
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

export function parseCheckout(body: unknown, signedIn = false): CheckoutInput {
  const data = requireData(body);
  let customer: CheckoutInput['customer'] = null;
  if (isObject(data.customer) && data.customer.id !== undefined) {
    const id = data.customer.id;
    if (typeof id !== 'string' || !isUuid(id)) {
      throw badRequest('data.customer.id must be a customer id (a uuid).', 'data.customer.id');
    }
    customer = { id: id.toLowerCase() };
  } else if (isObject(data.customer)) {
    const name = requireText(data.customer, 'name', 'data.customer');
    const email = requireText(data.customer, 'email', 'data.customer');
    if (!EMAIL.test(email)) {
      throw badRequest('data.customer.email is not an email address.', 'data.customer.email');
    }
    customer = { name, email };
  } else if (data.customer !== undefined || !signedIn) {
    throw badRequest(
      'data.customer is required: {"email": "…", "name": "…"} or {"id": "<customer id>"}.',
      'data.customer',
    );
  }
  return {
    customer,
    billingAddress: parseAddress(data.billing_address, 'data.billing_address'),
    shippingAddress:
      data.shipping_address === undefined || data.shipping_address === null
        ? undefined
        : parseAddress(data.shipping_address, 'data.shipping_address'),
  };
}

/**
 * Who may use a cart: anyone with its id for a guest cart (as in production); for a customer's
 * cart, a request with that customer's token, or a client_credentials token with no customer
 * token (the store acting). Anything else answers 404, as if the cart did not exist.
 */
function checkCartAccess(db: Db, request: FastifyRequest, cartId: string): void {
  if (!isUuid(cartId)) return; // loadCart answers it
  const owner = db
    .prepare('SELECT customer_id FROM carts WHERE id = ? AND store_id = ?')
    .pluck()
    .get(cartId.toLowerCase(), request.store.id) as string | null | undefined;
  if (owner === undefined || owner === null) return;
  const allowed = request.customer
    ? request.customer.id === owner
    : request.store.grant === 'client_credentials';
  if (!allowed) throw notFound(`No cart with id ${cartId}.`);
}

// ---------------------------------------------------------------------------------------------
// Routes

const INCLUDES = ['items', 'custom_discounts'] as const;

function parseInclude(raw: unknown): Set<string> {
  if (raw === undefined || raw === '') return new Set();
  if (typeof raw !== 'string') throw badRequest('include must be given once.', 'include');
  const names = raw.split(',').map((s) => s.trim());
  for (const name of names) {
    if (!(INCLUDES as readonly string[]).includes(name)) {
      throw badRequest(`Unknown include "${name}"; allowed: ${INCLUDES.join(', ')}.`, 'include');
    }
  }
  return new Set(names);
}

const CURRENCY = /^[A-Za-z]{3}$/;

interface CartParams {
  cartId: string;
}
interface ItemParams extends CartParams {
  itemId: string;
}
interface CartDiscountParams extends CartParams {
  discountId: string;
}
interface ItemDiscountParams extends ItemParams {
  discountId: string;
}

export function cartRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const tx = <T>(fn: () => T): T => db.transaction(fn)();

  const insertCart = db.prepare(
    `INSERT INTO carts (id, store_id, name, description, currency, custom_discounts_enabled,
                        customer_id, created_at, updated_at)
     VALUES (@id, @store_id, @name, @description, @currency, @enabled, @customer_id, @now, @now)`,
  );
  const insertItem = db.prepare(
    `INSERT INTO cart_items (id, store_id, cart_id, name, sku, description, quantity, unit_amount,
                             includes_tax, created_at, updated_at)
     VALUES (@id, @store_id, @cart_id, @name, @sku, @description, @quantity, @amount,
             @includes_tax, @now, @now)`,
  );
  const insertDiscount = db.prepare(
    `INSERT INTO cart_custom_discounts (id, store_id, cart_id, item_id, amount, description,
       discount_code, discount_engine, external_id, created_at, updated_at)
     VALUES (@id, @store_id, @cart_id, @item_id, @amount, @description, @discount_code,
             @discount_engine, @external_id, @now, @now)`,
  );
  const updateDiscount = db.prepare(
    `UPDATE cart_custom_discounts SET amount = @amount, description = @description,
       discount_code = @discount_code, discount_engine = @discount_engine,
       external_id = @external_id, updated_at = @now
     WHERE id = @id`,
  );
  const insertOrder = db.prepare(
    `INSERT INTO orders (id, store_id, cart_id, status, payment, shipping, customer_name,
       customer_email, billing_address, shipping_address, currency, with_tax, without_discount,
       discount, customer_id, created_at, updated_at)
     VALUES (@id, @store_id, @cart_id, 'incomplete', 'unpaid', 'unfulfilled', @customer_name,
       @customer_email, @billing_address, @shipping_address, @currency, @with_tax,
       @without_discount, @discount, @customer_id, @now, @now)`,
  );
  const insertOrderItem = db.prepare(
    `INSERT INTO order_items (id, store_id, order_id, name, sku, quantity, unit_amount, discount,
                              currency, created_at, updated_at)
     VALUES (@id, @store_id, @order_id, @name, @sku, @quantity, @unit_amount, @discount,
             @currency, @now, @now)`,
  );

  function requireDiscountsEnabled(state: CartState): void {
    if (state.cart.custom_discounts_enabled !== 1) {
      throw badRequest('Custom discounts not enabled for this cart', 'discount_settings');
    }
  }

  /** Adds a custom discount (item-level when itemId is given) and returns it. */
  function addDiscount(storeId: string, cartId: string, itemId: string | null, body: unknown) {
    return tx(() => {
      const state = loadCart(db, storeId, cartId);
      const item = itemId === null ? null : findItem(state, itemId);
      requireDiscountsEnabled(state);
      const input = parseCustomDiscount(body, state.cart.currency, false);
      const existing = state.discounts.filter((d) => d.item_id === (item?.id ?? null)).length;
      if (existing >= MAX_CUSTOM_DISCOUNTS) {
        const where = item ? 'this item' : 'this cart';
        throw unprocessable(
          `Maximum of ${MAX_CUSTOM_DISCOUNTS} custom discounts reached for ${where}.`,
          'data',
        );
      }
      if (item === null && state.items.length === 0) {
        throw unprocessable(
          'This cart is empty: add an item before adding a cart-level custom discount.',
          'data',
        );
      }
      const now = ctx.timestamp();
      const row: DiscountRow = {
        id: newId(),
        cart_id: state.cart.id,
        item_id: item?.id ?? null,
        ...input,
        created_at: now,
        updated_at: now,
      };
      insertDiscount.run({ ...row, store_id: storeId, now });
      touchCart(db, state.cart.id, now);
      return presentDiscount(row, state.cart.currency);
    });
  }

  function changeDiscount(
    storeId: string,
    cartId: string,
    itemId: string | null,
    discountId: string,
    body: unknown,
  ) {
    return tx(() => {
      const state = loadCart(db, storeId, cartId);
      if (itemId !== null) findItem(state, itemId);
      const existing = findDiscount(
        state,
        discountId,
        itemId === null ? null : itemId.toLowerCase(),
      );
      requireDiscountsEnabled(state);
      const input = parseCustomDiscount(body, state.cart.currency, true);
      const now = ctx.timestamp();
      const row: DiscountRow = { ...existing, ...input, updated_at: now };
      updateDiscount.run({ ...row, now });
      touchCart(db, state.cart.id, now);
      return presentDiscount(row, state.cart.currency);
    });
  }

  function removeDiscount(
    storeId: string,
    cartId: string,
    itemId: string | null,
    discountId: string,
  ): void {
    tx(() => {
      const state = loadCart(db, storeId, cartId);
      if (itemId !== null) findItem(state, itemId);
      const existing = findDiscount(
        state,
        discountId,
        itemId === null ? null : itemId.toLowerCase(),
      );
      db.prepare('DELETE FROM cart_custom_discounts WHERE id = ?').run(existing.id);
      touchCart(db, state.cart.id, ctx.timestamp());
    });
  }

  /**
   * Removing the last item also removes the cart-level discounts: an empty cart takes none,
   * and a discount left behind would silently apply to whatever is added next.
   */
  function dropCartDiscountsIfEmpty(cartId: string): void {
    const left = db
      .prepare('SELECT count(*) FROM cart_items WHERE cart_id = ?')
      .pluck()
      .get(cartId);
    if (left === 0) {
      db.prepare('DELETE FROM cart_custom_discounts WHERE cart_id = ? AND item_id IS NULL').run(
        cartId,
      );
    }
  }

  const listSpec = standardListSpec();

  /** The customer an order is for: the one named by id (its record), a guest, or the token's. */
  function orderCustomer(
    request: FastifyRequest,
    named: CheckoutInput['customer'],
  ): { id: string | null; name: string; email: string } {
    const signedIn = request.customer?.id ?? null;
    if (named !== null && 'name' in named) return { id: signedIn, ...named };
    const id = named?.id ?? signedIn;
    if (signedIn !== null && id !== signedIn) {
      throw forbidden('With a customer token, checkout is made as that customer only.');
    }
    // A guest's token naming a customer would link the order to them and answer with their
    // name and email: only the store's token, or that customer's own token, may.
    if (signedIn === null && request.store.grant !== 'client_credentials') {
      throw forbidden(
        'An implicit token checks out as a guest (data.customer {email, name}); to check out as a customer, send their X-Moltin-Customer-Token.',
      );
    }
    const row = db
      .prepare('SELECT id, name, email FROM customers WHERE store_id = ? AND id = ?')
      .get(request.store.id, id) as { id: string; name: string; email: string } | undefined;
    if (!row) throw badRequest(`No customer with id ${id} in this store.`, 'data.customer.id');
    return row;
  }

  return async (app) => {
    // Every route with a cart id first checks that this caller may use that cart.
    app.addHook('preHandler', async (request) => {
      const cartId = (request.params as { cartId?: unknown } | undefined)?.cartId;
      if (typeof cartId === 'string') checkCartAccess(db, request, cartId);
    });

    // A customer's carts (production's "get customer carts"): with a customer token, theirs;
    // without one, a client_credentials token lists every cart of the store (an implicit token
    // without one never gets here: scopes.ts).
    app.get('/carts', async (request) =>
      listResources({
        request,
        db,
        table: 'carts',
        columns: 'id',
        scope: request.customer
          ? { store_id: request.store.id, customer_id: request.customer.id }
          : { store_id: request.store.id },
        spec: listSpec,
        // Cart-level discounts inline, as items carry theirs: one object per cart, no `included`.
        map: (row: { id: string }) => {
          const state = loadCart(db, request.store.id, row.id);
          return {
            ...presentCart(state),
            custom_discounts: state.discounts
              .filter((d) => d.item_id === null)
              .map((d) => presentDiscount(d, state.cart.currency)),
          };
        },
      }),
    );

    app.post('/carts', async (request, reply) => {
      const data = requireData(request.body);
      if (data.type !== undefined && data.type !== 'cart') {
        throw badRequest('data.type, when given, must be "cart".', 'data.type');
      }
      const name = requireText(data, 'name');
      const description = optionalText(data, 'description') ?? '';
      let enabled = request.store.settings.customDiscountsEnabled;
      if (data.discount_settings !== undefined) {
        if (!isObject(data.discount_settings)) {
          throw badRequest('data.discount_settings must be an object.', 'data.discount_settings');
        }
        const flag = data.discount_settings.custom_discounts_enabled;
        if (flag !== undefined) {
          if (typeof flag !== 'boolean') {
            throw badRequest(
              'data.discount_settings.custom_discounts_enabled must be a boolean.',
              'data.discount_settings.custom_discounts_enabled',
            );
          }
          enabled = flag;
        }
      }
      const header = request.headers['x-moltin-currency'];
      let currency = DEFAULT_CURRENCY;
      if (header !== undefined) {
        if (typeof header !== 'string' || !CURRENCY.test(header)) {
          throw badRequest(
            'X-MOLTIN-CURRENCY must be a 3-letter currency code.',
            'X-MOLTIN-CURRENCY',
          );
        }
        currency = header.toUpperCase();
      }
      const id = newId();
      const now = ctx.timestamp();
      insertCart.run({
        id,
        store_id: request.store.id,
        name,
        description,
        currency,
        enabled: enabled ? 1 : 0,
        customer_id: request.customer?.id ?? null,
        now,
      });
      reply.code(201);
      return { data: presentCart(loadCart(db, request.store.id, id)) };
    });

    app.get<{ Params: CartParams; Querystring: { include?: unknown } }>(
      '/carts/:cartId',
      async (request) => {
        const include = parseInclude(request.query.include);
        const state = loadCart(db, request.store.id, request.params.cartId);
        const included: Record<string, unknown[]> = {};
        if (include.has('items')) {
          included.items = presentAllItems(state);
        }
        if (include.has('custom_discounts')) {
          included.custom_discounts = state.discounts
            .filter((d) => d.item_id === null)
            .map((d) => presentDiscount(d, state.cart.currency));
        }
        return include.size > 0
          ? { data: presentCart(state), included }
          : { data: presentCart(state) };
      },
    );

    app.put<{ Params: CartParams }>('/carts/:cartId', async (request) => {
      const data = requireData(request.body);
      return tx(() => {
        const state = loadCart(db, request.store.id, request.params.cartId);
        const name = data.name === undefined ? state.cart.name : requireText(data, 'name');
        const description = optionalText(data, 'description') ?? state.cart.description;
        let enabled = state.cart.custom_discounts_enabled;
        if (data.discount_settings !== undefined) {
          const flag = isObject(data.discount_settings)
            ? data.discount_settings.custom_discounts_enabled
            : undefined;
          if (typeof flag !== 'boolean') {
            throw badRequest(
              'data.discount_settings.custom_discounts_enabled must be a boolean.',
              'data.discount_settings.custom_discounts_enabled',
            );
          }
          enabled = flag ? 1 : 0;
        }
        db.prepare(
          `UPDATE carts SET name = ?, description = ?, custom_discounts_enabled = ?, updated_at = ?
           WHERE id = ?`,
        ).run(name, description, enabled, ctx.timestamp(), state.cart.id);
        if (enabled === 0) {
          // A cart without custom discounts has none: turning them off removes them, rather
          // than leaving discounts that apply but can no longer be changed.
          db.prepare('DELETE FROM cart_custom_discounts WHERE cart_id = ?').run(state.cart.id);
        }
        return { data: presentCart(loadCart(db, request.store.id, state.cart.id)) };
      });
    });

    app.delete<{ Params: CartParams }>('/carts/:cartId', async (request, reply) => {
      const state = loadCart(db, request.store.id, request.params.cartId);
      db.prepare('DELETE FROM carts WHERE id = ?').run(state.cart.id);
      return reply.code(204).send();
    });

    // Items ---------------------------------------------------------------------------------

    app.get<{ Params: CartParams }>('/carts/:cartId/items', async (request) =>
      presentItems(loadCart(db, request.store.id, request.params.cartId)),
    );

    app.post<{ Params: CartParams }>('/carts/:cartId/items', async (request, reply) => {
      const input = parseCustomItem(request.body);
      const result = tx(() => {
        const state = loadCart(db, request.store.id, request.params.cartId);
        const now = ctx.timestamp();
        const id = newId();
        const item: ItemRow = {
          id,
          cart_id: state.cart.id,
          name: input.name,
          sku: input.sku,
          description: input.description,
          quantity: input.quantity,
          unit_amount: input.amount,
          includes_tax: input.includesTax ? 1 : 0,
          created_at: now,
          updated_at: now,
        };
        judgeCartTotals(
          { ...state, items: [...state.items, item] },
          'data.quantity',
          'Adding this item',
        );
        insertItem.run({
          id,
          store_id: request.store.id,
          cart_id: state.cart.id,
          name: input.name,
          sku: input.sku,
          description: input.description,
          quantity: input.quantity,
          amount: input.amount,
          includes_tax: input.includesTax ? 1 : 0,
          now,
        });
        touchCart(db, state.cart.id, now);
        return presentItems(loadCart(db, request.store.id, state.cart.id));
      });
      reply.code(201);
      return result;
    });

    app.delete<{ Params: CartParams }>('/carts/:cartId/items', async (request) =>
      tx(() => {
        const state = loadCart(db, request.store.id, request.params.cartId);
        db.prepare('DELETE FROM cart_items WHERE cart_id = ?').run(state.cart.id);
        dropCartDiscountsIfEmpty(state.cart.id);
        touchCart(db, state.cart.id, ctx.timestamp());
        return presentItems(loadCart(db, request.store.id, state.cart.id));
      }),
    );

    app.put<{ Params: ItemParams }>('/carts/:cartId/items/:itemId', async (request) => {
      const data = requireData(request.body);
      if (data.type !== undefined && data.type !== 'custom_item' && data.type !== 'cart_item') {
        throw badRequest(
          'data.type, when given, must be "custom_item" or "cart_item".',
          'data.type',
        );
      }
      // Quantity 0 removes the item, as in the production API.
      const quantity = requireQuantity(data, 0);
      return tx(() => {
        const state = loadCart(db, request.store.id, request.params.cartId);
        const item = findItem(state, request.params.itemId);
        const now = ctx.timestamp();
        if (quantity === 0) {
          db.prepare('DELETE FROM cart_items WHERE id = ?').run(item.id);
          dropCartDiscountsIfEmpty(state.cart.id);
        } else {
          const items = state.items.map((i) => (i === item ? { ...i, quantity } : i));
          judgeCartTotals({ ...state, items }, 'data.quantity', 'This quantity');
          db.prepare('UPDATE cart_items SET quantity = ?, updated_at = ? WHERE id = ?').run(
            quantity,
            now,
            item.id,
          );
        }
        touchCart(db, state.cart.id, now);
        return presentItems(loadCart(db, request.store.id, state.cart.id));
      });
    });

    app.delete<{ Params: ItemParams }>('/carts/:cartId/items/:itemId', async (request) =>
      tx(() => {
        const state = loadCart(db, request.store.id, request.params.cartId);
        const item = findItem(state, request.params.itemId);
        db.prepare('DELETE FROM cart_items WHERE id = ?').run(item.id);
        dropCartDiscountsIfEmpty(state.cart.id);
        touchCart(db, state.cart.id, ctx.timestamp());
        return presentItems(loadCart(db, request.store.id, state.cart.id));
      }),
    );

    // Custom discounts ----------------------------------------------------------------------

    app.post<{ Params: CartParams }>('/carts/:cartId/custom-discounts', async (request, reply) => {
      const result = addDiscount(request.store.id, request.params.cartId, null, request.body);
      reply.code(201);
      return { data: result };
    });
    app.put<{ Params: CartDiscountParams }>(
      '/carts/:cartId/custom-discounts/:discountId',
      async (request) => {
        const { cartId, discountId } = request.params;
        return {
          data: changeDiscount(request.store.id, cartId, null, discountId, request.body),
        };
      },
    );
    app.delete<{ Params: CartDiscountParams }>(
      '/carts/:cartId/custom-discounts/:discountId',
      async (request, reply) => {
        const { cartId, discountId } = request.params;
        removeDiscount(request.store.id, cartId, null, discountId);
        return reply.code(204).send();
      },
    );

    // The official JS SDK posts to `…/items/{itemID}//custom-discounts`: the router's
    // ignoreDuplicateSlashes (app.ts) sends that here too.
    app.post<{ Params: ItemParams }>(
      '/carts/:cartId/items/:itemId/custom-discounts',
      async (request, reply) => {
        const { cartId, itemId } = request.params;
        const result = addDiscount(request.store.id, cartId, itemId, request.body);
        reply.code(201);
        return { data: result };
      },
    );
    app.put<{ Params: ItemDiscountParams }>(
      '/carts/:cartId/items/:itemId/custom-discounts/:discountId',
      async (request) => {
        const { cartId, itemId, discountId } = request.params;
        return {
          data: changeDiscount(request.store.id, cartId, itemId, discountId, request.body),
        };
      },
    );
    app.delete<{ Params: ItemDiscountParams }>(
      '/carts/:cartId/items/:itemId/custom-discounts/:discountId',
      async (request, reply) => {
        const { cartId, itemId, discountId } = request.params;
        removeDiscount(request.store.id, cartId, itemId, discountId);
        return reply.code(204).send();
      },
    );

    // Checkout ------------------------------------------------------------------------------

    app.post<{ Params: CartParams }>('/carts/:cartId/checkout', async (request, reply) => {
      const input = parseCheckout(request.body, request.customer !== null);
      const body = tx(() => {
        const customer = orderCustomer(request, input.customer);
        const state = loadCart(db, request.store.id, request.params.cartId);
        if (state.items.length === 0) {
          throw badRequest('The cart is empty: add an item before checking out.', 'cart');
        }
        // A cart written before amounts were bounded may hold more than an order can show.
        judgeCartItems(state);
        judgeCartTotals(state, 'cart', 'Checking out this cart');
        const totals = totalsOf(state);
        const id = newId();
        const now = ctx.timestamp();
        const currency = state.cart.currency;
        insertOrder.run({
          id,
          store_id: request.store.id,
          cart_id: state.cart.id,
          customer_name: customer.name,
          customer_email: customer.email,
          customer_id: customer.id,
          billing_address: JSON.stringify(input.billingAddress),
          shipping_address: JSON.stringify(input.shippingAddress ?? input.billingAddress),
          currency,
          with_tax: totals.total,
          without_discount: totals.withoutDiscount,
          discount: totals.discount,
          now,
        });
        state.items.forEach((item, index) => {
          insertOrderItem.run({
            id: newId(),
            store_id: request.store.id,
            order_id: id,
            name: item.name,
            sku: item.sku,
            quantity: item.quantity,
            unit_amount: item.unit_amount,
            discount: totals.items[index]?.discount ?? 0,
            currency,
            now,
          });
        });
        // Rendered once, now that the order and its items are written; reads serve the text.
        return storeCheckedOutOrder(db, id);
      });
      reply.code(201).type(JSON_CONTENT_TYPE);
      return body;
    });
  };
}
