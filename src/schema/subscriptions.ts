/**
 * The Subscription fields: the store's own events (its webhooks, received by the gateway:
 * src/gateway/events/webhook-receiver.ts), each read for each subscriber with their credentials
 * (./subscription-feed.ts). A payload carries the event's id, which is also the SSE frame's
 * `id:`, so a client that reconnects with `Last-Event-ID` (or `after:`) within the replay window
 * misses none.
 */
import { expectResource, isJsonObject } from '../upstream/client.ts';
import { ForbiddenError, NotFoundError } from '../upstream/errors.ts';
import type { GatewayContext } from '../upstream/session.ts';
import { builder } from './builder.ts';
import { CART, CartRef, type CartShape, fetchCart } from './cart.ts';
import { Products } from './catalog/storefront.ts';
import { ID_INPUTS, idKind, judgeId, judgeIdList } from './kit/ids.ts';
import { nullWhenNotFound } from './lookups.ts';
import { type OrderShape, Orders } from './order.ts';
import { CatalogReleases } from './pcm/catalogs.ts';
import {
  type Delivery,
  delivered,
  type FeedEvent,
  follow,
  resumeAfter,
} from './subscription-feed.ts';

// Declared with its fields, not beside Query in the builder: a schema built from some of the type
// files (tests do) would otherwise have an empty, invalid Subscription type.
builder.subscriptionType({
  description:
    'Follow the store of the bearer token as it changes (GraphQL over SSE): each event is read ' +
    'with the subscriber’s own credentials, and one the subscriber could not query is not sent.',
});

/** The most products one `stockChanged` follows. */
export const MAX_STOCK_PRODUCTS = 100;

const ORDER = idKind('Order');
const PRODUCT = idKind('Product');
ID_INPUTS.set('Subscription.cartUpdated(cartId:)', CART);
ID_INPUTS.set('Subscription.orderUpdated(orderId:)', ORDER);
ID_INPUTS.set('Subscription.stockChanged(productIds:)', PRODUCT);

const AFTER_DESCRIPTION =
  'Replay the events after this event id first (for clients that cannot send the ' +
  '`Last-Event-ID` header, which wins when both are sent); an id older than the replay window ' +
  'is refused with EVENTS_MISSED.';

const EVENT_ID_DESCRIPTION =
  'The event’s id (`<ms>-<seq>`, increasing), also the SSE frame’s `id:`: resume after it ' +
  'with `Last-Event-ID` or `after:`.';

// ---- cartUpdated ---------------------------------------------------------------------------

const CartUpdatedRef = builder.objectRef<Delivery<CartShape>>('CartUpdatedEvent').implement({
  description: 'A cart changed (`cart.updated`): the cart as the subscriber reads it now.',
  fields: (t) => ({
    eventId: t.string({
      description: EVENT_ID_DESCRIPTION,
      resolve: (delivery) => delivery.event.id,
    }),
    cart: t.field({
      type: CartRef,
      description: 'The cart, read with the subscriber’s credentials when the event came.',
      resolve: (delivery) => delivered(delivery),
    }),
  }),
});

builder.subscriptionField('cartUpdated', (t) =>
  t.field({
    type: CartUpdatedRef,
    description:
      'Each change of one cart (items, discounts, totals). Refused at once (NOT_FOUND) when the ' +
      'subscriber cannot read the cart; one upstream read per event.',
    args: {
      cartId: t.arg.id({ required: true, description: 'The cart: a Cart id or its upstreamId.' }),
      after: t.arg.string({ required: false, description: AFTER_DESCRIPTION }),
    },
    subscribe: async (_root, args, context) => {
      const cartId = judgeId(args.cartId, 'cartId', CART);
      const after = await resumeAfter(context, args.after);
      const stream = follow(context, {
        after,
        keep: (event) => event.subject.cartId === cartId,
        read: (session) => nullWhenNotFound(fetchCart(session, cartId)),
      });
      return readOnce(context, stream, (session) => fetchCart(session, cartId));
    },
    resolve: (delivery) => delivery as Delivery<CartShape>,
    extensions: { upstreamCalls: 1 },
  }),
);

