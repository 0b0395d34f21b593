/**
 * The per-store shaper (`UPSTREAM_RATE_LIMIT` calls a second): keeps the gateway's own calls to
 * a store under the rate the upstream allows it (production: about 100 a second per store,
 * development stores about 25), by making calls wait their turn rather than sending them to
 * collect 429s. Every attempt sent with a token takes one token of the store's bucket
 * (src/limits/buckets.ts: per process, or shared by every replica through Redis); a call that
 * finds none waits in a first-come queue, and the wait is not counted against the attempt's
 * timeout (it is reported as a slot wait: ./resilience.ts).
 *
 * The store is the upstream origin: a gateway serves one store (its typed schema is one store's
 * Custom APIs, read with one store's credentials), and a token says nothing the gateway can read
 * about its store. A gateway serving several stores through one origin paces them together,
 * which keeps each under the rate too.
 *
 * A call whose turn would come after its operation's deadline does not wait for nothing: it
 * fails at once with RATE_LIMITED, saying when the store's rate has room again.
 */
import type { Buckets } from '../limits/buckets.ts';
import { RateLimitedError } from './errors.ts';

export interface Shaper {
  /** Calls per second allowed to the store. */
  readonly rate: number;
  /** Calls waiting for their turn now. */
  readonly queued: number;
  /**
   * Undefined when the call may go now (nothing waits: the common case costs no promise), else
   * a promise that resolves at its turn, or rejects with the signal's reason when it aborts, or
   * RATE_LIMITED when its turn would come after `deadlineAt`.
   */
  acquire(signal?: AbortSignal, deadlineAt?: number): Promise<void> | undefined;
}

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

export function createShaper(buckets: Buckets, store: string, now = Date.now): Shaper {
  const queue: Waiter[] = [];
  let pumping = false;
  const msPerCall = 1_000 / buckets.rate;

  const tooLate = (
    position: number,
    deadlineAt: number | undefined,
  ): RateLimitedError | undefined => {
    if (deadlineAt === undefined) return undefined;
    const turnIn = position * msPerCall;
    if (now() + turnIn < deadlineAt) return undefined;
    return new RateLimitedError(
      `The store's upstream rate (${buckets.rate} calls a second) is in use: this call's turn ` +
        'would come after the operation’s deadline',
      { retryAfterMs: Math.ceil(turnIn) },
    );
  };

  const pump = async () => {
    pumping = true;
    try {
      while (queue.length > 0) {
        let wait = buckets.take(store);
        if (typeof wait !== 'number') wait = await wait;
        if (wait === 0) {
          const first = queue.shift();
          if (first === undefined) continue;
          if (first.onAbort) first.signal?.removeEventListener('abort', first.onAbort);
          first.resolve();
          continue;
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    } finally {
      pumping = false;
    }
  };

  const enqueue = (signal: AbortSignal | undefined, deadlineAt: number | undefined) => {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const late = tooLate(queue.length + 1, deadlineAt);
    if (late !== undefined) return Promise.reject(late);
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal, onAbort: undefined };
      if (signal !== undefined) {
        waiter.onAbort = () => {
          const index = queue.indexOf(waiter);
          if (index !== -1) queue.splice(index, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      queue.push(waiter);
      if (!pumping) void pump();
    });
  };

  return {
    rate: buckets.rate,
    get queued() {
      return queue.length;
    },
    acquire(signal, deadlineAt) {
      if (queue.length > 0) return enqueue(signal, deadlineAt);
      const wait = buckets.take(store);
      if (wait === 0) return undefined;
      if (typeof wait === 'number') return enqueue(signal, deadlineAt);
      // A shared bucket asking Redis for a lease: this call's token comes with the answer.
      return wait.then((given) => (given === 0 ? undefined : enqueue(signal, deadlineAt)));
    },
  };
}
