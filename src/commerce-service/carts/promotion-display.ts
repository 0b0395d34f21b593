/**
 * Promotions in a cart as production's cart shows them (cart_checkout.yaml, promotions
 * specifications), beside the `discounts` lines present.ts already shows:
 *
 * - a `promotion_item` in the cart's items for each applied code of a standard promotion
 *   (Promotions Standard's form: its name, the code as `sku`, the promotion's id, quantity 1 and
 *   what it takes off as its price), which is how the reference storefront lists the codes a
 *   shopper may remove. Rule promotions have none: production shows their codes on the item
 *   `discounts` they make (present.ts), and so does this service;
 * - `include=promotions`: the condensed promotions of the cart (cart level; item level too
 *   with `include=items`) in `included.promotions`, and the cart's `relationships.promotions`.
 *
 * A promotion_item is shown, not stored: its id is derived from the cart and the code, and its
 * amounts are the promotion's discount lines as read now (promotions/engine.ts); the cart's
 * totals already hold them, so it adds nothing to them.
 */
import { createHash } from 'node:crypto';
import { cachedStatement, type Db } from '../db.ts';
import { uuidFromBytes } from '../ids.ts';
import { money } from '../money.ts';
import type { PromotionLine } from '../promotions/engine.ts';
import type { CartState } from './storage.ts';

interface CodedPromotion {
  promotionId: string;
  name: string;
  code: string;
  /** The sum of its discount lines (below zero). */
  amount: number;
}

/** The standard promotions of applied codes that take something off now, in engine order. */
function codedStandardPromotions(state: CartState): CodedPromotion[] {
  const byCode = new Map<string, CodedPromotion>();
  for (const line of state.promotions) {
    const { promotion } = line;
    if (promotion.kind !== 'standard' || promotion.code === null) continue;
    const key = `${promotion.promotionId}:${promotion.code}`;
    const seen = byCode.get(key);
    if (seen === undefined) {
      byCode.set(key, {
        promotionId: promotion.promotionId,
        name: promotion.name,
        code: promotion.code,
        amount: line.amount,
      });
    } else {
      seen.amount += line.amount;
    }
  }
  return [...byCode.values()];
}

function promotionItemId(cartId: string, promotion: CodedPromotion): string {
  return uuidFromBytes(
    createHash('sha256')
      .update(`commerce-promotion-item:${cartId}:${promotion.promotionId}:${promotion.code}`)
      .digest(),
  );
}

/** The cart's `promotion_item` lines, after its other items. */
export function presentPromotionItems(state: CartState) {
  const { cart } = state;
  const currency = cart.currency;
  return codedStandardPromotions(state).map((promotion) => {
    const pair = (amount: number) => ({
      unit: money(amount, currency),
      value: money(amount, currency),
    });
    const zero = pair(0);
    return {
      id: promotionItemId(cart.id, promotion),
      type: 'promotion_item',
      promotion_id: promotion.promotionId,
      name: promotion.name,
      description: promotion.name,
      sku: promotion.code,
      code: promotion.code,
      quantity: 1,
      manage_stock: false,
      unit_price: { amount: promotion.amount, currency, includes_tax: false },
      value: { amount: promotion.amount, currency, includes_tax: false },
      links: {},
      meta: {
        display_price: {
          with_tax: pair(promotion.amount),
          without_tax: pair(promotion.amount),
          tax: zero,
          discount: zero,
          without_discount: pair(promotion.amount),
        },
        timestamps: { created_at: cart.created_at, updated_at: cart.updated_at },
      },
    };
  });
}

/** The `relationships.items` entries of the cart's promotion items. */
export function promotionItemRefs(state: CartState) {
  return codedStandardPromotions(state).map((promotion) => ({
    type: 'promotion_item',
    id: promotionItemId(state.cart.id, promotion),
  }));
}

interface CondensedRow {
  id: string;
  kind: 'standard' | 'rule';
  automatic: number;
  starts_at: string;
  ends_at: string;
  document: string;
}

/**
 * The condensed promotions of `include=promotions`: those taking something off the cart as a
 * whole, and with `withItems` those taking it off its items too, each once, in engine order.
 */
export function includedPromotions(db: Db, state: CartState, withItems: boolean) {
  const lines = state.promotions.filter((l: PromotionLine) => withItems || l.itemId === null);
  const ids = [...new Set(lines.map((l) => l.promotion.promotionId))];
  if (ids.length === 0) return [];
  const rows = cachedStatement(
    db,
    `SELECT id, kind, automatic, starts_at, ends_at, document FROM promotions
     WHERE store_id = ? AND id IN (SELECT value FROM json_each(?))`,
  ).all(state.cart.store_id, JSON.stringify(ids)) as CondensedRow[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    const line = lines.find((l) => l.promotion.promotionId === id);
    if (row === undefined || line === undefined) return [];
    const document = JSON.parse(row.document) as { description?: unknown };
    return [
      {
        type: 'promotion',
        id,
        name: line.promotion.name,
        description: typeof document.description === 'string' ? document.description : '',
        automatic: row.automatic === 1,
        promotion_source: row.kind === 'rule' ? 'rule-promotion' : 'promotion',
        start: row.starts_at,
        end: row.ends_at,
      },
    ];
  });
}