/**
 * A read before the first event: what the subscriber cannot read, they cannot follow. The stream
 * is open already, so an event that comes during the read is kept, not lost; a refusal ends it.
 */
async function readOnce<T>(
  context: GatewayContext,
  stream: AsyncIterableIterator<T>,
  read: (session: GatewayContext) => Promise<unknown>,
): Promise<AsyncIterableIterator<T>> {
  const session = context.fork();
  try {
    await read(session);
    return stream;
  } catch (error) {
    await stream.return?.();
    throw error;
  } finally {
    session.finish();
  }
}

// ---- orderUpdated --------------------------------------------------------------------------

const OrderUpdatedRef = builder.objectRef<Delivery<OrderShape>>('OrderUpdatedEvent').implement({
  description:
    'An order was placed or changed (`order.created`, `order.updated`: paid, say): the order ' +
    'as the subscriber reads it now.',
  fields: (t) => ({
    eventId: t.string({
      description: EVENT_ID_DESCRIPTION,
      resolve: (delivery) => delivery.event.id,
    }),
    order: t.field({
      type: Orders.ref,
      description: 'The order, read with the subscriber’s credentials when the event came.',
      resolve: (delivery) => delivered(delivery),
    }),
  }),
});

builder.subscriptionField('orderUpdated', (t) =>
  t.field({
    type: OrderUpdatedRef,
    description:
      'Each change of one order (its payment, say). Refused at once (NOT_FOUND, FORBIDDEN) when the ' +
      'subscriber cannot read the order; one upstream read per event.',
    args: {
      orderId: t.arg.id({
        required: true,
        description: 'The order: an Order id or its upstreamId.',
      }),
      after: t.arg.string({ required: false, description: AFTER_DESCRIPTION }),
    },
    subscribe: async (_root, args, context) => {
      const orderId = judgeId(args.orderId, 'orderId', ORDER);
      const after = await resumeAfter(context, args.after);
      const stream = follow(context, {
        after,
        keep: (event) => event.subject.orderId === orderId,
        read: (session) => Orders.load(session, orderId),
      });
      return readOnce(context, stream, async (session) => {
        if ((await Orders.load(session, orderId)) === null) {
          throw new NotFoundError(`No order ${orderId} that this token can read`);
        }
      });
    },
    resolve: (delivery) => delivery as Delivery<OrderShape>,
    extensions: { upstreamCalls: 1 },
  }),
);

// ---- stockChanged --------------------------------------------------------------------------

type ProductShape = ReturnType<typeof Products.read>;

const StockChangedRef = builder.objectRef<Delivery<ProductShape[]>>('StockChangedEvent').implement({
  description:
    'The stock of followed products moved (`stock-transaction.created`): the products as the ' +
    'subscriber’s catalog shows them now; select `stock` for the figures.',
  fields: (t) => ({
    eventId: t.string({
      description: EVENT_ID_DESCRIPTION,
      resolve: (delivery) => delivery.event.id,
    }),
    products: t.field({
      type: [Products.ref],
      description:
        'The followed products the event names that the subscriber’s catalog shows (select ' +
        '`stock { available }`).',
      resolve: (delivery) => delivered(delivery),
    }),
  }),
});

builder.subscriptionField('stockChanged', (t) =>
  t.field({
    type: StockChangedRef,
    description:
      `Each stock movement of these products (1 to ${MAX_STOCK_PRODUCTS}); products the ` +
      'subscriber’s catalog does not show are not reported. One upstream read per event (two ' +
      'with `stock`).',
    args: {
      productIds: t.arg.idList({
        required: true,
        description: `The products (1 to ${MAX_STOCK_PRODUCTS}): each a Product id or its upstreamId.`,
      }),
      after: t.arg.string({ required: false, description: AFTER_DESCRIPTION }),
    },
    subscribe: async (_root, args, context) => {
      const ids = judgeIdList(args.productIds, 'productIds', PRODUCT, {
        min: 1,
        max: MAX_STOCK_PRODUCTS,
      });
      const followed = new Set(ids);
      const after = await resumeAfter(context, args.after);
      return follow(context, {
        after,
        keep: (event) => (event.subject.productIds ?? []).some((id) => followed.has(id)),
        read: async (session, event) => {
          const named = [...new Set(event.subject.productIds ?? [])].filter((id) =>
            followed.has(id),
          );
          const products = await Promise.all(named.map((id) => Products.load(session, id)));
          const shown = products.filter((product) => product !== null);
          return shown.length === 0 ? null : shown;
        },
      });
    },
    resolve: (delivery) => delivery as Delivery<ProductShape[]>,
    extensions: { upstreamCalls: 1 },
  }),
);

