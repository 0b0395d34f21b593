/**
 * The shopper catalog (`/catalog…`): the release of the catalog the request's context resolves
 * to (catalogs/resolve.ts: `EP-Channel`, `EP-Context-Tag`, the customer token, the time). Any
 * token of the store may read it (scopes.ts: shopper).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { presentRelease, type ReleaseRow } from '../catalogs/records.ts';
import { requestContext, resolveCatalog } from '../catalogs/resolve.ts';
import type { ServiceContext } from '../context.ts';
import { notFound } from '../errors.ts';

/** The release the request's context resolves to; 404 when the store has published none. */
export function resolvedRelease(ctx: ServiceContext, request: FastifyRequest): ReleaseRow {
  const resolved = resolveCatalog(ctx.db, request.store.id, requestContext(request, ctx.clock()));
  if (resolved === undefined) {
    throw notFound(
      'No published catalog applies: publish a catalog (POST /catalogs/{id}/releases).',
    );
  }
  return resolved.release;
}

export function shopperCatalogRoutes(ctx: ServiceContext): FastifyPluginAsync {
  return async (app) => {
    app.get('/catalog', async (request) => ({
      data: presentRelease(resolvedRelease(ctx, request)),
    }));
  };
}
