/**
 * Variations, their options and the options' modifiers (`/pcm/variations…`): rows, the
 * attributes a write may carry, and the responses of production.
 */
import { badRequest } from '../errors.ts';
import {
  type JsonObject,
  optionalString,
  optionalText,
  rejectUnknownKeys,
  requireEnum,
  requireString,
} from '../request-body.ts';
import { ATTRIBUTES, OWNER, readSortOrder, SLUG } from './common.ts';

export interface VariationRow {
  id: string;
  store_id: string;
  name: string;
  sort_order: number | null;
  created_at: string;
  updated_at: string;
}

export interface OptionRow {
  id: string;
  store_id: string;
  variation_id: string;
  name: string;
  description: string | null;
  sort_order: number | null;
  created_at: string;
  updated_at: string;
}

export interface ModifierRow {
  id: string;
  store_id: string;
  option_id: string;
  modifier_type: string;
  body: string;
  created_at: string;
  updated_at: string;
}

/** A variation's or option's writable attributes: name, description (options), sort_order. */
export function readNamedAttributes(
  attributes: JsonObject,
  creating: boolean,
  withDescription: boolean,
): { name?: string; description?: string | null; sort_order?: number | null } {
  const allowed = withDescription ? ['name', 'description', 'sort_order'] : ['name', 'sort_order'];
  rejectUnknownKeys(attributes, allowed, ATTRIBUTES);
  const out: { name?: string; description?: string | null; sort_order?: number | null } = {};
  const name = optionalText(attributes, 'name', { prefix: ATTRIBUTES });
  if (name !== undefined) out.name = name;
  else if (creating || attributes.name === null) {
    throw badRequest(`${ATTRIBUTES}.name is required.`, `${ATTRIBUTES}.name`);
  }
  if (withDescription) {
    const description = optionalString(attributes, 'description', {
      prefix: ATTRIBUTES,
      max: 65_535,
    });
    if (description !== undefined) out.description = description;
    else if (attributes.description === null) out.description = null;
  }
  const sortOrder = readSortOrder(attributes, `${ATTRIBUTES}.sort_order`);
  if (sortOrder !== undefined) out.sort_order = sortOrder;
  return out;
}

function timestampsMeta(row: { created_at: string; updated_at: string }) {
  return { owner: OWNER, created_at: row.created_at, updated_at: row.updated_at };
}

export function presentOptionSummary(row: OptionRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description ?? '',
    ...(row.sort_order === null ? {} : { sort_order: row.sort_order }),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function presentVariation(row: VariationRow, options: OptionRow[]) {
  return {
    id: row.id,
    type: 'product-variation',
    attributes: {
      name: row.name,
      ...(row.sort_order === null ? {} : { sort_order: row.sort_order }),
    },
    meta: { options: options.map(presentOptionSummary), ...timestampsMeta(row) },
  };
}

export function presentOption(row: OptionRow) {
  return {
    id: row.id,
    type: 'product-variation-option',
    attributes: {
      name: row.name,
      description: row.description ?? '',
      ...(row.sort_order === null ? {} : { sort_order: row.sort_order }),
    },
    meta: timestampsMeta(row),
  };
}

export function presentModifier(row: ModifierRow) {
  return {
    id: row.id,
    type: 'product-variation-modifier',
    attributes: { type: row.modifier_type, ...(JSON.parse(row.body) as JsonObject) },
    meta: timestampsMeta(row),
  };
}

/** Modifiers whose `value` replaces, or is added before or after, a child's field. */
const FIELDS = ['name', 'description', 'sku', 'slug', 'upc_ean', 'mpn', 'external_ref'] as const;
export type ModifiedField = (typeof FIELDS)[number];
const VALUE_TYPES = FIELDS.flatMap((f) => [`${f}_equals`, `${f}_append`, `${f}_prepend`]);
const BUILDER_TYPES = ['sku_builder', 'slug_builder'];
export const MODIFIER_TYPES = [
  ...VALUE_TYPES,
  ...BUILDER_TYPES,
  'commodity_type',
  'status',
  'price',
] as const;

/**
 * A modifier's attributes: `type` and its own members — `value` (the *_equals, *_append,
 * *_prepend, commodity_type and status types), `seek` and `set` (sku_builder, slug_builder) or
 * `reference_name` (price: the name of a price book's price modifier, applied when the child
 * is priced). Returns the type and the members to store.
 */
export function readModifier(attributes: JsonObject): { type: string; body: JsonObject } {
  const prefix = ATTRIBUTES;
  // The docs' older form names the type `modifier_type`.
  const typed =
    attributes.type === undefined && attributes.modifier_type !== undefined
      ? { ...attributes, type: attributes.modifier_type, modifier_type: undefined }
      : attributes;
  const type = requireEnum(typed, 'type', MODIFIER_TYPES as unknown as string[], prefix);
  const slugLike = type.startsWith('slug_');
  if (BUILDER_TYPES.includes(type)) {
    rejectUnknownKeys(typed, ['type', 'modifier_type', 'seek', 'set'], prefix);
    const seek = requireString(typed, 'seek', { prefix, min: 1, max: 255 });
    const set = requireString(typed, 'set', {
      prefix,
      max: 255,
      ...(slugLike ? { pattern: SLUG } : {}),
    });
    return { type, body: { seek, set } };
  }
  if (type === 'price') {
    rejectUnknownKeys(typed, ['type', 'modifier_type', 'reference_name'], prefix);
    return {
      type,
      body: {
        reference_name: requireString(typed, 'reference_name', { prefix, min: 1, max: 255 }),
      },
    };
  }
  rejectUnknownKeys(typed, ['type', 'modifier_type', 'value'], prefix);
  if (type === 'commodity_type') {
    return { type, body: { value: requireEnum(typed, 'value', ['physical', 'digital'], prefix) } };
  }
  if (type === 'status')
    return { type, body: { value: requireEnum(typed, 'value', ['draft', 'live'], prefix) } };
  const value = requireString(typed, 'value', {
    prefix,
    max: type.startsWith('description') ? 65_535 : 255,
    ...(slugLike ? { pattern: SLUG } : {}),
  });
  return { type, body: { value } };
}

/** What a child product's fields become as its options' modifiers are applied in turn. */
export interface ChildFields {
  name: string;
  description: string | null;
  sku: string | null;
  slug: string | null;
  upc_ean: string | null;
  mpn: string | null;
  external_ref: string | null;
  commodity_type: 'physical' | 'digital';
  status: 'draft' | 'live';
  /** Fields some modifier set; a SKU or slug no modifier touched is not copied from the parent. */
  touched: Set<string>;
  priceModifiers: string[];
}

export function applyModifier(fields: ChildFields, type: string, body: JsonObject): void {
  if (type === 'price') {
    fields.priceModifiers.push(String(body.reference_name));
    return;
  }
  if (type === 'commodity_type') {
    fields.commodity_type = body.value as ChildFields['commodity_type'];
    return;
  }
  if (type === 'status') {
    fields.status = body.value as ChildFields['status'];
    return;
  }
  const field = type.slice(0, type.lastIndexOf('_')) as ModifiedField;
  const how = type.slice(type.lastIndexOf('_') + 1);
  const current = fields[field] ?? '';
  fields.touched.add(field);
  if (how === 'builder') {
    fields[field] = current.split(String(body.seek)).join(String(body.set));
    return;
  }
  const value = String(body.value);
  fields[field] = how === 'equals' ? value : how === 'append' ? current + value : value + current;
}
