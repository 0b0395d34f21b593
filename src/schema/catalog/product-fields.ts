/**
 * What a storefront shows of a product beyond its attributes: its price in a currency (with and
 * without tax, formatted, and the list price while on sale), its stock, its images, its
 * breadcrumbs, its children and parent. Each reads what the product's own answer carried, or
 * one batched call for a whole page: stock through `POST /v2/inventories/multiple` (100 products
 * a call), breadcrumb nodes through `/catalog/nodes?filter=in(id,…)` (100 nodes a call).
 */
import DataLoader from 'dataloader';
import { includedOf, isJsonObject, type JsonObject } from '../../upstream/client.ts';
import type { GatewayContext } from '../../upstream/session.ts';
import { builder } from '../builder.ts';
import { Files } from '../file.ts';
import { MoneyRef } from '../money.ts';
import { MAX_AMOUNT, type MoneyShape } from '../rows.ts';
import { breadcrumbNodes } from './breadcrumbs.ts';
import { childrenShareKey } from './shared-catalog.ts';
import { CatalogNodes, Products } from './storefront.ts';

type ProductShape = ReturnType<typeof Products.read>;

/**
 * What the query cost model (src/gateway/query-cost.ts) charges a batched field each time it
 * resolves: the whole page's values share one call per 100.
 */
const BATCHED = 1 / 100;

interface Formatter {
  format: Intl.NumberFormat;
  scale: number;
  /** Strings made lately, by amount: a catalog's prices recur from page to page. */
  made: Map<number, string>;
}
const formatters = new Map<string, Formatter>();
const MADE_MAX = 5_000;

/** `€366.15`: the currency's own symbol and minor units (Intl, built once per currency). */
export function money(amount: number, currency: string): MoneyShape {
  let formatter = formatters.get(currency);
  if (formatter === undefined) {
    const format = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    formatter = { format, scale: 10 ** digits, made: new Map() };
    formatters.set(currency, formatter);
  }
  let formatted = formatter.made.get(amount);
  if (formatted === undefined) {
    formatted = formatter.format.format(amount / formatter.scale);
    if (formatter.made.size >= MADE_MAX) formatter.made.clear();
    formatter.made.set(amount, formatted);
  }
  return { amount, currency, formatted };
}

interface PriceShape {
  currency: string;
  amount: MoneyShape;
  includesTax: boolean;
  withTax: MoneyShape;
  withoutTax: MoneyShape;
  original: MoneyShape | null;
}

function amountOf(
  map: JsonObject | null,
  currency: string,
): { amount: number; tax: boolean } | null {
  const entry = map?.[currency];
  if (!isJsonObject(entry) || typeof entry.amount !== 'number') return null;
  if (!Number.isInteger(entry.amount) || Math.abs(entry.amount) > MAX_AMOUNT) return null;
  return { amount: entry.amount, tax: entry.includes_tax === true };
}

/** The display price the upstream computed, when it is in this currency. */
function displayed(product: ProductShape, currency: string, which: string): MoneyShape | null {
  const half = product.displayPrice?.[which];
  if (!isJsonObject(half) || half.currency !== currency || typeof half.amount !== 'number') {
    return null;
  }
  const formatted = typeof half.formatted === 'string' ? half.formatted : undefined;
  return formatted === undefined
    ? money(half.amount, currency)
    : { amount: half.amount, currency, formatted };
}

function priceOf(product: ProductShape, currency: string): PriceShape | null {
  const paid = amountOf(product.prices, currency);
  if (paid === null) return null;
  const amount = money(paid.amount, currency);
  const listPrice = amountOf(product.originalPrices, currency);
  return {
    currency,
    amount,
    includesTax: paid.tax,
    // The upstream's display price when the page was read in this currency; otherwise the
    // amount itself, which is what it would show (it applies no tax rates of its own).
    withTax: displayed(product, currency, 'with_tax') ?? amount,
    withoutTax: displayed(product, currency, 'without_tax') ?? amount,
    original:
      listPrice === null || listPrice.amount === paid.amount
        ? null
        : money(listPrice.amount, currency),
  };
}

const ProductPriceRef = builder.objectRef<PriceShape>('CatalogPrice').implement({
  description: 'What a product costs in one currency, from the catalog’s price books.',
  fields: (t) => ({
    currency: t.exposeString('currency', { description: 'ISO 4217 code.' }),
    amount: t.field({
      type: MoneyRef,
      resolve: (p) => p.amount,
      description: 'What the shopper pays (the sale price while a sale runs).',
    }),
    includesTax: t.exposeBoolean('includesTax', { description: 'Whether `amount` includes tax.' }),
    withTax: t.field({ type: MoneyRef, resolve: (p) => p.withTax, description: 'With tax.' }),
    withoutTax: t.field({
      type: MoneyRef,
      resolve: (p) => p.withoutTax,
      description: 'Without tax.',
    }),
    original: t.field({
      type: MoneyRef,
      nullable: true,
      resolve: (p) => p.original,
      description: 'The list price while a sale runs (the "was" price); null otherwise.',
    }),
  }),
});

