/**
 * Variations (`/pcm/variations`), their options (`…/{v}/options`) and the options' modifiers
 * (`…/{v}/options/{o}/modifiers`): create 201, list, read, update 200, delete 204. A variation
 * a product uses cannot be deleted (409) until the product lets it go.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { conflict } from '../errors.ts';
import { newId } from '../ids.ts';
import { listResources } from '../listing/index.ts';
import { readResource } from '../resource-body.ts';
import { findRecord } from './common.ts';
import { namedListSpec, plainListSpec } from './lists.ts';
import {
  type ModifierRow,
  type OptionRow,
  presentModifier,
  presentOption,
  presentVariation,
  readModifier,
  readNamedAttributes,
  type VariationRow,
} from './variations.ts';

type V = { Params: { variationId: string } };
type O = { Params: { variationId: string; optionId: string } };
type M = { Params: { variationId: string; optionId: string; modifierId: string } };

function findVariation(db: Db, storeId: string, id: string): VariationRow {
  return findRecord<VariationRow>(db, 'pcm_variations', storeId, id, 'variation');
}

function findOption(db: Db, storeId: string, variationId: string, id: string): OptionRow {
  const variation = findVariation(db, storeId, variationId);
  return findRecord<OptionRow>(
    db,
    'pcm_variation_options',
    storeId,
    id,
    'option of this variation',
    {
      column: 'variation_id',
      value: variation.id,
    },
  );
}

function optionsOf(db: Db, variationId: string): OptionRow[] {
  return db
    .prepare(
      'SELECT * FROM pcm_variation_options WHERE variation_id = ? ORDER BY sort_order DESC, created_at, id',
    )
    .all(variationId) as unknown as OptionRow[];
}

/** A PUT body's `data.id`, when given, must be the record in the path. */
function checkBodyId(id: string | undefined, pathId: string): void {
  if (id !== undefined && id.toLowerCase() !== pathId) {
    throw conflict(`data.id ${id} is not the record in the path (${pathId}).`, 'data.id');
  }
}

