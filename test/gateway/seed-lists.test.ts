/**
 * The paginated lists the seed names (v2-catalog-notes §0), each answered through the gateway as
 * a Relay connection on the demo store: docs/paging.md's table "Every list the seed names" maps each
 * to its field; this walks the table. Each list answers with its totalCount and a first page,
 * and the lists the demo store fills are not empty.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';
import type { Json } from './fixtures.ts';

let stack: Stack;
const ids: Record<string, string> = {};
beforeAll(async () => {
  stack = await startStack({ seed: true });
  const first = async (query: string) => {
    const result = await stack.graphql(query);
    expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
    return result.body.data;
  };
  const d = await first(`{
    catalog { hierarchies(first: 1) { nodes { upstreamId } } products(filter: { sku: { eq: "TEE-001" } }) { nodes { upstreamId } } }
    pcmHierarchies(first: 1) { nodes { upstreamId nodes(first: 1) { nodes { upstreamId hierarchyId } } } }
    pcmProducts(filter: { sku: { eq: "TEE-001" } }) { nodes { upstreamId } }
    priceBooks(first: 1) { nodes { upstreamId } }
    pcmCatalogs(first: 1) { nodes { upstreamId releases(first: 1) { nodes { upstreamId } } } }
    customApis(first: 1) { nodes { upstreamId } }
    accountAuthentication { realmId }
  }`);
  ids.realm = d.accountAuthentication.realmId;
  ids.hierarchy = d.catalog.hierarchies.nodes[0].upstreamId;
  ids.product = d.catalog.products.nodes[0].upstreamId;
  ids.pcmHierarchy = d.pcmHierarchies.nodes[0].upstreamId;
  ids.pcmNode = d.pcmHierarchies.nodes[0].nodes.nodes[0].upstreamId;
  ids.pcmProduct = d.pcmProducts.nodes[0].upstreamId;
  ids.priceBook = d.priceBooks.nodes[0].upstreamId;
  ids.catalog = d.pcmCatalogs.nodes[0].upstreamId;
  ids.release = d.pcmCatalogs.nodes[0].releases.nodes[0].upstreamId;
  ids.customApi = d.customApis.nodes[0].upstreamId;
  // The demo store has no promotions: one of each engine, so their usages can be listed.
  const window = { start: '2020-01-01T00:00:00Z', end: '2099-01-01T00:00:00Z' };
  const made = await stack.graphql(
    `mutation($s: CreatePromotionInput!, $r: CreateRulePromotionInput!) {
      createPromotion(input: $s) { promotion { upstreamId } }
      createRulePromotion(input: $r) { promotion { upstreamId } } }`,
    {
      s: { name: 'Ten', enabled: true, promotionType: 'PERCENT_DISCOUNT', percent: 10, ...window },
      r: {
        name: 'Rule',
        enabled: true,
        priority: 1,
        currencies: ['USD'],
        requiredSkus: ['SKU-00001'],
        discount: { level: 'ITEM', method: 'FIXED', value: 100, skus: ['SKU-00001'] },
        ...window,
      },
    },
  );
  expect(made.body.errors, JSON.stringify(made.body.errors)).toBeUndefined();
});
afterAll(() => stack?.close());

const page = '(first: 2) { totalCount pageInfo { hasNextPage } edges { cursor } }';

/** The seed's lists: its number in §0, its name, and a query whose last connection is it. */
const LISTS: [number, string, () => string, 'filled' | 'may be empty'][] = [
  [1, 'accounts', () => `{ accounts${page} }`, 'filled'],
  [2, 'account members', () => `{ accountMembers${page} }`, 'filled'],
  [
    2,
    'account memberships',
    () => `{ accounts(first: 1) { nodes { memberships${page} } } }`,
    'filled',
  ],
  [
    3,
    'user authentication info',
    () =>
      `{ userAuthenticationInfos(realmId: "${ids.realm}", first: 2) { totalCount pageInfo { hasNextPage } edges { cursor } } }`,
    'filled',
  ],
  [4, 'entries', () => `{ customApi(id: "${ids.customApi}") { entries${page} } }`, 'may be empty'],
  [5, 'customers', () => `{ customers${page} }`, 'filled'],
  [6, 'integration logs', () => `{ integrationLogs${page} }`, 'may be empty'],
  [7, 'orders', () => `{ orders${page} }`, 'filled'],
  [8, 'promotions', () => `{ promotions${page} }`, 'may be empty'],
  [9, 'catalogs', () => `{ pcmCatalogs${page} }`, 'filled'],
  [10, 'catalog rules', () => `{ catalogRules${page} }`, 'filled'],
  [11, 'hierarchies (shopper)', () => `{ catalog { hierarchies${page} } }`, 'filled'],
  [
    11,
    'hierarchies (release)',
    () =>
      `{ catalogReleaseView(catalogId: "${ids.catalog}", releaseId: "latest") { hierarchies${page} } }`,
    'filled',
  ],
  [11, 'hierarchies (admin)', () => `{ pcmHierarchies${page} }`, 'filled'],
  [
    12,
    'hierarchy nodes',
    () => `{ catalog { hierarchies(first: 1) { nodes { nodes${page} } } } }`,
    'filled',
  ],
  [
    12,
    'hierarchy nodes (admin)',
    () => `{ pcmHierarchy(id: "${ids.pcmHierarchy}") { nodes${page} } }`,
    'filled',
  ],
  [
    13,
    'hierarchy child nodes',
    () => `{ catalog { hierarchies(first: 1) { nodes { children${page} } } } }`,
    'filled',
  ],
  [
    13,
    'hierarchy child nodes (admin)',
    () => `{ pcmHierarchy(id: "${ids.pcmHierarchy}") { children${page} } }`,
    'filled',
  ],
  [14, 'nodes', () => `{ catalog { nodes${page} } }`, 'filled'],
  [
    14,
    'nodes (release)',
    () =>
      `{ catalogReleaseView(catalogId: "${ids.catalog}", releaseId: "latest") { nodes${page} } }`,
    'filled',
  ],
  [14, 'nodes (admin)', () => `{ pcmNodes${page} }`, 'filled'],
  [
    15,
    'node children',
    () =>
      `{ catalog { hierarchies(first: 1) { nodes { children(first: 1) { nodes { children${page} } } } } } }`,
    'may be empty',
  ],
  [
    15,
    'node children (admin)',
    () => `{ pcmNode(id: "${ids.pcmNode}") { children${page} } }`,
    'may be empty',
  ],
  [
    16,
    'node products (admin)',
    () => `{ pcmNode(id: "${ids.pcmNode}") { products${page} } }`,
    'may be empty',
  ],
  [17, 'products', () => `{ catalog { products${page} } }`, 'filled'],
  [
    17,
    'products (release)',
    () =>
      `{ catalogReleaseView(catalogId: "${ids.catalog}", releaseId: "${ids.release}") { products${page} } }`,
    'filled',
  ],
  [17, 'products (admin)', () => `{ pcmProducts${page} }`, 'filled'],
  [
    18,
    'product children',
    () => `{ catalog { product(id: "${ids.product}") { children${page} } } }`,
    'filled',
  ],
  [
    18,
    'product children (admin)',
    () => `{ pcmProduct(id: "${ids.pcmProduct}") { children${page} } }`,
    'filled',
  ],
  [
    19,
    'product nodes (admin)',
    () => `{ pcmProduct(id: "${ids.pcmProduct}") { nodes${page} } }`,
    'filled',
  ],
  [
    20,
    'products by hierarchy',
    () => `{ catalog { hierarchies(first: 1) { nodes { products${page} } } } }`,
    'filled',
  ],
  [
    21,
    'products by node',
    () => `{ catalog { nodes(first: 10) { nodes { products${page} } } } }`,
    'may be empty',
  ],
  [
    22,
    'price modifiers',
    () => `{ priceBook(id: "${ids.priceBook}") { modifiers${page} } }`,
    'may be empty',
  ],
  [
    23,
    'prices in a price book',
    () => `{ priceBook(id: "${ids.priceBook}") { prices${page} } }`,
    'filled',
  ],
  [24, 'inventory', () => `{ stockLevels${page} }`, 'filled'],
  [25, 'files', () => `{ files${page} }`, 'filled'],
  [26, 'jobs (PXM)', () => `{ pcmJobs${page} }`, 'may be empty'],
  [26, 'jobs (order exports)', () => `{ exportJobs${page} }`, 'may be empty'],
  [
    27,
    'standard promotion usages',
    () => `{ promotions(first: 1) { nodes { usages${page} } } }`,
    'may be empty',
  ],
  [
    28,
    'promotion code usages (Promotions Builder)',
    () => `{ rulePromotions(first: 1) { nodes { usages${page} } } }`,
    'may be empty',
  ],
  [
    29,
    'promotion usages (Promotions Builder)',
    () => `{ rulePromotions(first: 1) { nodes { usages${page} } } }`,
    'may be empty',
  ],
];

/** The last connection of an answer (the list the query ends in). */
function connections(value: Json, found: Json[] = []): Json[] {
  if (Array.isArray(value)) for (const item of value) connections(item, found);
  else if (value !== null && typeof value === 'object') {
    if ('totalCount' in value && 'pageInfo' in value) found.push(value);
    for (const child of Object.values(value)) connections(child as Json, found);
  }
  return found;
}

describe('every list the seed names answers through the gateway', () => {
  for (const [row, name, query, content] of LISTS) {
    it(`§0 row ${row}: ${name}`, async () => {
      const result = await stack.graphql(query());
      expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
      const lists = connections(result.body.data);
      expect(lists.length).toBeGreaterThan(0);
      for (const list of lists) expect(list.totalCount).toBeGreaterThanOrEqual(0);
      if (content === 'filled') {
        expect(Math.max(...lists.map((l) => l.totalCount))).toBeGreaterThan(0);
      }
    });
  }
});
