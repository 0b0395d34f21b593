/**
 * Carts (`/v2/carts`, `/v2/carts/{id}`), and the door to everything under a cart: its items
 * (cart-items.ts), its custom discounts at cart and item level (cart-discounts.ts) and its
 * checkout (checkout.ts), registered here behind one rule of who may use a cart. The cart's
 * storage, totals, bodies and JSON live in ../carts/. Every write runs in one SQLite
 * transaction with the read that judged it. Amounts are integers in minor units of the cart's
 * currency.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { badRequest, notFound } from '../errors.ts';
import { isUuid, newId } from '../ids.ts';
import { parseIncludes } from '../includes.ts';
import { listResources, type SqlCondition, standardListSpec } from '../listing/index.ts';
import { DEFAULT_CURRENCY } from '../money.ts';
import { requireData } from '../request-body.ts';
import { mayUseCart } from './access.ts';
import { parseCartUpdate, parseNewCart } from './bodies.ts';
import { checkoutRoutes } from './checkout-routes.ts';
import { cartDiscountRoutes } from './discounts-routes.ts';
import { emitCartUpdated } from './events.ts';
import { cartItemRoutes } from './items-routes.ts';
import { presentAllItems, presentCart, presentCartDiscounts } from './present.ts';
import { includedPromotions } from './promotion-display.ts';
import { cartRelationshipRoutes } from './relationships-routes.ts';
/** Route parameters of every route under one cart. */
import type { CartParams } from './rows.ts';
import {
  deleteCart,
  expiryCutoff,
  insertCart,
  loadCart,
  purgeExpiredCarts,
  updateCart,
} from './storage.ts';

export type { CartParams };

/** A cart this request may not use (carts/access.ts) answers 404, as if it did not exist. */
function checkCartAccess(db: Db, request: FastifyRequest, cartId: string): void {
  if (!isUuid(cartId)) return; // loadCart answers it
  if (!mayUseCart(db, request, cartId)) throw notFound(`No cart with id ${cartId}.`);
}

/** The carts a request lists: its customer's, its account's, or (the store's token) all. */
function cartScope(request: FastifyRequest): Record<string, string> {
  if (request.customer) return { store_id: request.store.id, customer_id: request.customer.id };
  if (request.accountMember) {
    return { store_id: request.store.id, account_id: request.accountMember.accountId };
  }
  return { store_id: request.store.id };
}

/** What `GET /v2/carts/{id}?include=` takes: production's four (carts/present.ts). */
const INCLUDES = ['items', 'custom_discounts', 'promotions', 'tax_items'] as const;

/** The list condition of carts not yet expired at `now` (storage.ts, CART_LIFETIME_MS). */
function liveCarts(now: number): SqlCondition {
  const cutoff = expiryCutoff(now);
  return {
    sql: 'updated_at > ?',
    params: [cutoff],
    range: { column: 'updated_at', op: '>', value: cutoff },
  };
}

const CURRENCY = /^[A-Za-z]{3}$/;

/** The currency of a new cart: `X-MOLTIN-CURRENCY`, else the default. */
function parseCurrency(header: string | string[] | undefined): string {
  if (header === undefined) return DEFAULT_CURRENCY;
  if (typeof header !== 'string' || !CURRENCY.test(header)) {
    throw badRequest('X-MOLTIN-CURRENCY must be a 3-letter currency code.', 'X-MOLTIN-CURRENCY');
  }
  return header.toUpperCase();
}

