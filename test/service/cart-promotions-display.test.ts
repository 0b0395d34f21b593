/**
 * Promotions in a cart as production's cart shows them, through the official shopper SDK
 * (@epcc-sdk/sdks-shopper) with a storefront's implicit token: a standard promotion's code as a
 * `promotion_item` among the items (name, code as sku, promotion id — what the reference
 * storefront lists with a remove button), item discounts carrying their code, the condensed
 * promotions of `include=promotions`, and emptying the cart (`DELETE /v2/carts/{id}/items`)
 * taking its codes with its items.
 */
import {
  createACart,
  createClient,
  deleteAllCartItems,
  getACart,
  getCartItems,
  manageCarts,
} from '@epcc-sdk/sdks-shopper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
let client: ReturnType<typeof createClient>;
let welcome: string;
let socks: string;
const WINDOW = { start: '2020-01-01T00:00:00Z', end: '2099-01-01T00:00:00Z' };

async function created(path: string, data: Record<string, unknown>) {
  const result = await service.call('POST', path, { json: { data } });
  expect(result.status, JSON.stringify(result.body)).toBe(201);
  return result.body.data;
}

beforeAll(async () => {
  service = await startService();
  welcome = (
    await created('/v2/promotions', {
      type: 'promotion',
      name: 'Welcome 10%',
      description: 'Ten percent off a first order',
      enabled: true,
      automatic: false,
      promotion_type: 'percent_discount',
      schema: { percent: 10 },
      ...WINDOW,
    })
  ).id;
  await created(`/v2/promotions/${welcome}/codes`, { codes: [{ code: 'WELCOME10' }] });
  socks = (
    await created('/v2/rule-promotions', {
      type: 'rule_promotion',
      name: 'Socks 20%',
      enabled: true,
      automatic: false,
      ...WINDOW,
      rule_set: {
        rules: { strategy: 'cart_total', operator: 'gte', args: [0] },
        actions: [
          {
            strategy: 'item_discount',
            args: ['percent', 20],
            condition: { strategy: 'item_sku', operator: 'in', args: ['SOCK'] },
          },
        ],
      },
    })
  ).id;
  await created(`/v2/rule-promotions/${socks}/codes`, { codes: [{ code: 'SOCKS20' }] });
  const token = await service.token('alpha', 'implicit');
  client = createClient({
    baseUrl: service.url,
    headers: { Authorization: `Bearer ${token}` },
  } as never);
});
afterAll(() => service?.close());

async function shopperCart(): Promise<string> {
  const cart = await createACart({ client, body: { data: { name: 'Mine' } } as never });
  expect(cart.response.status).toBe(201);
  const id = (cart.data as any).data.id as string;
  for (const [sku, amount] of [
    ['SOCK', 1000],
    ['HAT', 4000],
  ] as const) {
    const added = await manageCarts({
      client,
      path: { cartID: id },
      body: {
        data: { type: 'custom_item', name: sku, sku, quantity: 1, price: { amount } },
      } as never,
    });
    expect(added.response.status).toBe(201);
  }
  return id;
}

const apply = (cartID: string, code: string) =>
  manageCarts({ client, path: { cartID }, body: { data: { type: 'promotion_item', code } } });

