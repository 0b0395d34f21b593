/**
 * The merchandiser's writes on products, hierarchies and nodes (described once each:
 * ./writes.ts builds the inputs, bodies and mutations), and attaching products to a node.
 */
import { BadUserInputError } from '../../upstream/errors.ts';
import { builder } from '../builder.ts';
import { judgeUuid } from '../rows.ts';
import {
  judgeDescription,
  judgeIds,
  judgeInt32,
  judgeList,
  judgeName,
  judgeProductSlug,
  judgeRef,
  judgeSku,
  judgeSlug,
} from './judges.ts';
import { PcmHierarchies, PcmNodes, PcmProducts } from './products.ts';
import { attribute, defineWrites, payloadOf, write } from './writes.ts';

const PcmProductStatus = builder.enumType('PcmProductStatus', {
  description: 'Whether a product is published with its catalogs.',
  values: {
    DRAFT: { value: 'draft', description: 'Not published.' },
    LIVE: { value: 'live', description: 'Published with the next release of its catalogs.' },
  },
});

const CommodityType = builder.enumType('CommodityType', {
  description: 'Whether a product ships.',
  values: {
    PHYSICAL: { value: 'physical', description: 'Shipped.' },
    DIGITAL: { value: 'digital', description: 'Not shipped.' },
  },
});

const TAG = /^[^\s,]{1,255}$/;
const judgeTag = (value: string, field: string) => {
  if (!TAG.test(value)) {
    throw new BadUserInputError(`${field} must be 1-255 characters without spaces or commas`, {
      field,
    });
  }
  return value;
};
const judgeLongText = (value: string, field: string) => {
  if (value.length > 65_535) {
    throw new BadUserInputError(`${field} must be at most 65535 characters`, { field });
  }
  return value;
};

defineWrites({
  resource: PcmProducts,
  field: 'product',
  type: 'product',
  attributes: {
    name: attribute.string('name', 'Name.', judgeName, true),
    commodityType: attribute.enum('commodity_type', 'Physical or digital.', CommodityType, true),
    status: attribute.enum('status', 'Draft (default) or live.', PcmProductStatus),
    sku: attribute.string('sku', 'SKU, unique in the store.', judgeSku),
    slug: attribute.string('slug', 'Slug.', judgeProductSlug),
    description: attribute.string('description', 'Description.', judgeLongText),
    upcEan: attribute.string('upc_ean', 'UPC or EAN code.', judgeRef),
    mpn: attribute.string('mpn', 'Manufacturer part number.', judgeRef),
    externalRef: attribute.string('external_ref', 'Reference in another system.', judgeRef),
    tags: attribute.strings('tags', 'Tags (at most 20).', (tags, field) =>
      judgeList(tags, field, 20, judgeTag),
    ),
  },
  collection: () => ['/pcm', 'products'],
  item: (_params, id) => ['/pcm', 'products', id],
  create: { field: 'createPcmProduct', description: 'Creates a product (a draft by default).' },
  update: {
    field: 'updatePcmProduct',
    description: 'Changes a product. A child product changed directly leaves its parent.',
  },
});

defineWrites({
  resource: PcmHierarchies,
  field: 'hierarchy',
  type: 'hierarchy',
  attributes: {
    name: attribute.string('name', 'Name.', judgeName, true),
    slug: attribute.string('slug', 'Slug.', judgeSlug),
    description: attribute.string('description', 'Description.', judgeLongText),
  },
  collection: () => ['/pcm', 'hierarchies'],
  item: (_params, id) => ['/pcm', 'hierarchies', id],
  create: { field: 'createPcmHierarchy', description: 'Creates a hierarchy (a category tree).' },
  update: { field: 'updatePcmHierarchy', description: 'Changes a hierarchy.' },
});

defineWrites({
  resource: PcmNodes,
  field: 'node',
  type: 'node',
  params: { hierarchyId: 'Upstream id of the hierarchy.' },
  attributes: {
    name: attribute.string('name', 'Name, unique among its siblings.', judgeName, true),
    slug: attribute.string('slug', 'Slug, unique among its siblings.', judgeSlug),
    description: attribute.string('description', 'Description.', judgeDescription),
    sortOrder: attribute.int('sort_order', 'Higher first among siblings.', judgeInt32, 'meta'),
  },
  extra: {
    fields: (t) => ({
      parentId: t.id({
        required: false,
        description: 'The node to create it under (upstream id); top level when not given.',
      }),
    }),
    body: (input, data) => {
      const parent = input.parentId;
      if (typeof parent !== 'string') return;
      data.relationships = {
        parent: { data: { type: 'node', id: judgeUuid(parent, 'input.parentId') } },
      };
    },
  },
  collection: ({ hierarchyId }) => ['/pcm', 'hierarchies', hierarchyId as string, 'nodes'],
  item: ({ hierarchyId }, id) => ['/pcm', 'hierarchies', hierarchyId as string, 'nodes', id],
  create: {
    field: 'createPcmNode',
    description: 'Creates a node of a hierarchy, at its top level or under another node.',
  },
  update: { field: 'updatePcmNode', description: 'Changes a node.' },
});

// ---- a node's products ----

const NodeProductsInput = builder.inputType('PcmNodeProductsInput', {
  description: 'Products to attach to, or detach from, a node.',
  fields: (t) => ({
    hierarchyId: t.id({ required: true, description: 'Upstream id of the hierarchy.' }),
    nodeId: t.id({ required: true, description: 'Upstream id of the node.' }),
    productIds: t.idList({ required: true, description: '1 to 100 products (upstream ids).' }),
  }),
});

const nodePayload = payloadOf(PcmNodes, 'node', 'The node as written.');

for (const [field, method, description] of [
  ['attachPcmNodeProducts', 'POST', 'Attaches products to a node (attached ones stay).'],
  ['detachPcmNodeProducts', 'DELETE', 'Detaches products from a node.'],
] as const) {
  builder.mutationField(field, (t) =>
    t.field({
      type: nodePayload,
      description,
      args: { input: t.arg({ type: NodeProductsInput, required: true, description: 'Which.' }) },
      resolve: (_root, { input }, context) => {
        const hierarchyId = judgeUuid(input.hierarchyId, 'input.hierarchyId');
        const nodeId = judgeUuid(input.nodeId, 'input.nodeId');
        const ids = judgeIds(input.productIds, 'input.productIds', 100, 1);
        const segments = ['/pcm', 'hierarchies', hierarchyId, 'nodes', nodeId];
        return write(context, method, [...segments, 'relationships', 'products'], {
          data: ids.map((id) => ({ type: 'product', id })),
        });
      },
    }),
  );
}
