/**
 * A store for the Catalog Search suites, built over HTTP: a "Store" hierarchy (Kitchen >
 * Cookware, Garden) and a "Brands" one (Acme), products whose words exercise stemming,
 * prefixes, typos and relevance, 30 mugs for paging and facets past a page, custom
 * (extension) fields, one price book in USD (a sale on the pan, a scheduled one on the peeler)
 * and EUR, and a search-enabled
 * catalog of both hierarchies. Products are created one clock tick apart, so created_at
 * orders them.
 */
import { post } from './catalog-fixtures.ts';
import type { ServiceUnderTest } from './service-helpers.ts';

export interface SearchFixture {
  store: string;
  brands: string;
  kitchen: string;
  cookware: string;
  garden: string;
  acme: string;
  book: string;
  /** Product ids by key. */
  products: Record<string, string>;
  mugs: string[];
  catalog: string;
  release: string;
}

interface ProductSpec {
  key: string;
  name: string;
  sku: string;
  description: string;
  usd: number;
  tags?: string[];
  extensions?: Record<string, Record<string, unknown>>;
  nodes: ('kitchen' | 'cookware' | 'garden' | 'acme')[];
  sale?: number;
  /** The sale's schedule (none: always on). */
  saleSchedule?: { valid_from: string; valid_to: string };
}

export const PRODUCTS: ProductSpec[] = [
  {
    key: 'shoes',
    name: 'Running Shoes',
    sku: 'RUN-1',
    description: 'A light trail runner for long distances.',
    usd: 8000,
    tags: ['sport'],
    extensions: { 'products(specs)': { material: 'mesh', weight: 300 } },
    nodes: ['garden', 'acme'],
  },
  {
    key: 'board',
    name: 'Walnut Chopping Board',
    sku: 'BOARD-1',
    description: 'A board of oiled walnut.',
    usd: 3500,
    tags: ['wood'],
    extensions: { 'products(specs)': { material: 'walnut', weight: 1200 } },
    nodes: ['cookware'],
  },
  {
    key: 'bowl',
    name: 'Salad Bowl',
    sku: 'BOWL-1',
    description: 'Turned from walnut & <oak> by hand.',
    usd: 4200,
    tags: ['wood'],
    extensions: { 'products(specs)': { material: 'oak', weight: 800 } },
    nodes: ['cookware', 'acme'],
  },
  {
    key: 'pan',
    name: 'Copper Pan',
    sku: 'PAN-1',
    description: 'A copper pan that runs hot.',
    usd: 6000,
    sale: 5000,
    nodes: ['cookware'],
  },
  {
    key: 'hose',
    name: 'Garden Hose',
    sku: 'HOSE-1',
    description: 'Thirty metres of hose.',
    usd: 2500,
    tags: ['outdoor'],
    nodes: ['garden'],
  },
  {
    key: 'peeler',
    name: 'Apple Peeler',
    sku: 'PEEL-1',
    description: 'Peels apples quickly.',
    usd: 1200,
    nodes: ['kitchen'],
    sale: 600,
    saleSchedule: { valid_from: '2026-06-01T00:00:00.000Z', valid_to: '2026-06-02T00:00:00.000Z' },
  },
];

export const MUGS = 30;

export async function attach(service: ServiceUnderTest, h: string, n: string, ids: string[]) {
  const result = await service.call(
    'POST',
    `/pcm/hierarchies/${h}/nodes/${n}/relationships/products`,
    { json: { data: ids.map((id) => ({ type: 'product', id })) } },
  );
  if (result.status >= 300) throw new Error(`attach: ${JSON.stringify(result.body)}`);
}

/** Builds the store; `tick` moves the service's clock on by a second. */
export async function buildSearchFixture(
  service: ServiceUnderTest,
  tick: () => void,
): Promise<SearchFixture> {
  const p = (path: string, type: string, attributes: Record<string, unknown>, extra = {}) =>
    post(service, path, type, attributes, extra);
  const store = (await p('/pcm/hierarchies', 'hierarchy', { name: 'Store' })).id as string;
  const brands = (await p('/pcm/hierarchies', 'hierarchy', { name: 'Brands' })).id as string;
  const node = async (h: string, name: string, parent?: string) =>
    (
      await p(
        `/pcm/hierarchies/${h}/nodes`,
        'node',
        { name },
        parent === undefined
          ? {}
          : { relationships: { parent: { data: { type: 'node', id: parent } } } },
      )
    ).id as string;
  const kitchen = await node(store, 'Kitchen');
  const cookware = await node(store, 'Cookware', kitchen);
  const garden = await node(store, 'Garden');
  const acme = await node(brands, 'Acme');
  const nodes = { kitchen, cookware, garden, acme };
  const book = (await p('/pcm/pricebooks', 'pricebook', { name: 'Retail' })).id as string;
  const price = (sku: string, usd: number, sale?: number, schedule?: Record<string, string>) =>
    p(`/pcm/pricebooks/${book}/prices`, 'product-price', {
      sku,
      currencies: {
        USD: { amount: usd, includes_tax: false },
        EUR: { amount: Math.round(usd * 0.9), includes_tax: false },
      },
      ...(sale === undefined
        ? {}
        : {
            sales: {
              summer: {
                currencies: { USD: { amount: sale, includes_tax: false } },
                ...(schedule === undefined ? {} : { schedule }),
              },
            },
          }),
    });
  const products: Record<string, string> = {};
  const links = new Map<string, string[]>();
  for (const spec of PRODUCTS) {
    tick();
    const id = (
      await p('/pcm/products', 'product', {
        name: spec.name,
        sku: spec.sku,
        slug: spec.sku.toLowerCase(),
        description: spec.description,
        commodity_type: 'physical',
        status: 'live',
        tags: spec.tags ?? [],
        ...(spec.extensions === undefined ? {} : { extensions: spec.extensions }),
      })
    ).id as string;
    products[spec.key] = id;
    for (const n of spec.nodes) links.set(n, [...(links.get(n) ?? []), id]);
    await price(spec.sku, spec.usd, spec.sale, spec.saleSchedule);
  }
  const mugs: string[] = [];
  for (let i = 1; i <= MUGS; i++) {
    tick();
    const sku = `MUG-${String(i).padStart(2, '0')}`;
    const id = (
      await p('/pcm/products', 'product', {
        name: `Mug ${String(i).padStart(2, '0')}`,
        sku,
        slug: sku.toLowerCase(),
        description: 'A plain mug.',
        commodity_type: 'physical',
        status: 'live',
        tags: [i % 2 === 0 ? 'even' : 'odd'],
      })
    ).id as string;
    mugs.push(id);
    await price(sku, 1000 + i * 10);
  }
  links.set('kitchen', [...(links.get('kitchen') ?? []), ...mugs]);
  for (const [key, ids] of links) {
    const n = nodes[key as keyof typeof nodes];
    await attach(service, key === 'acme' ? brands : store, n, ids);
  }
  tick();
  const catalog = (
    await p('/catalogs', 'catalog', {
      name: 'Everything',
      hierarchy_ids: [store, brands],
      pricebook_id: book,
      enable_search: true,
    })
  ).id as string;
  tick();
  const release = await publishRelease(service, catalog);
  return { store, brands, kitchen, cookware, garden, acme, book, products, mugs, catalog, release };
}

export async function publishRelease(service: ServiceUnderTest, catalog: string): Promise<string> {
  const result = await service.call('POST', `/catalogs/${catalog}/releases`);
  if (result.status !== 201) throw new Error(`publish: ${JSON.stringify(result.body)}`);
  return result.body.data.id as string;
}