export function cartRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const listSpec = standardListSpec();

  return async (app) => {
    // Every route with a cart id, in this module and the ones it registers, first checks that
    // this caller may use that cart.
    app.addHook('preHandler', async (request) => {
      const cartId = (request.params as { cartId?: unknown } | undefined)?.cartId;
      if (typeof cartId === 'string') checkCartAccess(db, request, cartId);
    });

    // A customer's carts (production's "get customer carts"): with a customer token, theirs;
    // with an account token, the account's; without either, a client_credentials token lists
    // every cart of the store (an implicit token without one never gets here: scopes.ts).
    app.get('/carts', async (request) =>
      listResources({
        request,
        db,
        table: 'carts',
        columns: 'id',
        scope: cartScope(request),
        // An expired cart is gone (storage.ts), whether or not it has been purged yet.
        conditions: [liveCarts(ctx.clock())],
        spec: listSpec,
        // Cart-level discounts inline, as items carry theirs: one object per cart, no `included`.
        map: (row: { id: string }) => {
          const state = loadCart(db, request.store.id, row.id, ctx.clock());
          return { ...presentCart(state), custom_discounts: presentCartDiscounts(state) };
        },
      }),
    );

    app.post('/carts', async (request, reply) => {
      const input = parseNewCart(request.body);
      const currency = parseCurrency(request.headers['x-moltin-currency']);
      const enabled = input.customDiscountsEnabled ?? request.store.settings.customDiscountsEnabled;
      const id = newId();
      // Creating a cart is when the store's expired carts are deleted: cheap (an index range),
      // and it bounds what a store keeps to the carts of its last week.
      purgeExpiredCarts(db, request.store.id, ctx.clock());
      insertCart(
        db,
        {
          id,
          store_id: request.store.id,
          name: input.name,
          description: input.description,
          currency,
          custom_discounts_enabled: enabled ? 1 : 0,
          customer_id: request.customer?.id ?? null,
          // Production shows the account under relationships.accounts.
          account_id: request.accountMember?.accountId ?? null,
        },
        ctx.timestamp(),
      );
      reply.code(201);
      return { data: presentCart(loadCart(db, request.store.id, id, ctx.clock())) };
    });

    app.get<{ Params: CartParams; Querystring: { include?: unknown } }>(
      '/carts/:cartId',
      async (request) => {
        const include = parseIncludes(request.query.include, INCLUDES);
        const state = loadCart(db, request.store.id, request.params.cartId, ctx.clock());
        if (include.size === 0) return { data: presentCart(state) };
        const included: Record<string, unknown[]> = {};
        if (include.has('items')) included.items = presentAllItems(state);
        if (include.has('custom_discounts'))
          included.custom_discounts = presentCartDiscounts(state);
        const data = presentCart(state);
        if (include.has('promotions')) {
          // Production: cart-level promotions, item-level ones too with include=items.
          const promotions = includedPromotions(db, state, include.has('items'));
          included.promotions = promotions;
          Object.assign(data.relationships, {
            promotions: { data: promotions.map((p) => ({ type: 'promotion', id: p.id })) },
          });
        }
        // The service computes no tax (tax is zero everywhere), so a cart has no tax items.
        if (include.has('tax_items')) included.tax_items = [];
        return { data, included };
      },
    );

    app.put<{ Params: CartParams }>('/carts/:cartId', async (request) => {
      const data = requireData(request.body);
      return db.transaction(() => {
        const { cart } = loadCart(db, request.store.id, request.params.cartId, ctx.clock());
        updateCart(db, { id: cart.id, ...parseCartUpdate(data, cart) }, ctx.timestamp());
        emitCartUpdated(db, request.store.id, cart.id, ctx.clock());
        return { data: presentCart(loadCart(db, request.store.id, cart.id, ctx.clock())) };
      })();
    });

    app.delete<{ Params: CartParams }>('/carts/:cartId', async (request, reply) => {
      const { cart } = loadCart(db, request.store.id, request.params.cartId, ctx.clock());
      deleteCart(db, cart.id);
      return reply.code(204).send();
    });

    await app.register(cartItemRoutes(ctx));
    await app.register(cartDiscountRoutes(ctx, 'cart'));
    await app.register(cartDiscountRoutes(ctx, 'item'));
    await app.register(checkoutRoutes(ctx));
    await app.register(cartRelationshipRoutes(ctx));
  };
}
