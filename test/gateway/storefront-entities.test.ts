/**
 * The storefront's images and its Federation entities, on the demo store: a product given a main
 * image and a file (PXM relationships, then a new release) shows both from the listing's own
 * answer (no further call); `Product`, `Hierarchy` and `CatalogNode` resolve as entities in one
 * batched call per type.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';
import type { Json } from './fixtures.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ seed: true });
});
afterAll(() => stack?.close());

async function ok(query: string, variables?: Record<string, unknown>): Promise<Json> {
  const result = await stack.graphql(query, variables);
  expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
  return result.body.data;
}

async function service(method: string, path: string, body?: unknown): Promise<number> {
  const response = await fetch(`${stack.serviceUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${await stack.token()}`,
      'content-type': 'application/json',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
}

describe('the storefront catalog', () => {
  it('shows a product’s main image and files from the page itself', async () => {
    const setup = await ok(`{ files(first: 2) { nodes { upstreamId fileName } }
      pcmProducts(filter: { sku: { eq: "SKU-00001" } }) { nodes { upstreamId } }
      pcmCatalogs(first: 5) { nodes { upstreamId name } } }`);
    const [image, other] = setup.files.nodes;
    const product = setup.pcmProducts.nodes[0].upstreamId;
    const rel = `/pcm/products/${product}/relationships`;
    expect(
      await service('PUT', `${rel}/main_image`, { data: { type: 'file', id: image.upstreamId } }),
    ).toBeLessThan(300);
    expect(
      await service('POST', `${rel}/files`, { data: [{ type: 'file', id: other.upstreamId }] }),
    ).toBeLessThan(300);
    for (const catalog of setup.pcmCatalogs.nodes) {
      await ok(
        'mutation($c: ID!) { publishPcmCatalog(input: { catalogId: $c }) { release { status } } }',
        {
          c: catalog.upstreamId,
        },
      );
    }
    const before = stack.upstreamRequests.length;
    const page = await ok(`{ catalog { products(first: 5, filter: { sku: { eq: "SKU-00001" } }) {
      nodes { sku mainImage { upstreamId fileName } files { upstreamId } } } } }`);
    expect(page.catalog.products.nodes[0]).toEqual({
      sku: 'SKU-00001',
      mainImage: { upstreamId: image.upstreamId, fileName: image.fileName },
      files: [{ upstreamId: other.upstreamId }],
    });
    expect(stack.upstreamRequests.length - before).toBe(1);
    const bySku = await ok(
      '{ catalog { product(sku: "SKU-00001") { mainImage { upstreamId } } } }',
    );
    expect(bySku.catalog.product.mainImage.upstreamId).toBe(image.upstreamId);
  });

  it('resolves products, hierarchies and catalog nodes as Federation entities, batched', async () => {
    const known = await ok(`{ catalog {
      products(first: 3) { nodes { upstreamId } }
      hierarchies(first: 2) { nodes { upstreamId } }
      nodes(first: 2) { nodes { upstreamId } } } }`);
    const rep = (typename: string, list: Json[]) =>
      list.map((n: Json) => ({ __typename: typename, upstreamId: n.upstreamId }));
    const representations = [
      ...rep('Product', known.catalog.products.nodes),
      ...rep('Hierarchy', known.catalog.hierarchies.nodes),
      ...rep('CatalogNode', known.catalog.nodes.nodes),
      { __typename: 'Product', upstreamId: '00000000-0000-4000-8000-000000000000' },
    ];
    const before = stack.upstreamRequests.length;
    const result = await ok(
      `query($r: [_Any!]!) { _entities(representations: $r) { __typename
        ... on Product { upstreamId name } ... on Hierarchy { upstreamId name } ... on CatalogNode { upstreamId name } } }`,
      { r: representations },
    );
    const entities = result._entities as (Json | null)[];
    expect(entities).toHaveLength(8);
    expect(entities[7]).toBeNull();
    expect(entities.slice(0, 7).map((e) => e?.upstreamId)).toEqual(
      representations.slice(0, 7).map((r) => r.upstreamId),
    );
    expect(entities.slice(0, 7).every((e) => typeof e?.name === 'string')).toBe(true);
    // One call per type: products, hierarchies, nodes.
    expect(stack.upstreamRequests.length - before).toBe(3);
  });
});
