/** Order: a checked-out cart (`/v2/orders`), as a node and a connection. */

import { expectResource, isJsonObject, type JsonObject } from '../upstream/client.ts';
import { BadUserInputError, UpstreamUnavailableError } from '../upstream/errors.ts';
import { CUSTOMER_TOKEN_HEADER } from '../upstream/forwarded-headers.ts';
import { forwardedHeaders, type GatewayContext } from '../upstream/session.ts';
import { builder } from './builder.ts';
import { defineListArgs, type Listed, resolveList } from './connection.ts';
import type { EntityDefinition } from './federation.ts';
import { loadById } from './lookups.ts';
import { CartTotalsRef, type CartTotalsShape, MoneyRef, toTotals } from './money.ts';
import {
  judgeCartId,
  judgeNonEmpty,
  judgeUuid,
  readInt,
  readMoney,
  readObject,
  readOptionalString,
  readString,
  readTimestamps,
} from './rows.ts';

export interface OrderShape extends Listed {
  status: string;
  payment: string | null;
  shipping: string | null;
  customerName: string | null;
  customerEmail: string | null;
  customerId: string | null;
  /**
   * `meta.display_price`, read by the `total` and `totals` fields: an amount out of range (an
   * order written before amounts were bounded) is then an error of that field of that order,
   * not of the whole page.
   */
  displayPrice: JsonObject;
  /** The lines, when the answer that carried the order included them (checkout does). */
  items?: OrderItemShape[];
}

export function toOrder(row: JsonObject): OrderShape {
  const meta = readObject(row, 'meta', 'order');
  const displayPrice = readObject(meta, 'display_price', 'order.meta');
  const customer = isJsonObject(row.customer) ? row.customer : {};
  const relationships = isJsonObject(row.relationships) ? row.relationships : {};
  const linked = isJsonObject(relationships.customer) ? relationships.customer.data : undefined;
  return {
    upstreamId: readString(row, 'id', 'order'),
    status: readString(row, 'status', 'order'),
    payment: readOptionalString(row, 'payment'),
    shipping: readOptionalString(row, 'shipping'),
    customerName: readOptionalString(customer, 'name'),
    customerEmail: readOptionalString(customer, 'email'),
    customerId: isJsonObject(linked) && typeof linked.id === 'string' ? linked.id : null,
    displayPrice,
    ...readTimestamps(row, 'order'),
  };
}

/** One row by upstream id through the per-request `in(id,…)` batch loader; null when missing. */
export function fetchOrder(context: GatewayContext, id: string): Promise<OrderShape | null> {
  return loadById(context, ['orders'], id, toOrder);
}

export const OrderRef = builder.objectRef<OrderShape>('Order');

interface OrderItemShape {
  id: string;
  name: string;
  sku: string | null;
  quantity: number;
  unitTotals: CartTotalsShape;
  lineTotals: CartTotalsShape;
}

const OrderItemRef = builder.objectRef<OrderItemShape>('OrderItem').implement({
  description: 'A line of an order, as it was checked out.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Upstream id of the order item.' }),
    name: t.exposeString('name', { description: 'Item name.' }),
    sku: t.exposeString('sku', { nullable: true, description: 'Stock keeping unit.' }),
    quantity: t.exposeInt('quantity', { description: 'Units ordered.' }),
    unitPrice: t.expose('unitTotals', {
      type: CartTotalsRef,
      description: 'Prices of one unit, with its share of the item discounts.',
    }),
    totals: t.expose('lineTotals', {
      type: CartTotalsRef,
      description: 'Prices of the whole line, discounts applied.',
    }),
  }),
});

function unusable(what: string): UpstreamUnavailableError {
  return new UpstreamUnavailableError(`The commerce service sent an unusable answer (${what})`, {
    reason: 'invalid-body',
  });
}

async function fetchOrderItems(
  context: GatewayContext,
  orderId: string,
): Promise<OrderItemShape[]> {
  const response = await context.get(['orders', orderId], { include: 'items' });
  return includedOrderItems(response.body) ?? [];
}

/** The order items of an answer's `included.items`; undefined when it included none. */
function includedOrderItems(body: unknown): OrderItemShape[] | undefined {
  const included =
    isJsonObject(body) && isJsonObject(body.included) ? body.included.items : undefined;
  if (included === undefined) return undefined;
  if (!Array.isArray(included)) throw unusable('order items');
  return included.map((row) => {
    if (!isJsonObject(row)) throw unusable('order item');
    const meta = readObject(row, 'meta', 'order_item');
    const displayPrice = readObject(meta, 'display_price', 'order_item.meta');
    return {
      id: readString(row, 'id', 'order_item'),
      name: readString(row, 'name', 'order_item'),
      sku: readOptionalString(row, 'sku'),
      quantity: readInt(row, 'quantity', 'order_item'),
      unitTotals: toTotals(displayPrice, 'order_item.display_price', 'unit'),
      lineTotals: toTotals(displayPrice, 'order_item.display_price', 'value'),
    };
  });
}

