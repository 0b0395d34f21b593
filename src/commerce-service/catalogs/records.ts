/**
 * Catalogs, catalog rules and releases as stored and as the API shows them (nested
 * `{id, type, attributes, relationships, meta}`), and finding one by its path ids: a path id
 * that is not a uuid, another store's or a missing one is a 404.
 */
import { cachedStatement, type Db } from '../db.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import type { PricebookPriority } from '../pricebooks/resolve.ts';
import type { RuleSchedule } from './bodies.ts';

export interface CatalogRow {
  id: string;
  store_id: string;
  name: string;
  description: string | null;
  hierarchy_ids: string;
  pricebooks: string;
  single_pricebook: number;
  extra: string;
  created_at: string;
  updated_at: string;
}

export interface RuleRow {
  id: string;
  store_id: string;
  name: string;
  catalog_id: string;
  description: string | null;
  account_ids: string;
  account_tag_ids: string;
  customer_ids: string;
  channels: string;
  tags: string;
  schedules: string;
  pricebook_ids: string;
  created_at: string;
  updated_at: string;
}

export interface ReleaseRow {
  id: string;
  store_id: string;
  catalog_id: string;
  name: string;
  description: string | null;
  hierarchies: string;
  pricebooks: string;
  release_status: string;
  total_products: number;
  total_nodes: number;
  published_at: string;
  created_at: string;
  updated_at: string;
}

export const OWNER = 'store';

export function catalogPricebooks(row: Pick<CatalogRow, 'pricebooks'>): PricebookPriority[] {
  return JSON.parse(row.pricebooks) as PricebookPriority[];
}

export function findCatalog(db: Db, storeId: string, id: string): CatalogRow {
  const row = isUuid(id)
    ? (cachedStatement(db, 'SELECT * FROM catalogs WHERE store_id = ? AND id = ?').get(
        storeId,
        id.toLowerCase(),
      ) as CatalogRow | undefined)
    : undefined;
  if (!row) throw notFound(`No catalog with id ${id}.`);
  return row;
}

export function findRule(db: Db, storeId: string, id: string): RuleRow {
  const row = isUuid(id)
    ? (cachedStatement(db, 'SELECT * FROM catalog_rules WHERE store_id = ? AND id = ?').get(
        storeId,
        id.toLowerCase(),
      ) as RuleRow | undefined)
    : undefined;
  if (!row) throw notFound(`No catalog rule with id ${id}.`);
  return row;
}

/** Aliases of the newest published release: `latest` (older docs) and `latestPublished`. */
const LATEST = new Set(['latest', 'latestpublished']);

/** A release of `catalog` by id or by the `latest`/`latestPublished` alias. */
export function findRelease(db: Db, catalog: CatalogRow, id: string): ReleaseRow {
  let row: ReleaseRow | undefined;
  if (LATEST.has(id.toLowerCase())) {
    row = cachedStatement(
      db,
      `SELECT * FROM catalog_releases WHERE store_id = ? AND catalog_id = ?
       ORDER BY created_at DESC, id DESC LIMIT 1`,
    ).get(catalog.store_id, catalog.id) as ReleaseRow | undefined;
  } else if (isUuid(id)) {
    row = cachedStatement(
      db,
      'SELECT * FROM catalog_releases WHERE store_id = ? AND catalog_id = ? AND id = ?',
    ).get(catalog.store_id, catalog.id, id.toLowerCase()) as ReleaseRow | undefined;
  }
  if (!row) throw notFound(`No release ${id} of catalog ${catalog.id}.`);
  return row;
}

export function presentCatalog(db: Db, row: CatalogRow) {
  const extra = JSON.parse(row.extra) as Record<string, unknown>;
  const books = catalogPricebooks(row);
  const releases = cachedStatement(
    db,
    'SELECT count(*) FROM catalog_releases WHERE store_id = ? AND catalog_id = ?',
  )
    .pluck()
    .get(row.store_id, row.id) as number;
  return {
    id: row.id,
    type: 'catalog',
    attributes: {
      name: row.name,
      ...(row.description === null ? {} : { description: row.description }),
      hierarchy_ids: JSON.parse(row.hierarchy_ids) as string[],
      ...(row.single_pricebook === 1
        ? books[0] === undefined
          ? {}
          : { pricebook_id: books[0].id }
        : { pricebook_ids: books }),
      ...extra,
      created_at: row.created_at,
      updated_at: row.updated_at,
      owner: OWNER,
    },
    relationships: {
      rules: { links: { related: `/catalogs/rules?filter=eq(catalog_id,${row.id})` } },
      releases: {
        links: { related: `/catalogs/${row.id}/releases` },
        meta: { count: releases },
      },
    },
  };
}

export function presentRule(row: RuleRow) {
  const list = (text: string) => JSON.parse(text) as string[];
  const schedules = JSON.parse(row.schedules) as RuleSchedule[];
  return {
    id: row.id,
    type: 'catalog_rule',
    attributes: {
      name: row.name,
      catalog_id: row.catalog_id,
      ...(row.description === null ? {} : { description: row.description }),
      account_ids: list(row.account_ids),
      account_tag_ids: list(row.account_tag_ids),
      customer_ids: list(row.customer_ids),
      channels: list(row.channels),
      tags: list(row.tags),
      schedules: schedules.map((s) => ({
        ...(s.valid_from === null ? {} : { valid_from: s.valid_from }),
        ...(s.valid_to === null ? {} : { valid_to: s.valid_to }),
      })),
      pricebook_ids: JSON.parse(row.pricebook_ids) as PricebookPriority[],
      created_at: row.created_at,
      updated_at: row.updated_at,
    },
  };
}

export function presentRelease(row: ReleaseRow) {
  const base = `/catalogs/${row.catalog_id}/releases/${row.id}`;
  return {
    id: row.id,
    type: 'catalog-release',
    attributes: {
      name: row.name,
      ...(row.description === null ? {} : { description: row.description }),
      catalog_id: row.catalog_id,
      published_at: row.published_at,
      hierarchies: JSON.parse(row.hierarchies) as unknown[],
    },
    relationships: {
      hierarchies: { links: { related: `${base}/hierarchies` } },
      products: { links: { related: `${base}/products` } },
    },
    meta: {
      created_at: row.created_at,
      started_at: row.created_at,
      updated_at: row.updated_at,
      release_status: row.release_status,
      is_full_publish: true,
      is_full_delta: true,
      total_products: row.total_products,
      total_nodes: row.total_nodes,
      percent_completed: 100,
      owner: OWNER,
    },
  };
}

/** A product of a release, as the release stores it (catalogs/views.ts presents it). */
export interface ReleaseProductRow {
  id: string;
  name: string;
  commodity_type: string;
  sku: string | null;
  slug: string | null;
  description: string | null;
  upc_ean: string | null;
  mpn: string | null;
  external_ref: string | null;
  tags: string;
  extra: string;
  product_type: string;
  parent_id: string | null;
  child_variations: string | null;
  price_modifiers: string;
  main_image_id: string | null;
  files: string;
  bread_crumbs: string;
  created_at: string;
  updated_at: string;
}
