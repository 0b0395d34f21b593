/**
 * Field definitions of a Custom API: `POST|GET /v2/settings/extensions/custom-apis/{id}/fields`
 * and `GET|PUT|DELETE …/fields/{fieldId}`. What a definition means for entries is in
 * custom-fields.ts. `field_type` is fixed at creation: stored values were judged against it.
 * Deleting a field leaves the entries' values in place (they are then plain attributes).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.ts';
import { cachedStatement, type Db } from '../db.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { newId } from '../ids.ts';
import { listResources, standardListSpec } from '../listing/index.ts';
import {
  isObject,
  type JsonObject,
  optionalBoolean,
  optionalString,
  rejectUnknownKeys,
  requireString,
} from '../request-body.ts';
import { requireAttributes } from '../resource-body.ts';
import {
  FIELD_TYPES,
  type FieldRow,
  type FieldType,
  fieldJson,
  parseValidation,
  RESERVED_FIELD_SLUGS,
  rulesOf,
} from './fields.ts';
import { findCustomApiById, parsePathId, SLUG_PATTERN } from './routes.ts';

/** What a field write may carry (request-body.ts requireAttributes). */
const ATTRIBUTES = [
  'type',
  'name',
  'slug',
  'field_type',
  'description',
  'validation',
  'use_as_url_slug',
  'presentation',
];

function optionalSlug(data: JsonObject): string | undefined {
  const slug = optionalString(data, 'slug', { pattern: SLUG_PATTERN });
  if (slug !== undefined && RESERVED_FIELD_SLUGS.includes(slug)) {
    throw badRequest(
      `"${slug}" is reserved and cannot be a field slug; reserved: ${RESERVED_FIELD_SLUGS.join(', ')}.`,
      'data.slug',
    );
  }
  return slug;
}

/** `presentation.sort_order`: undefined when not given, null to clear. */
function sortOrderOf(data: JsonObject): number | null | undefined {
  const presentation = data.presentation;
  if (presentation === undefined) return undefined;
  if (presentation === null) return null;
  if (!isObject(presentation)) {
    throw badRequest('presentation must be an object.', 'data.presentation');
  }
  rejectUnknownKeys(presentation, ['sort_order'], 'data.presentation');
  const order = presentation.sort_order;
  if (order === undefined || order === null) return null;
  if (!Number.isSafeInteger(order)) {
    throw badRequest('sort_order must be a whole number.', 'data.presentation.sort_order');
  }
  return order as number;
}

function checkUseAsUrlSlug(value: boolean | undefined, fieldType: FieldType): void {
  if (value === true && fieldType !== 'string') {
    throw badRequest('use_as_url_slug is only possible on a string field.', 'data.use_as_url_slug');
  }
}

function checkSlugFree(db: Db, customApiId: string, slug: string, exceptId: string): void {
  const taken = cachedStatement(
    db,
    'SELECT 1 FROM custom_api_fields WHERE custom_api_id = ? AND slug = ? AND id <> ?',
  ).get(customApiId, slug, exceptId);
  if (taken) {
    throw conflict(`This Custom API already has a field with slug "${slug}".`, 'data.slug');
  }
}