describe('promotions in the cart, as the storefront reads them', () => {
  it('shows a standard code as a promotion_item and a rule code on the item it discounts', async () => {
    const cartId = await shopperCart();
    const applied = await apply(cartId, 'welcome10');
    expect(applied.response.status).toBe(201);
    // Every item write answers with the items: the promotion item is among them.
    const fromWrite = (applied.data as any).data as { type: string; sku: string }[];
    expect(fromWrite.map((i) => [i.type, i.sku])).toEqual([
      ['custom_item', 'SOCK'],
      ['custom_item', 'HAT'],
      ['promotion_item', 'WELCOME10'],
    ]);
    expect((await apply(cartId, 'SOCKS20')).response.status).toBe(201);

    // include as the SDK's type has it (a list) is item 11's; a comma list is production's too.
    const cart = await getACart({
      client,
      path: { cartID: cartId },
      query: { include: 'items,promotions' as never },
    });
    expect(cart.response.status).toBe(200);
    const body = cart.data as any;
    const items = body.included.items as any[];
    const promotionItem = items.find((i) => i.type === 'promotion_item');
    // 10% of 5000 less the socks' 200 off (4800) is 480.
    expect(promotionItem).toMatchObject({
      type: 'promotion_item',
      promotion_id: welcome,
      name: 'Welcome 10%',
      sku: 'WELCOME10',
      code: 'WELCOME10',
      quantity: 1,
      unit_price: { amount: -480, currency: 'USD' },
      meta: { display_price: { with_tax: { value: { amount: -480, formatted: '-$4.80' } } } },
    });
    expect(body.data.relationships.items.data).toContainEqual({
      type: 'promotion_item',
      id: promotionItem.id,
    });
    const sock = items.find((i) => i.sku === 'SOCK');
    expect(sock.discounts).toEqual([
      expect.objectContaining({
        id: socks,
        code: 'SOCKS20',
        amount: expect.objectContaining({ amount: -200, formatted: '-$2.00' }),
        promotion_source: 'rule-promotion',
      }),
    ]);
    // The cart's totals count each discount once: 6000 − 200 − 480.
    expect(body.data.meta.display_price.with_tax.amount).toBe(4320);

    // Condensed promotions: the cart-level one, and the item-level one with include=items.
    expect(body.included.promotions).toEqual([
      {
        type: 'promotion',
        id: socks,
        name: 'Socks 20%',
        description: '',
        automatic: false,
        promotion_source: 'rule-promotion',
        start: expect.any(String),
        end: expect.any(String),
      },
      expect.objectContaining({
        id: welcome,
        description: 'Ten percent off a first order',
        promotion_source: 'promotion',
      }),
    ]);
    expect(body.data.relationships.promotions.data).toEqual([
      { type: 'promotion', id: socks },
      { type: 'promotion', id: welcome },
    ]);
    const cartLevelOnly = await service.call('GET', `/v2/carts/${cartId}?include=promotions`);
    expect(cartLevelOnly.body.included.promotions.map((p: { id: string }) => p.id)).toEqual([
      welcome,
    ]);

    const listed = await getCartItems({
      client,
      path: { cartID: cartId },
      query: { include: 'promotions' as never },
    });
    // Get Cart Items: every promotion, cart and item level.
    expect(((listed.data as any).included.promotions as { id: string }[]).map((p) => p.id)).toEqual(
      [socks, welcome],
    );
    expect(((listed.data as any).data as { type: string }[]).map((i) => i.type)).toEqual([
      'custom_item',
      'custom_item',
      'promotion_item',
    ]);
  });

  it('empties the cart of its items and its promotion codes', async () => {
    const cartId = await shopperCart();
    expect((await apply(cartId, 'WELCOME10')).response.status).toBe(201);
    expect((await apply(cartId, 'SOCKS20')).response.status).toBe(201);
    const emptied = await deleteAllCartItems({ client, path: { cartID: cartId } });
    expect(emptied.response.status).toBe(200);
    expect((emptied.data as any).data).toEqual([]);
    const cart = await getACart({ client, path: { cartID: cartId } });
    expect((cart.data as any).data.promotion_codes).toEqual([]);
    expect((cart.data as any).data.discounts).toEqual([]);
    // The same goods again: full price, no promotion item, until a code is applied again.
    await manageCarts({
      client,
      path: { cartID: cartId },
      body: {
        data: {
          type: 'custom_item',
          name: 'SOCK',
          sku: 'SOCK',
          quantity: 1,
          price: { amount: 1000 },
        },
      } as never,
    });
    const after = await service.call('GET', `/v2/carts/${cartId}?include=items`);
    expect(after.body.data.meta.display_price.with_tax.amount).toBe(1000);
    expect(after.body.included.items.map((i: { type: string }) => i.type)).toEqual(['custom_item']);
  });
});
