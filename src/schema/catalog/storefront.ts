/**
 * The storefront's catalog: the published catalog as a shopper sees it, rule-resolved by the
 * upstream from the caller's token and forwarded headers (`EP-Channel`, `EP-Context-Tag`,
 * `Accept-Language`) at `/catalog/…`, or one release at `/catalogs/{c}/releases/{r}/…` (the
 * merchandiser's preview). `Product`, `Hierarchy` and `CatalogNode` are described resources
 * (offset-only lists, served past 10,000) and Federation entities; `CatalogNode` is not Relay's
 * `Node`, which it implements.
 *
 * What a listing page needs costs a fixed number of calls whatever its size: the page itself
 * carries prices, breadcrumb ids and (with `include=main_image,files`) the images; stock is one
 * `POST /v2/inventories/multiple` per 100 products, the breadcrumbs' nodes one
 * `filter=in(id,…)` per 100 nodes (./product-fields.ts).
 */
import { isJsonObject, type JsonObject } from '../../upstream/client.ts';
import { BadUserInputError } from '../../upstream/errors.ts';
import { eqFilter, eqInFilter, type FilterDescription } from '../connection.ts';
import { idKind, judgeId } from '../kit/ids.ts';
import { judgeProductSlug, judgeSku } from '../pcm/judges.ts';
import { productType } from '../pcm/products.ts';
import { defineResource, field } from '../resource.ts';
import { relationId } from '../rows.ts';

/** Every product read of the storefront brings its images along. */
export const PRODUCT_INCLUDE = { include: 'main_image,files' } as const;

const idIn: FilterDescription = {
  attr: 'id',
  type: 'ID',
  ops: ['in'],
  description: 'On the upstream id (`in`, as the catalog filters).',
};

const objectAt = (row: JsonObject, ...path: string[]): JsonObject | null => {
  let value: unknown = row;
  for (const key of path) value = isJsonObject(value) ? value[key] : undefined;
  return isJsonObject(value) ? value : null;
};

export const Products = defineResource({
  name: 'Product',
  singular: 'product',
  plural: 'products',
  label: 'catalog_product',
  description:
    'A product of the published catalog, as a shopper sees it: live only, priced by the ' +
    'catalog’s price books. The merchandiser’s drafts are `PcmProduct`.',
  path: '/catalog/products',
  body: 'nested',
  timestamps: 'attributes',
  readableBy: ['client_credentials', 'implicit', 'customer'],
  listQuery: PRODUCT_INCLUDE,
  fields: {
    name: field.string('Name.'),
    sku: field.string('Stock keeping unit.', { nullable: true }),
    slug: field.string('Slug.', { nullable: true }),
    description: field.string('Description.', { nullable: true }),
    commodityType: field.string('`physical` or `digital`.'),
    productType: field.string('`standard`, `parent` (has children), `child` or `bundle`.', {
      read: productType,
    }),
    parentId: field.id('A child product’s parent (upstream id).', {
      from: 'attributes.base_product_id',
      nullable: true,
    }),
    catalogId: field.id('The catalog it was read from.', { from: 'meta.catalog_id' }),
    // Production's shopper answers name the catalog but not always the release.
    releaseId: field.id('The release it was read from; null when the upstream does not say.', {
      from: 'meta.release_id',
      nullable: true,
    }),
    prices: field.carried((row) => objectAt(row, 'attributes', 'price')),
    originalPrices: field.carried((row) => objectAt(row, 'meta', 'original_price')),
    displayPrice: field.carried((row) => objectAt(row, 'meta', 'display_price')),
    breadcrumbIds: field.carried(breadcrumbIds),
    mainImageId: field.carried((row) => relationId(row, 'main_image')),
    fileIds: field.carried(fileIds),
    row: field.carried((row) => row),
  },
  list: {
    description: 'Products of the catalog.',
    connection: 'catalog-products',
    paging: 'offset',
    offsetLimit: 'soft',
    filters: {
      id: idIn,
      sku: eqInFilter('sku', 'On the SKU.'),
      slug: eqInFilter('slug', 'On the slug.'),
      name: eqInFilter('name', 'On the name.'),
      productType: eqInFilter(
        'product_types',
        'On the product type (standard, parent, child, bundle).',
      ),
      tags: eqInFilter('tags', 'On a tag.'),
    },
  },
  entity: true,
});

