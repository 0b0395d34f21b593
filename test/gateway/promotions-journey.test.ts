/**
 * Promotions through the gateway only: a merchandiser (client_credentials) creates a promotion
 * and a code with limited uses; a shopper (implicit token) applies the code to a cart that also
 * has a custom discount (totals change by exactly the documented amount, in docs/storefront.md's order),
 * removes it, applies it again and checks out; the usage appears in the promotion's usages
 * connection (and in a usedOn range); the spent code is then refused with a coded error and the
 * cart is left as it was. Rule promotions go the same way for their own writes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';

let stack: Stack;
let admin: string;
let implicit: string;

beforeAll(async () => {
  stack = await startStack();
  admin = await stack.token();
  implicit = await stack.implicitToken();
});
afterAll(() => stack?.close());

type Json = any;

async function run(token: string, query: string, variables?: Record<string, unknown>) {
  const { status, body } = await stack.graphql(query, variables, { token });
  expect(status).toBe(200);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data as Json;
}

/** A mutation refused with one user error (select its `userErrors { code field message }`). */
async function refused(token: string, query: string, variables?: Record<string, unknown>) {
  const { body } = await stack.graphql(query, variables, { token });
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  const [payload] = Object.values(body.data) as Json[];
  expect(payload.userErrors, JSON.stringify(body.data)).toHaveLength(1);
  return payload.userErrors[0] as { code: string; field: string[] | null; message: string };
}

const WINDOW = { start: '2020-01-01T00:00:00Z', end: '2099-01-01T00:00:00Z' };

const TOTALS = `totals { withTax { amount formatted } discount { amount } withoutDiscount { amount } }
  promotionCodes
  promotionDiscounts { promotionId code amount { amount formatted } source isCartDiscount }`;

const APPLY = `mutation($input: ApplyCartPromotionCodeInput!) {
  applyCartPromotionCode(input: $input) { cart { ${TOTALS} } userErrors { code field message } } }`;
const REMOVE = `mutation($input: RemoveCartPromotionCodeInput!) {
  removeCartPromotionCode(input: $input) { cart { ${TOTALS} } } }`;

