/**
 * Export jobs (`/v2/jobs`): `POST {data:{type:"job",job_type:"order_export",filter?}}` queues
 * an export of the store's orders (the filter in `GET /v2/orders` syntax, judged before the
 * job is made) and answers 202; `GET /v2/jobs/{id}` shows its status (pending, processing,
 * complete, failed). Once complete, `GET /v2/jobs/{id}/file` answers `{href}` as production
 * does (there a pre-signed link to the file) and the href, `GET /v2/jobs/{id}/file/content`,
 * answers the CSV itself (with the store's token, as `/v2/files/{id}/content` does).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { conflict, notFound } from '../errors.ts';
import { isUuid, newId } from '../ids.ts';
import { listResources, standardListSpec } from '../listing/index.ts';
import {
  checkType,
  optionalString,
  rejectUnknownKeys,
  requireData,
  requireEnum,
} from '../request-body.ts';
import { type ExportJobRow, judgeExportFilter, nudgeExports } from './order-export.ts';

/** Longest filter an export takes (the list's filter parameter is bounded as well). */
const MAX_FILTER = 8192;

function presentJob(row: ExportJobRow) {
  return {
    id: row.id,
    type: 'job',
    job_type: row.job_type,
    status: row.status,
    ...(row.filter === null ? {} : { filter: row.filter }),
    ...(row.error === null ? {} : { error: row.error }),
    // The js-sdk's Job reads `link.href` (the file) and `timestamps` at the top.
    ...(row.status === 'complete' ? { link: { href: `/v2/jobs/${row.id}/file/content` } } : {}),
    timestamps: { created_at: row.created_at, updated_at: row.updated_at },
    links: { self: `/v2/jobs/${row.id}` },
    meta: { timestamps: { created_at: row.created_at, updated_at: row.updated_at } },
  };
}

const COLUMNS =
  'id, store_id, job_type, status, filter, NULL AS file, error, created_at, updated_at';

function findJob(db: Db, storeId: string, id: string, columns = COLUMNS): ExportJobRow {
  const row = isUuid(id)
    ? (db
        .prepare(`SELECT ${columns} FROM export_jobs WHERE store_id = ? AND id = ?`)
        .get(storeId, id.toLowerCase()) as ExportJobRow | undefined)
    : undefined;
  if (!row) throw notFound(`No job with id ${id}.`);
  return row;
}

export function jobRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const spec = standardListSpec({
    filters: { status: { column: 'status', kind: 'string', ops: ['eq', 'in'] } },
  });
  return async (app) => {
    app.post('/jobs', async (request, reply) => {
      const data = requireData(request.body);
      checkType(data, 'job');
      rejectUnknownKeys(data, ['type', 'job_type', 'filter']);
      const jobType = requireEnum(data, 'job_type', ['order_export'] as const);
      const filter = optionalString(data, 'filter', { max: MAX_FILTER });
      judgeExportFilter(filter);
      const now = ctx.timestamp();
      const row: ExportJobRow = {
        id: newId(),
        store_id: request.store.id,
        job_type: jobType,
        status: 'pending',
        filter: filter ?? null,
        file: null,
        error: null,
        created_at: now,
        updated_at: now,
      };
      db.prepare(
        `INSERT INTO export_jobs (id, store_id, job_type, status, filter, created_at, updated_at)
         VALUES (@id, @store_id, @job_type, @status, @filter, @created_at, @updated_at)`,
      ).run({
        id: row.id,
        store_id: row.store_id,
        job_type: row.job_type,
        status: row.status,
        filter: row.filter,
        created_at: now,
        updated_at: now,
      });
      nudgeExports(db);
      reply.code(202);
      return { data: presentJob(row) };
    });

    app.get('/jobs', async (request) =>
      listResources({
        request,
        db,
        table: 'export_jobs',
        columns: COLUMNS,
        scope: { store_id: request.store.id },
        spec,
        map: presentJob,
      }),
    );

    app.get<{ Params: { jobId: string } }>('/jobs/:jobId', async (request) => ({
      data: presentJob(findJob(db, request.store.id, request.params.jobId)),
    }));

    const completed = (job: ExportJobRow): ExportJobRow => {
      if (job.status !== 'complete') {
        throw conflict(`Job ${job.id} is ${job.status}; its file is ready once it is complete.`);
      }
      return job;
    };

    app.get<{ Params: { jobId: string } }>('/jobs/:jobId/file', async (request) => {
      const job = completed(findJob(db, request.store.id, request.params.jobId));
      const origin = `${request.protocol}://${request.host}`;
      return { href: `${origin}/v2/jobs/${job.id}/file/content` };
    });

    app.get<{ Params: { jobId: string } }>('/jobs/:jobId/file/content', async (request, reply) => {
      const job = completed(findJob(db, request.store.id, request.params.jobId, '*'));
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="orders-${job.id}.csv"`)
        .send(job.file ?? '');
    });
  };
}
