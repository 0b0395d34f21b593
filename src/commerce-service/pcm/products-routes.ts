/**
 * PXM products (`/pcm/products`): create, list, read, update, delete, and a parent's children.
 * A duplicate SKU in the store is a 409. Updating a child directly detaches it from its parent
 * (production: it becomes independent; a rebuild does not recreate it).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { badRequest, conflict } from '../errors.ts';
import { newId } from '../ids.ts';
import { listResources } from '../listing/index.ts';
import { readResource } from '../resource-body.ts';
import { findRecord } from './common.ts';
import { productListSpec } from './lists.ts';
import {
  checkFiles,
  checkSkuFree,
  checkVariations,
  mergeExtra,
  type ProductInput,
  type ProductRow,
  presentProduct,
  readProductInput,
  setProductVariations,
} from './products.ts';

type Params = { Params: { productId: string } };

const COLUMNS = [
  'name',
  'commodity_type',
  'sku',
  'slug',
  'status',
  'description',
  'upc_ean',
  'mpn',
  'external_ref',
] as const;

export function findProduct(db: Db, storeId: string, id: string): ProductRow {
  return findRecord<ProductRow>(db, 'pcm_products', storeId, id, 'product');
}

/** The type a product that is not a child has: parent (built children), bundle, or standard. */
export function refreshProductType(db: Db, productId: string): void {
  db.prepare(
    `UPDATE pcm_products SET product_type = CASE
       WHEN EXISTS (SELECT 1 FROM pcm_products c WHERE c.parent_id = pcm_products.id) THEN 'parent'
       WHEN json_extract(extra, '$.components') IS NOT NULL THEN 'bundle'
       ELSE 'standard' END
     WHERE id = ? AND parent_id IS NULL`,
  ).run(productId);
}

/** Checks what a write refers to (SKU free, variations and files exist), inside its transaction. */
function checkReferences(db: Db, storeId: string, input: ProductInput, exceptId?: string): void {
  const sku = input.columns.sku;
  if (typeof sku === 'string') checkSkuFree(db, storeId, sku, exceptId);
  if (input.variations) checkVariations(db, storeId, input.variations);
  if (input.mainImage) {
    checkFiles(db, storeId, [input.mainImage], 'data.relationships.main_image.data.id');
  }
  if (input.files) checkFiles(db, storeId, input.files, 'data.relationships.files.data');
}

function writeRow(db: Db, row: ProductRow, creating: boolean): void {
  if (creating) {
    db.prepare(
      `INSERT INTO pcm_products (id, store_id, name, commodity_type, sku, slug, status, description,
         upc_ean, mpn, external_ref, tags, extra, product_type, parent_id, child_key, detached_from,
         child_variations, price_modifiers, main_image_id, files, created_at, updated_at)
       VALUES (@id, @store_id, @name, @commodity_type, @sku, @slug, @status, @description,
         @upc_ean, @mpn, @external_ref, @tags, @extra, @product_type, @parent_id, @child_key,
         @detached_from, @child_variations, @price_modifiers, @main_image_id, @files, @created_at,
         @updated_at)`,
    ).run({ ...row });
    return;
  }
  db.prepare(
    `UPDATE pcm_products SET name = @name, commodity_type = @commodity_type, sku = @sku,
       slug = @slug, status = @status, description = @description, upc_ean = @upc_ean, mpn = @mpn,
       external_ref = @external_ref, tags = @tags, extra = @extra, product_type = @product_type,
       parent_id = @parent_id, detached_from = @detached_from, main_image_id = @main_image_id,
       files = @files, updated_at = @updated_at
     WHERE id = @id`,
  ).run({ ...row });
}

/** Applies an input to a row (a copy): columns, tags, extra, relationships. */
function applyInput(row: ProductRow, input: ProductInput): ProductRow {
  const next: ProductRow = { ...row };
  for (const column of COLUMNS) {
    const value = input.columns[column];
    if (value !== undefined) (next as unknown as Record<string, string | null>)[column] = value;
  }
  if (input.tags !== undefined) next.tags = JSON.stringify(input.tags);
  next.extra = mergeExtra(row.extra, input.extra);
  if (input.mainImage !== undefined) next.main_image_id = input.mainImage;
  if (input.files !== undefined) next.files = JSON.stringify(input.files);
  return next;
}

