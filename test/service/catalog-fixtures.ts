/**
 * A small PXM store built over HTTP for the catalog suites: two hierarchies (Apparel: Tops >
 * Shirts, Bottoms; Brands: Acme), live and draft products attached to nodes, a parent with two
 * built children, a price book with USD and EUR prices (the shirt on sale), and helpers to make
 * catalogs, rules and releases.
 */
import type { ServiceUnderTest } from './service-helpers.ts';

export interface CatalogFixture {
  apparel: string;
  brands: string;
  tops: string;
  shirts: string;
  bottoms: string;
  acme: string;
  shirt: string;
  pants: string;
  draft: string;
  parent: string;
  children: string[];
  book: string;
}

export async function post(
  service: ServiceUnderTest,
  path: string,
  type: string,
  attributes: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  const result = await service.call('POST', path, {
    json: { data: { type, attributes, ...extra } },
  });
  if (result.status !== 201) {
    throw new Error(`${path}: ${result.status} ${JSON.stringify(result.body)}`);
  }
  return result.body.data;
}

async function attach(service: ServiceUnderTest, h: string, n: string, ...ids: string[]) {
  const result = await service.call(
    'POST',
    `/pcm/hierarchies/${h}/nodes/${n}/relationships/products`,
    {
      json: { data: ids.map((id) => ({ type: 'product', id })) },
    },
  );
  if (result.status >= 300) throw new Error(`attach: ${JSON.stringify(result.body)}`);
}

const product = (
  name: string,
  sku: string,
  status = 'live',
  extra: Record<string, unknown> = {},
) => ({
  name,
  sku,
  slug: sku.toLowerCase(),
  commodity_type: 'physical',
  status,
  ...extra,
});

export async function buildCatalogFixture(service: ServiceUnderTest): Promise<CatalogFixture> {
  const p = (path: string, type: string, attributes: Record<string, unknown>, extra = {}) =>
    post(service, path, type, attributes, extra);
  const apparel = (await p('/pcm/hierarchies', 'hierarchy', { name: 'Apparel', slug: 'apparel' }))
    .id;
  const brands = (await p('/pcm/hierarchies', 'hierarchy', { name: 'Brands', slug: 'brands' })).id;
  const node = async (h: string, name: string, parent?: string) =>
    (
      await p(
        `/pcm/hierarchies/${h}/nodes`,
        'node',
        { name, slug: name.toLowerCase() },
        parent === undefined
          ? {}
          : { relationships: { parent: { data: { type: 'node', id: parent } } } },
      )
    ).id as string;
  const tops = await node(apparel, 'Tops');
  const shirts = await node(apparel, 'Shirts', tops);
  const bottoms = await node(apparel, 'Bottoms');
  const acme = await node(brands, 'Acme');
  const shirt = (
    await p(
      '/pcm/products',
      'product',
      product('Oxford Shirt', 'SHIRT-1', 'live', {
        tags: ['cotton'],
        mpn: 'MPN-1',
        upc_ean: '0001',
      }),
    )
  ).id;
  const pants = (await p('/pcm/products', 'product', product('Chino Pants', 'PANTS-1'))).id;
  const draft = (await p('/pcm/products', 'product', product('Secret Shirt', 'DRAFT-1', 'draft')))
    .id;
  const size = (await p('/pcm/variations', 'product-variation', { name: 'Size' })).id;
  for (const name of ['Small', 'Medium']) {
    const option = await p(`/pcm/variations/${size}/options`, 'product-variation-option', {
      name,
      description: name,
    });
    await p(
      `/pcm/variations/${size}/options/${option.id}/modifiers`,
      'product-variation-modifier',
      {
        type: 'sku_append',
        value: `-${name[0]}`,
      },
    );
  }
  const parent = (
    await p('/pcm/products', 'product', product('Tee', 'TEE'), {
      relationships: { variations: { data: [{ type: 'product-variation', id: size }] } },
    })
  ).id;
  const build = await service.call('POST', `/pcm/products/${parent}/build`);
  if (build.status >= 300) throw new Error(`build: ${JSON.stringify(build.body)}`);
  const kids = await service.call('GET', `/pcm/products/${parent}/children`);
  const children = (kids.body.data as { id: string }[]).map((c) => c.id);
  await attach(service, apparel, shirts, shirt, draft);
  await attach(service, apparel, bottoms, pants);
  await attach(service, apparel, tops, parent);
  await attach(service, brands, acme, shirt);
  const book = (await p('/pcm/pricebooks', 'pricebook', { name: 'Retail' })).id;
  const price = (
    sku: string,
    currencies: Record<string, number>,
    extra: Record<string, unknown> = {},
  ) =>
    p(`/pcm/pricebooks/${book}/prices`, 'product-price', {
      sku,
      currencies: Object.fromEntries(
        Object.entries(currencies).map(([c, amount]) => [c, { amount, includes_tax: false }]),
      ),
      ...extra,
    });
  await price(
    'SHIRT-1',
    { USD: 5000, EUR: 4500 },
    {
      sales: { spring: { currencies: { USD: { amount: 4000, includes_tax: false } } } },
    },
  );
  await price('PANTS-1', { USD: 7000 });
  await price('TEE-S', { USD: 1500, EUR: 1400 });
  await price('TEE-M', { USD: 1600, EUR: 1500 });
  await price('DRAFT-1', { USD: 100 });
  return {
    apparel,
    brands,
    tops,
    shirts,
    bottoms,
    acme,
    shirt,
    pants,
    draft,
    parent,
    children,
    book,
  };
}

export async function createCatalog(
  service: ServiceUnderTest,
  name: string,
  attributes: Record<string, unknown>,
): Promise<string> {
  return (await post(service, '/catalogs', 'catalog', { name, ...attributes })).id;
}

export async function publish(service: ServiceUnderTest, catalogId: string) {
  const result = await service.call('POST', `/catalogs/${catalogId}/releases`);
  if (result.status !== 201) throw new Error(`publish: ${JSON.stringify(result.body)}`);
  return result.body.data as { id: string; meta: Record<string, unknown> };
}
