/**
 * Catalog Search over real HTTP: the shopper's search (GET /catalog/search) and multi-search
 * through the official `@epcc-sdk/sdks-shopper` (postMultiSearch, unchanged), a release's
 * search for the store, and what each parameter does: text (stemming, prefix, typos),
 * filter_by, facet_by with counts over every hit, sort_by (price, name, created_at,
 * relevance), paging, highlighting, autocomplete, and a 400 naming each bad parameter.
 */
import { createClient, postMultiSearch } from '@epcc-sdk/sdks-shopper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSearchFixture, MUGS, PRODUCTS, type SearchFixture } from './search-fixtures.ts';
import { errorOf, type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
let fx: SearchFixture;
let implicit: string;
let now = Date.parse('2026-05-01T10:00:00.000Z');

beforeAll(async () => {
  service = await startService({ now: () => now });
  fx = await buildSearchFixture(service, () => {
    now += 1000;
  });
  implicit = await service.token('alpha', 'implicit');
});
afterAll(() => service?.close());

async function search(
  query: Record<string, string | number>,
  headers: Record<string, string> = {},
) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  return service.call('GET', `/catalog/search?${qs}`, { token: implicit, headers });
}

const names = (body: any): string[] => body.hits.map((h: any) => h.document.attributes.name);
const idOf = (key: string) => fx.products[key] as string;

function sdk(token: string) {
  return createClient({
    baseUrl: service.url,
    headers: { Authorization: `Bearer ${token}` },
  } as never);
}

describe('full text', () => {
  it('finds by name, description, SKU, slug and custom fields, and says how many of how many', async () => {
    const byName = await search({ q: 'walnut' });
    expect(byName.status).toBe(200);
    expect(byName.headers.get('ep-search-profile')).toBe('SYSTEMS_DEFAULT_PROFILE');
    // Relevance: the name match first, then the description-only match.
    expect(names(byName.body)).toEqual(['Walnut Chopping Board', 'Salad Bowl']);
    expect(byName.body).toMatchObject({
      type: 'search',
      found: 2,
      out_of: PRODUCTS.length + MUGS,
      page: 1,
      search_cutoff: false,
    });
    expect((await search({ q: 'HOSE-1' })).body.hits[0].document.id).toBe(idOf('hose'));
    expect((await search({ q: 'peel-1' })).body.found).toBe(1);
    // A custom (extension) field's text is searched too.
    expect(names((await search({ q: 'mesh' })).body)).toEqual(['Running Shoes']);
  });

  it('stems words: "running" finds "Running" and "runs", "apple" finds "apples"', async () => {
    expect(new Set(names((await search({ q: 'running' })).body))).toEqual(
      new Set(['Running Shoes', 'Copper Pan']),
    );
    expect(names((await search({ q: 'apple' })).body)).toEqual(['Apple Peeler']);
  });

  it('takes the last word as a prefix, as typed ("copp", "walnut chop", "runni")', async () => {
    expect(names((await search({ q: 'copp' })).body)).toEqual(['Copper Pan']);
    expect(names((await search({ q: 'walnut chop' })).body)).toEqual(['Walnut Chopping Board']);
    expect(names((await search({ q: 'runni' })).body)).toEqual(['Running Shoes']);
  });

  it('forgives a typo when nothing matches as typed ("gardn" finds the Garden Hose)', async () => {
    const result = await search({ q: 'gardn' });
    expect(names(result.body)).toEqual(['Garden Hose']);
    expect(result.body.hits[0].text_match_info.typo_prefix_score).toBe(1);
    expect((await search({ q: 'zzzzzz' })).body.found).toBe(0);
  });

  it('highlights matched words in snippets, HTML-escaped, and whole fields when asked', async () => {
    const result = await search({ q: 'walnut', highlight_full_fields: 'attributes.description' });
    const [board, bowl] = result.body.hits;
    expect(board.highlight.attributes.name).toEqual({
      snippet: '<mark>Walnut</mark> Chopping Board',
      matched_tokens: ['Walnut'],
    });
    expect(board.highlights.map((h: any) => h.field)).toEqual([
      'attributes.name',
      'attributes.description',
    ]);
    expect(bowl.highlight.attributes.description.value).toBe(
      'Turned from <mark>walnut</mark> &amp; &lt;oak&gt; by hand.',
    );
    expect(bowl.highlight.attributes.name).toBeUndefined();
    // A match-all has nothing to highlight.
    expect((await search({ q: '*', per_page: 1 })).body.hits[0].highlights).toEqual([]);
  });
});

