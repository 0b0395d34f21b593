import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeCartTotals, formatMoney } from '../../src/commerce-service/money.ts';
import { errorOf, type ServiceUnderTest, startService } from './service-helpers.ts';

const DISCOUNT = {
  type: 'custom_discount',
  amount: -1000,
  description: 'Launch offer',
  discount_code: 'LAUNCH10',
  discount_engine: 'acme-promos',
  external_id: 'ext-1',
};

const ITEM = {
  type: 'custom_item',
  name: 'Pour-over kettle',
  sku: 'KET-PO-01',
  quantity: 2,
  price: { amount: 5900, includes_tax: true },
};

describe('money formatting and totals (pure)', () => {
  it('formats minor units per currency, sign first, unknown codes after the number', () => {
    expect(formatMoney(-1000, 'USD')).toBe('-$10.00');
    expect(formatMoney(123456789, 'EUR')).toBe('€1,234,567.89');
    expect(formatMoney(-5, 'GBP')).toBe('-£0.05');
    expect(formatMoney(1500, 'JPY')).toBe('¥1,500');
    expect(formatMoney(-1000, 'XYZ')).toBe('-10.00 XYZ');
    expect(formatMoney(0, 'USD')).toBe('$0.00');
  });

  it('writes every currency of the table as clients have always seen it', () => {
    // What `formatted` holds for each currency with a symbol of its own, plain spaces only
    // (Intl.NumberFormat writes CHF and SEK with a no-break space, and other codes first:
    // docs/benchmarks.md's "Library or hand-written" says why the table stays).
    const expected: Record<string, string> = {
      USD: '-$1,234.56',
      EUR: '-€1,234.56',
      GBP: '-£1,234.56',
      JPY: '-¥123,456',
      CAD: '-CA$1,234.56',
      AUD: '-A$1,234.56',
      NZD: '-NZ$1,234.56',
      CHF: '-CHF 1,234.56',
      INR: '-₹1,234.56',
      CNY: '-CN¥1,234.56',
      SEK: '-SEK 1,234.56',
      BHD: '-1,234.56 BHD',
    };
    for (const [currency, formatted] of Object.entries(expected)) {
      expect(formatMoney(-123456, currency), currency).toBe(formatted);
    }
  });

  it('caps discounts at what they apply to, so totals never go negative', () => {
    const totals = computeCartTotals(
      [
        { unitAmount: 1000, quantity: 2, discounts: [-500, -300] },
        { unitAmount: 300, quantity: 1, discounts: [-1000] },
      ],
      [-5000],
    );
    expect(totals.items.map((i) => i.value)).toEqual([1200, 0]);
    expect(totals.withoutDiscount).toBe(2300);
    expect(totals.total).toBe(0);
    expect(totals.discount).toBe(-2300);
  });
});