// ---- catalogPublished ----------------------------------------------------------------------

interface PublishedShape {
  catalogId: string;
  releaseId: string;
  name: string | null;
  publishedAt: string | null;
}

const CatalogPublishedRef = builder
  .objectRef<Delivery<PublishedShape>>('CatalogPublishedEvent')
  .implement({
    description:
      'A catalog release was published (`catalog-release.created`): cached pages of that ' +
      'catalog are stale; read them afresh (the release is what `catalog` now serves).',
    fields: (t) => ({
      eventId: t.string({
        description: EVENT_ID_DESCRIPTION,
        resolve: (delivery) => delivery.event.id,
      }),
      catalogId: t.id({
        description: 'The catalog released (upstream id): drop cached pages of it.',
        resolve: (delivery) => delivered(delivery).catalogId,
      }),
      releaseId: t.id({
        description: 'The new release (upstream id).',
        resolve: (delivery) => delivered(delivery).releaseId,
      }),
      name: t.string({
        nullable: true,
        description: 'The catalog’s name when published.',
        resolve: (delivery) => delivered(delivery).name,
      }),
      publishedAt: t.field({
        type: 'DateTime',
        nullable: true,
        description: 'When it was published.',
        resolve: (delivery) => delivered(delivery).publishedAt,
      }),
    }),
  });

/**
 * The release as this subscriber may see it: a store token reads any release (the
 * merchandiser's view); anyone else is told only of the catalog the store's rules resolve for
 * them (`GET /catalog`, with their EP-Channel and EP-Context-Tag), when it is this one.
 */
async function readPublished(
  session: GatewayContext,
  event: FeedEvent,
): Promise<PublishedShape | null> {
  const { catalogId, releaseId } = event.subject;
  if (catalogId === undefined || releaseId === undefined) return null;
  try {
    const release = await CatalogReleases.load(session, releaseId, { catalogId });
    if (release !== null) {
      return {
        catalogId,
        releaseId,
        name: release.name ?? null,
        publishedAt: release.publishedAt ?? null,
      };
    }
  } catch (error) {
    if (!(error instanceof ForbiddenError)) throw error;
  }
  const answer = await nullWhenNotFound(session.get(['/catalog']));
  if (answer === null) return null;
  const row = expectResource(answer);
  const attributes = isJsonObject(row.attributes) ? row.attributes : {};
  if (attributes.catalog_id !== catalogId) return null;
  return {
    catalogId,
    releaseId: typeof row.id === 'string' ? row.id : releaseId,
    name: typeof attributes.name === 'string' ? attributes.name : null,
    publishedAt: typeof attributes.published_at === 'string' ? attributes.published_at : null,
  };
}

builder.subscriptionField('catalogPublished', (t) =>
  t.field({
    type: CatalogPublishedRef,
    description:
      'Each publication of a catalog release the subscriber can see: every release for a store ' +
      'token, the catalog that applies to them for a shopper. One or two upstream reads per event.',
    args: {
      after: t.arg.string({ required: false, description: AFTER_DESCRIPTION }),
    },
    subscribe: async (_root, args, context) => {
      const after = await resumeAfter(context, args.after);
      return follow(context, {
        after,
        keep: (event) => event.subject.releaseId !== undefined,
        read: readPublished,
      });
    },
    resolve: (delivery) => delivery as Delivery<PublishedShape>,
    extensions: { upstreamCalls: 2 },
  }),
);
