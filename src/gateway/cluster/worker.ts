/**
 * A gateway worker's side of `WORKERS=<n>` (./supervisor.ts is the primary's): asks the primary
 * for its setup, says when it listens, drains when told, renews its demo tokens, renders its own
 * metrics for the primary, and asks the primary for every worker's when `/metrics` is scraped.
 */
import {
  type DemoTokens,
  isClusterMessage,
  TAG,
  type ToPrimary,
  type ToWorker,
  type WorkerReady,
  type WorkerSetup,
} from './protocol.ts';

export interface ClusterWorker {
  /** This worker's number (node:cluster's `worker.id`: 1…n, replacements after). */
  readonly id: number;
  readonly setup: WorkerSetup;
  /** Tells the primary this worker listens. */
  ready(ready: WorkerReady): void;
  /** Every worker's metrics, merged by the primary. */
  clusterMetrics(): Promise<string>;
  /** What answers the primary's `render`: this worker's own metrics. */
  onRender(render: () => Promise<string>): void;
  onTokens(listener: (tokens: DemoTokens) => void): void;
  /** The primary's drain (its SIGTERM/SIGINT). */
  onDrain(listener: () => void): void;
}

/** Joins the primary: resolves with the setup it sends. `id` is the cluster's worker id. */
export function joinCluster(id: number): Promise<ClusterWorker> {
  const send = (message: ToPrimary) => process.send?.(message);
  let render: (() => Promise<string>) | undefined;
  let tokens: ((tokens: DemoTokens) => void) | undefined;
  let drain: (() => void) | undefined;
  let drainAsked = false;
  let nextReq = 0;
  const waiting = new Map<number, (text: string | undefined) => void>();

  return new Promise((resolve) => {
    process.on('message', (message: unknown) => {
      if (!isClusterMessage(message)) return;
      const said = message as ToWorker;
      switch (said.op) {
        case 'setup':
          resolve(worker(said.setup));
          return;
        case 'tokens':
          tokens?.(said.tokens);
          return;
        case 'drain':
          drainAsked = true;
          drain?.();
          return;
        case 'render': {
          const own = render ? render() : Promise.resolve(undefined);
          own.then(
            (text) => send({ tag: TAG, op: 'rendered', req: said.req, text }),
            () => send({ tag: TAG, op: 'rendered', req: said.req }),
          );
          return;
        }
        case 'metrics':
          waiting.get(said.req)?.(said.text);
          waiting.delete(said.req);
          return;
      }
    });
    send({ tag: TAG, op: 'hello' });
  });

  function worker(setup: WorkerSetup): ClusterWorker {
    return {
      id,
      setup,
      ready: (ready) => send({ tag: TAG, op: 'ready', ready }),
      clusterMetrics: () =>
        new Promise((resolve, reject) => {
          const req = nextReq++;
          waiting.set(req, (text) =>
            text === undefined ? reject(new Error('metrics unavailable')) : resolve(text),
          );
          send({ tag: TAG, op: 'metrics', req });
        }),
      onRender(listener) {
        render = listener;
      },
      onTokens(listener) {
        tokens = listener;
      },
      onDrain(listener) {
        drain = listener;
        if (drainAsked) listener();
      },
    };
  }
}