describe('filters, facets, sorts and pages', () => {
  it('filters by tags, categories, prices, custom fields, with && || ( ) and negation', async () => {
    const found = async (filter_by: string) =>
      new Set(names((await search({ filter_by, per_page: 100 })).body));
    expect(await found('attributes.tags:=[wood, sport]')).toEqual(
      new Set(['Walnut Chopping Board', 'Salad Bowl', 'Running Shoes']),
    );
    expect(await found('meta.search.categories.lvl2:=`Store > Kitchen > Cookware`')).toEqual(
      new Set(['Walnut Chopping Board', 'Salad Bowl', 'Copper Pan']),
    );
    expect(await found('meta.search.nodes.name:=Acme && price.USD.float_price:<50')).toEqual(
      new Set(['Salad Bowl']),
    );
    // The pan is on sale at $50: its price of the moment is what filters.
    expect(await found('price.USD.float_price:[45..55]')).toEqual(new Set(['Copper Pan']));
    expect(await found('extensions.products(specs).material:=walnut')).toEqual(
      new Set(['Walnut Chopping Board']),
    );
    expect(await found('attributes.extensions.products(specs).weight:>500')).toEqual(
      new Set(['Walnut Chopping Board', 'Salad Bowl']),
    );
    expect(
      await found('(attributes.tags:=outdoor || attributes.sku:=PEEL-1) && attributes.tags:!=wood'),
    ).toEqual(new Set(['Garden Hose', 'Apple Peeler']));
    expect((await search({ filter_by: `id:=[${idOf('pan')}]` })).body.found).toBe(1);
  });

  it('counts facets over every hit, not the page, and keeps the top values', async () => {
    const result = await search({
      q: 'mug',
      per_page: 2,
      facet_by: 'attributes.tags,price.USD.float_price,meta.search.categories.lvl1',
      max_facet_values: 3,
    });
    expect(result.body.found).toBe(MUGS);
    expect(result.body.hits).toHaveLength(2);
    const [tags, price, level] = result.body.facet_counts;
    expect(tags).toMatchObject({
      field_name: 'attributes.tags',
      counts: [
        { value: 'even', count: 15, highlighted: 'even' },
        { value: 'odd', count: 15, highlighted: 'odd' },
      ],
      sampled: false,
    });
    expect(price.counts).toHaveLength(3);
    expect(price.stats).toMatchObject({ min: 10.1, max: 13, total_values: MUGS });
    expect(level.counts).toEqual([
      { value: 'Store > Kitchen', count: MUGS, highlighted: 'Store > Kitchen' },
    ]);
  });

  it('sorts by price, name, created_at and relevance, with ties in the release order', async () => {
    const sorted = async (sort_by: string, q = '*') =>
      (await search({ q, sort_by, per_page: 100 })).body.hits.map((h: any) => h.document);
    const byPrice = await sorted('price.USD.float_price:desc');
    const amounts = byPrice.map((d: any) => d.attributes.price.USD.amount);
    expect(byPrice[0].id).toBe(idOf('shoes'));
    // The pan sorts by its sale price ($50), as shoppers pay.
    expect(byPrice.findIndex((d: any) => d.id === idOf('pan'))).toBe(1);
    expect(amounts.slice(2)).toEqual([...amounts.slice(2)].sort((a: number, b: number) => b - a));
    const byName = (await sorted('attributes.name:asc')).map((d: any) => d.attributes.name);
    expect(byName).toEqual([...byName].sort((a, b) => a.localeCompare(b)));
    expect((await sorted('name:desc'))[0].attributes.name).toBe('Walnut Chopping Board');
    const newest = await sorted('created_at:desc');
    expect(newest[0].id).toBe(fx.mugs[MUGS - 1]);
    expect(newest[newest.length - 1].id).toBe(idOf('shoes'));
    const relevance = await sorted('_text_match:desc', 'walnut');
    expect(relevance.map((d: any) => d.id)).toEqual([idOf('board'), idOf('bowl')]);
    // Two fields: the first decides, the second breaks its ties.
    const two = await sorted('attributes.tags:asc,price.USD.amount:desc', 'mug');
    expect(two[0].attributes.name).toBe('Mug 30');
    expect(two[15].attributes.name).toBe('Mug 29');
  });

  it('pages through every hit once, in order', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 7; page++) {
      const result = await search({ q: 'mug', sort_by: 'name:asc', per_page: 5, page });
      expect(result.body.page).toBe(page);
      seen.push(...names(result.body));
    }
    expect(seen).toEqual(
      Array.from({ length: MUGS }, (_, i) => `Mug ${String(i + 1).padStart(2, '0')}`),
    );
    expect(
      (await search({ q: 'mug', per_page: 0, facet_by: 'attributes.tags' })).body,
    ).toMatchObject({ found: MUGS, hits: [] });
  });

  it('prices each hit for the caller: currency, sale, as /catalog/products does', async () => {
    const eur = await search({ q: 'copper' }, { 'x-moltin-currency': 'EUR' });
    const product = await service.call('GET', `/catalog/products/${idOf('pan')}`, {
      token: implicit,
      headers: { 'x-moltin-currency': 'EUR' },
    });
    expect(eur.body.hits[0].document).toEqual(product.body.data);
    expect(eur.body.hits[0].document.meta.display_price.with_tax.currency).toBe('EUR');
    const usd = await search({ q: 'copper' });
    expect(usd.body.hits[0].document.meta.display_price.with_tax.amount).toBe(5000);
  });
});

