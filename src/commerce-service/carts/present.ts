/**
 * The JSON of a cart, its items and its custom discounts, shaped close to the production
 * API's. Amounts are integers in minor units of the cart's currency, each with its formatted
 * form (money.ts).
 */
import { type ItemTotals, type MoneyValue, money } from '../money.ts';
import type { PromotionLine } from '../promotions/engine.ts';
import { shownBundleConfiguration } from './bundles.ts';
import { presentPromotionItems, promotionItemRefs } from './promotion-display.ts';
import {
  type CartState,
  cartExpiresAt,
  type DiscountRow,
  discountsOn,
  type ItemRow,
} from './storage.ts';
import { totalsOf } from './totals.ts';

function displayPrice(
  totals: { withoutDiscount: number; discount: number; total: number },
  currency: string,
): Record<string, MoneyValue> {
  return {
    with_tax: money(totals.total, currency),
    without_tax: money(totals.total, currency),
    tax: money(0, currency),
    discount: money(totals.discount, currency),
    without_discount: money(totals.withoutDiscount, currency),
  };
}

export function presentDiscount(row: DiscountRow, currency: string) {
  return {
    id: row.id,
    type: 'custom_discount',
    amount: money(row.amount, currency),
    description: row.description,
    discount_code: row.discount_code,
    discount_engine: row.discount_engine,
    external_id: row.external_id,
    ...(row.item_id === null
      ? {}
      : { relationships: { item: { data: { type: 'custom_item', id: row.item_id } } } }),
    meta: { timestamps: { created_at: row.created_at, updated_at: row.updated_at } },
  };
}

/**
 * A promotion's discount line, as production's cart and item `discounts` show them: the
 * promotion's id, the code (empty for an automatic promotion), the amount (below zero) and
 * which engine it came from.
 */
function presentPromotionLine(line: PromotionLine, currency: string) {
  return {
    id: line.promotion.promotionId,
    code: line.promotion.code ?? '',
    name: line.promotion.name,
    amount: money(line.amount, currency),
    promotion_source: line.promotion.kind === 'rule' ? 'rule-promotion' : 'promotion',
    is_cart_discount: line.itemId === null,
    ...(line.itemId === null ? {} : { item_id: line.itemId }),
  };
}

/** The cart-level custom discounts, as `include=custom_discounts` and the cart list show them. */
export function presentCartDiscounts(state: CartState) {
  return discountsOn(state, null).map((d) => presentDiscount(d, state.cart.currency));
}

function presentItem(state: CartState, item: ItemRow, line: ItemTotals | undefined) {
  const currency = state.cart.currency;
  line ??= { withoutDiscount: 0, discount: 0, value: 0 };
  const unitDiscount = Math.trunc(line.discount / item.quantity);
  const pair = (unit: number, value: number) => ({
    unit: money(unit, currency),
    value: money(value, currency),
  });
  const discounts = discountsOn(state, item.id);
  const unpriceable = state.unpriceable.get(item.id);
  return {
    id: item.id,
    type: item.type ?? 'custom_item',
    ...(item.product_id == null
      ? {}
      : { product_id: item.product_id, catalog_id: item.catalog_id, catalog_source: 'pim' }),
    name: item.name,
    description: item.description,
    sku: item.sku,
    quantity: item.quantity,
    ...shownBundleConfiguration(item.bundle_configuration),
    manage_stock: item.product_id != null,
    unit_price: { amount: item.unit_amount, currency, includes_tax: item.includes_tax === 1 },
    value: { amount: line.withoutDiscount, currency, includes_tax: item.includes_tax === 1 },
    links: {},
    meta: {
      display_price: {
        with_tax: pair(item.unit_amount + unitDiscount, line.value),
        without_tax: pair(item.unit_amount + unitDiscount, line.value),
        tax: pair(0, 0),
        discount: pair(unitDiscount, line.discount),
        without_discount: pair(item.unit_amount, line.withoutDiscount),
      },
      timestamps: { created_at: item.created_at, updated_at: item.updated_at },
      // A catalog line the catalog no longer prices shows its last price, and why it cannot
      // be checked out (carts/reprice.ts).
      ...(unpriceable === undefined ? {} : { price_unavailable: unpriceable }),
    },
    relationships: {
      custom_discounts: {
        data: discounts.map((d) => ({ type: 'custom_discount', id: d.id })),
      },
    },
    custom_discounts: discounts.map((d) => presentDiscount(d, currency)),
    discounts: state.promotions
      .filter((line) => line.itemId === item.id)
      .map((line) => presentPromotionLine(line, currency)),
  };
}

function cartMeta(state: CartState) {
  const { cart } = state;
  return {
    display_price: displayPrice(totalsOf(state), cart.currency),
    timestamps: {
      created_at: cart.created_at,
      updated_at: cart.updated_at,
      // When the cart goes if nothing changes it (storage.ts, CART_LIFETIME_MS).
      expires_at: cartExpiresAt(cart),
    },
  };
}

export function presentCart(state: CartState) {
  const { cart } = state;
  return {
    id: cart.id,
    type: 'cart',
    name: cart.name,
    description: cart.description,
    currency: cart.currency,
    discount_settings: {
      custom_discounts_enabled: cart.custom_discounts_enabled === 1,
      // Both promotion engines always run here (promotions/engine.ts).
      use_rule_promotions: true,
    },
    links: { self: `/v2/carts/${cart.id}` },
    meta: cartMeta(state),
    // Every promotion line, item and cart level, and the codes the shopper applied (whether
    // their promotion applies now or not), so a storefront can offer to remove them.
    discounts: state.promotions.map((line) => presentPromotionLine(line, cart.currency)),
    promotion_codes: state.codes,
    relationships: {
      ...(cart.customer_id === null
        ? {}
        : { customers: { data: [{ type: 'customer', id: cart.customer_id }] } }),
      ...(cart.account_id == null
        ? {}
        : { accounts: { data: [{ type: 'account', id: cart.account_id }] } }),
      items: {
        data: [
          ...state.items.map((i) => ({ type: i.type ?? 'custom_item', id: i.id })),
          ...promotionItemRefs(state),
        ],
      },
      custom_discounts: {
        data: discountsOn(state, null).map((d) => ({ type: 'custom_discount', id: d.id })),
      },
    },
  };
}

/**
 * Every item of the cart, with the line totals computed once for all of them, then its
 * promotion items (carts/promotion-display.ts).
 */
export function presentAllItems(state: CartState) {
  const lines = totalsOf(state).items;
  return [
    ...state.items.map((item, i) => presentItem(state, item, lines[i])),
    ...presentPromotionItems(state),
  ];
}

/** The production API answers every item write with the cart's whole item list and totals. */
export function presentItems(state: CartState) {
  return { data: presentAllItems(state), meta: cartMeta(state) };
}
