/**
 * The outbox deliverer: posts each pending integration job (one event for one webhook) to its
 * URL with the documented payload and `X-Moltin-Secret-Key`, records every attempt as a log,
 * and retries a failure (non-2xx, no answer, or slower than `timeoutMs`) after a growing wait
 * until `maxAttempts`. It reads due jobs from the database, so a job committed before a
 * restart is delivered after it: delivery is at least once (a process killed after the
 * receiver answered but before the log was written sends the event again), and unordered.
 *
 * One receiver cannot stall the rest: an integration has at most PER_INTEGRATION attempts in
 * flight and a store at most PER_STORE of the CONCURRENCY slots, the slots go round between
 * stores (and between a store's integrations) one job at a time, and each integration's due jobs
 * are read apart, so a backlog of one never hides another's. Of the receiver's answer only what
 * the log keeps is read; the rest is not downloaded.
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

/** At most this many deliveries in flight at once, over every store. */
const CONCURRENCY = 16;
/** Of them, at most this many for one store: four stores' hanging receivers to fill every slot. */
const PER_STORE = 4;
/** And at most this many to one integration (its receiver's URL). */
const PER_INTEGRATION = 2;
/** The receiver's answer kept in the log, characters. */
const MAX_LOGGED_BODY = 1000;
/** What is read of the answer at most, bytes: the logged characters in UTF-8's widest form. */
const MAX_READ_BYTES = 4 * MAX_LOGGED_BODY;

/** Enabled integrations with a job due now. */
const DUE_INTEGRATIONS = `SELECT i.id, i.store_id FROM integrations i
  WHERE i.enabled = 1 AND EXISTS (SELECT 1 FROM integration_jobs j
    WHERE j.integration_id = i.id AND j.status = 'pending' AND j.next_attempt_at <= ?)`;

/** One integration's due jobs, oldest first (index integration_jobs_due_integration). */
const DUE_JOBS = `SELECT j.id, j.store_id, j.integration_id, j.triggered_by, j.payload, j.attempts,
    i.name, i.description, i.integration_type, i.configuration
  FROM integration_jobs j JOIN integrations i ON i.id = j.integration_id
  WHERE j.integration_id = ? AND j.status = 'pending' AND j.next_attempt_at <= ?
  ORDER BY j.next_attempt_at, j.id LIMIT ?`;

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

/** The first MAX_LOGGED_BODY characters of an answer, reading no more than MAX_READ_BYTES. */
async function readLogged(body: AsyncIterable<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  // Leaving the loop early destroys the body: the rest of the answer is never downloaded.
  for await (const chunk of body) {
    const part = chunk.subarray(0, MAX_READ_BYTES - bytes);
    bytes += part.length;
    text += decoder.decode(part, { stream: true });
    if (bytes >= MAX_READ_BYTES || text.length >= MAX_LOGGED_BODY) break;
  }
  return text.slice(0, MAX_LOGGED_BODY);
}

interface InFlight {
  done: Promise<void>;
  storeId: string;
  integrationId: string;
}

function increment(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next === 0) counts.delete(key);
  else counts.set(key, next);
}

export function startDeliverer(
  db: Db,
  settings: WebhookDelivery,
  timestamp: () => string,
): Deliverer {
  const inFlight = new Map<string, InFlight>();
  const perStore = new Map<string, number>();
  const perIntegration = new Map<string, number>();
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let nudged = false;
  // Which store goes first in the next round: each tick starts one store further on.
  let turn = 0;

  const schedule = (ms: number) => {
    if (stopping.signal.aborted) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(tick, ms);
    timer.unref();
  };

  function start(job: DueJob): void {
    const done = attempt(job)
      .catch((error: unknown) => {
        // A bug, not the receiver's failure: seen in the log, and the job stays pending.
        console.error('webhook delivery failed unexpectedly', error);
      })
      .finally(() => {
        inFlight.delete(job.id);
        increment(perStore, job.store_id, -1);
        increment(perIntegration, job.integration_id, -1);
        if (!stopping.signal.aborted) nudge();
      });
    inFlight.set(job.id, { done, storeId: job.store_id, integrationId: job.integration_id });
    increment(perStore, job.store_id, 1);
    increment(perIntegration, job.integration_id, 1);
  }

  /** The due jobs of `integrationId` it has room for, not already in flight. */
  function dueJobs(integrationId: string, now: number): DueJob[] {
    const busy = perIntegration.get(integrationId) ?? 0;
    if (busy >= PER_INTEGRATION) return [];
    const rows = cachedStatement(db, DUE_JOBS).all(
      integrationId,
      now,
      PER_INTEGRATION + busy,
    ) as DueJob[];
    return rows.filter((job) => !inFlight.has(job.id)).slice(0, PER_INTEGRATION - busy);
  }

  function tick(): void {
    nudged = false;
    if (stopping.signal.aborted) return;
    if (inFlight.size < CONCURRENCY) fill(Date.now());
    schedule(settings.pollMs);
  }

  /** Hands free slots out one job at a time, store after store, a store's integrations in turn. */
  function fill(now: number): void {
    const due = cachedStatement(db, DUE_INTEGRATIONS).all(now) as {
      id: string;
      store_id: string;
    }[];
    const byStore = new Map<string, string[]>();
    for (const row of due) {
      if ((perStore.get(row.store_id) ?? 0) >= PER_STORE) continue;
      const list = byStore.get(row.store_id);
      if (list === undefined) byStore.set(row.store_id, [row.id]);
      else list.push(row.id);
    }
    if (byStore.size === 0) return;
    const stores = [...byStore.keys()].sort();
    const first = turn % stores.length;
    turn += 1;
    // Each store's jobs interleaved across its integrations, read lazily.
    const queues = [...stores.slice(first), ...stores.slice(0, first)].map((store) => {
      const integrations = byStore.get(store) ?? [];
      const lists = integrations.map((id) => dueJobs(id, now));
      const queue: DueJob[] = [];
      for (let i = 0; lists.some((list) => i < list.length); i += 1) {
        for (const list of lists) {
          const job = list[i];
          if (job !== undefined) queue.push(job);
        }
      }
      return queue;
    });
    let started = true;
    while (started && inFlight.size < CONCURRENCY) {
      started = false;
      for (const queue of queues) {
        if (inFlight.size >= CONCURRENCY) break;
        const job = queue.shift();
        if (job === undefined || (perStore.get(job.store_id) ?? 0) >= PER_STORE) continue;
        start(job);
        started = true;
      }
    }
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
      const text = await readLogged(response.body);
      const succeeded = response.statusCode >= 200 && response.statusCode < 300;
      return {
        succeeded,
        statusCode: response.statusCode,
        body: text,
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
      await Promise.allSettled([...inFlight.values()].map((flight) => flight.done));
    },
  };
}