describe('multi-search and autocomplete through @epcc-sdk/sdks-shopper', () => {
  it('answers several searches in one call, in order, with one included block', async () => {
    const result = await postMultiSearch({
      client: sdk(implicit),
      query: { include: ['main_image', 'files'] },
      body: {
        searches: [
          { type: 'search', q: 'walnut', facet_by: 'attributes.tags', per_page: 1 },
          { q: '*', filter_by: 'attributes.tags:=outdoor' },
          { type: 'autocomplete', q: 'cop', highlight_full_fields: 'name' },
        ],
      },
    });
    expect(result.response.status).toBe(200);
    const results = result.data?.results ?? [];
    expect(results.map((r) => [r.type, r.found])).toEqual([
      ['search', 2],
      ['search', 1],
      ['autocomplete', 1],
    ]);
    expect(results[0]?.facet_counts?.[0]?.counts).toEqual([
      { value: 'wood', count: 2, highlighted: 'wood' },
    ]);
    expect(results[2]?.hits?.[0]).toEqual({
      document: { id: 'copper-pan', q: 'Copper Pan', count: 1 },
      highlight: { q: { snippet: '<mark>Copper</mark> Pan', matched_tokens: ['Copper'] } },
      highlights: [{ field: 'q', snippet: '<mark>Copper</mark> Pan', matched_tokens: ['Copper'] }],
    });
  });

  it('suggests the most common names first for a prefix, and names for "*"', async () => {
    const result = await postMultiSearch({
      client: sdk(implicit),
      body: { searches: [{ type: 'autocomplete', q: 'mu', per_page: 3 }] },
    });
    const hits = result.data?.results?.[0]?.hits ?? [];
    expect(hits.map((h: any) => h.document.q)).toEqual(['Mug 01', 'Mug 02', 'Mug 03']);
    expect(result.data?.results?.[0]?.found).toBe(MUGS);
    const all = await postMultiSearch({
      client: sdk(implicit),
      body: { searches: [{ type: 'autocomplete', q: '*', per_page: 100 }] },
    });
    expect(all.data?.results?.[0]?.found).toBe(PRODUCTS.length + MUGS);
  });

  it('answers the SDK’s bad search with production’s error shape and a 400 naming it', async () => {
    const result = await postMultiSearch({
      client: sdk(implicit),
      body: { searches: [{ q: 'a' }, { q: 'a', per_page: 500 }] },
    });
    expect(result.response.status).toBe(400);
    expect(result.error?.errors[0]).toMatchObject({
      title: 'Invalid Pagination',
      detail: expect.stringContaining('searches[1].per_page'),
    });
  });
});

