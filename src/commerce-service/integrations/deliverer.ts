/**
 * The outbox deliverer: posts each pending integration job (one event for one webhook) to its
 * URL with the documented payload and `X-Moltin-Secret-Key`, records every attempt as a log,
 * and retries a failure (non-2xx, no answer, or slower than `timeoutMs`) after a growing wait
 * until `maxAttempts`. It reads due jobs from the database, so a job committed before a
 * restart is delivered after it: delivery is at least once (a process killed after the
 * receiver answered but before the log was written sends the event again), and unordered.
 */
import { request } from 'undici';
import type { WebhookDelivery } from '../config.ts';
import { cachedStatement, type Db } from '../db.ts';
import { newId } from '../ids.ts';

export interface Deliverer {
  /** There may be new work: look soon (after the current transaction commits). */
  nudge(): void;
  /** Stops looking, aborts attempts in flight (they stay pending, unlogged) and waits for them. */
  stop(): Promise<void>;
}

interface DueJob {
  id: string;
  store_id: string;
  integration_id: string;
  triggered_by: string;
  payload: string;
  attempts: number;
  name: string;
  description: string | null;
  integration_type: string;
  configuration: string;
}

/** At most this many deliveries in flight at once. */
const CONCURRENCY = 8;
/** The receiver's answer kept in the log. */
const MAX_LOGGED_BODY = 1000;

const DUE = `SELECT j.id, j.store_id, j.integration_id, j.triggered_by, j.payload, j.attempts,
    i.name, i.description, i.integration_type, i.configuration
  FROM integration_jobs j JOIN integrations i ON i.id = j.integration_id
  WHERE j.status = 'pending' AND j.next_attempt_at <= ? AND i.enabled = 1
  ORDER BY j.next_attempt_at LIMIT ?`;

/** The documented webhook body (v2-catalog-notes §13); `resources` is the deprecated string form. */
export function webhookBody(job: DueJob, attempt: number): string {
  return JSON.stringify({
    id: job.id,
    triggered_by: job.triggered_by,
    attempt,
    integration: {
      id: job.integration_id,
      integration_type: job.integration_type,
      name: job.name,
      description: job.description ?? '',
    },
    resources: job.payload,
    payload: JSON.parse(job.payload) as unknown,
  });
}

interface Outcome {
  succeeded: boolean;
  statusCode: number | null;
  body: string | null;
  errorDetail: string | null;
  ms: number;
}

function isForeignKeyFailure(error: unknown): boolean {
  return /FOREIGN KEY constraint failed/.test((error as Error).message ?? '');
}

export function startDeliverer(
  db: Db,
  settings: WebhookDelivery,
  timestamp: () => string,
): Deliverer {
  const inFlight = new Map<string, Promise<void>>();
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let nudged = false;

  const schedule = (ms: number) => {
    if (stopping.signal.aborted) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(tick, ms);
    timer.unref();
  };

  function tick(): void {
    nudged = false;
    if (stopping.signal.aborted) return;
    const room = CONCURRENCY - inFlight.size;
    if (room > 0) {
      const due = cachedStatement(db, DUE).all(Date.now(), room + inFlight.size) as DueJob[];
      for (const job of due) {
        if (inFlight.size >= CONCURRENCY || inFlight.has(job.id)) continue;
        const done = attempt(job)
          .catch((error: unknown) => {
            // A bug, not the receiver's failure: seen in the log, and the job stays pending.
            console.error('webhook delivery failed unexpectedly', error);
          })
          .finally(() => {
            inFlight.delete(job.id);
            if (!stopping.signal.aborted) nudge();
          });
        inFlight.set(job.id, done);
      }
    }
    schedule(settings.pollMs);
  }

  function nudge(): void {
    if (nudged || stopping.signal.aborted) return;
    nudged = true;
    setImmediate(tick);
  }

  async function attempt(job: DueJob): Promise<void> {
    const number = job.attempts + 1;
    const outcome = await post(job, number);
    if (outcome === undefined) return; // stopped: the job stays as it was
    try {
      record(job, number, outcome);
    } catch (error) {
      // The integration was deleted meanwhile (its jobs and logs went with it): nothing to keep.
      if (!isForeignKeyFailure(error)) throw error;
    }
  }

  async function post(job: DueJob, number: number): Promise<Outcome | undefined> {
    const configuration = JSON.parse(job.configuration) as { url: string; secret_key?: string };
    const timeout = AbortSignal.timeout(settings.timeoutMs);
    const signal = AbortSignal.any([stopping.signal, timeout]);
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    try {
      const response = await request(configuration.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'commerce-service-webhooks',
          ...(configuration.secret_key ? { 'x-moltin-secret-key': configuration.secret_key } : {}),
        },
        body: webhookBody(job, number),
        signal,
      });
      const text = await response.body.text();
      const succeeded = response.statusCode >= 200 && response.statusCode < 300;
      return {
        succeeded,
        statusCode: response.statusCode,
        body: text.slice(0, MAX_LOGGED_BODY),
        errorDetail: succeeded ? null : `The receiver answered ${response.statusCode}.`,
        ms: ms(),
      };
    } catch (error) {
      if (stopping.signal.aborted) return undefined;
      const detail = timeout.aborted
        ? `No answer within ${settings.timeoutMs} ms.`
        : `The request failed: ${(error as { code?: string }).code ?? (error as Error).message}.`;
      return { succeeded: false, statusCode: null, body: null, errorDetail: detail, ms: ms() };
    }
  }

  const record = db.transaction((job: DueJob, number: number, outcome: Outcome) => {
    const now = timestamp();
    cachedStatement(
      db,
      `INSERT INTO integration_logs (id, store_id, integration_id, job_id, attempt, succeeded,
         status_code, body, error_detail, processing_time, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      newId(),
      job.store_id,
      job.integration_id,
      job.id,
      number,
      outcome.succeeded ? 1 : 0,
      outcome.statusCode,
      outcome.body,
      outcome.errorDetail,
      outcome.ms,
      now,
      now,
    );
    const status = outcome.succeeded
      ? 'succeeded'
      : number >= settings.maxAttempts
        ? 'failed'
        : 'pending';
    const wait = settings.retryDelayMs * 4 ** (number - 1);
    cachedStatement(
      db,
      `UPDATE integration_jobs SET attempts = ?, status = ?, next_attempt_at = ?, updated_at = ?
       WHERE id = ?`,
    ).run(number, status, Date.now() + wait, now, job.id);
  });

  // Whatever was committed and not delivered before the last stop is due now.
  nudge();
  return {
    nudge,
    async stop() {
      stopping.abort();
      if (timer) clearTimeout(timer);
      await Promise.allSettled([...inFlight.values()]);
    },
  };
}
