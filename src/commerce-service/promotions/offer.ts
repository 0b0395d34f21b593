/**
 * What a promotion of either engine does to a cart, in one normalised form (an `Offer`), so the
 * cart engine (engine.ts) reads one shape whichever API wrote the promotion. bodies.ts and
 * rule-bodies.ts produce it from the client's body; it is stored as JSON (promotions.offer).
 */

/** `*` stands for any currency (a Promotions Builder rule set without `currencies`). */
export const ANY_CURRENCY = '*';

export interface Offer {
  /** `cart`: off the subtotal; `item`: off each matching line. */
  level: 'cart' | 'item';
  method: 'fixed' | 'percent';
  /** Fixed: minor units by currency (per unit for an item offer). */
  amounts: Record<string, number>;
  /** Percent: 0–100 (decimals allowed). */
  percent: number;
  /** Item offers: the SKUs discounted; null: every line. */
  skus: string[] | null;
  /** The cart's subtotal before discounts must reach this, by currency; null: no minimum. */
  minSubtotal: Record<string, number> | null;
  /** The cart must hold a line with one of these SKUs; null: no such condition. */
  requiredSkus: string[] | null;
}

/** The amount of `amounts` in `currency` (or for any currency); undefined when it has none. */
export function amountIn(amounts: Record<string, number>, currency: string): number | undefined {
  return amounts[currency] ?? amounts[ANY_CURRENCY];
}

/** Whether the offer can apply to a cart in `currency` at all. */
export function offersCurrency(offer: Offer, currency: string): boolean {
  if (offer.method === 'fixed' && amountIn(offer.amounts, currency) === undefined) return false;
  if (offer.minSubtotal !== null && amountIn(offer.minSubtotal, currency) === undefined) {
    return false;
  }
  return true;
}
