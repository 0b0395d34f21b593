/**
 * Catalogs (`/catalogs`, and `/pcm/catalogs` as older docs and epcc-cli call it: both served)
 * and their releases: create, list (`name` eq/in/like), read, update, delete (409 while the
 * catalog has a release or a rule refers to it); publish (POST …/releases, synchronous), list,
 * read (by id, `latest` or `latestPublished`) and delete releases. The store's own data:
 * client_credentials only (scopes.ts).
 */

import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { conflict, unprocessable } from '../errors.ts';
import { newId } from '../ids.ts';
import { emitEvent } from '../integrations/events.ts';
import { creationOrderListSpec, listResources } from '../listing/index.ts';
import { ATTRIBUTES } from '../pcm/common.ts';
import { isObject, optionalText, requireData } from '../request-body.ts';
import { type CatalogInput, parseCatalog } from './bodies.ts';
import { publishCatalog } from './publish.ts';
import {
  type CatalogRow,
  findCatalog,
  findRelease,
  presentCatalog,
  presentRelease,
  type ReleaseRow,
} from './records.ts';

/** The paths catalogs are served under: production's and the older docs' (UNCERTAIN: both). */
export const CATALOG_BASES = ['/catalogs', '/pcm/catalogs'] as const;

interface CatalogParams {
  catalogId: string;
}
interface ReleaseParams extends CatalogParams {
  releaseId: string;
}

const catalogSpec = creationOrderListSpec({
  name: { column: 'name', kind: 'string', ops: ['eq', 'in', 'like'] },
});
const releaseSpec = creationOrderListSpec({});

/** 422 naming the first hierarchy or price book of the input the store does not have. */
function checkReferences(db: Db, storeId: string, input: CatalogInput): void {
  const has = (table: string, id: string) =>
    db.prepare(`SELECT 1 FROM ${table} WHERE store_id = ? AND id = ?`).get(storeId, id) !==
    undefined;
  (input.hierarchy_ids ?? []).forEach((id, i) => {
    if (!has('pcm_hierarchies', id)) {
      throw unprocessable(`No hierarchy with id ${id}.`, `${ATTRIBUTES}.hierarchy_ids[${i}]`);
    }
  });
  (input.pricebooks ?? []).forEach((book, i) => {
    if (!has('pricebooks', book.id)) {
      const source =
        input.single_pricebook === true
          ? `${ATTRIBUTES}.pricebook_id`
          : `${ATTRIBUTES}.pricebook_ids[${i}].id`;
      throw unprocessable(`No price book with id ${book.id}.`, source);
    }
  });
}

function extraOf(current: Record<string, unknown>, input: CatalogInput): string {
  const extra = { ...current };
  if (input.locales === null) delete extra.locales;
  else if (input.locales !== undefined) extra.locales = input.locales;
  if (input.enable_price_segmentation !== undefined) {
    extra.enable_price_segmentation = input.enable_price_segmentation;
  }
  if (input.enable_search !== undefined) extra.enable_search = input.enable_search;
  return JSON.stringify(extra);
}

/** The optional publish body: `{data:{export_full_delta?, include_organization_resources?}}`. */
function readPublishBody(body: unknown): { name?: string; description?: string } {
  if (body === undefined || body === null) return {};
  const data = requireData(body);
  const attributes = isObject(data.attributes) ? data.attributes : data;
  const name = optionalText(attributes, 'name');
  const description = optionalText(attributes, 'description', { blank: true, max: 1024 });
  return {
    ...(name === undefined ? {} : { name }),
    ...(description === undefined ? {} : { description }),
  };
}

