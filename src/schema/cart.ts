/**
 * Cart, its items, their custom discounts (seed endpoint 2) and totals, plus Money. The cart and
 * its items are two upstream GETs (`/carts/{id}` and `/carts/{id}/items`); the items call is made
 * only when a query selects items.
 */

import {
  expectResource,
  isJsonObject,
  type JsonObject,
  type UpstreamRequest,
} from '../upstream/client.ts';
import { BadUserInputError, UpstreamUnavailableError } from '../upstream/errors.ts';
import type { GatewayContext } from '../upstream/session.ts';
import { builder } from './builder.ts';
import { defineListArgs, type Listed } from './connection.ts';
import { nullWhenNotFound } from './lookups.ts';
import {
  judgeCartId,
  judgeNonEmpty,
  judgeUuid,
  MAX_AMOUNT,
  type MoneyShape,
  readInt,
  readMoney,
  readObject,
  readOptionalString,
  readString,
  readTimestamps,
} from './rows.ts';

export const MoneyRef = builder.objectRef<MoneyShape>('Money').implement({
  description: 'An amount of money in minor units (cents), with its currency.',
  fields: (t) => ({
    amount: t.exposeInt('amount', {
      description: 'Amount in minor units of the currency (e.g. -1000 = -$10.00).',
    }),
    currency: t.exposeString('currency', { description: 'ISO 4217 currency code.' }),
    formatted: t.exposeString('formatted', { description: 'Display form, e.g. "-$10.00".' }),
  }),
});

export interface CustomDiscountShape {
  id: string;
  type: string;
  amount: MoneyShape;
  description: string;
  discountCode: string;
  discountEngine: string;
  externalId: string;
}

export function toCustomDiscount(row: JsonObject): CustomDiscountShape {
  return {
    id: readString(row, 'id', 'custom_discount'),
    type: readString(row, 'type', 'custom_discount'),
    amount: readMoney(row.amount, 'custom_discount.amount'),
    description: readString(row, 'description', 'custom_discount'),
    discountCode: readString(row, 'discount_code', 'custom_discount'),
    discountEngine: readString(row, 'discount_engine', 'custom_discount'),
    externalId: readString(row, 'external_id', 'custom_discount'),
  };
}

export const CustomDiscountRef = builder.objectRef<CustomDiscountShape>('CustomDiscount');
CustomDiscountRef.implement({
  description: 'A discount on a cart item applied from an external discount engine.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Upstream id of the custom discount (uuid).' }),
    type: t.exposeString('type', { description: 'Always `custom_discount`.' }),
    amount: t.expose('amount', {
      type: MoneyRef,
      description: 'The discount (negative), in the cart’s currency.',
    }),
    description: t.exposeString('description', { description: 'What the discount is.' }),
    discountCode: t.exposeString('discountCode', { description: 'The code that was used.' }),
    discountEngine: t.exposeString('discountEngine', {
      description: 'The system the discount comes from.',
    }),
    externalId: t.exposeString('externalId', {
      description: 'The discount’s id in that system.',
    }),
  }),
});

export interface CartTotalsShape {
  withTax: MoneyShape;
  withoutTax: MoneyShape;
  tax: MoneyShape | null;
  discount: MoneyShape;
  withoutDiscount: MoneyShape;
}

export function toTotals(
  displayPrice: JsonObject,
  type: string,
  pick?: 'unit' | 'value',
): CartTotalsShape {
  const read = (key: string) => {
    const value = displayPrice[key];
    return readMoney(pick && isJsonObject(value) ? value[pick] : value, `${type}.${key}`);
  };
  return {
    withTax: read('with_tax'),
    withoutTax: read('without_tax'),
    tax: displayPrice.tax === undefined ? null : read('tax'),
    discount: read('discount'),
    withoutDiscount: read('without_discount'),
  };
}

export const CartTotalsRef = builder.objectRef<CartTotalsShape>('CartTotals').implement({
  description: 'Totals with every discount applied (upstream `meta.display_price`).',
  fields: (t) => ({
    withTax: t.expose('withTax', { type: MoneyRef, description: 'Total including tax.' }),
    withoutTax: t.expose('withoutTax', { type: MoneyRef, description: 'Total before tax.' }),
    tax: t.expose('tax', { type: MoneyRef, nullable: true, description: 'Tax, when reported.' }),
    discount: t.expose('discount', {
      type: MoneyRef,
      description: 'All applied discounts (zero or negative).',
    }),
    withoutDiscount: t.expose('withoutDiscount', {
      type: MoneyRef,
      description: 'Total before any discount.',
    }),
  }),
});

