/**
 * Graceful shutdown for a node:http server: on SIGTERM (or SIGINT) stop accepting connections,
 * let in-flight requests finish, close idle keep-alive sockets, run the cleanup (pools, the
 * embedded service), then exit. A request still running after `timeoutMs` is cut off so the
 * process always exits; a second signal exits at once.
 */
import type { Server } from 'node:http';

export interface ShutdownOptions {
  /** How long in-flight requests may take to finish, ms. Default 10,000. */
  timeoutMs?: number;
  /** Called first, e.g. to turn /readyz to 503. */
  onDraining?: () => void;
  /** Called once the server has closed: close pools, databases. */
  cleanup?: () => Promise<void>;
  /** Told what happens, for the structured log. */
  log?: (msg: string, fields?: Record<string, unknown>) => void;
  signals?: NodeJS.Signals[];
  /** Process exit, injectable for tests. */
  exit?: (code: number) => void;
}

export interface Shutdown {
  /** Starts the drain (as a signal would); resolves when cleanup is done. */
  shutdown(reason?: string): Promise<void>;
  /** Requests currently being served. */
  readonly inFlight: number;
}

/** How long the drain waits for requests in flight by default, ms (`SHUTDOWN_TIMEOUT_MS`). */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

export function installGracefulShutdown(server: Server, options: ShutdownOptions = {}): Shutdown {
  const timeoutMs = options.timeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const log = options.log ?? (() => {});
  let inFlight = 0;
  let closing: Promise<void> | undefined;

  server.on('request', (req, res) => {
    inFlight++;
    // A response emits 'close' once, last, whether it finished or its connection went away.
    res.once('close', () => {
      inFlight--;
      // Once draining, a keep-alive socket must not wait for another request.
      if (closing) server.closeIdleConnections();
    });
    if (closing) res.setHeader('connection', 'close');
    void req;
  });

  const shutdown = (reason = 'signal'): Promise<void> => {
    if (closing) return closing;
    closing = new Promise<void>((resolve) => {
      log('shutdown: draining', { reason, inFlight });
      options.onDraining?.();
      const timer = setTimeout(() => {
        log('shutdown: drain timed out, closing remaining connections', { inFlight });
        server.closeAllConnections();
      }, timeoutMs);
      timer.unref();
      server.close(() => {
        clearTimeout(timer);
        const cleanup = options.cleanup ?? (async () => {});
        cleanup()
          .catch((error: unknown) => log('shutdown: cleanup failed', { error }))
          .finally(() => {
            log('shutdown: done');
            resolve();
          });
      });
      server.closeIdleConnections();
    });
    return closing;
  };

  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  for (const signal of signals) {
    process.on(signal, () => {
      if (closing) {
        log('shutdown: second signal, exiting now', { signal });
        exit(1);
        return;
      }
      shutdown(signal).then(() => exit(0));
    });
  }

  return {
    shutdown,
    get inFlight() {
      return inFlight;
    },
  };
}
