/**
 * How a release's hierarchies, nodes and products look to a shopper (v2-catalog-notes §7),
 * read only from the release's own rows. Products are priced a page at a time: the page's SKUs
 * in one or two queries (release-prices.ts: the winning rule's price books first, then the
 * catalog's), then `priceInCurrency` (the sale of the moment applies).
 *
 * Prices: `attributes.price` maps each currency to what the shopper pays (the sale amount while
 * a sale runs) with its `includes_tax`; `meta.original_price` is the list price map when any
 * currency is on sale. `meta.display_price` is for one currency (`X-Moltin-Currency`, default
 * USD), and so are `meta.sale_id` and `meta.sale_expires`; every sale that prices a currency now
 * is in `meta.sales` (production's `sales` shape: `{saleId: {schedule: {valid_from, valid_to},
 * currencies: {EUR: {amount, includes_tax}}}}`), so a reader of another currency's price knows
 * when it ends too. This service keeps no tax rates, so `with_tax` and `without_tax` are both the stored
 * amount whatever `includes_tax` says.
 */
import type { FastifyRequest } from 'fastify';
import { cachedStatement, type Db } from '../db.ts';
import { badRequest } from '../errors.ts';
import { type FileRow, presentFile } from '../files/routes.ts';
import { parseIncludes } from '../includes.ts';
import { currencyDecimals, DEFAULT_CURRENCY, formatMoney } from '../money.ts';
import { type PriceRecord, priceInCurrency, type ResolvedPrice } from '../pricebooks/resolve.ts';
import { presentBundles } from './bundle-views.ts';
import type { Selection } from './bundles.ts';
import type { ReleaseProductRow, ReleaseRow } from './records.ts';
import { type PricingRelease, releasePriceRecords } from './release-prices.ts';
import { childOptionIds, releaseVariations } from './variations.ts';

export interface ReleaseHierarchyRow {
  id: string;
  name: string;
  slug: string | null;
  description: string | null;
  extra: string;
  created_at: string;
  updated_at: string;
}

export interface ReleaseNodeRow extends ReleaseHierarchyRow {
  hierarchy_id: string;
  parent_key: string;
  bread_crumb: string;
}

export type { ReleaseProductRow } from './records.ts';

const CURRENCY = /^[A-Z]{3}$/;

/** The display currency: `X-Moltin-Currency` (any case), else USD; 400 when not a code. */
export function displayCurrency(request: FastifyRequest): string {
  const raw = request.headers['x-moltin-currency'];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim().toUpperCase();
  if (value === undefined || value === '') return DEFAULT_CURRENCY;
  if (!CURRENCY.test(value)) {
    throw badRequest('X-Moltin-Currency must be a three-letter currency code (USD).');
  }
  return value;
}

