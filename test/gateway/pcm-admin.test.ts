/**
 * The merchandiser's surface through the gateway only, over real sockets (an empty store): a
 * hierarchy with a node under a node, products attached to it, a price book with USD and EUR
 * prices and a sale, stock set and moved, a catalog with a rule for a channel, published; each
 * read back through the admin connections. Then what is refused before any upstream call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';
import { type Json, userError } from './fixtures.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

async function ok(query: string, variables?: Record<string, unknown>): Promise<Json> {
  const result = await stack.graphql(query, variables);
  expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
  return result.body.data;
}

describe('a merchandiser builds and publishes a catalog through the gateway', () => {
  const made: Record<string, string> = {};

  it('creates a hierarchy, a node under a node, and products attached to it', async () => {
    const h = await ok(
      `mutation { createPcmHierarchy(input: { name: "Shop", slug: "shop" }) { hierarchy { upstreamId name slug } } }`,
    );
    made.hierarchy = h.createPcmHierarchy.hierarchy.upstreamId;
    expect(h.createPcmHierarchy.hierarchy).toMatchObject({ name: 'Shop', slug: 'shop' });
    const node = `mutation($i: CreatePcmNodeInput!) { createPcmNode(input: $i) { node { upstreamId hierarchyId name sortOrder } } }`;
    const top = await ok(node, {
      i: { hierarchyId: made.hierarchy, name: 'Kitchen', slug: 'kitchen', sortOrder: 5 },
    });
    made.top = top.createPcmNode.node.upstreamId;
    expect(top.createPcmNode.node).toMatchObject({ hierarchyId: made.hierarchy, sortOrder: 5 });
    const leaf = await ok(node, {
      i: { hierarchyId: made.hierarchy, name: 'Coffee', slug: 'coffee', parentId: made.top },
    });
    made.leaf = leaf.createPcmNode.node.upstreamId;

    const product = `mutation($i: CreatePcmProductInput!) { createPcmProduct(input: $i) { product { upstreamId sku status commodityType productType } } }`;
    for (const sku of ['MUG-1', 'MUG-2', 'MUG-3']) {
      const p = await ok(product, {
        i: {
          name: `Mug ${sku}`,
          sku,
          slug: sku.toLowerCase(),
          commodityType: 'PHYSICAL',
          status: 'LIVE',
        },
      });
      expect(p.createPcmProduct.product).toMatchObject({
        sku,
        status: 'LIVE',
        productType: 'standard',
      });
      made[sku] = p.createPcmProduct.product.upstreamId;
    }
    const attach = await ok(
      `mutation($i: PcmNodeProductsInput!) { attachPcmNodeProducts(input: $i) { node { upstreamId products(first: 10) { totalCount edges { node { sku } } } } } }`,
      {
        i: {
          hierarchyId: made.hierarchy,
          nodeId: made.leaf,
          productIds: [made['MUG-1'], made['MUG-2'], made['MUG-3']],
        },
      },
    );
    expect(attach.attachPcmNodeProducts.node.products.totalCount).toBe(3);
    await ok(
      `mutation($i: PcmNodeProductsInput!) { detachPcmNodeProducts(input: $i) { node { upstreamId } } }`,
      { i: { hierarchyId: made.hierarchy, nodeId: made.leaf, productIds: [made['MUG-3']] } },
    );
    const tree = await ok(
      `query($h: ID!, $n: ID!) {
        pcmHierarchy(id: $h) { children { edges { node { name children { edges { node { name } } } } } } }
        pcmNode(id: $n) { products { totalCount edges { node { sku } } } }
      }`,
      { h: made.hierarchy, n: made.leaf },
    );
    const kitchen = tree.pcmHierarchy.children.edges[0].node;
    expect(kitchen.name).toBe('Kitchen');
    expect(kitchen.children.edges).toEqual([{ node: { name: 'Coffee' } }]);
    expect(tree.pcmNode.products.totalCount).toBe(2);
    expect(tree.pcmNode.products.edges.map((e: Json) => e.node.sku).sort()).toEqual([
      'MUG-1',
      'MUG-2',
    ]);
    const mug = await ok(
      `query($p: ID!) { pcmProduct(id: $p) { nodes { edges { node { name } } } } }`,
      {
        p: made['MUG-1'],
      },
    );
    expect(mug.pcmProduct.nodes.edges).toEqual([{ node: { name: 'Coffee' } }]);
    const updated = await ok(
      `mutation($i: UpdatePcmProductInput!) { updatePcmProduct(input: $i) { product { name sku } } }`,
      { i: { id: made['MUG-1'], name: 'The first mug' } },
    );
    expect(updated.updatePcmProduct.product).toEqual({ name: 'The first mug', sku: 'MUG-1' });
    const bySku = await ok(
      `{ pcmProducts(filter: { sku: { in: ["MUG-2", "MUG-9"] } }) { totalCount edges { node { upstreamId } } } }`,
    );
    expect(bySku.pcmProducts.edges).toEqual([{ node: { upstreamId: made['MUG-2'] } }]);
  });

  it('finds products by SKU in one batched call', async () => {
    const before = stack.upstreamRequests.length;
    const found = await ok(
      '{ a: pcmProductBySku(sku: "MUG-1") { upstreamId } b: pcmProductBySku(sku: "MUG-2") { upstreamId } c: pcmProductBySku(sku: "NONE") { upstreamId } }',
    );
    expect(found).toEqual({
      a: { upstreamId: made['MUG-1'] },
      b: { upstreamId: made['MUG-2'] },
      c: null,
    });
    const calls = stack.upstreamRequests.slice(before).filter((r) => r.url.startsWith('/pcm/'));
    expect(calls.map((r) => decodeURIComponent(r.url))).toEqual([
      '/pcm/products?page[limit]=3&page[offset]=0&filter=in(sku,MUG-1,MUG-2,NONE)',
    ]);
    const bad = await stack.graphql('{ pcmProductBySku(sku: "a,b") { upstreamId } }');
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'sku' });
  });

  it('prices SKUs in USD and EUR with a sale, and reads them back', async () => {
    const book = await ok(
      `mutation { createPriceBook(input: { name: "Retail" }) { priceBook { upstreamId name } } }`,
    );
    made.book = book.createPriceBook.priceBook.upstreamId;
    const price = await ok(
      `mutation($i: CreateProductPriceInput!) { createProductPrice(input: $i) { price { upstreamId priceBookId sku currencies { currency amount includesTax } sales { id validFrom currencies { currency amount } } } } }`,
      {
        i: {
          priceBookId: made.book,
          sku: 'MUG-1',
          currencies: [
            { currency: 'usd', amount: 1500 },
            { currency: 'EUR', amount: 1400, includesTax: true },
          ],
          sales: [{ id: 'summer', currencies: [{ currency: 'USD', amount: 1200 }] }],
        },
      },
    );
    const written = price.createProductPrice.price;
    expect(written).toMatchObject({
      priceBookId: made.book,
      sku: 'MUG-1',
      currencies: [
        { currency: 'USD', amount: 1500, includesTax: false },
        { currency: 'EUR', amount: 1400, includesTax: true },
      ],
      sales: [{ id: 'summer', validFrom: null, currencies: [{ currency: 'USD', amount: 1200 }] }],
    });
    const listed = await ok(
      `query($b: ID!) { priceBook(id: $b) { name prices(first: 5) { totalCount edges { node { sku } } } } productPrice(priceBookId: $b, id: "${written.upstreamId}") { sku } }`,
      { b: made.book },
    );
    expect(listed.priceBook.prices.totalCount).toBe(1);
    expect(listed.productPrice.sku).toBe('MUG-1');
  });

  it('sets stock, moves it, and shows it on the product', async () => {
    const set = await ok(
      `mutation($p: ID!) { setStock(input: { productId: $p, quantity: 10 }) { stockLevel { upstreamId total available allocated } } }`,
      { p: made['MUG-1'] },
    );
    expect(set.setStock.stockLevel).toEqual({
      upstreamId: made['MUG-1'],
      total: 10,
      available: 10,
      allocated: 0,
    });
    const moved = await ok(
      `mutation($p: ID!) { setStock(input: { productId: $p, quantity: 3, action: ALLOCATE }) { stockLevel { total available allocated } } }`,
      { p: made['MUG-1'] },
    );
    expect(moved.setStock.stockLevel).toEqual({ total: 10, available: 7, allocated: 3 });
    const product = await ok(
      `query($p: ID!) { pcmProduct(id: $p) { stock { available } } other: pcmProduct(id: "${made['MUG-2']}") { stock { available } } }`,
      { p: made['MUG-1'] },
    );
    expect(product).toEqual({ pcmProduct: { stock: { available: 7 } }, other: { stock: null } });
    const levels = await ok('{ stockLevels { totalCount } }');
    expect(levels.stockLevels.totalCount).toBe(1);
  });

  it('creates a catalog and a rule for a channel, and publishes it', async () => {
    const catalog = await ok(
      `mutation($i: CreatePcmCatalogInput!) { createPcmCatalog(input: $i) { catalog { upstreamId hierarchyIds priceBooks { priceBookId priority } } } }`,
      {
        i: {
          name: 'Mobile',
          hierarchyIds: [made.hierarchy],
          priceBooks: [{ priceBookId: made.book, priority: 2 }],
        },
      },
    );
    made.catalog = catalog.createPcmCatalog.catalog.upstreamId;
    expect(catalog.createPcmCatalog.catalog).toMatchObject({
      hierarchyIds: [made.hierarchy],
      priceBooks: [{ priceBookId: made.book, priority: 2 }],
    });
    const rule = await ok(
      `mutation($i: CreateCatalogRuleInput!) { createCatalogRule(input: $i) { rule { name catalogId channels tags } } }`,
      { i: { name: 'mobile-app', catalogId: made.catalog, channels: ['mobile'] } },
    );
    expect(rule.createCatalogRule.rule).toEqual({
      name: 'mobile-app',
      catalogId: made.catalog,
      channels: ['mobile'],
      tags: [],
    });
    const published = await ok(
      `mutation($c: ID!) { publishPcmCatalog(input: { catalogId: $c }) { release { upstreamId catalogId status totalProducts } } }`,
      { c: made.catalog },
    );
    expect(published.publishPcmCatalog.release).toMatchObject({
      catalogId: made.catalog,
      status: 'PUBLISHED',
    });
    const read = await ok(
      `query($c: ID!) { pcmCatalog(id: $c) { name releases { totalCount edges { node { status } } } } catalogRules(filter: { catalogId: { eq: $c } }) { totalCount } }`,
      { c: made.catalog },
    );
    expect(read.pcmCatalog.releases.totalCount).toBe(1);
    expect(read.catalogRules.totalCount).toBe(1);
  });
});

describe('a storefront (implicit) token', () => {
  it('may neither read nor write the merchandiser’s catalog: FORBIDDEN, from the upstream', async () => {
    const token = await stack.implicitToken();
    const read = await stack.graphql(
      '{ pcmProducts { totalCount } priceBooks { totalCount } }',
      undefined,
      { token },
    );
    expect(read.status).toBe(200);
    // A failed non-null root field settles the answer: the first refusal is the one reported.
    expect(read.body.data).toBeNull();
    expect(read.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const write = await stack.graphql(
      'mutation { createPcmHierarchy(input: { name: "x" }) { hierarchy { upstreamId } } }',
      undefined,
      { token },
    );
    expect(write.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('the merchandiser’s input is judged before any upstream call', () => {
  const UUID = '11111111-1111-4111-8111-111111111111';
  const cases: [string, string, Record<string, unknown>, string][] = [
    [
      'createPcmProduct',
      'CreatePcmProductInput',
      { name: 'x', commodityType: 'PHYSICAL', sku: 'a b' },
      'input.sku',
    ],
    [
      'createPcmProduct',
      'CreatePcmProductInput',
      { name: ' ', commodityType: 'PHYSICAL' },
      'input.name',
    ],
    [
      'createPcmProduct',
      'CreatePcmProductInput',
      { name: 'x', commodityType: 'PHYSICAL', slug: 'a/b' },
      'input.slug',
    ],
    [
      'createPcmProduct',
      'CreatePcmProductInput',
      {
        name: 'x',
        commodityType: 'PHYSICAL',
        tags: Array(21)
          .fill('t')
          .map((t, i) => t + i),
      },
      'input.tags',
    ],
    ['updatePcmProduct', 'UpdatePcmProductInput', { id: 'nope' }, 'input.id'],
    [
      'createPcmNode',
      'CreatePcmNodeInput',
      { hierarchyId: UUID, name: 'n', parentId: '../x' },
      'input.parentId',
    ],
    ['createPcmNode', 'CreatePcmNodeInput', { hierarchyId: 'x', name: 'n' }, 'input.hierarchyId'],
    [
      'createProductPrice',
      'CreateProductPriceInput',
      { priceBookId: UUID, sku: 'S', currencies: [{ currency: 'EURO', amount: 1 }] },
      'input.currencies[0].currency',
    ],
    [
      'createProductPrice',
      'CreateProductPriceInput',
      { priceBookId: UUID, sku: 'S', currencies: [{ currency: 'USD', amount: -1 }] },
      'input.currencies[0].amount',
    ],
    [
      'createProductPrice',
      'CreateProductPriceInput',
      { priceBookId: UUID, sku: 'S', currencies: [] },
      'input.currencies',
    ],
    [
      'createProductPrice',
      'CreateProductPriceInput',
      {
        priceBookId: UUID,
        sku: 'S',
        currencies: [
          { currency: 'USD', amount: 1 },
          { currency: 'usd', amount: 2 },
        ],
      },
      'input.currencies',
    ],
    [
      'createProductPrice',
      'CreateProductPriceInput',
      {
        priceBookId: UUID,
        sku: 'S',
        currencies: [{ currency: 'USD', amount: 1 }],
        sales: [
          {
            id: ' ',
            validFrom: '2026-01-01T00:00:00Z',
            currencies: [{ currency: 'USD', amount: 1 }],
          },
        ],
      },
      'input.sales[0].id',
    ],
    [
      'createPcmCatalog',
      'CreatePcmCatalogInput',
      { name: 'c', hierarchyIds: [] },
      'input.hierarchyIds',
    ],
    [
      'createPcmCatalog',
      'CreatePcmCatalogInput',
      {
        name: 'c',
        hierarchyIds: [UUID],
        priceBooks: Array(6)
          .fill(0)
          .map((_, i) => ({ priceBookId: UUID.replace(/1$/, String(i)) })),
      },
      'input.priceBooks',
    ],
    [
      'createCatalogRule',
      'CreateCatalogRuleInput',
      { name: 'has space', catalogId: UUID },
      'input.name',
    ],
    [
      'createCatalogRule',
      'CreateCatalogRuleInput',
      { name: 'r', catalogId: UUID, channels: ['a,b'] },
      'input.channels[0]',
    ],
    ['setStock', 'SetStockInput', { productId: UUID, quantity: -1 }, 'input.quantity'],
    [
      'setStock',
      'SetStockInput',
      { productId: UUID, quantity: 0, action: 'INCREMENT' },
      'input.quantity',
    ],
  ];
  for (const [mutation, type, input, field] of cases) {
    it(`${mutation}: ${field}`, async () => {
      const before = stack.upstreamRequests.length;
      const result = await stack.graphql(
        `mutation($i: ${type}!) { ${mutation}(input: $i) { userErrors { code field message } } }`,
        { i: input },
      );
      expect(result.status).toBe(200);
      expect(userError(result.body, mutation), JSON.stringify(result.body)).toMatchObject({
        code: 'BAD_USER_INPUT',
        field: expect.stringContaining(field),
      });
      // A token may be fetched by the harness; nothing reached the catalog routes.
      const after = stack.upstreamRequests.slice(before).filter((r) => !r.url.startsWith('/oauth'));
      expect(after).toEqual([]);
    });
  }

  it('refuses publishPcmCatalog with a bad id before any call', async () => {
    const result = await stack.graphql(
      'mutation { publishPcmCatalog(input: { catalogId: "x" }) { userErrors { code field message } } }',
    );
    expect(userError(result.body, 'publishPcmCatalog')).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.catalogId',
      message: 'input.catalogId must be a Catalog id or its upstreamId (the upstreamId is a uuid)',
    });
  });
});
