/**
 * Order exports (`/v2/jobs`, job_type `order_export`): the request queues a job and answers
 * 202; this runner writes the store's orders matching the job's filter to a CSV file kept with
 * the job, a batch of orders per turn of the event loop so requests are served meanwhile. Jobs
 * left pending or half done by a stop are run again at the next start.
 */
import { cachedStatement, type Db } from '../db.ts';
import { standardListSpec } from '../listing/index.ts';
import { parseListQuery } from '../listing/parse.ts';
import type { OrderRow } from '../orders/routes.ts';

export interface ExportJobRow {
  id: string;
  store_id: string;
  job_type: 'order_export';
  status: 'pending' | 'processing' | 'complete' | 'failed';
  filter: string | null;
  file: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}

/** The filters and sorts of `GET /v2/orders`: an export's filter is judged as that list's. */
export const EXPORT_FILTER_SPEC = standardListSpec();

/** Parses `filter` as `GET /v2/orders?filter=` would; 400 on anything it would refuse. */
export function judgeExportFilter(filter: string | undefined) {
  return parseListQuery(filter === undefined ? {} : { filter }, EXPORT_FILTER_SPEC, 25).conditions;
}

const COLUMNS = [
  'id',
  'status',
  'payment',
  'shipping',
  'customer_id',
  'customer_name',
  'customer_email',
  'currency',
  'total_amount',
  'without_discount_amount',
  'discount_amount',
  'created_at',
  'updated_at',
] as const;

/**
 * One CSV field (RFC 4180): quoted when it holds a quote, comma or line break. A text cell
 * starting with `=`, `+`, `-` or `@` gets a leading `'`, so a spreadsheet shows a customer's
 * name instead of running it as a formula.
 */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function csvLine(order: OrderRow): string {
  const values: Record<(typeof COLUMNS)[number], string | number | null> = {
    id: order.id,
    status: order.status,
    payment: order.payment,
    shipping: order.shipping,
    customer_id: order.customer_id,
    customer_name: order.customer_name,
    customer_email: order.customer_email,
    currency: order.currency,
    total_amount: order.with_tax,
    without_discount_amount: order.without_discount,
    discount_amount: order.discount,
    created_at: order.created_at,
    updated_at: order.updated_at,
  };
  return `${COLUMNS.map((column) => csvField(values[column])).join(',')}\r\n`;
}

/** Orders per turn of the event loop. */
const BATCH = 500;

export interface ExportRunner {
  /** A job was queued: run it soon. */
  nudge(): void;
  stop(): Promise<void>;
}

const runners = new WeakMap<Db, ExportRunner>();

/** A job was queued on `db`: its service's runner looks soon. */
export function nudgeExports(db: Db): void {
  runners.get(db)?.nudge();
}

export function startExportRunner(db: Db, timestamp: () => string): ExportRunner {
  let stopped = false;
  let running: Promise<void> | undefined;

  const next = () =>
    cachedStatement(
      db,
      `SELECT * FROM export_jobs WHERE status IN ('pending', 'processing')
       ORDER BY created_at, id LIMIT 1`,
    ).get() as ExportJobRow | undefined;
  const setStatus = (
    id: string,
    status: ExportJobRow['status'],
    file: string | null,
    error: string | null,
  ) =>
    cachedStatement(
      db,
      'UPDATE export_jobs SET status = ?, file = ?, error = ?, updated_at = ? WHERE id = ?',
    ).run(status, file, error, timestamp(), id);

  async function runAll(): Promise<void> {
    for (let job = next(); job !== undefined && !stopped; job = next()) {
      setStatus(job.id, 'processing', null, null);
      try {
        const file = await exportOrders(job);
        if (file === undefined) return; // stopped: processing again at the next start
        setStatus(job.id, 'complete', file, null);
      } catch (error) {
        setStatus(job.id, 'failed', null, (error as Error).message);
      }
    }
  }

  async function exportOrders(job: ExportJobRow): Promise<string | undefined> {
    const conditions = judgeExportFilter(job.filter ?? undefined);
    const where = ['store_id = ?', ...conditions.map((c) => c.sql)].join(' AND ');
    const params = [job.store_id, ...conditions.flatMap((c) => c.params)];
    const page = cachedStatement(
      db,
      `SELECT * FROM orders WHERE ${where} AND (created_at > ? OR (created_at = ? AND id > ?))
       ORDER BY created_at, id LIMIT ${BATCH}`,
    );
    const parts = [`${COLUMNS.join(',')}\r\n`];
    let after = { created_at: '', id: '' };
    for (;;) {
      const rows = page.all(...params, after.created_at, after.created_at, after.id) as OrderRow[];
      for (const row of rows) parts.push(csvLine(row));
      const last = rows.at(-1);
      if (rows.length < BATCH || last === undefined) return parts.join('');
      after = { created_at: last.created_at, id: last.id };
      await new Promise((resolve) => setImmediate(resolve));
      if (stopped) return undefined;
    }
  }

  const nudge = () => {
    if (stopped || running) return;
    running = new Promise<void>((resolve) => setImmediate(resolve))
      .then(runAll)
      .catch((error: unknown) => console.error('order export failed unexpectedly', error))
      .finally(() => {
        running = undefined;
      });
  };
  // Jobs a stop left behind.
  nudge();
  const runner: ExportRunner = {
    nudge() {
      if (running) void running.then(nudge);
      else nudge();
    },
    async stop() {
      stopped = true;
      await running;
    },
  };
  runners.set(db, runner);
  return runner;
}
