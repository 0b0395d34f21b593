/**
 * The merchandiser's writes on products, hierarchies and nodes (described once each:
 * ./writes.ts builds the inputs, bodies and mutations), and attaching products to a node.
 */
import { BadUserInputError } from '../../upstream/errors.ts';
import { builder } from '../builder.ts';
import { idKind, idListInput, judgeId, judgeIdList, optionalIdInput } from '../kit/ids.ts';
import { defineMutation, type IdFields, idFieldsOf } from '../kit/mutation.ts';
import { attribute, defineWrites, payloadOf, write } from '../kit/writes.ts';
import {
  judgeDescription,
  judgeInt32,
  judgeList,
  judgeName,
  judgeProductSlug,
  judgeRef,
  judgeSku,
  judgeSlug,
} from './judges.ts';
import {
  CommodityType,
  PcmHierarchies,
  PcmNodes,
  PcmProductStatus,
  PcmProducts,
} from './products.ts';

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
  create: 'Creates a product, a draft by default',
  update: 'Changes a product; a child product changed directly leaves its parent',
  delete:
    'Deletes a product, and a parent’s children with it; its published releases keep it until the next publish',
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
  create: 'Creates a hierarchy, a category tree',
  update: 'Changes a hierarchy',
  delete: 'Deletes a hierarchy with its nodes',
});

defineWrites({
  resource: PcmNodes,
  field: 'node',
  type: 'node',
  params: { hierarchyId: [idKind('PcmHierarchy'), 'The hierarchy'] },
  attributes: {
    name: attribute.string('name', 'Name, unique among its siblings.', judgeName, true),
    slug: attribute.string('slug', 'Slug, unique among its siblings.', judgeSlug),
    description: attribute.string('description', 'Description.', judgeDescription),
    sortOrder: attribute.int('sort_order', 'Higher first among siblings.', judgeInt32, 'meta'),
  },
  extra: {
    fields: (t) => ({
      parentId: optionalIdInput(
        t,
        idKind('PcmNode'),
        'The node to create it under (top level when not given)',
      ),
    }),
    body: (input, data) => {
      const parent = input.parentId;
      if (typeof parent !== 'string') return;
      data.relationships = {
        parent: {
          data: { type: 'node', id: judgeId(parent, 'input.parentId', idKind('PcmNode')) },
        },
      };
    },
  },
  path: ({ hierarchyId }) => ['/pcm', 'hierarchies', hierarchyId as string, 'nodes'],
  create: 'Creates a node of a hierarchy, at its top level or under another node',
  update: 'Changes a node',
  delete: 'Deletes a node; its children go with it, its products stay',
});

// ---- a node's products ----

const nodePayload = payloadOf(PcmNodes, 'node', 'The node as written.');

const NODE_IDS = {
  hierarchyId: [idKind('PcmHierarchy'), 'The hierarchy'],
  nodeId: [idKind('PcmNode'), 'The node'],
} as const satisfies IdFields<'hierarchyId' | 'nodeId'>;

// One input type for both writes (the released schema's name).
const NodeProductsInput = builder.inputType('PcmNodeProductsInput', {
  description: 'Products to attach to, or detach from, a node.',
  fields: (t) => ({
    ...idFieldsOf(t, NODE_IDS),
    productIds: idListInput(t, idKind('PcmProduct'), '1 to 100 products'),
  }),
});

for (const [field, method, description] of [
  ['attachPcmNodeProducts', 'POST', 'Attaches products to a node (attached ones stay).'],
  ['detachPcmNodeProducts', 'DELETE', 'Detaches products from a node.'],
] as const) {
  defineMutation(field, {
    description,
    ids: NODE_IDS,
    input: NodeProductsInput,
    payload: nodePayload,
    resolve: (input, context, { hierarchyId, nodeId }) => {
      const ids = judgeIdList(input.productIds, 'input.productIds', idKind('PcmProduct'), {
        min: 1,
        max: 100,
      });
      const segments = ['/pcm', 'hierarchies', hierarchyId, 'nodes', nodeId];
      return write(context, method, [...segments, 'relationships', 'products'], {
        data: ids.map((id) => ({ type: 'product', id })),
      });
    },
  });
}