describe('a promotion code from creation to its usage, through the gateway', () => {
  it('discounts exactly, composes with custom discounts, is used once, then refused', async () => {
    // The merchandiser: 15% off the cart, with a code good for one use.
    const promotion = (
      await run(
        admin,
        `mutation($input: CreatePromotionInput!) {
          createPromotion(input: $input) { promotion { id upstreamId name promotionType enabled } } }`,
        {
          input: {
            name: 'Spring 15',
            enabled: true,
            promotionType: 'PERCENT_DISCOUNT',
            percent: 15,
            ...WINDOW,
          },
        },
      )
    ).createPromotion.promotion;
    expect(promotion).toMatchObject({ name: 'Spring 15', promotionType: 'PERCENT_DISCOUNT' });
    const codes = (
      await run(
        admin,
        `mutation($input: AddPromotionCodesInput!) {
          addPromotionCodes(input: $input) { codes { code usesLeft maxUses } } }`,
        { input: { promotionId: promotion.upstreamId, codes: [{ code: 'SPRING15', maxUses: 1 }] } },
      )
    ).addPromotionCodes.codes;
    // `maxUses` in, `maxUses` and `usesLeft` out: one name, one meaning.
    expect(codes).toEqual([{ code: 'SPRING15', usesLeft: 1, maxUses: 1 }]);

    // The shopper: a cart of 2 × $40.00 with a $10.00 cart-level custom discount.
    const cartId = (
      await run(
        implicit,
        `mutation { createCart(input: { name: "Spring", customDiscountsEnabled: true }) {
          cart { upstreamId } } }`,
      )
    ).createCart.cart.upstreamId;
    await run(
      implicit,
      `mutation($input: AddCartCustomItemInput!) { addCartCustomItem(input: $input) { cart { upstreamId } } }`,
      { input: { cartId, name: 'Vase', sku: 'VASE', quantity: 2, price: { amount: 4000 } } },
    );
    const custom = (
      await run(
        implicit,
        `mutation($input: AddCartCustomDiscountInput!) {
          addCartCustomDiscount(input: $input) { cart { ${TOTALS} } } }`,
        {
          input: {
            cartId,
            amount: -1000,
            description: 'Loyalty',
            discountCode: 'LOYAL',
            discountEngine: 'crm',
            externalId: 'l-1',
          },
        },
      )
    ).addCartCustomDiscount.cart;
    expect(custom.totals.withTax.amount).toBe(7000);

    // Apply: 15% of the subtotal after item discounts (8000) is 1200, then the custom 1000.
    const applied = (await run(implicit, APPLY, { input: { cartId, code: 'spring15' } }))
      .applyCartPromotionCode.cart;
    expect(applied.totals).toEqual({
      withTax: { amount: 5800, formatted: '$58.00' },
      discount: { amount: -2200 },
      withoutDiscount: { amount: 8000 },
    });
    expect(applied.promotionCodes).toEqual(['SPRING15']);
    expect(applied.promotionDiscounts).toEqual([
      {
        promotionId: promotion.upstreamId,
        code: 'SPRING15',
        amount: { amount: -1200, formatted: '-$12.00' },
        source: 'promotion',
        isCartDiscount: true,
      },
    ]);

    // Remove: back to the custom discount alone. Apply again.
    const removed = (await run(implicit, REMOVE, { input: { cartId, code: 'SPRING15' } }))
      .removeCartPromotionCode.cart;
    expect(removed.totals.withTax.amount).toBe(7000);
    expect(removed.promotionDiscounts).toEqual([]);
    const again = (await run(implicit, APPLY, { input: { cartId, code: 'SPRING15' } }))
      .applyCartPromotionCode.cart;
    expect(again.totals.withTax.amount).toBe(5800);

    // Check out as a guest: the order carries the discounted total.
    const order = (
      await run(
        implicit,
        `mutation($input: CheckoutCartInput!) {
          checkoutCart(input: $input) { order { upstreamId totals { withTax { amount } } } } }`,
        {
          input: {
            cartId,
            customer: { name: 'Guest', email: 'guest@example.com' },
            billingAddress: {
              firstName: 'G',
              lastName: 'Uest',
              line1: '1 Road',
              region: 'R',
              postcode: 'P',
              country: 'GB',
            },
          },
        },
      )
    ).checkoutCart.order;
    expect(order.totals.withTax.amount).toBe(5800);

    // The usage, in the promotion's usages, and in a usedOn range from a minute ago.
    const since = new Date(Date.now() - 60_000).toISOString();
    const usages = (
      await run(
        admin,
        `query($id: ID!, $since: DateTime!) { promotion(id: $id) {
          usages(first: 10, sortKey: CREATED_AT, filter: { usedOn: { ge: $since } }) {
            totalCount nodes { orderId code customerEmail usedOn anonymized } }
          codes(first: 5) { nodes { code usesLeft maxUses } } } }`,
        { id: promotion.upstreamId, since },
      )
    ).promotion;
    expect(usages.usages.totalCount).toBe(1);
    expect(usages.usages.nodes[0]).toMatchObject({
      orderId: order.upstreamId,
      code: 'SPRING15',
      customerEmail: 'guest@example.com',
      anonymized: false,
    });
    expect(usages.codes.nodes).toEqual([{ code: 'SPRING15', usesLeft: 0, maxUses: 1 }]);

    // The code is spent: another cart is refused it with a coded error, and is unchanged.
    const other = (
      await run(
        implicit,
        `mutation { createCart(input: { name: "Late" }) { cart { upstreamId } } }`,
      )
    ).createCart.cart.upstreamId;
    await run(
      implicit,
      `mutation($input: AddCartCustomItemInput!) { addCartCustomItem(input: $input) { cart { upstreamId } } }`,
      { input: { cartId: other, name: 'Vase', sku: 'VASE', quantity: 1, price: { amount: 4000 } } },
    );
    const error = await refused(implicit, APPLY, { input: { cartId: other, code: 'SPRING15' } });
    expect(error.code).toBe('BAD_USER_INPUT');
    expect(error.message).toContain('no uses left');
    const still = (
      await run(implicit, `query($id: ID!) { cart(id: $id) { ${TOTALS} } }`, { id: other })
    ).cart;
    expect(still.totals.withTax.amount).toBe(4000);
    expect(still.promotionCodes).toEqual([]);
  });

  it('creates, updates and disables a rule promotion, whose code applies in any case', async () => {
    const created = (
      await run(
        admin,
        `mutation($input: CreateRulePromotionInput!) {
          createRulePromotion(input: $input) { promotion { upstreamId priority stackable ruleSet } } }`,
        {
          input: {
            name: 'Mugs 500 off',
            enabled: true,
            priority: 5,
            currencies: ['USD'],
            requiredSkus: ['MUG'],
            discount: { level: 'ITEM', method: 'FIXED', value: 500, skus: ['MUG'] },
            ...WINDOW,
          },
        },
      )
    ).createRulePromotion.promotion;
    expect(created).toMatchObject({ priority: 5, stackable: true });
    const id = created.upstreamId;
    await run(
      admin,
      `mutation($input: AddRulePromotionCodesInput!) { addRulePromotionCodes(input: $input) { codes { code } } }`,
      { input: { promotionId: id, codes: [{ code: 'MugLove' }] } },
    );
    const updated = (
      await run(
        admin,
        `mutation($input: UpdateRulePromotionInput!) {
          updateRulePromotion(input: $input) { promotion { priority name } } }`,
        { input: { promotionId: id, priority: 9 } },
      )
    ).updateRulePromotion.promotion;
    expect(updated).toEqual({ priority: 9, name: 'Mugs 500 off' });

    const cartId = (
      await run(
        implicit,
        `mutation { createCart(input: { name: "Mugs" }) { cart { upstreamId } } }`,
      )
    ).createCart.cart.upstreamId;
    await run(
      implicit,
      `mutation($input: AddCartCustomItemInput!) { addCartCustomItem(input: $input) { cart { upstreamId } } }`,
      { input: { cartId, name: 'Mug', sku: 'MUG', quantity: 3, price: { amount: 1200 } } },
    );
    const cart = (await run(implicit, APPLY, { input: { cartId, code: 'MUGLOVE' } }))
      .applyCartPromotionCode.cart;
    // 500 off each of 3 mugs.
    expect(cart.totals.withTax.amount).toBe(3600 - 1500);
    expect(cart.promotionDiscounts[0]).toMatchObject({
      source: 'rule-promotion',
      isCartDiscount: false,
    });

    const disabled = (
      await run(
        admin,
        `mutation($input: DisableRulePromotionInput!) {
          disableRulePromotion(input: $input) { promotion { enabled } } }`,
        { input: { promotionId: id } },
      )
    ).disableRulePromotion.promotion;
    expect(disabled.enabled).toBe(false);
    const after = (
      await run(implicit, `query($id: ID!) { cart(id: $id) { ${TOTALS} } }`, { id: cartId })
    ).cart;
    expect(after.totals.withTax.amount).toBe(3600);
    // The code stays applied; its promotion no longer applies.
    expect(after.promotionCodes).toEqual(['MugLove']);
    expect(
      (await run(admin, `{ rulePromotions(first: 5) { totalCount nodes { upstreamId } } }`))
        .rulePromotions.nodes,
    ).toEqual([{ upstreamId: id }]);
  });
});
