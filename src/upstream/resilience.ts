import {
  type BreakerOptions,
  type BreakerState,
  type CircuitBreaker,
  createCircuitBreaker,
  DEFAULT_BREAKER_OPTIONS,
} from './breaker.ts';
import { type SendAttempt, sendUpstreamAttempt } from './client.ts';
import {
  ClientClosedRequestError,
  type GatewayError,
  isGatewayError,
  RateLimitedError,
  UpstreamUnavailableError,
} from './errors.ts';
import { LightAbortSignal } from './light-signal.ts';

/**
 * Resilience for upstream calls: a per-attempt timeout, retries for idempotent methods with
 * jittered exponential backoff (honouring `Retry-After`), never past the operation's deadline,
 * and one circuit breaker per upstream origin.
 *
 * The REST client performs ONE HTTP attempt and maps its outcome to the error family of
 * `errors.ts`; this module decides, from those typed errors only, whether to try again and
 * whether the upstream looks down. Contract with the attempt function:
 * - connection refused / reset / per-call timeout → UpstreamUnavailableError reason
 *   'connect' / 'reset' / 'timeout';
 * - 5xx → UpstreamUnavailableError reason 'status' with `upstreamStatus`;
 * - 429 → RateLimitedError with `retryAfterMs` when the upstream sent `Retry-After`;
 * - a 200 whose body is not the JSON it should be → reason 'invalid-body';
 * - anything thrown while the given signal is aborted is re-classified here ('timeout' for the
 *   attempt's own timer, 'deadline' for the operation's deadline, CLIENT_CLOSED_REQUEST for a
 *   client that went away), so the client need not know which timer fired;
 * - it may report that it waits for a connection slot (`SlotWait`): the attempt's timeout runs
 *   only while it is sent, and the wait is never held against the upstream.
 *
 * The breaker (./breaker.ts) judges logical calls: one outcome per call, whatever its retries met.
 */

export interface ResilienceOptions {
  /**
   * Timeout of one HTTP attempt (from the moment it is sent to the end of its body; time spent
   * waiting for a connection slot is not part of it), ms. Default 5,000.
   */
  attemptTimeoutMs: number;
  /** Attempts for GET/HEAD including the first; other methods always get exactly 1. Default 3. */
  maxAttempts: number;
  /** First backoff step, ms; step n is drawn uniformly from [0, base·2^n] (full jitter). Default 50. */
  backoffBaseMs: number;
  /** Largest backoff step, ms. Default 1,000. */
  backoffMaxMs: number;
  /**
   * Longest `Retry-After` honoured, ms. A 429 asking for longer (or past the deadline) is not
   * retried and reaches the client as RATE_LIMITED. Default 2,000.
   */
  retryAfterMaxMs: number;
  breaker: BreakerOptions;
  /** Clock and randomness, injectable for tests. */
  now?: () => number;
  random?: () => number;
}

export const DEFAULT_RESILIENCE_OPTIONS: ResilienceOptions = {
  attemptTimeoutMs: 5_000,
  maxAttempts: 3,
  backoffBaseMs: 50,
  backoffMaxMs: 1_000,
  retryAfterMaxMs: 2_000,
  breaker: DEFAULT_BREAKER_OPTIONS,
};

export type ResilienceConfig = Partial<Omit<ResilienceOptions, 'breaker'>> & {
  breaker?: Partial<BreakerOptions>;
};

/** One logical upstream call (which may become several attempts). */
export interface UpstreamCall {
  method: string;
  /** Origin of the upstream (`http://host:port`); one breaker per origin. */
  origin: string;
  /** The operation's signal: the client's abort plus the operation deadline. */
  signal?: AbortSignal | undefined;
  /** Epoch ms of the operation deadline; backoff never sleeps past it. */
  deadlineAt?: number | undefined;
  /** Called before every attempt actually sent (retries included), e.g. to count calls. */
  onAttempt?: ((attempt: number) => void) | undefined;
}

/**
 * What an attempt reports while it waits for a connection slot: `true` when it starts waiting,
 * `false` when it has one and is being sent (never called when a slot was free at once).
 */
export type SlotWait = (waiting: boolean) => void;

/** Performs one HTTP attempt; must stop when `signal` aborts. */
export type Attempt<T> = (signal: AbortSignal, attempt: number, slotWait: SlotWait) => Promise<T>;

export interface Resilience {
  readonly options: ResilienceOptions;
  execute<T>(call: UpstreamCall, attempt: Attempt<T>): Promise<T>;
  breaker(origin: string): CircuitBreaker;
}

