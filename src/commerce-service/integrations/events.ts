/**
 * Integration events: the names an integration may observe and `emitEvent`, the one call the
 * routes make when something observable happens. It writes the event into the outbox
 * (integration_jobs, one row per observing webhook) inside the caller's transaction, so the
 * event exists exactly when the change does; the deliverer (./deliverer.ts) posts it later and
 * the request never waits for a receiver.
 */
import { cachedStatement, type Db } from '../db.ts';
import { newId } from '../ids.ts';

/**
 * The events this service emits. Production names more (order.paid, address.*, …): those are
 * refused as `observes` values here rather than accepted and never sent.
 */
export const KNOWN_EVENTS = [
  'order.created',
  'order.updated',
  'cart.updated',
  'customer.created',
  'account.created',
  'account-member.created',
  'account-membership.created',
  'catalog-release.created',
  'stock-transaction.created',
] as const;

/** Custom API entry events: `<api_type>.created|updated|deleted` (api_type ends in `_ext`). */
export const ENTRY_EVENT_PATTERN = /^[a-z0-9_]{1,59}_ext\.(created|updated|deleted)$/;

export function isKnownEvent(name: string): boolean {
  return (KNOWN_EVENTS as readonly string[]).includes(name) || ENTRY_EVENT_PATTERN.test(name);
}

/** The resource an event carries: `{data, included?}` as the API shows it. */
export interface EventPayload {
  data: unknown;
  included?: unknown;
}

interface OutboxHooks {
  /** A record timestamp of the service (its clock). */
  timestamp: () => string;
  /** Tells the deliverer there is work; it looks after the current transaction commits. */
  nudge: () => void;
}

const hooksOf = new WeakMap<Db, OutboxHooks>();

/** Called by the service once its deliverer runs on `db`. */
export function attachOutbox(db: Db, hooks: OutboxHooks): void {
  hooksOf.set(db, hooks);
}

const OBSERVERS = `SELECT id FROM integrations
  WHERE store_id = ? AND enabled = 1 AND integration_type = 'webhook'
    AND EXISTS (SELECT 1 FROM json_each(integrations.observes) WHERE value = ?)`;

/**
 * Records `event` for every enabled webhook of the store that observes it. Call inside the
 * transaction of the change; `payload` is read only when someone observes the event, and is
 * frozen then (a later change does not alter what this event says). aws_sqs and stomp
 * integrations are stored but never delivered, so they get no job.
 */
export function emitEvent(
  db: Db,
  storeId: string,
  event: string,
  payload: () => EventPayload,
): void {
  const observers = cachedStatement(db, OBSERVERS).pluck().all(storeId, event) as string[];
  if (observers.length === 0) return;
  const hooks = hooksOf.get(db);
  const now = hooks?.timestamp() ?? new Date().toISOString();
  const body = JSON.stringify(payload());
  const insert = cachedStatement(
    db,
    `INSERT INTO integration_jobs (id, store_id, integration_id, triggered_by, payload, status,
       attempts, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
  );
  for (const integrationId of observers) {
    insert.run(newId(), storeId, integrationId, event, body, Date.now(), now, now);
  }
  hooks?.nudge();
}
