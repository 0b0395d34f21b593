/**
 * Custom APIs (user-defined resources): `POST|GET /v2/settings/extensions/custom-apis` and
 * `GET|PUT|DELETE /v2/settings/extensions/custom-apis/{id}`. Deleting one deletes its entries
 * (foreign key cascade). `api_type` is fixed at creation: entries carry it as their type.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.ts';
import { cachedStatement, type Db } from '../db.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { isUuid, newId } from '../ids.ts';
import { listResources, standardListSpec } from '../listing/index.ts';
import { optionalBoolean, optionalString, requireString } from '../request-body.ts';
import { requireAttributes } from '../resource-body.ts';

export const SLUG_PATTERN = /^[a-z0-9_-]{1,63}$/;
export const API_TYPE_PATTERN = /^[a-z0-9_]{1,59}_ext$/;

export interface CustomApiRow {
  id: string;
  store_id: string;
  name: string;
  description: string;
  slug: string;
  api_type: string;
  allow_upserts: number;
  created_at: string;
  updated_at: string;
}

export function customApiJson(row: CustomApiRow) {
  return {
    id: row.id,
    type: 'custom_api',
    name: row.name,
    description: row.description,
    slug: row.slug,
    api_type: row.api_type,
    allow_upserts: row.allow_upserts === 1,
    links: { self: `/settings/extensions/custom-apis/${row.id}` },
    meta: { timestamps: { created_at: row.created_at, updated_at: row.updated_at } },
  };
}

/** A path id: 400 when it is not a uuid, so a typo is not mistaken for a missing record. */
export function parsePathId(raw: string, what: string): string {
  if (!isUuid(raw)) {
    throw badRequest(`"${raw}" is not a valid ${what} id: expected a uuid.`);
  }
  return raw.toLowerCase();
}

export function findCustomApiById(db: Db, storeId: string, id: string): CustomApiRow {
  const row = cachedStatement(db, 'SELECT * FROM custom_apis WHERE store_id = ? AND id = ?').get(
    storeId,
    id,
  ) as CustomApiRow | undefined;
  if (!row) throw notFound(`No Custom API with id ${id}.`);
  return row;
}

export function findCustomApiBySlug(db: Db, storeId: string, slug: string): CustomApiRow {
  const row = SLUG_PATTERN.test(slug)
    ? (cachedStatement(db, 'SELECT * FROM custom_apis WHERE store_id = ? AND slug = ?').get(
        storeId,
        slug,
      ) as CustomApiRow | undefined)
    : undefined;
  if (!row) throw notFound(`No Custom API with slug "${slug}".`);
  return row;
}

/** What a Custom API write may carry (request-body.ts requireAttributes). */
const ATTRIBUTES = ['type', 'name', 'description', 'slug', 'api_type', 'allow_upserts'];

function checkUnique(db: Db, storeId: string, exceptId: string, slug?: string, apiType?: string) {
  if (slug !== undefined) {
    const taken = db
      .prepare('SELECT 1 FROM custom_apis WHERE store_id = ? AND slug = ? AND id <> ?')
      .get(storeId, slug, exceptId);
    if (taken) throw conflict(`A Custom API with slug "${slug}" already exists.`, 'data.slug');
  }
  if (apiType !== undefined) {
    const taken = db
      .prepare('SELECT 1 FROM custom_apis WHERE store_id = ? AND api_type = ? AND id <> ?')
      .get(storeId, apiType, exceptId);
    if (taken) {
      throw conflict(`A Custom API with api_type "${apiType}" already exists.`, 'data.api_type');
    }
  }
}

export function customApiRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const base = '/settings/extensions/custom-apis';
  const idOf = (request: FastifyRequest) =>
    parsePathId((request.params as { id: string }).id, 'Custom API');

  return async (app) => {
    app.post(base, async (request, reply) => {
      const data = requireAttributes(request.body, 'custom_api', ATTRIBUTES);
      const name = requireString(data, 'name', { min: 1, max: 255 });
      const description = optionalString(data, 'description', { max: 255 }) ?? '';
      const slug = requireString(data, 'slug', { pattern: SLUG_PATTERN });
      const apiType = requireString(data, 'api_type', { pattern: API_TYPE_PATTERN });
      const allowUpserts = optionalBoolean(data, 'allow_upserts') ?? false;
      const id = newId();
      const now = ctx.timestamp();
      const row = db
        .transaction(() => {
          checkUnique(db, request.store.id, id, slug, apiType);
          db.prepare(
            `INSERT INTO custom_apis
             (id, store_id, name, description, slug, api_type, allow_upserts, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          ).run(
            id,
            request.store.id,
            name,
            description,
            slug,
            apiType,
            allowUpserts ? 1 : 0,
            now,
            now,
          );
          return findCustomApiById(db, request.store.id, id);
        })
        .immediate();
      reply.code(201).header('location', `/v2${base}/${id}`);
      return { data: customApiJson(row) };
    });

    app.get(base, async (request) =>
      listResources({
        request,
        db,
        table: 'custom_apis',
        scope: { store_id: request.store.id },
        spec: standardListSpec({
          filters: {
            name: { column: 'name', kind: 'string', ops: ['eq', 'like'] },
            slug: { column: 'slug', kind: 'string', ops: ['eq', 'like'] },
            api_type: { column: 'api_type', kind: 'string', ops: ['eq', 'like'] },
          },
        }),
        map: (row: CustomApiRow) => customApiJson(row),
      }),
    );

    app.get(`${base}/:id`, async (request) => ({
      data: customApiJson(findCustomApiById(db, request.store.id, idOf(request))),
    }));

    app.put(`${base}/:id`, async (request) => {
      const id = idOf(request);
      const data = requireAttributes(request.body, 'custom_api', ATTRIBUTES);
      const name = optionalString(data, 'name', { min: 1, max: 255 });
      const description = optionalString(data, 'description', { max: 255 });
      const slug = optionalString(data, 'slug', { pattern: SLUG_PATTERN });
      const apiType = optionalString(data, 'api_type', { pattern: API_TYPE_PATTERN });
      const allowUpserts = optionalBoolean(data, 'allow_upserts');
      const row = db
        .transaction(() => {
          const current = findCustomApiById(db, request.store.id, id);
          if (apiType !== undefined && apiType !== current.api_type) {
            throw badRequest(
              `api_type cannot be changed (it is the type of every entry); it is "${current.api_type}".`,
              'data.api_type',
            );
          }
          checkUnique(db, request.store.id, id, slug);
          db.prepare(
            `UPDATE custom_apis SET name = ?, description = ?, slug = ?, allow_upserts = ?,
             updated_at = ? WHERE store_id = ? AND id = ?`,
          ).run(
            name ?? current.name,
            description ?? current.description,
            slug ?? current.slug,
            allowUpserts === undefined ? current.allow_upserts : allowUpserts ? 1 : 0,
            ctx.timestamp(),
            request.store.id,
            id,
          );
          return findCustomApiById(db, request.store.id, id);
        })
        .immediate();
      return { data: customApiJson(row) };
    });

    app.delete(`${base}/:id`, async (request, reply) => {
      const id = idOf(request);
      const { changes } = db
        .prepare('DELETE FROM custom_apis WHERE store_id = ? AND id = ?')
        .run(request.store.id, id);
      if (changes === 0) throw notFound(`No Custom API with id ${id}.`);
      return reply.code(204).send();
    });
  };
}