export interface CartItemShape {
  id: string;
  type: string;
  name: string;
  sku: string | null;
  description: string | null;
  quantity: number;
  unitTotals: CartTotalsShape;
  lineTotals: CartTotalsShape;
  customDiscounts: CustomDiscountShape[];
}

/**
 * An item's (or the cart's) discounts: inline `custom_discounts` (the embedded service) or, as the production
 * API returns them with `include=custom_discounts`, referenced from `included`.
 */
function itemDiscounts(row: JsonObject, included: Map<string, JsonObject>): CustomDiscountShape[] {
  if (Array.isArray(row.custom_discounts)) {
    return row.custom_discounts.map((d) => {
      if (!isJsonObject(d)) throw invalid('cart_item.custom_discounts');
      return toCustomDiscount(d);
    });
  }
  const relationships = isJsonObject(row.relationships) ? row.relationships : {};
  const related = isJsonObject(relationships.custom_discounts)
    ? relationships.custom_discounts.data
    : undefined;
  if (!Array.isArray(related)) return [];
  return related.map((ref) => {
    const id = isJsonObject(ref) ? ref.id : undefined;
    const found = typeof id === 'string' ? included.get(id) : undefined;
    if (found === undefined) throw invalid('cart_item.custom_discounts reference');
    return toCustomDiscount(found);
  });
}

function invalid(what: string): UpstreamUnavailableError {
  return new UpstreamUnavailableError(`The commerce service sent an unusable answer (${what})`, {
    reason: 'invalid-body',
  });
}

function toCartItem(row: JsonObject, included: Map<string, JsonObject>): CartItemShape {
  const displayPrice = readObject(readObject(row, 'meta', 'cart_item'), 'display_price', 'item');
  return {
    id: readString(row, 'id', 'cart_item'),
    type: readString(row, 'type', 'cart_item'),
    name: readString(row, 'name', 'cart_item'),
    sku: readOptionalString(row, 'sku'),
    description: readOptionalString(row, 'description'),
    quantity: readInt(row, 'quantity', 'cart_item'),
    unitTotals: toTotals(displayPrice, 'cart_item.display_price', 'unit'),
    lineTotals: toTotals(displayPrice, 'cart_item.display_price', 'value'),
    customDiscounts: itemDiscounts(row, included),
  };
}

const CartItemRef = builder.objectRef<CartItemShape>('CartItem').implement({
  description: 'A line of a cart.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Upstream id of the item; pass it as `cartItemId`.' }),
    type: t.exposeString('type', { description: 'Item kind, e.g. `custom_item`.' }),
    name: t.exposeString('name', { description: 'Item name.' }),
    sku: t.exposeString('sku', { nullable: true, description: 'Stock keeping unit.' }),
    description: t.exposeString('description', {
      nullable: true,
      description: 'Item description.',
    }),
    quantity: t.exposeInt('quantity', { description: 'Units in the cart.' }),
    unitPrice: t.expose('unitTotals', {
      type: CartTotalsRef,
      description: 'Prices of one unit, with its share of the item discounts.',
    }),
    totals: t.expose('lineTotals', {
      type: CartTotalsRef,
      description: 'Prices of the whole line (unit price × quantity, discounts applied).',
    }),
    customDiscounts: t.expose('customDiscounts', {
      type: [CustomDiscountRef],
      description: 'Custom discounts on this item.',
    }),
  }),
});

export interface CartShape {
  upstreamId: string;
  customDiscounts: CustomDiscountShape[];
  name: string | null;
  description: string | null;
  customDiscountsEnabled: boolean | null;
  totals: CartTotalsShape;
  createdAt: string | null;
  updatedAt: string | null;
  /** Items already in hand (an item write answers with all of them); else `items` GETs them. */
  preloadedItems?: CartItemShape[];
}

function toCart(row: JsonObject, included: Map<string, JsonObject>): CartShape {
  const meta = readObject(row, 'meta', 'cart');
  const settings = isJsonObject(row.discount_settings) ? row.discount_settings : {};
  const hasTimestamps = isJsonObject(meta.timestamps);
  const timestamps = hasTimestamps ? readTimestamps(row, 'cart') : null;
  return {
    upstreamId: readString(row, 'id', 'cart'),
    customDiscounts: itemDiscounts(row, included),
    name: readOptionalString(row, 'name'),
    description: readOptionalString(row, 'description'),
    customDiscountsEnabled:
      typeof settings.custom_discounts_enabled === 'boolean'
        ? settings.custom_discounts_enabled
        : null,
    totals: toTotals(readObject(meta, 'display_price', 'cart.meta'), 'cart.display_price'),
    createdAt: timestamps?.createdAt ?? null,
    updatedAt: timestamps?.updatedAt ?? null,
  };
}