export function pcmProductRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  return async (app) => {
    app.post('/products', async (request, reply) => {
      const body = readResource(request.body, 'product', { requireAttributes: true });
      const input = readProductInput(body.attributes, body.relationships, true);
      const storeId = request.store.id;
      const row = db.transaction(() => {
        checkReferences(db, storeId, input);
        const now = ctx.timestamp();
        const blank: ProductRow = {
          id: newId(),
          store_id: storeId,
          name: '',
          commodity_type: 'physical',
          sku: null,
          slug: null,
          status: 'draft',
          description: null,
          upc_ean: null,
          mpn: null,
          external_ref: null,
          tags: '[]',
          extra: '{}',
          product_type: 'standard',
          parent_id: null,
          child_key: null,
          detached_from: null,
          child_variations: null,
          price_modifiers: '[]',
          main_image_id: null,
          files: '[]',
          created_at: now,
          updated_at: now,
        };
        const created = applyInput(blank, input);
        if (input.extra.components) created.product_type = 'bundle';
        writeRow(db, created, true);
        if (input.variations) setProductVariations(db, created.id, input.variations);
        return created;
      })();
      reply.code(201);
      return { data: presentProduct(db, row) };
    });

    app.get('/products', async (request) =>
      listResources({
        request,
        db,
        table: 'pcm_products',
        scope: { store_id: request.store.id },
        spec: productListSpec,
        map: (row: ProductRow) => presentProduct(db, row),
      }),
    );

    app.get<Params>('/products/:productId', async (request) => ({
      data: presentProduct(db, findProduct(db, request.store.id, request.params.productId)),
    }));

    app.put<Params>('/products/:productId', async (request) => {
      const body = readResource(request.body, 'product');
      if (body.id === undefined) {
        throw badRequest('data.id is required and must be the product id in the path.', 'data.id');
      }
      const input = readProductInput(body.attributes, body.relationships, false);
      const storeId = request.store.id;
      const row = db.transaction(() => {
        const current = findProduct(db, storeId, request.params.productId);
        if (body.id?.toLowerCase() !== current.id) {
          throw conflict(
            `data.id ${body.id} is not the product in the path (${current.id}).`,
            'data.id',
          );
        }
        checkReferences(db, storeId, input, current.id);
        const next = applyInput(current, input);
        next.updated_at = ctx.timestamp();
        if (current.parent_id !== null) {
          // A child updated directly becomes independent of its parent.
          next.parent_id = null;
          next.detached_from = current.parent_id;
          next.product_type = 'standard';
        }
        writeRow(db, next, false);
        if (input.variations) setProductVariations(db, next.id, input.variations);
        refreshProductType(db, next.id);
        if (current.parent_id !== null) refreshProductType(db, current.parent_id);
        return findProduct(db, storeId, next.id);
      })();
      return { data: presentProduct(db, row) };
    });

    app.delete<Params>('/products/:productId', async (request, reply) => {
      db.transaction(() => {
        const row = findProduct(db, request.store.id, request.params.productId);
        // Its children go with it (foreign key cascade), and so do its node memberships.
        db.prepare('DELETE FROM pcm_products WHERE id = ?').run(row.id);
        if (row.parent_id !== null) refreshProductType(db, row.parent_id);
      })();
      return reply.code(204).send();
    });

    app.get<Params>('/products/:productId/children', async (request) => {
      const parent = findProduct(db, request.store.id, request.params.productId);
      return listResources({
        request,
        db,
        table: 'pcm_products',
        scope: { store_id: request.store.id, parent_id: parent.id },
        spec: productListSpec,
        map: (row: ProductRow) => presentProduct(db, row),
      });
    });
  };
}
