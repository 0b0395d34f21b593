/**
 * The official SDK, `@elasticpath/js-sdk` (v35), unchanged, against the embedded service: its
 * PCM product, variation, hierarchy, node and node-relationship calls with a client_credentials
 * client pointed at 127.0.0.1. Every request the SDK sends is recorded, and the places where it
 * differs from the notes (§2–§4) are asserted, so a change in either is seen.
 */
import { gateway, MemoryStorageFactory } from '@elasticpath/js-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TEST_CLIENTS, type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
// Called as a JavaScript storefront calls it: the SDK's typings demand members (`type`) that
// its own methods set, so the client is untyped here.
let sdk: any;
const sent: { method: string; path: string; body: unknown }[] = [];

beforeAll(async () => {
  service = await startService();
  const url = new URL(service.url);
  const client = DEFAULT_TEST_CLIENTS[0];
  sdk = gateway({
    client_id: client?.id,
    client_secret: client?.secret,
    host: url.host,
    protocol: 'http',
    storage: new MemoryStorageFactory(),
    custom_fetch: async (input: string, init: RequestInit & { body?: string }) => {
      const path = String(input).slice(service.url.length);
      sent.push({
        method: init.method ?? 'GET',
        path,
        body:
          path.startsWith('/pcm/') && typeof init.body === 'string' && init.body !== ''
            ? JSON.parse(init.body)
            : undefined,
      });
      return fetch(input, init);
    },
  } as never);
});
afterAll(() => service.close());

function last(method: string, prefix: string) {
  return sent.filter((r) => r.method === method && r.path.startsWith(prefix)).at(-1);
}

