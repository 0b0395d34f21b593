/**
 * The reference the hot path is judged against: the gateway anyone would write in an afternoon
 * with the same stack — one file, graphql-yoga + Pothos (relay plugin) + an undici Pool, the
 * caller's Authorization forwarded, an `orders` connection paged by offset (first ≤ 100), and
 * none of commerce-gateway's features: no resilience, budget, pinned cursors, loaders, limits,
 * CSRF, masking of its own, health or logs. Bench use only (bench/peers.ts), never product code.
 *
 *   UPSTREAM_URL=http://127.0.0.1:4010 PORT=4100 node scripts/ts.mjs bench/naive-gateway.ts
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import SchemaBuilder from '@pothos/core';
import RelayPlugin, { resolveOffsetConnection } from '@pothos/plugin-relay';
import { createYoga } from 'graphql-yoga';
import { Pool } from 'undici';

interface Money {
  amount: number;
  currency: string;
  formatted: string;
}
interface Order {
  id: string;
  status: string;
  payment?: string;
  shipping?: string;
  customer?: { name?: string; email?: string };
  meta: {
    display_price: { with_tax: Money };
    timestamps: { created_at: string; updated_at: string };
  };
}

const upstreamUrl = new URL(process.env.UPSTREAM_URL ?? 'http://127.0.0.1:4010');
const pool = new Pool(upstreamUrl.origin, { connections: 64 });

const builder = new SchemaBuilder<{ Context: { authorization: string } }>({
  plugins: [RelayPlugin],
  relay: {},
});

const MoneyRef = builder.objectRef<Money>('Money').implement({
  fields: (t) => ({
    amount: t.exposeInt('amount'),
    currency: t.exposeString('currency'),
    formatted: t.exposeString('formatted'),
  }),
});

const OrderRef = builder.objectRef<Order>('Order').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    upstreamId: t.exposeID('id'),
    status: t.exposeString('status'),
    payment: t.string({ nullable: true, resolve: (o) => o.payment }),
    shipping: t.string({ nullable: true, resolve: (o) => o.shipping }),
    customerName: t.string({ nullable: true, resolve: (o) => o.customer?.name }),
    customerEmail: t.string({ nullable: true, resolve: (o) => o.customer?.email }),
    total: t.field({ type: MoneyRef, resolve: (o) => o.meta.display_price.with_tax }),
    createdAt: t.string({ resolve: (o) => o.meta.timestamps.created_at }),
    updatedAt: t.string({ resolve: (o) => o.meta.timestamps.updated_at }),
  }),
});

builder.queryType({
  fields: (t) => ({
    orders: t.connection(
      {
        type: OrderRef,
        resolve: (_root, args, context) =>
          resolveOffsetConnection(
            { args, defaultSize: 25, maxSize: 100 },
            async ({ offset, limit }) => {
              const { statusCode, body } = await pool.request({
                method: 'GET',
                // Pothos asks for one more than `first` to learn hasNextPage; the API's page
                // stops at 100, so a page of 100 cannot tell (the naive gateway does not try).
                path: `/v2/orders?page[limit]=${Math.min(limit, 100)}&page[offset]=${offset}`,
                headers: { authorization: context.authorization },
              });
              const json = (await body.json()) as { data?: Order[] };
              if (statusCode !== 200 || !json.data)
                throw new Error(`upstream answered ${statusCode}`);
              return json.data;
            },
          ),
      },
      { name: 'OrderConnection' },
      { name: 'OrderEdge' },
    ),
  }),
});

// The storefront catalog as a one-file gateway would serve it: the product page from
// /catalog/products, then one call per product for what the page does not carry (its stock,
// each breadcrumb node), and the children's list.
interface CatalogProduct {
  id: string;
  attributes: {
    name: string;
    sku?: string;
    slug?: string;
    price?: Record<string, { amount: number; includes_tax: boolean }>;
  };
  meta?: { bread_crumbs?: Record<string, string[]>; bread_crumb_nodes?: string[] };
}
interface Price {
  amount: Money;
}
const formats = new Map<string, Intl.NumberFormat>();
function money(amount: number, currency: string): Money {
  let format = formats.get(currency);
  if (!format) {
    format = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    formats.set(currency, format);
  }
  return { amount, currency, formatted: format.format(amount / 100) };
}

async function getJson<T>(path: string, authorization: string): Promise<T> {
  const { statusCode, body } = await pool.request({
    method: 'GET',
    path,
    headers: { authorization },
  });
  const json = (await body.json()) as { data?: T };
  if (statusCode !== 200 || json.data === undefined)
    throw new Error(`upstream answered ${statusCode}`);
  return json.data;
}

const PriceRef = builder.objectRef<Price>('CatalogPrice').implement({
  fields: (t) => ({ amount: t.field({ type: MoneyRef, resolve: (p) => p.amount }) }),
});
const StockRef = builder.objectRef<{ available: number }>('CatalogStock').implement({
  fields: (t) => ({ available: t.exposeInt('available') }),
});
const NodeRef = builder
  .objectRef<{ id: string; attributes: { name: string } }>('CatalogNode')
  .implement({
    fields: (t) => ({
      id: t.exposeID('id'),
      name: t.string({ resolve: (n) => n.attributes.name }),
    }),
  });
const ProductRef = builder.objectRef<CatalogProduct>('Product');
ProductRef.implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    upstreamId: t.exposeID('id'),
    name: t.string({ resolve: (p) => p.attributes.name }),
    sku: t.string({ nullable: true, resolve: (p) => p.attributes.sku }),
    price: t.field({
      type: PriceRef,
      nullable: true,
      args: { currency: t.arg.string({ required: true }) },
      resolve: (p, { currency }) => {
        const price = p.attributes.price?.[currency];
        return price ? { amount: money(price.amount, currency) } : null;
      },
    }),
    stock: t.field({
      type: StockRef,
      nullable: true,
      resolve: (p, _args, context) =>
        getJson<{ available: number }>(`/v2/inventories/${p.id}`, context.authorization).catch(
          () => null,
        ),
    }),
    breadcrumbs: t.field({
      type: [NodeRef],
      resolve: (p, _args, context) => {
        const first = p.meta?.bread_crumb_nodes?.[0];
        const path = first ? (p.meta?.bread_crumbs?.[first] ?? []) : [];
        return Promise.all(
          path.map((id) =>
            getJson<{ id: string; attributes: { name: string } }>(
              `/catalog/nodes/${id}`,
              context.authorization,
            ),
          ),
        );
      },
    }),
    children: t.connection(
      {
        type: ProductRef,
        resolve: (p, args, context) =>
          resolveOffsetConnection({ args, defaultSize: 10, maxSize: 100 }, ({ offset, limit }) =>
            getJson<CatalogProduct[]>(
              `/catalog/products/${p.id}/relationships/children?page[limit]=${Math.min(limit, 100)}&page[offset]=${offset}`,
              context.authorization,
            ),
          ),
      },
      { name: 'ProductChildrenConnection' },
      { name: 'ProductChildrenEdge' },
    ),
  }),
});

// Search as the same afternoon's gateway would add it: one GET /catalog/search for the page,
// its facets and its total (asked for offset + first hits from the first, then sliced).
const FACETS = {
  PRODUCT_TYPE: 'meta.product_types',
  TAGS: 'attributes.tags',
  COMMODITY_TYPE: 'attributes.commodity_type',
  PRICE: 'price.amount',
  NODE: 'meta.search.nodes.name',
} as const;
type FacetKey = keyof typeof FACETS;
const SORTS = {
  RELEVANCE: undefined,
  PRICE: 'price.amount:asc',
  NAME: 'attributes.name:asc',
  CREATED_AT: 'created_at:asc',
} as const;
const FacetFieldRef = builder.enumType('ProductSearchFacetField', {
  values: Object.keys(FACETS) as FacetKey[],
});
const SortKeyRef = builder.enumType('ProductSearchSortKey', {
  values: Object.keys(SORTS) as (keyof typeof SORTS)[],
});
const FacetInput = builder.inputType('ProductSearchFacetInput', {
  fields: (t) => ({ field: t.field({ type: FacetFieldRef, required: true }) }),
});
interface Facet {
  field: FacetKey;
  values: { value: string; count: number }[];
}
const FacetRef = builder.objectRef<Facet>('SearchFacet').implement({
  fields: (t) => ({
    field: t.field({ type: FacetFieldRef, resolve: (f) => f.field }),
    values: t.field({
      type: [
        builder.objectRef<{ value: string; count: number }>('SearchFacetValue').implement({
          fields: (v) => ({ value: v.exposeString('value'), count: v.exposeInt('count') }),
        }),
      ],
      resolve: (f) => f.values,
    }),
  }),
});
interface SearchResult {
  found: number;
  hits: { document: CatalogProduct }[];
  facet_counts: { field_name: string; counts: { value: string; count: number }[] }[];
}

const CatalogRef = builder.objectRef<Record<string, never>>('ShopperCatalog').implement({
  fields: (t) => ({
    products: t.connection(
      {
        type: ProductRef,
        resolve: (_root, args, context) =>
          resolveOffsetConnection({ args, defaultSize: 25, maxSize: 100 }, ({ offset, limit }) =>
            getJson<CatalogProduct[]>(
              `/catalog/products?page[limit]=${Math.min(limit, 100)}&page[offset]=${offset}`,
              context.authorization,
            ),
          ),
      },
      { name: 'ProductConnection' },
      { name: 'ProductEdge' },
    ),
    search: t.connection(
      {
        type: ProductRef,
        args: {
          query: t.arg.string(),
          sort: t.arg({ type: SortKeyRef }),
          facets: t.arg({ type: [FacetInput] }),
        },
        resolve: async (_root, args, context) => {
          let found = 0;
          let facets: Facet[] = [];
          const connection = await resolveOffsetConnection(
            { args, defaultSize: 25, maxSize: 100 },
            async ({ offset, limit }) => {
              const asked = (args.facets ?? []).map((f) => f.field);
              const sort = SORTS[args.sort ?? 'RELEVANCE'];
              const params = new URLSearchParams({
                q: args.query ?? '*',
                page: '1',
                per_page: String(Math.min(offset + limit, 100)),
                ...(asked.length > 0
                  ? { facet_by: asked.map((f) => FACETS[f]).join(','), max_facet_values: '20' }
                  : {}),
                ...(sort ? { sort_by: sort } : {}),
              });
              const { statusCode, body } = await pool.request({
                method: 'GET',
                path: `/catalog/search?${params}`,
                headers: { authorization: context.authorization },
              });
              const json = (await body.json()) as SearchResult;
              if (statusCode !== 200) throw new Error(`upstream answered ${statusCode}`);
              found = json.found;
              facets = asked.map((field) => ({
                field,
                values:
                  json.facet_counts
                    .find((c) => c.field_name === FACETS[field])
                    ?.counts.map(({ value, count }) => ({ value, count })) ?? [],
              }));
              return json.hits.slice(offset).map((hit) => hit.document);
            },
          );
          return { ...connection, totalCount: found, facets };
        },
      },
      {
        name: 'ProductSearchConnection',
        fields: (c) => ({
          totalCount: c.int({
            resolve: (r) => (r as unknown as { totalCount: number }).totalCount,
          }),
          facets: c.field({
            type: [FacetRef],
            resolve: (r) => (r as unknown as { facets: Facet[] }).facets,
          }),
        }),
      },
      { name: 'ProductSearchEdge' },
    ),
    product: t.field({
      type: ProductRef,
      nullable: true,
      args: { slug: t.arg.string({ required: true }) },
      resolve: async (_root, { slug }, context) => {
        const rows = await getJson<CatalogProduct[]>(
          `/catalog/products?filter=eq(slug,${encodeURIComponent(slug)})`,
          context.authorization,
        );
        return rows[0] ?? null;
      },
    }),
  }),
});

builder.queryField('catalog', (t) => t.field({ type: CatalogRef, resolve: () => ({}) }));

const yoga = createYoga<Record<string, unknown>, { authorization: string }>({
  schema: builder.toSchema(),
  graphiql: false,
  landingPage: false,
  context: ({ request }) => ({ authorization: request.headers.get('authorization') ?? '' }),
});

const server = createServer(yoga);
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(JSON.stringify({ url: `http://127.0.0.1:${port}/graphql` }));
});
process.on('SIGTERM', () => process.exit(0));
