/**
 * Parent products over HTTP: variations, options and their modifiers, `POST
 * /pcm/products/{id}/build` as a finished `pim-job` (201; GET /pcm/jobs/{id}), the children it
 * makes (build rules, modifiers, rebuilds keeping ids, detaching by a direct update), and a
 * failed build that writes no child.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
beforeAll(async () => {
  service = await startService();
});
afterAll(() => service.close());

async function post(path: string, type: string, attributes: Record<string, unknown>, extra = {}) {
  const result = await service.call('POST', path, {
    json: { data: { type, attributes, ...extra } },
  });
  if (result.status !== 201)
    throw new Error(`${path}: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body.data;
}

/** A variation with options; each option gets the modifiers given for it. */
async function variation(name: string, options: Record<string, Record<string, unknown>[]>) {
  const v = await post('/pcm/variations', 'product-variation', { name });
  const ids: Record<string, string> = {};
  for (const [option, modifiers] of Object.entries(options)) {
    const o = await post(`/pcm/variations/${v.id}/options`, 'product-variation-option', {
      name: option,
      description: `${option} option`,
    });
    ids[option] = o.id;
    for (const modifier of modifiers) {
      await post(
        `/pcm/variations/${v.id}/options/${o.id}/modifiers`,
        'product-variation-modifier',
        modifier,
      );
    }
  }
  return { id: v.id as string, options: ids };
}

const rel = (...ids: string[]) => ({
  relationships: { variations: { data: ids.map((id) => ({ type: 'product-variation', id })) } },
});

async function children(parentId: string) {
  const result = await service.call('GET', `/pcm/products/${parentId}/children?page[limit]=100`);
  expect(result.status).toBe(200);
  return result.body.data as { id: string; attributes: Record<string, any>; meta: any }[];
}

describe('variations, options and modifiers', () => {
  it('serves them in the production shapes and refuses bad modifiers', async () => {
    const size = await variation('Size', { Small: [{ type: 'name_append', value: ' S' }] });
    const read = await service.call('GET', `/pcm/variations/${size.id}`);
    expect(read.body.data).toMatchObject({
      type: 'product-variation',
      attributes: { name: 'Size' },
      meta: { owner: 'store', options: [{ id: size.options.Small, name: 'Small' }] },
    });
    const modifiers = await service.call(
      'GET',
      `/pcm/variations/${size.id}/options/${size.options.Small}/modifiers`,
    );
    expect(modifiers.body.data[0]).toMatchObject({
      type: 'product-variation-modifier',
      attributes: { type: 'name_append', value: ' S' },
    });
    expect(modifiers.body.meta.results.total).toBe(1);
    const path = `/pcm/variations/${size.id}/options/${size.options.Small}/modifiers`;
    for (const [attributes, source] of [
      [{ type: 'colour_append', value: 'x' }, 'data.attributes.type'],
      [{ type: 'sku_builder', seek: '{S}' }, 'data.attributes.set'],
      [{ type: 'slug_append', value: 'not a slug' }, 'data.attributes.value'],
      [{ type: 'price' }, 'data.attributes.reference_name'],
      [{ type: 'status', value: 'hidden' }, 'data.attributes.value'],
    ] as const) {
      const result = await service.call('POST', path, {
        json: { data: { type: 'product-variation-modifier', attributes } },
      });
      expect(result.status, JSON.stringify(attributes)).toBe(400);
      expect(errorOf(result).source).toBe(source);
    }
    const blankName = await service.call('POST', '/pcm/variations', {
      json: { data: { type: 'product-variation', attributes: { name: ' ' } } },
    });
    expect(errorOf(blankName).source).toBe('data.attributes.name');
  });
});