export function catalogRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  return async (app) => {
    for (const base of CATALOG_BASES) {
      app.post(base, async (request, reply) => {
        const input = parseCatalog(request.body, true);
        const row = db
          .transaction(() => {
            checkReferences(db, request.store.id, input);
            const now = ctx.timestamp();
            const created: CatalogRow = {
              id: newId(),
              store_id: request.store.id,
              name: input.name ?? '',
              description: input.description ?? null,
              hierarchy_ids: JSON.stringify(input.hierarchy_ids ?? []),
              pricebooks: JSON.stringify(input.pricebooks ?? []),
              single_pricebook: input.single_pricebook === true ? 1 : 0,
              extra: extraOf({}, input),
              created_at: now,
              updated_at: now,
            };
            db.prepare(
              `INSERT INTO catalogs (id, store_id, name, description, hierarchy_ids, pricebooks,
                 single_pricebook, extra, created_at, updated_at)
               VALUES (@id, @store_id, @name, @description, @hierarchy_ids, @pricebooks,
                 @single_pricebook, @extra, @created_at, @updated_at)`,
            ).run(created);
            return created;
          })
          .immediate();
        reply.code(201);
        return { data: presentCatalog(db, row) };
      });

      app.get(base, async (request) =>
        db.transaction(() =>
          listResources({
            request,
            db,
            table: 'catalogs',
            scope: { store_id: request.store.id },
            spec: catalogSpec,
            map: (row: CatalogRow) => presentCatalog(db, row),
          }),
        )(),
      );

      app.get<{ Params: CatalogParams }>(`${base}/:catalogId`, async (request) => ({
        data: presentCatalog(db, findCatalog(db, request.store.id, request.params.catalogId)),
      }));

      app.put<{ Params: CatalogParams }>(`${base}/:catalogId`, async (request) => {
        const input = parseCatalog(request.body, false, request.params.catalogId);
        const row = db
          .transaction(() => {
            const current = findCatalog(db, request.store.id, request.params.catalogId);
            checkReferences(db, request.store.id, input);
            const next: CatalogRow = {
              ...current,
              name: input.name ?? current.name,
              description:
                input.description === undefined ? current.description : input.description,
              hierarchy_ids:
                input.hierarchy_ids === undefined
                  ? current.hierarchy_ids
                  : JSON.stringify(input.hierarchy_ids),
              pricebooks:
                input.pricebooks === undefined
                  ? current.pricebooks
                  : JSON.stringify(input.pricebooks),
              single_pricebook:
                input.single_pricebook === undefined
                  ? current.single_pricebook
                  : input.single_pricebook
                    ? 1
                    : 0,
              extra: extraOf(JSON.parse(current.extra) as Record<string, unknown>, input),
              updated_at: ctx.timestamp(),
            };
            db.prepare(
              `UPDATE catalogs SET name = @name, description = @description,
                 hierarchy_ids = @hierarchy_ids, pricebooks = @pricebooks,
                 single_pricebook = @single_pricebook, extra = @extra, updated_at = @updated_at
               WHERE id = @id`,
            ).run(next);
            return next;
          })
          .immediate();
        return { data: presentCatalog(db, row) };
      });

      app.delete<{ Params: CatalogParams }>(`${base}/:catalogId`, async (request, reply) => {
        db.transaction(() => {
          const catalog = findCatalog(db, request.store.id, request.params.catalogId);
          const rule = db
            .prepare('SELECT id FROM catalog_rules WHERE catalog_id = ? LIMIT 1')
            .pluck()
            .get(catalog.id) as string | undefined;
          if (rule !== undefined) {
            throw conflict(`Catalog rule ${rule} refers to this catalog: delete it first.`);
          }
          const published = db
            .prepare('SELECT 1 FROM catalog_releases WHERE catalog_id = ? LIMIT 1')
            .get(catalog.id);
          if (published !== undefined) {
            throw conflict('The catalog is published: delete its releases first.');
          }
          db.prepare('DELETE FROM catalogs WHERE id = ?').run(catalog.id);
        }).immediate();
        return reply.code(204).send();
      });

      app.post<{ Params: CatalogParams }>(`${base}/:catalogId/releases`, async (request, reply) => {
        const options = readPublishBody(request.body);
        const release = db
          .transaction(() => {
            const catalog = findCatalog(db, request.store.id, request.params.catalogId);
            const made = publishCatalog(db, catalog, { now: ctx.timestamp(), ...options });
            emitEvent(db, made.store_id, 'catalog-release.created', () => ({
              data: presentRelease(made),
            }));
            return made;
          })
          .immediate();
        reply.code(201);
        return { data: presentRelease(release) };
      });

      app.get<{ Params: CatalogParams }>(`${base}/:catalogId/releases`, async (request) =>
        db.transaction(() => {
          const catalog = findCatalog(db, request.store.id, request.params.catalogId);
          return listResources({
            request,
            db,
            table: 'catalog_releases',
            scope: { store_id: request.store.id, catalog_id: catalog.id },
            spec: releaseSpec,
            map: (row: ReleaseRow) => presentRelease(row),
          });
        })(),
      );

      app.get<{ Params: ReleaseParams }>(
        `${base}/:catalogId/releases/:releaseId`,
        async (request) => {
          const catalog = findCatalog(db, request.store.id, request.params.catalogId);
          return { data: presentRelease(findRelease(db, catalog, request.params.releaseId)) };
        },
      );

      app.delete<{ Params: ReleaseParams }>(
        `${base}/:catalogId/releases/:releaseId`,
        async (request, reply) => {
          db.transaction(() => {
            const catalog = findCatalog(db, request.store.id, request.params.catalogId);
            const release = findRelease(db, catalog, request.params.releaseId);
            db.prepare('DELETE FROM catalog_releases WHERE id = ?').run(release.id);
          }).immediate();
          return reply.code(204).send();
        },
      );

      app.delete<{ Params: CatalogParams }>(
        `${base}/:catalogId/releases`,
        async (request, reply) => {
          db.transaction(() => {
            const catalog = findCatalog(db, request.store.id, request.params.catalogId);
            db.prepare('DELETE FROM catalog_releases WHERE catalog_id = ?').run(catalog.id);
          }).immediate();
          return reply.code(204).send();
        },
      );
    }
  };
}
