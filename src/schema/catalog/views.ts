/**
 * The storefront's entry points: `catalog`, the catalog the upstream resolves for the caller
 * (its rules match the token, `EP-Channel`, `EP-Context-Tag` and the time), and
 * `catalogReleaseView(catalogId, releaseId)`, one release as published (`latest` or
 * `latestPublished` for the newest; the merchandiser's preview, store tokens only). Both show the
 * same lists; a hierarchy's, a node's and a product's relations are read through the catalog
 * that applies to the caller.
 */
import type { ObjectRef } from '@pothos/core';
import { type GraphQLResolveInfo, Kind, type SelectionSetNode } from 'graphql';
import { BadUserInputError } from '../../upstream/errors.ts';
import { type BuilderTypes, builder } from '../builder.ts';
import { ID_INPUTS, idKind, judgeId } from '../kit/ids.ts';
import { judgeUuid } from '../rows.ts';
import './product-fields.ts';
import {
  CatalogNodes,
  type CatalogView,
  Hierarchies,
  judgeProductKey,
  PRODUCT_INCLUDE,
  Products,
} from './storefront.ts';

/** Whether the selection of this field reads `mainImage` or `files` (fragments included). */
function selectsImages(info: GraphQLResolveInfo): boolean {
  const visit = (set: SelectionSetNode | undefined, depth: number): boolean => {
    if (set === undefined || depth > 8) return false;
    return set.selections.some((selection) => {
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        return name === 'mainImage' || name === 'images' || name === 'files';
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) return visit(selection.selectionSet, depth + 1);
      const fragment = info.fragments[selection.name.value];
      return visit(fragment?.selectionSet, depth + 1);
    });
  };
  return info.fieldNodes.some((node) => visit(node.selectionSet, 0));
}

/** The lists of one view: `prefix` is `/catalog` or the release's path template. */
function viewType(name: string, description: string, prefix: string, releaseForm: boolean) {
  ID_INPUTS.set(`${name}.product(id:)`, idKind('Product'));
  const params = (view: CatalogView): Record<string, string> =>
    releaseForm ? { catalogId: view.base[1] as string, releaseId: view.base[3] as string } : {};
  const identity = releaseForm ? 'release' : 'catalog';
  return builder.objectRef<CatalogView>(name).implement({
    description,
    fields: (t) => ({
      hierarchies: Hierarchies.connectionField(t, {
        description: 'The hierarchies (category trees).',
        connection: `${identity}-hierarchies`,
        at: { path: `${prefix}/hierarchies`, params },
      }),
      nodes: CatalogNodes.connectionField(t, {
        description: 'Every node of every hierarchy.',
        connection: `${identity}-nodes`,
        at: { path: `${prefix}/nodes`, params },
      }),
      products: Products.connectionField(t, {
        description: 'The products, with their prices and images.',
        connection: `${identity}-products`,
        at: { path: `${prefix}/products`, params },
      }),
      product: t.field({
        type: Products.ref,
        nullable: true,
        description:
          'One product by exactly one of id, slug and SKU; null when there is none. Lookups of ' +
          'one operation are batched (one call per 100).',
        args: {
          id: t.arg.id({
            required: false,
            description: 'The product: a Product id or its upstreamId.',
          }),
          slug: t.arg.string({ required: false, description: 'Slug.' }),
          sku: t.arg.string({ required: false, description: 'SKU.' }),
        },
        resolve: async (view, args, context, info) => {
          const key = judgeProductKey({
            id: args.id === undefined || args.id === null ? null : String(args.id),
            slug: args.slug,
            sku: args.sku,
          });
          const segments = releaseForm
            ? ['/catalogs', view.base[1] as string, 'releases', view.base[3] as string, 'products']
            : ['/catalog', 'products'];
          // Images ride along only when asked for: a product page without them reads less.
          const query = selectsImages(info) ? PRODUCT_INCLUDE : undefined;
          const row = await context
            .byAttributeLoader(segments, key.attribute, query)
            .load(key.value);
          return row === null ? null : Products.read(row);
        },
        extensions: { upstreamCalls: 1 },
      }),
    }),
  });
}

