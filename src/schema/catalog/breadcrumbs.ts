/**
 * A product's breadcrumbs: the nodes of its path, read with `/catalog/nodes?filter=in(id,…)`
 * (one call per 100 nodes of the operation) and shared between callers for a while under the
 * catalog, release and language that served them (./shared-catalog.ts): a node carries no price.
 */
import type { GraphQLResolveInfo } from 'graphql';
import type { GatewayContext } from '../../upstream/session.ts';
import type { SharedReads } from '../../upstream/shared-reads.ts';
import { type CatalogSource, nodeShareKey } from './shared-catalog.ts';
import { CatalogNodes } from './storefront.ts';

type CatalogNodeShape = NonNullable<Awaited<ReturnType<typeof CatalogNodes.load>>>;

interface BreadcrumbSource extends CatalogSource {
  readonly breadcrumbIds: readonly string[];
}

async function sharedNode(
  shared: SharedReads,
  key: string,
  context: GatewayContext,
  id: string,
): Promise<CatalogNodeShape | null> {
  const kept = shared.get(key) as CatalogNodeShape | undefined;
  if (kept !== undefined) return kept;
  // Another replica's (REDIS_URL): a node's shape is plain JSON (strings and nulls).
  const asked = shared.remote?.get(key);
  const remote = asked === undefined ? undefined : await asked;
  if (remote !== undefined) {
    try {
      const node = JSON.parse(remote.text) as CatalogNodeShape;
      shared.set(key, node, remote.until);
      return node;
    } catch {
      // Not what this gateway wrote: read it from the upstream.
    }
  }
  const node = await CatalogNodes.load(context, id);
  if (node !== null) {
    shared.set(key, node);
    const until = shared.remote && shared.expiry();
    if (until !== undefined) shared.remote?.set(key, JSON.stringify(node), until);
  }
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
  const prefix = nodeShareKey(product, context, info);
  const nodes = await Promise.all(
    ids.map((id) =>
      prefix === undefined
        ? CatalogNodes.load(context, id)
        : sharedNode(context.shared, prefix + id, context, id),
    ),
  );
  return nodes.filter((node) => node !== null);
}
