/**
 * Checkout (`POST /v2/carts/{id}/checkout`): turns a cart into an order for a guest, a named
 * customer, the signed-in one, or the account of an account member's token, writing the order, its items and its stored document in one
 * transaction after the cart's money bounds are judged. Catalog lines are priced as the
 * catalog prices them at checkout (carts/reprice.ts), and a line the catalog no longer prices
 * refuses the checkout (409, naming it) rather than ordering it at a stale price. The order is
 * then read through orders.ts. Registered by carts.ts, behind its check of who may use the cart.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.ts';
import { cachedStatement, type Db } from '../db.ts';
import { badRequest, forbidden } from '../errors.ts';
import { newId } from '../ids.ts';
import { emitEvent } from '../integrations/events.ts';
import { recheckOrderStock } from '../inventory/stock.ts';
import { JSON_CONTENT_TYPE, storeCheckedOutOrder } from '../orders/routes.ts';
import { consumeCodes } from '../promotions/cart-codes.ts';
import { isObject } from '../request-body.ts';
import { type AccountCheckout, parseAccountCheckout } from './account-checkout.ts';
import { type CheckoutInput, parseCheckout } from './bodies.ts';
import { unpriceableError } from './reprice.ts';
import type { CartParams } from './rows.ts';
import { type CartState, loadCart, storeLinePrices } from './storage.ts';
import { judgeCartItems, judgeCartTotals, totalsOf } from './totals.ts';

interface OrderCustomer {
  id: string | null;
  name: string;
  email: string;
}

/** The customer an order is for: the one named by id (its record), a guest, or the token's. */
function orderCustomer(
  db: Db,
  request: FastifyRequest,
  named: CheckoutInput['customer'],
): OrderCustomer {
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
    .get(request.store.id, id) as OrderCustomer | undefined;
  if (!row) throw badRequest(`No customer with id ${id} in this store.`, 'data.customer.id');
  return row;
}

/** Writes the order of a judged cart and its items; returns the order's id. The cart stays. */
function insertOrder(
  db: Db,
  state: CartState,
  customer: OrderCustomer,
  account: AccountCheckout | null,
  input: CheckoutInput,
  now: string,
): string {
  const totals = totalsOf(state);
  const id = newId();
  const { cart } = state;
  cachedStatement(
    db,
    `INSERT INTO orders (id, store_id, cart_id, status, payment, shipping, customer_name,
       customer_email, billing_address, shipping_address, currency, with_tax, without_discount,
       discount, customer_id, account_id, account_member_id, created_at, updated_at)
     VALUES (@id, @store_id, @cart_id, 'incomplete', 'unpaid', 'unfulfilled', @customer_name,
       @customer_email, @billing_address, @shipping_address, @currency, @with_tax,
       @without_discount, @discount, @customer_id, @account_id, @account_member_id, @now, @now)`,
  ).run({
    id,
    store_id: cart.store_id,
    cart_id: cart.id,
    customer_name: customer.name,
    customer_email: customer.email,
    customer_id: customer.id,
    account_id: account?.accountId ?? null,
    account_member_id: account?.memberId ?? null,
    billing_address: JSON.stringify(input.billingAddress),
    shipping_address: JSON.stringify(input.shippingAddress ?? input.billingAddress),
    currency: cart.currency,
    with_tax: totals.total,
    without_discount: totals.withoutDiscount,
    discount: totals.discount,
    now,
  });
  const insertItem = cachedStatement(
    db,
    `INSERT INTO order_items (id, store_id, order_id, name, sku, quantity, unit_amount, discount,
                              currency, product_id, bundle_configuration, created_at, updated_at)
     VALUES (@id, @store_id, @order_id, @name, @sku, @quantity, @unit_amount, @discount,
             @currency, @product_id, @bundle_configuration, @now, @now)`,
  );
  state.items.forEach((item, index) => {
    insertItem.run({
      id: newId(),
      store_id: cart.store_id,
      order_id: id,
      name: item.name,
      sku: item.sku,
      quantity: item.quantity,
      unit_amount: item.unit_amount,
      discount: totals.items[index]?.discount ?? 0,
      currency: cart.currency,
      product_id: item.product_id ?? null,
      // A bundle's selected options go with it to the order (carts/bundles.ts).
      bundle_configuration: item.bundle_configuration ?? null,
      now,
    });
  });
  return id;
}

export function checkoutRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  return async (app) => {
    app.post<{ Params: CartParams }>('/carts/:cartId/checkout', async (request, reply) => {
      // An account member's checkout is the account's (carts/account-checkout.ts); naming an
      // account without the member's token would let anyone order on its behalf.
      const account = request.accountMember
        ? parseAccountCheckout(db, request, request.body)
        : null;
      const body0 = request.body as { data?: unknown } | undefined;
      if (account === null && isObject(body0?.data) && body0.data.account != null) {
        throw forbidden(
          'Checkout for an account needs the member’s EP-Account-Management-Authentication-Token (POST /v2/account-members/tokens).',
        );
      }
      const input = account
        ? account.input
        : parseCheckout(request.body, request.customer !== null);
      const body = db.transaction(() => {
        const customer: OrderCustomer = account
          ? { id: null, ...account.contact }
          : orderCustomer(db, request, input.customer);
        const state = loadCart(db, request.store.id, request.params.cartId, ctx.clock());
        if (state.items.length === 0) {
          throw badRequest('The cart is empty: add an item before checking out.', 'cart');
        }
        const unpriced = state.items.flatMap((item) => {
          const reason = state.unpriceable.get(item.id);
          return reason === undefined ? [] : [{ item, reason }];
        });
        if (unpriced.length > 0) throw unpriceableError(unpriced, 'check out', 'cart');
        // A cart written before amounts were bounded may hold more than an order can show.
        judgeCartItems(state);
        judgeCartTotals(state, 'cart', 'Checking out this cart');
        // Catalog products are re-checked against stock (400 when short); nothing is allocated
        // until payment (v2-catalog-notes §9).
        recheckOrderStock(
          db,
          request.store.id,
          state.items.flatMap((item) =>
            item.product_id == null
              ? []
              : [{ productId: item.product_id, quantity: item.quantity }],
          ),
        );
        const now = ctx.timestamp();
        // The order's lines are the cart's as priced just now; the cart keeps those prices.
        storeLinePrices(db, state);
        const orderId = insertOrder(db, state, customer, account, input, now);
        // The codes that took something off use a use each, or the whole checkout is refused.
        const shopper = {
          customerId: customer.id,
          memberId: account?.memberId ?? null,
          email: customer.email,
        };
        consumeCodes(db, request.store.id, state.promotions, orderId, shopper, now);
        // Rendered once, now that the order and its items are written; reads serve the text.
        const body = storeCheckedOutOrder(db, orderId);
        emitEvent(db, request.store.id, 'order.created', () => JSON.parse(body));
        return body;
      })();
      reply.code(201).type(JSON_CONTENT_TYPE);
      return body;
    });
  };
}