interface StockShape {
  available: number;
  allocated: number;
  total: number;
}

const StockRef = builder.objectRef<StockShape>('CatalogStock').implement({
  description: 'A product’s stock (total = available + allocated).',
  fields: (t) => ({
    available: t.exposeInt('available', { description: 'Units that can be ordered now.' }),
    allocated: t.exposeInt('allocated', { description: 'Units held by orders not yet fulfilled.' }),
    total: t.exposeInt('total', { description: 'Units in stock.' }),
  }),
});

const count = (row: JsonObject, key: string) =>
  typeof row[key] === 'number' && Number.isInteger(row[key]) ? (row[key] as number) : 0;

/** One call per 100 products of the operation; null for a product whose stock is not managed. */
function stockLoader(context: GatewayContext): DataLoader<string, StockShape | null> {
  return context.batchLoader(
    'catalog-stock',
    () =>
      new DataLoader<string, StockShape | null>(
        async (ids) => {
          const response = await context.postRead({
            segments: ['inventories', 'multiple'],
            body: { data: ids.map((id) => ({ type: 'stock', id })) },
          });
          const rows =
            isJsonObject(response.body) && Array.isArray(response.body.data)
              ? response.body.data
              : [];
          const byId = new Map<string, StockShape>();
          for (const row of rows) {
            if (isJsonObject(row) && typeof row.id === 'string') {
              byId.set(row.id, {
                available: count(row, 'available'),
                allocated: count(row, 'allocated'),
                total: count(row, 'total'),
              });
            }
          }
          return ids.map((id) => byId.get(id) ?? null);
        },
        { maxBatchSize: 100 },
      ),
  );
}

builder.objectFields(Products.ref, (t) => ({
  price: t.field({
    type: ProductPriceRef,
    nullable: true,
    description:
      'The price in `currency` (ISO 4217, e.g. EUR); null when the catalog has none in it. ' +
      'Read from the product itself: no upstream call.',
    args: {
      currency: t.arg({
        type: 'CurrencyCode',
        required: true,
        description: 'ISO 4217 code, e.g. EUR.',
      }),
    },
    resolve: (product, args) => priceOf(product, args.currency),
  }),
  stock: t.field({
    type: StockRef,
    nullable: true,
    description:
      'Stock now; null when the store does not manage this product’s stock. One upstream call ' +
      'per 100 products of the operation.',
    resolve: (product, _args, context) => stockLoader(context).load(product.upstreamId),
    extensions: { upstreamCalls: BATCHED },
  }),
  mainImage: t.field({
    type: Files.ref,
    nullable: true,
    description: 'The main image (included with the product: no further call).',
    resolve: (product) => {
      const file =
        product.mainImageId === null ? undefined : includedOf(product.row, product.mainImageId);
      return file === undefined ? null : Files.read(file);
    },
  }),
  files: t.field({
    type: [Files.ref],
    description: 'Other files of the product (included with it: no further call).',
    resolve: (product) =>
      product.fileIds.flatMap((id) => {
        const file = includedOf(product.row, id);
        return file === undefined ? [] : [Files.read(file)];
      }),
  }),
  breadcrumbs: t.field({
    type: [CatalogNodes.ref],
    description:
      'The node path to the product (root first), as the catalog that applies to the caller ' +
      'has it. One upstream call per 100 nodes of the operation; under `catalog`, nodes read ' +
      'lately for the same catalog, release and language are shared (CATALOG_CACHE_SECONDS).',
    resolve: (product, _args, context, info) => breadcrumbNodes(product, context, info),
    extensions: { upstreamCalls: BATCHED },
  }),
  parent: t.field({
    type: Products.ref,
    nullable: true,
    description: 'A child product’s parent; null for any other product.',
    resolve: (product, _args, context) =>
      product.parentId === null ? null : Products.load(context, product.parentId),
    extensions: { upstreamCalls: BATCHED },
  }),
  children: Products.connectionField(t, {
    description:
      'A parent product’s children (its variations). Under `catalog`, pages read lately for ' +
      'the same catalog, release, forwarded headers and parent price are shared ' +
      '(CATALOG_CACHE_SECONDS).',
    connection: 'catalog-product-children',
    at: {
      path: '/catalog/products/{productId}/relationships/children',
      params: (product) => ({ productId: product.upstreamId }),
    },
    share: (product, context, info) => childrenShareKey(product, context, info),
  }),
}));

export type { ProductShape };