/** `included.custom_discounts` of a response, by id. */
function includedDiscounts(body: unknown): Map<string, JsonObject> {
  const included = new Map<string, JsonObject>();
  const extra =
    isJsonObject(body) && isJsonObject(body.included) ? body.included.custom_discounts : undefined;
  if (Array.isArray(extra)) {
    for (const d of extra) if (isJsonObject(d) && typeof d.id === 'string') included.set(d.id, d);
  }
  return included;
}

async function fetchCart(context: GatewayContext, cartId: string): Promise<CartShape> {
  const response = await context.get(['carts', cartId], { include: 'custom_discounts' });
  return toCart(expectResource(response), includedDiscounts(response.body));
}

async function fetchCartItems(context: GatewayContext, cartId: string): Promise<CartItemShape[]> {
  const response = await context.get(['carts', cartId, 'items'], {
    include: 'custom_discounts',
  });
  return toCartItems(response.body);
}

/** The body of `/carts/{id}/items` (also what every item write answers with) as items. */
function toCartItems(body: unknown): CartItemShape[] {
  if (!isJsonObject(body) || !Array.isArray(body.data)) throw invalid('cart items');
  const included = includedDiscounts(body);
  return body.data.map((row) => {
    if (!isJsonObject(row)) throw invalid('cart item');
    return toCartItem(row, included);
  });
}

export const CartRef = builder.objectRef<CartShape>('Cart');

builder.node(CartRef, {
  description: 'A shopping cart with its items, their custom discounts and the totals.',
  id: { resolve: (cart) => cart.upstreamId },
  loadOne: (id, context) => nullWhenNotFound(fetchCart(context, judgeCartId(id, 'id'))),
  fields: (t) => ({
    upstreamId: t.exposeID('upstreamId', {
      description: 'The cart id upstream; pass it as `cartId`.',
    }),
    name: t.exposeString('name', { nullable: true, description: 'Cart name.' }),
    description: t.exposeString('description', {
      nullable: true,
      description: 'Cart description.',
    }),
    customDiscountsEnabled: t.exposeBoolean('customDiscountsEnabled', {
      nullable: true,
      description: 'Whether custom discounts may be applied to this cart.',
    }),
    totals: t.expose('totals', {
      type: CartTotalsRef,
      description: 'Cart totals with every discount applied.',
    }),
    createdAt: t.expose('createdAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Creation time.',
    }),
    updatedAt: t.expose('updatedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Last update time.',
    }),
    customDiscounts: t.expose('customDiscounts', {
      type: [CustomDiscountRef],
      description: 'Custom discounts on the whole cart (item discounts are on each item).',
    }),
    items: t.field({
      type: [CartItemRef],
      description: 'The items of the cart with their custom discounts (one more upstream GET).',
      resolve: (cart, _args, context) =>
        cart.preloadedItems ?? fetchCartItems(context, cart.upstreamId),
    }),
  }),
});

builder.queryField('cart', (t) =>
  t.field({
    type: CartRef,
    nullable: true,
    description: 'One cart by id; null when the store has no such cart.',
    args: { id: t.arg.id({ required: true, description: 'The cart id upstream.' }) },
    resolve: (_root, args, context) =>
      nullWhenNotFound(fetchCart(context, judgeCartId(args.id, 'id'))),
  }),
);

const UpdateCustomDiscountInput = builder.inputType('UpdateCartItemCustomDiscountInput', {
  description: 'New values of a custom discount on a cart item; every field is required.',
  fields: (t) => ({
    cartId: t.id({ required: true, description: 'The cart id upstream.' }),
    cartItemId: t.id({ required: true, description: 'Upstream id of the cart item.' }),
    customDiscountId: t.id({ required: true, description: 'Upstream id of the discount.' }),
    amount: t.int({
      required: true,
      description: 'The discount in minor units of the cart’s currency; must be below zero.',
    }),
    description: t.string({ required: true, description: 'What the discount is.' }),
    discountCode: t.string({ required: true, description: 'The code that was used.' }),
    discountEngine: t.string({
      required: true,
      description: 'The system the discount is applied from.',
    }),
    externalId: t.string({ required: true, description: 'The discount’s id in that system.' }),
  }),
});

const UpdateCustomDiscountPayload = discountPayload(
  'UpdateCartItemCustomDiscountPayload',
  'The custom discount after the update, and the cart it changed.',
);

