/**
 * Real node:cluster processes for test/gateway/cluster-bus.test.ts: the primary holds a small
 * in-memory EventBus (the test's own, per src/gateway/events/bus.ts) behind serveClusterBus; two
 * workers each hold a ClusterBus and do what the primary tells them. The primary runs a script of
 * steps and prints what it saw as one JSON line, then exits.
 *
 * Run: node scripts/ts.mjs test/support/cluster-bus-fixture.ts
 */
import cluster, { type Worker } from 'node:cluster';
import type { EventBus, StoreEvent } from '../../src/gateway/events/bus.ts';
import { createClusterBus, serveClusterBus } from '../../src/gateway/events/cluster-bus.ts';

/** The test's bus: a list of events, ids `<ms>-<seq>`, the last `window` kept for replay. */
function smallBus(window = 100): EventBus {
  const events: StoreEvent[] = [];
  let seq = 0;
  const listeners = new Set<(event: StoreEvent) => void>();
  const order = (id: string) => id.split('-').map(Number) as [number, number];
  const after = (a: string, b: string) => {
    const [am, as] = order(a);
    const [bm, bs] = order(b);
    return am > bm || (am === bm && as > bs);
  };
  return {
    async publish(event) {
      const stored: StoreEvent = { ...event, id: `${Date.now()}-${seq++}` };
      events.push(stored);
      if (events.length > window) events.shift();
      for (const listener of listeners) listener(stored);
      return stored;
    },
    async isBeforeWindow(id) {
      const first = events[0];
      return first !== undefined && after(first.id, id) && events.every((e) => e.id !== id);
    },
    subscribe({ after: from, signal }) {
      const queue: StoreEvent[] =
        from === undefined ? [] : events.filter((event) => after(event.id, from));
      let wake: (() => void) | undefined;
      const listener = (event: StoreEvent) => {
        queue.push(event);
        wake?.();
      };
      listeners.add(listener);
      signal.addEventListener('abort', () => {
        listeners.delete(listener);
        wake?.();
      });
      return {
        async *[Symbol.asyncIterator]() {
          while (!signal.aborted) {
            const event = queue.shift();
            if (event !== undefined) yield event;
            else await new Promise<void>((resolve) => (wake = resolve));
          }
        },
      };
    },
    async close() {},
  };
}

type Command =
  | { cmd: 'subscribe'; after?: string }
  | { cmd: 'abort' }
  | { cmd: 'publish'; cartId: string }
  | { cmd: 'window'; id: string };

async function worker(): Promise<void> {
  const bus = createClusterBus();
  let controller: AbortController | undefined;
  process.on('message', (message: Command & { tag?: string }) => {
    if (message.tag !== undefined) return;
    if (message.cmd === 'subscribe') {
      controller = new AbortController();
      const events = bus.subscribe({
        signal: controller.signal,
        ...(message.after ? { after: message.after } : {}),
      });
      process.send?.({ subscribed: true });
      void (async () => {
        for await (const event of events) process.send?.({ got: event });
        process.send?.({ ended: true });
      })();
    } else if (message.cmd === 'abort') {
      controller?.abort();
    } else if (message.cmd === 'publish') {
      bus
        .publish({
          type: 'cart.updated',
          subject: { cartId: message.cartId },
          receivedAt: new Date().toISOString(),
        })
        .then((event) => process.send?.({ published: event, pid: process.pid }));
    } else if (message.cmd === 'window') {
      bus.isBeforeWindow(message.id).then((before) => process.send?.({ before }));
    }
  });
  process.send?.({ ready: process.pid });
}

/** Every message each worker sent, so none is missed between two waits. */
const inboxes = new Map<Worker, Record<string, unknown>[]>();
function watch(worker: Worker): Worker {
  const inbox: Record<string, unknown>[] = [];
  inboxes.set(worker, inbox);
  worker.on('message', (message: Record<string, unknown>) => inbox.push(message));
  return worker;
}

/** Takes the first message of `worker` that has `key`, once there is one. */
async function next(worker: Worker, key: string): Promise<Record<string, unknown>> {
  const inbox = inboxes.get(worker) ?? [];
  const end = Date.now() + 5000;
  while (Date.now() < end) {
    const index = inbox.findIndex((message) => key in message);
    if (index >= 0) return inbox.splice(index, 1)[0] as Record<string, unknown>;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`no "${key}" from worker ${worker.id}`);
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

async function primary(): Promise<void> {
  const server = serveClusterBus(smallBus(2), cluster);
  const [one, two] = [watch(cluster.fork()), watch(cluster.fork())] as [Worker, Worker];
  const [readyOne, readyTwo] = await Promise.all([next(one, 'ready'), next(two, 'ready')]);
  const seen: Record<string, unknown> = { pids: [readyOne.ready, readyTwo.ready] };

  // Worker 2 subscribes; worker 1 publishes: worker 2 receives it, with the id the bus gave it.
  two.send({ cmd: 'subscribe' });
  await next(two, 'subscribed');
  const got = next(two, 'got');
  one.send({ cmd: 'publish', cartId: 'cart-1' });
  seen.published = await next(one, 'published');
  seen.received = await got;
  seen.subscriptionsWhileSubscribed = server.subscriptions;

  // Worker 2's subscriber goes away: the primary's subscription ends with it.
  const ended = next(two, 'ended');
  two.send({ cmd: 'abort' });
  seen.ended = await ended;
  await settle();
  seen.subscriptionsAfterAbort = server.subscriptions;

  // Two more events while nobody listens; worker 2 reconnects after the first: replayed the rest.
  const first = (seen.published as { published: StoreEvent }).published;
  one.send({ cmd: 'publish', cartId: 'cart-2' });
  await next(one, 'published');
  one.send({ cmd: 'publish', cartId: 'cart-3' });
  await next(one, 'published');
  two.send({ cmd: 'subscribe', after: first.id });
  seen.replayed = [await next(two, 'got'), await next(two, 'got')];
  // The small bus keeps two events: the first one is now before its window, asked from worker 1.
  one.send({ cmd: 'window', id: first.id });
  seen.firstBeforeWindow = (await next(one, 'before')).before;

  // A worker that dies with a live subscription: the primary drops it.
  seen.subscriptionsBeforeKill = server.subscriptions;
  const exited = new Promise((resolve) => two.once('exit', resolve));
  two.process.kill('SIGKILL');
  await exited;
  await settle();
  seen.subscriptionsAfterKill = server.subscriptions;

  server.close();
  one.kill();
  console.log(JSON.stringify(seen));
}

if (cluster.isPrimary) {
  primary().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
} else {
  void worker();
}
