/**
 * Stock (`/v2/inventories`): per product, total = available + allocated. The basic form's rows
 * carry no timestamps, which an offset list does not need; single rows are read from the item
 * path (the list does not filter on `in(id,…)`), and a product's `stock` is null when its stock
 * is not managed.
 */
import { builder } from '../builder.ts';
import { defineResource, field } from '../resource.ts';
import { PcmProducts } from './products.ts';

/** Basic stock rows have no timestamps: the planner's offset mode reads none. */
const NO_TIMESTAMP = () => '';

export const StockLevels = defineResource({
  name: 'StockLevel',
  singular: 'stock level',
  plural: 'stock levels',
  label: 'stock',
  description: 'The stock of one product: total = available + allocated (held by orders).',
  path: '/v2/inventories',
  item: '/v2/inventories/{id}',
  lookupBy: 'item',
  body: 'flat',
  timestamps: 'meta.timestamps',
  readableBy: ['client_credentials'],
  fields: {
    upstreamId: field.id('The product id (stock is keyed by product).'),
    total: field.int('Units in stock.'),
    available: field.int('Units that can be sold.'),
    allocated: field.int('Units held by unpaid or unshipped orders.'),
    createdAt: field.carried(NO_TIMESTAMP),
    updatedAt: field.carried(NO_TIMESTAMP),
  },
  lookup: {
    field: 'stockLevel',
    description: 'The stock of one product (by product id); null when its stock is not managed.',
  },
  list: {
    field: 'stockLevels',
    description: 'The stock of every product whose stock is managed.',
    connection: 'inventories',
    paging: 'offset',
    offsetLimit: 'soft',
  },
});

builder.objectField(PcmProducts.ref, 'stock', (t) =>
  t.field({
    type: StockLevels.ref,
    nullable: true,
    description: 'Its stock; null when its stock is not managed (one GET).',
    resolve: (product, _args, context) => StockLevels.load(context, product.upstreamId),
    extensions: { upstreamCalls: 1 },
  }),
);