builder.mutationField('updateCartItemCustomDiscount', (t) =>
  t.field({
    type: UpdateCustomDiscountPayload,
    description:
      'Replaces a custom discount on a cart item (PUT /v2/carts/{cartID}/items/{cartitemID}/' +
      'custom-discounts/{customdiscountID}).',
    args: {
      input: t.arg({ type: UpdateCustomDiscountInput, required: true, description: 'The change.' }),
    },
    resolve: async (_root, { input }, context) => {
      const cartId = judgeCartId(input.cartId, 'input.cartId');
      const itemId = judgeUuid(input.cartItemId, 'input.cartItemId');
      const discountId = judgeUuid(input.customDiscountId, 'input.customDiscountId');
      const data = {
        type: 'custom_discount',
        amount: judgeDiscountAmount(input.amount, 'input.amount'),
        description: judgeNonEmpty(input.description, 'input.description'),
        discount_code: judgeNonEmpty(input.discountCode, 'input.discountCode'),
        discount_engine: judgeNonEmpty(input.discountEngine, 'input.discountEngine'),
        external_id: judgeNonEmpty(input.externalId, 'input.externalId'),
      };
      const response = await context.write({
        method: 'PUT',
        segments: ['carts', cartId, 'items', itemId, 'custom-discounts', discountId],
        body: { data },
      });
      return { cartId, customDiscount: () => toCustomDiscount(expectResource(response)) };
    },
  }),
);

// ---- the storefront's cart journey: create, items, discounts, delete (checkout: order.ts) ----

/** A cart in a list (`GET /v2/carts`): the connection needs its timestamps. */
export function toListedCart(row: JsonObject): CartShape & Listed {
  return { ...toCart(row, new Map()), ...readTimestamps(row, 'cart') };
}

export const CartConnection = builder.connectionObject(
  { type: CartRef, name: 'CartConnection', description: 'A page of carts.' },
  { name: 'CartEdge', description: 'One of the carts with its cursor.' },
);
export const cartListArgs = defineListArgs('Cart', 'carts');

/** Largest quantity of one line the gateway passes on (the embedded service's bound too). */
export const MAX_QUANTITY = 1_000_000;
const CURRENCY = /^[A-Za-z]{3}$/;

function judgeQuantity(value: number, field: string, min: number): number {
  if (!Number.isInteger(value) || value < min || value > MAX_QUANTITY) {
    throw new BadUserInputError(`${field} must be an integer from ${min} to ${MAX_QUANTITY}`, {
      field,
    });
  }
  return value;
}

function judgeDiscountAmount(value: number, field: string): number {
  if (!Number.isInteger(value) || value >= 0 || value < -MAX_AMOUNT) {
    throw new BadUserInputError(
      `${field} must be an integer number of minor units from -${MAX_AMOUNT} to -1 (a discount)`,
      { field },
    );
  }
  return value;
}

function judgeOptional(value: string | null | undefined, field: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (value.length > 255) {
    throw new BadUserInputError(`${field} must be at most 255 characters`, { field });
  }
  return value;
}

/**
 * What a cart write hands to its payload: the cart is read after the write, lazily, and what
 * the write answered is turned into shapes by the payload's fields, never by the mutation's
 * resolver. Once the write is done nothing may fail the mutation itself: a payload field that
 * cannot be built is null with a WRITE_COMMITTED error (src/gateway/committed-writes.ts).
 */
interface CartChange {
  cartId: string;
  /** The body of an item write (every item of the cart), for the cart's `items`. */
  itemsBody?: unknown;
}

async function changedCart(context: GatewayContext, change: CartChange): Promise<CartShape> {
  const cart = await fetchCart(context, change.cartId);
  return change.itemsBody === undefined
    ? cart
    : { ...cart, preloadedItems: toCartItems(change.itemsBody) };
}

const CART_AFTER_WRITE =
  'The cart after the change, totals with every discount applied (read after the write; one ' +
  'upstream GET, made only when selected). Null, with a WRITE_COMMITTED error, when the write ' +
  'happened but the cart could not be read: do not repeat the write.';

function cartPayload(name: string, description: string) {
  return builder.objectRef<CartChange>(name).implement({
    description,
    fields: (t) => ({
      cart: t.field({
        type: CartRef,
        nullable: true,
        description: CART_AFTER_WRITE,
        resolve: (change, _args, context) => changedCart(context, change),
      }),
    }),
  });
}

interface DiscountChange extends CartChange {
  customDiscount: () => CustomDiscountShape;
}

function discountPayload(name: string, description: string) {
  return builder.objectRef<DiscountChange>(name).implement({
    description,
    fields: (t) => ({
      customDiscount: t.field({
        type: CustomDiscountRef,
        nullable: true,
        description:
          'The discount as stored, its amount as amount, currency and formatted (null, with a ' +
          'WRITE_COMMITTED error, when the write happened but its answer was unusable).',
        resolve: (change) => change.customDiscount(),
      }),
      cart: t.field({
        type: CartRef,
        nullable: true,
        description: CART_AFTER_WRITE,
        resolve: (change, _args, context) => changedCart(context, change),
      }),
    }),
  });
}

