/**
 * PXM products: their row, the attributes a write may carry (judged through request-body.ts),
 * and the response shape of production (`attributes`, `relationships`, `meta`).
 */
import type { Db } from '../db.ts';
import { badRequest, conflict, unprocessable } from '../errors.ts';
import { isUuid } from '../ids.ts';
import {
  isObject,
  type JsonObject,
  optionalEnum,
  optionalString,
  optionalStringList,
  optionalText,
  rejectUnknownKeys,
  requireEnum,
} from '../request-body.ts';
import { readIdentifier } from '../resource-body.ts';
import {
  ATTRIBUTES,
  OWNER,
  PRODUCT_SLUG,
  parseJson,
  readLocales,
  relationshipData,
} from './common.ts';

export interface ProductRow {
  id: string;
  store_id: string;
  name: string;
  commodity_type: 'physical' | 'digital';
  sku: string | null;
  slug: string | null;
  status: 'draft' | 'live';
  description: string | null;
  upc_ean: string | null;
  mpn: string | null;
  external_ref: string | null;
  tags: string;
  extra: string;
  product_type: 'standard' | 'parent' | 'child' | 'bundle';
  parent_id: string | null;
  child_key: string | null;
  detached_from: string | null;
  child_variations: string | null;
  price_modifiers: string;
  main_image_id: string | null;
  files: string;
  created_at: string;
  updated_at: string;
}

/** Attributes kept in the `extra` JSON column: stored as given once judged. */
const EXTRA_KEYS = ['locales', 'extensions', 'custom_inputs', 'build_rules', 'components'] as const;
type ExtraKey = (typeof EXTRA_KEYS)[number];
export type ProductExtra = Partial<Record<ExtraKey, unknown>>;

const TEXT_COLUMNS = ['name', 'sku', 'slug', 'description', 'upc_ean', 'mpn', 'external_ref'];
const ALLOWED = [
  ...TEXT_COLUMNS,
  'commodity_type',
  'status',
  'tags',
  'manufacturer_part_num',
  ...EXTRA_KEYS,
];

/** What a product write sets: the columns it changes (null clears) and the extra members. */
export interface ProductInput {
  columns: Partial<Record<string, string | null>>;
  tags?: string[];
  extra: ProductExtra;
  /** `relationships.variations`, when given: variation ids in order. */
  variations?: string[];
  mainImage?: string | null;
  files?: string[];
}

function readBuildRules(value: unknown): JsonObject | null {
  const source = `${ATTRIBUTES}.build_rules`;
  if (value === null) return null;
  if (!isObject(value))
    throw badRequest(`${source} must be an object {default, include, exclude}.`, source);
  rejectUnknownKeys(value, ['default', 'include', 'exclude'], source);
  const rules: JsonObject = {
    default: requireEnum(value, 'default', ['include', 'exclude'], source),
  };
  for (const key of ['include', 'exclude'] as const) {
    const list = value[key];
    if (list === undefined || list === null) continue;
    const at = `${source}.${key}`;
    const ok =
      Array.isArray(list) &&
      list.length <= 1000 &&
      list.every(
        (combo) =>
          Array.isArray(combo) &&
          combo.length > 0 &&
          combo.every((id) => typeof id === 'string' && isUuid(id)),
      );
    if (!ok) throw badRequest(`${at} must be a list of lists of option ids.`, at);
    rules[key] = (list as string[][]).map((combo) => combo.map((id) => id.toLowerCase()));
  }
  return rules;
}

/** An object of objects (extensions, custom_inputs, components), stored as given. */
function readObjectOfObjects(value: unknown, key: string): JsonObject | null {
  const source = `${ATTRIBUTES}.${key}`;
  if (value === null) return null;
  if (!isObject(value) || !Object.values(value).every(isObject)) {
    throw badRequest(`${source} must be an object whose values are objects.`, source);
  }
  if (JSON.stringify(value).length > 65_536) {
    throw badRequest(`${source} is larger than 64 KiB.`, source);
  }
  return value;
}

/**
 * The attributes and relationships of a product write. On create `name` and `commodity_type`
 * are required (the notes' reading of production); on update every attribute is optional and
 * null clears an optional one.
 */