const IDEMPOTENT = new Set(['GET', 'HEAD']);
const RETRYABLE_STATUS = new Set([502, 503, 504]);

/** Failures that say the upstream (not the caller) is in trouble: they count for the breaker. */
export function isUpstreamFailure(error: unknown): boolean {
  if (!(error instanceof UpstreamUnavailableError)) return false;
  switch (error.reason) {
    case 'connect':
    case 'reset':
    case 'timeout':
      return true;
    case 'status':
      return (error.upstreamStatus ?? 500) >= 500;
    default:
      // invalid-body is a contract problem of one route, aborted/deadline are the caller's
      // choices, circuit-open is ours: none of them says the origin is down.
      return false;
  }
}

function isRetryable(error: unknown): boolean {
  if (error instanceof RateLimitedError) return true;
  if (!(error instanceof UpstreamUnavailableError)) return false;
  if (error.reason === 'status') return RETRYABLE_STATUS.has(error.upstreamStatus ?? 0);
  return error.reason === 'connect' || error.reason === 'reset' || error.reason === 'timeout';
}

function isDeadline(error: unknown): boolean {
  return error instanceof UpstreamUnavailableError && error.reason === 'deadline';
}

/** Sleeps `ms`, or rejects with the signal's reason when it aborts first. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function isTimeoutReason(reason: unknown): boolean {
  return (
    (reason instanceof Error || (typeof reason === 'object' && reason !== null)) &&
    (reason as { name?: unknown }).name === 'TimeoutError'
  );
}

/**
 * Why an operation signal aborted: a GatewayError reason passes through; a TimeoutError (as from
 * `AbortSignal.timeout`) is the deadline; anything else is the client going away.
 */
export function abortError(signal: AbortSignal, cause?: unknown): GatewayError {
  const reason: unknown = signal.reason;
  if (isGatewayError(reason)) return reason;
  if (isTimeoutReason(reason)) {
    return new UpstreamUnavailableError('The operation ran out of time waiting for the upstream', {
      reason: 'deadline',
      cause: cause ?? reason,
    });
  }
  return new ClientClosedRequestError('The client closed the request', { cause: cause ?? reason });
}

export function resolveResilienceOptions(config: ResilienceConfig = {}): ResilienceOptions {
  const { breaker, ...rest } = config;
  const defined = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  const definedBreaker = Object.fromEntries(
    Object.entries(breaker ?? {}).filter(([, v]) => v !== undefined),
  );
  return {
    ...DEFAULT_RESILIENCE_OPTIONS,
    ...defined,
    breaker: { ...DEFAULT_BREAKER_OPTIONS, ...definedBreaker },
  };
}

/** How one attempt ended, beside its result or error: what the breaker needs to know. */
interface AttemptTrace {
  /** It was cut by the operation's deadline while sent (not while waiting for a slot). */
  deadlineWhileSent: boolean;
}

/**
 * `breakerChange` hears every state change of every origin's breaker (the front door hands it to
 * the observers, ./observer.ts).
 */
