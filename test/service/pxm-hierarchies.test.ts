/**
 * Hierarchies, nodes and product ↔ node links over HTTP (`/pcm/hierarchies…`): the tree
 * (breadcrumbs, children order, moves, sibling uniqueness, no cycles), deletes that take the
 * subtree, attaching and curating products (live products only in the lists), and the
 * validation errors, with nothing half-written after a refusal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
beforeAll(async () => {
  service = await startService();
});
afterAll(() => service.close());

async function hierarchy(name: string, slug?: string) {
  const result = await service.call('POST', '/pcm/hierarchies', {
    json: { data: { type: 'hierarchy', attributes: { name, ...(slug ? { slug } : {}) } } },
  });
  expect(result.status).toBe(201);
  return result.body.data.id as string;
}

async function node(
  h: string,
  name: string,
  options: { parent?: string; sort?: number; slug?: string } = {},
) {
  const result = await service.call('POST', `/pcm/hierarchies/${h}/nodes`, {
    json: {
      data: {
        type: 'node',
        attributes: { name, slug: options.slug ?? name.toLowerCase().replace(/ /g, '-') },
        ...(options.sort === undefined ? {} : { meta: { sort_order: options.sort } }),
        ...(options.parent
          ? { relationships: { parent: { data: { type: 'node', id: options.parent } } } }
          : {}),
      },
    },
  });
  if (result.status !== 201) throw new Error(JSON.stringify(result.body));
  return result.body.data;
}

async function product(name: string, status = 'live') {
  const result = await service.call('POST', '/pcm/products', {
    json: { data: { type: 'product', attributes: { name, commodity_type: 'physical', status } } },
  });
  return result.body.data.id as string;
}

const names = async (path: string) =>
  (await service.call('GET', path)).body.data.map(
    (n: { attributes: { name: string } }) => n.attributes.name,
  );

describe('hierarchies and nodes', () => {
  it('creates a tree with breadcrumbs, and orders children by sort_order then updated_at', async () => {
    const h = await hierarchy('Clothing', 'clothing');
    const tops = await node(h, 'Tops');
    const shirts = await node(h, 'Shirts', { parent: tops.id, sort: 1 });
    expect(shirts.meta).toMatchObject({
      owner: 'store',
      sort_order: 1,
      parent_name: 'Tops',
      hierarchy_id: h,
      breadcrumbs: [
        { id: h, name: 'Clothing', slug: 'clothing' },
        { id: tops.id, name: 'Tops', slug: 'tops' },
        { id: shirts.id, name: 'Shirts', slug: 'shirts' },
      ],
    });
    expect(shirts.relationships.parent.data).toEqual({ type: 'node', id: tops.id });
    await node(h, 'Vests', { parent: tops.id });
    await node(h, 'Polos', { parent: tops.id, sort: 5 });
    await node(h, 'Tanks', { parent: tops.id });
    // sort_order desc (Polos 5, Shirts 1), then the unsorted newest first (Tanks, Vests).
    expect(await names(`/pcm/hierarchies/${h}/nodes/${tops.id}/children`)).toEqual([
      'Polos',
      'Shirts',
      'Tanks',
      'Vests',
    ]);
    expect(await names(`/pcm/hierarchies/${h}/children`)).toEqual(['Tops']);
    const all = await service.call('GET', `/pcm/hierarchies/${h}/nodes`);
    expect(all.body.meta.results.total).toBe(5);
    const everywhere = await service.call(
      'GET',
      `/pcm/hierarchies/nodes?filter=${encodeURIComponent(`in(id,${tops.id},${shirts.id})`)}&include_hierarchies=true`,
    );
    expect(everywhere.body.data).toHaveLength(2);
    expect(everywhere.body.included.hierarchies.map((x: { id: string }) => x.id)).toEqual([h]);
    const byParent = await service.call(
      'GET',
      `/pcm/hierarchies/${h}/nodes?filter=eq(parent_id,${tops.id})`,
    );
    expect(byParent.body.meta.results.total).toBe(4);
  });

  it('keeps names and slugs unique among siblings only (409), and refuses bad attributes', async () => {
    const h = await hierarchy('Home');
    const kitchen = await node(h, 'Kitchen');
    await node(h, 'Mugs', { parent: kitchen.id });
    const dup = await service.call('POST', `/pcm/hierarchies/${h}/nodes`, {
      json: {
        data: {
          type: 'node',
          attributes: { name: 'Cups', slug: 'mugs' },
          relationships: { parent: { data: { type: 'node', id: kitchen.id } } },
        },
      },
    });
    expect(dup.status).toBe(409);
    expect(errorOf(dup).source).toBe('data.attributes.slug');
    // The same slug at the top level is fine.
    await node(h, 'Mugs');
    const sameName = await service.call('POST', `/pcm/hierarchies/${h}/nodes`, {
      json: { data: { type: 'node', attributes: { name: 'Kitchen', slug: 'kitchen-2' } } },
    });
    expect(errorOf(sameName).source).toBe('data.attributes.name');
    for (const [attributes, source] of [
      [{ slug: 'no-name' }, 'data.attributes.name'],
      [{ name: 'x', slug: 'a b' }, 'data.attributes.slug'],
      [{ name: 'x', admin_attributes: { k: 1 } }, 'data.attributes.admin_attributes.k'],
      [{ name: 'x', curated_products: ['nope'] }, 'data.attributes.curated_products[0].id'],
      [{ name: 'x', shade: 'blue' }, 'data.attributes.shade'],
    ] as const) {
      const result = await service.call('POST', `/pcm/hierarchies/${h}/nodes`, {
        json: { data: { type: 'node', attributes } },
      });
      expect(result.status, source).toBe(400);
      expect(errorOf(result).source).toBe(source);
    }
    const badSort = await service.call('POST', `/pcm/hierarchies/${h}/nodes`, {
      json: { data: { type: 'node', attributes: { name: 'y' }, meta: { sort_order: 1.5 } } },
    });
    expect(errorOf(badSort).source).toBe('data.meta.sort_order');
    const badHierarchy = await service.call('POST', '/pcm/hierarchies', {
      json: { data: { type: 'hierarchy', attributes: { name: '' } } },
    });
    expect(errorOf(badHierarchy).source).toBe('data.attributes.name');
    expect((await service.call('GET', `/pcm/hierarchies/${h}/nodes`)).body.meta.results.total).toBe(
      3,
    );
  });

  it('moves nodes, never under themselves or their descendants', async () => {
    const h = await hierarchy('Garden');
    const a = await node(h, 'A');
    const b = await node(h, 'B', { parent: a.id });
    const c = await node(h, 'C', { parent: b.id });
    const d = await node(h, 'D');
    const cycle = await service.call(
      'PUT',
      `/pcm/hierarchies/${h}/nodes/${a.id}/relationships/parent`,
      {
        json: { data: { type: 'node', id: c.id } },
      },
    );
    expect(cycle.status).toBe(422);
    const self = await service.call(
      'POST',
      `/pcm/hierarchies/${h}/nodes/${b.id}/relationships/children`,
      {
        json: {
          data: [
            { type: 'node', id: d.id },
            { type: 'node', id: b.id },
          ],
        },
      },
    );
    expect(self.status).toBe(422);
    // Nothing moved: D is still at the top.
    expect(await names(`/pcm/hierarchies/${h}/children`)).toEqual(['D', 'A']);
    const adopt = await service.call(
      'POST',
      `/pcm/hierarchies/${h}/nodes/${b.id}/relationships/children`,
      {
        json: { data: [{ type: 'node', id: d.id, meta: { sort_order: 9 } }] },
      },
    );
    expect(adopt.status).toBe(200);
    expect(await names(`/pcm/hierarchies/${h}/nodes/${b.id}/children`)).toEqual(['D', 'C']);
    const moved = await service.call(
      'PUT',
      `/pcm/hierarchies/${h}/nodes/${c.id}/relationships/parent`,
      {
        json: { data: { type: 'node', id: a.id } },
      },
    );
    expect(moved.status).toBe(204);
    const cNow = (await service.call('GET', `/pcm/hierarchies/${h}/nodes/${c.id}`)).body.data;
    expect(cNow.meta.breadcrumbs.map((x: { name: string }) => x.name)).toEqual([
      'Garden',
      'A',
      'C',
    ]);
    expect(
      (await service.call('DELETE', `/pcm/hierarchies/${h}/nodes/${c.id}/relationships/parent`))
        .status,
    ).toBe(204);
    expect(await names(`/pcm/hierarchies/${h}/children`)).toContain('C');
    // Deleting B takes its subtree (D).
    expect((await service.call('DELETE', `/pcm/hierarchies/${h}/nodes/${b.id}`)).status).toBe(204);
    expect((await service.call('GET', `/pcm/hierarchies/${h}/nodes/${d.id}`)).status).toBe(404);
    // Deleting the hierarchy takes every node.
    expect((await service.call('DELETE', `/pcm/hierarchies/${h}`)).status).toBe(204);
    expect((await service.call('GET', `/pcm/hierarchies/${h}/nodes/${a.id}`)).status).toBe(404);
    const left = await service.call('GET', `/pcm/hierarchies/nodes?filter=eq(hierarchy_id,${h})`);
    expect(left.body.meta.results.total).toBe(0);
  });
});

describe('products in nodes', () => {
  it('attaches, curates (first, flagged) and detaches; lists only live products', async () => {
    const h = await hierarchy('Shop');
    const shelf = await node(h, 'Shelf');
    const [p1, p2, p3] = [await product('One'), await product('Two'), await product('Three')];
    const draft = await product('Draft', 'draft');
    const path = `/pcm/hierarchies/${h}/nodes/${shelf.id}`;
    // One unknown product in the body: nothing is attached.
    const bad = await service.call('POST', `${path}/relationships/products`, {
      json: {
        data: [
          { type: 'product', id: p1 },
          { type: 'product', id: crypto.randomUUID() },
        ],
      },
    });
    expect(bad.status).toBe(422);
    expect(errorOf(bad).source).toBe('data[1].id');
    expect((await service.call('GET', `${path}/products`)).body.meta.results.total).toBe(0);
    const badShape = await service.call('POST', `${path}/relationships/products`, {
      json: { data: { type: 'product', id: p1 } },
    });
    expect(badShape.status).toBe(400);

    const attach = await service.call('POST', `${path}/relationships/products`, {
      json: { data: [p1, p2, p3, draft].map((id) => ({ type: 'product', id })) },
    });
    expect(attach.status).toBe(201);
    // Curating a product that is not in the node: 422, and the curation is unchanged.
    const outsider = await product('Outsider');
    const wrongCurate = await service.call('PUT', path, {
      json: { data: { type: 'node', attributes: { curated_products: [p1, outsider] } } },
    });
    expect(wrongCurate.status).toBe(422);
    const tooMany = await service.call('PUT', path, {
      json: {
        data: {
          type: 'node',
          attributes: { curated_products: Array.from({ length: 21 }, () => crypto.randomUUID()) },
        },
      },
    });
    expect(errorOf(tooMany).source).toBe('data.attributes.curated_products');
    const curate = await service.call('PUT', path, {
      json: { data: { type: 'node', attributes: { curated_products: [p1] } } },
    });
    expect(curate.body.data.attributes.curated_products).toEqual([p1]);

    const listed = (await service.call('GET', `${path}/products`)).body;
    expect(listed.meta.results.total).toBe(3);
    expect(listed.data.map((p: { id: string }) => p.id)).toEqual([p1, p3, p2]);
    expect(listed.data[0].attributes.curated_product).toBe(true);
    expect(listed.data[1].attributes.curated_product).toBeUndefined();

    const nodesOf = await service.call('GET', `/pcm/products/${p2}/nodes`);
    expect(nodesOf.body.data.map((n: { id: string }) => n.id)).toEqual([shelf.id]);
    expect(
      (await service.call('GET', `/pcm/products/${draft}/nodes`)).body.meta.results.total,
    ).toBe(0);

    const detach = await service.call('DELETE', `${path}/relationships/products`, {
      json: { data: [{ type: 'product', id: p1 }] },
    });
    expect(detach.status).toBe(200);
    expect(detach.body.data.attributes.curated_products).toBeUndefined();
    expect((await service.call('GET', `${path}/products`)).body.meta.results.total).toBe(2);
    expect((await service.call('GET', `/pcm/products/${p1}/nodes`)).body.meta.results.total).toBe(
      0,
    );
  });
});