export function readProductInput(
  attributes: JsonObject,
  relationships: JsonObject,
  creating: boolean,
): ProductInput {
  rejectUnknownKeys(attributes, ALLOWED, ATTRIBUTES);
  const prefix = ATTRIBUTES;
  const columns: ProductInput['columns'] = {};
  const text = (key: string, value: string | undefined) => {
    if (value !== undefined) columns[key] = value;
    else if (attributes[key] === null && key !== 'name') columns[key] = null;
  };
  if (creating || attributes.name !== undefined) {
    const name = optionalText(attributes, 'name', { prefix });
    if (name === undefined) throw badRequest(`${prefix}.name is required.`, `${prefix}.name`);
    columns.name = name;
  }
  if (creating || attributes.commodity_type !== undefined) {
    columns.commodity_type = requireEnum(
      attributes,
      'commodity_type',
      ['physical', 'digital'],
      prefix,
    );
  }
  const status = optionalEnum(attributes, 'status', ['draft', 'live'], prefix);
  if (status !== undefined || creating) columns.status = status ?? 'draft';
  text('sku', optionalText(attributes, 'sku', { prefix }));
  text(
    'slug',
    optionalString(attributes, 'slug', { prefix, min: 1, max: 255, pattern: PRODUCT_SLUG }),
  );
  text('description', optionalString(attributes, 'description', { prefix, max: 65_535 }));
  text('upc_ean', optionalText(attributes, 'upc_ean', { prefix }));
  // The catalog's name for mpn; accepted on writes too.
  const mpn =
    optionalText(attributes, 'mpn', { prefix }) ??
    optionalText(attributes, 'manufacturer_part_num', { prefix });
  if (mpn !== undefined) columns.mpn = mpn;
  else if (attributes.mpn === null || attributes.manufacturer_part_num === null) columns.mpn = null;
  text('external_ref', optionalString(attributes, 'external_ref', { prefix, max: 2048 }));

  const input: ProductInput = { columns, extra: {} };
  if (attributes.tags === null) input.tags = [];
  const tags = optionalStringList(attributes, 'tags', {
    prefix,
    maxItems: 20,
    item: { min: 1, max: 255, pattern: /^[^\s,]+$/ },
  });
  if (tags !== undefined) input.tags = [...new Set(tags)];
  const locales = readLocales(attributes);
  if (locales !== undefined) input.extra.locales = locales;
  for (const key of ['extensions', 'custom_inputs', 'components'] as const) {
    if (attributes[key] !== undefined) input.extra[key] = readObjectOfObjects(attributes[key], key);
  }
  if (attributes.build_rules !== undefined)
    input.extra.build_rules = readBuildRules(attributes.build_rules);

  rejectUnknownKeys(
    relationships,
    [
      'variations',
      'main_image',
      'files',
      'children',
      'component_products',
      'templates',
      'base_product',
    ],
    'data.relationships',
  );
  const variations = relationshipData(relationships, 'variations');
  if (variations !== undefined) {
    const source = 'data.relationships.variations.data';
    if (variations !== null && !Array.isArray(variations)) {
      throw badRequest(`${source} must be a list of {"type":"product-variation","id"}.`, source);
    }
    const list = (variations ?? []) as unknown[];
    if (list.length > 10) throw badRequest(`${source} may list at most 10 variations.`, source);
    input.variations = [
      ...new Set(list.map((v, i) => readIdentifier(v, 'product-variation', `${source}[${i}]`).id)),
    ];
  }
  const mainImage = relationshipData(relationships, 'main_image');
  if (mainImage !== undefined) {
    input.mainImage =
      mainImage === null
        ? null
        : readIdentifier(mainImage, ['file', 'main_image'], 'data.relationships.main_image.data')
            .id;
  }
  const files = relationshipData(relationships, 'files');
  if (files !== undefined) {
    const source = 'data.relationships.files.data';
    if (files !== null && !Array.isArray(files))
      throw badRequest(`${source} must be a list of {"type":"file","id"}.`, source);
    const list = (files ?? []) as unknown[];
    if (list.length > 100) throw badRequest(`${source} may list at most 100 files.`, source);
    input.files = [...new Set(list.map((f, i) => readIdentifier(f, 'file', `${source}[${i}]`).id))];
  }
  return input;
}

/** 409 when another product of the store has this SKU. */
export function checkSkuFree(db: Db, storeId: string, sku: string, exceptId?: string): void {
  const other = db
    .prepare('SELECT id FROM pcm_products WHERE store_id = ? AND sku = ?')
    .pluck()
    .get(storeId, sku) as string | undefined;
  if (other !== undefined && other !== exceptId) {
    throw conflict(
      `sku "${sku}" must be unique amongst products; product ${other} has it.`,
      `${ATTRIBUTES}.sku`,
    );
  }
}

/** 422 unless every id names a file of the store (`/v2/files`). */
export function checkFiles(db: Db, storeId: string, ids: string[], source: string): void {
  const found = db
    .prepare('SELECT id FROM files WHERE store_id = ? AND id IN (SELECT value FROM json_each(?))')
    .pluck()
    .all(storeId, JSON.stringify(ids)) as string[];
  const missing = ids.find((id) => !found.includes(id));
  if (missing !== undefined)
    throw unprocessable(`No file with id ${missing} in this store.`, source);
}

/** 422 unless every id names a variation of the store. */
export function checkVariations(db: Db, storeId: string, ids: string[]): void {
  const found = db
    .prepare(
      'SELECT id FROM pcm_variations WHERE store_id = ? AND id IN (SELECT value FROM json_each(?))',
    )
    .pluck()
    .all(storeId, JSON.stringify(ids)) as string[];
  const missing = ids.find((id) => !found.includes(id));
  if (missing !== undefined) {
    throw unprocessable(
      `No variation with id ${missing} in this store.`,
      'data.relationships.variations.data',
    );
  }
}

