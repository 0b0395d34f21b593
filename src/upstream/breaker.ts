/**
 * The circuit breaker of one upstream origin (./resilience.ts holds one per origin). It judges
 * logical calls, not attempts: a retried call that then succeeds is one success, whatever its
 * first attempt met. It opens on a sustained failure RATE — at least `failureRatio` of the calls
 * that finished in the last `windowMs`, once there were at least `minimumCalls` of them — as
 * resilience4j's and Polly's breakers do, never on a run of consecutive failures: under
 * concurrency failures arrive in bursts (a 503 comes back at once, the successes sent beside it
 * take the upstream's full time, so one tick's batch of calls answers its failures together), and
 * a run of ten says how many calls were in flight, not that the origin is down.
 */
import { UpstreamUnavailableError } from './errors.ts';

/** Circuit breaker settings (one breaker per upstream origin). */
export interface BreakerOptions {
  /** Sliding window over which the failure ratio is taken, ms. Default 10,000. */
  windowMs: number;
  /** Finished calls needed in the window before the ratio may open the breaker. Default 20. */
  minimumCalls: number;
  /** Failure ratio in the window (0–1] that opens the breaker. Default 0.5. */
  failureRatio: number;
  /** How long the breaker stays open before one half-open probe is let through, ms. Default 5,000. */
  cooldownMs: number;
}

export const DEFAULT_BREAKER_OPTIONS: BreakerOptions = {
  windowMs: 10_000,
  minimumCalls: 20,
  failureRatio: 0.5,
  cooldownMs: 5_000,
};

export type BreakerState = 'closed' | 'open' | 'half-open';

/** Leave to send one attempt: a plain pass while closed, the one probe while half-open. */
export interface BreakerPermit {
  readonly probe: boolean;
  /** The breaker's state change count when the permit was given. */
  readonly generation: number;
}

export type BreakerOutcome = 'success' | 'failure' | 'neutral';

export interface CircuitBreaker {
  readonly state: BreakerState;
  /** Throws UpstreamUnavailableError('circuit-open') unless an attempt may go out now. */
  acquire(): BreakerPermit;
  /**
   * The outcome of what the permit let through. While closed, one outcome per logical call
   * (its last attempt's permit); a permit given before the breaker last changed state is
   * ignored, so a call sent before it opened neither re-opens nor closes it. A probe's outcome
   * closes (success) or re-opens (failure) the breaker; a neutral one lets the next call probe.
   */
  settle(permit: BreakerPermit, outcome: BreakerOutcome): void;
}

export function createCircuitBreaker(
  options: BreakerOptions,
  now: () => number = Date.now,
  onChange?: (state: BreakerState) => void,
): CircuitBreaker {
  let state: BreakerState = 'closed';
  let generation = 0;
  let openedAt = 0;
  let probing = false;
  // Sliding window as 10 buckets of [calls, failures]: O(1) memory however busy the origin is.
  const bucketCount = 10;
  const bucketMs = Math.max(1, Math.ceil(options.windowMs / bucketCount));
  const calls = new Array<number>(bucketCount).fill(0);
  const failures = new Array<number>(bucketCount).fill(0);
  let lastBucket = Math.floor(now() / bucketMs);
  // While closed every permit is the same: one object per generation, not one per attempt.
  let closedPermit: BreakerPermit = { probe: false, generation };

  const rotate = () => {
    const current = Math.floor(now() / bucketMs);
    const steps = Math.min(bucketCount, current - lastBucket);
    for (let i = 1; i <= steps; i++) {
      const index = (lastBucket + i) % bucketCount;
      calls[index] = 0;
      failures[index] = 0;
    }
    lastBucket = Math.max(lastBucket, current);
    return lastBucket % bucketCount;
  };

  const transition = (next: BreakerState) => {
    state = next;
    generation += 1;
    probing = false;
    closedPermit = { probe: false, generation };
    if (next === 'open') openedAt = now();
    if (next === 'closed') {
      calls.fill(0);
      failures.fill(0);
    }
    onChange?.(next);
  };

  return {
    get state() {
      if (state === 'open' && now() - openedAt >= options.cooldownMs) return 'half-open';
      return state;
    },
    acquire() {
      if (state === 'closed') return closedPermit;
      if (state === 'open') {
        if (now() - openedAt < options.cooldownMs) throw circuitOpen();
        transition('half-open');
      }
      // Half-open: exactly one probe at a time; everyone else fails fast until it answers.
      if (probing) throw circuitOpen();
      probing = true;
      return { probe: true, generation };
    },
    settle(permit, outcome) {
      if (permit.generation !== generation) return;
      if (permit.probe) {
        if (outcome === 'success') transition('closed');
        else if (outcome === 'failure') transition('open');
        else probing = false;
        return;
      }
      if (state !== 'closed' || outcome === 'neutral') return;
      const index = rotate();
      calls[index] = (calls[index] ?? 0) + 1;
      if (outcome === 'success') return;
      failures[index] = (failures[index] ?? 0) + 1;
      let total = 0;
      let failed = 0;
      for (let i = 0; i < bucketCount; i++) {
        total += calls[i] ?? 0;
        failed += failures[i] ?? 0;
      }
      if (total >= options.minimumCalls && failed >= options.failureRatio * total) {
        transition('open');
      }
    },
  };
}

function circuitOpen(): UpstreamUnavailableError {
  return new UpstreamUnavailableError('The upstream service is unavailable; try again shortly', {
    reason: 'circuit-open',
  });
}
