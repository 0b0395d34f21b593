/**
 * The shopper catalog, read from a release's snapshot rows only: `/catalog…`, the release of
 * the catalog the request's context resolves to (catalogs/resolve.ts: `EP-Channel`,
 * `EP-Context-Tag`, the customer token, the time), for any token of the store; and the same
 * tree under `/catalogs/{c}/releases/{r}/…` (and `/pcm/catalogs/…`; `latest` and
 * `latestPublished` name the newest release) for the store's token (scopes.ts).
 *
 * Lists keep the release's order (hierarchies as the catalog lists them, nodes depth first,
 * products in creation order, a node's products curated first) and filter with `eq`/`in` as
 * v2-catalog-notes §7 lists; a page of products is priced in one query (catalogs/views.ts).
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.ts';
import { cachedStatement } from '../db.ts';
import { notFound, unprocessable } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { type ListAttribute, type ListSpec, listResources } from '../listing/index.ts';
import { configureBundle, listComponentProducts } from './bundle-routes.ts';
import { findCatalog, findRelease, presentRelease, type ReleaseRow } from './records.ts';
import type { PricingRelease } from './release-prices.ts';
import { type ResolvedCatalog, requestContext, resolveCatalog } from './resolve.ts';
import { CATALOG_BASES } from './routes.ts';
import {
  presentProducts,
  presentReleaseHierarchy,
  presentReleaseNode,
  type ReleaseHierarchyRow,
  type ReleaseNodeRow,
  type ReleaseProductRow,
} from './views.ts';

/**
 * The release the request's context resolves to, with the winning rule's price books; 404 when
 * the store has published none.
 */
export function resolvedRelease(ctx: ServiceContext, request: FastifyRequest): PricingRelease {
  return resolvedCatalog(ctx, request).release;
}

/** The catalog, release (priced as the rule says) and rule the request resolves to; 404 as above. */
export function resolvedCatalog(
  ctx: ServiceContext,
  request: FastifyRequest,
): ResolvedCatalog & { release: PricingRelease } {
  const resolved = resolveCatalog(ctx.db, request.store.id, requestContext(request, ctx.clock()));
  if (resolved === undefined) {
    throw notFound(
      'No published catalog applies: publish a catalog (POST /catalogs/{id}/releases).',
    );
  }
  return { ...resolved, release: { ...resolved.release, rulePricebooks: resolved.rulePricebooks } };
}

const eqIn = (column: string, array = false): ListAttribute => ({
  column,
  kind: 'string',
  ops: ['eq', 'in'],
  ...(array ? { array: true } : {}),
});

/** Products: eq/in on the §7 attributes, in on id. */
const PRODUCT_FILTERS: Record<string, ListAttribute> = {
  id: { column: 'id', kind: 'id', ops: ['in'] },
  name: eqIn('name'),
  sku: eqIn('sku'),
  slug: eqIn('slug'),
  manufacturer_part_num: eqIn('mpn'),
  upc_ean: eqIn('upc_ean'),
  product_types: eqIn('product_type'),
  tags: eqIn('tags', true),
};
/** Hierarchies and nodes: eq on name and slug, in on id. */
const TREE_FILTERS: Record<string, ListAttribute> = {
  id: { column: 'id', kind: 'id', ops: ['in'] },
  name: { column: 'name', kind: 'string', ops: ['eq'] },
  slug: { column: 'slug', kind: 'string', ops: ['eq'] },
};
const ordered = (filters: Record<string, ListAttribute>, column: string): ListSpec => ({
  filters,
  sorts: { [column]: column },
  defaultSort: column,
  idColumn: 'id',
});
const productSpec = ordered(PRODUCT_FILTERS, 'position');
const linkedProductSpec = ordered(PRODUCT_FILTERS, 'link_position');
const treeSpec = ordered(TREE_FILTERS, 'position');

type ReleaseOf = (request: FastifyRequest) => PricingRelease;

interface TreeParams {
  hierarchyId: string;
  nodeId: string;
  productId: string;
}

