/**
 * A cart's totals (money.ts computes them from its lines and discounts) and the money bounds
 * judged on them: before any write that changes a total, and at checkout, so every amount a
 * cart or an order ever shows fits the `Int` a GraphQL client receives.
 */
import { badRequest } from '../errors.ts';
import {
  amountOverflow,
  type CartTotals,
  computeCartTotals,
  MAX_AMOUNT,
  MAX_QUANTITY,
} from '../money.ts';
import { type CartState, discountsOn } from './storage.ts';

/**
 * The totals with every discount: custom discounts and the promotions' lines (their order and
 * bases: promotions/engine.ts), each line and the cart kept at or above zero.
 */
export function totalsOf(state: CartState): CartTotals {
  const amounts = (itemId: string | null) => [
    ...state.promotions.filter((line) => line.itemId === itemId).map((line) => line.amount),
    ...discountsOn(state, itemId).map((d) => d.amount),
  ];
  return computeCartTotals(
    state.items.map((item) => ({
      unitAmount: item.unit_amount,
      quantity: item.quantity,
      discounts: amounts(item.id),
    })),
    amounts(null),
  );
}

/**
 * 400 naming `source` when the cart, as it would be after a write (or as it is, at checkout),
 * has a total above MAX_AMOUNT. `doing` starts the detail: "Adding this item".
 */
export function judgeCartTotals(state: CartState, source: string, doing: string): void {
  const overflow = amountOverflow(totalsOf(state));
  if (overflow === undefined) return;
  const what =
    overflow.what === 'line'
      ? `the line total of "${state.items[overflow.index ?? 0]?.name}" (unit price × quantity)`
      : 'the cart total (the sum of every line)';
  throw badRequest(
    `${doing} would make ${what} ${overflow.amount} minor units, above the largest amount ` +
      `(${MAX_AMOUNT}); lower the quantity or the price.`,
    source,
  );
}

/**
 * 400 when a stored item or discount is out of the bounds writes now keep (a cart written by
 * an older version): such a cart cannot become an order a client can read.
 */
export function judgeCartItems(state: CartState): void {
  for (const item of state.items) {
    if (item.quantity > MAX_QUANTITY || item.unit_amount > MAX_AMOUNT) {
      throw badRequest(
        `Item ${item.id} has a quantity or unit price above the largest allowed ` +
          `(${MAX_QUANTITY} units, ${MAX_AMOUNT} minor units): change it before checking out.`,
        'cart',
      );
    }
  }
  for (const discount of state.discounts) {
    if (discount.amount < -MAX_AMOUNT) {
      throw badRequest(
        `Custom discount ${discount.id} is below -${MAX_AMOUNT} minor units: change it before ` +
          'checking out.',
        'cart',
      );
    }
  }
}
