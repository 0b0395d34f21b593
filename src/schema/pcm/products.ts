/**
 * The merchandiser's catalog (Product Experience Manager, `/pcm`): products, hierarchies and
 * their nodes, as described resources with offset-only connections (PXM lists have no `sort`;
 * past 10,000 they are still served). Named `Pcm…` beside the shopper's `Product`,
 * `Hierarchy` and `CatalogNode`, which read the published catalog instead.
 *
 * Nodes are described at `/pcm/hierarchies/nodes` (every node of the store, which filters on
 * `in(id,…)`) and listed at the paths of their hierarchy, parent and product; their hierarchy id
 * comes from `meta.hierarchy_id`.
 */
import { isJsonObject, type JsonObject } from '../../upstream/client.ts';
import { builder } from '../builder.ts';
import { eqInFilter, type FilterDescription } from '../connection.ts';
import { defineResource, field } from '../resource.ts';
import { judgeSku } from './judges.ts';

/** Written as `LIVE` and read back as `LIVE` (the API's `live`). */
export const PcmProductStatus = builder.enumType('PcmProductStatus', {
  description: 'Whether a product is published with its catalogs.',
  values: {
    DRAFT: { value: 'draft', description: 'Not published.' },
    LIVE: { value: 'live', description: 'Published with the next release of its catalogs.' },
  },
});

export const CommodityType = builder.enumType('CommodityType', {
  description: 'Whether a product ships.',
  values: {
    PHYSICAL: { value: 'physical', description: 'Shipped.' },
    DIGITAL: { value: 'digital', description: 'Not shipped.' },
  },
});

const idIn: FilterDescription = {
  attr: 'id',
  type: 'ID',
  ops: ['eq', 'in'],
  description: 'On the upstream id.',
};

/** The first of `meta.product_types` (standard, parent, child, bundle). */
export function productType(row: JsonObject): string {
  const types = isJsonObject(row.meta) ? row.meta.product_types : undefined;
  return Array.isArray(types) && typeof types[0] === 'string' ? types[0] : 'standard';
}

/** The parent of a child product: `relationships.base_product.data.id`. */
function parentId(row: JsonObject): string | null {
  const relationships = isJsonObject(row.relationships) ? row.relationships : {};
  const base = relationships.base_product;
  const data = isJsonObject(base) ? base.data : undefined;
  return isJsonObject(data) && typeof data.id === 'string' ? data.id : null;
}

export const PcmProducts = defineResource({
  name: 'PcmProduct',
  singular: 'product',
  plural: 'products',
  label: 'pcm_product',
  description:
    'A product as the merchandiser manages it (Product Experience Manager): drafts included, ' +
    'before any catalog is published. Shoppers see `Product`, from the published catalog.',
  path: '/pcm/products',
  body: 'nested',
  timestamps: 'meta',
  readableBy: ['client_credentials'],
  fields: {
    name: field.string('Name.'),
    sku: field.string('Stock keeping unit, unique in the store.', { nullable: true }),
    slug: field.string('Slug (a parent’s may hold `{option}` parts).', { nullable: true }),
    description: field.string('Description.', { nullable: true }),
    status: field.enum(PcmProductStatus, 'DRAFT or LIVE: only live products are published.'),
    commodityType: field.enum(CommodityType, 'PHYSICAL or DIGITAL.'),
    productType: field.string('`standard`, `parent` (has variations), `child` or `bundle`.', {
      read: productType,
    }),
    parentId: field.id('The parent product of a child product (upstream id).', {
      nullable: true,
      read: parentId,
    }),
    upcEan: field.string('UPC or EAN code.', { nullable: true }),
    mpn: field.string('Manufacturer part number.', { nullable: true }),
    externalRef: field.string('Reference in another system.', { nullable: true }),
  },
  lookup: { field: 'pcmProduct' },
  list: {
    field: 'pcmProducts',
    description: 'The products of the store, drafts included (Product Experience Manager).',
    connection: 'pcm-products',
    paging: 'offset',
    offsetLimit: 'soft',
    filters: {
      id: idIn,
      sku: eqInFilter('sku', 'On the SKU.'),
      slug: eqInFilter('slug', 'On the slug.'),
      name: eqInFilter('name', 'On the name.'),
      status: eqInFilter('status', 'On the status (`draft`, `live`).'),
    },
  },
});

