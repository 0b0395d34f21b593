/**
 * The event bus of one process (./bus.ts): what `npm start` and a single replica use when no
 * REDIS_URL is set. Events are kept for a replay window bounded twice, by age and by count, so a
 * reconnecting client (`Last-Event-ID`) misses nothing within it and memory stays bounded
 * whatever the store does. Publishing is synchronous: a subscriber registered before `publish`
 * returns sees the event, one registered after sees it only in its replay.
 */

import type { EventBus, StoreEvent, SubscribeOptions } from './bus.ts';
import { EventQueue } from './queue.ts';

/** Seconds an event stays replayable by default (`EVENT_REPLAY_SECONDS`). */
export const DEFAULT_EVENT_REPLAY_SECONDS = 300;
/** Events kept for replay at most by default (`EVENT_REPLAY_MAX`), whatever their age. */
export const DEFAULT_EVENT_REPLAY_MAX = 10_000;

export interface MemoryBusOptions {
  /** How long an event is replayable, seconds. Default DEFAULT_EVENT_REPLAY_SECONDS. */
  replaySeconds?: number;
  /** How many events are replayable at most. Default DEFAULT_EVENT_REPLAY_MAX. */
  replayMax?: number;
  /** The clock, ms (tests move it). Default Date.now. */
  now?: () => number;
}

const EVENT_ID = /^(\d{1,15})-(\d{1,9})$/;

/** `<ms>-<seq>` as two numbers, or undefined when `id` is not of that form. */
export function parseEventId(id: string): [number, number] | undefined {
  const match = EVENT_ID.exec(id);
  if (match === null) return undefined;
  return [Number(match[1]), Number(match[2])];
}

/** Orders two well-formed event ids (negative: `a` first). */
export function compareEventIds(a: string, b: string): number {
  const [am, as] = parseEventId(a) ?? [0, 0];
  const [bm, bs] = parseEventId(b) ?? [0, 0];
  return am === bm ? as - bs : am - bm;
}

export function createMemoryBus(options: MemoryBusOptions = {}): EventBus {
  const windowMs = (options.replaySeconds ?? DEFAULT_EVENT_REPLAY_SECONDS) * 1000;
  const max = Math.max(1, options.replayMax ?? DEFAULT_EVENT_REPLAY_MAX);
  const now = options.now ?? Date.now;
  // Anything published before this bus existed is unknown to it: an id from then (a client of a
  // process that has since restarted) may have missed events, and is told so.
  const startedMs = now();
  const retained: StoreEvent[] = [];
  // Index of the oldest retained event in `retained` (shifted in bulk, not one by one).
  let head = 0;
  const retainedAt: number[] = [];
  /** The newest event dropped from the window: an id before it has missed events. */
  let lastDropped: string | undefined;
  let lastMs = 0;
  let seq = 0;
  const listeners = new Set<EventQueue>();
  let closed = false;
  // The webhook ids published within the window, and the event each became: a repeat delivered
  // to another worker of WORKERS (all relay to this one bus) is published once.
  const deliveries = new Map<string, StoreEvent>();

  function prune(at: number): void {
    const oldest = at - windowMs;
    while (head < retained.length) {
      const count = retained.length - head;
      const when = retainedAt[head] ?? at;
      if (count <= max && when >= oldest) break;
      lastDropped = retained[head]?.id;
      head += 1;
      // Deliveries are remembered as long as their event is retained (Map order is insertion).
      for (const [deliveryId, event] of deliveries) {
        if (compareEventIds(event.id, lastDropped ?? '') > 0) break;
        deliveries.delete(deliveryId);
      }
    }
    // Compact once the dropped part outweighs what is kept.
    if (head > 1024 && head * 2 > retained.length) {
      retained.splice(0, head);
      retainedAt.splice(0, head);
      head = 0;
    }
  }

  function nextId(at: number): string {
    // Never backwards, even if the clock is: ids sort as events were published.
    if (at > lastMs) {
      lastMs = at;
      seq = 0;
    } else {
      seq += 1;
    }
    return `${lastMs}-${seq}`;
  }

  /** A listener's queue longer than the window cannot be replayed either: end it instead. */
  function deliver(listener: EventQueue, event: StoreEvent): void {
    if (listener.ended) return;
    if (listener.length >= max) {
      // A subscriber this far behind is cut off; its client reconnects with Last-Event-ID and
      // is told whether the window still holds what it missed.
      listener.end(undefined, true);
      listeners.delete(listener);
    } else {
      listener.push(event);
    }
  }

  return {
    async publish(event, publishOptions) {
      if (closed) throw new Error('The event bus is closed');
      const deliveryId = publishOptions?.deliveryId;
      const first = deliveryId === undefined ? undefined : deliveries.get(deliveryId);
      if (first !== undefined) return first;
      const at = now();
      const stored: StoreEvent = Object.freeze({ ...event, id: nextId(at) });
      if (deliveryId !== undefined) deliveries.set(deliveryId, stored);
      retained.push(stored);
      retainedAt.push(at);
      prune(at);
      for (const listener of listeners) deliver(listener, stored);
      return stored;
    },

    subscribe({ after, signal }: SubscribeOptions): AsyncIterable<StoreEvent> {
      const listener = new EventQueue();
      if (closed) listener.end();
      if (after !== undefined) {
        prune(now());
        for (let i = head; i < retained.length; i += 1) {
          const event = retained[i];
          if (event !== undefined && compareEventIds(event.id, after) > 0) {
            listener.push(event);
          }
        }
      }
      const end = () => {
        listener.end();
        listeners.delete(listener);
      };
      if (signal.aborted) end();
      else {
        listeners.add(listener);
        signal.addEventListener('abort', end, { once: true });
      }
      const iterator: AsyncIterableIterator<StoreEvent> = {
        next: () => listener.next(),
        async return() {
          end();
          signal.removeEventListener('abort', end);
          return { done: true, value: undefined };
        },
        [Symbol.asyncIterator]() {
          return iterator;
        },
      };
      return iterator;
    },

    async isBeforeWindow(id) {
      const parsed = parseEventId(id);
      if (parsed === undefined) return true;
      if (parsed[0] < startedMs) return true;
      prune(now());
      return lastDropped !== undefined && compareEventIds(id, lastDropped) < 0;
    },

    async close() {
      closed = true;
      for (const listener of [...listeners]) {
        listener.end();
        listeners.delete(listener);
      }
    },
  };
}
