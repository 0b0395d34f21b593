/**
 * An abort signal for the gateway's own upstream calls: an operation's (src/upstream/session.ts)
 * and each attempt's (./resilience.ts). Not an AbortController: what reads these signals (the
 * attempt, the call slots, the shaper, the exchange, an injected `send`) uses `aborted`, `reason`
 * and `abort` listeners added and removed, nothing else, and Node's EventTarget behind a
 * controller (its listener bookkeeping, `setMaxListeners`, an Event per abort) cost every
 * request an operation signal and every upstream call an attempt's: a few per cent of a product
 * page's CPU on the direct lane.
 *
 * As with EventTarget: listeners run once, on the first abort, in the order added; the same
 * listener added twice runs once; one added after the abort never runs; a listener that throws
 * does not stop the others (its error is thrown on the next tick, as an uncaught exception).
 * Never hand one to code outside the gateway that may need the real thing (fetch,
 * `AbortSignal.any`).
 */
export class LightAbortSignal {
  aborted = false;
  reason: unknown;
  #listeners: (() => void)[] | undefined;

  addEventListener(_type: 'abort', listener: () => void, _options?: { once?: boolean }): void {
    if (this.aborted) return;
    const listeners = this.#listeners;
    if (listeners === undefined) this.#listeners = [listener];
    else if (!listeners.includes(listener)) listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const listeners = this.#listeners;
    if (listeners === undefined) return;
    const at = listeners.indexOf(listener);
    if (at !== -1) listeners.splice(at, 1);
  }

  /** Aborts once; `reason` defaults to AbortController's own. */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new DOMException('This operation was aborted', 'AbortError');
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners === undefined) return;
    for (const listener of listeners) {
      try {
        listener();
      } catch (error) {
        process.nextTick(() => {
          throw error;
        });
      }
    }
  }

  /** This signal where the upstream layer's types name an AbortSignal (only the part above is used). */
  get asSignal(): AbortSignal {
    return this as unknown as AbortSignal;
  }
}