export const OrderConnection = builder.connectionObject(
  { type: OrderRef, name: 'OrderConnection', description: 'A page of orders.' },
  { name: 'OrderEdge', description: 'One of the orders with its cursor.' },
);
export const orderListArgs = defineListArgs('Order', 'orders');

builder.node(OrderRef, {
  description: 'An order: a cart that was checked out.',
  id: { resolve: (order) => order.upstreamId },
  loadOne: (id, context) => fetchOrder(context, judgeUuid(id, 'id')),
  fields: (t) => ({
    upstreamId: t.exposeID('upstreamId', { description: 'The order id upstream (uuid).' }),
    status: t.exposeString('status', { description: 'Order status, e.g. `complete`.' }),
    payment: t.exposeString('payment', {
      nullable: true,
      description: 'Payment status, e.g. `paid`.',
    }),
    shipping: t.exposeString('shipping', {
      nullable: true,
      description: 'Shipping status, e.g. `fulfilled`.',
    }),
    customerName: t.exposeString('customerName', {
      nullable: true,
      description: 'Name of the customer.',
    }),
    customerEmail: t.exposeString('customerEmail', {
      nullable: true,
      description: 'Email of the customer.',
    }),
    customerId: t.exposeID('customerId', {
      nullable: true,
      description: 'Upstream id of the customer the order belongs to; null for a guest order.',
    }),
    // Nullable, as `totals` and `items`: an order whose amounts cannot be represented (see
    // VALUE_OUT_OF_RANGE) or whose items cannot be read fails alone, not the page it is on.
    total: t.field({
      type: MoneyRef,
      nullable: true,
      description:
        'Order total including tax; null, with a VALUE_OUT_OF_RANGE error, when the amount is ' +
        'beyond 32 bits (an order written before amounts were bounded).',
      resolve: (order) => readMoney(order.displayPrice.with_tax, 'order.display_price.with_tax'),
    }),
    totals: t.field({
      type: CartTotalsRef,
      nullable: true,
      description:
        'Totals of the order with every discount applied; null, with an error, when they ' +
        'cannot be represented.',
      resolve: (order) => toTotals(order.displayPrice, 'order.display_price'),
    }),
    items: t.field({
      type: [OrderItemRef],
      nullable: true,
      description:
        'The ordered items (one more upstream GET); null, with an error, when they cannot be ' +
        'read or represented.',
      // Checkout's answer carries them (no GET then): a guest's token may not read the order.
      resolve: (order, _args, context) => order.items ?? fetchOrderItems(context, order.upstreamId),
      // One GET per order: the query cost counts it (src/gateway/query-cost.ts).
      extensions: { upstreamCalls: 1 },
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'Creation time.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'Last update time.' }),
  }),
});

builder.queryFields((t) => ({
  order: t.field({
    type: OrderRef,
    nullable: true,
    description: 'One order by upstream id; null when the store has no such order.',
    args: { id: t.arg.id({ required: true, description: 'Upstream id of the order.' }) },
    resolve: (_root, args, context) => fetchOrder(context, judgeUuid(args.id, 'id')),
  }),
  orders: t.connection(
    {
      type: OrderRef,
      description: 'The orders of the store; pages past the 10,000 offset limit are served too.',
      args: orderListArgs,
      resolve: (_root, args, context) =>
        resolveList(context, args, { connection: 'orders', segments: ['orders'], toNode: toOrder }),
    },
    OrderConnection,
  ),
}));

/** Federation: Order is an entity keyed by `upstreamId` (src/schema/federation.ts). */
export const OrderEntity: EntityDefinition = {
  typeName: 'Order',
  keyFields: ['upstreamId'],
  resolve: (representation, context) =>
    fetchOrder(context, judgeUuid(representation.upstreamId as string, 'upstreamId')),
};
// ---- checkout ---------------------------------------------------------------------------------

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const AddressInput = builder.inputType('AddressInput', {
  description: 'A billing or shipping address (the v2 address fields).',
  fields: (t) => ({
    firstName: t.string({ required: true, description: 'First name.' }),
    lastName: t.string({ required: true, description: 'Last name.' }),
    companyName: t.string({ required: false, description: 'Company name.' }),
    line1: t.string({ required: true, description: 'First address line.' }),
    line2: t.string({ required: false, description: 'Second address line.' }),
    city: t.string({ required: false, description: 'City.' }),
    county: t.string({ required: false, description: 'County.' }),
    region: t.string({ required: true, description: 'Region or state.' }),
    postcode: t.string({ required: true, description: 'Postal code.' }),
    country: t.string({ required: true, description: 'Country (ISO 3166-1 alpha-2, e.g. GB).' }),
    phoneNumber: t.string({ required: false, description: 'Phone number.' }),
    instructions: t.string({ required: false, description: 'Delivery instructions.' }),
  }),
});

interface AddressFields {
  firstName: string;
  lastName: string;
  companyName?: string | null;
  line1: string;
  line2?: string | null;
  city?: string | null;
  county?: string | null;
  region: string;
  postcode: string;
  country: string;
  phoneNumber?: string | null;
  instructions?: string | null;
}

const ADDRESS_FIELDS: [keyof AddressFields, string, boolean][] = [
  ['firstName', 'first_name', true],
  ['lastName', 'last_name', true],
  ['companyName', 'company_name', false],
  ['line1', 'line_1', true],
  ['line2', 'line_2', false],
  ['city', 'city', false],
  ['county', 'county', false],
  ['region', 'region', true],
  ['postcode', 'postcode', true],
  ['country', 'country', true],
  ['phoneNumber', 'phone_number', false],
  ['instructions', 'instructions', false],
];

/** The v2 address, every field judged: required ones non-empty, all at most 255 characters. */
function judgeAddress(address: AddressFields, field: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, v2, required] of ADDRESS_FIELDS) {
    const value = address[name];
    if (value === null || value === undefined) continue;
    if (required || value !== '') out[v2] = judgeNonEmpty(value, `${field}.${name}`);
  }
  return out;
}

