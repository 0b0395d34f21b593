/**
 * The storefront's search and product page through the gateway, as a shopper with the implicit
 * token sees the demo store: `catalog { search }` with facets, a price sort and a refinement
 * answering exactly what the service's Catalog Search answers for the same query (total, facet
 * counts, order of ids, page after page); a variation product's picker resolved to a child; a
 * bundle's components; images a browser loads without a token; and what a search page of 100
 * with prices, stock, images and options costs upstream (one search call and one stock call).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planPages, searchWindow } from '../../src/schema/catalog/search-params.ts';
import { type Stack, startStack } from '../support/harness.ts';
import type { Json } from './fixtures.ts';

let stack: Stack;
let guest: string;
beforeAll(async () => {
  stack = await startStack({ seed: true });
  guest = await stack.implicitToken();
});
afterAll(() => stack?.close());

async function ok(query: string, variables?: Record<string, unknown>): Promise<Json> {
  const result = await stack.graphql(query, variables, { token: guest });
  expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
  return result.body.data;
}

/** The same search asked of the service directly, with the same token. */
async function service(params: Record<string, string | number>): Promise<Json> {
  const query = new URLSearchParams(
    Object.entries(params).map(([k, v]) => [k, String(v)] as [string, string]),
  );
  const response = await fetch(`${stack.serviceUrl}/catalog/search?${query}`, {
    headers: { authorization: `Bearer ${guest}` },
  });
  expect(response.status).toBe(200);
  return response.json();
}

const upstreamCalls = (before: number) =>
  stack.upstreamRequests.slice(before).filter((r) => !r.url.startsWith('/oauth'));

const SEARCH = `query($q: String, $filter: ProductSearchFilter, $first: Int, $after: String) {
  catalog { search(query: $q, filter: $filter, sort: PRICE, first: $first, after: $after,
      facets: [{ field: PRODUCT_TYPE }, { field: TAGS }, { field: PRICE }]) {
    totalCount
    pageInfo { hasNextPage hasPreviousPage endCursor }
    facets { field name values { value count } stats { min max } }
    edges { cursor highlights { field snippet matchedTokens } node { upstreamId name } }
  } } }`;

const FACET_BY = 'meta.product_types,attributes.tags,price.amount';

function facetCounts(facets: Json[]): Record<string, Record<string, number>> {
  return Object.fromEntries(
    facets.map((f: Json) => [
      f.name ?? f.field_name,
      Object.fromEntries((f.values ?? f.counts).map((v: Json) => [v.value, v.count])),
    ]),
  );
}

