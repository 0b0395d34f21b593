/**
 * Files for shoppers, as the reference storefront uses them through @epcc-sdk/sdks-shopper
 * with its implicit token: the published catalog's `include=main_image`, getAllFiles with
 * `filter=in(id,…)` (its product page), getAFile, and a `link.href` a browser loads with no
 * token. A private file stays the store's. Over the seeded demo store, which also shows what
 * a storefront needs beside it: stock for every product, its currencies and a promotion code.
 */
import { createClient, getAFile, getAllFiles } from '@epcc-sdk/sdks-shopper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SeededService, startSeededService } from './seeded-service.ts';

let seeded: SeededService;
let shopper: string;
let client: ReturnType<typeof createClient>;
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

beforeAll(async () => {
  seeded = await startSeededService(10);
  shopper = await seeded.token('alpha', 'implicit');
  client = createClient({
    baseUrl: seeded.url,
    headers: { Authorization: `Bearer ${shopper}` },
  } as never);
});
afterAll(() => seeded?.close());

describe('product images for shoppers', () => {
  it('every product of the published catalog has a main image a browser loads', async () => {
    const page = await seeded.call('GET', '/catalog/products?include=main_image&page[limit]=100', {
      token: shopper,
    });
    expect(page.status).toBe(200);
    const products = page.body.data as any[];
    expect(products.length).toBe(100);
    const imageIds = products.map((p) => p.relationships.main_image?.data?.id);
    expect(imageIds.every((id) => typeof id === 'string')).toBe(true);
    const images = page.body.included.main_images as any[];
    expect(new Set(images.map((i) => i.id))).toEqual(new Set(imageIds));
    for (const image of images.slice(0, 5)) {
      expect(image).toMatchObject({ type: 'file', mime_type: 'image/png', public: true });
      // No token: as an <img> loads it.
      const response = await fetch(image.link.href);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect([...bytes.subarray(0, 8)]).toEqual(PNG);
      expect(bytes.length).toBe(image.file_size);
    }
    // Each product looks its own: the first page's images are not all the same bytes.
    const bodies = await Promise.all(
      images
        .slice(0, 20)
        .map(async (i) =>
          Buffer.from(await (await fetch(i.link.href)).arrayBuffer()).toString('hex'),
        ),
    );
    expect(new Set(bodies).size).toBeGreaterThan(10);
  });

  it('the product page reads its images with getAllFiles in(id,…) and getAFile', async () => {
    const page = await seeded.call('GET', '/catalog/products?page[limit]=3', { token: shopper });
    const ids = (page.body.data as any[]).map((p) => p.relationships.main_image.data.id);
    const files = await getAllFiles({ client, query: { filter: `in(id,${ids.join(',')})` } });
    expect(files.response.status).toBe(200);
    expect(new Set(((files.data as any).data as { id: string }[]).map((f) => f.id))).toEqual(
      new Set(ids),
    );
    // The filters files.yaml documents: file_name (eq, like) and file_size.
    const first = ((files.data as any).data as { file_name: string; file_size: number }[])[0];
    const byName = await getAllFiles({
      client,
      query: { filter: `eq(file_name,${first?.file_name}):le(file_size,${first?.file_size})` },
    });
    expect(((byName.data as any).data as unknown[]).length).toBe(1);
    const one = await getAFile({ client, path: { fileID: ids[0] } });
    expect(one.response.status).toBe(200);
    expect((one.data as any).data.link.href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\//);
  });

  it('a private file stays the store’s: not listed, not found, not loadable for a shopper', async () => {
    const all = await seeded.call('GET', '/v2/files?page[limit]=10&sort=-created_at');
    const privateFiles = (all.body.data as any[]).filter((f) => !f.public);
    expect(privateFiles.length).toBeGreaterThan(0);
    const secret = privateFiles[0];
    expect(secret.link.href).toBe(`${seeded.url}/v2/files/${secret.id}/content`);
    expect((await fetch(secret.link.href)).status).toBe(401);
    expect((await fetch(`${seeded.url}/files/${secret.id}/${secret.file_name}`)).status).toBe(404);
    const listed = await getAllFiles({ client, query: { filter: `eq(id,${secret.id})` } });
    expect((listed.data as any).data).toEqual([]);
    const everything = await seeded.call('GET', '/v2/files?page[limit]=100', { token: shopper });
    expect((everything.body.data as any[]).every((f) => f.public)).toBe(true);
    expect((await getAFile({ client, path: { fileID: secret.id } })).response.status).toBe(404);
    const content = await seeded.call('GET', `/v2/files/${secret.id}/content`, { token: shopper });
    expect(content.status).toBe(404);
    // The store's token reads it as before.
    expect((await seeded.call('GET', `/v2/files/${secret.id}/content`)).status).toBe(200);
  });

  it('a public address answers only for the file under its own name, and not after deletion', async () => {
    const form = new FormData();
    form.append('public', 'true');
    form.append('file', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'logo.png');
    const token = await seeded.token();
    const upload = await fetch(`${seeded.url}/v2/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    const file = ((await upload.json()) as any).data;
    expect(file.link.href).toBe(`${seeded.url}/files/${file.id}/logo.png`);
    const loaded = await fetch(file.link.href);
    expect(loaded.status).toBe(200);
    expect(loaded.headers.get('access-control-allow-origin')).toBe('*');
    expect(loaded.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await fetch(`${seeded.url}/files/${file.id}/other.png`)).status).toBe(404);
    expect((await fetch(`${seeded.url}/files/not-a-uuid/logo.png`)).status).toBe(404);
    expect((await seeded.call('DELETE', `/v2/files/${file.id}`)).status).toBe(204);
    expect((await fetch(file.link.href)).status).toBe(404);
  });
});

describe('the demo store a storefront shows', () => {
  it('has stock for every product', async () => {
    const products = await seeded.call('GET', '/pcm/products?page[limit]=1');
    const stock = await seeded.call('GET', '/v2/inventories?page[limit]=1');
    expect(stock.body.meta.results.total).toBe(products.body.meta.results.total);
    const page = await seeded.call('GET', '/catalog/products?page[limit]=5', { token: shopper });
    for (const product of page.body.data as { id: string }[]) {
      const one = await seeded.call('GET', `/v2/inventories/${product.id}`, { token: shopper });
      expect(one.status).toBe(200);
    }
  });

  it('has USD (default) and EUR, and the code WELCOME10 takes 10% off a cart', async () => {
    const currencies = await seeded.call('GET', '/v2/currencies', { token: shopper });
    expect(
      (currencies.body.data as any[]).map((c) => [c.code, c.default, c.format]).sort(),
    ).toEqual([
      ['EUR', false, '€{price}'],
      ['USD', true, '$' + '{price}'],
    ]);
    const cart = await seeded.call('POST', '/v2/carts', {
      token: shopper,
      json: { data: { name: 'Demo' } },
    });
    const cartId = cart.body.data.id;
    const product = (
      await seeded.call('GET', '/catalog/products?page[limit]=1', { token: shopper })
    ).body.data[0];
    const added = await seeded.call('POST', `/v2/carts/${cartId}/items`, {
      token: shopper,
      json: { data: { type: 'cart_item', id: product.id, quantity: 1 } },
    });
    expect(added.status).toBe(201);
    const before = added.body.meta.display_price.with_tax.amount as number;
    const applied = await seeded.call('POST', `/v2/carts/${cartId}/items`, {
      token: shopper,
      json: { data: { type: 'promotion_item', code: 'welcome10' } },
    });
    expect(applied.status).toBe(201);
    expect(applied.body.meta.display_price.with_tax.amount).toBe(before - Math.round(before / 10));
    expect(applied.body.data.at(-1)).toMatchObject({
      type: 'promotion_item',
      name: 'Welcome 10%',
      sku: 'WELCOME10',
    });
  });
});
