/**
 * Variations in the shopper catalog, read with `@epcc-sdk/sdks-shopper` as the reference
 * storefront reads them (examples/core: VariationProductProvider, ProductVariations,
 * getSkuIdFromOptions, getOptionsFromProductId): a parent's `meta.variations` (each with the
 * options its build included) and nested `meta.variation_matrix`, a child's
 * `meta.child_variations`, on every shopper answer a product comes in (one product, the list,
 * children, a node's and a hierarchy's products) and in the release form, and frozen with the
 * release until it is republished. And the demo store's: a Size × Colour parent and two
 * bundles of demo products (catalog-bundles.test.ts walks bundles themselves).
 */
import {
  createClient,
  getByContextAllProducts,
  getByContextChildProducts,
  getByContextProduct,
  getByContextProductsForHierarchy,
  getByContextProductsForNode,
  getProduct,
  manageCarts,
} from '@epcc-sdk/sdks-shopper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from './catalog-fixtures.ts';
import { type SeededService, startSeededService } from './seeded-service.ts';
import { type ServiceUnderTest, startService } from './service-helpers.ts';

type Matrix = { [option: string]: Matrix | string };

/** The storefront's lib/product-helper.ts getSkuIdFromOptions, as it is. */
function getSkuIdFromOptions(options: string[], matrix: Matrix | string): string | undefined {
  if (typeof matrix === 'string') return matrix;
  for (const option of options) {
    const nested = matrix[option];
    if (nested) return getSkuIdFromOptions(options, nested);
  }
  return undefined;
}

/** The storefront's get-options-from-product-id.ts, as it is. */
function getOptionsFromProductId(
  id: string,
  entry: Matrix | string,
  options: string[] = [],
): string[] | undefined {
  if (typeof entry === 'string') return entry === id ? options : undefined;
  let found: string[] | undefined;
  Object.keys(entry).every((key) => {
    const result = getOptionsFromProductId(id, entry[key] as Matrix, [...options, key]);
    if (result) found = result;
    return !result;
  });
  return found;
}

let service: ServiceUnderTest;
let client: any;
const ids = {
  hierarchy: '',
  node: '',
  parent: '',
  size: '',
  colour: '',
  catalog: '',
  release: '',
  options: {} as Record<string, string>,
};

async function option(variation: string, name: string, sortOrder: number) {
  const created = await post(
    service,
    `/pcm/variations/${variation}/options`,
    'product-variation-option',
    {
      name,
      description: `${name} option`,
      sort_order: sortOrder,
    },
  );
  for (const [type, value] of [
    ['sku_append', `-${name.toUpperCase()}`],
    ['name_append', ` ${name}`],
  ]) {
    await post(
      service,
      `/pcm/variations/${variation}/options/${created.id}/modifiers`,
      'product-variation-modifier',
      { type, value },
    );
  }
  ids.options[name] = created.id;
  return created.id as string;
}

async function childrenBySku(): Promise<Record<string, string>> {
  const kids = await service.call('GET', `/pcm/products/${ids.parent}/children?page[limit]=100`);
  return Object.fromEntries(
    (kids.body.data as { id: string; attributes: { sku: string } }[]).map((c) => [
      c.attributes.sku,
      c.id,
    ]),
  );
}

async function publish() {
  const release = await service.call('POST', `/catalogs/${ids.catalog}/releases`);
  expect(release.status).toBe(201);
  ids.release = release.body.data.id;
}

beforeAll(async () => {
  service = await startService();
  ids.hierarchy = (await post(service, '/pcm/hierarchies', 'hierarchy', { name: 'Apparel' })).id;
  ids.node = (
    await post(service, `/pcm/hierarchies/${ids.hierarchy}/nodes`, 'node', { name: 'Tees' })
  ).id;
  ids.size = (await post(service, '/pcm/variations', 'product-variation', { name: 'Size' })).id;
  ids.colour = (await post(service, '/pcm/variations', 'product-variation', { name: 'Colour' })).id;
  // Options come in sort_order, highest first (PXM's order).
  await option(ids.size, 'S', 30);
  await option(ids.size, 'M', 20);
  await option(ids.size, 'L', 10);
  await option(ids.colour, 'Red', 2);
  await option(ids.colour, 'Blue', 1);
  ids.parent = (
    await post(
      service,
      '/pcm/products',
      'product',
      {
        name: 'Tee',
        sku: 'TEE',
        slug: 'tee',
        commodity_type: 'physical',
        status: 'live',
        // No large blue tee: its combination is excluded from the build.
        build_rules: { default: 'include', exclude: [[ids.options.L, ids.options.Blue]] },
      },
      {
        relationships: {
          variations: {
            data: [
              { type: 'product-variation', id: ids.size },
              { type: 'product-variation', id: ids.colour },
            ],
          },
        },
      },
    )
  ).id;
  expect((await service.call('POST', `/pcm/products/${ids.parent}/build`)).status).toBe(201);
  const link = await service.call(
    'POST',
    `/pcm/hierarchies/${ids.hierarchy}/nodes/${ids.node}/relationships/products`,
    { json: { data: [{ type: 'product', id: ids.parent }] } },
  );
  expect(link.status).toBeLessThan(300);
  const book = (await post(service, '/pcm/pricebooks', 'pricebook', { name: 'Retail' })).id;
  for (const sku of Object.keys(await childrenBySku())) {
    await post(service, `/pcm/pricebooks/${book}/prices`, 'product-price', {
      sku,
      currencies: { USD: { amount: 2000, includes_tax: false } },
    });
  }
  ids.catalog = (
    await post(service, '/catalogs', 'catalog', {
      name: 'Shop',
      hierarchy_ids: [ids.hierarchy],
      pricebook_id: book,
    })
  ).id;
  await publish();
  const token = await service.token('alpha', 'implicit');
  client = createClient({
    baseUrl: service.url,
    headers: { Authorization: `Bearer ${token}` },
  } as never);
});
afterAll(() => service?.close());

