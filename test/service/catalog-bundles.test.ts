/**
 * Bundles through `@epcc-sdk/sdks-shopper`, as the reference storefront uses them
 * (examples/core: the product page's `include=component_products`, BundleProductForm's
 * `meta.bundle_configuration.selected_options`, useBundleComponentOption's component products
 * with their name, price and main image, addToBundleAction's cart_item with
 * bundle_configuration): the catalog's bundle, POST …/configure, a bundle line in a cart priced
 * as production prices a bundle (its own SKU's price, else the sum of the selected options' list
 * prices) and repriced like any catalog line, and the selection kept on the order's item.
 */
import {
  checkoutApi,
  configureByContextProduct,
  createClient,
  getAnOrder,
  getByContextComponentProductIds,
  getByContextProduct,
  manageCarts,
} from '@epcc-sdk/sdks-shopper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from './catalog-fixtures.ts';
import { type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
let client: any;
let token = '';
const id = {
  mug: '',
  tea: '',
  coffee: '',
  spoon: '',
  box: '',
  gift: '',
  plain: '',
  image: '',
  book: '',
  catalog: '',
  coffeePrice: '',
};

const product = (name: string, sku: string | undefined, extra: Record<string, unknown> = {}) =>
  post(service, '/pcm/products', 'product', {
    name,
    ...(sku === undefined ? {} : { sku }),
    commodity_type: 'physical',
    status: 'live',
    ...extra,
  }).then((p) => p.id as string);

async function price(sku: string, usd: number, extra: Record<string, unknown> = {}) {
  return (
    await post(service, `/pcm/pricebooks/${id.book}/prices`, 'product-price', {
      sku,
      currencies: { USD: { amount: usd, includes_tax: false } },
      ...extra,
    })
  ).id as string;
}

async function publish() {
  expect((await service.call('POST', `/catalogs/${id.catalog}/releases`)).status).toBe(201);
}

const errorOf = (result: { error?: unknown }) =>
  (result.error as { errors: { status: number; detail: string; source?: string }[] }).errors[0];

beforeAll(async () => {
  service = await startService();
  const hierarchy = (await post(service, '/pcm/hierarchies', 'hierarchy', { name: 'Kitchen' })).id;
  const node = (
    await post(service, `/pcm/hierarchies/${hierarchy}/nodes`, 'node', { name: 'Breakfast' })
  ).id;
  id.mug = await product('Mug', 'MUG');
  id.tea = await product('Tea', 'TEA');
  id.coffee = await product('Coffee', 'COFFEE');
  // Live, but in no node: not in the catalog, so never a choice there.
  id.spoon = await product('Spoon', 'SPOON');
  id.plain = await product('Plate', 'PLATE');
  const components = {
    mug: {
      name: 'Mug',
      min: 1,
      max: 1,
      sort_order: 1,
      options: [{ id: id.mug, type: 'product', quantity: 1, default: true }],
    },
    drink: {
      name: 'Drink',
      min: 1,
      max: 2,
      sort_order: 2,
      options: [
        { id: id.tea, type: 'product', quantity: 1, min: 1, max: 3, default: true },
        { id: id.coffee, type: 'product', quantity: 1, min: 1, max: 3 },
      ],
    },
    extras: {
      name: 'Extras',
      min: 0,
      max: 1,
      options: [{ id: id.spoon, type: 'product', quantity: 2 }],
    },
  };
  // A bundle without a SKU (priced from its selection) and one with a SKU of its own.
  id.box = await product('Breakfast Box', undefined, { slug: 'breakfast-box', components });
  id.gift = await product('Gift Set', 'GIFT', {
    components: {
      set: {
        name: 'Set',
        min: 2,
        max: 2,
        options: [
          { id: id.mug, type: 'product', quantity: 1, default: true },
          { id: id.tea, type: 'product', quantity: 1, default: true },
          { id: id.coffee, type: 'product', quantity: 1 },
        ],
      },
    },
  });
  const attached = await service.call(
    'POST',
    `/pcm/hierarchies/${hierarchy}/nodes/${node}/relationships/products`,
    {
      json: {
        data: [id.mug, id.tea, id.coffee, id.box, id.gift, id.plain].map((p) => ({
          type: 'product',
          id: p,
        })),
      },
    },
  );
  expect(attached.status).toBeLessThan(300);
  // The mug's main image, which the storefront shows beside the option.
  const form = new FormData();
  form.append(
    'file',
    new Blob([new Uint8Array([137, 80, 78, 71])], { type: 'image/png' }),
    'mug.png',
  );
  const upload = await fetch(`${service.url}/v2/files`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${await service.token()}` },
    body: form,
  });
  id.image = ((await upload.json()) as { data: { id: string } }).data.id;
  const image = await service.call('POST', `/pcm/products/${id.mug}/relationships/main_image`, {
    json: { data: { type: 'file', id: id.image } },
  });
  expect(image.status).toBe(204);
  id.book = (await post(service, '/pcm/pricebooks', 'pricebook', { name: 'Retail' })).id;
  await price('MUG', 1000);
  // Tea is on sale: a SKU-less bundle sums list prices ("without sale pricing").
  await price('TEA', 500, {
    sales: { spring: { currencies: { USD: { amount: 400, includes_tax: false } } } },
  });
  id.coffeePrice = await price('COFFEE', 800);
  await price('SPOON', 100);
  await price('GIFT', 1200);
  await price('PLATE', 300);
  id.catalog = (
    await post(service, '/catalogs', 'catalog', {
      name: 'Shop',
      hierarchy_ids: [hierarchy],
      pricebook_id: id.book,
    })
  ).id;
  await publish();
  token = await service.token('alpha', 'implicit');
  client = createClient({
    baseUrl: service.url,
    headers: { Authorization: `Bearer ${token}` },
  } as never);
});
afterAll(() => service?.close());

describe('a bundle in the shopper catalog', () => {
  it('comes with its components, default selection, options’ prices and component products', async () => {
    const page = await getByContextProduct({
      client,
      path: { product_id: id.box },
      query: { include: ['main_image', 'files', 'component_products'] } as never,
    });
    expect(page.response.status).toBe(200);
    const { data, included } = page.data as any;
    expect(data.meta.product_types).toEqual(['bundle']);
    expect(Object.keys(data.attributes.components)).toEqual(['mug', 'drink', 'extras']);
    expect(data.meta.bundle_configuration).toEqual({
      selected_options: { mug: { [id.mug]: 1 }, drink: { [id.tea]: 1 } },
    });
    // No price of its own: the default selection's list prices, 10.00 + 5.00.
    expect(data.attributes.price).toEqual({ USD: { amount: 1500, includes_tax: false } });
    expect(data.meta.display_price.without_tax).toMatchObject({
      amount: 1500,
      formatted: '$15.00',
    });
    expect(Object.keys(data.meta.component_products)).toEqual([id.mug, id.tea, id.coffee]);
    expect(data.meta.component_products[id.tea]).toMatchObject({
      price: { USD: { amount: 400, includes_tax: false } },
      display_price: { without_tax: { amount: 400 } },
      original_price: { USD: { amount: 500, includes_tax: false } },
      sale_id: 'spring',
      pricebook_id: id.book,
    });
    expect(data.relationships.component_products.data).toEqual([
      { type: 'product', id: id.mug },
      { type: 'product', id: id.tea },
      { type: 'product', id: id.coffee },
    ]);
    // What the storefront's option shows: the product's name, price and main image.
    const shown = included.component_products as any[];
    expect(shown.map((p) => p.attributes.name)).toEqual(['Mug', 'Tea', 'Coffee']);
    expect(shown[0].meta.display_price.without_tax.formatted).toBe('$10.00');
    expect(shown[0].relationships.main_image.data.id).toBe(id.image);
    const ids = await getByContextComponentProductIds({ client, path: { product_id: id.box } });
    expect((ids.data as any).data).toEqual([
      { type: 'product', id: id.mug },
      { type: 'product', id: id.tea },
      { type: 'product', id: id.coffee },
    ]);
    expect((ids.data as any).meta.results.total).toBe(3);
  });

  it('answers include=component_products with an empty list for a product that is no bundle', async () => {
    const page = await getByContextProduct({
      client,
      path: { product_id: id.plain },
      query: { include: ['component_products'] } as never,
    });
    expect((page.data as any).included).toEqual({ component_products: [] });
    expect((page.data as any).data.meta.bundle_configuration).toBeUndefined();
  });

  it('is configured: the selection judged, priced, its options’ products in meta', async () => {
    const configured = await configureByContextProduct({
      client,
      path: { product_id: id.box },
      body: {
        data: {
          selected_options: { mug: { [id.mug]: 1 }, drink: { [id.tea]: 2, [id.coffee]: 1 } },
        },
      },
    } as never);
    expect(configured.response.status).toBe(200);
    const data = (configured.data as any).data;
    expect(data.meta.bundle_configuration.selected_options).toEqual({
      mug: { [id.mug]: 1 },
      drink: { [id.tea]: 2, [id.coffee]: 1 },
    });
    // 10.00 + 2 × 5.00 + 8.00
    expect(data.meta.display_price.without_tax.amount).toBe(2800);
    expect(Object.keys(data.meta.component_product_data)).toEqual([id.mug, id.tea, id.coffee]);
    expect(data.meta.component_product_data[id.coffee].attributes.name).toBe('Coffee');
    // A bundle with its own price keeps it, whatever is chosen.
    const gift = await configureByContextProduct({
      client,
      path: { product_id: id.gift },
      body: { data: { selected_options: { set: { [id.mug]: 1, [id.coffee]: 1 } } } },
    } as never);
    expect((gift.data as any).data.meta.display_price.without_tax.amount).toBe(1200);
  });

  it('refuses a selection the bundle does not allow with a 400 naming its path', async () => {
    const configure = (selected: unknown, productId = id.box) =>
      configureByContextProduct({
        client,
        path: { product_id: productId },
        body: { data: { selected_options: selected } },
      } as never);
    const cases: [unknown, string, RegExp][] = [
      [
        { mug: { [id.mug]: 1 }, snacks: { [id.tea]: 1 } },
        'data.selected_options.snacks',
        /not a component/,
      ],
      [
        { mug: { [id.tea]: 1 }, drink: { [id.tea]: 1 } },
        `data.selected_options.mug.${id.tea}`,
        /not an option/,
      ],
      [
        { mug: { [id.mug]: 1 }, drink: { [id.tea]: 4 } },
        `data.selected_options.drink.${id.tea}`,
        /between 1 and 3/,
      ],
      [
        { mug: { [id.mug]: 2 }, drink: { [id.tea]: 1 } },
        `data.selected_options.mug.${id.mug}`,
        /exactly 1/,
      ],
      [
        { mug: { [id.mug]: 1 } },
        'data.selected_options.drink',
        /takes between 1 and 2 options, got 0/,
      ],
      [
        { mug: { [id.mug]: 1 }, drink: { [id.tea]: 1 }, extras: { [id.spoon]: 2 } },
        `data.selected_options.extras.${id.spoon}`,
        /not in the shopper's catalog/,
      ],
      [{ mug: { [id.mug]: 'one' } }, `data.selected_options.mug.${id.mug}`, /whole quantity/],
      [['mug'], 'data.selected_options', /must be an object/],
      // A key that is a prototype member's name is a key like any other.
      [{ toString: { [id.mug]: 1 } }, 'data.selected_options.toString', /not a component/],
    ];
    for (const [selected, source, detail] of cases) {
      const refused = await configure(selected);
      expect(refused.response.status, JSON.stringify(selected)).toBe(400);
      expect(errorOf(refused)).toMatchObject({ source });
      expect(errorOf(refused)?.detail).toMatch(detail);
    }
    const notBundle = await configure({ set: { [id.mug]: 1 } }, id.plain);
    expect(notBundle.response.status).toBe(422);
  });
});

describe('a bundle in a cart and an order', () => {
  const newCart = async () =>
    (await service.call('POST', '/v2/carts', { token, json: { data: { name: 'b' } } })).body.data
      .id as string;
  const add = (cartId: string, data: Record<string, unknown>) =>
    manageCarts({
      client,
      path: { cartID: cartId },
      body: { data: { type: 'cart_item', quantity: 1, ...data } },
    } as never);

  it('keeps the shopper’s selection on the line, priced as the catalog prices it', async () => {
    const cartId = await newCart();
    const chosen = { mug: { [id.mug]: 1 }, drink: { [id.coffee]: 1 } };
    const added = await add(cartId, {
      id: id.box,
      bundle_configuration: { selected_options: chosen },
    });
    expect(added.response.status).toBe(201);
    const [line] = (added.data as any).data;
    expect(line).toMatchObject({
      product_id: id.box,
      name: 'Breakfast Box',
      quantity: 1,
      bundle_configuration: { selected_options: chosen },
      unit_price: { amount: 1800, currency: 'USD' },
    });
    // The same choice again is the same line; another choice is another line.
    await add(cartId, { id: id.box, bundle_configuration: { selected_options: chosen } });
    const other = await add(cartId, { id: id.box });
    const lines = (other.data as any).data as any[];
    expect(lines.map((l) => [l.quantity, l.unit_price.amount])).toEqual([
      [2, 1800],
      [1, 1500],
    ]);
    expect(lines[1].bundle_configuration.selected_options).toEqual({
      mug: { [id.mug]: 1 },
      drink: { [id.tea]: 1 },
    });
    // The fixed-price bundle by its SKU: its own price.
    const gift = await add(cartId, {
      sku: 'GIFT',
      bundle_configuration: { selected_options: { set: { [id.mug]: 1, [id.coffee]: 1 } } },
    });
    expect((gift.data as any).data[2]).toMatchObject({ sku: 'GIFT', unit_price: { amount: 1200 } });
  });

  it('reprices a bundle line from its selection when a component’s price changes', async () => {
    const cartId = await newCart();
    const chosen = { mug: { [id.mug]: 1 }, drink: { [id.coffee]: 2 } };
    await add(cartId, { id: id.box, bundle_configuration: { selected_options: chosen } });
    const changed = await service.call(
      'PUT',
      `/pcm/pricebooks/${id.book}/prices/${id.coffeePrice}`,
      {
        json: {
          data: {
            type: 'product-price',
            id: id.coffeePrice,
            attributes: { currencies: { USD: { amount: 900, includes_tax: false } } },
          },
        },
      },
    );
    expect(changed.status).toBe(200);
    await publish();
    const read = await service.call('GET', `/v2/carts/${cartId}/items`, { token });
    expect(read.body.data[0].unit_price.amount).toBe(1000 + 2 * 900);
  });

  it('refuses a bundle_configuration the bundle does not allow, naming the path', async () => {
    const cartId = await newCart();
    const cases: [Record<string, unknown>, string][] = [
      [
        { id: id.box, bundle_configuration: { selected_options: { mug: { [id.coffee]: 1 } } } },
        `data.bundle_configuration.selected_options.mug.${id.coffee}`,
      ],
      [
        {
          id: id.box,
          bundle_configuration: {
            selected_options: { mug: { [id.mug]: 1 }, drink: { [id.tea]: 9 } },
          },
        },
        `data.bundle_configuration.selected_options.drink.${id.tea}`,
      ],
      [{ id: id.box, bundle_configuration: 'tea please' }, 'data.bundle_configuration'],
      [{ id: id.box, bundle_configuration: { chosen: {} } }, 'data.bundle_configuration.chosen'],
      [
        { id: id.plain, bundle_configuration: { selected_options: { set: { [id.mug]: 1 } } } },
        'data.bundle_configuration',
      ],
    ];
    for (const [data, source] of cases) {
      const refused = await add(cartId, data);
      expect(refused.response.status, JSON.stringify(data)).toBe(400);
      expect(errorOf(refused)).toMatchObject({ source });
    }
    const items = await service.call('GET', `/v2/carts/${cartId}/items`, { token });
    expect(items.body.data).toEqual([]);
  });

  it('copies the selection to the order’s item at checkout', async () => {
    const cartId = await newCart();
    const chosen = { mug: { [id.mug]: 1 }, drink: { [id.tea]: 1, [id.coffee]: 1 } };
    await add(cartId, { id: id.box, bundle_configuration: { selected_options: chosen } });
    const order = await checkoutApi({
      client,
      path: { cartID: cartId },
      body: {
        data: {
          customer: { name: 'Gus', email: 'gus@example.com' },
          billing_address: {
            first_name: 'G',
            last_name: 'B',
            line_1: '1 Road',
            region: 'R',
            postcode: 'P1',
            country: 'GB',
          },
        },
      },
    } as never);
    expect(order.response.status).toBe(201);
    const orderId = (order.data as any).data.id;
    const admin = createClient({
      baseUrl: service.url,
      headers: { Authorization: `Bearer ${await service.token()}` },
    } as never);
    const read = await getAnOrder({
      client: admin,
      path: { orderID: orderId },
      query: { include: ['items'] },
    } as never);
    expect((read.data as any).included.items[0]).toMatchObject({
      name: 'Breakfast Box',
      bundle_configuration: { selected_options: chosen },
      unit_price: { amount: 1000 + 500 + 900 },
    });
  });
});