describe('a release’s search (the store’s)', () => {
  it('searches the named release with the store’s token, never with a shopper’s', async () => {
    const path = `/catalogs/${fx.catalog}/releases/${fx.release}/search?q=hose`;
    const admin = await service.call('GET', path);
    expect(admin.status).toBe(200);
    expect(admin.body.hits[0].document.meta.release_id).toBe(fx.release);
    expect((await service.call('GET', path, { token: implicit })).status).toBe(403);
    const latest = await service.call(
      'POST',
      `/pcm/catalogs/${fx.catalog}/releases/latestPublished/multi-search`,
      { json: { searches: [{ q: 'copper' }] } },
    );
    expect(latest.body.results[0].found).toBe(1);
  });
});

describe('bad parameters: a 400 naming each', () => {
  const cases: [string, Record<string, string | number>, string][] = [
    ['per_page over 100', { per_page: 101 }, 'per_page'],
    ['page 0', { page: 0 }, 'page'],
    ['a page past result 10,000', { page: 1002, per_page: 10 }, 'page'],
    ['page not a number', { page: 'two' }, 'page'],
    ['an unknown filter field', { filter_by: 'colour:=red' }, 'filter_by'],
    ['a filter that does not parse', { filter_by: '(attributes.tags:=a' }, 'filter_by'],
    ['a range on text', { filter_by: 'attributes.name:[1..2]' }, 'filter_by'],
    ['a number compared with text', { filter_by: 'price.USD.amount:>cheap' }, 'filter_by'],
    ['an unknown facet', { facet_by: 'colour' }, 'facet_by'],
    ['eleven facets', { facet_by: 'a,b,c,d,e,f,g,h,i,j,k' }, 'facet_by'],
    ['max_facet_values 0', { max_facet_values: 0 }, 'max_facet_values'],
    ['a sort without a direction', { sort_by: 'name' }, 'sort_by'],
    ['an unknown sort field', { sort_by: 'colour:asc' }, 'sort_by'],
    ['four sort fields', { sort_by: 'name:asc,name:asc,name:asc,name:asc' }, 'sort_by'],
    ['a query of 513 characters', { q: 'a'.repeat(513) }, 'q'],
    ['an unknown type', { type: 'products' }, 'type'],
    ['an unknown search profile', { search_profile: 'clothing' }, 'search_profile'],
  ];
  it.each(cases)('%s', async (_what, query, source) => {
    const result = await search(query);
    expect(result.status).toBe(400);
    const error = errorOf(result);
    expect(error.source).toBe(source);
    expect(error.detail.length).toBeLessThan(1000);
  });

  it('judges a multi-search body: no searches, too many, not objects', async () => {
    for (const [body, source] of [
      [{}, 'searches'],
      [{ searches: [] }, 'searches'],
      [{ searches: Array.from({ length: 11 }, () => ({ q: 'a' })) }, 'searches'],
      [{ searches: ['q=a'] }, 'searches[0]'],
      [{ searches: [{ q: 1 }] }, 'searches[0].q'],
    ] as const) {
      const result = await service.call('POST', '/catalog/multi-search', {
        token: implicit,
        json: body,
      });
      expect(result.status, JSON.stringify(body)).toBe(400);
      expect(errorOf(result).source).toBe(source);
    }
    const limit = await service.call('POST', '/catalog/multi-search?page[limit]=0', {
      token: implicit,
      json: { searches: [{ q: 'a' }] },
    });
    expect(errorOf(limit).source).toBe('page[limit]');
  });
});

