/**
 * `cart.updated` with the cart as `GET /v2/carts/{id}?include=items` shows it: one call for
 * every route that changes a cart, inside its transaction.
 */
import type { Db } from '../db.ts';
import { emitEvent } from '../integrations/events.ts';
import { presentAllItems, presentCart } from './present.ts';
import { loadCart } from './storage.ts';

/** `now`: the service's clock, in ms, for the catalog lines' prices. */
export function emitCartUpdated(db: Db, storeId: string, cartId: string, now: number): void {
  emitEvent(db, storeId, 'cart.updated', () => {
    const state = loadCart(db, storeId, cartId, now);
    return { data: presentCart(state), included: { items: presentAllItems(state) } };
  });
}
