/**
 * A price modifier applied to a price: how a child product built with an option whose `price`
 * modifier names it is priced from its parent's price. Pure; amounts stay within the money
 * bounds (0 to MAX_AMOUNT minor units).
 */
import { MAX_AMOUNT } from '../money.ts';
import type { CurrencyMap, ModifierType, TierValue } from './bodies.ts';
import type { ResolvedPrice } from './resolve.ts';

export interface PriceModifierValue {
  modifier_type: ModifierType;
  currencies: CurrencyMap;
}

function clamp(amount: number): number {
  return Math.min(MAX_AMOUNT, Math.max(0, amount));
}

/**
 * `amount` changed by the modifier's amount in `currency`: increment adds it, decrement takes
 * it off (never below zero), equals replaces the amount; kept within 0..MAX_AMOUNT. A
 * modifier with no amount in the currency leaves the amount as it is (a child inherits its
 * parent's price unless a modifier says otherwise).
 */
export function applyModifier(
  amount: number,
  modifier: PriceModifierValue,
  currency: string,
): number {
  if (!Object.hasOwn(modifier.currencies, currency)) return amount;
  const by = modifier.currencies[currency]?.amount ?? 0;
  switch (modifier.modifier_type) {
    case 'price_increment':
      return clamp(amount + by);
    case 'price_decrement':
      return clamp(amount - by);
    case 'price_equals':
      return clamp(by);
  }
}

/**
 * A resolved price with the modifier applied to every amount in it: the amount, the list
 * ("was") amount, the sale's amount and each tier's.
 */
export function applyModifierToPrice(
  price: ResolvedPrice,
  modifier: PriceModifierValue,
  currency: string,
): ResolvedPrice {
  const apply = (amount: number) => applyModifier(amount, modifier, currency);
  const tiers: Record<string, TierValue> = {};
  for (const [name, tier] of Object.entries(price.tiers)) {
    tiers[name] = { minimum_quantity: tier.minimum_quantity, amount: apply(tier.amount) };
  }
  return {
    ...price,
    amount: apply(price.amount),
    original_amount: apply(price.original_amount),
    tiers,
    ...(price.sale === undefined
      ? {}
      : { sale: { ...price.sale, amount: apply(price.sale.amount) } }),
  };
}
