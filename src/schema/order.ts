/** Order: a checked-out cart (`/v2/orders`), as a node and a connection, and checking out. */

import { expectResource, isJsonObject, type JsonObject } from '../upstream/client.ts';
import { BadUserInputError } from '../upstream/errors.ts';
import { ACCOUNT_TOKEN_HEADER, CUSTOMER_TOKEN_HEADER } from '../upstream/forwarded-headers.ts';
import { forwardedHeaders, type GatewayContext } from '../upstream/session.ts';
import { builder } from './builder.ts';
import { type BundleConfigurationShape, readBundleConfiguration } from './bundle-configuration.ts';
import { CART_IDS } from './cart-write.ts';
import { ADDRESS, bookAddresses } from './checkout-addresses.ts';
import { idKind, judgeId, optionalIdInput } from './kit/ids.ts';
import { defineMutation } from './kit/mutation.ts';
import { answerPayload, writeAnswer } from './kit/writes.ts';
import { CartTotalsRef, type CartTotalsShape, MoneyRef, toTotals } from './money.ts';
import { defineResource, field, type ShapeOfResource } from './resource.ts';
import {
  judgeNonEmpty,
  readInt,
  readMoney,
  readObject,
  readOptionalString,
  readString,
  unusable,
} from './rows.ts';

/** The lines of an order, when the answer that carried it included them (checkout does). */
export interface OrderItemShape {
  id: string;
  name: string;
  sku: string | null;
  quantity: number;
  unitTotals: CartTotalsShape;
  lineTotals: CartTotalsShape;
  /** The catalog product it was ordered from (null for a custom item). */
  productId: string | null;
  bundleConfiguration: BundleConfigurationShape | null;
}

export const OrderItemRef = builder.objectRef<OrderItemShape>('OrderItem').implement({
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
      productId: readOptionalString(row, 'product_id'),
      bundleConfiguration: readBundleConfiguration(row),
    };
  });
}

export const Orders = defineResource({
  name: 'Order',
  singular: 'order',
  plural: 'orders',
  description: 'An order: a cart that was checked out.',
  path: '/v2/orders',
  body: 'flat',
  timestamps: 'meta.timestamps',
  readableBy: ['client_credentials', 'customer'],
  fields: {
    /**
     * `meta.display_price`, read by the `total` and `totals` fields: an amount out of range (an
     * order written before amounts were bounded) is then an error of that field of that order,
     * not of the whole page.
     */
    displayPrice: field.carried((row) =>
      readObject(readObject(row, 'meta', 'order'), 'display_price', 'order.meta'),
    ),
    // Declared here, not left to the builder: a row is checked in this order.
    upstreamId: field.id('The order id upstream (uuid).'),
    status: field.string('Order status, e.g. `complete`.'),
    payment: field.string('Payment status, e.g. `paid`.', { nullable: true }),
    shipping: field.string('Shipping status, e.g. `fulfilled`.', { nullable: true }),
    customerName: field.string('Name of the customer.', { from: 'customer.name', nullable: true }),
    customerEmail: field.string('Email of the customer.', {
      from: 'customer.email',
      nullable: true,
    }),
    customerId: field.id(
      'Upstream id of the customer the order belongs to; null for a guest order.',
      { from: 'relationships.customer.data.id', nullable: true },
    ),
    accountId: field.id('Upstream id of the account a member ordered for; null otherwise.', {
      from: 'relationships.account.data.id',
      nullable: true,
    }),
    accountMemberId: field.id('Upstream id of the account member who ordered; null otherwise.', {
      from: 'relationships.account_member.data.id',
      nullable: true,
    }),
    /** The lines, when the answer that carried the order included them (checkout does). */
    items: field.carried((): OrderItemShape[] | undefined => undefined),
  },
  extraFields: (t) => ({
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
  }),
  lookup: { field: 'order' },
  list: {
    field: 'orders',
    description: 'The orders of the store; pages past the 10,000 offset limit are served too.',
    connection: 'orders',
    paging: 'keyset',
    offsetLimit: 'hard',
  },
  entity: true,
});

export type OrderShape = ShapeOfResource<typeof Orders>;

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

/** An existing customer an order is for. */
const CUSTOMER = idKind('Customer');