describe('a parent product in the shopper catalog', () => {
  it('has the variations and matrix an option picker maps "M, Blue" to a child with', async () => {
    const children = await childrenBySku();
    expect(Object.keys(children).sort()).toEqual(
      ['TEE-L-RED', 'TEE-M-BLUE', 'TEE-M-RED', 'TEE-S-BLUE', 'TEE-S-RED'].sort(),
    );
    const parent = await getByContextProduct({ client, path: { product_id: ids.parent } });
    expect(parent.response.status).toBe(200);
    const meta = (parent.data as any).data.meta;
    expect(meta.product_types).toEqual(['parent']);
    expect(meta.variations).toEqual([
      {
        id: ids.size,
        name: 'Size',
        options: [
          { id: ids.options.S, name: 'S', description: 'S option', sort_order: 30 },
          { id: ids.options.M, name: 'M', description: 'M option', sort_order: 20 },
          { id: ids.options.L, name: 'L', description: 'L option', sort_order: 10 },
        ],
      },
      {
        id: ids.colour,
        name: 'Colour',
        options: [
          { id: ids.options.Red, name: 'Red', description: 'Red option', sort_order: 2 },
          { id: ids.options.Blue, name: 'Blue', description: 'Blue option', sort_order: 1 },
        ],
      },
    ]);
    const o = ids.options;
    expect(meta.variation_matrix).toEqual({
      [o.S as string]: {
        [o.Red as string]: children['TEE-S-RED'],
        [o.Blue as string]: children['TEE-S-BLUE'],
      },
      [o.M as string]: {
        [o.Red as string]: children['TEE-M-RED'],
        [o.Blue as string]: children['TEE-M-BLUE'],
      },
      [o.L as string]: { [o.Red as string]: children['TEE-L-RED'] },
    });
    // The storefront's own lookups, both ways; the excluded combination finds nothing.
    expect(getSkuIdFromOptions([o.M as string, o.Blue as string], meta.variation_matrix)).toBe(
      children['TEE-M-BLUE'],
    );
    expect(getSkuIdFromOptions([o.L as string, o.Blue as string], meta.variation_matrix)).toBe(
      undefined,
    );
    expect(
      getOptionsFromProductId(children['TEE-S-BLUE'] as string, meta.variation_matrix),
    ).toEqual([o.S, o.Blue]);
  });

  it('names a child’s chosen option per variation, and its parent', async () => {
    const children = await childrenBySku();
    const child = await getByContextProduct({
      client,
      path: { product_id: children['TEE-M-BLUE'] as string },
    });
    const data = (child.data as any).data;
    expect(data.meta.product_types).toEqual(['child']);
    expect(data.relationships.parent.data).toEqual({ type: 'product', id: ids.parent });
    expect(data.meta.child_variations).toEqual([
      expect.objectContaining({
        id: ids.size,
        name: 'Size',
        option: expect.objectContaining({ id: ids.options.M, name: 'M' }),
      }),
      expect.objectContaining({
        id: ids.colour,
        name: 'Colour',
        option: expect.objectContaining({ id: ids.options.Blue, name: 'Blue' }),
      }),
    ]);
    expect(data.meta.child_option_ids).toEqual([ids.options.M, ids.options.Blue]);
  });

  it('carries them in every answer a parent comes in, and in the release form', async () => {
    const o = ids.options;
    const matrixOf = (list: any[]) =>
      list.find((p: { id: string }) => p.id === ids.parent)?.meta.variation_matrix;
    const all = await getByContextAllProducts({
      client,
      query: { filter: 'eq(product_types,parent)' } as never,
    });
    expect(Object.keys(matrixOf((all.data as any).data))).toEqual([o.S, o.M, o.L]);
    const byNode = await getByContextProductsForNode({ client, path: { node_id: ids.node } });
    expect(matrixOf((byNode.data as any).data)).toBeDefined();
    const byHierarchy = await getByContextProductsForHierarchy({
      client,
      path: { hierarchy_id: ids.hierarchy },
    });
    expect(matrixOf((byHierarchy.data as any).data)).toBeDefined();
    // The children list: each child with its chosen options.
    const kids = await getByContextChildProducts({ client, path: { product_id: ids.parent } });
    const list = (kids.data as any).data as { meta: { child_option_ids: string[] } }[];
    expect(list).toHaveLength(5);
    expect(list.every((c) => c.meta.child_option_ids.length === 2)).toBe(true);
    // The release form, with the store's token.
    const admin = createClient({
      baseUrl: service.url,
      headers: { Authorization: `Bearer ${await service.token()}` },
    } as never);
    const released = await getProduct({
      client: admin,
      path: { catalog_id: ids.catalog, release_id: ids.release, product_id: ids.parent },
    } as never);
    expect(released.response.status).toBe(200);
    expect((released.data as any).data.meta.variations).toHaveLength(2);
    expect(Object.keys((released.data as any).data.meta.variation_matrix)).toEqual([o.S, o.M, o.L]);
  });

  it('keeps the matrix its release froze until the catalog is published again', async () => {
    await option(ids.size, 'XL', 5);
    expect((await service.call('POST', `/pcm/products/${ids.parent}/build`)).status).toBe(201);
    const xl = ids.options.XL as string;
    const before = await getByContextProduct({ client, path: { product_id: ids.parent } });
    expect((before.data as any).data.meta.variation_matrix[xl]).toBeUndefined();
    expect((before.data as any).data.meta.variations[0].options).toHaveLength(3);
    // XL children are new and have no price: the matrix still lists them (the picker maps them).
    await publish();
    const after = await getByContextProduct({ client, path: { product_id: ids.parent } });
    const meta = (after.data as any).data.meta;
    expect(meta.variations[0].options.map((x: { name: string }) => x.name)).toEqual([
      'S',
      'M',
      'L',
      'XL',
    ]);
    const children = await childrenBySku();
    expect(meta.variation_matrix[xl]).toEqual({
      [ids.options.Red as string]: children['TEE-XL-RED'],
      [ids.options.Blue as string]: children['TEE-XL-BLUE'],
    });
  });

  it('shows a child neither the variations nor the matrix (its parent has them)', async () => {
    const children = await childrenBySku();
    const child = await getByContextProduct({
      client,
      path: { product_id: children['TEE-S-RED'] as string },
    });
    expect((child.data as any).data.meta.variation_matrix).toBeUndefined();
    expect((child.data as any).data.meta.variations).toBeUndefined();
  });
});