interface DeletedDiscount extends CartChange {
  deletedCustomDiscountId: string;
}

function deletedDiscountPayload(name: string, description: string) {
  return builder.objectRef<DeletedDiscount>(name).implement({
    description,
    fields: (t) => ({
      deletedCustomDiscountId: t.exposeID('deletedCustomDiscountId', {
        description: 'Upstream id of the discount that was removed.',
      }),
      cart: t.field({
        type: CartRef,
        nullable: true,
        description: CART_AFTER_WRITE,
        resolve: (change, _args, context) => changedCart(context, change),
      }),
    }),
  });
}

interface DiscountInput {
  amount: number;
  description: string;
  discountCode: string;
  discountEngine: string;
  externalId: string;
}

/** The v2 body of a custom discount, every field judged before any call. */
function discountBody(input: DiscountInput) {
  return {
    data: {
      type: 'custom_discount',
      amount: judgeDiscountAmount(input.amount, 'input.amount'),
      description: judgeNonEmpty(input.description, 'input.description'),
      discount_code: judgeNonEmpty(input.discountCode, 'input.discountCode'),
      discount_engine: judgeNonEmpty(input.discountEngine, 'input.discountEngine'),
      external_id: judgeNonEmpty(input.externalId, 'input.externalId'),
    },
  };
}

type InputFieldBuilder = Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0];

/** The five fields every custom discount write takes, all required (the seed's rule). */
const discountInputFields = (t: InputFieldBuilder) => ({
  amount: t.int({
    required: true,
    description: 'The discount in minor units of the cart’s currency; must be below zero.',
  }),
  description: t.string({ required: true, description: 'What the discount is.' }),
  discountCode: t.string({ required: true, description: 'The code that was used.' }),
  discountEngine: t.string({
    required: true,
    description: 'The system the discount is applied from.',
  }),
  externalId: t.string({ required: true, description: 'The discount’s id in that system.' }),
});

// createCart ----------------------------------------------------------------------------------

const CreateCartInput = builder.inputType('CreateCartInput', {
  description: 'A new cart. With a customer token (X-Moltin-Customer-Token) it is theirs.',
  fields: (t) => ({
    name: t.string({ required: true, description: 'Cart name.' }),
    description: t.string({ required: false, description: 'Cart description.' }),
    customDiscountsEnabled: t.boolean({
      required: false,
      description: 'Whether custom discounts may be applied; default: the store’s cart setting.',
    }),
    currency: t.string({
      required: false,
      description:
        'ISO 4217 code, sent as the v2 currency header (X-Moltin-Currency); default the store’s.',
    }),
  }),
});

const CreateCartPayload = builder
  .objectRef<{ cart: () => CartShape }>('CreateCartPayload')
  .implement({
    description: 'The cart that was created.',
    fields: (t) => ({
      cart: t.field({
        type: CartRef,
        nullable: true,
        description:
          'The new cart (empty, totals zero); null, with a WRITE_COMMITTED error, when it was ' +
          'created but the answer was unusable.',
        resolve: (payload) => payload.cart(),
      }),
    }),
  });

builder.mutationField('createCart', (t) =>
  t.field({
    type: CreateCartPayload,
    description: 'Creates a cart (POST /v2/carts).',
    args: { input: t.arg({ type: CreateCartInput, required: true, description: 'The cart.' }) },
    resolve: async (_root, { input }, context) => {
      const currency = input.currency ?? undefined;
      if (currency !== undefined && !CURRENCY.test(currency)) {
        throw new BadUserInputError('input.currency must be a 3-letter ISO 4217 code', {
          field: 'input.currency',
        });
      }
      const data: JsonObject = {
        type: 'cart',
        name: judgeNonEmpty(input.name, 'input.name'),
      };
      const description = judgeOptional(input.description, 'input.description');
      if (description !== undefined) data.description = description;
      if (input.customDiscountsEnabled !== null && input.customDiscountsEnabled !== undefined) {
        data.discount_settings = { custom_discounts_enabled: input.customDiscountsEnabled };
      }
      const response = await context.write({
        method: 'POST',
        segments: ['carts'],
        body: { data },
        ...(currency ? { headers: { 'x-moltin-currency': currency.toUpperCase() } } : {}),
      });
      return { cart: () => toCart(expectResource(response), new Map()) };
    },
  }),
);

// items ---------------------------------------------------------------------------------------

