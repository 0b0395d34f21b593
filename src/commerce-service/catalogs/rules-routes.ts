/**
 * Catalog rules (`/catalogs/rules`, and `/pcm/catalogs/rules`): which shoppers see which
 * catalog (channels, tags, customer and account ids, schedules). Create, list (eq/in on id,
 * catalog_id and the context lists), read, update, delete. Resolution is catalogs/resolve.ts.
 * The store's own data: client_credentials only (scopes.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { isApiError, unprocessable } from '../errors.ts';
import { newId } from '../ids.ts';
import { creationOrderListSpec, type ListAttribute, listResources } from '../listing/index.ts';
import { ATTRIBUTES } from '../pcm/common.ts';
import { parseRule, RULE_LISTS, type RuleInput } from './bodies.ts';
import { findCatalog, findRule, presentRule, type RuleRow } from './records.ts';
import { CATALOG_BASES } from './routes.ts';

interface RuleParams {
  ruleId: string;
}

const idAttribute = (column: string): ListAttribute => ({ column, kind: 'id', ops: ['eq', 'in'] });
const listAttribute = (column: string): ListAttribute => ({
  column,
  kind: 'string',
  ops: ['eq', 'in'],
  array: true,
});

const ruleSpec = creationOrderListSpec({
  id: idAttribute('id'),
  catalog_id: idAttribute('catalog_id'),
  name: { column: 'name', kind: 'string', ops: ['eq', 'in'] },
  account_ids: listAttribute('account_ids'),
  customer_ids: listAttribute('customer_ids'),
  channels: listAttribute('channels'),
  tags: listAttribute('tags'),
});

/** The rule's catalog must be one of the store's: 422 otherwise. */
function checkCatalog(db: Db, storeId: string, catalogId: string | undefined): void {
  if (catalogId === undefined) return;
  try {
    findCatalog(db, storeId, catalogId);
  } catch (error) {
    if (isApiError(error) && error.status === 404) {
      throw unprocessable(`No catalog with id ${catalogId}.`, `${ATTRIBUTES}.catalog_id`);
    }
    throw error;
  }
}

function merged(current: RuleRow, input: RuleInput, now: string): RuleRow {
  const next: RuleRow = {
    ...current,
    name: input.name ?? current.name,
    catalog_id: input.catalog_id ?? current.catalog_id,
    description: input.description === undefined ? current.description : input.description,
    schedules: input.schedules === undefined ? current.schedules : JSON.stringify(input.schedules),
    pricebook_ids:
      input.pricebook_ids === undefined
        ? current.pricebook_ids
        : JSON.stringify(input.pricebook_ids),
    updated_at: now,
  };
  for (const key of RULE_LISTS) {
    const list = input[key];
    if (list !== undefined) next[key] = JSON.stringify(list);
  }
  return next;
}

const WRITE = `(id, store_id, name, catalog_id, description, account_ids, account_tag_ids,
  customer_ids, channels, tags, schedules, pricebook_ids, created_at, updated_at)`;
const VALUES = `(@id, @store_id, @name, @catalog_id, @description, @account_ids,
  @account_tag_ids, @customer_ids, @channels, @tags, @schedules, @pricebook_ids, @created_at,
  @updated_at)`;

export function catalogRuleRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  return async (app) => {
    for (const catalogs of CATALOG_BASES) {
      const base = `${catalogs}/rules`;
      app.post(base, async (request, reply) => {
        const input = parseRule(request.body, true);
        const row = db
          .transaction(() => {
            checkCatalog(db, request.store.id, input.catalog_id);
            const now = ctx.timestamp();
            const empty: RuleRow = {
              id: newId(),
              store_id: request.store.id,
              name: '',
              catalog_id: '',
              description: null,
              account_ids: '[]',
              account_tag_ids: '[]',
              customer_ids: '[]',
              channels: '[]',
              tags: '[]',
              schedules: '[]',
              pricebook_ids: '[]',
              created_at: now,
              updated_at: now,
            };
            const created = merged(empty, input, now);
            db.prepare(`INSERT INTO catalog_rules ${WRITE} VALUES ${VALUES}`).run(created);
            return created;
          })
          .immediate();
        reply.code(201);
        return { data: presentRule(row) };
      });

      app.get(base, async (request) =>
        listResources({
          request,
          db,
          table: 'catalog_rules',
          scope: { store_id: request.store.id },
          spec: ruleSpec,
          map: presentRule,
        }),
      );

      app.get<{ Params: RuleParams }>(`${base}/:ruleId`, async (request) => ({
        data: presentRule(findRule(db, request.store.id, request.params.ruleId)),
      }));

      app.put<{ Params: RuleParams }>(`${base}/:ruleId`, async (request) => {
        const input = parseRule(request.body, false, request.params.ruleId);
        const row = db
          .transaction(() => {
            const current = findRule(db, request.store.id, request.params.ruleId);
            checkCatalog(db, request.store.id, input.catalog_id);
            const next = merged(current, input, ctx.timestamp());
            db.prepare(`DELETE FROM catalog_rules WHERE id = ?`).run(current.id);
            db.prepare(`INSERT INTO catalog_rules ${WRITE} VALUES ${VALUES}`).run(next);
            return next;
          })
          .immediate();
        return { data: presentRule(row) };
      });

      app.delete<{ Params: RuleParams }>(`${base}/:ruleId`, async (request, reply) => {
        const rule = findRule(db, request.store.id, request.params.ruleId);
        db.prepare('DELETE FROM catalog_rules WHERE id = ?').run(rule.id);
        return reply.code(204).send();
      });
    }
  };
}
