/**
 * Which products sit in which node: attach (`POST …/nodes/{n}/relationships/products`, 201)
 * and detach (`DELETE`, same body, 200), both answering the node; a node's products
 * (`GET …/nodes/{n}/products`: curated first, in curated order, each flagged
 * `curated_product: true`, then newest first) and a product's nodes (`GET
 * /pcm/products/{id}/nodes`). Both lists show live products only, as production's do (§3): a
 * draft product's nodes list is empty. Every id of an attach is checked before any is written.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import { unprocessable } from '../errors.ts';
import { listResources } from '../listing/index.ts';
import { readIdentifierList } from '../resource-body.ts';
import { nodeListSpec, nodeProductListSpec } from './lists.ts';
import { type NodeRow, presentNode } from './nodes.ts';
import { findNode } from './nodes-routes.ts';
import { type ProductRow, presentProduct } from './products.ts';
import { findProduct } from './products-routes.ts';

type N = { Params: { hierarchyId: string; nodeId: string } };

/** Most products one attach or detach names. */
const MAX_PER_CALL = 100;

export function pcmNodeProductRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const RELATION = '/hierarchies/:hierarchyId/nodes/:nodeId/relationships/products';
  return async (app) => {
    app.post<N>(RELATION, async (request, reply) => {
      const products = readIdentifierList(request.body, 'product', MAX_PER_CALL);
      const node = db.transaction(() => {
        const { hierarchyId, nodeId } = request.params;
        const found = findNode(db, request.store.id, hierarchyId, nodeId);
        const rows = products.map(({ id }, i) => {
          const row = db
            .prepare('SELECT id, created_at FROM pcm_products WHERE store_id = ? AND id = ?')
            .get(request.store.id, id) as { id: string; created_at: string } | undefined;
          if (row === undefined)
            throw unprocessable(`No product with id ${id} in this store.`, `data[${i}].id`);
          return row;
        });
        const now = ctx.timestamp();
        const attach = db.prepare(
          `INSERT OR IGNORE INTO pcm_node_products (store_id, node_id, product_id, product_created_at, created_at)
           VALUES (?, ?, ?, ?, ?)`,
        );
        for (const row of rows) attach.run(request.store.id, found.id, row.id, row.created_at, now);
        db.prepare('UPDATE pcm_nodes SET updated_at = ? WHERE id = ?').run(now, found.id);
        return db
          .prepare('SELECT * FROM pcm_nodes WHERE id = ?')
          .get(found.id) as unknown as NodeRow;
      })();
      reply.code(201);
      return { data: presentNode(db, node) };
    });

    app.delete<N>(RELATION, async (request) => {
      const products = readIdentifierList(request.body, 'product', MAX_PER_CALL);
      const node = db.transaction(() => {
        const { hierarchyId, nodeId } = request.params;
        const found = findNode(db, request.store.id, hierarchyId, nodeId);
        const detach = db.prepare(
          'DELETE FROM pcm_node_products WHERE node_id = ? AND product_id = ?',
        );
        for (const { id } of products) detach.run(found.id, id);
        // A detached product leaves the curated list; the others close ranks.
        const curated = db
          .prepare(
            `SELECT product_id FROM pcm_node_products
             WHERE node_id = ? AND curated_position IS NOT NULL ORDER BY curated_position`,
          )
          .pluck()
          .all(found.id) as string[];
        const place = db.prepare(
          'UPDATE pcm_node_products SET curated_position = ? WHERE node_id = ? AND product_id = ?',
        );
        for (const [i, id] of curated.entries()) place.run(i, found.id, id);
        const now = ctx.timestamp();
        db.prepare('UPDATE pcm_nodes SET updated_at = ? WHERE id = ?').run(now, found.id);
        return db
          .prepare('SELECT * FROM pcm_nodes WHERE id = ?')
          .get(found.id) as unknown as NodeRow;
      })();
      return { data: presentNode(db, node) };
    });

    app.get<N>('/hierarchies/:hierarchyId/nodes/:nodeId/products', async (request) => {
      const { hierarchyId, nodeId } = request.params;
      const node = findNode(db, request.store.id, hierarchyId, nodeId);
      return listResources({
        request,
        db,
        table: 'pcm_node_product_list',
        scope: { store_id: request.store.id, node_id: node.id, status: 'live' },
        spec: nodeProductListSpec,
        map: (row: ProductRow & { curated_position: number | null }) => {
          const product = presentProduct(db, row);
          if (row.curated_position === null) return product;
          return { ...product, attributes: { ...product.attributes, curated_product: true } };
        },
      });
    });

    app.get<{ Params: { productId: string } }>('/products/:productId/nodes', async (request) => {
      const product = findProduct(db, request.store.id, request.params.productId);
      return listResources({
        request,
        db,
        table: 'pcm_product_node_list',
        scope: { store_id: request.store.id, product_id: product.id, product_status: 'live' },
        spec: nodeListSpec,
        map: (row: NodeRow) => presentNode(db, row),
      });
    });
  };
}
