/**
 * A product's relationship routes (`/pcm/products/{id}/relationships/{variations|files|
 * main_image}`): read, add (POST), replace (PUT), remove (DELETE); writes answer 204. Variations
 * must be the store's (422), files records of the store's `/v2/files` (422). A changed variation
 * list takes effect on the children at the next build.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import { badRequest } from '../errors.ts';
import { isObject } from '../request-body.ts';
import { readIdentifier, readIdentifierList } from '../resource-body.ts';
import {
  checkFiles,
  checkVariations,
  productVariationIds,
  setProductVariations,
} from './products.ts';
import { findProduct } from './products-routes.ts';

type Params = { Params: { productId: string } };
type Change = 'POST' | 'PUT' | 'DELETE';

/** The list after a change: POST adds (keeping order), PUT replaces, DELETE removes. */
function changed(current: string[], given: string[], how: Change): string[] {
  if (how === 'PUT') return given;
  if (how === 'DELETE') return current.filter((id) => !given.includes(id));
  return [...current, ...given.filter((id) => !current.includes(id))];
}

/** PUT may empty a list (`{"data":[]}`); POST and DELETE need at least one identifier. */
function readList(body: unknown, type: string, max: number, how: Change): string[] {
  if (how === 'PUT' && isObject(body) && Array.isArray(body.data) && body.data.length === 0)
    return [];
  return readIdentifierList(body, type, max).map((r) => r.id);
}

export function pcmProductRelationshipRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  return async (app) => {
    const touch = (id: string) =>
      db.prepare('UPDATE pcm_products SET updated_at = ? WHERE id = ?').run(ctx.timestamp(), id);

    app.get<Params>('/products/:productId/relationships/variations', async (request) => {
      const product = findProduct(db, request.store.id, request.params.productId);
      return {
        data: productVariationIds(db, product.id).map((id) => ({ type: 'product-variation', id })),
      };
    });

    app.get<Params>('/products/:productId/relationships/files', async (request) => {
      const product = findProduct(db, request.store.id, request.params.productId);
      return { data: (JSON.parse(product.files) as string[]).map((id) => ({ type: 'file', id })) };
    });

    app.get<Params>('/products/:productId/relationships/main_image', async (request) => {
      const product = findProduct(db, request.store.id, request.params.productId);
      return {
        data: product.main_image_id === null ? null : { type: 'file', id: product.main_image_id },
      };
    });

    for (const how of ['POST', 'PUT', 'DELETE'] as const) {
      app.route<Params>({
        method: how,
        url: '/products/:productId/relationships/variations',
        handler: async (request, reply) => {
          const given = readList(request.body, 'product-variation', 10, how);
          db.transaction(() => {
            const product = findProduct(db, request.store.id, request.params.productId);
            if (how !== 'DELETE') checkVariations(db, request.store.id, given);
            const next = changed(productVariationIds(db, product.id), given, how);
            if (next.length > 10)
              throw badRequest('A product may have at most 10 variations.', 'data');
            setProductVariations(db, product.id, next);
            touch(product.id);
          })();
          return reply.code(204).send();
        },
      });

      app.route<Params>({
        method: how,
        url: '/products/:productId/relationships/files',
        handler: async (request, reply) => {
          const given = readList(request.body, 'file', 100, how);
          db.transaction(() => {
            const product = findProduct(db, request.store.id, request.params.productId);
            if (how !== 'DELETE') checkFiles(db, request.store.id, given, 'data');
            const next = changed(JSON.parse(product.files) as string[], given, how);
            if (next.length > 100)
              throw badRequest('A product may have at most 100 files.', 'data');
            db.prepare('UPDATE pcm_products SET files = ? WHERE id = ?').run(
              JSON.stringify(next),
              product.id,
            );
            touch(product.id);
          })();
          return reply.code(204).send();
        },
      });

      app.route<Params>({
        method: how,
        url: '/products/:productId/relationships/main_image',
        handler: async (request, reply) => {
          // DELETE needs no body; POST and PUT name one file ({"data":{"type":"file","id"}}).
          const body = request.body;
          const fileId =
            how === 'DELETE'
              ? null
              : readIdentifier(
                  isObject(body) ? body.data : undefined,
                  ['file', 'main_image'],
                  'data',
                ).id;
          db.transaction(() => {
            const product = findProduct(db, request.store.id, request.params.productId);
            if (fileId !== null) checkFiles(db, request.store.id, [fileId], 'data.id');
            db.prepare('UPDATE pcm_products SET main_image_id = ? WHERE id = ?').run(
              fileId,
              product.id,
            );
            touch(product.id);
          })();
          return reply.code(204).send();
        },
      });
    }
  };
}