describe('the demo store', () => {
  let seeded: SeededService;
  let demo: any;
  beforeAll(async () => {
    seeded = await startSeededService(0);
    demo = createClient({
      baseUrl: seeded.url,
      headers: { Authorization: `Bearer ${await seeded.token('alpha', 'implicit')}` },
    } as never);
  });
  afterAll(() => seeded?.close());

  it('publishes a Size × Colour parent and two bundles of demo products', async () => {
    const tees = await getByContextAllProducts({
      client: demo,
      query: { filter: 'eq(sku,TEE-001)' } as never,
    });
    const tee = (tees.data as any).data[0];
    expect(tee.meta.variations.map((v: { name: string }) => v.name)).toEqual(['Size', 'Colour']);
    const sizes = Object.values(tee.meta.variation_matrix) as Record<string, string>[];
    expect(sizes).toHaveLength(3);
    expect(sizes.every((colours) => Object.keys(colours).length === 2)).toBe(true);

    const kits = await getByContextAllProducts({
      client: demo,
      query: {
        filter: 'eq(slug,tee-starter-kit)',
        include: ['main_image', 'files', 'component_products'],
      } as never,
    });
    const kit = (kits.data as any).data[0];
    const components = (kits.data as any).included.component_products as any[];
    expect(kit.meta.product_types).toEqual(['bundle']);
    expect(Object.keys(kit.attributes.components)).toEqual(['tee', 'extras']);
    expect(components).toHaveLength(9);
    // No SKU: priced from its default choice, the first tee and the first extra.
    const [teeId] = Object.keys(kit.meta.bundle_configuration.selected_options.tee);
    const [extraId] = Object.keys(kit.meta.bundle_configuration.selected_options.extras);
    const listPrice = (productId: string | undefined) => {
      const meta = kit.meta.component_products[productId as string];
      return (meta.original_price ?? meta.price).USD.amount as number;
    };
    expect(kit.attributes.price.USD.amount).toBe(listPrice(teeId) + listPrice(extraId));

    const gifts = await getByContextAllProducts({
      client: demo,
      query: { filter: 'eq(sku,BUNDLE-GIFT)' } as never,
    });
    expect((gifts.data as any).data[0].meta.display_price.without_tax.formatted).toBe('$49.99');

    const cart = await seeded.call('POST', '/v2/carts', {
      token: await seeded.token('alpha', 'implicit'),
      json: { data: { name: 'demo' } },
    });
    const added = await manageCarts({
      client: demo,
      path: { cartID: cart.body.data.id },
      body: {
        data: {
          type: 'cart_item',
          id: kit.id,
          quantity: 1,
          bundle_configuration: {
            selected_options: kit.meta.bundle_configuration.selected_options,
          },
        },
      },
    } as never);
    expect(added.response.status).toBe(201);
    expect((added.data as any).data[0].unit_price.amount).toBe(kit.attributes.price.USD.amount);
  });
});