describe('@elasticpath/js-sdk PCM calls against the embedded service', () => {
  it('creates, lists, reads, updates and deletes products', async () => {
    const created = await sdk.PCM.Create({
      attributes: { name: 'SDK mug', commodity_type: 'physical', sku: 'SDK-MUG', status: 'live' },
    });
    expect(created.data).toMatchObject({ type: 'product', attributes: { sku: 'SDK-MUG' } });
    const id = created.data.id;
    const list = await sdk.PCM.Filter({ eq: { sku: 'SDK-MUG' } })
      .Limit(5)
      .All();
    expect(list.data.map((p: { id: string }) => p.id)).toEqual([id]);
    // The SDK writes page[limit] and filter=eq(sku,SDK-MUG) as the notes do.
    expect(last('GET', '/pcm/products?')?.path).toMatch(/page\[limit\]=5/);
    expect((await sdk.PCM.Get(id)).data.id).toBe(id);
    const updated = await sdk.PCM.Update(id, { id, attributes: { name: 'SDK mug 2' } });
    expect(updated.data.attributes.name).toBe('SDK mug 2');
    await sdk.PCM.Delete(id);
    await expect(sdk.PCM.Get(id)).rejects.toMatchObject({ errors: [{ status: 404 }] });
  });

  it('builds child products from variations made through the SDK', async () => {
    const variation = await sdk.PCMVariations.CreateVariation({ attributes: { name: 'SDK size' } });
    const vid = variation.data.id;
    for (const name of ['S', 'M']) {
      const option = await sdk.PCMVariations.CreateVariationsOption(vid, {
        attributes: { name, description: name },
      });
      await sdk.PCMVariations.CreateVariationsModifier(vid, option.data.id, {
        attributes: { type: 'sku_append', value: `-${name}` },
      });
    }
    const options = await sdk.PCMVariations.VariationsOptions(vid);
    expect(options.data).toHaveLength(2);
    const parent = await sdk.PCM.Create({
      attributes: { name: 'SDK tee', commodity_type: 'physical', sku: 'SDK-TEE' },
    });
    // The variations relationship through its own route (POST {data:[{type,id}]}).
    await sdk.PCM.VariationsRelationships.Create(parent.data.id, [vid]);
    expect(last('POST', `/pcm/products/${parent.data.id}/relationships/variations`)?.body).toEqual({
      data: [{ type: 'product-variation', id: vid }],
    });
    const job = await sdk.PCM.BuildChildProducts(parent.data.id);
    expect(job.data.attributes).toMatchObject({ type: 'child-products', status: 'success' });
    expect((await sdk.PCM.Jobs.Get(job.data.id)).data.attributes.status).toBe('success');
    const children = await sdk.PCM.GetChildProducts(parent.data.id);
    expect(
      children.data.map((c: { attributes: { sku: string } }) => c.attributes.sku).sort(),
    ).toEqual(['SDK-TEE-M', 'SDK-TEE-S']);
  });

  it('manages hierarchies and nodes, moves a node and attaches products', async () => {
    const hierarchy = await sdk.Hierarchies.Create({
      attributes: { name: 'SDK range', slug: 'sdk-range' },
    });
    const hierarchyId = hierarchy.data.id;
    expect((await sdk.Hierarchies.All()).data.map((h: { id: string }) => h.id)).toContain(
      hierarchyId,
    );
    const top = await sdk.Hierarchies.Nodes.Create({
      hierarchyId,
      body: { attributes: { name: 'Top', slug: 'top' } },
    });
    const inner = await sdk.Hierarchies.Nodes.Create({
      hierarchyId,
      body: { attributes: { name: 'Inner', slug: 'inner' }, meta: { sort_order: 2 } },
    });
    // ChangeParent: PUT …/relationships/parent with {data:{type:"node",id}}, as the notes say.
    await sdk.Hierarchies.Relationships.ChangeParent({
      hierarchyId,
      nodeId: inner.data.id,
      body: { type: 'node', id: top.data.id },
    });
    const children = await sdk.Hierarchies.Nodes.GetNodeChildren({
      hierarchyId,
      nodeId: top.data.id,
    });
    expect(children.data.map((n: { id: string }) => n.id)).toEqual([inner.data.id]);
    // Update (the SDK's other parent call) sends type "relationships/product": accepted too.
    await sdk.Hierarchies.Relationships.DeleteParent({ hierarchyId, nodeId: inner.data.id });
    await sdk.Hierarchies.Relationships.Update({
      hierarchyId,
      nodeId: inner.data.id,
      body: { id: top.data.id },
    });
    expect(
      last('PUT', `/pcm/hierarchies/${hierarchyId}/nodes/${inner.data.id}/relationships/parent`)
        ?.body,
    ).toEqual({
      data: { id: top.data.id, type: 'relationships/product' },
    });
    expect(
      (await sdk.Hierarchies.Nodes.Get({ hierarchyId, nodeId: inner.data.id })).data.meta
        .parent_name,
    ).toBe('Top');
    const updated = await sdk.Hierarchies.Nodes.Update({
      hierarchyId,
      nodeId: top.data.id,
      body: { attributes: { description: 'Top shelf' } },
    });
    expect(updated.data.attributes.description).toBe('Top shelf');

    const product = await sdk.PCM.Create({
      attributes: { name: 'SDK lamp', commodity_type: 'physical', sku: 'SDK-LAMP', status: 'live' },
    });
    await sdk.Hierarchies.Relationships.Create({
      hierarchyId,
      nodeId: inner.data.id,
      body: [{ type: 'product', id: product.data.id }],
    });
    const products = await sdk.Hierarchies.Relationships.Products({
      hierarchyId,
      nodeId: inner.data.id,
    });
    expect(products.data.map((p: { id: string }) => p.id)).toEqual([product.data.id]);
    const nodes = await sdk.PCM.GetProductNodes(product.data.id);
    expect(nodes.data.map((n: { id: string }) => n.id)).toEqual([inner.data.id]);
    const byIds = await sdk.Hierarchies.GetNodesByIds([top.data.id, inner.data.id]);
    expect(byIds.data).toHaveLength(2);
    expect(byIds.included.hierarchies[0].id).toBe(hierarchyId);
    await sdk.Hierarchies.Relationships.Delete({
      hierarchyId,
      nodeId: inner.data.id,
      body: [{ type: 'product', id: product.data.id }],
    });
    expect(
      (await sdk.Hierarchies.Relationships.Products({ hierarchyId, nodeId: inner.data.id })).data,
    ).toEqual([]);
    await sdk.Hierarchies.Nodes.Delete({ hierarchyId, nodeId: top.data.id });
    await sdk.Hierarchies.Delete(hierarchyId);
    await expect(sdk.Hierarchies.Get(hierarchyId)).rejects.toMatchObject({
      errors: [{ status: 404 }],
    });
  });
});
