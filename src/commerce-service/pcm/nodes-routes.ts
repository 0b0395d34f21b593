/**
 * Nodes of a hierarchy (`/pcm/hierarchies/{h}/nodes…`): create 201 (at the top level, or under
 * `relationships.parent`), list (all depths), read, update 200, delete 204 (its subtree goes
 * with it), a node's children (sort_order desc, then updated_at desc), and the tree moves:
 * `POST …/{n}/relationships/children` (200, the node), `PUT …/{n}/relationships/parent` and
 * `DELETE …/{n}/relationships/parent` (to the top level), both 204.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { conflict, unprocessable } from '../errors.ts';
import { newId } from '../ids.ts';
import { listResources } from '../listing/index.ts';
import { isObject } from '../request-body.ts';
import { readIdentifier, readIdentifierList, readResource } from '../resource-body.ts';
import { findRecord } from './common.ts';
import { findHierarchy } from './hierarchies-routes.ts';
import { childNodeListSpec, nodeListSpec } from './lists.ts';
import {
  checkParent,
  checkSiblings,
  type NodeRow,
  presentNode,
  readNodeSortOrder,
  readParentId,
  readTreeAttributes,
  setCurated,
} from './nodes.ts';

type H = { Params: { hierarchyId: string } };
type N = { Params: { hierarchyId: string; nodeId: string } };

export function findNode(db: Db, storeId: string, hierarchyId: string, nodeId: string): NodeRow {
  const hierarchy = findHierarchy(db, storeId, hierarchyId);
  return findRecord<NodeRow>(db, 'pcm_nodes', storeId, nodeId, 'node in this hierarchy', {
    column: 'hierarchy_id',
    value: hierarchy.id,
  });
}

function readNode(db: Db, id: string): NodeRow {
  return db.prepare('SELECT * FROM pcm_nodes WHERE id = ?').get(id) as unknown as NodeRow;
}

/** Moves a node under `parentId` (null: the top level), with the tree rules; sort_order when given. */
function moveNode(
  db: Db,
  node: NodeRow,
  parentId: string | null,
  sortOrder: number | null | undefined,
  now: string,
  source: string,
): void {
  if (parentId !== null) checkParent(db, node.hierarchy_id, node.id, parentId, source);
  checkSiblings(db, node.hierarchy_id, parentId, node.name, node.slug, node.id, source);
  db.prepare(
    `UPDATE pcm_nodes SET parent_id = ?, sort_order = CASE WHEN ? THEN ? ELSE sort_order END,
       updated_at = ? WHERE id = ?`,
  ).run(parentId, sortOrder === undefined ? 0 : 1, sortOrder ?? null, now, node.id);
}

