/**
 * One subscriber's events not yet taken, and the one reader waiting for the next: what every
 * bus (./memory-bus.ts, ./cluster-bus.ts, ./redis-bus.ts) hands its subscription's iterator.
 */
import type { StoreEvent } from './bus.ts';

export class EventQueue {
  readonly #events: StoreEvent[] = [];
  #wake: (() => void) | undefined;
  #ended = false;
  #error: unknown;

  /** Events waiting to be taken. */
  get length(): number {
    return this.#events.length;
  }

  get ended(): boolean {
    return this.#ended;
  }

  push(event: StoreEvent): void {
    if (this.#ended) return;
    this.#events.push(event);
    this.#wakeUp();
  }

  /** The next waiting event, without waiting. */
  shift(): StoreEvent | undefined {
    return this.#events.shift();
  }

  /**
   * No more events: the reader takes what waits, then is done (or is thrown `error`, once).
   * `drop` discards what waits (a subscriber too far behind: its client is replayed instead).
   */
  end(error?: unknown, drop = false): void {
    if (drop) this.#events.length = 0;
    if (this.#ended) return;
    this.#ended = true;
    this.#error = error;
    this.#wakeUp();
  }

  /** Resolves when an event or the end arrives (at once if either is there). */
  wait(): Promise<void> {
    if (this.#events.length > 0 || this.#ended) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
  }

  /** The next event, waiting for it; done once ended and drained. */
  async next(): Promise<IteratorResult<StoreEvent>> {
    for (;;) {
      const event = this.#events.shift();
      if (event !== undefined) return { done: false, value: event };
      if (this.#ended) {
        const error = this.#error;
        this.#error = undefined;
        if (error !== undefined) throw error;
        return { done: true, value: undefined };
      }
      await this.wait();
    }
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
