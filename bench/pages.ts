/**
 * The pages the side-by-side benches ask for (peers, and pairs' regression guard): the GraphQL
 * query per gateway kind, the REST call every gateway makes for it, and how a full answer is told;
 * and the trusted-documents manifest of their queries (ours-compiled, pairs' BY_ID=1).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Page {
  key: 'narrow' | 'wide' | 'catalog' | 'product' | 'search';
  name: string;
  size: number;
  /** What occurs once per item of the answer (how a full answer is told from a short one). */
  count: string;
  /**
   * The GraphQL query per gateway kind (Mesh's generated schema has other names; the catalog
   * pages have no Mesh form, so Hive is not measured on them). `floor`: what
   * bench/floor-gateway.ts reads of it (the narrow, catalog and product pages only).
   */
  query: { relay: string; mesh?: string; floor?: string };
  /** The REST call every gateway makes for it. */
  rest: string;
  /** Every relay target must answer the same `data` (checked before measuring). */
  same?: boolean;
}

const WIDE_FIELDS =
  'id upstreamId status payment shipping customerName customerEmail ' +
  'total { amount currency formatted } createdAt updatedAt';
/** Mesh names the `page[limit]` and `page[offset]` parameters so. */
const MESH_PAGE = (limit: number) =>
  `page_LEFT_SQUARE_BRACE_limit_RIGHT_SQUARE_BRACE_: ${limit}, ` +
  'page_LEFT_SQUARE_BRACE_offset_RIGHT_SQUARE_BRACE_: 0';
const MESH_WIDE_FIELDS =
  'id status payment shipping customer { name email } meta { display_price { with_tax ' +
  '{ amount currency formatted } } timestamps { created_at updated_at } }';
export const ALL_PAGES: Page[] = [
  {
    key: 'narrow',
    name: '25 orders (id status)',
    size: 25,
    query: {
      relay: '{ orders(first: 25) { edges { node { id status } } } }',
      // bench/floor-gateway.ts: node:http + undici + JSON.parse, the same calls, no GraphQL.
      floor: '{ orders(first: 25) { edges { node { id status } } } }',
      mesh: `{ listOrders(${MESH_PAGE(25)}) { data { id status } } }`,
    },
    rest: '/v2/orders?page[limit]=25&page[offset]=0',
    count: '"status":',
  },
  {
    key: 'wide',
    name: '100 orders, wide',
    size: 100,
    query: {
      relay: `{ orders(first: 100) { edges { node { ${WIDE_FIELDS} } } } }`,
      mesh: `{ listOrders(${MESH_PAGE(100)}) { data { ${MESH_WIDE_FIELDS} } } }`,
    },
    rest: '/v2/orders?page[limit]=100&page[offset]=0',
    count: '"status":',
  },
  {
    key: 'catalog',
    name: '25 catalog products (EUR price, stock)',
    size: 25,
    query: {
      relay:
        '{ catalog { products(first: 25) { edges { node { id name sku ' +
        'price(currency: "EUR") { amount { amount currency formatted } } stock { available } } } } } }',
      floor: '{ catalog { products(first: 25) { currency: "EUR" } } }',
    },
    rest: '/catalog/products?page[limit]=25&page[offset]=0',
    count: '"sku":',
  },
  {
    key: 'product',
    name: 'product by slug (breadcrumbs, children)',
    size: 1,
    // The slug is the demo seed's first parent product's (TEE-001), read from the service.
    query: {
      relay:
        '{ catalog { product(slug: "__SLUG__") { id name price(currency: "USD") { amount { amount ' +
        'currency formatted } } breadcrumbs { id name } children(first: 10) { edges { node { id sku name } } } } } }',
      floor: '{ catalog { product(slug: "__SLUG__") { breadcrumbs } } }',
    },
    rest: '/catalog/products?filter=eq(slug,__SLUG__)',
    count: '"breadcrumbs":',
  },
  {
    key: 'search',
    name: 'search page (20 hits, 3 facets, price sort)',
    size: 20,
    // Ours asks the service's POST /catalog/multi-search, the naive gateway GET /catalog/search:
    // the same search either way, so both answer the same data (checked before measuring).
    query: {
      relay:
        '{ catalog { search(query: "tee", first: 20, sort: PRICE, facets: [{ field: PRODUCT_TYPE }, ' +
        '{ field: TAGS }, { field: PRICE }]) { totalCount facets { field values { value count } } ' +
        'edges { node { upstreamId name sku price(currency: "USD") { amount { amount currency ' +
        'formatted } } } } } } }',
    },
    rest:
      '/catalog/search?q=tee&page=1&per_page=20&sort_by=price.amount:asc&max_facet_values=20' +
      '&facet_by=meta.product_types,attributes.tags,price.amount',
    count: '"upstreamId":',
    same: true,
  },
];

/** The pages named in a comma list (BENCH_PAGES), all of them when none is given. */
export function pagesOf(list: string | undefined): Page[] {
  if (!list) return ALL_PAGES;
  const keys = list.split(',');
  const unknown = keys.filter((key) => !ALL_PAGES.some((page) => page.key === key));
  if (unknown.length > 0) {
    throw new Error(
      `unknown page(s) ${unknown.join(', ')}: ${ALL_PAGES.map((p) => p.key).join(', ')}`,
    );
  }
  return ALL_PAGES.filter((page) => keys.includes(page.key));
}

/** The product page asks for the demo seed's first parent product, by its slug. */
export async function fillProductSlug(serviceUrl: string, token: string): Promise<void> {
  const response = await fetch(`${serviceUrl}/catalog/products?filter=eq(sku,TEE-001)`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await response.json()) as { data?: { attributes?: { slug?: string } }[] };
  const slug = body.data?.[0]?.attributes?.slug;
  if (slug === undefined) throw new Error('the demo catalog has no TEE-001 to open by slug');
  for (const page of ALL_PAGES) {
    page.query.relay = page.query.relay.replace('__SLUG__', slug);
    if (page.query.floor) page.query.floor = page.query.floor.replace('__SLUG__', slug);
    page.rest = page.rest.replace('__SLUG__', slug);
  }
}

/**
 * A trusted-documents manifest (PERSISTED_DOCUMENTS, Apollo's format) of `queries`, written to a
 * temporary folder: its path, and each query's id (its sha256) to send as `documentId` instead
 * of its text, as a storefront built with trusted documents sends them. The gateway compiles
 * them into plans at startup (src/gateway/compiled/) unless COMPILED_DOCUMENTS=0.
 */
export function writeManifest(queries: readonly string[]): {
  file: string;
  ids: Map<string, string>;
} {
  const ids = new Map<string, string>();
  for (const query of queries) ids.set(query, createHash('sha256').update(query).digest('hex'));
  const operations = [...ids].map(([body, id], i) => ({
    id,
    body,
    name: `bench${i + 1}`,
    type: 'query',
  }));
  const file = join(mkdtempSync(join(tmpdir(), 'bench-manifest-')), 'manifest.json');
  writeFileSync(
    file,
    JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 1, operations }),
  );
  return { file, ids };
}
