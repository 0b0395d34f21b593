/**
 * Which promotions a cart gets, and how much each takes off: the discount lines that the
 * cart's totals (carts/totals.ts) add to its custom discounts. The order, as docs/storefront.md's
 * Promotions section states it:
 *
 * 1. Item promotions, on each matching line's price × quantity before any discount:
 *    standard promotions first (oldest first), then Promotions Builder ones by priority
 *    (highest first; a non-stackable one that applied stops the lower ones unless they
 *    `override_stacking`).
 * 2. The item's custom discounts.
 * 3. Cart promotions, on the subtotal after every item discount, in the same engine order.
 * 4. The cart's custom discounts.
 *
 * No line and no total goes below zero: a discount larger than what is left is cut to it.
 * Conditions (`min_cart_value`, a rule's `cart_total` and `item_sku`) are judged on the
 * cart's subtotal before any discount. Percentages round half away from zero to a minor unit.
 */
import { amountIn, type Offer, offersCurrency } from './offer.ts';

/** A promotion that may apply to a cart: one of its codes the shopper applied, or automatic. */
export interface CartPromotion {
  promotionId: string;
  kind: 'standard' | 'rule';
  name: string;
  /** The code as the shopper's cart holds it; null for an automatic promotion. */
  code: string | null;
  codeId: string | null;
  priority: number;
  stackable: boolean;
  overrideStacking: boolean;
  offer: Offer;
  createdAt: string;
}

/** What the engine needs of a cart line. */
export interface EngineItem {
  id: string;
  sku: string;
  quantity: number;
  unitAmount: number;
  /** The sum of the item's custom discounts (≤ 0). */
  customDiscount: number;
}

/** One promotion's discount on one line (`itemId`) or on the cart (`itemId` null). */
export interface PromotionLine {
  promotion: CartPromotion;
  itemId: string | null;
  /** Below zero. */
  amount: number;
}

/** Standard first (oldest first), then rule promotions by priority, highest first. */
function engineOrder(a: CartPromotion, b: CartPromotion): number {
  if (a.kind !== b.kind) return a.kind === 'standard' ? -1 : 1;
  if (a.priority !== b.priority) return b.priority - a.priority;
  return a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0;
}

function percentOf(base: number, percent: number): number {
  return Math.round((base * percent) / 100);
}

function conditionsHold(offer: Offer, items: readonly EngineItem[], currency: string): boolean {
  if (!offersCurrency(offer, currency)) return false;
  if (offer.minSubtotal !== null) {
    const subtotal = items.reduce((sum, i) => sum + i.unitAmount * i.quantity, 0);
    if (subtotal < (amountIn(offer.minSubtotal, currency) ?? Number.POSITIVE_INFINITY)) {
      return false;
    }
  }
  const required = offer.requiredSkus;
  if (required !== null && !items.some((i) => required.includes(i.sku))) return false;
  return true;
}

/** Every promotion line of a cart, item lines first, in the order they apply. */
export function promotionLines(
  candidates: readonly CartPromotion[],
  items: readonly EngineItem[],
  currency: string,
): PromotionLine[] {
  const ordered = [...candidates].sort(engineOrder);
  const applicable = ordered.filter((p) => conditionsHold(p.offer, items, currency));
  // Left of each line for item promotions: its price × quantity less the promotions so far.
  const left = new Map(items.map((i) => [i.id, i.unitAmount * i.quantity]));
  const lines: PromotionLine[] = [];
  const stopped = new Set<'standard' | 'rule'>();
  const applied = new Set<string>();

  const stacking = (p: CartPromotion) => !stopped.has(p.kind) || p.overrideStacking;
  const took = (p: CartPromotion) => {
    applied.add(p.promotionId);
    if (p.kind === 'rule' && !p.stackable) stopped.add(p.kind);
  };

  for (const p of applicable) {
    if (p.offer.level !== 'item' || !stacking(p)) continue;
    let any = false;
    for (const item of items) {
      if (p.offer.skus !== null && !p.offer.skus.includes(item.sku)) continue;
      const remaining = left.get(item.id) ?? 0;
      const requested =
        p.offer.method === 'percent'
          ? percentOf(item.unitAmount * item.quantity, p.offer.percent)
          : (amountIn(p.offer.amounts, currency) ?? 0) * item.quantity;
      const amount = Math.min(requested, remaining);
      if (amount <= 0) continue;
      left.set(item.id, remaining - amount);
      lines.push({ promotion: p, itemId: item.id, amount: -amount });
      any = true;
    }
    if (any) took(p);
  }

  // The subtotal after every item discount: promotions, then custom discounts, never below 0.
  let base = items.reduce(
    (sum, i) => sum + Math.max(0, (left.get(i.id) ?? 0) + i.customDiscount),
    0,
  );
  for (const p of applicable) {
    if (p.offer.level !== 'cart' || !stacking(p) || applied.has(p.promotionId)) continue;
    const requested =
      p.offer.method === 'percent'
        ? percentOf(base, p.offer.percent)
        : (amountIn(p.offer.amounts, currency) ?? 0);
    const amount = Math.min(requested, base);
    if (amount <= 0) continue;
    base -= amount;
    lines.push({ promotion: p, itemId: null, amount: -amount });
    took(p);
  }
  return lines;
}
