/**
 * The event bus of a gateway run on several worker processes (`WORKERS`, node:cluster) without
 * Redis: ONE bus (any EventBus, the in-process one by default) lives in the primary, and each
 * worker's ClusterBus relays publish, subscribe, unsubscribe and the replay-window question to it
 * over the cluster's IPC channel. So a webhook that lands on worker 1 reaches a subscriber
 * connected to worker 2, event ids stay one sequence, and a client reconnecting with
 * `Last-Event-ID` to any worker is replayed from the same history. With REDIS_URL the workers use
 * the Redis bus directly and none of this runs.
 *
 * IPC keeps each channel's messages in order, so a worker sees its subscription's events in the
 * order the primary's bus yields them. A subscriber whose worker dies is dropped in the primary
 * (`serveClusterBus` watches the workers' exits); a worker that stops reading its events (a client
 * whose connection stalls) is cut off at MAX_QUEUED rather than growing without bound.
 */

import type { EventBus, StoreEvent, SubscribeOptions } from './bus.ts';
import { EventQueue } from './queue.ts';

/** Events held for one subscription in a worker before it is ended as too slow. */
export const MAX_QUEUED = 10_000;

/** Every message of this relay carries this tag: the channel also carries the supervisor's own. */
const TAG = 'cg:bus';

interface ErrorShape {
  name: string;
  message: string;
  code?: string;
}

/** Worker → primary. */
type Request =
  | {
      tag: typeof TAG;
      op: 'publish';
      req: number;
      event: Omit<StoreEvent, 'id'>;
      deliveryId?: string | undefined;
    }
  | { tag: typeof TAG; op: 'window'; req: number; id: string }
  | { tag: typeof TAG; op: 'subscribe'; sub: number; after?: string }
  | { tag: typeof TAG; op: 'unsubscribe'; sub: number };

/** Primary → worker. */
type Reply =
  | { tag: typeof TAG; op: 'reply'; req: number; value?: unknown; error?: ErrorShape }
  | { tag: typeof TAG; op: 'event'; sub: number; event: StoreEvent }
  | { tag: typeof TAG; op: 'end'; sub: number; error?: ErrorShape };

function isBusMessage(message: unknown): message is { tag: string; op: string } {
  return (
    typeof message === 'object' && message !== null && (message as { tag?: unknown }).tag === TAG
  );
}

function errorShape(error: unknown): ErrorShape {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return {
      name: error.name,
      message: error.message,
      ...(typeof code === 'string' ? { code } : {}),
    };
  }
  return { name: 'Error', message: String(error) };
}

/** The primary's error, re-made in the worker: name, message and stable code kept. */
function fromShape(shape: ErrorShape): Error {
  const error = new Error(shape.message) as Error & { code?: string };
  error.name = shape.name;
  if (shape.code !== undefined) error.code = shape.code;
  return error;
}

/** What a worker needs of its IPC channel (`process` in a cluster worker). */
export interface WorkerChannel {
  send(message: unknown): unknown;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

/**
 * A worker's bus: every call goes to the primary's bus (./cluster-bus.ts serveClusterBus).
 * `channel` defaults to the process's own IPC channel; it must exist (a cluster worker's does).
 */
export function createClusterBus(channel?: WorkerChannel): EventBus {
  const ipc = channel ?? (process.send ? (process as unknown as WorkerChannel) : undefined);
  if (ipc === undefined)
    throw new Error('createClusterBus runs in a cluster worker (no IPC channel here)');
  let next = 0;
  let closed = false;
  const pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (e: Error) => void }
  >();
  const subscriptions = new Map<number, EventQueue>();

  const end = (sub: number, error?: Error) => {
    const subscription = subscriptions.get(sub);
    if (subscription === undefined) return;
    subscriptions.delete(sub);
    subscription.end(error);
  };

  const onMessage = (message: unknown) => {
    if (!isBusMessage(message)) return;
    const reply = message as Reply;
    if (reply.op === 'reply') {
      const waiting = pending.get(reply.req);
      if (waiting === undefined) return;
      pending.delete(reply.req);
      if (reply.error) waiting.reject(fromShape(reply.error));
      else waiting.resolve(reply.value);
    } else if (reply.op === 'event') {
      const subscription = subscriptions.get(reply.sub);
      if (subscription === undefined) return;
      if (subscription.length >= MAX_QUEUED) {
        ipc.send({ tag: TAG, op: 'unsubscribe', sub: reply.sub } satisfies Request);
        end(
          reply.sub,
          Object.assign(new Error('subscriber too slow: events dropped'), {
            code: 'SUBSCRIBER_TOO_SLOW',
          }),
        );
        return;
      }
      subscription.push(reply.event);
    } else if (reply.op === 'end') {
      end(reply.sub, reply.error ? fromShape(reply.error) : undefined);
    }
  };
  ipc.on('message', onMessage);

  const ask = (
    request:
      | { op: 'publish'; event: Omit<StoreEvent, 'id'>; deliveryId?: string | undefined }
      | { op: 'window'; id: string },
  ) =>
    new Promise<unknown>((resolve, reject) => {
      if (closed) {
        reject(new Error('event bus closed'));
        return;
      }
      const req = next++;
      pending.set(req, { resolve, reject });
      ipc.send({ tag: TAG, req, ...request } as Request);
    });

