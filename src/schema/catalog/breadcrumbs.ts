/**
 * A product's breadcrumbs: the nodes of its path, read with `/catalog/nodes?filter=in(id,…)`
 * (one call per 100 nodes of the operation) and shared between callers for a while, because a
 * storefront shows the same few category names on every product page.
 *
 * A node is shared only under what served it: the catalog and release the product's own answer
 * named (`meta.catalog_id`, `meta.release_id`), the caller's forwarded `Accept-Language`, and
 * only when the product was read under `catalog` (the catalog the upstream resolved for this
 * caller, where its nodes come from too). A caller therefore gets a node from the shared reads
 * only after the upstream, with their own credentials, served them a product of that catalog
 * and release: nobody sees a node their catalog rules would not show them. Names changed by a
 * new publish show once the entry expires (CATALOG_CACHE_SECONDS, default 60 s; 0 turns this
 * off); a release carried in the key never changes.
 */
import { type GraphQLResolveInfo, Kind } from 'graphql';
import { forwardedHeaders, type GatewayContext } from '../../upstream/session.ts';
import type { SharedReads } from '../../upstream/shared-reads.ts';
import { CatalogNodes } from './storefront.ts';

type CatalogNodeShape = NonNullable<Awaited<ReturnType<typeof CatalogNodes.load>>>;

interface BreadcrumbSource {
  readonly breadcrumbIds: readonly string[];
  readonly catalogId: string;
  readonly releaseId: string | null;
}

/** The root field the value was read under (`catalog`, `catalogReleaseView`…), if plain. */
function rootFieldName(info: GraphQLResolveInfo): string | undefined {
  let path = info.path;
  while (path.prev !== undefined) path = path.prev;
  for (const selection of info.operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) continue;
    if ((selection.alias?.value ?? selection.name.value) === path.key) return selection.name.value;
  }
  // Under a fragment spread at the root: not told, so not shared.
  return undefined;
}

/** The prefix of this product's shared node keys, or undefined when its nodes are not shared. */
function sharedKeyPrefix(
  product: BreadcrumbSource,
  context: GatewayContext,
  info: GraphQLResolveInfo,
): string | undefined {
  if (!context.shared.enabled || product.catalogId === '') return undefined;
  if (info.operation.operation !== 'query' || rootFieldName(info) !== 'catalog') return undefined;
  const language = forwardedHeaders(context)?.['accept-language'] ?? '';
  return `catalog-node\u0000${product.catalogId}\u0000${product.releaseId ?? ''}\u0000${language}\u0000`;
}

async function sharedNode(
  shared: SharedReads,
  key: string,
  context: GatewayContext,
  id: string,
): Promise<CatalogNodeShape | null> {
  const kept = shared.get(key) as CatalogNodeShape | undefined;
  if (kept !== undefined) return kept;
  const node = await CatalogNodes.load(context, id);
  if (node !== null) shared.set(key, node);
  return node;
}

/** The product's breadcrumb nodes, root first; nodes the catalog no longer has are left out. */
export async function breadcrumbNodes(
  product: BreadcrumbSource,
  context: GatewayContext,
  info: GraphQLResolveInfo,
): Promise<CatalogNodeShape[]> {
  const ids = product.breadcrumbIds;
  if (ids.length === 0) return [];
  const prefix = sharedKeyPrefix(product, context, info);
  const nodes = await Promise.all(
    ids.map((id) =>
      prefix === undefined
        ? CatalogNodes.load(context, id)
        : sharedNode(context.shared, prefix + id, context, id),
    ),
  );
  return nodes.filter((node) => node !== null);
}
