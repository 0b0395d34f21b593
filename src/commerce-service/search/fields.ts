/**
 * The fields of a search document: what a product of a release contributes to the index
 * (strings for filters and facets, numbers for filters, sorts and facets, text for the
 * full-text tables), and how a field name in `filter_by`, `facet_by` or `sort_by` is read.
 *
 * Names are the document's own paths (a hit's `document` is the product as /catalog/products
 * shows it): `attributes.name`, `attributes.tags`, `meta.product_types`, `meta.search.nodes.name`,
 * `meta.search.categories.lvl0`…`lvl4` (hierarchy › node › child, as the reference storefront's
 * hierarchical menu reads them), `attributes.extensions.products(<template>).<field>` (also
 * `extensions.…`, as production's indexable fields spell them), prices
 * (`price.<CUR>.amount|float_price`; `price.amount|float_price` and
 * `meta.display_price.with_tax|without_tax.amount|float_price` are the request's display
 * currency), `created_at` and `updated_at` (seconds since the epoch), and the live stock
 * fields `meta.stock.available` and `meta.stock.in_stock` (stock-column.ts). A short form without
 * `attributes.` (`name`, `sku`, `tags`, …) is the same field.
 *
 * Production indexes only the extension fields an indexable-fields resource names; here every
 * extension field of a product is indexed (strings and booleans as strings, numbers as
 * numbers): there is no indexable-fields resource to configure.
 */
import type { ReleaseProductRow } from '../catalogs/views.ts';
import { STOCK_ALIASES, STOCK_AVAILABLE, STOCK_IN_STOCK } from './stock-column.ts';

/** Hierarchical category levels the index keeps (lvl0 is the hierarchy). */
export const CATEGORY_LEVELS = 5;

/** The string fields every document has (values may be absent). */
export const CORE_STRING_FIELDS = [
  'attributes.name',
  'attributes.sku',
  'attributes.slug',
  'attributes.commodity_type',
  'attributes.tags',
  'attributes.manufacturer_part_num',
  'attributes.upc_ean',
  'attributes.base_product',
  'meta.product_types',
  'meta.search.nodes.name',
  'meta.search.nodes.id',
  'meta.search.hierarchies.name',
  ...Array.from({ length: CATEGORY_LEVELS }, (_, i) => `meta.search.categories.lvl${i}`),
] as const;

/** Short names and older spellings → the field's name in the index. */
const ALIASES: Record<string, string> = {
  name: 'attributes.name',
  sku: 'attributes.sku',
  slug: 'attributes.slug',
  commodity_type: 'attributes.commodity_type',
  tags: 'attributes.tags',
  manufacturer_part_num: 'attributes.manufacturer_part_num',
  upc_ean: 'attributes.upc_ean',
  base_product: 'attributes.base_product',
  product_types: 'meta.product_types',
  'meta.bread_crumb_nodes': 'meta.search.nodes.id',
  created_at: 'created_at',
  'attributes.created_at': 'created_at',
  updated_at: 'updated_at',
  'attributes.updated_at': 'updated_at',
};

/** What a field name in a request refers to. */
export type FieldRef =
  | { kind: 'id' }
  | { kind: 'string'; name: string }
  | { kind: 'number'; name: string }
  | { kind: 'date'; name: 'created_at' | 'updated_at' }
  /** A price: `currency` undefined means the request's display currency. */
  | { kind: 'price'; currency: string | undefined; unit: 'amount' | 'float_price' }
  | { kind: 'relevance' };

const PRICE =
  /^(?:attributes\.)?price\.([A-Za-z]{3})\.(amount|float_price)$|^(?:price|meta\.display_price\.(?:with_tax|without_tax))\.(amount|float_price)$/;