describe('building child products', () => {
  it('builds every included combination as a finished job, with the modifiers applied', async () => {
    const size = await variation('Size', {
      S: [
        { type: 'sku_builder', seek: '{SIZE}', set: 'S' },
        { type: 'slug_builder', seek: '{size}', set: 's' },
        { type: 'price', reference_name: 'small_discount' },
      ],
      M: [
        { type: 'sku_builder', seek: '{SIZE}', set: 'M' },
        { type: 'slug_builder', seek: '{size}', set: 'm' },
      ],
      L: [
        { type: 'sku_builder', seek: '{SIZE}', set: 'L' },
        { type: 'slug_builder', seek: '{size}', set: 'l' },
      ],
    });
    const colour = await variation('Colour', {
      Red: [
        { type: 'sku_append', value: '-RED' },
        { type: 'slug_append', value: '-red' },
        { type: 'name_append', value: ' (red)' },
        { type: 'status', value: 'live' },
      ],
      Blue: [
        { type: 'sku_append', value: '-BLUE' },
        { type: 'slug_append', value: '-blue' },
        { type: 'name_append', value: ' (blue)' },
      ],
    });
    const parent = await post(
      '/pcm/products',
      'product',
      {
        name: 'Tee',
        commodity_type: 'physical',
        sku: 'TEE-{SIZE}',
        slug: 'tee-{size}',
        build_rules: { default: 'include', exclude: [[size.options.L, colour.options.Blue]] },
      },
      rel(size.id, colour.id),
    );
    const build = await service.call('POST', `/pcm/products/${parent.id}/build`);
    expect(build.status).toBe(201);
    expect(build.body.data).toMatchObject({
      type: 'pim-job',
      attributes: { type: 'child-products', status: 'success' },
    });
    const job = await service.call('GET', `/pcm/jobs/${build.body.data.id}`);
    expect(job.body.data).toEqual(build.body.data);
    expect(
      (await service.call('GET', '/pcm/jobs?filter=eq(status,success)')).body.data.map(
        (j: any) => j.id,
      ),
    ).toContain(build.body.data.id);

    const built = await children(parent.id);
    expect(built.map((c) => c.attributes.sku).sort()).toEqual([
      'TEE-L-RED',
      'TEE-M-BLUE',
      'TEE-M-RED',
      'TEE-S-BLUE',
      'TEE-S-RED',
    ]);
    const smallRed = built.find((c) => c.attributes.sku === 'TEE-S-RED');
    expect(smallRed).toMatchObject({
      attributes: { name: 'Tee (red)', slug: 'tee-s-red', status: 'live' },
      relationships: { base_product: { data: { type: 'product', id: parent.id } } },
      meta: { product_types: ['child'] },
    });
    expect(smallRed?.meta.child_variations.map((v: any) => v.option.name)).toEqual(['S', 'Red']);
    expect(built.find((c) => c.attributes.sku === 'TEE-M-BLUE')?.attributes.status).toBe('draft');
    const filtered = await service.call('GET', `/pcm/products?filter=eq(parent_id,${parent.id})`);
    expect(filtered.body.meta.results.total).toBe(5);
    const readParent = (await service.call('GET', `/pcm/products/${parent.id}`)).body.data;
    expect(readParent.meta.product_types).toEqual(['parent']);
    expect(readParent.meta.variation_matrix[size.options.S ?? ''][colour.options.Red ?? '']).toBe(
      smallRed?.id,
    );
    expect(readParent.meta.variations.map((v: any) => v.name)).toEqual(['Size', 'Colour']);

    // A new option: the rebuild keeps every existing child's id and adds the new ones.
    const xl = await post(`/pcm/variations/${size.id}/options`, 'product-variation-option', {
      name: 'XL',
    });
    await post(
      `/pcm/variations/${size.id}/options/${xl.id}/modifiers`,
      'product-variation-modifier',
      {
        type: 'sku_builder',
        seek: '{SIZE}',
        set: 'XL',
      },
    );
    // Without a slug_builder the XL children's slugs would keep "{size}": the build would fail.
    const noSlug = await service.call('POST', `/pcm/products/${parent.id}/build`);
    expect(noSlug.body.data.attributes.status).toBe('failed');
    expect(await children(parent.id)).toHaveLength(5);
    await post(
      `/pcm/variations/${size.id}/options/${xl.id}/modifiers`,
      'product-variation-modifier',
      {
        type: 'slug_builder',
        seek: '{size}',
        set: 'xl',
      },
    );
    expect(
      (await service.call('POST', `/pcm/products/${parent.id}/build`)).body.data.attributes.status,
    ).toBe('success');
    const rebuilt = await children(parent.id);
    expect(rebuilt).toHaveLength(7);
    const before = new Map(built.map((c) => [c.attributes.sku, c.id]));
    for (const child of rebuilt) {
      if (before.has(child.attributes.sku)) expect(child.id).toBe(before.get(child.attributes.sku));
    }

    // Updating a child directly detaches it; a rebuild does not recreate it.
    const detached = await service.call('PUT', `/pcm/products/${smallRed?.id}`, {
      json: { data: { type: 'product', id: smallRed?.id, attributes: { name: 'Special tee' } } },
    });
    expect(detached.status).toBe(200);
    expect(detached.body.data.meta.product_types).toEqual(['standard']);
    expect(detached.body.data.relationships.base_product).toBeUndefined();
    await service.call('POST', `/pcm/products/${parent.id}/build`);
    const after = await children(parent.id);
    expect(after).toHaveLength(6);
    expect(after.map((c) => c.attributes.sku)).not.toContain('TEE-S-RED');
  });

  it('fails a build whose children would clash, as a failed job, and writes no child', async () => {
    const v = await variation('Edition', {
      First: [{ type: 'sku_append', value: '-1' }],
      Second: [{ type: 'sku_append', value: '-2' }],
    });
    // A product already holds the SKU the second child would get.
    await post('/pcm/products', 'product', {
      name: 'Taken',
      commodity_type: 'digital',
      sku: 'BOOK-2',
    });
    const parent = await post(
      '/pcm/products',
      'product',
      { name: 'Book', commodity_type: 'digital', sku: 'BOOK' },
      rel(v.id),
    );
    const build = await service.call('POST', `/pcm/products/${parent.id}/build`);
    expect(build.status).toBe(201);
    expect(build.body.data.attributes.status).toBe('failed');
    const errors = await service.call('GET', `/pcm/jobs/${build.body.data.id}/errors`);
    expect(errors.body.data[0]).toMatchObject({ type: 'pim-job-error' });
    expect(errors.body.data[0].attributes.message).toMatch(/Must be unique amongst products/);
    expect(await children(parent.id)).toEqual([]);
    expect(
      (await service.call('GET', `/pcm/products/${parent.id}`)).body.data.meta.product_types,
    ).toEqual(['standard']);

    // Ambiguous rules fail the same way.
    const ambiguous = await service.call('PUT', `/pcm/products/${parent.id}`, {
      json: {
        data: {
          type: 'product',
          id: parent.id,
          attributes: {
            sku: 'BOOK-X',
            build_rules: {
              default: 'include',
              include: [[v.options.First]],
              exclude: [[v.options.First]],
            },
          },
        },
      },
    });
    expect(ambiguous.status).toBe(200);
    const second = await service.call('POST', `/pcm/products/${parent.id}/build`);
    expect(second.body.data.attributes.status).toBe('failed');
    expect(await children(parent.id)).toEqual([]);
  });

  it('refuses to build a product without variations (422) or an unknown product (404)', async () => {
    const plain = await post('/pcm/products', 'product', {
      name: 'Plain',
      commodity_type: 'physical',
    });
    const result = await service.call('POST', `/pcm/products/${plain.id}/build`);
    expect(result.status).toBe(422);
    expect(errorOf(result).detail).toMatch(/no variations/);
    expect((await service.call('POST', `/pcm/products/${crypto.randomUUID()}/build`)).status).toBe(
      404,
    );
    const unknown = await service.call('POST', '/pcm/products', {
      json: {
        data: {
          type: 'product',
          attributes: { name: 'X', commodity_type: 'physical' },
          ...rel(crypto.randomUUID()),
        },
      },
    });
    expect(unknown.status).toBe(422);
    expect(errorOf(unknown).source).toBe('data.relationships.variations.data');
    // A variation a product uses cannot be deleted.
    const v = await variation('Used', { One: [] });
    await post('/pcm/products', 'product', { name: 'User', commodity_type: 'physical' }, rel(v.id));
    expect((await service.call('DELETE', `/pcm/variations/${v.id}`)).status).toBe(409);
  });
});
