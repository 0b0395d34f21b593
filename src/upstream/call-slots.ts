/**
 * Slots for upstream calls, shared fairly between operations.
 *
 * The upstream pool has a fixed number of connections. Left to itself it serves calls in the
 * order they come, so one operation that starts fifty calls at once (a `nodes(ids:)` of many
 * ids, a deep page) puts fifty calls ahead of every other operation's one call, and that call
 * then spends its time — and its timeout — waiting in the gateway, not at the upstream. Here:
 * - at most `capacity` calls are in flight (the pool's connections), so the pool never queues;
 * - one operation (a lane) has at most `perLane` calls in flight, so no caller takes the pool;
 * - a freed slot goes to the waiting lane with the fewest calls in flight (round robin among
 *   equals), not to the longest queue, so an operation with nothing in flight waits for at most
 *   one slot to free, however many calls others queued before it;
 * - a waiting call leaves the queue at once when its operation's signal aborts (the client went
 *   away, the deadline passed, or the operation's answer is final).
 * Whether a call waited is reported to the caller, so the time spent here is neither part of the
 * attempt's timeout nor a fault of the upstream (src/upstream/resilience.ts).
 */

/** The calls of one operation. Created per operation (src/upstream/session.ts); opaque to it. */
export interface CallLane {
  /** Calls of this lane holding a slot. */
  inFlight: number;
  /** Calls of this lane waiting for a slot, first come first served within the lane. */
  readonly waiting: Waiter[];
}

interface Waiter {
  grant(): void;
}

export interface CallSlots {
  /** Most calls in flight at once (the pool's connections). */
  readonly capacity: number;
  /** Most calls in flight at once for one lane. */
  readonly perLane: number;
  /** Calls holding a slot now. */
  readonly inFlight: number;
  /** Calls waiting for a slot now. */
  readonly queued: number;
  /**
   * Takes a slot for `lane`: undefined when one was free (the slot is held now, no waiting), else
   * a promise that resolves when the slot is held, or rejects with the signal's reason when it
   * aborts first (then no slot is held). Every held slot must be given back with `release`.
   */
  acquire(lane: CallLane, signal?: AbortSignal): Promise<void> | undefined;
  release(lane: CallLane): void;
}

/** Connections of an upstream pool unless configured (src/upstream/client.ts). */
export const DEFAULT_POOL_CONNECTIONS = 64;
/** Calls in flight at once for one operation unless configured: a quarter of the pool's. */
export const DEFAULT_CALLS_PER_OPERATION = DEFAULT_POOL_CONNECTIONS / 4;

export function createCallLane(): CallLane {
  return { inFlight: 0, waiting: [] };
}

export function createCallSlots(capacity: number, perLane: number): CallSlots {
  if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('capacity must be ≥ 1');
  if (!Number.isInteger(perLane) || perLane < 1) throw new RangeError('perLane must be ≥ 1');
  let inFlight = 0;
  let queued = 0;
  /** Lanes with waiting calls, in the order they are served. */
  const turns: CallLane[] = [];

  const take = (lane: CallLane) => {
    lane.inFlight += 1;
    inFlight += 1;
  };

  /**
   * Gives free slots to waiting calls: each to the waiting lane with the fewest calls in flight
   * (the first in turn among equals), which then goes to the back of the turns.
   */
  const dispatch = () => {
    while (inFlight < capacity && turns.length > 0) {
      let chosen = -1;
      for (let i = 0; i < turns.length; i++) {
        const lane = turns[i] as CallLane;
        if (lane.inFlight >= perLane) continue;
        if (chosen === -1 || lane.inFlight < (turns[chosen] as CallLane).inFlight) chosen = i;
        if (lane.inFlight === 0) break;
      }
      // Every waiting lane is at its own cap: they wait for one of their calls to end.
      if (chosen === -1) return;
      const lane = turns.splice(chosen, 1)[0] as CallLane;
      const waiter = lane.waiting.shift() as Waiter;
      queued -= 1;
      take(lane);
      if (lane.waiting.length > 0) turns.push(lane);
      waiter.grant();
    }
  };

  return {
    capacity,
    perLane,
    get inFlight() {
      return inFlight;
    },
    get queued() {
      return queued;
    },
    acquire(lane, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason);
      // A free slot is taken at once unless this lane already has calls waiting (their order
      // is kept). Lanes waiting elsewhere are at their own cap, or the pool would not be free.
      if (inFlight < capacity && lane.inFlight < perLane && lane.waiting.length === 0) {
        take(lane);
        return undefined;
      }
      return new Promise<void>((resolve, reject) => {
        const onAbort = () => {
          const index = lane.waiting.indexOf(waiter);
          if (index === -1) return;
          lane.waiting.splice(index, 1);
          queued -= 1;
          if (lane.waiting.length === 0) {
            const turn = turns.indexOf(lane);
            if (turn !== -1) turns.splice(turn, 1);
          }
          reject(signal?.reason);
        };
        const waiter: Waiter = {
          grant() {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        if (lane.waiting.length === 0) turns.push(lane);
        lane.waiting.push(waiter);
        queued += 1;
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    release(lane) {
      lane.inFlight -= 1;
      inFlight -= 1;
      if (turns.length > 0) dispatch();
    },
  };
}
