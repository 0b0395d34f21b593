/**
 * How the gateway watches the upstream: one interface, through which metrics and traces (and
 * the log, for the breaker) see every attempt sent to the origin and every change of its circuit
 * breaker. Observers are given to the front door (./index.ts, `observe`) while the gateway is
 * built, before the first request; they never see a credential: an attempt is described by its
 * method and route template only.
 */
import type { BreakerState } from './breaker.ts';
import type { GatewayError } from './errors.ts';

/** The methods the gateway calls the upstream with. */
export type UpstreamMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One HTTP attempt to the origin, as observers see it. */
export interface UpstreamAttempt {
  readonly method: UpstreamMethod;
  /**
   * The route with its ids replaced (`/v2/orders/{id}`, ./route-template.ts): never an id, a slug
   * or any other value of a caller or a store, so it may label metrics and name spans.
   */
  readonly route: string;
  /** 0 for the first attempt of a call, n for its n-th retry (./resilience.ts). */
  readonly retry: number;
  /** The operation's trace span (the session's `trace`), opaque here; unset when not tracing. */
  readonly trace: unknown;
  /** The HTTP status, 0 when none came (then `error` says why). Set when the attempt ends. */
  status: number;
  /**
   * Why the attempt failed (a non-2xx answer, or none: its `reason` then, e.g. `timeout`,
   * `connect`, `client-closed`); undefined when it succeeded. Set when the attempt ends.
   */
  error: GatewayError | undefined;
}

export interface UpstreamObserver {
  /**
   * Just before an attempt is sent (it holds its connection slot). It may add headers to the
   * attempt (W3C `traceparent`); what it returns is handed back to its `attemptEnd`.
   */
  attemptStart?(attempt: UpstreamAttempt, headers: Record<string, string>): unknown;
  /** Once per attempt, when its answer, or failure, is known. */
  attemptEnd?(attempt: UpstreamAttempt, started: unknown): void;
  /** The origin's circuit breaker changed state (./breaker.ts); rare, never per request. */
  breakerChange?(state: BreakerState): void;
}

/**
 * The observers of one transport, combined once when they are given, so an attempt asks one
 * object and pays nothing for observers that do not watch attempts.
 */
export interface AttemptWatch {
  start: ((attempt: UpstreamAttempt, headers: Record<string, string>) => unknown) | undefined;
  end(attempt: UpstreamAttempt, started: unknown): void;
}

/** Undefined when none of `observers` watches attempts. */
export function combineAttemptWatch(
  observers: readonly UpstreamObserver[],
): AttemptWatch | undefined {
  const starting = observers.filter((observer) => observer.attemptStart !== undefined);
  const ending = observers.filter(
    (observer) => observer.attemptStart !== undefined || observer.attemptEnd !== undefined,
  );
  if (ending.length === 0) return undefined;
  if (ending.length === 1) {
    const only = ending[0] as UpstreamObserver;
    return {
      start: only.attemptStart?.bind(only),
      end: only.attemptEnd?.bind(only) ?? (() => {}),
    };
  }
  if (starting.length <= 1) {
    // The one that starts gets its own value back; the others get undefined, as if alone.
    const starter = starting[0];
    return {
      start: starter?.attemptStart?.bind(starter),
      end(attempt, started) {
        for (const observer of ending) {
          observer.attemptEnd?.(attempt, observer === starter ? started : undefined);
        }
      },
    };
  }
  return {
    start: (attempt, headers) =>
      starting.map((observer) => observer.attemptStart?.(attempt, headers)),
    end(attempt, started) {
      const values = started as unknown[];
      for (const observer of ending) {
        const index = starting.indexOf(observer);
        observer.attemptEnd?.(attempt, index === -1 ? undefined : values[index]);
      }
    },
  };
}
