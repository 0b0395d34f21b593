/**
 * The resolvers a compiled plan (./plan.ts) may call, besides exposed fields. Each is listed
 * because it reads its parent, arguments, context and the parts of `info` a plan gives exactly
 * as graphql-js does (fieldNodes, fragments, path, operation, parentType, returnType) and
 * nothing else: the root and relation fields make their upstream calls through the schema's
 * own planner, loaders and shared reads, so a compiled document sends the calls the ordinary
 * path sends. A field not listed here (and not exposed) keeps its document on the ordinary path.
 */
import type { GraphQLField, GraphQLObjectType, GraphQLSchema } from 'graphql';

/**
 * Field coordinates whose resolvers are described: the orders (src/schema/order.ts), the
 * shopper's catalog with its products, prices, stock, breadcrumbs and children
 * (src/schema/catalog/), and money (src/schema/money.ts).
 */
export const DESCRIBED_RESOLVERS: ReadonlySet<string> = new Set([
  // The upstream: a connection through the planner, a lookup through the batch loader.
  'Query.orders',
  'Query.order',
  'Query.catalog',
  'ShopperCatalog.products',
  'ShopperCatalog.product',
  'Product.price',
  'Product.stock',
  'Product.breadcrumbs',
  'Product.children',
  // Computed from the parent alone.
  'Order.total',
  'Order.totals',
  'Money.decimal',
  'Money.formatted',
  'CatalogPrice.amount',
  'CatalogPrice.withTax',
  'CatalogPrice.withoutTax',
  'CatalogPrice.original',
]);

/** A connection's and an edge's own fields (Pothos relay): `parent.edges` and the like. */
const RELAY_CONNECTION_FIELDS = new Set(['edges', 'nodes', 'pageInfo', 'totalCount', 'pinnedAt']);

function isConnection(type: GraphQLObjectType): boolean {
  const fields = type.getFields();
  return type.name.endsWith('Connection') && 'edges' in fields && 'pageInfo' in fields;
}

function isEdge(type: GraphQLObjectType): boolean {
  const fields = type.getFields();
  return type.name.endsWith('Edge') && 'node' in fields && 'cursor' in fields;
}

/** Whether a plan may call this field's own resolver. */
export function isDescribedResolver(
  schema: GraphQLSchema,
  type: GraphQLObjectType,
  field: GraphQLField<unknown, unknown>,
): boolean {
  if (DESCRIBED_RESOLVERS.has(`${type.name}.${field.name}`)) return true;
  if (field.name === 'id') {
    // The global id of a Node: base64 of `<Type>:<id>` (Pothos relay), from the parent alone.
    const node = schema.getType('Node');
    return node !== undefined && type.getInterfaces().some((one) => one === node);
  }
  if (isConnection(type)) return RELAY_CONNECTION_FIELDS.has(field.name);
  if (isEdge(type)) return field.name === 'node';
  return false;
}
