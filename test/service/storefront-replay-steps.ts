/**
 * The steps of reference-storefront.test.ts that each show one feature of the storefront
 * (currencies, catalog search and autocomplete, images, variations, bundles, promotions), kept
 * apart so the visit's file stays readable; each makes the calls the storefront makes.
 */
import {
  deleteAPromotionViaPromotionCode,
  getACart,
  getAllCurrencies,
  getAllFiles,
  getByContextAllHierarchies,
  getByContextAllProducts,
  getByContextChildProducts,
  getByContextHierarchyChildNodes,
  getByContextProduct,
  manageCarts,
  postMultiSearch,
} from '@epcc-sdk/sdks-shopper';
import { expect, type it as vitestIt } from 'vitest';
import {
  type CookieJar,
  expectShape,
  ok,
  price,
  type storefrontClient,
} from './storefront-replay.ts';
import { productPage } from './storefront-replay-pages.ts';

type Client = ReturnType<typeof storefrontClient>;
type Context = () => { client: Client; jar: CookieJar };
const cur = (jar: CookieJar) => ({ 'Accept-Language': 'en', 'X-Moltin-Currency': jar.currency });

/** One step per feature, called in the visit's order by reference-storefront.test.ts. */
export const featureSteps = {
  currencies(it: typeof vitestIt, ctx: Context) {
    // Every page calls it too (storefront-replay-pages.ts, currencies()).
    it('header currencies: getAllCurrencies, en → USD', async () => {
      const { client, jar } = ctx();
      const currencies = ok(await getAllCurrencies({ client } as never), 'getAllCurrencies');
      expectShape(
        currencies,
        {
          'data[].code': 'string',
          'data[].format': 'string',
          'data[].decimal_places': 'number',
          'data[].enabled': 'boolean',
          'data[].default': 'boolean',
        },
        'currencies',
      );
      // getPreferredCurrency('en', …): LOCALE_TO_CURRENCY.en, enabled, else the enabled default.
      const usd = currencies.data.find((c: any) => c.code === 'USD' && c.enabled);
      jar.currency = (usd ?? currencies.data.find((c: any) => c.default && c.enabled)).code;
      expect(jar.currency).toBe('USD');
    });
  },

  catalog(it: typeof vitestIt, ctx: Context) {
    it('category page through search with facets', async () => {
      const { client, jar } = ctx();
      // The nav link /search/<hierarchy>/<child> refines the hierarchical menu at lvl1; the
      // adapter sends the refined query and one facet-only query per parent level (per_page 0).
      const nav = ok(await getByContextAllHierarchies({ client }), 'hierarchies');
      const hierarchy = nav.data[0].attributes.name;
      const child = ok(
        await getByContextHierarchyChildNodes({ client, path: { hierarchy_id: nav.data[0].id } }),
        'child nodes',
      ).data[0].attributes.name;
      const lvl = (n: number) => `meta.search.categories.lvl${n}`;
      const node = `${hierarchy} > ${child}`;
      const result = ok(
        await postMultiSearch({
          client,
          headers: {},
          body: {
            searches: [
              {
                type: 'search',
                q: '*',
                facet_by: `${lvl(0)},${lvl(1)},${lvl(2)},price.${jar.currency ?? 'USD'}.float_price`,
                filter_by: `${lvl(1)}:=[\`${node}\`]`,
                max_facet_values: 20,
                page: 1,
              },
              {
                type: 'search',
                q: '*',
                facet_by: `${lvl(0)},${lvl(1)}`,
                filter_by: `${lvl(0)}:=[\`${hierarchy}\`]`,
                max_facet_values: 20,
                page: 1,
                per_page: 0,
              },
              {
                type: 'search',
                q: '*',
                facet_by: lvl(0),
                max_facet_values: 20,
                page: 1,
                per_page: 0,
              },
            ],
          },
        } as never),
        'category search',
      );
      expectShape(
        result,
        {
          'results[].found': 'number',
          'results[].page': 'number',
          'results[].facet_counts[].field_name': 'string',
          'results[].facet_counts[].counts': 'array',
          'results[].request_params': 'object',
        },
        'multi-search',
      );
      const lvl1 = result.results[0].facet_counts.find((f: any) => f.field_name === lvl(1));
      expect(lvl1.counts.map((c: any) => c.value)).toContain(node);
      const [hits] = result.results;
      expectShape(
        hits,
        {
          'hits[].document.id': 'id',
          'hits[].document.attributes.name': 'string',
          'hits[].document.attributes.slug': 'string',
          ...price('hits[].document.meta.display_price.with_tax'),
          'hits[].highlights': 'array',
        },
        `category ${node}`,
      );
      const images = hits.hits
        .map((h: any) => h.document.relationships?.main_image?.data?.id)
        .filter(Boolean);
      const files = ok(
        await getAllFiles({ client, query: { filter: `in(id,${images.join(',')})` } } as never),
        'hit images',
      );
      expectShape(files, { 'data[].id': 'id', 'data[].link.href': 'string' }, 'hit images');
    });

    it('autocomplete', async () => {
      const { client } = ctx();
      const result = ok(
        await postMultiSearch({
          client,
          body: {
            searches: [
              {
                type: 'autocomplete',
                highlight_full_fields: 'name',
                q: 'tee',
                include_fields: 'name',
              },
            ],
          },
        } as never),
        'autocomplete',
      );
      expectShape(result, { 'results[].hits[].document.q': 'string' }, 'autocomplete');
    });

    it('product images: featured products with loadable main images', async () => {
      const { client } = ctx();
      const featured = ok(
        await getByContextAllProducts({ client, query: { include: ['main_image'] } as never }),
        'featured',
      );
      expectShape(
        featured,
        {
          'data[].relationships.main_image.data.id': 'id',
          'included.main_images[].id': 'id',
          'included.main_images[].mime_type': 'string',
          'included.main_images[].link.href': 'string',
        },
        'main images',
      );
      const image = await fetch(featured.included.main_images[0].link.href);
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toMatch(/^image\//);
    });

    it('variation product: picker data, a child page, the child in the cart', async () => {
      const { client, jar } = ctx();
      const parents = ok(
        await getByContextAllProducts({
          client,
          query: { filter: 'eq(product_types,parent)' },
        } as never),
        'parents',
      );
      const parentId = parents.data[0].id;
      const parent = await productPage(client, jar, parentId);
      expectShape(
        parent,
        {
          'data.meta.variations[].id': 'id',
          'data.meta.variations[].name': 'string',
          'data.meta.variations[].options[].id': 'id',
          'data.meta.variations[].options[].name': 'string',
          'data.meta.variation_matrix': 'object',
        },
        'parent',
      );
      const children = ok(
        await getByContextChildProducts({
          client,
          path: { product_id: parentId },
          query: { include: ['main_image', 'files', 'component_products'] },
          headers: cur(jar),
        } as never),
        'children',
      );
      // The picker: "Size M, Blue" → variation_matrix[optionId][optionId] = a child's id.
      let entry: any = parent.data.meta.variation_matrix;
      for (const variation of parent.data.meta.variations) entry = entry[variation.options[0].id];
      expect(children.data.map((c: any) => c.id)).toContain(entry);
      const child = await productPage(client, jar, entry);
      expect(child.data.relationships.parent.data.id).toBe(parentId);
      // The specification's product-meta: the child's variations, each with its chosen option.
      expectShape(
        child,
        { 'data.meta.child_variations[].id': 'id', 'data.meta.child_variations[].option.id': 'id' },
        'child',
      );
      expect(child.data.meta.child_variations.map((v: any) => v.option.id)).toEqual(
        parent.data.meta.variations.map((v: any) => v.options[0].id),
      );
      ok(
        await getByContextProduct({
          client,
          path: { product_id: parentId },
          query: { include: ['main_image', 'files', 'component_products'] },
          headers: cur(jar),
        } as never),
        'the child page: its parent',
      );
      ok(
        await manageCarts({
          client,
          path: { cartID: jar.cart },
          body: { data: { type: 'cart_item', id: entry, quantity: 1 } },
          headers: { 'X-Moltin-Currency': jar.currency },
        } as never),
        'add the child',
      );
    });

    it('bundle product: components, their images, the bundle in the cart', async () => {
      const { client, jar } = ctx();
      const bundles = ok(
        await getByContextAllProducts({
          client,
          query: { filter: 'eq(product_types,bundle)' },
        } as never),
        'bundles',
      );
      const bundle = await productPage(client, jar, bundles.data[0].id);
      expectShape(
        bundle,
        {
          'data.attributes.components': 'object',
          'included.component_products[].id': 'id',
          'included.component_products[].attributes.name': 'string',
          ...price('included.component_products[].meta.display_price.without_tax'),
          'data.meta.bundle_configuration.selected_options': 'object',
        },
        'bundle',
      );
      const images = bundle.included.component_products
        .map((c: any) => c.relationships?.main_image?.data?.id)
        .filter(Boolean);
      ok(
        await getAllFiles({ client, query: { filter: `in(id,${images.join(',')})` } } as never),
        'component images',
      );
      const added = ok(
        await manageCarts({
          client,
          path: { cartID: jar.cart },
          body: {
            data: {
              type: 'cart_item',
              id: bundle.data.id,
              bundle_configuration: {
                selected_options: bundle.data.meta.bundle_configuration.selected_options,
              },
              quantity: 1,
            },
          },
          headers: { 'X-Moltin-Currency': jar.currency },
        } as never),
        'addToBundleAction',
      );
      const item = added.data.find((i: any) => i.product_id === bundle.data.id);
      expect(item.bundle_configuration.selected_options).toEqual(
        bundle.data.meta.bundle_configuration.selected_options,
      );
    });
  },

  promotion(it: typeof vitestIt, ctx: Context) {
    it('cart: a promotion code shown and removed', async () => {
      const { client, jar } = ctx();
      const code = 'WELCOME10';
      ok(
        await manageCarts({
          client,
          path: { cartID: jar.cart },
          body: { data: { type: 'promotion_item', code } },
          headers: { 'X-Moltin-Currency': jar.currency },
        } as never),
        'applyDiscount',
      );
      const cart = ok(
        await getACart({
          client,
          path: { cartID: jar.cart },
          query: { include: ['items', 'promotions', 'tax_items', 'custom_discounts'] },
          headers: cur(jar),
        } as never),
        'cart with the code',
      );
      // CartDiscounts.tsx: promotion_item entries (code or sku) and items' discounts[].code.
      const items = cart.included.items;
      const shown = [
        ...items.filter((i: any) => i.type === 'promotion_item').map((i: any) => i.code ?? i.sku),
        ...items.flatMap((i: any) => (i.discounts ?? []).map((d: any) => d.code)),
      ];
      expect(shown).toContain(code);
      expectShape(cart, price('data.meta.display_price.discount'), 'discount');
      ok(
        await deleteAPromotionViaPromotionCode({
          client,
          path: { cartID: jar.cart, promoCode: code },
        } as never),
        'removeCartPromotionAction',
      );
      const after = ok(
        await getACart({
          client,
          path: { cartID: jar.cart },
          query: { include: ['items'] },
        } as never),
        'cart without the code',
      );
      expect(after.included.items.some((i: any) => i.type === 'promotion_item')).toBe(false);
    });
  },
};
