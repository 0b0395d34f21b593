/**
 * The event bus over one Redis stream (`commerce-gateway:events`), for replicas (REDIS_URL):
 * an event published by any replica reaches the subscribers of every replica, in one order,
 * with the stream's own ids (`<ms>-<seq>`, Redis's clock), so a client that reconnects to
 * another replica with the `Last-Event-ID` it last saw is given everything after it.
 *
 * - publish: XADD in a Lua script that also trims what is older than the replay window
 *   (`MINID ~ now - windowMs` on Redis's clock): the stream holds the window, and no more. A
 *   webhook delivery the upstream repeats (its id) is added once, whichever replica receives it.
 * - live: one reader per replica, XREAD BLOCK on a connection of its own, fans each event out
 *   to this replica's subscribers; after a lost connection it reads on from the last id it saw,
 *   so nothing published meanwhile is skipped (while it is in the window). It starts with the
 *   bus, before the gateway listens, so no subscription registers before it reads.
 * - replay: XRANGE after the client's id, in pages, then the live events past the last replayed
 *   one (a subscriber listens before it replays, so nothing falls between the two).
 *
 * A subscriber that falls more than MAX_BEHIND events behind is ended (its client reconnects
 * with its last id and is replayed the rest) rather than held in memory without bound.
 */

import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { REDIS_PREFIX, type RedisConnection } from '../../redis/connection.ts';
import type { EventBus, StoreEvent, SubscribeOptions } from './bus.ts';
import { EventQueue } from './queue.ts';

/** How long events are kept for a reconnecting client by default, ms: five minutes. */
export const DEFAULT_REPLAY_WINDOW_MS = 5 * 60_000;
/** The stream of the store's events. */
export const EVENT_STREAM_KEY = `${REDIS_PREFIX}events`;
/** Events one subscriber may have waiting before it is ended. */
export const MAX_BEHIND = 1_000;
/** The largest event stored, bytes of JSON: ids only, so far less in practice. */
const MAX_EVENT_BYTES = 16 * 1024;
const BLOCK_MS = 5_000;
const PAGE = 200;

// KEYS[2], when given, marks a webhook delivery: a repeat of it, received by any replica within
// the window, answers the id first published instead of adding the event again.
const PUBLISH_SCRIPT = `
if KEYS[2] then
  local known = redis.call('GET', KEYS[2])
  if known then return known end
end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local oldest = now - tonumber(ARGV[1])
if oldest < 0 then oldest = 0 end
local id = redis.call('XADD', KEYS[1], 'MINID', '~', tostring(oldest), '*', 'e', ARGV[2])
if KEYS[2] then
  redis.call('SET', KEYS[2], id, 'PX', math.max(1, math.floor(tonumber(ARGV[1]))))
end
return id
`;

export interface RedisBusOptions {
  redis: RedisConnection;
  /** How long events are kept for replay, ms. Default DEFAULT_REPLAY_WINDOW_MS. */
  windowMs?: number;
  /** The stream's key. Default EVENT_STREAM_KEY (tests give their own). */
  key?: string;
  /** Told when the reader loses Redis and when it reads again. */
  onReaderState?: (reading: boolean, detail: string) => void;
}

const ID = /^(\d{1,15})-(\d{1,15})$/;

/** Whether `a` comes after `b` (both `<ms>-<seq>`). */
function isAfter(a: string, b: string): boolean {
  const [, am = '0', as = '0'] = ID.exec(a) ?? [];
  const [, bm = '0', bs = '0'] = ID.exec(b) ?? [];
  const ams = Number(am);
  const bms = Number(bm);
  return ams !== bms ? ams > bms : Number(as) > Number(bs);
}

type Entry = [id: string, fields: string[]];

function toEvent([id, fields]: Entry): StoreEvent | undefined {
  const at = fields.indexOf('e');
  const text = at === -1 ? undefined : fields[at + 1];
  if (text === undefined) return undefined;
  try {
    const body = JSON.parse(text) as Omit<StoreEvent, 'id'>;
    return { ...body, id };
  } catch {
    return undefined;
  }
}

interface Subscriber {
  deliver(event: StoreEvent): void;
  end(): void;
}

/** The Redis bus, with the moment its reader runs (see `ready`). */
export interface RedisEventBus extends EventBus {
  /**
   * Resolves once the reader reads the stream from its end as it was then (or failed to start:
   * the first subscription then starts it). A subscription registered after that hears every
   * event published after it registered.
   */
  ready(): Promise<void>;
}

