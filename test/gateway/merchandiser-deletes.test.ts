/**
 * The merchandiser's deletes (issue 29): products, hierarchies, nodes, price books, prices,
 * catalogs, rules and promotions, as the embedded service offers them, through the gateway over
 * real sockets. Each is deleted by its global id (the other form, the upstreamId, is walked by
 * id-inputs.test.ts), answers `deletedId` (the upstream id), is gone when read back, and a
 * second delete is a NOT_FOUND user error, not a top-level error.
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

/** Creates with `create`, returns `{ id, upstreamId }` of what it made. */
async function made(create: string, field: string, variables: Json): Promise<Json> {
  const data = await ok(create, variables);
  const [payload] = Object.values(data) as Json[];
  return payload[field];
}

/** Deletes by global id; checks the answer, the read-back, and a second delete. */
async function deletes(
  mutation: string,
  input: Record<string, unknown>,
  upstreamId: string,
  readBack: () => Promise<Json>,
) {
  const Type = mutation[0]?.toUpperCase() + mutation.slice(1);
  const document = `mutation($i: ${Type}Input!) { ${mutation}(input: $i) {
    deletedId userErrors { code field message } } }`;
  const gone = await ok(document, { i: input });
  expect(gone[mutation]).toEqual({ deletedId: upstreamId, userErrors: [] });
  expect(await readBack()).toBeNull();
  const again = await stack.graphql(document, { i: input });
  expect(again.body.errors).toBeUndefined();
  // With one id in the input, the NOT_FOUND is about it; with parents too, the upstream's 404
  // does not say which, and the error is about the input as a whole.
  const ids = Object.keys(input);
  expect(userError(again.body, mutation)).toMatchObject({
    code: 'NOT_FOUND',
    field: ids.length === 1 ? `input.${ids[0]}` : null,
  });
}

const lookup = (field: string, args: string) => async () =>
  (await ok(`{ ${field}(${args}) { __typename } }`))[field];

describe('the merchandiser deletes what it made', () => {
  it('deletes a product, a node, a hierarchy', async () => {
    const product = await made(
      'mutation { createPcmProduct(input: { name: "Gone", commodityType: PHYSICAL, sku: "GONE-1" }) { product { id upstreamId } } }',
      'product',
      {},
    );
    await deletes(
      'deletePcmProduct',
      { id: product.id },
      product.upstreamId,
      lookup('pcmProduct', `id: "${product.upstreamId}"`),
    );

    const hierarchy = await made(
      'mutation { createPcmHierarchy(input: { name: "Old" }) { hierarchy { id upstreamId } } }',
      'hierarchy',
      {},
    );
    const node = await made(
      'mutation($h: ID!) { createPcmNode(input: { hierarchyId: $h, name: "Old node" }) { node { id upstreamId } } }',
      'node',
      { h: hierarchy.id },
    );
    await deletes(
      'deletePcmNode',
      { hierarchyId: hierarchy.id, id: node.id },
      node.upstreamId,
      lookup('pcmNode', `id: "${node.upstreamId}"`),
    );
    await deletes(
      'deletePcmHierarchy',
      { id: hierarchy.id },
      hierarchy.upstreamId,
      lookup('pcmHierarchy', `id: "${hierarchy.upstreamId}"`),
    );
  });

  it('deletes a price, a price book, a rule and a catalog', async () => {
    const book = await made(
      'mutation { createPriceBook(input: { name: "Old prices" }) { priceBook { id upstreamId } } }',
      'priceBook',
      {},
    );
    const price = await made(
      `mutation($b: ID!) { createProductPrice(input: { priceBookId: $b, sku: "GONE-2",
        currencies: [{ currency: "USD", amount: 100 }] }) { price { id upstreamId } } }`,
      'price',
      { b: book.id },
    );
    await deletes(
      'deleteProductPrice',
      { priceBookId: book.id, id: price.id },
      price.upstreamId,
      lookup('productPrice', `priceBookId: "${book.upstreamId}", id: "${price.upstreamId}"`),
    );
    await deletes(
      'deletePriceBook',
      { id: book.id },
      book.upstreamId,
      lookup('priceBook', `id: "${book.upstreamId}"`),
    );

    const hierarchy = await made(
      'mutation { createPcmHierarchy(input: { name: "For a catalog" }) { hierarchy { id upstreamId } } }',
      'hierarchy',
      {},
    );
    const catalog = await made(
      'mutation($h: ID!) { createPcmCatalog(input: { name: "Old", hierarchyIds: [$h] }) { catalog { id upstreamId } } }',
      'catalog',
      { h: hierarchy.id },
    );
    const rule = await made(
      'mutation($c: ID!) { createCatalogRule(input: { name: "old", catalogId: $c, channels: ["old"] }) { rule { id upstreamId } } }',
      'rule',
      { c: catalog.id },
    );
    await deletes(
      'deleteCatalogRule',
      { id: rule.id },
      rule.upstreamId,
      lookup('catalogRule', `id: "${rule.upstreamId}"`),
    );
    await deletes(
      'deletePcmCatalog',
      { id: catalog.id },
      catalog.upstreamId,
      lookup('pcmCatalog', `id: "${catalog.upstreamId}"`),
    );
  });

  it('deletes a promotion of either engine', async () => {
    const window = { start: '2020-01-01T00:00:00Z', end: '2099-01-01T00:00:00Z' };
    const promotion = await made(
      `mutation($i: CreatePromotionInput!) { createPromotion(input: $i) { promotion { id upstreamId } } }`,
      'promotion',
      {
        i: { name: 'Old', enabled: true, promotionType: 'PERCENT_DISCOUNT', percent: 5, ...window },
      },
    );
    await deletes(
      'deletePromotion',
      { promotionId: promotion.id },
      promotion.upstreamId,
      lookup('promotion', `id: "${promotion.upstreamId}"`),
    );
  });
});