const CustomItemPriceInput = builder.inputType('CustomItemPriceInput', {
  description: 'The unit price of a custom item.',
  fields: (t) => ({
    amount: t.int({
      required: true,
      description: 'Unit price in minor units of the cart’s currency (0 or more).',
    }),
    includesTax: t.boolean({
      required: false,
      description: 'Whether the amount includes tax. Default true.',
    }),
  }),
});

const AddCartCustomItemInput = builder.inputType('AddCartCustomItemInput', {
  description: 'A custom item (not from a catalog) to add to a cart.',
  fields: (t) => ({
    cartId: t.id({ required: true, description: 'The cart id upstream.' }),
    name: t.string({ required: true, description: 'Item name.' }),
    sku: t.string({ required: true, description: 'Stock keeping unit.' }),
    description: t.string({ required: false, description: 'Item description.' }),
    quantity: t.int({ required: true, description: `Units, 1 to ${MAX_QUANTITY}.` }),
    price: t.field({ type: CustomItemPriceInput, required: true, description: 'Unit price.' }),
  }),
});

const AddCartCustomItemPayload = cartPayload(
  'AddCartCustomItemPayload',
  'The cart with the new item.',
);

/** An item write: its answer is every item of the cart, kept for the payload's cart. */
async function writeItems(
  context: GatewayContext,
  cartId: string,
  request: UpstreamRequest,
): Promise<CartChange> {
  const response = await context.write(request);
  return { cartId, itemsBody: response.body };
}

builder.mutationField('addCartCustomItem', (t) =>
  t.field({
    type: AddCartCustomItemPayload,
    description: 'Adds a custom item to a cart (POST /v2/carts/{cartID}/items).',
    args: {
      input: t.arg({ type: AddCartCustomItemInput, required: true, description: 'The item.' }),
    },
    resolve: (_root, { input }, context) => {
      const cartId = judgeCartId(input.cartId, 'input.cartId');
      if (input.price.amount < 0) {
        throw new BadUserInputError('input.price.amount must not be negative', {
          field: 'input.price.amount',
        });
      }
      const quantity = judgeQuantity(input.quantity, 'input.quantity', 1);
      // The line's total must fit Money.amount; the cart's total the upstream judges (it
      // knows the other lines), answering 400 before it writes anything.
      if (input.price.amount * quantity > MAX_AMOUNT) {
        throw new BadUserInputError(
          `input.quantity × input.price.amount is ${input.price.amount * quantity} minor units, ` +
            `above the largest amount (${MAX_AMOUNT})`,
          { field: 'input.quantity' },
        );
      }
      const data: JsonObject = {
        type: 'custom_item',
        name: judgeNonEmpty(input.name, 'input.name'),
        sku: judgeNonEmpty(input.sku, 'input.sku'),
        quantity,
        price: { amount: input.price.amount, includes_tax: input.price.includesTax ?? true },
      };
      const description = judgeOptional(input.description, 'input.description');
      if (description !== undefined) data.description = description;
      return writeItems(context, cartId, {
        method: 'POST',
        segments: ['carts', cartId, 'items'],
        body: { data },
      });
    },
  }),
);

const UpdateCartItemInput = builder.inputType('UpdateCartItemInput', {
  description: 'A new quantity for a cart item; 0 removes it.',
  fields: (t) => ({
    cartId: t.id({ required: true, description: 'The cart id upstream.' }),
    cartItemId: t.id({ required: true, description: 'Upstream id of the cart item.' }),
    quantity: t.int({ required: true, description: `Units, 0 (remove) to ${MAX_QUANTITY}.` }),
  }),
});

const UpdateCartItemPayload = cartPayload('UpdateCartItemPayload', 'The cart after the change.');

builder.mutationField('updateCartItem', (t) =>
  t.field({
    type: UpdateCartItemPayload,
    description: 'Changes the quantity of a cart item (PUT /v2/carts/{cartID}/items/{itemID}).',
    args: {
      input: t.arg({ type: UpdateCartItemInput, required: true, description: 'The change.' }),
    },
    resolve: (_root, { input }, context) => {
      const cartId = judgeCartId(input.cartId, 'input.cartId');
      const itemId = judgeUuid(input.cartItemId, 'input.cartItemId');
      const quantity = judgeQuantity(input.quantity, 'input.quantity', 0);
      return writeItems(context, cartId, {
        method: 'PUT',
        segments: ['carts', cartId, 'items', itemId],
        body: { data: { type: 'cart_item', quantity } },
      });
    },
  }),
);

const RemoveCartItemInput = builder.inputType('RemoveCartItemInput', {
  description: 'The cart item to remove (its custom discounts go with it).',
  fields: (t) => ({
    cartId: t.id({ required: true, description: 'The cart id upstream.' }),
    cartItemId: t.id({ required: true, description: 'Upstream id of the cart item.' }),
  }),
});