export function pcmNodeRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const NODES = '/hierarchies/:hierarchyId/nodes';
  const NODE = `${NODES}/:nodeId`;
  return async (app) => {
    app.post<H>(NODES, async (request, reply) => {
      const body = readResource(request.body, 'node', { requireAttributes: true });
      const input = readTreeAttributes(body.attributes, true, '{}', true);
      const sortOrder = readNodeSortOrder(body.meta);
      const parentId = readParentId(body.relationships) ?? null;
      const row = db.transaction(() => {
        const hierarchy = findHierarchy(db, request.store.id, request.params.hierarchyId);
        if (parentId !== null)
          checkParent(db, hierarchy.id, null, parentId, 'data.relationships.parent.data.id');
        const name = input.name ?? '';
        checkSiblings(db, hierarchy.id, parentId, name, input.slug ?? null, null);
        const id = newId();
        const now = ctx.timestamp();
        db.prepare(
          `INSERT INTO pcm_nodes (id, store_id, hierarchy_id, parent_id, name, slug, description,
             sort_order, extra, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          id,
          request.store.id,
          hierarchy.id,
          parentId,
          name,
          input.slug ?? null,
          input.description ?? null,
          sortOrder ?? null,
          JSON.stringify(input.extra),
          now,
          now,
        );
        // A new node holds no products, so any curated product is not in it (422).
        if (input.curated !== undefined) setCurated(db, id, input.curated);
        return readNode(db, id);
      })();
      reply.code(201);
      return { data: presentNode(db, row) };
    });

    app.get<H>(NODES, async (request) => {
      const hierarchy = findHierarchy(db, request.store.id, request.params.hierarchyId);
      return listResources({
        request,
        db,
        table: 'pcm_nodes',
        scope: { store_id: request.store.id, hierarchy_id: hierarchy.id },
        spec: nodeListSpec,
        map: (row: NodeRow) => presentNode(db, row),
      });
    });

    app.get<N>(NODE, async (request) => {
      const { hierarchyId, nodeId } = request.params;
      return { data: presentNode(db, findNode(db, request.store.id, hierarchyId, nodeId)) };
    });

    app.put<N>(NODE, async (request) => {
      const body = readResource(request.body, 'node');
      const sortOrder = readNodeSortOrder(body.meta);
      const parentId = readParentId(body.relationships);
      const row = db.transaction(() => {
        const { hierarchyId, nodeId } = request.params;
        const current = findNode(db, request.store.id, hierarchyId, nodeId);
        if (body.id !== undefined && body.id.toLowerCase() !== current.id) {
          throw conflict(
            `data.id ${body.id} is not the node in the path (${current.id}).`,
            'data.id',
          );
        }
        const input = readTreeAttributes(body.attributes, false, current.extra, true);
        const next: NodeRow = {
          ...current,
          name: input.name ?? current.name,
          slug: input.slug === undefined ? current.slug : input.slug,
          description: input.description === undefined ? current.description : input.description,
          sort_order: sortOrder === undefined ? current.sort_order : sortOrder,
          extra: JSON.stringify(input.extra),
          updated_at: ctx.timestamp(),
        };
        const parent = parentId === undefined ? current.parent_id : parentId;
        if (parent !== null && parent !== current.parent_id) {
          checkParent(
            db,
            current.hierarchy_id,
            current.id,
            parent,
            'data.relationships.parent.data.id',
          );
        }
        checkSiblings(db, current.hierarchy_id, parent, next.name, next.slug, current.id);
        db.prepare(
          `UPDATE pcm_nodes SET name = ?, slug = ?, description = ?, sort_order = ?, extra = ?,
             parent_id = ?, updated_at = ? WHERE id = ?`,
        ).run(
          next.name,
          next.slug,
          next.description,
          next.sort_order,
          next.extra,
          parent,
          next.updated_at,
          current.id,
        );
        if (input.curated !== undefined) setCurated(db, current.id, input.curated);
        return readNode(db, current.id);
      })();
      return { data: presentNode(db, row) };
    });

    app.delete<N>(NODE, async (request, reply) => {
      const { hierarchyId, nodeId } = request.params;
      const row = findNode(db, request.store.id, hierarchyId, nodeId);
      db.prepare('DELETE FROM pcm_nodes WHERE id = ?').run(row.id);
      return reply.code(204).send();
    });

    app.get<N>(`${NODE}/children`, async (request) => {
      const { hierarchyId, nodeId } = request.params;
      const node = findNode(db, request.store.id, hierarchyId, nodeId);
      return listResources({
        request,
        db,
        table: 'pcm_nodes',
        scope: { store_id: request.store.id, hierarchy_id: node.hierarchy_id, parent_key: node.id },
        spec: childNodeListSpec,
        map: (row: NodeRow) => presentNode(db, row),
      });
    });

    app.post<N>(`${NODE}/relationships/children`, async (request) => {
      const children = readIdentifierList(request.body, 'node', 100).map(({ id, item }, i) => ({
        id,
        sortOrder: isObject(item.meta) ? readNodeSortOrder(item.meta) : undefined,
        source: `data[${i}].id`,
      }));
      const node = db.transaction(() => {
        const { hierarchyId, nodeId } = request.params;
        const parent = findNode(db, request.store.id, hierarchyId, nodeId);
        for (const child of children) {
          const row = db
            .prepare('SELECT * FROM pcm_nodes WHERE id = ? AND hierarchy_id = ?')
            .get(child.id, parent.hierarchy_id) as unknown as NodeRow | undefined;
          if (row === undefined) {
            throw unprocessable(`No node with id ${child.id} in this hierarchy.`, child.source);
          }
          moveNode(db, row, parent.id, child.sortOrder, ctx.timestamp(), child.source);
        }
        return readNode(db, parent.id);
      })();
      return { data: presentNode(db, node) };
    });

    app.put<N>(`${NODE}/relationships/parent`, async (request, reply) => {
      const body = request.body;
      // The SDK's Relationships.Update sends type "relationships/product"; the id is what counts.
      const parentId = readIdentifier(
        isObject(body) ? body.data : undefined,
        ['node', 'relationships/product'],
        'data',
      ).id;
      db.transaction(() => {
        const { hierarchyId, nodeId } = request.params;
        const node = findNode(db, request.store.id, hierarchyId, nodeId);
        moveNode(db, node, parentId, undefined, ctx.timestamp(), 'data.id');
      })();
      return reply.code(204).send();
    });

    app.delete<N>(`${NODE}/relationships/parent`, async (request, reply) => {
      db.transaction(() => {
        const { hierarchyId, nodeId } = request.params;
        const node = findNode(db, request.store.id, hierarchyId, nodeId);
        moveNode(db, node, null, undefined, ctx.timestamp(), 'data');
      })();
      return reply.code(204).send();
    });
  };
}