export const ShopperCatalogRef: ObjectRef<BuilderTypes, CatalogView> = viewType(
  'ShopperCatalog',
  'The catalog that applies to the caller: chosen by the store’s catalog rules from the token ' +
    '(customer, account), the forwarded `EP-Channel` and `EP-Context-Tag` and the time.',
  '/catalog',
  false,
);

const ReleaseViewRef = viewType(
  'CatalogReleaseView',
  'One published release of a catalog, as shoppers would see it (store tokens only).',
  '/catalogs/{catalogId}/releases/{releaseId}',
  true,
);

builder.queryField('catalog', (t) =>
  t.field({
    type: ShopperCatalogRef,
    description:
      'The storefront’s catalog: the one the store’s rules resolve for this caller. Send ' +
      '`EP-Channel` / `EP-Context-Tag` to choose by channel or tag; `Accept-Language` is forwarded.',
    resolve: () => ({ base: ['/catalog'] }),
    // Its lists make the calls (and are charged for them); the view itself makes none.
    extensions: { upstreamCalls: 0 },
  }),
);

const RELEASE_ALIASES = new Set(['latest', 'latestPublished']);

const CATALOG = idKind('Catalog');
ID_INPUTS.set('Query.catalogReleaseView(catalogId:)', CATALOG);

builder.queryField('catalogReleaseView', (t) =>
  t.field({
    type: ReleaseViewRef,
    description: 'One release of a catalog (`releaseId` may be `latest` or `latestPublished`).',
    args: {
      catalogId: t.arg.id({
        required: true,
        description: 'The catalog: a Catalog id or its upstreamId.',
      }),
      releaseId: t.arg.string({ required: true, description: 'The release (uuid or alias).' }),
    },
    resolve: (_root, args) => {
      const catalogId = judgeId(String(args.catalogId), 'catalogId', CATALOG);
      const releaseId = RELEASE_ALIASES.has(args.releaseId)
        ? args.releaseId
        : judgeRelease(args.releaseId);
      return { base: ['/catalogs', catalogId, 'releases', releaseId] };
    },
    extensions: { upstreamCalls: 0 },
  }),
);

function judgeRelease(value: string): string {
  try {
    return judgeUuid(value, 'releaseId');
  } catch {
    throw new BadUserInputError('releaseId must be a uuid, latest or latestPublished', {
      field: 'releaseId',
    });
  }
}

builder.objectFields(Hierarchies.ref, (t) => ({
  nodes: CatalogNodes.connectionField(t, {
    description: 'Every node of this hierarchy.',
    connection: 'catalog-hierarchy-nodes',
    at: {
      path: '/catalog/hierarchies/{hierarchyId}/nodes',
      params: (h) => ({ hierarchyId: h.upstreamId }),
    },
  }),
  children: CatalogNodes.connectionField(t, {
    description: 'The top-level nodes of this hierarchy.',
    connection: 'catalog-hierarchy-children',
    at: {
      path: '/catalog/hierarchies/{hierarchyId}/children',
      params: (h) => ({ hierarchyId: h.upstreamId }),
    },
  }),
  products: Products.connectionField(t, {
    description: 'The products under this hierarchy.',
    connection: 'catalog-hierarchy-products',
    at: {
      path: '/catalog/hierarchies/{hierarchyId}/products',
      params: (h) => ({ hierarchyId: h.upstreamId }),
    },
  }),
}));

builder.objectFields(CatalogNodes.ref, (t) => ({
  children: CatalogNodes.connectionField(t, {
    description: 'The nodes under this one.',
    connection: 'catalog-node-children',
    at: {
      path: '/catalog/nodes/{nodeId}/relationships/children',
      params: (n) => ({ nodeId: n.upstreamId }),
    },
  }),
  products: Products.connectionField(t, {
    description: 'The products of this node, curated products first.',
    connection: 'catalog-node-products',
    at: {
      path: '/catalog/nodes/{nodeId}/relationships/products',
      params: (n) => ({ nodeId: n.upstreamId }),
    },
  }),
}));