export function createResilience(
  config: ResilienceConfig = {},
  breakerChange?: (origin: string, state: BreakerState) => void,
): Resilience {
  const options = resolveResilienceOptions(config);
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const breakers = new Map<string, CircuitBreaker>();

  const breakerFor = (origin: string): CircuitBreaker => {
    let breaker = breakers.get(origin);
    if (breaker === undefined) {
      breaker = createCircuitBreaker(
        options.breaker,
        now,
        breakerChange && ((state) => breakerChange(origin, state)),
      );
      breakers.set(origin, breaker);
    }
    return breaker;
  };

  /**
   * One attempt under its own timer, linked to the operation signal, cleaned up after. The timer
   * runs only while the attempt is sent: it stops while the attempt waits for a slot and starts
   * afresh when it gets one, so a call queued behind others in the gateway never times out for it.
   */
  async function runAttempt<T>(
    call: UpstreamCall,
    attempt: Attempt<T>,
    index: number,
    trace: AttemptTrace,
  ): Promise<T> {
    const parent = call.signal;
    if (parent?.aborted) throw abortError(parent);
    const controller = new LightAbortSignal();
    let timedOut = false;
    let waiting = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      const remaining = call.deadlineAt === undefined ? Infinity : call.deadlineAt - now();
      const timeoutMs = Math.max(1, Math.min(options.attemptTimeoutMs, remaining));
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort(
          new UpstreamUnavailableError('The upstream did not answer in time', {
            reason: 'timeout',
          }),
        );
      }, timeoutMs);
    };
    const slotWait: SlotWait = (nowWaiting) => {
      waiting = nowWaiting;
      clearTimeout(timer);
      if (!nowWaiting) arm();
    };
    arm();
    const onParentAbort = () => controller.abort(parent?.reason);
    parent?.addEventListener('abort', onParentAbort, { once: true });
    try {
      call.onAttempt?.(index);
      return await attempt(controller.asSignal, index, slotWait);
    } catch (error) {
      if (parent?.aborted) {
        const failure = abortError(parent, error);
        // The deadline firing while the attempt was at the upstream is the upstream being slow
        // (the breaker hears of it); firing while it waited for a slot is the gateway's queue.
        trace.deadlineWhileSent = !waiting && isDeadline(failure);
        throw failure;
      }
      if (timedOut) {
        throw new UpstreamUnavailableError('The upstream did not answer in time', {
          reason: 'timeout',
          cause: error,
        });
      }
      throw error;
    } finally {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
    }
  }

  async function execute<T>(call: UpstreamCall, attempt: Attempt<T>): Promise<T> {
    const breaker = breakerFor(call.origin);
    const attempts = IDEMPOTENT.has(call.method.toUpperCase()) ? options.maxAttempts : 1;
    const trace: AttemptTrace = { deadlineWhileSent: false };
    // Whether the last failed attempt was the upstream's fault (5xx, timeout, connection).
    let lastFault = false;
    for (let index = 0; ; index++) {
      const permit = breaker.acquire();
      let result: T;
      try {
        result = await runAttempt(call, attempt, index, trace);
      } catch (error) {
        const fault = isUpstreamFailure(error);
        const retry = retryDelay(call, error, index, attempts);
        if (retry === undefined) {
          // The logical call is over: one outcome for the breaker. A deadline counts when it cut
          // an attempt at the upstream, or cut the wait after the upstream had failed it.
          const failed = fault || (isDeadline(error) && (trace.deadlineWhileSent || lastFault));
          breaker.settle(permit, failed ? 'failure' : 'neutral');
          throw error;
        }
        // A failed probe re-opens the breaker at once; the retry then fails fast.
        if (permit.probe) breaker.settle(permit, fault ? 'failure' : 'neutral');
        lastFault = fault;
        try {
          await sleep(retry, call.signal);
        } catch {
          const failure = call.signal ? abortError(call.signal) : error;
          breaker.settle(permit, lastFault && isDeadline(failure) ? 'failure' : 'neutral');
          throw failure;
        }
        continue;
      }
      breaker.settle(permit, 'success');
      return result;
    }
  }

  /** Delay before the next attempt of a failed one, or undefined when there is none. */
  function retryDelay(
    call: UpstreamCall,
    error: unknown,
    index: number,
    attempts: number,
  ): number | undefined {
    if (index + 1 >= attempts || !isRetryable(error)) return undefined;
    const delay = backoffDelay(error, index);
    if (delay === undefined) return undefined;
    if (call.deadlineAt !== undefined && now() + delay >= call.deadlineAt) return undefined;
    return delay;
  }

  /** Delay before the next attempt, or undefined when the upstream asked for too long. */
  function backoffDelay(error: unknown, index: number): number | undefined {
    const step = Math.min(options.backoffMaxMs, options.backoffBaseMs * 2 ** index);
    const jitter = Math.floor(random() * step);
    if (error instanceof RateLimitedError && error.retryAfterMs !== undefined) {
      if (error.retryAfterMs > options.retryAfterMaxMs) return undefined;
      // Honour the upstream's wish, spread a little so waiting callers do not return in lockstep.
      return error.retryAfterMs + Math.floor(random() * options.backoffBaseMs);
    }
    return jitter;
  }

  return { options, execute, breaker: breakerFor };
}

/**
 * Wraps the client's one-attempt function: the same signature, with timeouts, retries and the
 * breaker of `resilience`. Retries are not extra budget units: the budget counts logical calls.
 */
export function createResilientSend(
  resilience: Resilience,
  send: SendAttempt = sendUpstreamAttempt,
): SendAttempt {
  return (transport, request, context) =>
    resilience.execute(
      {
        method: request.method,
        origin: transport.origin,
        signal: context.signal,
        deadlineAt: context.deadlineAt,
      },
      (signal, attempt, onSlotWait) =>
        send(transport, request, { ...context, signal, attempt, onSlotWait }),
    );
}