export const PcmHierarchies = defineResource({
  name: 'PcmHierarchy',
  singular: 'hierarchy',
  plural: 'hierarchies',
  label: 'pcm_hierarchy',
  description: 'A hierarchy (a category tree) as the merchandiser manages it.',
  path: '/pcm/hierarchies',
  body: 'nested',
  timestamps: 'meta',
  readableBy: ['client_credentials'],
  fields: {
    name: field.string('Name.'),
    slug: field.string('Slug.', { nullable: true }),
    description: field.string('Description.', { nullable: true }),
  },
  lookup: { field: 'pcmHierarchy' },
  list: {
    field: 'pcmHierarchies',
    description: 'The hierarchies of the store.',
    connection: 'pcm-hierarchies',
    paging: 'offset',
    offsetLimit: 'soft',
    filters: {
      id: idIn,
      name: eqInFilter('name', 'On the name.'),
      slug: eqInFilter('slug', 'On the slug.'),
    },
  },
});

export const PcmNodes = defineResource({
  name: 'PcmNode',
  singular: 'node',
  plural: 'nodes',
  label: 'pcm_node',
  description: 'A node of a hierarchy (a category) as the merchandiser manages it.',
  path: '/pcm/hierarchies/nodes',
  body: 'nested',
  timestamps: 'meta',
  readableBy: ['client_credentials'],
  fields: {
    name: field.string('Name, unique among its siblings.'),
    slug: field.string('Slug, unique among its siblings.', { nullable: true }),
    description: field.string('Description.', { nullable: true }),
    hierarchyId: field.id('The hierarchy it is in (upstream id).', { from: 'meta.hierarchy_id' }),
    sortOrder: field.int('Higher first among its siblings.', {
      from: 'meta.sort_order',
      nullable: true,
    }),
  },
  lookup: { field: 'pcmNode' },
  list: {
    field: 'pcmNodes',
    description: 'Every node of every hierarchy of the store.',
    connection: 'pcm-nodes',
    paging: 'offset',
    offsetLimit: 'soft',
    filters: {
      id: idIn,
      name: eqInFilter('name', 'On the name.'),
      slug: eqInFilter('slug', 'On the slug.'),
    },
  },
});

// The relations, once all three types exist (each refers to the others).
builder.objectFields(PcmProducts.ref, (t) => ({
  children: PcmProducts.connectionField(t, {
    description: 'A parent product’s children (built from its variations).',
    connection: 'pcm-product-children',
    at: {
      path: '/pcm/products/{productId}/children',
      params: (p) => ({ productId: p.upstreamId }),
    },
  }),
  nodes: PcmNodes.connectionField(t, {
    description: 'The nodes this product is attached to.',
    connection: 'pcm-product-nodes',
    at: { path: '/pcm/products/{productId}/nodes', params: (p) => ({ productId: p.upstreamId }) },
  }),
}));

builder.objectFields(PcmHierarchies.ref, (t) => ({
  nodes: PcmNodes.connectionField(t, {
    description: 'Every node of this hierarchy.',
    connection: 'pcm-hierarchy-nodes',
    at: {
      path: '/pcm/hierarchies/{hierarchyId}/nodes',
      params: (h) => ({ hierarchyId: h.upstreamId }),
    },
  }),
  children: PcmNodes.connectionField(t, {
    description: 'The top-level nodes of this hierarchy, higher sortOrder first.',
    connection: 'pcm-hierarchy-children',
    at: {
      path: '/pcm/hierarchies/{hierarchyId}/children',
      params: (h) => ({ hierarchyId: h.upstreamId }),
    },
  }),
}));

const nodePath = (node: { hierarchyId: string; upstreamId: string }) => ({
  hierarchyId: node.hierarchyId,
  nodeId: node.upstreamId,
});

builder.objectFields(PcmNodes.ref, (t) => ({
  children: PcmNodes.connectionField(t, {
    description: 'The nodes under this one, higher sortOrder first.',
    connection: 'pcm-node-children',
    at: { path: '/pcm/hierarchies/{hierarchyId}/nodes/{nodeId}/children', params: nodePath },
  }),
  products: PcmProducts.connectionField(t, {
    description: 'The products attached to this node, curated products first.',
    connection: 'pcm-node-products',
    at: { path: '/pcm/hierarchies/{hierarchyId}/nodes/{nodeId}/products', params: nodePath },
  }),
}));

builder.queryField('pcmProductBySku', (t) =>
  t.field({
    type: PcmProducts.ref,
    nullable: true,
    description:
      'One product by SKU; null when none has it. Lookups of one operation are batched into ' +
      'one `filter=in(sku,…)` call per 100 SKUs.',
    args: { sku: t.arg.string({ required: true, description: 'The SKU.' }) },
    resolve: async (_root, args, context) => {
      const row = await context
        .byAttributeLoader(['/pcm', 'products'], 'sku')
        .load(judgeSku(args.sku, 'sku'));
      return row === null ? null : PcmProducts.read(row);
    },
  }),
);