export function pcmVariationRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  return async (app) => {
    app.post('/variations', async (request, reply) => {
      const body = readResource(request.body, 'product-variation', {
        requireAttributes: true,
        relationships: [],
      });
      const input = readNamedAttributes(body.attributes, true, false);
      const now = ctx.timestamp();
      const row: VariationRow = {
        id: newId(),
        store_id: request.store.id,
        name: input.name ?? '',
        sort_order: input.sort_order ?? null,
        created_at: now,
        updated_at: now,
      };
      db.prepare(
        `INSERT INTO pcm_variations (id, store_id, name, sort_order, created_at, updated_at)
         VALUES (@id, @store_id, @name, @sort_order, @created_at, @updated_at)`,
      ).run({ ...row });
      reply.code(201);
      return { data: presentVariation(row, []) };
    });

    app.get('/variations', async (request) =>
      listResources({
        request,
        db,
        table: 'pcm_variations',
        scope: { store_id: request.store.id },
        spec: namedListSpec,
        map: (row: VariationRow) => presentVariation(row, optionsOf(db, row.id)),
      }),
    );

    app.get<V>('/variations/:variationId', async (request) => {
      const row = findVariation(db, request.store.id, request.params.variationId);
      return { data: presentVariation(row, optionsOf(db, row.id)) };
    });

    app.put<V>('/variations/:variationId', async (request) => {
      const body = readResource(request.body, 'product-variation', { relationships: [] });
      const input = readNamedAttributes(body.attributes, false, false);
      const row = db.transaction(() => {
        const current = findVariation(db, request.store.id, request.params.variationId);
        checkBodyId(body.id, current.id);
        const next = { ...current, ...input, updated_at: ctx.timestamp() };
        db.prepare(
          'UPDATE pcm_variations SET name = @name, sort_order = @sort_order, updated_at = @updated_at WHERE id = @id',
        ).run({ ...next });
        return next;
      })();
      return { data: presentVariation(row, optionsOf(db, row.id)) };
    });

    app.delete<V>('/variations/:variationId', async (request, reply) => {
      db.transaction(() => {
        const row = findVariation(db, request.store.id, request.params.variationId);
        const user = db
          .prepare('SELECT product_id FROM pcm_product_variations WHERE variation_id = ? LIMIT 1')
          .pluck()
          .get(row.id) as string | undefined;
        if (user !== undefined) {
          throw conflict(
            `Variation ${row.id} is used by product ${user}; remove it from the product's variations first.`,
          );
        }
        db.prepare('DELETE FROM pcm_variations WHERE id = ?').run(row.id);
      })();
      return reply.code(204).send();
    });

    app.post<V>('/variations/:variationId/options', async (request, reply) => {
      const body = readResource(request.body, 'product-variation-option', {
        requireAttributes: true,
        relationships: [],
      });
      const input = readNamedAttributes(body.attributes, true, true);
      const row = db.transaction(() => {
        const variation = findVariation(db, request.store.id, request.params.variationId);
        const now = ctx.timestamp();
        const option: OptionRow = {
          id: newId(),
          store_id: request.store.id,
          variation_id: variation.id,
          name: input.name ?? '',
          description: input.description ?? null,
          sort_order: input.sort_order ?? null,
          created_at: now,
          updated_at: now,
        };
        db.prepare(
          `INSERT INTO pcm_variation_options (id, store_id, variation_id, name, description, sort_order,
             created_at, updated_at)
           VALUES (@id, @store_id, @variation_id, @name, @description, @sort_order, @created_at, @updated_at)`,
        ).run({ ...option });
        return option;
      })();
      reply.code(201);
      return { data: presentOption(row) };
    });

    app.get<V>('/variations/:variationId/options', async (request) => {
      const variation = findVariation(db, request.store.id, request.params.variationId);
      return listResources({
        request,
        db,
        table: 'pcm_variation_options',
        scope: { store_id: request.store.id, variation_id: variation.id },
        spec: namedListSpec,
        map: presentOption,
      });
    });

    app.get<O>('/variations/:variationId/options/:optionId', async (request) => {
      const { variationId, optionId } = request.params;
      return { data: presentOption(findOption(db, request.store.id, variationId, optionId)) };
    });

    app.put<O>('/variations/:variationId/options/:optionId', async (request) => {
      const body = readResource(request.body, 'product-variation-option', { relationships: [] });
      const input = readNamedAttributes(body.attributes, false, true);
      const row = db.transaction(() => {
        const { variationId, optionId } = request.params;
        const current = findOption(db, request.store.id, variationId, optionId);
        checkBodyId(body.id, current.id);
        const next = { ...current, ...input, updated_at: ctx.timestamp() };
        db.prepare(
          `UPDATE pcm_variation_options SET name = @name, description = @description,
             sort_order = @sort_order, updated_at = @updated_at WHERE id = @id`,
        ).run({ ...next });
        return next;
      })();
      return { data: presentOption(row) };
    });

    app.delete<O>('/variations/:variationId/options/:optionId', async (request, reply) => {
      const { variationId, optionId } = request.params;
      const row = findOption(db, request.store.id, variationId, optionId);
      db.prepare('DELETE FROM pcm_variation_options WHERE id = ?').run(row.id);
      return reply.code(204).send();
    });

    const MODIFIERS = '/variations/:variationId/options/:optionId/modifiers';

    app.post<O>(MODIFIERS, async (request, reply) => {
      const body = readResource(request.body, ['product-variation-modifier', 'modifier'], {
        requireAttributes: true,
        relationships: [],
      });
      const input = readModifier(body.attributes);
      const row = db.transaction(() => {
        const { variationId, optionId } = request.params;
        const option = findOption(db, request.store.id, variationId, optionId);
        const now = ctx.timestamp();
        const modifier: ModifierRow = {
          id: newId(),
          store_id: request.store.id,
          option_id: option.id,
          modifier_type: input.type,
          body: JSON.stringify(input.body),
          created_at: now,
          updated_at: now,
        };
        db.prepare(
          `INSERT INTO pcm_option_modifiers (id, store_id, option_id, modifier_type, body, created_at, updated_at)
           VALUES (@id, @store_id, @option_id, @modifier_type, @body, @created_at, @updated_at)`,
        ).run({ ...modifier });
        return modifier;
      })();
      reply.code(201);
      return { data: presentModifier(row) };
    });

    app.get<O>(MODIFIERS, async (request) => {
      const { variationId, optionId } = request.params;
      const option = findOption(db, request.store.id, variationId, optionId);
      return listResources({
        request,
        db,
        table: 'pcm_option_modifiers',
        scope: { store_id: request.store.id, option_id: option.id },
        spec: plainListSpec,
        map: presentModifier,
      });
    });

    const findModifier = (storeId: string, params: M['Params']): ModifierRow => {
      const option = findOption(db, storeId, params.variationId, params.optionId);
      return findRecord<ModifierRow>(
        db,
        'pcm_option_modifiers',
        storeId,
        params.modifierId,
        'modifier of this option',
        {
          column: 'option_id',
          value: option.id,
        },
      );
    };

    app.get<M>(`${MODIFIERS}/:modifierId`, async (request) => ({
      data: presentModifier(findModifier(request.store.id, request.params)),
    }));

    app.put<M>(`${MODIFIERS}/:modifierId`, async (request) => {
      const body = readResource(request.body, ['product-variation-modifier', 'modifier'], {
        requireAttributes: true,
        relationships: [],
      });
      const input = readModifier(body.attributes);
      const row = db.transaction(() => {
        const current = findModifier(request.store.id, request.params);
        checkBodyId(body.id, current.id);
        const next: ModifierRow = {
          ...current,
          modifier_type: input.type,
          body: JSON.stringify(input.body),
          updated_at: ctx.timestamp(),
        };
        db.prepare(
          'UPDATE pcm_option_modifiers SET modifier_type = @modifier_type, body = @body, updated_at = @updated_at WHERE id = @id',
        ).run({ ...next });
        return next;
      })();
      return { data: presentModifier(row) };
    });

    app.delete<M>(`${MODIFIERS}/:modifierId`, async (request, reply) => {
      const row = findModifier(request.store.id, request.params);
      db.prepare('DELETE FROM pcm_option_modifiers WHERE id = ?').run(row.id);
      return reply.code(204).send();
    });
  };
}
