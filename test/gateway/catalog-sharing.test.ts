/**
 * Catalog reads shared between callers (src/schema/catalog/shared-catalog.ts): a product page
 * asked again reads its breadcrumb nodes and its children's page from the shared reads, one
 * upstream call instead of three; only under `catalog`, only for the catalog and release the
 * caller's own product answer named (nodes by language too; children pages by every forwarded
 * header and the parent's pricing too: ./catalog-sharing-pricing.test.ts), never for a release
 * view; a new publish is seen at once; a page with a sale is kept no longer than the sale;
 * CATALOG_CACHE_SECONDS=0 keeps none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { saleEnds } from '../../src/schema/catalog/shared-catalog.ts';
import { SharedReads } from '../../src/upstream/shared-reads.ts';
import { type Stack, startStack } from '../support/harness.ts';
import type { Json } from './fixtures.ts';

const PAGE = `query($s: String!) { catalog { product(slug: $s) { upstreamId catalogId releaseId
  breadcrumbs { upstreamId name hierarchyId } children(first: 10) { edges { node { sku } } } } } }`;

let stack: Stack;
let guest: string;
let slug: string;
beforeAll(async () => {
  stack = await startStack({ seed: true });
  guest = await stack.implicitToken();
  const first = await stack.graphql(
    `{ catalog { product(sku: "TEE-001") { slug } } }`,
    {},
    { token: guest },
  );
  slug = first.body.data.catalog.product.slug;
});
afterAll(() => stack?.close());

/** The operation's answer and the upstream paths it made (tokens aside). */
async function page(
  headers?: Record<string, string>,
  token = guest,
  query = PAGE,
): Promise<{ data: Json; calls: string[] }> {
  const before = stack.upstreamRequests.length;
  const result = await stack.graphql(query, { s: slug }, { token, headers });
  expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
  const calls = stack.upstreamRequests
    .slice(before)
    .map((r) => decodeURIComponent(r.url))
    .filter((url) => !url.startsWith('/oauth'));
  return { data: result.body.data, calls };
}

const nodeCalls = (calls: string[]) => calls.filter((url) => url.startsWith('/catalog/nodes?'));
const childCalls = (calls: string[]) => calls.filter((url) => url.includes('/children?'));

describe('catalog reads shared between callers', () => {
  it('a product page asked again reads its breadcrumbs and children without a call', async () => {
    const first = await page({ 'accept-language': 'en' });
    const crumbs = first.data.catalog.product.breadcrumbs;
    expect(crumbs.length).toBeGreaterThan(1);
    expect(first.data.catalog.product.children.edges.length).toBeGreaterThan(0);
    expect(nodeCalls(first.calls)).toHaveLength(1);
    expect(childCalls(first.calls)).toHaveLength(1);
    expect(first.calls).toHaveLength(3);

    // Another shopper of the same catalog: the same answer, from the shared reads.
    const other = await stack.implicitToken();
    const second = await page({ 'accept-language': 'en' }, other);
    expect(second.data).toEqual(first.data);
    expect(second.calls).toHaveLength(1);
    expect(second.calls[0]).toMatch(/^\/catalog\/products\?/);
  });

  it('another language or currency is another entry', async () => {
    const fr = await page({ 'accept-language': 'fr' });
    expect(nodeCalls(fr.calls)).toHaveLength(1);
    expect(childCalls(fr.calls)).toHaveLength(1);
    expect((await page({ 'accept-language': 'fr' })).calls).toHaveLength(1);
    const eur = await page({ 'accept-language': 'fr', 'x-moltin-currency': 'EUR' });
    expect(childCalls(eur.calls)).toHaveLength(1);
  });

  it('another page of the children is another entry', async () => {
    const query = PAGE.replace('children(first: 10)', 'children(first: 2)');
    const two = await page({}, guest, query);
    expect(two.data.catalog.product.children.edges).toHaveLength(2);
    expect(childCalls(two.calls)).toHaveLength(1);
  });

  it('a release view reads its nodes each time', async () => {
    const store = await stack.token();
    const shown = await page({}, guest);
    const { catalogId, releaseId } = shown.data.catalog.product;
    const query = `query($s: String!) { catalogReleaseView(catalogId: "${catalogId}", releaseId: "${releaseId}") {
      product(slug: $s) { breadcrumbs { name } } } }`;
    for (let i = 0; i < 2; i += 1) {
      const view = await page(
        {},
        store,
        query.replace(
          'breadcrumbs { name }',
          'breadcrumbs { name } children(first: 10) { totalCount }',
        ),
      );
      expect(view.data.catalogReleaseView.product.breadcrumbs.length).toBeGreaterThan(0);
      expect(nodeCalls(view.calls)).toHaveLength(1);
      expect(childCalls(view.calls)).toHaveLength(1);
    }
  });

  it('a renamed node shows as soon as the catalog is published again', async () => {
    const store = await stack.token();
    const before = await page();
    const product = before.data.catalog.product;
    const leaf = product.breadcrumbs.at(-1);
    const renamed = await stack.graphql(
      `mutation($h: ID!, $n: ID!) { updatePcmNode(input: { hierarchyId: $h, id: $n, name: "Renamed Shirts" }) { node { name } } }`,
      { h: leaf.hierarchyId, n: leaf.upstreamId },
      { token: store },
    );
    expect(renamed.body.errors, JSON.stringify(renamed.body.errors)).toBeUndefined();
    // Not yet published: the catalog the shopper sees still has the old name.
    expect((await page()).data.catalog.product.breadcrumbs.at(-1).name).toBe(leaf.name);
    const published = await stack.graphql(
      'mutation($c: ID!) { publishPcmCatalog(input: { catalogId: $c }) { release { status } } }',
      { c: product.catalogId },
      { token: store },
    );
    expect(published.body.errors, JSON.stringify(published.body.errors)).toBeUndefined();
    const after = await page();
    expect(after.data.catalog.product.releaseId).not.toBe(product.releaseId);
    expect(after.data.catalog.product.breadcrumbs.at(-1).name).toBe('Renamed Shirts');
    expect(nodeCalls(after.calls)).toHaveLength(1);
    expect(childCalls(after.calls)).toHaveLength(1);
  });
});

