/**
 * The list specs of the PXM lists (listing.ts serves them all): which attributes each filters
 * on with which operators, as production documents them (v2-catalog-notes §2, §4). PXM lists
 * document no `sort`; they keep the standard created_at/updated_at/id sorts (a superset), except
 * where production fixes the order: a node's children (sort_order desc, then updated_at desc)
 * and a node's products (curated first).
 */
import { type ListAttribute, type ListSpec, standardListSpec } from '../listing/index.ts';

const text = (column: string, ops: ListAttribute['ops'] = ['eq', 'in', 'like']): ListAttribute => ({
  column,
  kind: 'string',
  ops,
});
const id = (column: string): ListAttribute => ({
  column,
  kind: 'id',
  ops: ['eq', 'in', 'lt', 'le', 'gt', 'ge'],
});

/** Products: GET /pcm/products, a product's children, a node's products. */
export const PRODUCT_FILTERS: Record<string, ListAttribute> = {
  sku: text('sku'),
  slug: text('slug'),
  name: text('name'),
  upc_ean: text('upc_ean'),
  manufacturer_part_num: text('mpn'),
  mpn: text('mpn'),
  description: text('description', ['eq', 'like']),
  external_ref: text('external_ref', ['eq', 'in', 'like', 'lt', 'le', 'gt', 'ge']),
  status: text('status', ['eq', 'in']),
  commodity_type: text('commodity_type', ['eq', 'in']),
  product_types: text('product_type', ['eq', 'in']),
  parent_id: id('parent_id'),
  tags: { ...text('tags'), array: true },
};

export const productListSpec: ListSpec = standardListSpec({ filters: PRODUCT_FILTERS });

/** A node's products: curated first (in curated order), then newest first. */
export const nodeProductListSpec: ListSpec = {
  ...standardListSpec({ filters: PRODUCT_FILTERS }),
  sorts: { list_order: 'list_order' },
  defaultSort: '-list_order',
};

/** Hierarchies. */
export const hierarchyListSpec: ListSpec = standardListSpec({
  filters: {
    name: text('name'),
    slug: text('slug'),
    description: text('description', ['eq', 'like']),
  },
});

const NODE_FILTERS: Record<string, ListAttribute> = {
  name: text('name'),
  slug: text('slug'),
  description: text('description', ['eq', 'like']),
  hierarchy_id: id('hierarchy_id'),
  parent_id: id('parent_id'),
};

/** Nodes of a hierarchy, of the store, of a product. */
export const nodeListSpec: ListSpec = standardListSpec({ filters: NODE_FILTERS });

/** A node's (or a hierarchy's top-level) children: sort_order desc, then updated_at desc. */
export const childNodeListSpec: ListSpec = {
  ...standardListSpec({ filters: NODE_FILTERS }),
  sorts: { sort_order: 'child_order' },
  defaultSort: '-sort_order',
};

/** Variations, options, modifiers, jobs: the standard attributes, plus their names. */
export const namedListSpec: ListSpec = standardListSpec({ filters: { name: text('name') } });
export const plainListSpec: ListSpec = standardListSpec();
