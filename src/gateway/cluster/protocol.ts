/**
 * What the primary and the workers of `WORKERS` say to each other over node:cluster's IPC
 * channel (the event bus's relay has its own messages: ../events/cluster-bus.ts). Every message
 * carries TAG, so each side ignores what is not its own.
 */

export const TAG = 'cg:cluster';

/** What a worker needs from the primary before it can build its gateway. */
export interface WorkerSetup {
  /** The upstream's base URL: the embedded service in the primary, or `UPSTREAM_URL`. */
  upstreamUrl: string;
  /** The embedded service's TLS authority (`COMMERCE_HTTPS`), PEM. */
  ca?: string;
  /** The embedded service's demo client: the typed schema's credential when none is set. */
  demoClient?: { id: string; secret: string };
  /** The demo store's tokens GraphiQL sends (renewed by the primary: `tokens` messages). */
  tokens?: DemoTokens;
  /** The secret the webhook receiver checks (WEBHOOK_SECRET, or the primary's own for its store). */
  webhookSecret?: string;
}

export interface DemoTokens {
  readWrite: string;
  storefront: string;
}

/** What a worker reports once it listens. */
export interface WorkerReady {
  /** The port it listens on (the same for every worker: they share the primary's handle). */
  port: number;
  /** The GraphQL endpoint's path. */
  endpoint: string;
}

export type ToWorker =
  | { tag: typeof TAG; op: 'setup'; setup: WorkerSetup }
  | { tag: typeof TAG; op: 'tokens'; tokens: DemoTokens }
  /** Drain in-flight requests, then exit 0 (the primary's SIGTERM/SIGINT). */
  | { tag: typeof TAG; op: 'drain' }
  /** Send this worker's own metrics (`rendered`). */
  | { tag: typeof TAG; op: 'render'; req: number }
  /** The answer to `metrics`: every worker's metrics, merged. */
  | { tag: typeof TAG; op: 'metrics'; req: number; text?: string };

export type ToPrimary =
  /** The worker listens for messages: send it its setup. */
  | { tag: typeof TAG; op: 'hello' }
  | { tag: typeof TAG; op: 'ready'; ready: WorkerReady }
  | { tag: typeof TAG; op: 'rendered'; req: number; text?: string }
  /** A scrape of `/metrics` reached this worker: every worker's metrics, please. */
  | { tag: typeof TAG; op: 'metrics'; req: number };

export function isClusterMessage(message: unknown): message is { tag: typeof TAG; op: string } {
  return (
    typeof message === 'object' && message !== null && (message as { tag?: unknown }).tag === TAG
  );
}
