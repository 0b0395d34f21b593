/**
 * The store's events as the gateway publishes them to its subscribers: ids only, never a
 * resource's content (each subscriber reads that with its own credentials).
 *
 * A bus orders its events and gives each an id that sorts as it was published, `<ms>-<seq>` (the
 * form of a Redis stream's ids), so a client reconnecting with `Last-Event-ID` — to this replica
 * or another one on the same Redis — is given every event after it that is still in the replay
 * window. Two implementations: in one process (./memory-bus.ts) and over a Redis stream
 * (./redis-bus.ts, with REDIS_URL).
 */

/** What happened, by the ids a subscription filters on. */
export interface StoreEventSubject {
  /** `cart.updated`: the cart. */
  cartId?: string;
  /** `order.created` / `order.updated`: the order. */
  orderId?: string;
  /** `stock-transaction.created`: the products whose stock changed. */
  productIds?: string[];
  /** `catalog-release.created`: the catalog and its new release. */
  catalogId?: string;
  releaseId?: string;
}

export interface StoreEvent {
  /** `<ms>-<seq>`, increasing in publish order across every replica of one bus. */
  id: string;
  /** The upstream's event name (`cart.updated`, `order.updated`, …). */
  type: string;
  /** The store the event came from (the webhook's store), when the upstream says. */
  storeId?: string;
  subject: StoreEventSubject;
  /** When the gateway received it, ISO 8601. */
  receivedAt: string;
}

export interface SubscribeOptions {
  /**
   * Replay every retained event after this id first (a reconnect's `Last-Event-ID`); unknown or
   * malformed ids are refused by the caller before subscribing. Default: live events only.
   */
  after?: string;
  /** Ends the iteration (the client went away). */
  signal: AbortSignal;
}

export interface PublishOptions {
  /**
   * The webhook's own id (a delivery the upstream repeats carries the same): a bus shared by
   * replicas publishes it once whichever replica receives each attempt, within the replay window,
   * and resolves a repeat with the event first published (the in-process bus does the same for
   * the workers of WORKERS, which all relay to it).
   */
  deliveryId?: string | undefined;
}

export interface EventBus {
  /** Publishes to every subscriber of every replica; resolves with the event as stored. */
  publish(event: Omit<StoreEvent, 'id'>, options?: PublishOptions): Promise<StoreEvent>;
  /** Events in id order: those retained after `after`, then live ones, until `signal` aborts. */
  subscribe(options: SubscribeOptions): AsyncIterable<StoreEvent>;
  /** Whether `id` is older than the replay window (the client has missed events: tell it so). */
  isBeforeWindow(id: string): Promise<boolean>;
  close(): Promise<void>;
}