/** A product's variation ids, in their order. */
export function productVariationIds(db: Db, productId: string): string[] {
  return db
    .prepare(
      'SELECT variation_id FROM pcm_product_variations WHERE product_id = ? ORDER BY position',
    )
    .pluck()
    .all(productId) as string[];
}

/** Replaces a product's variations. */
export function setProductVariations(db: Db, productId: string, ids: string[]): void {
  db.prepare('DELETE FROM pcm_product_variations WHERE product_id = ?').run(productId);
  const insert = db.prepare(
    'INSERT INTO pcm_product_variations (product_id, variation_id, position) VALUES (?, ?, ?)',
  );
  for (const [position, id] of ids.entries()) insert.run(productId, id, position);
}

interface OptionRow {
  id: string;
  variation_id: string;
  name: string;
  description: string | null;
  sort_order: number | null;
}

/** `meta.variations` of a product with variations: each with its options. */
function variationsMeta(db: Db, ids: string[]) {
  return ids.map((id) => {
    const variation = db
      .prepare('SELECT id, name, sort_order FROM pcm_variations WHERE id = ?')
      .get(id) as { id: string; name: string; sort_order: number | null } | undefined;
    const options = db
      .prepare(
        'SELECT * FROM pcm_variation_options WHERE variation_id = ? ORDER BY sort_order DESC, created_at, id',
      )
      .all(id) as unknown as OptionRow[];
    return {
      id,
      name: variation?.name ?? '',
      ...(variation?.sort_order == null ? {} : { sort_order: variation.sort_order }),
      options: options.map((o) => ({
        id: o.id,
        name: o.name,
        description: o.description ?? '',
        ...(o.sort_order === null ? {} : { sort_order: o.sort_order }),
      })),
    };
  });
}

/** `meta.variation_matrix`: option id → (option id → …) → child product id. */
function variationMatrix(db: Db, productId: string): JsonObject {
  const children = db
    .prepare('SELECT id, child_variations FROM pcm_products WHERE parent_id = ?')
    .all(productId) as { id: string; child_variations: string | null }[];
  const matrix: JsonObject = {};
  for (const child of children) {
    const path = (parseJson<{ option: { id: string } }[]>(child.child_variations) ?? []).map(
      (v) => v.option.id,
    );
    let level = matrix;
    path.forEach((optionId, i) => {
      if (i === path.length - 1) level[optionId] = child.id;
      else {
        const next = isObject(level[optionId]) ? (level[optionId] as JsonObject) : {};
        level[optionId] = next;
        level = next;
      }
    });
  }
  return matrix;
}

/** The product as the PXM API answers it. */
export function presentProduct(db: Db, row: ProductRow) {
  const extra = JSON.parse(row.extra) as ProductExtra;
  const files = JSON.parse(row.files) as string[];
  const variationIds = row.product_type === 'child' ? [] : productVariationIds(db, row.id);
  const self = `/products/${row.id}`;
  const attributes: JsonObject = {
    name: row.name,
    commodity_type: row.commodity_type,
    status: row.status,
  };
  for (const key of ['sku', 'slug', 'description', 'upc_ean', 'mpn', 'external_ref'] as const) {
    if (row[key] !== null) attributes[key] = row[key];
  }
  const tags = JSON.parse(row.tags) as string[];
  if (tags.length > 0) attributes.tags = tags;
  for (const key of EXTRA_KEYS) if (extra[key] != null) attributes[key] = extra[key];
  const meta: JsonObject = {
    created_at: row.created_at,
    updated_at: row.updated_at,
    owner: OWNER,
    product_types: [row.product_type],
  };
  if (variationIds.length > 0) {
    meta.variations = variationsMeta(db, variationIds);
    meta.variation_matrix = variationMatrix(db, row.id);
  }
  if (row.product_type === 'child') {
    meta.variation_matrix = {};
    meta.child_variations = parseJson(row.child_variations) ?? [];
  }
  return {
    id: row.id,
    type: 'product',
    attributes,
    relationships: {
      ...(row.parent_id === null
        ? {}
        : { base_product: { data: { type: 'product', id: row.parent_id } } }),
      children: { data: [], links: { self: `${self}/children` } },
      component_products: { data: [], links: { self: `${self}/relationships/component_products` } },
      files: {
        data: files.map((id) => ({ type: 'file', id })),
        links: { self: `${self}/relationships/files` },
      },
      main_image: {
        data: row.main_image_id === null ? null : { type: 'file', id: row.main_image_id },
      },
      templates: { data: [], links: { self: `${self}/relationships/templates` } },
      variations: {
        data: variationIds.map((id) => ({ type: 'product-variation', id })),
        links: { self: `${self}/relationships/variations` },
      },
    },
    meta,
  };
}

/** Merges an input's extra members into a stored `extra` (null removes one). */
export function mergeExtra(current: string, input: ProductExtra): string {
  const merged: JsonObject = { ...(JSON.parse(current) as JsonObject) };
  for (const [key, value] of Object.entries(input)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return JSON.stringify(merged);
}
