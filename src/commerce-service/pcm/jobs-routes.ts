/**
 * PXM jobs (`/pcm/jobs`): production runs builds, imports and exports as queued jobs. Here the
 * one kind there is, building a parent's children (`POST /pcm/products/{id}/build`), runs at
 * once: the 201 answers a job that already finished, `success` or `failed`, readable at
 * `GET /pcm/jobs/{id}` with its errors at `GET /pcm/jobs/{id}/errors`, as a client polling a
 * production job would find it. `POST /pcm/jobs/{id}/cancel` cancels a pending or started job
 * and answers 422 for a finished one, which every job here is by the time its id is known.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { unprocessable } from '../errors.ts';
import { newId } from '../ids.ts';
import { listResources, standardListSpec } from '../listing/index.ts';
import { BuildError, buildChildren } from './build.ts';
import { findRecord } from './common.ts';
import { productVariationIds } from './products.ts';
import { findProduct } from './products-routes.ts';

interface JobRow {
  id: string;
  store_id: string;
  job_type: string;
  status: string;
  meta: string;
  x_request_id: string;
  errors: string;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
}

function presentJob(row: JobRow) {
  return {
    id: row.id,
    type: 'pim-job',
    attributes: {
      type: row.job_type,
      status: row.status,
      started_at: row.started_at,
      completed_at: row.completed_at,
      created_at: row.created_at,
      updated_at: row.updated_at,
    },
    meta: { x_request_id: row.x_request_id, ...(JSON.parse(row.meta) as object) },
  };
}

const jobListSpec = standardListSpec({
  filters: {
    type: { column: 'job_type', kind: 'string', ops: ['eq', 'in'] },
    status: { column: 'status', kind: 'string', ops: ['eq', 'in'] },
  },
});

/** The caller's x-request-id when it is a plain token, else a fresh one. */
function requestIdOf(request: FastifyRequest): string {
  const header = request.headers['x-request-id'];
  return typeof header === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(header) ? header : newId();
}

function findJob(db: Db, storeId: string, id: string): JobRow {
  return findRecord<JobRow>(db, 'pcm_jobs', storeId, id, 'job');
}

export function pcmJobRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  return async (app) => {
    app.post<{ Params: { productId: string } }>(
      '/products/:productId/build',
      async (request, reply) => {
        const parent = findProduct(db, request.store.id, request.params.productId);
        if (parent.parent_id !== null) {
          throw unprocessable(`Product ${parent.id} is a child product; build its parent instead.`);
        }
        if (productVariationIds(db, parent.id).length === 0) {
          throw unprocessable(
            `Product ${parent.id} has no variations; give it relationships.variations before building.`,
          );
        }
        const created = ctx.timestamp();
        let status = 'success';
        const errors: string[] = [];
        try {
          buildChildren(db, parent, ctx.timestamp);
        } catch (error) {
          if (!(error instanceof BuildError)) throw error;
          status = 'failed';
          errors.push(error.message);
        }
        const done = ctx.timestamp();
        const row: JobRow = {
          id: newId(),
          store_id: request.store.id,
          job_type: 'child-products',
          status,
          meta: '{}',
          x_request_id: requestIdOf(request),
          errors: JSON.stringify(errors),
          started_at: created,
          completed_at: done,
          created_at: created,
          updated_at: done,
        };
        db.prepare(
          `INSERT INTO pcm_jobs (id, store_id, job_type, status, meta, x_request_id, errors,
             started_at, completed_at, created_at, updated_at)
           VALUES (@id, @store_id, @job_type, @status, @meta, @x_request_id, @errors, @started_at,
             @completed_at, @created_at, @updated_at)`,
        ).run({ ...row });
        reply.code(201);
        return { data: presentJob(row) };
      },
    );

    app.get('/jobs', async (request) =>
      listResources({
        request,
        db,
        table: 'pcm_jobs',
        scope: { store_id: request.store.id },
        spec: jobListSpec,
        map: presentJob,
      }),
    );

    app.get<{ Params: { jobId: string } }>('/jobs/:jobId', async (request) => ({
      data: presentJob(findJob(db, request.store.id, request.params.jobId)),
    }));

    // Only a job not yet finished can be cancelled; builds here finish within their request,
    // so this answers what production answers for a finished job.
    app.post<{ Params: { jobId: string } }>('/jobs/:jobId/cancel', async (request) => {
      const job = findJob(db, request.store.id, request.params.jobId);
      if (job.status !== 'pending' && job.status !== 'started') {
        throw unprocessable(
          `Job ${job.id} has already finished (${job.status}); only a pending or started job can be cancelled.`,
        );
      }
      const updated = { ...job, status: 'cancelled', updated_at: ctx.timestamp() };
      db.prepare('UPDATE pcm_jobs SET status = ?, updated_at = ? WHERE id = ?').run(
        updated.status,
        updated.updated_at,
        job.id,
      );
      return { data: presentJob(updated) };
    });

    app.get<{ Params: { jobId: string } }>('/jobs/:jobId/errors', async (request) => {
      const job = findJob(db, request.store.id, request.params.jobId);
      const messages = JSON.parse(job.errors) as string[];
      return {
        data: messages.map((message, i) => ({
          type: 'pim-job-error',
          id: `${job.id.slice(0, 24)}${i.toString(16).padStart(12, '0')}`,
          attributes: { message },
        })),
      };
    });
  };
}
