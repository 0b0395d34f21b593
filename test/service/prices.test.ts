/**
 * Prices (keyed by SKU) and price modifiers of a price book over real HTTP: every route, the
 * list filters of each, a second price for a SKU (409, the first unchanged), and every refused
 * body with a JSON:API error naming the field and nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, type ServiceUnderTest, startService } from './service-helpers.ts';

const BOOKS = '/pcm/pricebooks';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

let service: ServiceUnderTest;
let book: string;
let prices: string;
let modifiers: string;
beforeAll(async () => {
  service = await startService();
  const created = await service.call('POST', BOOKS, {
    json: { data: { type: 'pricebook', attributes: { name: 'Retail' } } },
  });
  book = created.body.data.id;
  prices = `${BOOKS}/${book}/prices`;
  modifiers = `${BOOKS}/${book}/modifiers`;
});
afterAll(() => service?.close());

const usd = (amount: number, extra: Record<string, unknown> = {}) => ({
  USD: { amount, includes_tax: false, ...extra },
});
const post = (path: string, attributes: unknown, type = 'product-price') =>
  service.call('POST', path, { json: { data: { type, attributes } } });

describe('prices', () => {
  it('creates a price with currencies, tiers and sales, and reads it back', async () => {
    const attributes = {
      sku: 'mug-red',
      currencies: {
        USD: {
          amount: 1200,
          includes_tax: false,
          tiers: { min_10: { minimum_quantity: 10, amount: 1000 } },
        },
        EUR: { amount: 1100 },
      },
      sales: {
        winter: {
          schedule: { valid_from: '2030-01-01T00:00:00Z', valid_to: '2030-02-01T00:00:00+00:00' },
          currencies: usd(900),
          bundle_ids: [UNKNOWN],
        },
      },
      external_ref: 'erp-mug-red',
      admin_attributes: { cost: '4.10' },
      shopper_attributes: { badge: 'new', hidden: null },
    };
    const created = await post(prices, attributes);
    expect(created.status).toBe(201);
    const price = created.body.data;
    expect(price).toMatchObject({
      type: 'product-price',
      attributes: {
        sku: 'mug-red',
        currencies: {
          USD: attributes.currencies.USD,
          // includes_tax defaults to false.
          EUR: { amount: 1100, includes_tax: false },
        },
        sales: {
          winter: {
            schedule: {
              valid_from: '2030-01-01T00:00:00.000Z',
              valid_to: '2030-02-01T00:00:00.000Z',
            },
            currencies: usd(900),
            bundle_ids: [UNKNOWN],
          },
        },
        external_ref: 'erp-mug-red',
        admin_attributes: { cost: '4.10' },
        shopper_attributes: { badge: 'new', hidden: null },
      },
      meta: { owner: 'store', pricebook_id: book },
      links: { self: `${prices}/${price.id}` },
    });
    expect((await service.call('GET', `${prices}/${price.id}`)).body.data).toEqual(price);
  });

  it('refuses a second price for the same SKU in a book with 409, the first unchanged', async () => {
    const first = (await post(prices, { sku: 'dup-sku', currencies: usd(100) })).body.data;
    const second = await post(prices, { sku: 'dup-sku', currencies: usd(999) });
    expect(errorOf(second)).toMatchObject({ status: 409, source: 'data.attributes.sku' });
    expect(errorOf(second).detail).toContain(first.id);
    const list = await service.call('GET', `${prices}?filter=eq(sku,dup-sku)`);
    expect(
      list.body.data.map((p: { attributes: { currencies: unknown } }) => p.attributes.currencies),
    ).toEqual([usd(100)]);
    // Another book may price the same SKU.
    const other = (
      await service.call('POST', BOOKS, { json: { data: { attributes: { name: 'B' } } } })
    ).body.data;
    expect(
      (await post(`${BOOKS}/${other.id}/prices`, { sku: 'dup-sku', currencies: usd(5) })).status,
    ).toBe(201);
    // Changing a SKU to one the book has is the same conflict.
    const third = (await post(prices, { sku: 'dup-other', currencies: usd(1) })).body.data;
    const moved = await service.call('PUT', `${prices}/${third.id}`, {
      json: { data: { type: 'product-price', attributes: { sku: 'dup-sku' } } },
    });
    expect(errorOf(moved).status).toBe(409);
  });

  it('filters the book’s list on sku (eq, in) and external_ref (eq), and the store’s across books', async () => {
    for (const sku of ['f-1', 'f-2', 'f-3']) {
      await post(prices, { sku, currencies: usd(10), external_ref: `ref-${sku}` });
    }
    const skusOf = async (path: string) =>
      ((await service.call('GET', path)).body.data as { attributes: { sku: string } }[]).map(
        (p) => p.attributes.sku,
      );
    expect(await skusOf(`${prices}?filter=in(sku,f-1,f-3)`)).toEqual(['f-1', 'f-3']);
    expect(await skusOf(`${prices}?filter=eq(external_ref,ref-f-2)`)).toEqual(['f-2']);
    expect(errorOf(await service.call('GET', `${prices}?filter=like(sku,f*)`)).source).toBe(
      'filter',
    );
    // Across books: gt/lt on the timestamps (no ge, as production).
    const all = (await service.call('GET', `${BOOKS}/prices?filter=in(sku,f-1,f-2,f-3)`)).body.data;
    const since = all[0].attributes.created_at;
    expect(await skusOf(`${BOOKS}/prices?filter=gt(created_at,${since}):like(sku,f-*)`)).toEqual([
      'f-2',
      'f-3',
    ]);
    expect(
      await skusOf(
        `${BOOKS}/prices?filter=lt(updated_at,${all[2].attributes.updated_at}):like(sku,f-*)`,
      ),
    ).toEqual(['f-1', 'f-2']);
    expect(
      errorOf(await service.call('GET', `${BOOKS}/prices?filter=ge(created_at,${since})`)).source,
    ).toBe('filter');
  });

  it('updates what a PUT names and deletes a price', async () => {
    const price = (
      await post(prices, {
        sku: 'put-1',
        currencies: usd(100),
        sales: { s: { currencies: usd(90) } },
        external_ref: 'x',
      })
    ).body.data;
    const updated = await service.call('PUT', `${prices}/${price.id}`, {
      json: {
        data: {
          type: 'product-price',
          id: price.id,
          attributes: {
            currencies: usd(150),
            sales: null,
            external_ref: null,
            created_at: 'ignored',
          },
        },
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes).toMatchObject({ sku: 'put-1', currencies: usd(150) });
    expect(updated.body.data.attributes).not.toHaveProperty('sales');
    expect(updated.body.data.attributes).not.toHaveProperty('external_ref');
    expect(updated.body.data.attributes.created_at).toBe(price.attributes.created_at);
    expect((await service.call('DELETE', `${prices}/${price.id}`)).status).toBe(204);
    expect((await service.call('GET', `${prices}/${price.id}`)).status).toBe(404);
    expect((await service.call('GET', `${BOOKS}/${UNKNOWN}/prices`)).status).toBe(404);
  });

  it('refuses bad prices with a 400 naming the field, and writes nothing', async () => {
    const at = 'data.attributes';
    const cases: [Record<string, unknown>, string][] = [
      [{ currencies: usd(1) }, `${at}.sku`],
      [{ sku: 'b' }, `${at}.currencies`],
      [{ sku: 'b', currencies: {} }, `${at}.currencies`],
      [{ sku: 'b', currencies: { usd: { amount: 1 } } }, `${at}.currencies.usd`],
      [{ sku: 'b', currencies: { US: { amount: 1 } } }, `${at}.currencies.US`],
      [{ sku: 'b', currencies: { USD: 100 } }, `${at}.currencies.USD`],
      [{ sku: 'b', currencies: { USD: {} } }, `${at}.currencies.USD.amount`],
      [{ sku: 'b', currencies: usd(-1) }, `${at}.currencies.USD.amount`],
      [{ sku: 'b', currencies: usd(2 ** 31) }, `${at}.currencies.USD.amount`],
      [{ sku: 'b', currencies: usd(1.5) }, `${at}.currencies.USD.amount`],
      [{ sku: 'b', currencies: usd('100' as unknown as number) }, `${at}.currencies.USD.amount`],
      [
        { sku: 'b', currencies: usd(1, { includes_tax: 'no' }) },
        `${at}.currencies.USD.includes_tax`,
      ],
      [{ sku: 'b', currencies: usd(1, { colour: 1 }) }, `${at}.currencies.USD.colour`],
      [
        { sku: 'b', currencies: usd(1, { tiers: { t: { minimum_quantity: 0, amount: 1 } } }) },
        `${at}.currencies.USD.tiers.t.minimum_quantity`,
      ],
      [
        { sku: 'b', currencies: usd(1, { tiers: { t: { minimum_quantity: 2 } } }) },
        `${at}.currencies.USD.tiers.t.amount`,
      ],
      [
        {
          sku: 'b',
          currencies: usd(1, {
            tiers: { a: { minimum_quantity: 5, amount: 1 }, b: { minimum_quantity: 5, amount: 2 } },
          }),
        },
        `${at}.currencies.USD.tiers.b.minimum_quantity`,
      ],
      [{ sku: 'b', currencies: usd(1), sales: { s: {} } }, `${at}.sales.s.currencies`],
      [
        {
          sku: 'b',
          currencies: usd(1),
          sales: {
            s: { currencies: usd(1) },
            t: { currencies: usd(1), schedule: { valid_to: '2030-01-01' } },
          },
        },
        `${at}.sales.s.schedule`,
      ],
      [
        {
          sku: 'b',
          currencies: usd(1),
          sales: {
            s: {
              currencies: usd(1),
              schedule: { valid_from: '2030-01-01', valid_to: '2030-02-01' },
            },
            t: {
              currencies: usd(1),
              schedule: { valid_from: '2030-01-01T00:00:00Z', valid_to: '2030-02-01T00:00:00Z' },
            },
          },
        },
        `${at}.sales.t.schedule`,
      ],
      [
        {
          sku: 'b',
          currencies: usd(1),
          sales: {
            s: {
              currencies: usd(1),
              schedule: { valid_from: '2030-02-01', valid_to: '2030-01-01' },
            },
          },
        },
        `${at}.sales.s.schedule.valid_to`,
      ],
      [
        {
          sku: 'b',
          currencies: usd(1),
          sales: { s: { currencies: usd(1), schedule: { valid_from: 'soon' } } },
        },
        `${at}.sales.s.schedule.valid_from`,
      ],
      [
        {
          sku: 'b',
          currencies: usd(1),
          sales: { s: { currencies: usd(1), schedule: { rrule: 'FREQ=WEEKLY' } } },
        },
        `${at}.sales.s.schedule.rrule`,
      ],
      [
        { sku: 'b', currencies: usd(1), sales: { s: { currencies: usd(1), bundle_ids: ['x'] } } },
        `${at}.sales.s.bundle_ids`,
      ],
      [
        { sku: 'b', currencies: usd(1), admin_attributes: { cost: 4 } },
        `${at}.admin_attributes.cost`,
      ],
      [{ sku: 'b', currencies: usd(1), shopper_attributes: 'x' }, `${at}.shopper_attributes`],
      [{ sku: 'b', currencies: usd(1), price: 1 }, `${at}.price`],
    ];
    for (const [attributes, source] of cases) {
      const result = await post(prices, attributes);
      expect(result.status, JSON.stringify(attributes).slice(0, 120)).toBe(400);
      expect(errorOf(result).source, JSON.stringify(attributes).slice(0, 120)).toBe(source);
    }
    const left = await service.call('GET', `${prices}?filter=eq(sku,b)`);
    expect(left.body.meta.results.total).toBe(0);
    const wrongType = await post(prices, { sku: 'b', currencies: usd(1) }, 'price');
    expect(errorOf(wrongType).source).toBe('data.type');
  });
});

describe('price modifiers', () => {
  it('creates, lists, filters, reads, updates and deletes modifiers', async () => {
    const created = await post(
      modifiers,
      {
        name: 'large',
        modifier_type: 'price_increment',
        currencies: usd(300),
        external_ref: 'm-1',
      },
      'price-modifier',
    );
    expect(created.status).toBe(201);
    const modifier = created.body.data;
    expect(modifier).toMatchObject({
      type: 'price-modifier',
      attributes: {
        name: 'large',
        modifier_type: 'price_increment',
        currencies: usd(300),
        external_ref: 'm-1',
      },
      meta: { owner: 'store', pricebook_id: book },
      links: { self: `${modifiers}/${modifier.id}` },
    });
    await post(
      modifiers,
      { name: 'small', modifier_type: 'price_decrement', currencies: usd(100) },
      'price-modifier',
    );
    const namesOf = async (filter: string) =>
      (
        (await service.call('GET', `${modifiers}?filter=${filter}`)).body.data as {
          attributes: { name: string };
        }[]
      ).map((m) => m.attributes.name);
    expect(await namesOf('eq(name,small)')).toEqual(['small']);
    expect(await namesOf('eq(external_ref,m-1)')).toEqual(['large']);
    expect(errorOf(await service.call('GET', `${modifiers}?filter=like(name,s*)`)).source).toBe(
      'filter',
    );
    expect((await service.call('GET', `${modifiers}/${modifier.id}`)).body.data).toEqual(modifier);

    const updated = await service.call('PUT', `${modifiers}/${modifier.id}`, {
      json: {
        data: {
          type: 'price-modifier',
          id: modifier.id,
          attributes: { modifier_type: 'price_equals' },
        },
      },
    });
    expect(updated.body.data.attributes).toMatchObject({
      name: 'large',
      modifier_type: 'price_equals',
      currencies: usd(300),
    });
    const clash = await service.call('PUT', `${modifiers}/${modifier.id}`, {
      json: { data: { type: 'price-modifier', attributes: { name: 'small' } } },
    });
    expect(errorOf(clash)).toMatchObject({ status: 409, source: 'data.attributes.name' });
    const again = await post(
      modifiers,
      { name: 'large', modifier_type: 'price_equals', currencies: usd(1) },
      'price-modifier',
    );
    expect(errorOf(again).status).toBe(409);
    // Names are case-sensitive, as production.
    expect(
      (
        await post(
          modifiers,
          { name: 'Large', modifier_type: 'price_equals', currencies: usd(1) },
          'price-modifier',
        )
      ).status,
    ).toBe(201);
    expect((await service.call('DELETE', `${modifiers}/${modifier.id}`)).status).toBe(204);
    expect((await service.call('GET', `${modifiers}/${modifier.id}`)).status).toBe(404);
  });

  it('refuses bad modifiers with a 400 naming the field, and writes nothing', async () => {
    const before = (await service.call('GET', modifiers)).body.meta.results.total;
    const at = 'data.attributes';
    const cases: [Record<string, unknown>, string][] = [
      [{ modifier_type: 'price_equals', currencies: usd(1) }, `${at}.name`],
      [{ name: 'm', currencies: usd(1) }, `${at}.modifier_type`],
      [{ name: 'm', modifier_type: 'price_double', currencies: usd(1) }, `${at}.modifier_type`],
      [{ name: 'm', modifier_type: 'price_equals' }, `${at}.currencies`],
      [
        { name: 'm', modifier_type: 'price_equals', currencies: usd(1, { tiers: {} }) },
        `${at}.currencies.USD.tiers`,
      ],
      [
        { name: 'm', modifier_type: 'price_equals', currencies: usd(-5) },
        `${at}.currencies.USD.amount`,
      ],
    ];
    for (const [attributes, source] of cases) {
      const result = await post(modifiers, attributes, 'price-modifier');
      expect(errorOf(result), JSON.stringify(attributes)).toMatchObject({ status: 400, source });
    }
    expect((await service.call('GET', modifiers)).body.meta.results.total).toBe(before);
  });
});