function registerTree(app: FastifyInstance, ctx: ServiceContext, base: string, of: ReleaseOf) {
  const { db } = ctx;
  const read = <T>(fn: () => T): T => db.transaction(fn)();
  const one = <Row>(sql: string, release: ReleaseRow, id: string, what: string): Row => {
    const row = isUuid(id)
      ? (cachedStatement(db, sql).get(release.id, id.toLowerCase()) as Row | undefined)
      : undefined;
    if (row === undefined) throw notFound(`No ${what} with id ${id} in this catalog.`);
    return row;
  };
  const hierarchy = (release: ReleaseRow, id: string) =>
    one<ReleaseHierarchyRow>(
      'SELECT * FROM release_hierarchies WHERE release_id = ? AND id = ?',
      release,
      id,
      'hierarchy',
    );
  const node = (release: ReleaseRow, id: string) =>
    one<ReleaseNodeRow>(
      'SELECT * FROM release_nodes WHERE release_id = ? AND id = ?',
      release,
      id,
      'node',
    );
  const product = (release: ReleaseRow, id: string) =>
    one<ReleaseProductRow>(
      'SELECT * FROM release_products WHERE release_id = ? AND id = ?',
      release,
      id,
      'product',
    );
  const nodes = (request: FastifyRequest, release: ReleaseRow, scope: Record<string, string>) =>
    listResources({
      request,
      db,
      table: 'release_nodes',
      scope: { release_id: release.id, ...scope },
      spec: treeSpec,
      map: (row: ReleaseNodeRow) => presentReleaseNode(release, row),
    });
  const products = (
    request: FastifyRequest,
    release: PricingRelease,
    table: string,
    scope: Record<string, string>,
  ) => {
    const page = listResources({
      request,
      db,
      table,
      scope: { release_id: release.id, ...scope },
      spec: table === 'release_products' ? productSpec : linkedProductSpec,
      map: (row: ReleaseProductRow) => row,
    });
    const { data, included } = presentProducts(db, request, release, page.data, ctx.clock());
    return { ...page, data, ...(Object.keys(included).length > 0 ? { included } : {}) };
  };

  // The release itself: GET /catalog here; the release form's is in catalogs.ts.
  if (base === '/catalog')
    app.get(base, async (request) => ({ data: presentRelease(of(request)) }));
  app.get(`${base}/hierarchies`, async (request) =>
    read(() => {
      const release = of(request);
      return listResources({
        request,
        db,
        table: 'release_hierarchies',
        scope: { release_id: release.id },
        spec: treeSpec,
        map: (row: ReleaseHierarchyRow) => presentReleaseHierarchy(release, row),
      });
    }),
  );
  app.get<{ Params: TreeParams }>(`${base}/hierarchies/:hierarchyId`, async (request) =>
    read(() => {
      const release = of(request);
      return {
        data: presentReleaseHierarchy(release, hierarchy(release, request.params.hierarchyId)),
      };
    }),
  );
  app.get<{ Params: TreeParams }>(`${base}/hierarchies/:hierarchyId/nodes`, async (request) =>
    read(() => {
      const release = of(request);
      const h = hierarchy(release, request.params.hierarchyId);
      return nodes(request, release, { hierarchy_id: h.id });
    }),
  );
  app.get<{ Params: TreeParams }>(`${base}/hierarchies/:hierarchyId/children`, async (request) =>
    read(() => {
      const release = of(request);
      const h = hierarchy(release, request.params.hierarchyId);
      return nodes(request, release, { hierarchy_id: h.id, parent_key: '' });
    }),
  );
  // The spec's path, and the js-sdk's `…/relationships/products` (UNCERTAIN: both).
  for (const path of ['products', 'relationships/products']) {
    app.get<{ Params: TreeParams }>(`${base}/hierarchies/:hierarchyId/${path}`, async (request) =>
      read(() => {
        const release = of(request);
        const h = hierarchy(release, request.params.hierarchyId);
        return products(request, release, 'release_hierarchy_product_list', {
          hierarchy_id: h.id,
        });
      }),
    );
  }
  app.get(`${base}/nodes`, async (request) => read(() => nodes(request, of(request), {})));
  app.get<{ Params: TreeParams }>(`${base}/nodes/:nodeId`, async (request) =>
    read(() => {
      const release = of(request);
      return { data: presentReleaseNode(release, node(release, request.params.nodeId)) };
    }),
  );
  app.get<{ Params: TreeParams }>(`${base}/nodes/:nodeId/relationships/children`, async (request) =>
    read(() => {
      const release = of(request);
      const n = node(release, request.params.nodeId);
      return nodes(request, release, { parent_key: n.id });
    }),
  );
  app.get<{ Params: TreeParams }>(`${base}/nodes/:nodeId/relationships/products`, async (request) =>
    read(() => {
      const release = of(request);
      const n = node(release, request.params.nodeId);
      return products(request, release, 'release_node_product_list', { node_id: n.id });
    }),
  );
  app.get(`${base}/products`, async (request) =>
    read(() => products(request, of(request), 'release_products', {})),
  );
  app.get<{ Params: TreeParams }>(`${base}/products/:productId`, async (request) =>
    read(() => {
      const release = of(request);
      const row = product(release, request.params.productId);
      const { data, included } = presentProducts(db, request, release, [row], ctx.clock());
      return { data: data[0], ...(Object.keys(included).length > 0 ? { included } : {}) };
    }),
  );
  app.get<{ Params: TreeParams }>(
    `${base}/products/:productId/relationships/children`,
    async (request) =>
      read(() => {
        const release = of(request);
        const parent = product(release, request.params.productId);
        if (parent.product_type !== 'parent') {
          throw unprocessable(`Product ${parent.id} is not a parent product: it has no children.`);
        }
        return products(request, release, 'release_products', { parent_key: parent.id });
      }),
  );
  // A bundle's component product ids (getByContextComponentProductIDs); and, for shoppers
  // only (the release form has none in production), a bundle configured (bundle-routes.ts).
  app.get<{ Params: TreeParams }>(
    `${base}/products/:productId/relationships/component_products`,
    async (request) =>
      read(() => {
        const release = of(request);
        return listComponentProducts(
          db,
          request,
          release,
          product(release, request.params.productId),
        );
      }),
  );
  if (base === '/catalog') {
    app.post<{ Params: TreeParams }>(`${base}/products/:productId/configure`, async (request) =>
      read(() => {
        const release = of(request);
        const row = product(release, request.params.productId);
        return configureBundle(db, request, release, row, ctx.clock());
      }),
    );
  }
}

export function shopperCatalogRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (app) => {
    registerTree(app, ctx, '/catalog', (request) => resolvedRelease(ctx, request));
    for (const catalogs of CATALOG_BASES) {
      registerTree(app, ctx, `${catalogs}/:catalogId/releases/:releaseId`, (request) => {
        const params = request.params as { catalogId: string; releaseId: string };
        const catalog = findCatalog(ctx.db, request.store.id, params.catalogId);
        return findRelease(ctx.db, catalog, params.releaseId);
      });
    }
  };
}
