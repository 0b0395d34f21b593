/**
 * Integrations (`/v2/integrations`): CRUD of webhooks (aws_sqs and stomp integrations are
 * stored and listed, never delivered), their jobs (one event for one integration) and the log
 * of every delivery attempt, store-wide, per integration and per job. Lists are read in
 * creation order, oldest first (production documents no sort for them), so an offset walk does
 * not shift as deliveries add rows. Delivery itself is ../integrations/deliverer.ts.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { notFound } from '../errors.ts';
import { isUuid, newId } from '../ids.ts';
import {
  creationOrderListSpec,
  type ListAttribute,
  listResources,
  standardListSpec,
} from '../listing/index.ts';
import type { JsonObject } from '../request-body.ts';
import {
  type IntegrationJobRow,
  type IntegrationRow,
  judgeConfiguration,
  parseIntegration,
  presentIntegration,
  presentJob,
  presentLog,
} from './records.ts';

function findIntegration(db: Db, storeId: string, id: string): IntegrationRow {
  const row = isUuid(id)
    ? (db
        .prepare('SELECT * FROM integrations WHERE store_id = ? AND id = ?')
        .get(storeId, id.toLowerCase()) as IntegrationRow | undefined)
    : undefined;
  if (!row) throw notFound(`No integration with id ${id}.`);
  return row;
}

function findJob(db: Db, integration: IntegrationRow, id: string): IntegrationJobRow {
  const row = isUuid(id)
    ? (db
        .prepare('SELECT * FROM integration_jobs WHERE integration_id = ? AND id = ?')
        .get(integration.id, id.toLowerCase()) as IntegrationJobRow | undefined)
    : undefined;
  if (!row) throw notFound(`No job ${id} for integration ${integration.id}.`);
  return row;
}

type Params = { integrationId: string };

export function integrationRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const spec = standardListSpec({
    filters: {
      integration_type: { column: 'integration_type', kind: 'string', ops: ['eq'] },
      name: { column: 'name', kind: 'string', ops: ['eq', 'like'] },
    },
  });
  // `eq`/`in` on id: what a client (the gateway's node lookups) needs to read rows it knows.
  const byId: Record<string, ListAttribute> = {
    id: { column: 'id', kind: 'id', ops: ['eq', 'in'] },
  };
  const logSpec = creationOrderListSpec({ ...byId });
  const jobSpec = creationOrderListSpec({
    ...byId,
    status: { column: 'status', kind: 'string', ops: ['eq', 'in'] },
    triggered_by: { column: 'triggered_by', kind: 'string', ops: ['eq', 'in'] },
  });
  return async (app) => {
    app.post('/integrations', async (request, reply) => {
      const input = parseIntegration(request.body, true);
      const type = input.integration_type ?? 'webhook';
      const configuration = judgeConfiguration(type, input.configuration, {});
      const now = ctx.timestamp();
      const row: IntegrationRow = {
        id: newId(),
        store_id: request.store.id,
        name: input.name ?? '',
        description: input.description ?? null,
        enabled: input.enabled === false ? 0 : 1,
        integration_type: type,
        observes: JSON.stringify(input.observes ?? []),
        configuration: JSON.stringify(configuration),
        created_at: now,
        updated_at: now,
      };
      db.prepare(
        `INSERT INTO integrations (id, store_id, name, description, enabled, integration_type,
           observes, configuration, created_at, updated_at)
         VALUES (@id, @store_id, @name, @description, @enabled, @integration_type, @observes,
           @configuration, @created_at, @updated_at)`,
      ).run({ ...row });
      reply.code(201);
      return { data: presentIntegration(row) };
    });

    app.get('/integrations', async (request) =>
      listResources({
        request,
        db,
        table: 'integrations',
        scope: { store_id: request.store.id },
        spec,
        map: presentIntegration,
      }),
    );

    // Before /integrations/:integrationId in meaning, not in registration: fastify's router
    // prefers the static segment.
    app.get('/integrations/logs', async (request) =>
      listResources({
        request,
        db,
        table: 'integration_logs',
        scope: { store_id: request.store.id },
        spec: logSpec,
        map: presentLog,
      }),
    );

    app.get<{ Params: Params }>('/integrations/:integrationId', async (request) => ({
      data: presentIntegration(findIntegration(db, request.store.id, request.params.integrationId)),
    }));

    app.put<{ Params: Params }>('/integrations/:integrationId', async (request) => {
      const input = parseIntegration(request.body, false);
      const row = db.transaction(() => {
        const current = findIntegration(db, request.store.id, request.params.integrationId);
        const type = input.integration_type ?? current.integration_type;
        // A change of type starts a new configuration: the old type's secrets do not carry over.
        const stored =
          type === current.integration_type
            ? (JSON.parse(current.configuration) as JsonObject)
            : {};
        const next: IntegrationRow = {
          ...current,
          name: input.name ?? current.name,
          description: input.description === undefined ? current.description : input.description,
          enabled: input.enabled === undefined ? current.enabled : input.enabled ? 1 : 0,
          integration_type: type,
          observes: input.observes ? JSON.stringify(input.observes) : current.observes,
          configuration: JSON.stringify(judgeConfiguration(type, input.configuration, stored)),
          updated_at: ctx.timestamp(),
        };
        db.prepare(
          `UPDATE integrations SET name = @name, description = @description, enabled = @enabled,
             integration_type = @integration_type, observes = @observes,
             configuration = @configuration, updated_at = @updated_at WHERE id = @id`,
        ).run({ ...next });
        return next;
      })();
      return { data: presentIntegration(row) };
    });

    app.delete<{ Params: Params }>('/integrations/:integrationId', async (request, reply) => {
      const row = findIntegration(db, request.store.id, request.params.integrationId);
      // Its jobs and logs go with it (foreign keys); a delivery in flight is not logged.
      db.prepare('DELETE FROM integrations WHERE id = ?').run(row.id);
      return reply.code(204).send();
    });

    app.get<{ Params: Params }>('/integrations/:integrationId/logs', async (request) => {
      const integration = findIntegration(db, request.store.id, request.params.integrationId);
      return listResources({
        request,
        db,
        table: 'integration_logs',
        scope: { store_id: request.store.id, integration_id: integration.id },
        spec: logSpec,
        map: presentLog,
      });
    });

    app.get<{ Params: Params }>('/integrations/:integrationId/jobs', async (request) => {
      const integration = findIntegration(db, request.store.id, request.params.integrationId);
      return listResources({
        request,
        db,
        table: 'integration_jobs',
        scope: { store_id: request.store.id, integration_id: integration.id },
        spec: jobSpec,
        map: presentJob,
      });
    });

    app.get<{ Params: Params & { jobId: string } }>(
      '/integrations/:integrationId/jobs/:jobId',
      async (request) => {
        const integration = findIntegration(db, request.store.id, request.params.integrationId);
        return { data: presentJob(findJob(db, integration, request.params.jobId)) };
      },
    );

    app.get<{ Params: Params & { jobId: string } }>(
      '/integrations/:integrationId/jobs/:jobId/logs',
      async (request) => {
        const integration = findIntegration(db, request.store.id, request.params.integrationId);
        const job = findJob(db, integration, request.params.jobId);
        return listResources({
          request,
          db,
          table: 'integration_logs',
          scope: { store_id: request.store.id, job_id: job.id },
          spec: logSpec,
          map: presentLog,
        });
      },
    );
  };
}