function attributesOf(row: ReleaseHierarchyRow): Record<string, unknown> {
  return {
    name: row.name,
    ...(row.slug === null ? {} : { slug: row.slug }),
    ...(row.description === null ? {} : { description: row.description }),
    ...(JSON.parse(row.extra) as Record<string, unknown>),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentReleaseHierarchy(release: ReleaseRow, row: ReleaseHierarchyRow) {
  return {
    id: row.id,
    type: 'hierarchy',
    attributes: { ...attributesOf(row), published_at: release.published_at },
    relationships: {
      children: { links: { related: `/catalog/hierarchies/${row.id}/children` } },
      products: { links: { related: `/catalog/hierarchies/${row.id}/products` } },
    },
    meta: { language: 'en', breadcrumb: [row.id] },
  };
}

export function presentReleaseNode(release: ReleaseRow, row: ReleaseNodeRow) {
  const crumb = JSON.parse(row.bread_crumb) as string[];
  return {
    id: row.id,
    type: 'node',
    attributes: { ...attributesOf(row), published_at: release.published_at },
    relationships: {
      ...(row.parent_key === '' ? {} : { parent: { data: { type: 'node', id: row.parent_key } } }),
      hierarchy: { data: { type: 'hierarchy', id: row.hierarchy_id } },
      children: { links: { related: `/catalog/nodes/${row.id}/relationships/children` } },
      products: { links: { related: `/catalog/nodes/${row.id}/relationships/products` } },
    },
    meta: { language: 'en', bread_crumb: [row.hierarchy_id, ...crumb] },
  };
}

function display(amount: number, currency: string) {
  const value = {
    amount,
    currency,
    formatted: formatMoney(amount, currency),
    float_price: amount / 10 ** currencyDecimals(currency),
  };
  return { with_tax: value, without_tax: value };
}

/** A sale that prices some currencies now, as `meta.sales` shows it. */
interface SaleShown {
  schedule: { valid_from: string | null; valid_to: string | null };
  currencies: Record<string, { amount: number; includes_tax: boolean }>;
}

/** The price parts of a product: attributes.price and the meta price members. */
function priceParts(record: PriceRecord | undefined, currency: string, now: number) {
  if (record === undefined) return { attributes: {}, meta: {} };
  const price: Record<string, { amount: number; includes_tax: boolean }> = {};
  const original: Record<string, { amount: number; includes_tax: boolean }> = {};
  const sales: Record<string, SaleShown> = {};
  let onSale = false;
  let shown: ResolvedPrice | undefined;
  for (const code of Object.keys(record.currencies)) {
    const resolved = priceInCurrency(record, code, now);
    if (resolved === undefined) continue;
    price[code] = { amount: resolved.amount, includes_tax: resolved.includes_tax };
    original[code] = {
      amount: resolved.original_amount,
      includes_tax: record.currencies[code]?.includes_tax ?? false,
    };
    if (resolved.sale !== undefined) {
      onSale = true;
      const schedule = record.sales?.[resolved.sale.id]?.schedule;
      const sale = sales[resolved.sale.id] ?? {
        schedule: { valid_from: schedule?.valid_from ?? null, valid_to: resolved.sale.valid_to },
        currencies: {},
      };
      sale.currencies[code] = price[code];
      sales[resolved.sale.id] = sale;
    }
    if (code === currency) shown = resolved;
  }
  const meta: Record<string, unknown> = { pricebook_id: record.pricebook_id };
  if (onSale) {
    meta.original_price = original;
    meta.sales = sales;
  }
  if (shown !== undefined) {
    meta.display_price = display(shown.amount, currency);
    if (shown.sale !== undefined) {
      meta.original_display_price = display(shown.original_amount, currency);
      meta.sale_id = shown.sale.id;
      if (shown.sale.valid_to !== null) meta.sale_expires = shown.sale.valid_to;
    }
  }
  return { attributes: { price }, meta };
}

export type ProductInclude = 'main_image' | 'files' | 'component_products';

/** `include=` of product reads: main_image, files, component_products (bundle-views.ts). */
export function productIncludes(request: FastifyRequest): Set<ProductInclude> {
  // `include=a,b` and the SDK's repeated `include=a&include=b` alike (../includes.ts).
  return parseIncludes(
    (request.query as Record<string, unknown>).include,
    ['main_image', 'files', 'component_products'] as const,
    { main_images: 'main_image' },
  );
}

function presentProduct(
  release: ReleaseRow,
  row: ReleaseProductRow,
  prices: ReturnType<typeof priceParts>,
) {
  const extra = JSON.parse(row.extra) as Record<string, unknown>;
  const crumbs = JSON.parse(row.bread_crumbs) as Record<string, string[]>;
  const files = JSON.parse(row.files) as string[];
  const isChild = row.parent_id !== null;
  return {
    id: row.id,
    type: 'product',
    attributes: {
      name: row.name,
      commodity_type: row.commodity_type,
      ...(row.sku === null ? {} : { sku: row.sku }),
      ...(row.slug === null ? {} : { slug: row.slug }),
      ...(row.description === null ? {} : { description: row.description }),
      ...(row.upc_ean === null ? {} : { upc_ean: row.upc_ean }),
      ...(row.mpn === null ? {} : { manufacturer_part_num: row.mpn }),
      ...(row.external_ref === null ? {} : { external_ref: row.external_ref }),
      status: 'live',
      tags: JSON.parse(row.tags) as string[],
      ...(extra.extensions === undefined ? {} : { extensions: extra.extensions }),
      ...(extra.custom_inputs === undefined ? {} : { custom_inputs: extra.custom_inputs }),
      ...(extra.components === undefined ? {} : { components: extra.components }),
      base_product: row.product_type === 'parent',
      ...(isChild ? { base_product_id: row.parent_id } : {}),
      price_modifiers: JSON.parse(row.price_modifiers) as string[],
      published_at: release.published_at,
      created_at: row.created_at,
      updated_at: row.updated_at,
      ...prices.attributes,
    },
    relationships: {
      ...(isChild ? { parent: { data: { type: 'product', id: row.parent_id } } } : {}),
      ...(row.product_type === 'parent'
        ? { children: { links: { self: `/catalog/products/${row.id}/relationships/children` } } }
        : {}),
      files: { data: files.map((id) => ({ type: 'file', id })) },
      ...(row.main_image_id === null
        ? {}
        : { main_image: { data: { type: 'main_image', id: row.main_image_id } } }),
    },
    meta: {
      catalog_id: release.catalog_id,
      release_id: release.id,
      catalog_source: 'pim',
      product_types: [row.product_type],
      bread_crumbs: crumbs,
      bread_crumb_nodes: Object.keys(crumbs),
      ...(row.child_variations === null
        ? {}
        : {
            child_variations: JSON.parse(row.child_variations) as unknown,
            child_option_ids: childOptionIds(row.child_variations),
          }),
      ...prices.meta,
    },
  };
}

/**
 * A page of products as the shopper sees them, priced in one query, with `included` main
 * images and files (one query each) when asked; parents with their variations (one query when
 * the page has any: variations.ts), bundles with their components (bundle-views.ts: a few
 * when the page has any). `selection`: the shopper's choice for the page's one bundle
 * (`POST …/configure`).
 */
export function presentProducts(
  db: Db,
  request: FastifyRequest,
  release: PricingRelease,
  rows: readonly ReleaseProductRow[],
  now: number,
  selection?: Selection,
) {
  const currency = displayCurrency(request);
  const includes = productIncludes(request);
  const skus = rows.flatMap((r) => (r.sku === null ? [] : [r.sku]));
  const prices = releasePriceRecords(db, release, skus);
  const parts = (record: PriceRecord | undefined) => priceParts(record, currency, now);
  const present = (row: ReleaseProductRow, record: PriceRecord | undefined) =>
    presentProduct(release, row, parts(record));
  const data = rows.map((row) => present(row, row.sku === null ? undefined : prices.get(row.sku)));
  if (rows.some((row) => row.product_type === 'parent')) {
    const found = releaseVariations(
      db,
      release.id,
      rows.map((row) => row.id),
    );
    for (const shown of data) Object.assign(shown.meta, found.get(shown.id));
  }
  const components = presentBundles(db, release, rows, data, prices, {
    now,
    parts,
    present,
    ...(selection === undefined ? {} : { selection }),
  });
  const included: Record<string, unknown[]> = {};
  if (includes.has('component_products')) included.component_products = components;
  const filesOf = (ids: string[]) =>
    (
      cachedStatement(
        db,
        `SELECT id, store_id, file_name, mime_type, file_size, public, created_at, updated_at
         FROM files WHERE store_id = ? AND id IN (SELECT value FROM json_each(?))`,
      ).all(release.store_id, JSON.stringify([...new Set(ids)])) as FileRow[]
    ).map((f) => presentFile(request, f));
  if (includes.has('main_image')) {
    included.main_images = filesOf(rows.flatMap((r) => r.main_image_id ?? []));
  }
  if (includes.has('files')) {
    included.files = filesOf(rows.flatMap((r) => JSON.parse(r.files) as string[]));
  }
  return { data, included };
}