describe('carts, custom items and custom discounts over HTTP', () => {
  let service: ServiceUnderTest;

  beforeAll(async () => {
    service = await startService();
  });
  afterAll(async () => {
    await service.close();
  });

  async function createCart(enabled: boolean | null = true, headers?: Record<string, string>) {
    const data: Record<string, unknown> = { name: 'Test cart', description: 'for tests' };
    // null: no discount_settings at all, so the store default applies.
    if (enabled !== null) data.discount_settings = { custom_discounts_enabled: enabled };
    const result = await service.call('POST', '/v2/carts', {
      json: { data },
      ...(headers ? { headers } : {}),
    });
    expect(result.status).toBe(201);
    return result.body.data as { id: string; [k: string]: any };
  }

  async function addItem(cartId: string, item: Record<string, unknown> = ITEM) {
    const result = await service.call('POST', `/v2/carts/${cartId}/items`, {
      json: { data: item },
    });
    expect(result.status).toBe(201);
    const items = result.body.data as { id: string; sku: string }[];
    const added = items.at(-1);
    if (!added) throw new Error('no item');
    return added.id;
  }

  async function cartWithItem(enabled = true) {
    const cart = await createCart(enabled);
    const itemId = await addItem(cart.id);
    return { cartId: cart.id, itemId };
  }

  it('creates, reads and deletes a cart; unknown and malformed ids are 404', async () => {
    const cart = await createCart(true);
    expect(cart).toMatchObject({
      type: 'cart',
      name: 'Test cart',
      description: 'for tests',
      discount_settings: { custom_discounts_enabled: true },
    });
    expect(cart.meta.display_price.with_tax).toEqual({
      amount: 0,
      currency: 'USD',
      formatted: '$0.00',
    });
    const read = await service.call('GET', `/v2/carts/${cart.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data.id).toBe(cart.id);
    expect((await service.call('DELETE', `/v2/carts/${cart.id}`)).status).toBe(204);
    expect((await service.call('GET', `/v2/carts/${cart.id}`)).status).toBe(404);
    expect((await service.call('GET', '/v2/carts/not-a-uuid')).status).toBe(404);
  });

  it('requires a cart name and validates discount_settings', async () => {
    const noName = await service.call('POST', '/v2/carts', { json: { data: {} } });
    expect(noName.status).toBe(400);
    expect(errorOf(noName).source).toBe('data.name');
    const badFlag = await service.call('POST', '/v2/carts', {
      json: { data: { name: 'x', discount_settings: { custom_discounts_enabled: 'yes' } } },
    });
    expect(badFlag.status).toBe(400);
    expect(errorOf(badFlag).source).toBe('data.discount_settings.custom_discounts_enabled');
  });

  it('takes the custom-discounts default from the store cart setting', async () => {
    expect((await createCart(null)).discount_settings.custom_discounts_enabled).toBe(false);
    const put = await service.call('PUT', '/v2/settings/cart', {
      json: { data: { type: 'settings', discounts: { custom_discounts_enabled: true } } },
    });
    expect(put.status).toBe(200);
    expect((await createCart(null)).discount_settings.custom_discounts_enabled).toBe(true);
    // An explicit flag still wins over the default.
    expect((await createCart(false)).discount_settings.custom_discounts_enabled).toBe(false);
    await service.call('PUT', '/v2/settings/cart', {
      json: { data: { type: 'settings', discounts: { custom_discounts_enabled: false } } },
    });
  });

  it('adds, lists, updates and removes custom items with totals', async () => {
    const cart = await createCart();
    const add = await service.call('POST', `/v2/carts/${cart.id}/items`, { json: { data: ITEM } });
    expect(add.status).toBe(201);
    expect(add.body.data).toHaveLength(1);
    const item = add.body.data[0];
    expect(item).toMatchObject({
      type: 'custom_item',
      name: 'Pour-over kettle',
      sku: 'KET-PO-01',
      quantity: 2,
      unit_price: { amount: 5900, currency: 'USD', includes_tax: true },
      value: { amount: 11800, currency: 'USD', includes_tax: true },
    });
    expect(add.body.meta.display_price.with_tax.formatted).toBe('$118.00');

    const list = await service.call('GET', `/v2/carts/${cart.id}/items`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((i: { id: string }) => i.id)).toEqual([item.id]);

    const put = await service.call('PUT', `/v2/carts/${cart.id}/items/${item.id}`, {
      json: { data: { id: item.id, type: 'cart_item', quantity: 3 } },
    });
    expect(put.status).toBe(200);
    expect(put.body.data[0].quantity).toBe(3);
    expect(put.body.meta.display_price.without_discount.amount).toBe(17700);

    const del = await service.call('DELETE', `/v2/carts/${cart.id}/items/${item.id}`);
    expect(del.status).toBe(200);
    expect(del.body.data).toEqual([]);
    expect(del.body.meta.display_price.with_tax.amount).toBe(0);
    expect((await service.call('DELETE', `/v2/carts/${cart.id}/items/${item.id}`)).status).toBe(
      404,
    );
  });

  it('rejects invalid custom items, naming the field', async () => {
    const cart = await createCart();
    const cases: [Record<string, unknown>, string][] = [
      // cart_item is a catalog product (cart-products.test.ts); other item types are not served.
      [{ ...ITEM, type: 'subscription_item' }, 'data.type'],
      [{ ...ITEM, quantity: 0 }, 'data.quantity'],
      [{ ...ITEM, quantity: 1.5 }, 'data.quantity'],
      [{ ...ITEM, price: { amount: 10.5, includes_tax: true } }, 'data.price.amount'],
      [{ ...ITEM, price: undefined }, 'data.price'],
      [{ ...ITEM, sku: undefined }, 'data.sku'],
      [{ ...ITEM, name: 7 }, 'data.name'],
    ];
    for (const [data, source] of cases) {
      const result = await service.call('POST', `/v2/carts/${cart.id}/items`, { json: { data } });
      expect(result.status, source).toBe(400);
      expect(errorOf(result).source).toBe(source);
    }
    expect((await service.call('GET', `/v2/carts/${cart.id}/items`)).body.data).toEqual([]);
  });

  it('adds an item discount through the SDK double-slash path; the response carries the amount object', async () => {
    const { cartId, itemId } = await cartWithItem();
    const result = await service.call(
      'POST',
      `/v2/carts/${cartId}/items/${itemId}//custom-discounts`,
      { json: { data: DISCOUNT } },
    );
    expect(result.status).toBe(201);
    expect(result.body.data).toMatchObject({
      type: 'custom_discount',
      amount: { amount: -1000, currency: 'USD', formatted: '-$10.00' },
      description: 'Launch offer',
      discount_code: 'LAUNCH10',
      discount_engine: 'acme-promos',
      external_id: 'ext-1',
    });
    expect(result.body.data.id).toMatch(/^[0-9a-f-]{36}$/);
    const single = await service.call(
      'POST',
      `/v2/carts/${cartId}/items/${itemId}/custom-discounts`,
      { json: { data: { ...DISCOUNT, amount: -1 } } },
    );
    expect(single.status).toBe(201);
    const items = await service.call('GET', `/v2/carts/${cartId}/items`);
    expect(items.body.data[0].custom_discounts).toHaveLength(2);
  });

  it('rejects amount 0, positive and non-integer amounts, naming data.amount', async () => {
    const { cartId, itemId } = await cartWithItem();
    for (const amount of [0, 100, -10.5, '-1000', null]) {
      const result = await service.call(
        'POST',
        `/v2/carts/${cartId}/items/${itemId}/custom-discounts`,
        { json: { data: { ...DISCOUNT, amount } } },
      );
      expect(result.status, String(amount)).toBe(400);
      expect(errorOf(result).source).toBe('data.amount');
    }
    const cartLevel = await service.call('POST', `/v2/carts/${cartId}/custom-discounts`, {
      json: { data: { ...DISCOUNT, amount: 0 } },
    });
    expect(cartLevel.status).toBe(400);
    const items = await service.call('GET', `/v2/carts/${cartId}/items`);
    expect(items.body.data[0].custom_discounts).toEqual([]);
  });

  it('rejects a wrong or missing type', async () => {
    const { cartId, itemId } = await cartWithItem();
    for (const type of ['custom_discounts', 'promotion', undefined]) {
      const result = await service.call(
        'POST',
        `/v2/carts/${cartId}/items/${itemId}/custom-discounts`,
        { json: { data: { ...DISCOUNT, type } } },
      );
      expect(result.status).toBe(400);
      expect(errorOf(result).source).toBe('data.type');
    }
  });

  // The cart routes judge bodies through request-body.ts, as every other route: these are the
  // inputs whose detail changed when their own validators went (status and source did not).
  it('says what a wrong data.type is without echoing it, as every route does', async () => {
    const { cartId, itemId } = await cartWithItem();
    const discounts = `/v2/carts/${cartId}/items/${itemId}/custom-discounts`;
    const cases: [string, string, Record<string, unknown>, string][] = [
      ['POST', discounts, { ...DISCOUNT, type: 7 }, 'got a whole number.'],
      ['POST', discounts, { ...DISCOUNT, type: { deep: [1, 2] } }, 'got an object.'],
      ['POST', discounts, { ...DISCOUNT, type: null }, 'got null.'],
      ['POST', discounts, { ...DISCOUNT, type: ['custom_discount'] }, 'got a list.'],
      ['POST', discounts, { ...DISCOUNT, type: 'a"\\b' }, 'got "a"\\b".'],
      [
        'POST',
        `/v2/carts/${cartId}/custom-discounts`,
        { ...DISCOUNT, type: 7 },
        'got a whole number.',
      ],
    ];
    for (const [method, path, data, got] of cases) {
      const result = await service.call(method, path, { json: { data } });
      expect(result.status, got).toBe(400);
      expect(errorOf(result)).toMatchObject({
        source: 'data.type',
        detail: `data.type must be "custom_discount", ${got}`,
      });
    }
    const created = await service.call('POST', discounts, { json: { data: DISCOUNT } });
    const put = await service.call('PUT', `${discounts}/${created.body.data.id}`, {
      json: { data: { ...DISCOUNT, type: { a: 1 }, amount: -1 } },
    });
    expect(errorOf(put).detail).toBe('data.type must be "custom_discount", got an object.');

    const wrongCart = await service.call('POST', '/v2/carts', {
      json: { data: { type: 'carts', name: 'x' } },
    });
    expect(errorOf(wrongCart)).toMatchObject({
      source: 'data.type',
      detail: 'data.type must be "cart", got "carts".',
    });
    const nullCart = await service.call('POST', '/v2/carts', {
      json: { data: { type: null, name: 'x' } },
    });
    expect(errorOf(nullCart).detail).toBe('data.type must be "cart", got null.');

    const catalog =
      'A cart takes custom_item (name, sku, price), cart_item (a catalog product by id or sku) or promotion_item (a code).';
    const cartItem = await service.call('POST', `/v2/carts/${cartId}/items`, {
      json: { data: { ...ITEM, type: 'subscription_item' } },
    });
    expect(errorOf(cartItem).detail).toBe(
      `data.type must be "custom_item", got "subscription_item". ${catalog}`,
    );
    const noType = await service.call('POST', `/v2/carts/${cartId}/items`, {
      json: { data: { ...ITEM, type: undefined } },
    });
    expect(errorOf(noType).detail).toBe(
      `data.type is required and must be "custom_item". ${catalog}`,
    );

    const quantity = await service.call('PUT', `/v2/carts/${cartId}/items/${itemId}`, {
      json: { data: { type: 1, quantity: 3 } },
    });
    expect(errorOf(quantity)).toMatchObject({
      source: 'data.type',
      detail: 'data.type must be "custom_item" or "cart_item", got a whole number.',
    });
    const items = await service.call('GET', `/v2/carts/${cartId}/items`);
    expect(items.body.data).toHaveLength(1);
    expect(items.body.data[0].quantity).toBe(2);
    expect(items.body.data[0].custom_discounts).toMatchObject([{ amount: { amount: -1000 } }]);
  });

  it('gives one detail for a discount amount out of range, the gateway’s, and "is required" for a missing price amount', async () => {
    const { cartId, itemId } = await cartWithItem();
    const discounts = `/v2/carts/${cartId}/items/${itemId}/custom-discounts`;
    const range = 'must be an integer number of minor units from -2147483647 to -1.';
    for (const amount of [0, 5, -1.5, '-10', -2_147_483_648, { amount: -5 }]) {
      const result = await service.call('POST', discounts, {
        json: { data: { ...DISCOUNT, amount } },
      });
      expect(errorOf(result), JSON.stringify(amount)).toMatchObject({
        source: 'data.amount',
        detail: `data.amount ${range}`,
      });
    }
    const created = await service.call('POST', discounts, { json: { data: DISCOUNT } });
    expect(created.status).toBe(201);
    for (const amount of [1, '1']) {
      const result = await service.call('PUT', `${discounts}/${created.body.data.id}`, {
        json: { data: { ...DISCOUNT, amount: { amount } } },
      });
      expect(errorOf(result)).toMatchObject({
        source: 'data.amount.amount',
        detail: `data.amount.amount ${range}`,
      });
    }
    for (const price of [{}, { amount: null }]) {
      const result = await service.call('POST', `/v2/carts/${cartId}/items`, {
        json: { data: { ...ITEM, price } },
      });
      expect(errorOf(result)).toMatchObject({
        source: 'data.price.amount',
        detail: 'data.price.amount is required.',
      });
    }
    const items = await service.call('GET', `/v2/carts/${cartId}/items`);
    expect(items.body.data).toHaveLength(1);
    expect(items.body.data[0].custom_discounts.map((d: { id: string }) => d.id)).toEqual([
      created.body.data.id,
    ]);
  });

  it('updates an item discount (seed endpoint 2): every field required, amount object accepted', async () => {
    const { cartId, itemId } = await cartWithItem();
    const created = await service.call(
      'POST',
      `/v2/carts/${cartId}/items/${itemId}/custom-discounts`,
      {
        json: { data: DISCOUNT },
      },
    );
    const path = `/v2/carts/${cartId}/items/${itemId}/custom-discounts/${created.body.data.id}`;

    for (const field of [
      'type',
      'amount',
      'description',
      'discount_code',
      'discount_engine',
      'external_id',
    ]) {
      const data: Record<string, unknown> = { ...DISCOUNT, amount: -2000 };
      delete data[field];
      const result = await service.call('PUT', path, { json: { data } });
      expect(result.status, field).toBe(400);
      expect(errorOf(result).source).toBe(`data.${field}`);
    }
    for (const amount of [0, 5, -0.5]) {
      const result = await service.call('PUT', path, { json: { data: { ...DISCOUNT, amount } } });
      expect(result.status, String(amount)).toBe(400);
    }
    // Nothing above changed the discount.
    let items = await service.call('GET', `/v2/carts/${cartId}/items`);
    expect(items.body.data[0].custom_discounts[0].amount.amount).toBe(-1000);

    const put = await service.call('PUT', path, {
      json: {
        data: {
          ...DISCOUNT,
          amount: { amount: -2500, currency: 'USD', formatted: '-$25.00' },
          description: 'Bigger offer',
        },
      },
    });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({
      id: created.body.data.id,
      type: 'custom_discount',
      amount: { amount: -2500, currency: 'USD', formatted: '-$25.00' },
      description: 'Bigger offer',
    });
    const plain = await service.call('PUT', path, {
      json: { data: { ...DISCOUNT, amount: -300 } },
    });
    expect(plain.status).toBe(200);
    expect(plain.body.data.amount.formatted).toBe('-$3.00');
    const wrongCurrency = await service.call('PUT', path, {
      json: { data: { ...DISCOUNT, amount: { amount: -300, currency: 'EUR' } } },
    });
    expect(wrongCurrency.status).toBe(400);
    items = await service.call('GET', `/v2/carts/${cartId}/items`);
    expect(items.body.data[0].custom_discounts[0].amount.amount).toBe(-300);

    const missing = await service.call(
      'PUT',
      `/v2/carts/${cartId}/items/${itemId}/custom-discounts/00000000-0000-4000-8000-000000000000`,
      { json: { data: DISCOUNT } },
    );
    expect(missing.status).toBe(404);
    expect((await service.call('DELETE', path)).status).toBe(204);
    expect((await service.call('DELETE', path)).status).toBe(404);
  });

  it('refuses discounts on a cart without custom discounts enabled', async () => {
    const { cartId, itemId } = await cartWithItem(false);
    for (const path of [
      `/v2/carts/${cartId}/items/${itemId}/custom-discounts`,
      `/v2/carts/${cartId}/custom-discounts`,
    ]) {
      const result = await service.call('POST', path, { json: { data: DISCOUNT } });
      expect(result.status).toBe(400);
      expect(errorOf(result).detail).toBe('Custom discounts not enabled for this cart');
    }
  });

  it('updates a cart; turning custom discounts off removes the existing ones', async () => {
    const { cartId, itemId } = await cartWithItem();
    await service.call('POST', `/v2/carts/${cartId}/items/${itemId}/custom-discounts`, {
      json: { data: DISCOUNT },
    });
    const renamed = await service.call('PUT', `/v2/carts/${cartId}`, {
      json: { data: { name: 'Renamed' } },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.name).toBe('Renamed');
    expect(renamed.body.data.meta.display_price.discount.amount).toBe(-1000);
    const off = await service.call('PUT', `/v2/carts/${cartId}`, {
      json: { data: { discount_settings: { custom_discounts_enabled: false } } },
    });
    expect(off.status).toBe(200);
    expect(off.body.data.discount_settings.custom_discounts_enabled).toBe(false);
    expect(off.body.data.meta.display_price.discount.amount).toBe(0);
    const items = await service.call('GET', `/v2/carts/${cartId}/items`);
    expect(items.body.data[0].custom_discounts).toEqual([]);
  });

  it('allows five discounts per item and five at cart level; the sixth is 422', async () => {
    const { cartId, itemId } = await cartWithItem();
    for (const path of [
      `/v2/carts/${cartId}/items/${itemId}/custom-discounts`,
      `/v2/carts/${cartId}/custom-discounts`,
    ]) {
      for (let i = 0; i < 5; i++) {
        const ok = await service.call('POST', path, {
          json: { data: { ...DISCOUNT, amount: -10, external_id: `e${i}` } },
        });
        expect(ok.status).toBe(201);
      }
      const sixth = await service.call('POST', path, { json: { data: DISCOUNT } });
      expect(sixth.status).toBe(422);
      expect(errorOf(sixth).detail).toMatch(/Maximum of 5 custom discounts/);
    }
    const cart = await service.call('GET', `/v2/carts/${cartId}?include=custom_discounts`);
    expect(cart.body.included.custom_discounts).toHaveLength(5);
  });

  it('an empty cart takes no cart-level discount (422), and emptying a cart drops them', async () => {
    const cart = await createCart();
    const empty = await service.call('POST', `/v2/carts/${cart.id}/custom-discounts`, {
      json: { data: DISCOUNT },
    });
    expect(empty.status).toBe(422);
    const itemId = await addItem(cart.id);
    const ok = await service.call('POST', `/v2/carts/${cart.id}/custom-discounts`, {
      json: { data: DISCOUNT },
    });
    expect(ok.status).toBe(201);
    await service.call('DELETE', `/v2/carts/${cart.id}/items/${itemId}`);
    const after = await service.call('GET', `/v2/carts/${cart.id}?include=custom_discounts`);
    expect(after.body.included.custom_discounts).toEqual([]);
  });

  it('includes item and cart discounts in meta.display_price, and returns them with include', async () => {
    const { cartId, itemId } = await cartWithItem(); // 2 × 59.00 = 118.00
    await service.call('POST', `/v2/carts/${cartId}/items/${itemId}/custom-discounts`, {
      json: { data: { ...DISCOUNT, amount: -1000 } },
    });
    const cartLevel = await service.call('POST', `/v2/carts/${cartId}/custom-discounts`, {
      json: { data: { ...DISCOUNT, amount: -550, external_id: 'cart-1' } },
    });
    expect(cartLevel.status).toBe(201);
    const result = await service.call('GET', `/v2/carts/${cartId}?include=items,custom_discounts`);
    expect(result.status).toBe(200);
    expect(result.body.data.meta.display_price).toMatchObject({
      without_discount: { amount: 11800, currency: 'USD', formatted: '$118.00' },
      discount: { amount: -1550, currency: 'USD', formatted: '-$15.50' },
      with_tax: { amount: 10250, currency: 'USD', formatted: '$102.50' },
      without_tax: { amount: 10250, currency: 'USD', formatted: '$102.50' },
    });
    expect(result.body.included.custom_discounts).toEqual([
      expect.objectContaining({
        id: cartLevel.body.data.id,
        amount: expect.objectContaining({ amount: -550 }),
      }),
    ]);
    expect(result.body.included.items[0].meta.display_price.discount.value.amount).toBe(-1000);
    expect(result.body.data.relationships.custom_discounts.data).toEqual([
      { type: 'custom_discount', id: cartLevel.body.data.id },
    ]);

    const cartPath = `/v2/carts/${cartId}/custom-discounts/${cartLevel.body.data.id}`;
    const put = await service.call('PUT', cartPath, {
      json: { data: { ...DISCOUNT, amount: -50 } },
    });
    expect(put.status).toBe(200);
    const totals = await service.call('GET', `/v2/carts/${cartId}`);
    expect(totals.body.data.meta.display_price.with_tax.amount).toBe(10750);
    expect((await service.call('DELETE', cartPath)).status).toBe(204);
    const noInclude = await service.call('GET', `/v2/carts/${cartId}`);
    expect(noInclude.body.included).toBeUndefined();
    expect(noInclude.body.data.meta.display_price.with_tax.amount).toBe(10800);
    // Production's four includes are taken (promotions, cart-promotions-display.test.ts, and
    // tax_items too); an unknown name is a 400.
    expect((await service.call('GET', `/v2/carts/${cartId}?include=promotions`)).status).toBe(200);
    expect((await service.call('GET', `/v2/carts/${cartId}?include=coupons`)).status).toBe(400);
  });

  it('uses the cart currency (X-MOLTIN-CURRENCY) in amounts; unknown codes format as "-10.00 XYZ"', async () => {
    const cart = await createCart(true, { 'x-moltin-currency': 'xyz' });
    expect(cart.currency).toBe('XYZ');
    const itemId = await addItem(cart.id);
    const result = await service.call(
      'POST',
      `/v2/carts/${cart.id}/items/${itemId}/custom-discounts`,
      { json: { data: DISCOUNT } },
    );
    expect(result.body.data.amount).toEqual({
      amount: -1000,
      currency: 'XYZ',
      formatted: '-10.00 XYZ',
    });
    const eur = await createCart(true, { 'x-moltin-currency': 'EUR' });
    const eurItem = await addItem(eur.id);
    const eurDiscount = await service.call(
      'POST',
      `/v2/carts/${eur.id}/items/${eurItem}/custom-discounts`,
      { json: { data: DISCOUNT } },
    );
    expect(eurDiscount.body.data.amount.formatted).toBe('-€10.00');
  });

  it('checks out a cart into an order visible in /v2/orders', async () => {
    const { cartId, itemId } = await cartWithItem();
    await service.call('POST', `/v2/carts/${cartId}/items/${itemId}/custom-discounts`, {
      json: { data: DISCOUNT },
    });
    const billing = {
      first_name: 'Ada',
      last_name: 'Lovelace',
      line_1: '12 Market Street',
      region: 'OR',
      postcode: '97201',
      country: 'US',
    };
    const body = {
      data: { customer: { email: 'ada@example.com', name: 'Ada' }, billing_address: billing },
    };
    const result = await service.call('POST', `/v2/carts/${cartId}/checkout`, { json: body });
    expect(result.status).toBe(201);
    const order = result.body.data;
    expect(order).toMatchObject({
      type: 'order',
      status: 'incomplete',
      payment: 'unpaid',
      customer: { email: 'ada@example.com', name: 'Ada' },
      billing_address: billing,
    });
    expect(order.meta.display_price.with_tax).toEqual({
      amount: 10800,
      currency: 'USD',
      formatted: '$108.00',
    });
    expect(order.meta.display_price.discount.amount).toBe(-1000);
    expect(order.relationships.items.data).toHaveLength(1);

    const listed = await service.call('GET', `/v2/orders?filter=eq(id,${order.id})`);
    expect(listed.body.data).toEqual([order]);
    const read = await service.call('GET', `/v2/orders/${order.id}?include=items`);
    expect(read.status).toBe(200);
    expect(read.body.included.items[0]).toMatchObject({
      type: 'order_item',
      sku: 'KET-PO-01',
      quantity: 2,
    });
  });

  it('validates checkout bodies and refuses an empty cart', async () => {
    const { cartId } = await cartWithItem();
    const billing = {
      first_name: 'Ada',
      last_name: 'Lovelace',
      line_1: '12 Market Street',
      region: 'OR',
      postcode: '97201',
      country: 'US',
    };
    const cases: [unknown, string][] = [
      [{ data: { billing_address: billing } }, 'data.customer'],
      [{ data: { customer: { name: 'Ada' }, billing_address: billing } }, 'data.customer.email'],
      [
        { data: { customer: { name: 'Ada', email: 'nope' }, billing_address: billing } },
        'data.customer.email',
      ],
      [{ data: { customer: { name: 'Ada', email: 'a@b.co' } } }, 'data.billing_address'],
      [
        {
          data: {
            customer: { name: 'Ada', email: 'a@b.co' },
            billing_address: { ...billing, postcode: undefined },
          },
        },
        'data.billing_address.postcode',
      ],
    ];
    for (const [body, source] of cases) {
      const result = await service.call('POST', `/v2/carts/${cartId}/checkout`, { json: body });
      expect(result.status, source).toBe(400);
      expect(errorOf(result).source).toBe(source);
    }
    const empty = await createCart();
    const result = await service.call('POST', `/v2/carts/${empty.id}/checkout`, {
      json: { data: { customer: { name: 'Ada', email: 'a@b.co' }, billing_address: billing } },
    });
    expect(result.status).toBe(400);
    expect(errorOf(result).detail).toMatch(/empty/);
  });

  it("keeps stores apart: another store's cart is a 404 for every cart route", async () => {
    const { cartId, itemId } = await cartWithItem();
    const created = await service.call(
      'POST',
      `/v2/carts/${cartId}/items/${itemId}/custom-discounts`,
      {
        json: { data: DISCOUNT },
      },
    );
    const beta = await service.token('beta');
    const discountPath = `/v2/carts/${cartId}/items/${itemId}/custom-discounts/${created.body.data.id}`;
    const attempts: [string, string, unknown?][] = [
      ['GET', `/v2/carts/${cartId}`],
      ['GET', `/v2/carts/${cartId}/items`],
      ['DELETE', `/v2/carts/${cartId}`],
      ['POST', `/v2/carts/${cartId}/items`, { data: ITEM }],
      ['PUT', discountPath, { data: DISCOUNT }],
      ['DELETE', discountPath],
      ['POST', `/v2/carts/${cartId}/custom-discounts`, { data: DISCOUNT }],
    ];
    for (const [method, path, json] of attempts) {
      const result = await service.call(method, path, {
        token: beta,
        ...(json === undefined ? {} : { json }),
      });
      expect(result.status, `${method} ${path}`).toBe(404);
    }
    const stillThere = await service.call('GET', `/v2/carts/${cartId}/items`);
    expect(stillThere.body.data[0].custom_discounts).toHaveLength(1);
  });

  it('needs a token; a guest’s implicit token shops, but may not list the store’s carts', async () => {
    expect(
      (await service.call('POST', '/v2/carts', { token: null, json: { data: { name: 'x' } } }))
        .status,
    ).toBe(401);
    const implicit = await service.token('alpha', 'implicit');
    const result = await service.call('POST', '/v2/carts', {
      token: implicit,
      json: { data: { name: 'x' } },
    });
    expect(result.status).toBe(201);
    expect(result.body.data.relationships.customers).toBeUndefined();
    const list = await service.call('GET', '/v2/carts', { token: implicit });
    expect(list.status).toBe(403);
  });
});
