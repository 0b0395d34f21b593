/**
 * The primary of `WORKERS=<n>` (node:cluster): forks the n gateway workers, gives each its setup
 * (the upstream's address, the demo tokens), replaces a worker that dies unexpectedly (at most
 * `maxRestarts` within `restartWindowMs`, then gives up: a worker that dies at every start must
 * not spin), answers scrapes with every worker's metrics merged, relays the event bus when given
 * one, and on `drain()` has every worker drain its in-flight requests and exit before it resolves.
 *
 * It never listens itself: the workers listen (the primary holds the shared handle node:cluster
 * makes), src/main.ts binds the metrics port. Connections are handed out round-robin by the
 * primary (node:cluster's default everywhere but Windows).
 */
import cluster, { type Worker } from 'node:cluster';
import type { EventBus } from '../events/bus.ts';
import { serveClusterBus } from '../events/cluster-bus.ts';
import type { LogLevel } from '../logging.ts';
import { mergeExpositions } from './merge-metrics.ts';
import {
  type DemoTokens,
  isClusterMessage,
  TAG,
  type ToPrimary,
  type ToWorker,
  type WorkerReady,
  type WorkerSetup,
} from './protocol.ts';

export interface SupervisorOptions {
  workers: number;
  /** The setup a worker is given when it starts (read anew for each: tokens are renewed). */
  setup: () => WorkerSetup;
  /** How long a worker may take to drain before it is killed, ms (`SHUTDOWN_TIMEOUT_MS`). */
  shutdownTimeoutMs: number;
  log: (level: LogLevel, msg: string, fields?: Record<string, unknown>) => void;
  /** The one event bus of the workers without Redis (relayed: ../events/cluster-bus.ts). */
  bus?: EventBus;
  /** Replacements allowed within `restartWindowMs` before the supervisor gives up. Default 5. */
  maxRestarts?: number;
  /** Default 60,000. */
  restartWindowMs?: number;
  /** How long a scrape waits for each worker's metrics, ms. Default 2,000. */
  metricsTimeoutMs?: number;
  /** Called once when the workers cannot be kept up (restarts exhausted). */
  onGiveUp?: (reason: string) => void;
}

export interface Supervisor {
  /** Resolves when all n workers listen; rejects if one exits first (its error on its stderr). */
  readonly ready: Promise<WorkerReady>;
  /** Workers alive now. */
  readonly size: number;
  /** Every worker's metrics, merged (labelled `worker`). */
  renderMetrics(): Promise<string>;
  /** Gives every worker the renewed demo tokens. */
  tokens(tokens: DemoTokens): void;
  /** Every worker drains and exits (killed after the timeout); no more replacements. */
  drain(): Promise<void>;
  /** Kills every worker now (a second signal). */
  kill(): void;
}