describe('catalog search', () => {
  it('answers "tee" with three facets and a price sort exactly as the service does', async () => {
    const data = await ok(SEARCH, { q: 'tee', first: 20 });
    const search = data.catalog.search;
    const truth = await service({
      q: 'tee',
      facet_by: FACET_BY,
      max_facet_values: 20,
      sort_by: 'price.amount:asc',
      per_page: 20,
    });
    expect(search.totalCount).toBe(truth.found);
    expect(search.totalCount).toBeGreaterThan(100);
    expect(search.edges.map((e: Json) => e.node.upstreamId)).toEqual(
      truth.hits.map((h: Json) => h.document.id),
    );
    expect(search.facets.map((f: Json) => f.field)).toEqual(['PRODUCT_TYPE', 'TAGS', 'PRICE']);
    expect(facetCounts(search.facets)).toEqual(facetCounts(truth.facet_counts));
    // Counts over every hit, not the page of 20.
    const types = search.facets[0].values.reduce((n: number, v: Json) => n + v.count, 0);
    expect(types).toBe(truth.found);
    expect(search.facets[2].stats.min).toBe(truth.facet_counts[2].stats.min);
    expect(search.edges[0].highlights[0].snippet).toMatch(/<mark>Tee<\/mark>/i);
    expect(search.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
  });

  it('refines by a facet value and pages on with cursors, still equal to the service', async () => {
    const filter = { tags: ['eco'], productType: ['child'] };
    const first = await ok(SEARCH, { q: 'tee', filter, first: 7 });
    const all = await service({
      q: 'tee',
      filter_by: 'attributes.tags:=[`eco`] && meta.product_types:=[`child`]',
      facet_by: FACET_BY,
      max_facet_values: 20,
      sort_by: 'price.amount:asc',
      per_page: 100,
    });
    const ids = all.hits.map((h: Json) => h.document.id);
    expect(first.catalog.search.totalCount).toBe(all.found);
    expect(all.found).toBeGreaterThan(14);
    expect(facetCounts(first.catalog.search.facets)).toEqual(facetCounts(all.facet_counts));
    expect(first.catalog.search.facets[1].values.find((v: Json) => v.value === 'eco').count).toBe(
      all.found,
    );
    // An unaligned page (hits 7..19): one upstream call however the window falls.
    const before = stack.upstreamRequests.length;
    const next = await ok(SEARCH, {
      q: 'tee',
      filter,
      first: 13,
      after: first.catalog.search.pageInfo.endCursor,
    });
    expect(upstreamCalls(before)).toHaveLength(1);
    const seen = [...first.catalog.search.edges, ...next.catalog.search.edges].map(
      (e: Json) => e.node.upstreamId,
    );
    expect(seen).toEqual(ids.slice(0, 20));
    expect(next.catalog.search.pageInfo.hasPreviousPage).toBe(true);
    // And back: the 5 hits before the 20th.
    const back = await ok(
      `query($before: String) { catalog { search(query: "tee", sort: PRICE, last: 5,
        before: $before, filter: { tags: ["eco"], productType: ["child"] }) {
        edges { node { upstreamId } } } } }`,
      { before: next.catalog.search.pageInfo.endCursor },
    );
    expect(back.catalog.search.edges.map((e: Json) => e.node.upstreamId)).toEqual(
      ids.slice(14, 19),
    );
  });

  it('filters by a node and every node below it, and by a price range', async () => {
    const nodes = await ok(
      `{ catalog { nodes(first: 100, filter: { slug: { eq: "apparel" } }) { nodes { upstreamId name } } } }`,
    );
    const apparel = nodes.catalog.nodes.nodes[0];
    expect(apparel.name).toBe('Apparel');
    const data = await ok(
      `query($f: ProductSearchFilter) { catalog { search(query: "tee", filter: $f, first: 100, sort: NAME) {
        totalCount nodes { upstreamId name } } } }`,
      { f: { nodeId: apparel.upstreamId, price: { min: 1000, max: 30000 } } },
    );
    const truth = await service({
      q: 'tee',
      filter_by:
        'meta.search.categories.lvl1:=`Departments > Apparel` && price.amount:>=1000 && price.amount:<=30000',
      sort_by: 'attributes.name:asc',
      per_page: 100,
    });
    expect(data.catalog.search.totalCount).toBe(truth.found);
    expect(data.catalog.search.nodes.map((n: Json) => n.upstreamId)).toEqual(
      truth.hits.map((h: Json) => h.document.id),
    );
    // The tees sit two levels below Apparel: a descendant's products are in.
    expect(data.catalog.search.nodes.some((n: Json) => /^Tee \d+$/.test(n.name))).toBe(true);
  });

  it('filters and facets by stock, read live: a sale is seen by the next search, as the service sees it', async () => {
    const STOCKED = `query($f: ProductSearchFilter) { catalog { search(query: "tee", filter: $f,
        sort: PRICE, first: 20, facets: [{ field: IN_STOCK }, { field: TAGS }]) {
      totalCount facets { field name values { value count } } nodes { upstreamId } } } }`;
    const check = async (inStock: boolean) => {
      const search = (await ok(STOCKED, { f: { inStock } })).catalog.search;
      const truth = await service({
        q: 'tee',
        filter_by: `meta.stock.in_stock:=${inStock}`,
        facet_by: 'meta.stock.in_stock,attributes.tags',
        max_facet_values: 20,
        sort_by: 'price.amount:asc',
        per_page: 20,
      });
      expect(search.totalCount).toBe(truth.found);
      expect(search.nodes.map((n: Json) => n.upstreamId)).toEqual(
        truth.hits.map((h: Json) => h.document.id),
      );
      expect(facetCounts(search.facets)).toEqual(facetCounts(truth.facet_counts));
      return search;
    };
    const all = (await ok(`{ catalog { search(query: "tee", first: 0) { totalCount } } }`)).catalog
      .search.totalCount;
    const inStock = await check(true);
    const soldOut = await check(false);
    expect(inStock.totalCount).toBeGreaterThan(0);
    expect(inStock.totalCount + soldOut.totalCount).toBe(all);
    expect(facetCounts(inStock.facets)['meta.stock.in_stock']).toEqual({
      true: inStock.totalCount,
    });
    // Sell out the cheapest in-stock tee on the service: the next search leaves it out.
    const id = inStock.nodes[0].upstreamId as string;
    const store = await stack.token();
    const stockCall = (method: string, path: string, body?: unknown) =>
      fetch(`${stack.serviceUrl}/v2/inventories/${id}${path}`, {
        method,
        headers: { authorization: `Bearer ${store}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const current = await stockCall('GET', '');
    const available =
      current.status === 200 ? ((await current.json()) as Json).data.available : undefined;
    const move = (action: string, quantity: number) =>
      stockCall('POST', '/transactions', { data: { type: 'stock-transaction', action, quantity } });
    if (available === undefined) {
      expect((await stockCall('POST', '', { data: { quantity: 0 } })).status).toBe(201);
    } else expect((await move('decrement', available)).status).toBe(201);
    try {
      const after = await check(true);
      expect(after.totalCount).toBe(inStock.totalCount - 1);
      expect(after.nodes.map((n: Json) => n.upstreamId)).not.toContain(id);
      expect((await check(false)).totalCount).toBe(soldOut.totalCount + 1);
    } finally {
      if (available === undefined) await stockCall('DELETE', '');
      else await move('increment', available);
    }
    expect((await check(true)).totalCount).toBe(inStock.totalCount);
  });

  it('judges bad input before any upstream call, with clear BAD_USER_INPUT errors', async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      [SEARCH, { filter: { price: { min: 500, max: 100 } } }, /min is above max/],
      [SEARCH, { filter: { productType: ['gadget'] } }, /not standard, parent, child or bundle/],
      [SEARCH, { filter: { tags: ['a`b'] } }, /may not contain/],
      [SEARCH, { first: -1 }, /from 0 to 900/],
      [SEARCH, { after: 'bm9wZQ' }, /not a cursor of this search/],
    ];
    const other = await ok(SEARCH, { first: 1 });
    cases.push([
      SEARCH,
      { q: 'tee', after: other.catalog.search.pageInfo.endCursor },
      /not a cursor of this search/,
    ]);
    for (const [query, variables, message] of cases) {
      const before = stack.upstreamRequests.length;
      const result = await stack.graphql(query, variables, { token: guest });
      expect(result.body.errors?.[0]?.extensions?.code, JSON.stringify(variables)).toBe(
        'BAD_USER_INPUT',
      );
      expect(result.body.errors[0].message).toMatch(message);
      expect(upstreamCalls(before)).toHaveLength(0);
    }
  });

  it('suggests completions', async () => {
    const data = await ok(
      `{ catalog { autocomplete(query: "te", first: 5) { text highlighted count } } }`,
    );
    expect(data.catalog.autocomplete).toHaveLength(5);
    expect(data.catalog.autocomplete[0].text).toMatch(/^Tee/);
    expect(data.catalog.autocomplete[0].highlighted).toMatch(/<mark>Tee<\/mark>/i);
  });
});

describe('the product page', () => {
  it('offers a variation product’s options and resolves a choice to its child', async () => {
    const before = stack.upstreamRequests.length;
    const data = await ok(`{ catalog { product(sku: "TEE-001") { name
      options { name values }
      pick: variantBySelectedOptions(selectedOptions: [{ name: "Colour", value: "Blue" }, { name: "Size", value: "M" }]) {
        sku selectedOptions { name value } price(currency: "EUR") { amount { amount } } }
      none: variantBySelectedOptions(selectedOptions: [{ name: "Size", value: "XXL" }, { name: "Colour", value: "Blue" }]) { sku }
    } } }`);
    const product = data.catalog.product;
    expect(product.options).toEqual([
      { name: 'Size', values: ['S', 'M', 'L'] },
      { name: 'Colour', values: ['Red', 'Blue'] },
    ]);
    expect(product.pick.sku).toBe('TEE-001-M-BLUE');
    expect(product.pick.selectedOptions).toEqual([
      { name: 'Size', value: 'M' },
      { name: 'Colour', value: 'Blue' },
    ]);
    expect(product.pick.price.amount.amount).toBeGreaterThan(0);
    expect(product.none).toBeNull();
    // The product, then the child: no read of the matrix.
    expect(upstreamCalls(before)).toHaveLength(2);

    const variants = await ok(`{ catalog { product(sku: "TEE-001") {
      variants(first: 10) { totalCount nodes { sku selectedOptions { name value } } } } } }`);
    const children = variants.catalog.product.variants;
    expect(children.totalCount).toBe(6);
    expect(
      new Set(
        children.nodes.map((n: Json) => n.selectedOptions.map((o: Json) => o.value).join('/')),
      ).size,
    ).toBe(6);

    const bad = await stack.graphql(
      `{ catalog { product(sku: "TEE-001") { variantBySelectedOptions(selectedOptions: [{ name: "Fit", value: "Slim" }]) { sku } } } }`,
      {},
      { token: guest },
    );
    expect(bad.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(bad.body.errors[0].message).toMatch(/no option "Fit" \(options: Size, Colour\)/);
  });

  it('shows a bundle’s components with their quantity bounds and products', async () => {
    const data = await ok(`{ catalog { kit: product(slug: "tee-starter-kit") { productType
        components { key name min max options { productId quantity min max isDefault
          product { name sku selectedOptions { name value } } } } }
      box: search(query: "Gift Box", first: 1, filter: { productType: ["bundle"] }) { nodes { name components { key min max options { product { name } } } } } } }`);
    const kit = data.catalog.kit;
    expect(kit.productType).toBe('bundle');
    expect(kit.components.map((c: Json) => [c.key, c.min, c.max])).toEqual([
      ['tee', 1, 1],
      ['extras', 0, 2],
    ]);
    const tee = kit.components[0];
    expect(tee.options).toHaveLength(6);
    expect(tee.options.filter((o: Json) => o.isDefault)).toHaveLength(1);
    expect(tee.options[0].product.selectedOptions).toHaveLength(2);
    expect(kit.components[1].options[0]).toMatchObject({ quantity: 1, min: 1, max: 3 });
    const box = data.catalog.box.nodes[0];
    expect(box.name).toBe('Gift Box');
    expect(box.components.length).toBeGreaterThan(0);
    expect(
      box.components.every((c: Json) => c.options.every((o: Json) => o.product !== null)),
    ).toBe(true);
  });

  it('gives images whose url a browser loads without a token', async () => {
    const data = await ok(`{ catalog { search(query: "tee", first: 5) { nodes {
      mainImage { url altText width height } images { url } } } } }`);
    for (const product of data.catalog.search.nodes) {
      expect(product.mainImage.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
      expect(product.images[0].url).toBe(product.mainImage.url);
      expect(product.mainImage.width).toBeNull();
    }
    const response = await fetch(data.catalog.search.nodes[0].mainImage.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^image\/png/);
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect([...bytes.slice(1, 4)].map((b) => String.fromCharCode(b)).join('')).toBe('PNG');
    // A product page that selects only `images` gets them too (the lookup includes them).
    const page = await ok(`{ catalog { product(sku: "TEE-001") { images { url } } } }`);
    expect(page.catalog.product.images.length).toBeGreaterThan(0);
  });
});

describe('what a search page costs upstream', () => {
  const PAGE = `query($after: String) { catalog { search(first: 100, after: $after, sort: PRICE,
      facets: [{ field: PRODUCT_TYPE }, { field: TAGS }, { field: PRICE }]) {
    totalCount facets { values { count } }
    edges { cursor node { upstreamId name price(currency: "EUR") { amount { formatted } }
      stock { available } mainImage { url } options { name values } } } } } }`;

  it('serves 100 products with prices, stock, images and options in at most 2 calls', async () => {
    let before = stack.upstreamRequests.length;
    const first = await ok(PAGE);
    expect(first.catalog.search.edges).toHaveLength(100);
    expect(upstreamCalls(before).length).toBeLessThanOrEqual(2);
    // An unaligned window (hits 50..149) too: two searches of one multi-search, one stock call.
    const fifty = first.catalog.search.edges[49].cursor;
    before = stack.upstreamRequests.length;
    const next = await ok(PAGE, { after: fifty });
    const calls = upstreamCalls(before);
    expect(calls.length).toBeLessThanOrEqual(2);
    expect(calls.filter((c) => c.url.includes('multi-search'))).toHaveLength(1);
    expect(next.catalog.search.edges[0].node.upstreamId).toBe(
      first.catalog.search.edges[50].node.upstreamId,
    );
    const truth = await service({ q: '*', sort_by: 'price.amount:asc', per_page: 100, page: 2 });
    expect(next.catalog.search.edges.slice(50).map((e: Json) => e.node.upstreamId)).toEqual(
      truth.hits.slice(0, 50).map((h: Json) => h.document.id),
    );
    expect(next.catalog.search.edges.some((e: Json) => e.node.stock !== null)).toBe(true);
  });
});

describe('planning a window into service pages', () => {
  it('covers any window of up to 100 hits with at most two pages', () => {
    for (let offset = 0; offset < 400; offset += 7) {
      for (const count of [1, 13, 50, 99, 100]) {
        const pages = planPages(offset, count);
        expect(pages.length).toBeLessThanOrEqual(2);
        const start = ((pages[0]?.page ?? 1) - 1) * (pages[0]?.perPage ?? 0);
        const last = pages.at(-1) as { page: number; perPage: number };
        expect(start).toBeLessThanOrEqual(offset);
        expect(last.page * last.perPage).toBeGreaterThanOrEqual(offset + count);
        expect(pages.every((p) => p.perPage <= 100)).toBe(true);
      }
    }
    expect(planPages(0, 900)).toHaveLength(9);
    expect(planPages(50, 900)).toHaveLength(10);
  });

  it('refuses `last` without `before` and both `first` and `last`', () => {
    expect(() => searchWindow({ last: 5 }, 'h', 900)).toThrow(/needs `before`/);
    expect(() => searchWindow({ first: 5, last: 5 }, 'h', 900)).toThrow(/not both/);
    expect(() => searchWindow({ first: 901 }, 'h', 900)).toThrow(/from 0 to 900/);
  });
});