export function createRedisBus(options: RedisBusOptions): RedisEventBus {
  const { redis } = options;
  const client = redis.client;
  const windowMs = options.windowMs ?? DEFAULT_REPLAY_WINDOW_MS;
  const key = options.key ?? EVENT_STREAM_KEY;
  const subscribers = new Set<Subscriber>();
  let reader: Redis | undefined;
  let readerStarted: Promise<void> | undefined;
  let closed = false;

  /** The reader's loop: XREAD BLOCK from the last id seen, fanning out what it reads. */
  const startReader = (): Promise<void> => {
    readerStarted ??= (async () => {
      // Live from the stream's current end: a subscriber wanting earlier events replays them.
      let tail: Entry[];
      try {
        tail = (await client.xrevrange(key, '+', '-', 'COUNT', 1)) as Entry[];
      } catch (error) {
        // Redis not answering: this subscription fails, the next one tries again.
        readerStarted = undefined;
        throw error;
      }
      // Closed while asking (a bus closed as soon as made): no connection left open behind it.
      if (closed) return;
      let last = tail[0]?.[0] ?? '0-0';
      reader = redis.blocking('commerce-gateway-events', BLOCK_MS);
      let failing = false;
      void (async () => {
        while (!closed) {
          try {
            const answer = (await (reader as Redis).xread(
              'COUNT',
              PAGE,
              'BLOCK',
              BLOCK_MS,
              'STREAMS',
              key,
              last,
            )) as [string, Entry[]][] | null;
            if (failing) {
              failing = false;
              options.onReaderState?.(true, 'the event reader reads Redis again');
            }
            for (const entry of answer?.[0]?.[1] ?? []) {
              last = entry[0];
              const event = toEvent(entry);
              if (event === undefined) continue;
              for (const subscriber of subscribers) subscriber.deliver(event);
            }
          } catch (error) {
            if (closed) return;
            if (!failing) {
              failing = true;
              options.onReaderState?.(
                false,
                `the event reader cannot read Redis (${error instanceof Error ? error.message : String(error)}); retrying`,
              );
            }
            await new Promise((resolve) => setTimeout(resolve, 500));
          }
        }
      })();
    })();
    return readerStarted;
  };
  // Started now, not at the first subscription's first read: the gateway opens a subscription's
  // stream, reads the resource once (an upstream call), and only then reads the stream, so a
  // reader started then would begin after an event published during that read, and lose it.
  const started = startReader().catch(() => undefined);

  /** Retained events after `after`, in pages. */
  async function* replay(after: string): AsyncGenerator<StoreEvent> {
    let from = after;
    for (;;) {
      const page = (await client.xrange(key, `(${from}`, '+', 'COUNT', PAGE)) as Entry[];
      for (const entry of page) {
        from = entry[0];
        const event = toEvent(entry);
        if (event !== undefined) yield event;
      }
      if (page.length < PAGE) return;
    }
  }

  return {
    ready: () => started,

    async publish(event, publishOptions) {
      const text = JSON.stringify(event);
      if (Buffer.byteLength(text) > MAX_EVENT_BYTES) {
        throw new RangeError(`an event is at most ${MAX_EVENT_BYTES} bytes of JSON`);
      }
      const deliveryId = publishOptions?.deliveryId;
      // Hashed: the upstream's id, whatever its characters, makes a key of one length.
      const keys =
        deliveryId === undefined
          ? [key]
          : [key, `${key}:delivery:${createHash('sha256').update(deliveryId).digest('hex')}`];
      const id = (await client.eval(
        PUBLISH_SCRIPT,
        keys.length,
        ...keys,
        windowMs,
        text,
      )) as string;
      return { ...event, id };
    },

    subscribe({ after, signal }: SubscribeOptions): AsyncIterable<StoreEvent> {
      return {
        [Symbol.asyncIterator]: () => {
          const waiting = new EventQueue();
          // Ended, it stops at once: what waits is dropped (the client is replayed it).
          const end = () => {
            waiting.end(undefined, true);
            subscribers.delete(subscriber);
          };
          if (signal.aborted) waiting.end();
          const subscriber: Subscriber = {
            deliver(event) {
              // Too far behind: ended, and its client is replayed the rest when it reconnects.
              if (waiting.length >= MAX_BEHIND) end();
              else waiting.push(event);
            },
            end,
          };
          signal.addEventListener('abort', end, { once: true });
          subscribers.add(subscriber);
          let last = after;
          let replaying: AsyncGenerator<StoreEvent> | undefined;
          let ready: Promise<void> | undefined;
          const next = async (): Promise<IteratorResult<StoreEvent>> => {
            ready ??= startReader().then(() => {
              if (after !== undefined) replaying = replay(after);
            });
            await ready;
            while (!waiting.ended) {
              if (replaying !== undefined) {
                const step = await replaying.next();
                if (!step.done) {
                  last = step.value.id;
                  return { value: step.value, done: false };
                }
                replaying = undefined;
              }
              const event = waiting.shift();
              if (event !== undefined) {
                // Live events the replay already gave are skipped.
                if (last !== undefined && !isAfter(event.id, last)) continue;
                last = event.id;
                return { value: event, done: false };
              }
              await waiting.wait();
            }
            end();
            return { value: undefined, done: true };
          };
          return {
            next,
            async return() {
              end();
              signal.removeEventListener('abort', end);
              return { value: undefined, done: true };
            },
          };
        },
      };
    },

    async isBeforeWindow(id) {
      const match = ID.exec(id);
      if (match === null) return true;
      const [seconds, micros] = (await client.time()) as [string | number, string | number];
      const now = Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000);
      return Number(match[1]) < now - windowMs;
    },

    async close() {
      closed = true;
      for (const subscriber of [...subscribers]) subscriber.end();
      reader?.disconnect();
    },
  };
}