const RemoveCartItemPayload = cartPayload('RemoveCartItemPayload', 'The cart without the item.');

builder.mutationField('removeCartItem', (t) =>
  t.field({
    type: RemoveCartItemPayload,
    description: 'Removes an item from a cart (DELETE /v2/carts/{cartID}/items/{itemID}).',
    args: {
      input: t.arg({ type: RemoveCartItemInput, required: true, description: 'The item.' }),
    },
    resolve: (_root, { input }, context) => {
      const cartId = judgeCartId(input.cartId, 'input.cartId');
      const itemId = judgeUuid(input.cartItemId, 'input.cartItemId');
      return writeItems(context, cartId, {
        method: 'DELETE',
        segments: ['carts', cartId, 'items', itemId],
      });
    },
  }),
);

// custom discounts ----------------------------------------------------------------------------

const AddCartItemCustomDiscountInput = builder.inputType('AddCartItemCustomDiscountInput', {
  description:
    'A custom discount for a cart item; every field is required. At most five per item, and ' +
    'only on a cart with custom discounts enabled (the upstream judges those two).',
  fields: (t) => ({
    cartId: t.id({ required: true, description: 'The cart id upstream.' }),
    cartItemId: t.id({ required: true, description: 'Upstream id of the cart item.' }),
    ...discountInputFields(t),
  }),
});

const AddCartItemCustomDiscountPayload = discountPayload(
  'AddCartItemCustomDiscountPayload',
  'The new item discount and the cart it changed.',
);

builder.mutationField('addCartItemCustomDiscount', (t) =>
  t.field({
    type: AddCartItemCustomDiscountPayload,
    description:
      'Adds a custom discount to a cart item (POST /v2/carts/{cartID}/items/{itemID}/custom-discounts).',
    args: {
      input: t.arg({
        type: AddCartItemCustomDiscountInput,
        required: true,
        description: 'The discount.',
      }),
    },
    resolve: async (_root, { input }, context) => {
      const cartId = judgeCartId(input.cartId, 'input.cartId');
      const itemId = judgeUuid(input.cartItemId, 'input.cartItemId');
      const body = discountBody(input);
      const response = await context.write({
        method: 'POST',
        segments: ['carts', cartId, 'items', itemId, 'custom-discounts'],
        body,
      });
      return { cartId, customDiscount: () => toCustomDiscount(expectResource(response)) };
    },
  }),
);

const DeleteCartItemCustomDiscountInput = builder.inputType('DeleteCartItemCustomDiscountInput', {
  description: 'The item discount to remove.',
  fields: (t) => ({
    cartId: t.id({ required: true, description: 'The cart id upstream.' }),
    cartItemId: t.id({ required: true, description: 'Upstream id of the cart item.' }),
    customDiscountId: t.id({ required: true, description: 'Upstream id of the discount.' }),
  }),
});

const DeleteCartItemCustomDiscountPayload = deletedDiscountPayload(
  'DeleteCartItemCustomDiscountPayload',
  'The removed item discount’s id and the cart it changed.',
);

builder.mutationField('deleteCartItemCustomDiscount', (t) =>
  t.field({
    type: DeleteCartItemCustomDiscountPayload,
    description:
      'Removes a custom discount from a cart item (DELETE /v2/carts/{cartID}/items/{itemID}/' +
      'custom-discounts/{id}).',
    args: {
      input: t.arg({
        type: DeleteCartItemCustomDiscountInput,
        required: true,
        description: 'The discount.',
      }),
    },
    resolve: async (_root, { input }, context) => {
      const cartId = judgeCartId(input.cartId, 'input.cartId');
      const itemId = judgeUuid(input.cartItemId, 'input.cartItemId');
      const discountId = judgeUuid(input.customDiscountId, 'input.customDiscountId');
      await context.write({
        method: 'DELETE',
        segments: ['carts', cartId, 'items', itemId, 'custom-discounts', discountId],
      });
      return { cartId, deletedCustomDiscountId: discountId };
    },
  }),
);

const AddCartCustomDiscountInput = builder.inputType('AddCartCustomDiscountInput', {
  description:
    'A custom discount on the whole cart; every field is required. At most five per cart, ' +
    'only on a cart with custom discounts enabled and at least one item (the upstream judges).',
  fields: (t) => ({
    cartId: t.id({ required: true, description: 'The cart id upstream.' }),
    ...discountInputFields(t),
  }),
});

const AddCartCustomDiscountPayload = discountPayload(
  'AddCartCustomDiscountPayload',
  'The new cart discount and the cart it changed.',
);