/** The node path of the product's first breadcrumb (root first), or none. */
function breadcrumbIds(row: JsonObject): readonly string[] {
  const meta = isJsonObject(row.meta) ? row.meta : {};
  const first = Array.isArray(meta.bread_crumb_nodes) ? meta.bread_crumb_nodes[0] : undefined;
  const crumbs = isJsonObject(meta.bread_crumbs) ? meta.bread_crumbs : {};
  const path = typeof first === 'string' ? crumbs[first] : undefined;
  return Array.isArray(path) ? path.filter((id): id is string => typeof id === 'string') : [];
}

function fileIds(row: JsonObject): readonly string[] {
  const relationships = isJsonObject(row.relationships) ? row.relationships : {};
  const files = isJsonObject(relationships.files) ? relationships.files.data : undefined;
  if (!Array.isArray(files)) return [];
  return files.flatMap((file) =>
    isJsonObject(file) && typeof file.id === 'string' ? [file.id] : [],
  );
}

export const Hierarchies = defineResource({
  name: 'Hierarchy',
  singular: 'hierarchy',
  plural: 'hierarchies',
  label: 'catalog_hierarchy',
  description: 'A hierarchy (a category tree) of the published catalog.',
  path: '/catalog/hierarchies',
  body: 'nested',
  timestamps: 'attributes',
  readableBy: ['client_credentials', 'implicit', 'customer'],
  fields: {
    name: field.string('Name.'),
    slug: field.string('Slug.', { nullable: true }),
    description: field.string('Description.', { nullable: true }),
  },
  list: {
    description: 'Hierarchies of the catalog.',
    connection: 'catalog-hierarchies',
    paging: 'offset',
    offsetLimit: 'soft',
    filters: {
      id: idIn,
      name: eqFilter('name', 'On the name.'),
      slug: eqFilter('slug', 'On the slug.'),
    },
  },
  entity: true,
});

export const CatalogNodes = defineResource({
  name: 'CatalogNode',
  singular: 'node',
  plural: 'nodes',
  label: 'catalog_node',
  description: 'A node (a category) of a hierarchy of the published catalog.',
  path: '/catalog/nodes',
  body: 'nested',
  timestamps: 'attributes',
  readableBy: ['client_credentials', 'implicit', 'customer'],
  fields: {
    name: field.string('Name.'),
    slug: field.string('Slug.', { nullable: true }),
    description: field.string('Description.', { nullable: true }),
    hierarchyId: field.id('The hierarchy it is in (upstream id).', {
      read: (row) => relationId(row, 'hierarchy') ?? '',
    }),
  },
  list: {
    description: 'Nodes of the catalog.',
    connection: 'catalog-nodes',
    paging: 'offset',
    offsetLimit: 'soft',
    filters: {
      id: idIn,
      name: eqFilter('name', 'On the name.'),
      slug: eqFilter('slug', 'On the slug.'),
    },
  },
  entity: true,
});

/** Where a catalog's lists are: the rule-resolved `/catalog`, or one release. */
export interface CatalogView {
  /** The path of the view, naming its root: ['/catalog'] or ['/catalogs', c, 'releases', r]. */
  readonly base: readonly string[];
}

const viewPath = (view: CatalogView, rest: string) =>
  `${view.base.length === 1 ? '/catalog' : `/catalogs/${view.base[1]}/releases/${view.base[3]}`}/${rest}`;

/** `product(id | slug | sku)`: exactly one, judged. */
export function judgeProductKey(args: {
  id?: string | null;
  slug?: string | null;
  sku?: string | null;
}): { attribute: 'id' | 'slug' | 'sku'; value: string } {
  const given = (['id', 'slug', 'sku'] as const).filter((key) => args[key] != null);
  if (given.length !== 1) {
    throw new BadUserInputError('Give exactly one of id, slug and sku', { field: 'id' });
  }
  const attribute = given[0] as 'id' | 'slug' | 'sku';
  const raw = args[attribute] as string;
  const value =
    attribute === 'id'
      ? judgeId(raw, 'id', idKind('Product'))
      : attribute === 'slug'
        ? judgeProductSlug(raw, 'slug')
        : judgeSku(raw, 'sku');
  return { attribute, value };
}

export { viewPath };
