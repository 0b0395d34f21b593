/**
 * Hierarchies (`/pcm/hierarchies`): create 201, list, read, update 200, delete 204 (its nodes
 * go with it), its top-level nodes (`/{h}/children`), and every node of the store
 * (`/hierarchies/nodes`, with `include_hierarchies=true` their hierarchies under `included`).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { conflict } from '../errors.ts';
import { newId } from '../ids.ts';
import { listResources } from '../listing/index.ts';
import { readResource } from '../resource-body.ts';
import { findRecord } from './common.ts';
import { childNodeListSpec, hierarchyListSpec, nodeListSpec } from './lists.ts';
import {
  type HierarchyRow,
  type NodeRow,
  presentHierarchy,
  presentNode,
  readTreeAttributes,
} from './nodes.ts';

type H = { Params: { hierarchyId: string } };

export function findHierarchy(db: Db, storeId: string, id: string): HierarchyRow {
  return findRecord<HierarchyRow>(db, 'pcm_hierarchies', storeId, id, 'hierarchy');
}

export function pcmHierarchyRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  return async (app) => {
    app.post('/hierarchies', async (request, reply) => {
      const body = readResource(request.body, 'hierarchy', {
        requireAttributes: true,
        relationships: ['children'],
      });
      const input = readTreeAttributes(body.attributes, true, '{}', false);
      const now = ctx.timestamp();
      const row: HierarchyRow = {
        id: newId(),
        store_id: request.store.id,
        name: input.name ?? '',
        slug: input.slug ?? null,
        description: input.description ?? null,
        extra: JSON.stringify(input.extra),
        created_at: now,
        updated_at: now,
      };
      db.prepare(
        `INSERT INTO pcm_hierarchies (id, store_id, name, slug, description, extra, created_at, updated_at)
         VALUES (@id, @store_id, @name, @slug, @description, @extra, @created_at, @updated_at)`,
      ).run({ ...row });
      reply.code(201);
      return { data: presentHierarchy(row) };
    });

    app.get('/hierarchies', async (request) =>
      listResources({
        request,
        db,
        table: 'pcm_hierarchies',
        scope: { store_id: request.store.id },
        spec: hierarchyListSpec,
        map: presentHierarchy,
      }),
    );

    app.get('/hierarchies/nodes', async (request) => {
      const list = listResources({
        request,
        db,
        table: 'pcm_nodes',
        scope: { store_id: request.store.id },
        spec: nodeListSpec,
        map: (row: NodeRow) => presentNode(db, row),
      });
      const flag = (request.query as Record<string, unknown>).include_hierarchies;
      if (flag !== 'true') return list;
      const ids = [...new Set(list.data.map((node) => node.meta.hierarchy_id))];
      const hierarchies = ids.map((id) =>
        presentHierarchy(findHierarchy(db, request.store.id, id)),
      );
      return { ...list, included: { hierarchies } };
    });

    app.get<H>('/hierarchies/:hierarchyId', async (request) => ({
      data: presentHierarchy(findHierarchy(db, request.store.id, request.params.hierarchyId)),
    }));

    app.put<H>('/hierarchies/:hierarchyId', async (request) => {
      const body = readResource(request.body, 'hierarchy', { relationships: ['children'] });
      const row = db.transaction(() => {
        const current = findHierarchy(db, request.store.id, request.params.hierarchyId);
        if (body.id !== undefined && body.id.toLowerCase() !== current.id) {
          throw conflict(
            `data.id ${body.id} is not the hierarchy in the path (${current.id}).`,
            'data.id',
          );
        }
        const input = readTreeAttributes(body.attributes, false, current.extra, false);
        const next: HierarchyRow = {
          ...current,
          name: input.name ?? current.name,
          slug: input.slug === undefined ? current.slug : input.slug,
          description: input.description === undefined ? current.description : input.description,
          extra: JSON.stringify(input.extra),
          updated_at: ctx.timestamp(),
        };
        db.prepare(
          `UPDATE pcm_hierarchies SET name = @name, slug = @slug, description = @description,
             extra = @extra, updated_at = @updated_at WHERE id = @id`,
        ).run({ ...next });
        return next;
      })();
      return { data: presentHierarchy(row) };
    });

    app.delete<H>('/hierarchies/:hierarchyId', async (request, reply) => {
      const row = findHierarchy(db, request.store.id, request.params.hierarchyId);
      // Its nodes, and their product memberships, go with it (foreign key cascades).
      db.prepare('DELETE FROM pcm_hierarchies WHERE id = ?').run(row.id);
      return reply.code(204).send();
    });

    app.get<H>('/hierarchies/:hierarchyId/children', async (request) => {
      const hierarchy = findHierarchy(db, request.store.id, request.params.hierarchyId);
      return listResources({
        request,
        db,
        table: 'pcm_nodes',
        scope: { store_id: request.store.id, hierarchy_id: hierarchy.id, parent_key: '' },
        spec: childNodeListSpec,
        map: (row: NodeRow) => presentNode(db, row),
      });
    });
  };
}