builder.mutationField('addCartCustomDiscount', (t) =>
  t.field({
    type: AddCartCustomDiscountPayload,
    description: 'Adds a cart-level custom discount (POST /v2/carts/{cartID}/custom-discounts).',
    args: {
      input: t.arg({
        type: AddCartCustomDiscountInput,
        required: true,
        description: 'The discount.',
      }),
    },
    resolve: async (_root, { input }, context) => {
      const cartId = judgeCartId(input.cartId, 'input.cartId');
      const body = discountBody(input);
      const response = await context.write({
        method: 'POST',
        segments: ['carts', cartId, 'custom-discounts'],
        body,
      });
      return { cartId, customDiscount: () => toCustomDiscount(expectResource(response)) };
    },
  }),
);

const UpdateCartCustomDiscountInput = builder.inputType('UpdateCartCustomDiscountInput', {
  description: 'New values of a cart-level custom discount; every field is required.',
  fields: (t) => ({
    cartId: t.id({ required: true, description: 'The cart id upstream.' }),
    customDiscountId: t.id({ required: true, description: 'Upstream id of the discount.' }),
    ...discountInputFields(t),
  }),
});

const UpdateCartCustomDiscountPayload = discountPayload(
  'UpdateCartCustomDiscountPayload',
  'The cart discount after the update and the cart it changed.',
);

builder.mutationField('updateCartCustomDiscount', (t) =>
  t.field({
    type: UpdateCartCustomDiscountPayload,
    description:
      'Replaces a cart-level custom discount (PUT /v2/carts/{cartID}/custom-discounts/{id}).',
    args: {
      input: t.arg({
        type: UpdateCartCustomDiscountInput,
        required: true,
        description: 'The change.',
      }),
    },
    resolve: async (_root, { input }, context) => {
      const cartId = judgeCartId(input.cartId, 'input.cartId');
      const discountId = judgeUuid(input.customDiscountId, 'input.customDiscountId');
      const body = discountBody(input);
      const response = await context.write({
        method: 'PUT',
        segments: ['carts', cartId, 'custom-discounts', discountId],
        body,
      });
      return { cartId, customDiscount: () => toCustomDiscount(expectResource(response)) };
    },
  }),
);

const DeleteCartCustomDiscountInput = builder.inputType('DeleteCartCustomDiscountInput', {
  description: 'The cart-level discount to remove.',
  fields: (t) => ({
    cartId: t.id({ required: true, description: 'The cart id upstream.' }),
    customDiscountId: t.id({ required: true, description: 'Upstream id of the discount.' }),
  }),
});

const DeleteCartCustomDiscountPayload = deletedDiscountPayload(
  'DeleteCartCustomDiscountPayload',
  'The removed cart discount’s id and the cart it changed.',
);

builder.mutationField('deleteCartCustomDiscount', (t) =>
  t.field({
    type: DeleteCartCustomDiscountPayload,
    description:
      'Removes a cart-level custom discount (DELETE /v2/carts/{cartID}/custom-discounts/{id}).',
    args: {
      input: t.arg({
        type: DeleteCartCustomDiscountInput,
        required: true,
        description: 'The discount.',
      }),
    },
    resolve: async (_root, { input }, context) => {
      const cartId = judgeCartId(input.cartId, 'input.cartId');
      const discountId = judgeUuid(input.customDiscountId, 'input.customDiscountId');
      await context.write({
        method: 'DELETE',
        segments: ['carts', cartId, 'custom-discounts', discountId],
      });
      return { cartId, deletedCustomDiscountId: discountId };
    },
  }),
);

// deleteCart ----------------------------------------------------------------------------------

const DeleteCartInput = builder.inputType('DeleteCartInput', {
  description: 'The cart to delete, with its items and discounts.',
  fields: (t) => ({ cartId: t.id({ required: true, description: 'The cart id upstream.' }) }),
});

const DeleteCartPayload = builder
  .objectRef<{ deletedCartId: string }>('DeleteCartPayload')
  .implement({
    description: 'The id of the cart that was deleted.',
    fields: (t) => ({
      deletedCartId: t.exposeID('deletedCartId', { description: 'Upstream id of the cart.' }),
    }),
  });

builder.mutationField('deleteCart', (t) =>
  t.field({
    type: DeleteCartPayload,
    description: 'Deletes a cart (DELETE /v2/carts/{cartID}); its orders stay.',
    args: { input: t.arg({ type: DeleteCartInput, required: true, description: 'The cart.' }) },
    resolve: async (_root, { input }, context) => {
      const cartId = judgeCartId(input.cartId, 'input.cartId');
      await context.write({ method: 'DELETE', segments: ['carts', cartId] });
      return { deletedCartId: cartId };
    },
  }),
);