describe('CATALOG_CACHE_SECONDS=0', () => {
  let off: Stack;
  beforeAll(async () => {
    off = await startStack({ seed: true, gateway: { catalogCacheSeconds: 0 } });
  });
  afterAll(() => off?.close());

  it('reads the nodes and the children on every product page', async () => {
    const token = await off.implicitToken();
    const sku = await off.graphql(
      `{ catalog { product(sku: "TEE-001") { slug } } }`,
      {},
      { token },
    );
    for (let i = 0; i < 2; i += 1) {
      const before = off.upstreamRequests.length;
      const result = await off.graphql(PAGE, { s: sku.body.data.catalog.product.slug }, { token });
      expect(result.body.data.catalog.product.breadcrumbs.length).toBeGreaterThan(0);
      const calls = off.upstreamRequests.slice(before).map((r) => decodeURIComponent(r.url));
      expect(nodeCalls(calls)).toHaveLength(1);
      expect(childCalls(calls)).toHaveLength(1);
    }
  });
});

describe('SharedReads', () => {
  it('keeps an entry no longer than it is told', () => {
    let now = 1_000;
    const shared = new SharedReads({ catalogCacheSeconds: 60, now: () => now });
    shared.set('sale', 'page', now + 5_000);
    now += 4_999;
    expect(shared.get('sale')).toBe('page');
    now += 1;
    expect(shared.get('sale')).toBeUndefined();
    shared.set('over', 'page', now - 1);
    expect(shared.size).toBe(0);
  });

  it('tells when a page of rows stops being shareable: the earliest sale’s end', () => {
    const row = (expires?: string) => ({ id: 'x', meta: expires ? { sale_expires: expires } : {} });
    expect(saleEnds([row(), row()])).toBeUndefined();
    expect(saleEnds([row('2030-01-02T00:00:00Z'), row(), row('2030-01-01T00:00:00Z')])).toBe(
      Date.parse('2030-01-01T00:00:00Z'),
    );
  });

  it('serves an entry until its time is up, then reads as absent', () => {
    let now = 1_000;
    const shared = new SharedReads({ catalogCacheSeconds: 60, now: () => now });
    shared.set('a', { name: 'Shirts' });
    now += 59_999;
    expect(shared.get('a')).toEqual({ name: 'Shirts' });
    now += 1;
    expect(shared.get('a')).toBeUndefined();
    expect(shared.size).toBe(0);
  });

  it('keeps at most maxEntries, the oldest going first', () => {
    const shared = new SharedReads({ catalogCacheSeconds: 60, maxEntries: 2 });
    shared.set('a', 1);
    shared.set('b', 2);
    shared.set('a', 3);
    shared.set('c', 4);
    expect([shared.get('a'), shared.get('b'), shared.get('c')]).toEqual([3, undefined, 4]);
  });

  it('keeps nothing with a time of 0', () => {
    const shared = new SharedReads({ catalogCacheSeconds: 0 });
    shared.set('a', 1);
    expect(shared.enabled).toBe(false);
    expect(shared.get('a')).toBeUndefined();
  });

  it('CATALOG_CACHE_SECONDS: default 60, 0 for off, at most 3600, a clear error otherwise', () => {
    expect(loadConfig({}).upstream.catalogCacheSeconds).toBe(60);
    expect(loadConfig({ CATALOG_CACHE_SECONDS: '0' }).upstream.catalogCacheSeconds).toBe(0);
    expect(loadConfig({ CATALOG_CACHE_SECONDS: '3600' }).upstream.catalogCacheSeconds).toBe(3600);
    for (const bad of ['3601', '-1', '1.5', 'soon']) {
      expect(() => loadConfig({ CATALOG_CACHE_SECONDS: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ CATALOG_CACHE_SECONDS: bad })).toThrow(/CATALOG_CACHE_SECONDS/);
    }
  });
});