/** The field a request names, or undefined when the index has no such field. */
export function resolveField(
  raw: string,
  known: { strings: ReadonlySet<string>; numbers: ReadonlySet<string> },
): FieldRef | undefined {
  if (raw === 'id') return { kind: 'id' };
  if (raw === '_text_match' || raw === 'relevance') return { kind: 'relevance' };
  const price = PRICE.exec(raw);
  if (price !== null) {
    const unit = (price[2] ?? price[3]) as 'amount' | 'float_price';
    return { kind: 'price', currency: price[1]?.toUpperCase(), unit };
  }
  let name = ALIASES[raw] ?? STOCK_ALIASES[raw] ?? raw;
  if (name.startsWith('attributes.extensions.')) name = name.slice('attributes.'.length);
  if (name === 'created_at' || name === 'updated_at') return { kind: 'date', name };
  // Stock is read live (stock-column.ts), not from the release's frozen columns.
  if (name === STOCK_IN_STOCK) return { kind: 'string', name };
  if (name === STOCK_AVAILABLE) return { kind: 'number', name };
  if (known.strings.has(name)) return { kind: 'string', name };
  if (known.numbers.has(name)) return { kind: 'number', name };
  return undefined;
}

/** Names of tree entries a product's document needs: nodes and hierarchies of the release. */
export interface TreeNames {
  nodes: Map<string, { name: string; hierarchyId: string }>;
  hierarchies: Map<string, string>;
}

/** One product's contribution to the index. */
export interface DocumentFields {
  strings: Map<string, string[]>;
  numbers: Map<string, number>;
  /** Text of the custom (extension) fields, for the full-text `custom` column. */
  customText: string;
}

function add(map: Map<string, string[]>, field: string, value: string) {
  const list = map.get(field);
  if (list === undefined) map.set(field, [value]);
  else if (!list.includes(value)) list.push(value);
}

/** The strings, numbers and custom text a product of the release indexes. */
export function documentFields(row: ReleaseProductRow, tree: TreeNames): DocumentFields {
  const strings = new Map<string, string[]>();
  const numbers = new Map<string, number>();
  const text: string[] = [];
  add(strings, 'attributes.name', row.name);
  if (row.sku !== null) add(strings, 'attributes.sku', row.sku);
  if (row.slug !== null) add(strings, 'attributes.slug', row.slug);
  add(strings, 'attributes.commodity_type', row.commodity_type);
  for (const tag of JSON.parse(row.tags) as string[]) add(strings, 'attributes.tags', tag);
  if (row.mpn !== null) add(strings, 'attributes.manufacturer_part_num', row.mpn);
  if (row.upc_ean !== null) add(strings, 'attributes.upc_ean', row.upc_ean);
  add(strings, 'attributes.base_product', String(row.product_type === 'parent'));
  add(strings, 'meta.product_types', row.product_type);
  const crumbs = JSON.parse(row.bread_crumbs) as Record<string, string[]>;
  for (const [nodeId, crumb] of Object.entries(crumbs)) {
    const node = tree.nodes.get(nodeId);
    if (node === undefined) continue;
    add(strings, 'meta.search.nodes.name', node.name);
    add(strings, 'meta.search.nodes.id', nodeId);
    const hierarchy = tree.hierarchies.get(node.hierarchyId);
    if (hierarchy === undefined) continue;
    add(strings, 'meta.search.hierarchies.name', hierarchy);
    // lvl0 "Departments", lvl1 "Departments > Kitchen", lvl2 "Departments > Kitchen > Tea", …
    const path = [hierarchy];
    add(strings, 'meta.search.categories.lvl0', hierarchy);
    for (const id of crumb) {
      const name = tree.nodes.get(id)?.name;
      if (name === undefined || path.length >= CATEGORY_LEVELS) break;
      path.push(name);
      add(strings, `meta.search.categories.lvl${path.length - 1}`, path.join(' > '));
    }
  }
  const extra = JSON.parse(row.extra) as { extensions?: unknown };
  const extensions = extra.extensions;
  if (typeof extensions === 'object' && extensions !== null && !Array.isArray(extensions)) {
    for (const [template, fields] of Object.entries(extensions)) {
      if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) continue;
      for (const [field, value] of Object.entries(fields as Record<string, unknown>)) {
        const name = `extensions.${template}.${field}`;
        if (typeof value === 'number' && Number.isFinite(value)) numbers.set(name, value);
        else if (typeof value === 'string') {
          add(strings, name, value);
          text.push(value);
        } else if (typeof value === 'boolean') add(strings, name, String(value));
        else if (Array.isArray(value)) {
          for (const item of value) {
            if (typeof item === 'string') {
              add(strings, name, item);
              text.push(item);
            }
          }
        }
      }
    }
  }
  return { strings, numbers, customText: text.join(' ') };
}