  return {
    async publish(event, publishOptions) {
      const deliveryId = publishOptions?.deliveryId;
      return (await ask({ op: 'publish', event, deliveryId })) as StoreEvent;
    },

    async isBeforeWindow(id) {
      return (await ask({ op: 'window', id })) === true;
    },

    subscribe(options: SubscribeOptions): AsyncIterable<StoreEvent> {
      const sub = next++;
      const subscription = new EventQueue();
      // Registered at once, not on the first `next()`: events published from now on are kept.
      if (closed || options.signal.aborted) subscription.end();
      else {
        subscriptions.set(sub, subscription);
        ipc.send({
          tag: TAG,
          op: 'subscribe',
          sub,
          ...(options.after !== undefined ? { after: options.after } : {}),
        } satisfies Request);
        options.signal.addEventListener(
          'abort',
          () => {
            if (!subscriptions.has(sub)) return;
            if (!closed) ipc.send({ tag: TAG, op: 'unsubscribe', sub } satisfies Request);
            end(sub);
          },
          { once: true },
        );
      }
      return {
        [Symbol.asyncIterator]() {
          return {
            next: () => subscription.next(),
            async return(): Promise<IteratorResult<StoreEvent>> {
              // A consumer that stops iterating (break, a closed SSE stream) unsubscribes.
              if (subscriptions.has(sub) && !closed) {
                ipc.send({ tag: TAG, op: 'unsubscribe', sub } satisfies Request);
              }
              end(sub);
              subscription.end(undefined, true);
              return { value: undefined, done: true };
            },
          };
        },
      };
    },

    async close() {
      if (closed) return;
      for (const sub of [...subscriptions.keys()]) {
        ipc.send({ tag: TAG, op: 'unsubscribe', sub } satisfies Request);
        end(sub);
      }
      closed = true;
      for (const waiting of pending.values()) waiting.reject(new Error('event bus closed'));
      pending.clear();
      ipc.off('message', onMessage);
    },
  };
}

/** What the primary needs of one worker: a way to answer it. */
export interface WorkerEnd {
  send(message: unknown): unknown;
}

/** What the primary needs of node:cluster: the workers' messages and exits. */
export interface ClusterChannel {
  on(event: 'message', listener: (worker: WorkerEnd, message: unknown) => void): unknown;
  on(event: 'exit', listener: (worker: WorkerEnd) => void): unknown;
  off(event: 'message', listener: (worker: WorkerEnd, message: unknown) => void): unknown;
  off(event: 'exit', listener: (worker: WorkerEnd) => void): unknown;
}

export interface ClusterBusServer {
  /** Subscriptions the primary currently serves for the workers (for tests and metrics). */
  readonly subscriptions: number;
  /** Stops relaying and ends every subscription; the bus itself stays open (its owner closes it). */
  close(): void;
}

/**
 * The primary's side: answers every worker's ClusterBus from `bus` (`cluster` is node:cluster's
 * default export). A worker's message that cannot be answered (it has gone) is dropped.
 */
export function serveClusterBus(bus: EventBus, cluster: ClusterChannel): ClusterBusServer {
  /** Per worker, its subscriptions' abort controllers by the worker's subscription number. */
  const byWorker = new Map<WorkerEnd, Map<number, AbortController>>();
  const send = (worker: WorkerEnd, reply: Reply) => {
    try {
      worker.send(reply);
    } catch {
      // The worker's channel closed: its exit ends its subscriptions.
    }
  };

  const subscribe = (worker: WorkerEnd, sub: number, after: string | undefined) => {
    const controller = new AbortController();
    let own = byWorker.get(worker);
    if (own === undefined) {
      own = new Map();
      byWorker.set(worker, own);
    }
    own.set(sub, controller);
    const events = bus.subscribe({
      signal: controller.signal,
      ...(after !== undefined ? { after } : {}),
    });
    void (async () => {
      let error: ErrorShape | undefined;
      try {
        for await (const event of events) {
          if (controller.signal.aborted) break;
          send(worker, { tag: TAG, op: 'event', sub, event });
        }
      } catch (caught) {
        error = errorShape(caught);
      }
      if (byWorker.get(worker)?.get(sub) === controller) {
        byWorker.get(worker)?.delete(sub);
        // Ended by the bus, not by the worker: tell it (with the bus's error, if any).
        if (!controller.signal.aborted)
          send(worker, { tag: TAG, op: 'end', sub, ...(error ? { error } : {}) });
      }
    })();
  };

  const onMessage = (worker: WorkerEnd, message: unknown) => {
    if (!isBusMessage(message)) return;
    const request = message as Request;
    switch (request.op) {
      case 'publish':
      case 'window': {
        const work =
          request.op === 'publish'
            ? bus.publish(request.event, { deliveryId: request.deliveryId })
            : bus.isBeforeWindow(request.id);
        work.then(
          (value) => send(worker, { tag: TAG, op: 'reply', req: request.req, value }),
          (error: unknown) =>
            send(worker, { tag: TAG, op: 'reply', req: request.req, error: errorShape(error) }),
        );
        return;
      }
      case 'subscribe':
        subscribe(worker, request.sub, request.after);
        return;
      case 'unsubscribe': {
        const own = byWorker.get(worker);
        own?.get(request.sub)?.abort();
        own?.delete(request.sub);
        return;
      }
    }
  };
  const onExit = (worker: WorkerEnd) => {
    for (const controller of byWorker.get(worker)?.values() ?? []) controller.abort();
    byWorker.delete(worker);
  };
  cluster.on('message', onMessage);
  cluster.on('exit', onExit);

  return {
    get subscriptions() {
      let count = 0;
      for (const own of byWorker.values()) count += own.size;
      return count;
    },
    close() {
      cluster.off('message', onMessage);
      cluster.off('exit', onExit);
      for (const worker of [...byWorker.keys()]) onExit(worker);
    },
  };
}
