/**
 * The official SDKs, unchanged, against the embedded service's catalog: `@elasticpath/js-sdk`
 * (Catalogs, releases and rules as a merchandiser calls them, ShopperCatalog as a storefront
 * does) and `@epcc-sdk/sdks-shopper` (the reference storefront's client: the getByContext…
 * calls and manageCarts with a cart_item). Every request is recorded, so the forms the SDKs
 * send (paths, query) are asserted where they differ from the notes.
 */
import { gateway, MemoryStorageFactory } from '@elasticpath/js-sdk';
import {
  createClient,
  getByContextAllHierarchies,
  getByContextAllProducts,
  getByContextChildProducts,
  getByContextHierarchyChildNodes,
  getByContextHierarchyNodes,
  getByContextProduct,
  manageCarts,
} from '@epcc-sdk/sdks-shopper';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalogFixture, type CatalogFixture } from './catalog-fixtures.ts';
import { DEFAULT_TEST_CLIENTS, type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
let fx: CatalogFixture;
// Untyped, as a JavaScript storefront calls it (the SDK's typings demand members it sets).
let admin: any;
let shopperSdk: any;
const sent: { method: string; path: string }[] = [];

function sdkFor(secret: string | undefined) {
  const url = new URL(service.url);
  return gateway({
    client_id: DEFAULT_TEST_CLIENTS[0]?.id,
    ...(secret === undefined ? {} : { client_secret: secret }),
    host: url.host,
    protocol: 'http',
    storage: new MemoryStorageFactory(),
    custom_fetch: async (input: string, init: RequestInit) => {
      sent.push({ method: init.method ?? 'GET', path: String(input).slice(service.url.length) });
      return fetch(input, init);
    },
  } as never);
}

beforeAll(async () => {
  service = await startService();
  fx = await buildCatalogFixture(service);
  admin = sdkFor(DEFAULT_TEST_CLIENTS[0]?.secret);
  shopperSdk = sdkFor(undefined);
});
afterAll(() => service?.close());

describe('@elasticpath/js-sdk catalogs and the shopper catalog', () => {
  it('creates a catalog, publishes it, makes a rule, and a shopper browses it', async () => {
    const catalog = await admin.Catalogs.Create({
      type: 'catalog',
      attributes: {
        name: 'SDK catalog',
        hierarchy_ids: [fx.apparel, fx.brands],
        pricebook_id: fx.book,
      },
    });
    expect(catalog.data.attributes.name).toBe('SDK catalog');
    const release = await admin.Catalogs.Releases.Create({ catalogId: catalog.data.id });
    expect(release.data.meta.release_status).toBe('PUBLISHED');
    const releases = await admin.Catalogs.Releases.All({ catalogId: catalog.data.id });
    expect(releases.data.map((r: { id: string }) => r.id)).toEqual([release.data.id]);
    const rule = await admin.Catalogs.Rules.Create({
      type: 'catalog_rule',
      attributes: { name: 'sdk-mobile', catalog_id: catalog.data.id, channels: ['sdk'] },
    });
    expect(rule.data.attributes.channels).toEqual(['sdk']);
    // The js-sdk calls the older docs' /pcm/catalogs paths.
    expect(sent.some((r) => r.method === 'POST' && r.path === '/pcm/catalogs')).toBe(true);
    expect(sent.some((r) => r.path === `/pcm/catalogs/${catalog.data.id}/releases`)).toBe(true);
    expect(sent.some((r) => r.path === '/pcm/catalogs/rules')).toBe(true);

    const products = await shopperSdk.ShopperCatalog.Products.All();
    expect(products.data.map((p: { id: string }) => p.id)).toContain(fx.shirt);
    const shirt = await shopperSdk.ShopperCatalog.Products.Get({ productId: fx.shirt });
    expect(shirt.data.meta.display_price.without_tax.formatted).toBe('$40.00');
    const hierarchies = await shopperSdk.ShopperCatalog.Hierarchies.All();
    expect(hierarchies.data.map((h: { id: string }) => h.id)).toEqual([fx.apparel, fx.brands]);
    const catalogRoot = await shopperSdk.ShopperCatalog.Get();
    expect(catalogRoot.data.id).toBe(release.data.id);
  });
});

describe('@epcc-sdk/sdks-shopper against the embedded service', () => {
  it('browses the catalog and puts a product in a cart with the storefront’s calls', async () => {
    const token = await service.token('alpha', 'implicit');
    const seen: string[] = [];
    const client = createClient({
      baseUrl: service.url,
      headers: { Authorization: `Bearer ${token}` },
      fetch: async (request: Request) => {
        seen.push(`${request.method} ${request.url.slice(service.url.length)}`);
        return fetch(request);
      },
    } as never);
    const hierarchies = await getByContextAllHierarchies({ client });
    expect(hierarchies.response.status).toBe(200);
    expect((hierarchies.data as any).data.map((h: { id: string }) => h.id)).toEqual([
      fx.apparel,
      fx.brands,
    ]);
    const nodes = await getByContextHierarchyNodes({
      client,
      path: { hierarchy_id: fx.apparel },
    });
    expect((nodes.data as any).meta.results.total).toBe(3);
    const children = await getByContextHierarchyChildNodes({
      client,
      path: { hierarchy_id: fx.apparel },
    });
    expect((children.data as any).data).toHaveLength(2);
    // The product page: by slug, with its images and files (include as a comma list).
    const bySlug = await getByContextAllProducts({
      client,
      query: { filter: 'eq(slug,shirt-1)', include: ['main_image', 'files'] } as never,
    });
    expect(bySlug.response.status).toBe(200);
    expect((bySlug.data as any).data.map((p: { id: string }) => p.id)).toEqual([fx.shirt]);
    const one = await getByContextProduct({ client, path: { product_id: fx.shirt } });
    expect((one.data as any).data.attributes.sku).toBe('SHIRT-1');
    const kids = await getByContextChildProducts({ client, path: { product_id: fx.parent } });
    expect(new Set((kids.data as any).data.map((p: { id: string }) => p.id))).toEqual(
      new Set(fx.children),
    );
    const cart = await service.call('POST', '/v2/carts', {
      token,
      json: { data: { name: 'sdk' } },
    });
    const added = await manageCarts({
      client,
      path: { cartID: cart.body.data.id },
      body: { data: { type: 'cart_item', id: fx.shirt, quantity: 1 } } as never,
    });
    expect(added.response.status).toBe(201);
    expect((added.data as any).data[0]).toMatchObject({ product_id: fx.shirt, quantity: 1 });
    expect(seen).toContain(
      'GET /catalog/products?filter=eq(slug%2Cshirt-1)&include=main_image,files',
    );
  });
});