defineMutation('checkoutCart', {
  description: 'Checks a cart out (POST /v2/carts/{cartID}/checkout); the cart is kept.',
  ids: CART_IDS,
  input: {
    description:
      'Turns a cart into an order. Name the customer with `customer` (a guest) or `customerId` ' +
      '(an existing customer; the order is linked to them), not both; with a customer token ' +
      '(X-Moltin-Customer-Token) both may be left out and the order is that customer’s; with ' +
      'an account member’s token the order is the account’s (`customer` then names the ' +
      'contact, the member by default).',
    fields: (t) => ({
      customer: t.field({
        type: CheckoutCustomerInput,
        required: false,
        description: 'A guest customer.',
      }),
      customerId: optionalIdInput(t, CUSTOMER, 'An existing customer'),
      billingAddress: t.field({
        type: AddressInput,
        required: false,
        description: 'Billing address; or `billingAddressId`, exactly one of the two.',
      }),
      billingAddressId: optionalIdInput(
        t,
        ADDRESS,
        'The billing address, from the shopper’s address book (read before the checkout; an ' +
          'id the book does not hold is NOT_FOUND)',
      ),
      shippingAddress: t.field({
        type: AddressInput,
        required: false,
        description: 'Shipping address; default the billing address.',
      }),
      shippingAddressId: optionalIdInput(
        t,
        ADDRESS,
        'The shipping address, from the shopper’s address book (not with `shippingAddress`)',
      ),
    }),
  },
  payload: answerPayload<OrderShape>('CheckoutCartPayload', {
    description: 'The order the cart became.',
    field: 'order',
    type: Orders.ref,
    about:
      'The new order, with its totals (every discount applied) and items. Null, with a ' +
      'WRITE_COMMITTED error, when the order was placed but its answer could not be read: ' +
      'do not check out again.',
  }),
  resolve: async (input, context, { cartId }) => {
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
      customer = { id: judgeId(input.customerId, 'input.customerId', CUSTOMER) };
    } else {
      const signedIn = forwardedHeaders(context);
      if (
        signedIn?.[CUSTOMER_TOKEN_HEADER] === undefined &&
        signedIn?.[ACCOUNT_TOKEN_HEADER] === undefined
      ) {
        throw new BadUserInputError(
          'input.customer or input.customerId is required (or sign in: X-Moltin-Customer-Token, ' +
            'or an account member’s EP-Account-Management-Authentication-Token)',
          { field: 'input.customer' },
        );
      }
    }
    const optionalAddress = (value: string | number | null | undefined, field: string) =>
      value === null || value === undefined ? undefined : judgeId(String(value), field, ADDRESS);
    const billingId = optionalAddress(input.billingAddressId, 'input.billingAddressId');
    const shippingId = optionalAddress(input.shippingAddressId, 'input.shippingAddressId');
    if ((billingId === undefined) === !input.billingAddress) {
      throw new BadUserInputError(
        'Give exactly one of input.billingAddress and input.billingAddressId',
        {
          field: 'input.billingAddress',
        },
      );
    }
    if (shippingId !== undefined && input.shippingAddress) {
      throw new BadUserInputError(
        'Give input.shippingAddress or input.shippingAddressId, not both',
        {
          field: 'input.shippingAddressId',
        },
      );
    }
    const data: JsonObject = {};
    if (input.billingAddress) {
      data.billing_address = judgeAddress(input.billingAddress, 'input.billingAddress');
    }
    if (customer) data.customer = customer;
    if (input.shippingAddress) {
      data.shipping_address = judgeAddress(input.shippingAddress, 'input.shippingAddress');
    }
    if (billingId !== undefined || shippingId !== undefined) {
      // Read before the checkout: an address the book does not hold writes nothing.
      const book = await bookAddresses(context, {
        ...(billingId === undefined ? {} : { billing: billingId }),
        ...(shippingId === undefined ? {} : { shipping: shippingId }),
        ...(customer?.id === undefined ? {} : { customerId: customer.id }),
      });
      if (book.billing) data.billing_address = book.billing;
      if (book.shipping) data.shipping_address = book.shipping;
    }
    // Read in the payload's field: once the order is placed, nothing may fail the mutation.
    return writeAnswer(
      context,
      { method: 'POST', segments: ['carts', cartId, 'checkout'], body: { data } },
      (response) => {
        const items = includedOrderItems(response.body);
        const order = Orders.read(expectResource(response));
        return items === undefined ? order : { ...order, items };
      },
    );
  },
});
