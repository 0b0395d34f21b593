/**
 * Promotions in the embedded service over HTTP: both engines' CRUD, codes with limited uses,
 * carts with codes and automatic promotions composed with custom discounts (the order
 * docs/storefront.md states), checkout consuming uses and recording usages atomically, usage lists with
 * sort and used_on ranges, and anonymisation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
beforeAll(async () => {
  service = await startService();
});
afterAll(() => service?.close());

const WINDOW = { start: '2020-01-01T00:00:00Z', end: '2099-01-01T00:00:00Z' };

async function create(path: string, data: Record<string, unknown>) {
  const result = await service.call('POST', path, { json: { data } });
  expect(result.status, JSON.stringify(result.body)).toBe(201);
  return result.body.data as { id: string; [k: string]: any };
}

async function standard(schema: Record<string, unknown>, type: string, extra = {}) {
  return create('/v2/promotions', {
    type: 'promotion',
    name: `${type} promo`,
    description: 'test',
    enabled: true,
    automatic: false,
    promotion_type: type,
    schema,
    ...WINDOW,
    ...extra,
  });
}

async function addCodes(path: string, codes: Record<string, unknown>[]) {
  const result = await service.call('POST', `${path}/codes`, {
    json: { data: { type: 'promotion_codes', codes } },
  });
  expect(result.status, JSON.stringify(result.body)).toBe(201);
  return result.body.data as { id: string; code: string; uses: number | null }[];
}

async function cartWith(items: { sku: string; amount: number; quantity: number }[]) {
  const cart = await create('/v2/carts', {
    name: 'promo cart',
    discount_settings: { custom_discounts_enabled: true },
  });
  for (const item of items) {
    await create(`/v2/carts/${cart.id}/items`, {
      type: 'custom_item',
      name: item.sku,
      sku: item.sku,
      quantity: item.quantity,
      price: { amount: item.amount },
    });
  }
  return cart.id;
}

const applyCode = (cartId: string, code: string) =>
  service.call('POST', `/v2/carts/${cartId}/items`, {
    json: { data: { type: 'promotion_item', code } },
  });

async function cart(cartId: string) {
  const result = await service.call('GET', `/v2/carts/${cartId}`);
  return result.body.data;
}

const checkout = (cartId: string, email: string) =>
  service.call('POST', `/v2/carts/${cartId}/checkout`, {
    json: {
      data: {
        customer: { name: 'Ada', email },
        billing_address: {
          first_name: 'Ada',
          last_name: 'L',
          line_1: '1 Way',
          region: 'X',
          postcode: '1',
          country: 'GB',
        },
      },
    },
  });

describe('standard promotions', () => {
  it('creates, reads, updates, lists and deletes; judges bodies before writing', async () => {
    const promo = await standard(
      { currencies: [{ currency: 'USD', amount: 500 }] },
      'fixed_discount',
    );
    expect(promo).toMatchObject({
      type: 'promotion',
      promotion_type: 'fixed_discount',
      enabled: true,
    });
    const updated = await service.call('PUT', `/v2/promotions/${promo.id}`, {
      json: { data: { type: 'promotion', enabled: false } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ enabled: false, name: 'fixed_discount promo' });
    const listed = await service.call('GET', '/v2/promotions?filter=eq(enabled,false)');
    expect(listed.body.data.map((p: { id: string }) => p.id)).toContain(promo.id);
    // Not a rule promotion: the other engine's id is a 404.
    expect((await service.call('GET', `/v2/rule-promotions/${promo.id}`)).status).toBe(404);
    for (const [schema, source] of [
      [{ currencies: [{ currency: 'USD', amount: 0 }] }, 'data.schema.currencies[0].amount'],
      [{ currencies: [{ currency: 'USD', amount: 2 ** 31 }] }, 'data.schema.currencies[0].amount'],
      [{ currencies: [{ currency: 'usd1', amount: 5 }] }, 'data.schema.currencies[0].currency'],
    ] as const) {
      const bad = await service.call('POST', '/v2/promotions', {
        json: {
          data: { name: 'x', enabled: true, promotion_type: 'fixed_discount', schema, ...WINDOW },
        },
      });
      expect(bad.status).toBe(400);
      expect(errorOf(bad).source).toBe(source);
    }
    const percent = await service.call('POST', '/v2/promotions', {
      json: {
        data: {
          name: 'x',
          enabled: true,
          promotion_type: 'percent_discount',
          schema: { percent: 101 },
          ...WINDOW,
        },
      },
    });
    expect(errorOf(percent).source).toBe('data.schema.percent');
    expect((await service.call('DELETE', `/v2/promotions/${promo.id}`)).status).toBe(204);
  });

  it('applies a code after item custom discounts are known, in the documented order', async () => {
    const item = await standard(
      { targets: ['MUG'], currencies: [{ currency: 'USD', amount: 100 }] },
      'item_fixed_discount',
    );
    const whole = await standard({ percent: 10 }, 'percent_discount');
    await addCodes(`/v2/promotions/${item.id}`, [{ code: 'MUGS' }]);
    await addCodes(`/v2/promotions/${whole.id}`, [{ code: 'TENOFF', uses: 1 }]);
    const cartId = await cartWith([
      { sku: 'MUG', amount: 1000, quantity: 2 },
      { sku: 'TEA', amount: 3000, quantity: 1 },
    ]);
    // A cart-level custom discount of −$5.
    await create(`/v2/carts/${cartId}/custom-discounts`, {
      type: 'custom_discount',
      amount: -500,
      description: 'd',
      discount_code: 'C',
      discount_engine: 'e',
      external_id: 'x',
    });
    expect((await cart(cartId)).meta.display_price.with_tax.amount).toBe(4500);
    expect((await applyCode(cartId, 'mugs')).status).toBe(201);
    expect((await applyCode(cartId, 'TenOff')).status).toBe(201);
    const after = await cart(cartId);
    // Items: 2000 − 200 (MUGS, 100 per unit) + 3000 = 4800; TENOFF 10% of 4800 = 480;
    // custom −500: 4800 − 480 − 500 = 3820.
    expect(after.meta.display_price.with_tax.amount).toBe(3820);
    expect(after.meta.display_price.discount.amount).toBe(-1180);
    expect(after.promotion_codes).toEqual(['MUGS', 'TENOFF']);
    expect(after.discounts.map((d: any) => [d.code, d.amount.amount, d.is_cart_discount])).toEqual([
      ['MUGS', -200, false],
      ['TENOFF', -480, true],
    ]);
    // Removing TENOFF gives its 480 back; applying it again takes it off again.
    expect((await service.call('DELETE', `/v2/carts/${cartId}/discounts/tenoff`)).status).toBe(200);
    expect((await cart(cartId)).meta.display_price.with_tax.amount).toBe(4300);
    expect((await applyCode(cartId, 'TENOFF')).status).toBe(201);
    const order = await checkout(cartId, 'ada@example.com');
    expect(order.status, JSON.stringify(order.body)).toBe(201);
    expect(order.body.data.meta.display_price.with_tax.amount).toBe(3820);
    // TENOFF had one use: it is spent, so another cart is refused it, with a 422.
    const other = await cartWith([{ sku: 'TEA', amount: 3000, quantity: 1 }]);
    const refused = await applyCode(other, 'TENOFF');
    expect(refused.status).toBe(422);
    expect(errorOf(refused).detail).toContain('no uses left');
    const codes = await service.call('GET', `/v2/promotions/${whole.id}/codes`);
    expect(codes.body.data[0]).toMatchObject({ code: 'TENOFF', uses: 0, max_uses: 1 });
    const usages = await service.call('GET', `/v2/promotions/${whole.id}/usages`);
    expect(usages.body.data).toHaveLength(1);
    expect(usages.body.data[0]).toMatchObject({
      order_id: order.body.data.id,
      code: 'TENOFF',
      customer_email: 'ada@example.com',
      anonymized: false,
    });
  });

  it('refuses a checkout whole when a code was spent meanwhile: no order, no usage', async () => {
    const promo = await standard(
      { currencies: [{ currency: 'USD', amount: 300 }] },
      'fixed_discount',
    );
    await addCodes(`/v2/promotions/${promo.id}`, [{ code: 'ONCE', uses: 1 }]);
    const first = await cartWith([{ sku: 'A', amount: 1000, quantity: 1 }]);
    const second = await cartWith([{ sku: 'A', amount: 1000, quantity: 1 }]);
    await applyCode(first, 'ONCE');
    await applyCode(second, 'ONCE');
    expect((await checkout(first, 'a@example.com')).status).toBe(201);
    const orderCount = async () =>
      (await service.call('GET', '/v2/orders?page[limit]=1')).body.meta.results.total;
    const ordersBefore = await orderCount();
    const refused = await checkout(second, 'b@example.com');
    expect(refused.status).toBe(422);
    expect(errorOf(refused).source).toBe('data.code');
    expect(await orderCount()).toBe(ordersBefore);
    // With the code removed, the same cart checks out at its full price.
    expect((await service.call('DELETE', `/v2/carts/${second}/discounts/ONCE`)).status).toBe(200);
    const paid = await checkout(second, 'b@example.com');
    expect(paid.body.data.meta.display_price.with_tax.amount).toBe(1000);
    const usages = await service.call('GET', `/v2/promotions/${promo.id}/codes/once/usages`);
    expect(usages.body.data.map((u: any) => u.customer_email)).toEqual(['a@example.com']);
  });

  it('lists usages with sort and used_on ranges, and anonymises them', async () => {
    const promo = await standard(
      { currencies: [{ currency: 'USD', amount: 100 }] },
      'fixed_discount',
    );
    await addCodes(`/v2/promotions/${promo.id}`, [{ code: 'MANY' }]);
    for (const email of ['u1@example.com', 'u2@example.com', 'u3@example.com']) {
      const cartId = await cartWith([{ sku: 'A', amount: 1000, quantity: 1 }]);
      await applyCode(cartId, 'MANY');
      expect((await checkout(cartId, email)).status).toBe(201);
    }
    const path = `/v2/promotions/${promo.id}/usages`;
    const ascending = await service.call('GET', `${path}?sort=used_on`);
    const rows = ascending.body.data as { id: string; used_on: string }[];
    expect(rows.map((r: any) => r.customer_email)).toEqual([
      'u1@example.com',
      'u2@example.com',
      'u3@example.com',
    ]);
    const since = await service.call(
      'GET',
      `${path}?sort=-used_on&filter=gt(used_on,${rows[0]?.used_on})`,
    );
    expect(since.body.data.map((r: any) => r.customer_email)).toEqual([
      'u3@example.com',
      'u2@example.com',
    ]);
    expect((await service.call('GET', `${path}?filter=gt(used_on,yesterday)`)).status).toBe(400);
    const anonymized = await service.call('POST', '/v2/promotions/usages/anonymize', {
      json: { data: { usage_ids: [rows[0]?.id] } },
    });
    expect(anonymized.status).toBe(200);
    expect(anonymized.body.data[0]).toMatchObject({ anonymized: true, customer_email: null });
    // The Promotions Builder's anonymize does not reach a standard promotion's usage.
    const other = await service.call('POST', '/v2/rule-promotions/usages/anonymize', {
      json: { data: { usage_ids: [rows[1]?.id] } },
    });
    expect(other.body.data).toEqual([]);
  });
});

describe('Promotions Builder', () => {
  it('applies by priority, stops at a non-stackable one, and takes codes in any case', async () => {
    const rule = (
      name: string,
      priority: number,
      stackable: boolean,
      action: unknown,
      extra = {},
    ) =>
      create('/v2/rule-promotions', {
        type: 'rule_promotion',
        name,
        enabled: true,
        automatic: true,
        priority,
        stackable,
        ...WINDOW,
        rule_set: {
          currencies: ['GBP'],
          rules: { strategy: 'cart_total', operator: 'gte', args: [5000] },
          actions: [action],
        },
        ...extra,
      });
    await rule('big', 10, false, { strategy: 'cart_discount', args: ['fixed', 1000] });
    await rule('blocked', 5, true, { strategy: 'cart_discount', args: ['percent', 50] });
    const coded = await rule(
      'socks',
      1,
      true,
      {
        strategy: 'item_discount',
        args: ['percent', 20],
        condition: { strategy: 'item_sku', operator: 'in', args: ['SOCK'] },
      },
      { automatic: false, override_stacking: true },
    );
    await addCodes(`/v2/rule-promotions/${coded.id}`, [
      { code: 'Socks20', max_uses_per_shopper: { max_uses: 1 } },
    ]);
    const dup = await service.call('POST', `/v2/rule-promotions/${coded.id}/codes`, {
      json: { data: { codes: [{ code: 'SOCKS20' }] } },
    });
    expect(dup.status).toBe(422);
    const created = await service.call('POST', '/v2/carts', {
      json: { data: { name: 'gbp' } },
      headers: { 'x-moltin-currency': 'GBP' },
    });
    const cartId = created.body.data.id;
    await create(`/v2/carts/${cartId}/items`, {
      type: 'custom_item',
      name: 'socks',
      sku: 'SOCK',
      quantity: 1,
      price: { amount: 6000 },
    });
    // "big" (−1000) applies and is not stackable: "blocked" does not apply.
    expect((await cart(cartId)).meta.display_price.with_tax.amount).toBe(5000);
    expect((await applyCode(cartId, 'socks20')).status).toBe(201);
    // The coded item discount overrides stacking: 20% of 6000 = 1200 off the line first.
    const after = await cart(cartId);
    expect(after.meta.display_price.with_tax.amount).toBe(3800);
    expect(after.discounts.every((d: any) => d.promotion_source === 'rule-promotion')).toBe(true);
    const bad = await service.call('POST', '/v2/rule-promotions', {
      json: {
        data: {
          name: 'x',
          enabled: true,
          ...WINDOW,
          rule_set: { actions: [{ strategy: 'cart_discount', args: ['percent', 150] }] },
        },
      },
    });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).source).toBe('data.rule_set.actions[0].args[1]');
  });
});

describe('bad bodies on every promotion write', () => {
  it('answers each with a 4xx naming the field, never a 5xx, and writes nothing', async () => {
    const promo = await standard({ percent: 5 }, 'percent_discount');
    const cartId = await cartWith([{ sku: 'A', amount: 100, quantity: 1 }]);
    const count = async () =>
      (await service.call('GET', '/v2/promotions?page[limit]=1')).body.meta.results.total;
    const before = await count();
    const shapes: unknown[] = [null, [], 'text', { data: null }, { data: [] }];
    const promotionBodies: unknown[] = [
      { data: { name: 5 } },
      { data: { name: 'x', enabled: 'yes', ...WINDOW } },
      { data: { name: 'x', enabled: true, start: 'soon', end: WINDOW.end } },
      { data: { name: 'x', enabled: true, ...WINDOW, promotion_type: 'x_for_y', schema: {} } },
      { data: { name: 'x', enabled: true, ...WINDOW, promotion_type: 'fixed_discount' } },
      { data: { name: 'x', enabled: true, ...WINDOW, promotion_type: 'no', rule_set: {} } },
      { data: { start: '2099-06-01T00:00:00Z' } },
    ];
    const targets: [string, string, unknown[]][] = [
      ['POST', '/v2/promotions', promotionBodies],
      ['POST', '/v2/rule-promotions', promotionBodies],
      ['PUT', `/v2/promotions/${promo.id}`, promotionBodies],
      [
        'POST',
        `/v2/promotions/${promo.id}/codes`,
        [
          { data: { codes: 'ABC' } },
          { data: { codes: [{ code: '' }] } },
          { data: { codes: [{ code: 'A' }, { code: 'B', uses: -1 }] } },
          { data: { codes: [{ code: 'A', max_uses_per_shopper: { max_uses: 0 } }] } },
          { data: { codes: [{ code: 'A' }, { code: 'a' }] } },
        ],
      ],
      [
        'POST',
        '/v2/promotions/usages/anonymize',
        [{ data: { usage_ids: ['x'] } }, { data: { usage_ids: [] } }],
      ],
      [
        'POST',
        `/v2/carts/${cartId}/items`,
        [
          { data: { type: 'promotion_item', code: 'a b' } },
          { data: { type: 'promotion_item', code: 'x'.repeat(65) } },
          { data: { type: 'promotion_item' } },
          { data: { type: 'promotion_item', code: 'NOSUCHCODE' } },
        ],
      ],
    ];
    for (const [method, path, bodies] of targets) {
      for (const body of [...shapes, ...bodies]) {
        const result = await service.call(method, path, { json: body });
        const what = `${method} ${path} ${JSON.stringify(body)}`;
        expect(result.status, what).toBeGreaterThanOrEqual(400);
        expect(result.status, what).toBeLessThan(500);
      }
    }
    expect(await count()).toBe(before);
    expect((await service.call('GET', `/v2/promotions/${promo.id}/codes`)).body.data).toEqual([]);
    expect((await cart(cartId)).promotion_codes).toEqual([]);
    expect(
      (await service.call('GET', `/v2/promotions/${promo.id}/codes/a%20b/usages`)).status,
    ).toBe(400);
  });
});

describe('uses per shopper', () => {
  it('counts a guest by the order’s email when the code includes guests', async () => {
    const promo = await create('/v2/rule-promotions', {
      name: 'once each',
      enabled: true,
      ...WINDOW,
      rule_set: { actions: [{ strategy: 'cart_discount', args: ['fixed', 100] }] },
    });
    await addCodes(`/v2/rule-promotions/${promo.id}`, [
      { code: 'ONCEEACH', max_uses_per_shopper: { max_uses: 1, includes_guests: true } },
    ]);
    const shop = async (email: string) => {
      const cartId = await cartWith([{ sku: 'A', amount: 1000, quantity: 1 }]);
      expect((await applyCode(cartId, 'onceeach')).status).toBe(201);
      return checkout(cartId, email);
    };
    expect((await shop('one@example.com')).body.data.meta.display_price.with_tax.amount).toBe(900);
    const again = await shop('ONE@example.com');
    expect(again.status).toBe(422);
    expect(errorOf(again).detail).toContain('no uses left');
    expect((await shop('two@example.com')).status).toBe(201);
    const usages = await service.call('GET', `/v2/rule-promotions/${promo.id}/usages?sort=used_on`);
    expect(usages.body.data.map((u: any) => u.customer_email)).toEqual([
      'one@example.com',
      'two@example.com',
    ]);
  });
});
