/**
 * Currencies (`/v2/currencies`): the store's currencies with their format templates, read by
 * any token (the reference storefront's getAllCurrencies, through @epcc-sdk/sdks-shopper with
 * its implicit token), written by the store's; and every formatted price of the store's carts,
 * orders and catalog follows them.
 */
import { createClient, getACurrency, getAllCurrencies } from '@epcc-sdk/sdks-shopper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogFixture, createCatalog, publish } from './catalog-fixtures.ts';
import { errorOf, type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
let fx: Awaited<ReturnType<typeof buildCatalogFixture>>;

beforeAll(async () => {
  service = await startService();
  fx = await buildCatalogFixture(service);
  await publish(
    service,
    await createCatalog(service, 'Shop', { hierarchy_ids: [fx.apparel], pricebook_id: fx.book }),
  );
});
afterAll(() => service?.close());

// Templates hold `{price}` literally (a `$` before it is the dollar sign, not a placeholder).
const PRICE = '{price}';
const DOLLARS = `$${PRICE}`;
const US_DOLLARS = `US$${PRICE}`;

const EURO = {
  type: 'currency',
  code: 'EUR',
  exchange_rate: 0.92,
  format: '{price} €',
  decimal_point: ',',
  thousand_separator: '.',
  decimal_places: 2,
  default: false,
  enabled: true,
};

async function shopperClient() {
  const token = await service.token('alpha', 'implicit');
  return createClient({
    baseUrl: service.url,
    headers: { Authorization: `Bearer ${token}` },
  } as never);
}

async function cartWith(currency: string, amount: number) {
  const cart = await service.call('POST', '/v2/carts', {
    json: { data: { name: 'Cart' } },
    headers: { 'x-moltin-currency': currency },
  });
  expect(cart.status).toBe(201);
  const id = cart.body.data.id as string;
  const added = await service.call('POST', `/v2/carts/${id}/items`, {
    json: {
      data: { type: 'custom_item', name: 'Lamp', sku: 'LAMP', quantity: 1, price: { amount } },
    },
  });
  expect(added.status).toBe(201);
  return id;
}

describe('the store’s currencies', () => {
  it('a store starts with its default, USD in the format prices always had', async () => {
    const client = await shopperClient();
    const all = await getAllCurrencies({ client });
    expect(all.response.status).toBe(200);
    const list = (all.data as any).data;
    expect(list).toEqual([
      expect.objectContaining({
        type: 'currency',
        code: 'USD',
        exchange_rate: 1,
        format: DOLLARS,
        decimal_point: '.',
        thousand_separator: ',',
        decimal_places: 2,
        default: true,
        enabled: true,
        meta: expect.objectContaining({ owner: 'store' }),
      }),
    ]);
    const one = await getACurrency({ client, path: { currencyID: list[0].id } });
    expect((one.data as any).data.code).toBe('USD');
    // Another store's currencies are its own.
    const beta = await service.token('beta');
    const theirs = await service.call('GET', '/v2/currencies', { token: beta });
    expect(theirs.body.data.map((c: { id: string }) => c.id)).not.toContain(list[0].id);
  });

  it('carts, orders and the catalog format their prices as the store’s currency says', async () => {
    const created = await service.call('POST', '/v2/currencies', { json: { data: EURO } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ code: 'EUR', format: '{price} €', default: false });

    const cartId = await cartWith('EUR', 123456);
    const cart = await service.call('GET', `/v2/carts/${cartId}?include=items`);
    expect(cart.body.data.meta.display_price.with_tax.formatted).toBe('1.234,56 €');
    expect(cart.body.included.items[0].meta.display_price.with_tax.unit.formatted).toBe(
      '1.234,56 €',
    );

    const checkout = await service.call('POST', `/v2/carts/${cartId}/checkout`, {
      json: {
        data: {
          customer: { name: 'Ada', email: 'ada@example.com' },
          billing_address: {
            first_name: 'Ada',
            last_name: 'L',
            line_1: '1 Rue',
            region: 'IDF',
            postcode: '75001',
            country: 'FR',
          },
        },
      },
    });
    expect(checkout.status).toBe(201);
    expect(checkout.body.data.meta.display_price.with_tax.formatted).toBe('1.234,56 €');
    const order = await service.call('GET', `/v2/orders/${checkout.body.data.id}?include=items`);
    expect(order.body.included.items[0].meta.display_price.with_tax.unit.formatted).toBe(
      '1.234,56 €',
    );

    // The shopper catalog: the shirt's EUR price (45.00), in the store's EUR format.
    const shopper = await service.token('alpha', 'implicit');
    const shirt = await service.call('GET', `/catalog/products/${fx.shirt}`, {
      token: shopper,
      headers: { 'x-moltin-currency': 'EUR' },
    });
    expect(shirt.status).toBe(200);
    expect(shirt.body.data.meta.display_price.without_tax.formatted).toBe('45,00 €');
  });

  it('changing a format changes the prices shown from then on, for this store only', async () => {
    const list = await service.call('GET', '/v2/currencies');
    const usd = list.body.data.find((c: { code: string }) => c.code === 'USD');
    const changed = await service.call('PUT', `/v2/currencies/${usd.id}`, {
      json: { data: { format: US_DOLLARS, thousand_separator: ' ' } },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ format: US_DOLLARS, thousand_separator: ' ' });
    const cartId = await cartWith('USD', 250000);
    const cart = await service.call('GET', `/v2/carts/${cartId}`);
    expect(cart.body.data.meta.display_price.with_tax.formatted).toBe('US$2 500.00');
    // A discount is written with its sign first, as production writes it.
    const items = await service.call('GET', `/v2/carts/${cartId}/items`);
    expect(items.body.meta.display_price.discount.formatted).toBe('US$0.00');

    const beta = await service.token('beta');
    const cart2 = await service.call('POST', '/v2/carts', {
      token: beta,
      json: { data: { name: 'Cart' } },
    });
    await service.call('POST', `/v2/carts/${cart2.body.data.id}/items`, {
      token: beta,
      json: {
        data: { type: 'custom_item', name: 'L', sku: 'L', quantity: 1, price: { amount: 250000 } },
      },
    });
    const theirs = await service.call('GET', `/v2/carts/${cart2.body.data.id}`, { token: beta });
    expect(theirs.body.data.meta.display_price.with_tax.formatted).toBe('$2,500.00');
  });

  it('keeps exactly one default, never deletes it, and refuses a duplicate or an 11th', async () => {
    const list = (await service.call('GET', '/v2/currencies')).body.data as {
      id: string;
      code: string;
    }[];
    const usd = list.find((c) => c.code === 'USD');
    const eur = list.find((c) => c.code === 'EUR');
    const deleteDefault = await service.call('DELETE', `/v2/currencies/${usd?.id}`);
    expect(deleteDefault.status).toBe(422);
    const undefault = await service.call('PUT', `/v2/currencies/${usd?.id}`, {
      json: { data: { default: false } },
    });
    expect(undefault.status).toBe(422);
    expect(errorOf(undefault).source).toBe('data.default');

    const moved = await service.call('PUT', `/v2/currencies/${eur?.id}`, {
      json: { data: { default: true } },
    });
    expect(moved.status).toBe(200);
    const after = (await service.call('GET', '/v2/currencies')).body.data as {
      code: string;
      default: boolean;
    }[];
    expect(after.filter((c) => c.default).map((c) => c.code)).toEqual(['EUR']);
    expect((await service.call('DELETE', `/v2/currencies/${usd?.id}`)).status).toBe(204);
    expect((await service.call('GET', `/v2/currencies/${usd?.id}`)).status).toBe(404);

    const duplicate = await service.call('POST', '/v2/currencies', {
      json: { data: { ...EURO, code: 'eur' } },
    });
    expect(duplicate.status).toBe(400);
    expect(errorOf(duplicate).source).toBe('data.code');
    const codes = ['AAA', 'BBB', 'CCC', 'DDD', 'EEE', 'FFF', 'GGG', 'HHH', 'III'];
    const made = [];
    for (const code of codes) {
      made.push(
        (await service.call('POST', '/v2/currencies', { json: { data: { ...EURO, code } } }))
          .status,
      );
    }
    // EUR plus nine: ten, the limit; the tenth new one is refused.
    expect(made).toEqual([201, 201, 201, 201, 201, 201, 201, 201, 201]);
    const eleventh = await service.call('POST', '/v2/currencies', {
      json: { data: { ...EURO, code: 'JJJ' } },
    });
    expect(eleventh.status).toBe(422);
  });

  it('is the store’s to write: an implicit token reads but cannot write', async () => {
    const shopper = await service.token('beta', 'implicit');
    const write = await service.call('POST', '/v2/currencies', {
      token: shopper,
      json: { data: { ...EURO, code: 'GBP' } },
    });
    expect(write.status).toBe(403);
    expect((await service.call('GET', '/v2/currencies', { token: shopper })).status).toBe(200);
  });

  it('judges every attribute with a 400 naming it', async () => {
    const beta = await service.token('beta');
    const cases: [Record<string, unknown>, string][] = [
      [{ ...EURO, code: 'EURO' }, 'data.code'],
      [{ ...EURO, code: 12 }, 'data.code'],
      [{ ...EURO, format: '€' }, 'data.format'],
      [{ ...EURO, format: 'x'.repeat(65) }, 'data.format'],
      [{ ...EURO, decimal_places: -1 }, 'data.decimal_places'],
      [{ ...EURO, decimal_places: 1.5 }, 'data.decimal_places'],
      [{ ...EURO, decimal_places: 99 }, 'data.decimal_places'],
      [{ ...EURO, exchange_rate: -1 }, 'data.exchange_rate'],
      [{ ...EURO, exchange_rate: '1' }, 'data.exchange_rate'],
      [{ ...EURO, decimal_point: '' }, 'data.decimal_point'],
      [{ ...EURO, thousand_separator: '1' }, 'data.thousand_separator'],
      [{ ...EURO, default: 'yes' }, 'data.default'],
      [{ ...EURO, type: 'money' }, 'data.type'],
      [{ ...EURO, enabled: undefined }, 'data.enabled'],
    ];
    for (const [data, source] of cases) {
      const result = await service.call('POST', '/v2/currencies', { token: beta, json: { data } });
      expect(result.status, JSON.stringify(data)).toBe(400);
      expect(errorOf(result).source).toBe(source);
    }
    const list = await service.call('GET', '/v2/currencies', { token: beta });
    expect(list.body.data).toHaveLength(1);
    const put = await service.call('PUT', `/v2/currencies/${list.body.data[0].id}`, {
      token: beta,
      json: { data: { decimal_point: 5 } },
    });
    expect(put.status).toBe(400);
    expect((await service.call('GET', '/v2/currencies/not-an-id', { token: beta })).status).toBe(
      404,
    );
  });
});