export function startSupervisor(options: SupervisorOptions): Supervisor {
  const maxRestarts = options.maxRestarts ?? 5;
  const windowMs = options.restartWindowMs ?? 60_000;
  const metricsTimeoutMs = options.metricsTimeoutMs ?? 2_000;
  const log = options.log;
  const listening = new Map<Worker, WorkerReady>();
  const restarts: number[] = [];
  let draining: Promise<void> | undefined;
  let gaveUp = false;
  let started = false;
  let nextReq = 0;
  const renders = new Map<number, (text: string | undefined) => void>();

  let resolveReady!: (ready: WorkerReady) => void;
  let rejectReady!: (error: Error) => void;
  const ready = new Promise<WorkerReady>((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  // The caller may stop before awaiting it; a rejection is reported there, never unhandled.
  ready.catch(() => {});

  const send = (worker: Worker, message: ToWorker) => {
    if (!worker.isConnected()) return;
    try {
      worker.send(message);
    } catch {
      // Gone between the check and the send: its exit is handled below.
    }
  };

  const busServer = options.bus ? serveClusterBus(options.bus, cluster) : undefined;

  const ownMetrics = (worker: Worker) =>
    new Promise<string | undefined>((resolve) => {
      const req = nextReq++;
      const timer = setTimeout(() => {
        renders.delete(req);
        resolve(undefined);
      }, metricsTimeoutMs);
      renders.set(req, (text) => {
        clearTimeout(timer);
        renders.delete(req);
        resolve(text);
      });
      send(worker, { tag: TAG, op: 'render', req });
    });

  const renderMetrics = async (): Promise<string> => {
    const workers = [...listening.keys()];
    const texts = await Promise.all(workers.map(ownMetrics));
    const byId = new Map<number, string>();
    workers.forEach((worker, i) => {
      const text = texts[i];
      if (text !== undefined) byId.set(worker.id, text);
    });
    return mergeExpositions(byId);
  };

  const onMessage = (worker: Worker, message: unknown) => {
    if (!isClusterMessage(message)) return;
    const said = message as ToPrimary;
    switch (said.op) {
      case 'hello':
        send(worker, { tag: TAG, op: 'setup', setup: options.setup() });
        return;
      case 'ready':
        listening.set(worker, said.ready);
        if (!started && listening.size === options.workers) {
          started = true;
          resolveReady(said.ready);
        } else if (started) {
          log('info', 'worker listening', { worker: worker.id, pid: worker.process.pid });
        }
        return;
      case 'rendered':
        renders.get(said.req)?.(said.text);
        return;
      case 'metrics':
        renderMetrics().then(
          (text) => send(worker, { tag: TAG, op: 'metrics', req: said.req, text }),
          () => send(worker, { tag: TAG, op: 'metrics', req: said.req }),
        );
        return;
    }
  };

  const onExit = (worker: Worker, code: number | null, signal: string | null) => {
    listening.delete(worker);
    if (draining || gaveUp) return;
    const fields = { worker: worker.id, pid: worker.process.pid, code, signal };
    if (!started) {
      // At startup a worker that exits is a configuration or code error: say so, start nothing.
      gaveUp = true;
      rejectReady(
        new Error(
          `gateway worker ${worker.id} exited during startup (${signal ?? `code ${code}`})`,
        ),
      );
      return;
    }
    const now = Date.now();
    while (restarts.length > 0 && (restarts[0] as number) <= now - windowMs) restarts.shift();
    if (restarts.length >= maxRestarts) {
      gaveUp = true;
      const reason = `gateway workers died ${restarts.length + 1} times within ${windowMs / 1000} s; giving up`;
      log('error', 'worker exited unexpectedly; not restarted', { ...fields, reason });
      options.onGiveUp?.(reason);
      return;
    }
    restarts.push(now);
    const replacement = cluster.fork();
    log('error', 'worker exited unexpectedly; restarted', {
      ...fields,
      replacement: replacement.id,
      restartsInWindow: restarts.length,
    });
  };

  cluster.on('message', onMessage);
  cluster.on('exit', onExit);
  // Workers run the primary's entry (`process.argv[1]`) with its flags. A TypeScript entry on a
  // Node that does not strip types ran through tsx registered in-process (scripts/ts.mjs): the
  // workers need it as a loader.
  if (process.argv[1]?.endsWith('.ts') && !process.features.typescript) {
    cluster.setupPrimary({ execArgv: [...process.execArgv, '--import', 'tsx/esm'] });
  }
  for (let i = 0; i < options.workers; i += 1) cluster.fork();

  const alive = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w);

  return {
    ready,
    get size() {
      return alive().length;
    },
    renderMetrics,
    tokens(tokens) {
      for (const worker of alive()) send(worker, { tag: TAG, op: 'tokens', tokens });
    },
    drain() {
      if (draining) return draining;
      draining = (async () => {
        const workers = alive();
        const exits = workers.map(
          (worker) =>
            new Promise<void>((resolve) => {
              if (worker.isDead()) resolve();
              else worker.once('exit', () => resolve());
            }),
        );
        for (const worker of workers) send(worker, { tag: TAG, op: 'drain' });
        // A worker cuts its own remaining connections at the timeout; this is the backstop.
        const timer = setTimeout(() => {
          for (const worker of workers) {
            if (worker.isDead()) continue;
            log('warn', 'worker did not exit after draining; killed', { worker: worker.id });
            worker.process.kill('SIGKILL');
          }
        }, options.shutdownTimeoutMs + 5_000);
        await Promise.all(exits);
        clearTimeout(timer);
        busServer?.close();
        cluster.off('message', onMessage);
        cluster.off('exit', onExit);
      })();
      return draining;
    },
    kill() {
      for (const worker of alive()) worker.process.kill('SIGKILL');
    },
  };
}