const CheckoutCustomerInput = builder.inputType('CheckoutCustomerInput', {
  description: 'A guest customer: who the order is for.',
  fields: (t) => ({
    email: t.string({ required: true, description: 'Email address.' }),
    name: t.string({ required: true, description: 'Full name.' }),
  }),
});

const CheckoutCartInput = builder.inputType('CheckoutCartInput', {
  description:
    'Turns a cart into an order. Name the customer with `customer` (a guest) or `customerId` ' +
    '(an existing customer; the order is linked to them), not both; with a customer token ' +
    '(X-Moltin-Customer-Token) both may be left out and the order is that customer’s.',
  fields: (t) => ({
    cartId: t.id({ required: true, description: 'The cart id upstream.' }),
    customer: t.field({
      type: CheckoutCustomerInput,
      required: false,
      description: 'A guest customer.',
    }),
    customerId: t.id({ required: false, description: 'Upstream id of an existing customer.' }),
    billingAddress: t.field({
      type: AddressInput,
      required: true,
      description: 'Billing address.',
    }),
    shippingAddress: t.field({
      type: AddressInput,
      required: false,
      description: 'Shipping address; default the billing address.',
    }),
  }),
});

const CheckoutCartPayload = builder
  .objectRef<{ order: () => OrderShape }>('CheckoutCartPayload')
  .implement({
    description: 'The order the cart became.',
    fields: (t) => ({
      order: t.field({
        type: OrderRef,
        nullable: true,
        description:
          'The new order, with its totals (every discount applied) and items. Null, with a ' +
          'WRITE_COMMITTED error, when the order was placed but its answer could not be read: ' +
          'do not check out again.',
        resolve: (payload) => payload.order(),
      }),
    }),
  });

builder.mutationField('checkoutCart', (t) =>
  t.field({
    type: CheckoutCartPayload,
    description: 'Checks a cart out (POST /v2/carts/{cartID}/checkout); the cart is kept.',
    args: {
      input: t.arg({ type: CheckoutCartInput, required: true, description: 'The checkout.' }),
    },
    resolve: async (_root, { input }, context) => {
      const cartId = judgeCartId(input.cartId, 'input.cartId');
      let customer: Record<string, string> | undefined;
      if (input.customer && input.customerId !== null && input.customerId !== undefined) {
        throw new BadUserInputError('Give input.customer or input.customerId, not both', {
          field: 'input.customerId',
        });
      }
      if (input.customer) {
        const email = judgeNonEmpty(input.customer.email, 'input.customer.email');
        if (!EMAIL.test(email)) {
          throw new BadUserInputError('input.customer.email is not an email address', {
            field: 'input.customer.email',
          });
        }
        customer = { email, name: judgeNonEmpty(input.customer.name, 'input.customer.name') };
      } else if (input.customerId !== null && input.customerId !== undefined) {
        customer = { id: judgeUuid(input.customerId, 'input.customerId') };
      } else if (forwardedHeaders(context)?.[CUSTOMER_TOKEN_HEADER] === undefined) {
        throw new BadUserInputError(
          'input.customer or input.customerId is required (or sign in: X-Moltin-Customer-Token)',
          { field: 'input.customer' },
        );
      }
      const data: JsonObject = {
        billing_address: judgeAddress(input.billingAddress, 'input.billingAddress'),
      };
      if (customer) data.customer = customer;
      if (input.shippingAddress) {
        data.shipping_address = judgeAddress(input.shippingAddress, 'input.shippingAddress');
      }
      const response = await context.write({
        method: 'POST',
        segments: ['carts', cartId, 'checkout'],
        body: { data },
      });
      // Read in the payload's field: once the order is placed, nothing may fail the mutation.
      return {
        order: () => {
          const items = includedOrderItems(response.body);
          const order = toOrder(expectResource(response));
          return items === undefined ? order : { ...order, items };
        },
      };
    },
  }),
);
