/**
 * What the Subscription fields (./subscriptions.ts) need of the gateway's event bus, and how an
 * event becomes what one subscriber receives. The bus carries ids only; each event the
 * subscription's filter keeps is read in a fork of the subscriber's own session (their token and
 * forwarded headers, a fresh budget and deadline), and an event whose read that subscriber is
 * refused, or finds nothing for, is not sent to them at all. The gateway executes each delivered
 * event in the session it was read in (src/gateway/subscriptions.ts reads `deliverySession`).
 *
 * The bus's type is the gateway's (src/gateway/events/bus.ts); the schema says structurally what
 * it uses, so it imports nothing from the floor above.
 */
import {
  BadUserInputError,
  EventsMissedError,
  ForbiddenError,
  NotFoundError,
  UnauthenticatedError,
} from '../upstream/errors.ts';
import type { GatewayContext } from '../upstream/session.ts';

/** A store event as the bus gives it: ids only. */
export interface FeedEvent {
  readonly id: string;
  readonly type: string;
  readonly subject: {
    readonly cartId?: string;
    readonly orderId?: string;
    readonly productIds?: readonly string[];
    readonly catalogId?: string;
    readonly releaseId?: string;
  };
}

/** The part of the gateway's EventBus the subscriptions use. */
export interface StoreEventFeed {
  subscribe(options: { after?: string; signal: AbortSignal }): AsyncIterable<FeedEvent>;
  isBeforeWindow(id: string): Promise<boolean>;
}

/** The context property under which the gateway hands every request its bus. */
export const EVENT_FEED_KEY = 'storeEvents';

function feedOf(context: GatewayContext): StoreEventFeed {
  const feed = (context as unknown as Record<string, StoreEventFeed | undefined>)[EVENT_FEED_KEY];
  if (feed === undefined) throw new Error('This gateway was built without an event bus');
  return feed;
}

/** One event as one subscriber receives it: read in `session`, or the read's error. */
export class Delivery<T> {
  readonly event: FeedEvent;
  readonly session: GatewayContext;
  readonly value: T | undefined;
  readonly error: unknown;
  constructor(event: FeedEvent, session: GatewayContext, value: T | undefined, error: unknown) {
    this.event = event;
    this.session = session;
    this.value = value;
    this.error = error;
  }
}

/** The session a subscription event was read in, for the executor to run its fields in. */
export function deliverySession(root: unknown): GatewayContext | undefined {
  return root instanceof Delivery ? root.session : undefined;
}

/** The event id a subscription's result answers (the SSE frame's `id:`). */
export function deliveryEventId(root: unknown): string | undefined {
  return root instanceof Delivery ? root.event.id : undefined;
}

/** The payload of a delivery, or its read's error thrown (UPSTREAM_UNAVAILABLE, say). */
export function delivered<T>(delivery: Delivery<T>): T {
  if (delivery.error !== undefined) throw delivery.error;
  return delivery.value as T;
}

const EVENT_ID = /^\d{1,15}-\d{1,9}$/;

/**
 * Where a subscription resumes: the `Last-Event-ID` header (a browser's EventSource sends it on
 * every reconnect, so it is newer than the URL's `after`), else the `after` argument. A malformed
 * id is BAD_USER_INPUT; one older than the replay window is EVENTS_MISSED, before any event.
 */
export async function resumeAfter(
  context: GatewayContext,
  after: string | null | undefined,
): Promise<string | undefined> {
  const header = context.callerHeaders.get('last-event-id');
  const [given, field] =
    header !== null && header.trim() !== '' ? [header.trim(), 'Last-Event-ID'] : [after, 'after'];
  if (given === null || given === undefined) return undefined;
  if (!EVENT_ID.test(given)) {
    throw new BadUserInputError(`${field} must be an event id as sent (<ms>-<seq>)`, { field });
  }
  if (await feedOf(context).isBeforeWindow(given)) {
    throw new EventsMissedError(
      `Events after ${given} are no longer kept (the replay window has passed): some were ` +
        'missed. Read the state afresh, then subscribe again without it',
      { field },
    );
  }
  return given;
}

/** Errors that mean "this subscriber may not, or cannot, read it": the event is not theirs. */
function isRefusal(error: unknown): boolean {
  return (
    error instanceof NotFoundError ||
    error instanceof ForbiddenError ||
    error instanceof UnauthenticatedError
  );
}

export interface FollowOptions<T> {
  after: string | undefined;
  /** Whether the event concerns this subscription (its ids). */
  keep: (event: FeedEvent) => boolean;
  /** The subscriber's read of the event in `session`; null: nothing for them. */
  read: (session: GatewayContext, event: FeedEvent) => Promise<T | null>;
}

/**
 * The events of the bus this subscription keeps, each read for this subscriber. A hand-written
 * iterator, not an async generator: `return()` (the client went away) must end a `next()` that
 * is waiting for an event, which a generator would queue behind it until the next event came.
 */
export function follow<T>(
  context: GatewayContext,
  options: FollowOptions<T>,
): AsyncIterableIterator<Delivery<T>> {
  const stop = new AbortController();
  const source = feedOf(context)
    .subscribe({ after: options.after, signal: stop.signal })
    [Symbol.asyncIterator]();
  const iterator: AsyncIterableIterator<Delivery<T>> = {
    async next() {
      for (;;) {
        const step = await source.next();
        if (step.done) return { done: true, value: undefined };
        const event = step.value;
        if (stop.signal.aborted) return { done: true, value: undefined };
        if (!options.keep(event)) continue;
        const session = context.fork();
        try {
          const value = await options.read(session, event);
          if (value !== null)
            return { done: false, value: new Delivery(event, session, value, undefined) };
          session.finish();
        } catch (error) {
          if (!isRefusal(error)) {
            return { done: false, value: new Delivery<T>(event, session, undefined, error) };
          }
          session.finish();
        }
      }
    },
    async return() {
      stop.abort();
      await source.return?.();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