export function customFieldRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const base = '/settings/extensions/custom-apis/:id/fields';
  const apiOf = (request: FastifyRequest) =>
    findCustomApiById(
      db,
      request.store.id,
      parsePathId((request.params as { id: string }).id, 'Custom API'),
    );
  const findField = (customApiId: string, request: FastifyRequest): FieldRow => {
    const id = parsePathId((request.params as { fieldId: string }).fieldId, 'field');
    const row = cachedStatement(
      db,
      'SELECT * FROM custom_api_fields WHERE custom_api_id = ? AND id = ?',
    ).get(customApiId, id) as FieldRow | undefined;
    if (!row) throw notFound(`No field with id ${id} on this Custom API.`);
    return row;
  };

  return async (app) => {
    app.post(base, async (request, reply) => {
      const api = apiOf(request);
      const data = requireAttributes(request.body, 'custom_field', ATTRIBUTES);
      const name = requireString(data, 'name', { min: 1, max: 255 });
      const slug = optionalSlug(data);
      if (slug === undefined) throw badRequest('slug is required.', 'data.slug');
      const fieldType = requireString(data, 'field_type') as FieldType;
      if (!FIELD_TYPES.includes(fieldType)) {
        throw badRequest(
          `field_type must be one of ${FIELD_TYPES.join(', ')}, got "${fieldType}".`,
          'data.field_type',
        );
      }
      const description = optionalString(data, 'description', { max: 255 }) ?? '';
      const rules = parseValidation(fieldType, data.validation);
      const useAsUrlSlug = optionalBoolean(data, 'use_as_url_slug') ?? false;
      checkUseAsUrlSlug(useAsUrlSlug, fieldType);
      const sortOrder = sortOrderOf(data) ?? null;
      const id = newId();
      const now = ctx.timestamp();
      const row = db
        .transaction(() => {
          checkSlugFree(db, api.id, slug, id);
          const created: FieldRow = {
            id,
            store_id: api.store_id,
            custom_api_id: api.id,
            name,
            slug,
            field_type: fieldType,
            description,
            validation: JSON.stringify(rules),
            use_as_url_slug: useAsUrlSlug ? 1 : 0,
            sort_order: sortOrder,
            created_at: now,
            updated_at: now,
          };
          db.prepare(
            `INSERT INTO custom_api_fields (id, store_id, custom_api_id, name, slug, field_type,
               description, validation, use_as_url_slug, sort_order, created_at, updated_at)
             VALUES (@id, @store_id, @custom_api_id, @name, @slug, @field_type, @description,
               @validation, @use_as_url_slug, @sort_order, @created_at, @updated_at)`,
          ).run(created);
          return created;
        })
        .immediate();
      reply
        .code(201)
        .header('location', `/v2/settings/extensions/custom-apis/${api.id}/fields/${id}`);
      return { data: fieldJson(row) };
    });

    app.get(base, async (request) => {
      const api = apiOf(request);
      return listResources({
        request,
        db,
        table: 'custom_api_fields',
        scope: { store_id: api.store_id, custom_api_id: api.id },
        spec: standardListSpec({
          defaultSort: 'created_at',
          filters: {
            slug: { column: 'slug', kind: 'string', ops: ['eq', 'in', 'like'] },
            name: { column: 'name', kind: 'string', ops: ['eq', 'like'] },
            field_type: { column: 'field_type', kind: 'string', ops: ['eq', 'in'] },
          },
        }),
        map: (row: FieldRow) => fieldJson(row),
      });
    });

    app.get(`${base}/:fieldId`, async (request) => {
      const api = apiOf(request);
      return { data: fieldJson(findField(api.id, request)) };
    });

    app.put(`${base}/:fieldId`, async (request) => {
      const api = apiOf(request);
      const data = requireAttributes(request.body, 'custom_field', ATTRIBUTES);
      const name = optionalString(data, 'name', { min: 1, max: 255 });
      const slug = optionalSlug(data);
      const description = optionalString(data, 'description', { max: 255 });
      const useAsUrlSlug = optionalBoolean(data, 'use_as_url_slug');
      const sortOrder = sortOrderOf(data);
      const row = db
        .transaction(() => {
          const current = findField(api.id, request);
          if (data.field_type !== undefined && data.field_type !== current.field_type) {
            throw badRequest(
              `field_type cannot be changed (stored values were judged against it); it is "${current.field_type}".`,
              'data.field_type',
            );
          }
          if (slug !== undefined) checkSlugFree(db, api.id, slug, current.id);
          checkUseAsUrlSlug(useAsUrlSlug, current.field_type);
          const rules =
            data.validation === undefined
              ? rulesOf(current)
              : parseValidation(current.field_type, data.validation);
          const updated: FieldRow = {
            ...current,
            name: name ?? current.name,
            slug: slug ?? current.slug,
            description: description ?? current.description,
            validation: JSON.stringify(rules),
            use_as_url_slug:
              useAsUrlSlug === undefined ? current.use_as_url_slug : useAsUrlSlug ? 1 : 0,
            sort_order: sortOrder === undefined ? current.sort_order : sortOrder,
            updated_at: ctx.timestamp(),
          };
          db.prepare(
            `UPDATE custom_api_fields SET name = @name, slug = @slug, description = @description,
               validation = @validation, use_as_url_slug = @use_as_url_slug,
               sort_order = @sort_order, updated_at = @updated_at
             WHERE custom_api_id = @custom_api_id AND id = @id`,
          ).run(updated);
          return updated;
        })
        .immediate();
      return { data: fieldJson(row) };
    });

    app.delete(`${base}/:fieldId`, async (request, reply) => {
      const api = apiOf(request);
      const field = findField(api.id, request);
      db.prepare('DELETE FROM custom_api_fields WHERE custom_api_id = ? AND id = ?').run(
        api.id,
        field.id,
      );
      return reply.code(204).send();
    });
  };
}