describe('stock, read live (meta.stock.in_stock, meta.stock.available)', () => {
  const STOCK = '/v2/inventories';
  const move = async (id: string, action: string, quantity: number) => {
    const result = await service.call('POST', `${STOCK}/${id}/transactions`, {
      json: { data: { type: 'stock-transaction', action, quantity } },
    });
    expect(result.status).toBe(201);
  };
  const inStockMugs = async (filter_by = 'meta.stock.in_stock:=true') =>
    (
      await search({
        q: 'mug',
        filter_by,
        facet_by: 'meta.stock.in_stock,attributes.tags',
        per_page: 100,
      })
    ).body;

  it('sees every stock change made after the release was published, with exact counts', async () => {
    const [first, second, third] = fx.mugs as [string, string, string];
    // No stock managed: every product can be bought, so every mug is in stock.
    const none = await inStockMugs();
    expect(none.found).toBe(MUGS);
    expect(none.facet_counts[0].counts).toEqual([
      { value: 'true', count: MUGS, highlighted: 'true' },
    ]);
    for (const [id, quantity] of [
      [first, 0],
      [second, 5],
      [third, 2],
    ] as const) {
      expect(
        (await service.call('POST', `${STOCK}/${id}`, { json: { data: { quantity } } })).status,
      ).toBe(201);
    }
    const after = await inStockMugs();
    expect(after.found).toBe(MUGS - 1);
    expect(after.hits.map((h: any) => h.document.id)).not.toContain(first);
    // Facets count the filtered hits: only in-stock ones, tags over the same 29.
    expect(after.facet_counts[0].counts).toEqual([
      { value: 'true', count: MUGS - 1, highlighted: 'true' },
    ]);
    const tagTotal = after.facet_counts[1].counts.reduce((n: number, c: any) => n + c.count, 0);
    expect(tagTotal).toBe(MUGS - 1);
    // Unfiltered, the facet tells both sides.
    const all = await inStockMugs('attributes.tags:=[odd, even]');
    expect(all.found).toBe(MUGS);
    expect(all.facet_counts[0].counts).toEqual([
      { value: 'true', count: MUGS - 1, highlighted: 'true' },
      { value: 'false', count: 1, highlighted: 'false' },
    ]);
    // The next search sees each movement: sell out the second, restock the first.
    await move(second, 'decrement', 5);
    expect((await inStockMugs()).found).toBe(MUGS - 2);
    await move(first, 'increment', 3);
    const restocked = await inStockMugs();
    expect(restocked.found).toBe(MUGS - 1);
    expect(restocked.hits.map((h: any) => h.document.id)).toContain(first);
    // Available units filter, facet and sort as numbers; unmanaged stock has no number.
    const counted = (
      await search({
        q: 'mug',
        filter_by: 'meta.stock.available:>0',
        sort_by: 'meta.stock.available:desc',
        facet_by: 'meta.stock.available',
      })
    ).body;
    expect(counted.hits.map((h: any) => h.document.id)).toEqual([first, third]);
    expect(counted.facet_counts[0].stats).toMatchObject({ min: 2, max: 3, total_values: 2 });
    // Stock no longer managed: the product can be bought again.
    expect((await service.call('DELETE', `${STOCK}/${second}`)).status).toBe(204);
    expect((await inStockMugs()).found).toBe(MUGS);
    expect((await inStockMugs('meta.stock.in_stock:=false')).found).toBe(0);
  });

  it('refuses a stock filter it cannot read, naming filter_by', async () => {
    const result = await search({ q: 'mug', filter_by: 'meta.stock.available:>many' });
    expect(result.status).toBe(400);
    expect(errorOf(result).source).toBe('filter_by');
  });
});

// Last: it moves the service's clock a month on (and tokens expire on the way).
describe('the price of the moment', () => {
  it('filters and sorts by the price of the moment: a scheduled sale starts and ends on time', async () => {
    const peeler = async () =>
      (await search({ filter_by: 'price.USD.amount:<=600', sort_by: 'price.USD.amount:asc' })).body;
    const before = now;
    // Tokens live an hour: each moment gets its own.
    const at = async (time: number) => {
      now = time;
      implicit = await service.token('alpha', 'implicit');
    };
    try {
      expect((await peeler()).found).toBe(0);
      await at(Date.parse('2026-06-01T00:00:00.000Z'));
      const during = await peeler();
      expect(names(during)).toEqual(['Apple Peeler']);
      expect(during.hits[0].document.meta.display_price.with_tax.amount).toBe(600);
      await at(Date.parse('2026-06-02T00:00:00.000Z'));
      expect((await peeler()).found).toBe(0);
    } finally {
      await at(before);
    }
  });
});
