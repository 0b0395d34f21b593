/**
 * Failed sign-in limits for `POST /v2/customers/tokens`: a password guesser gets a handful of
 * tries per email and per client (source address), each per store, within a window, then 429
 * with `Retry-After` until enough of its failures are older than the window.
 *
 * - A locked attempt is refused before any password is checked, the right one included: an
 *   answer that still told a right password from a wrong one would let the guessing go on.
 *   It also costs no scrypt work.
 * - Attempts in flight count as failures until they resolve, so a thousand concurrent guesses
 *   get no more tries than a thousand sequential ones.
 * - A success clears its email's failures (the owner got in) but not its client's: one account
 *   the guesser knows must not buy more guesses at others.
 * - Unknown emails count like known ones: a lockout says nothing about whether an email exists.
 *
 * Counters live in memory, per process: a restart forgets them. Their number is bounded
 * (MAX_KEYS); each holds at most `limit` timestamps.
 */
import type { SignInLimits } from './config.ts';
import { ApiError } from './errors.ts';
import type { Clock } from './time.ts';

/** Most counters kept; past it, expired ones go first, then the least recently failed. */
const MAX_KEYS = 50_000;

interface Counter {
  /** Times of the failures inside the window, oldest first; at most `limit` of them. */
  failures: number[];
  /** Attempts checked against the limit whose outcome is not known yet. */
  pending: number;
}

/** One attempt let through: say how it ended, exactly once. */
export interface SignInAttempt {
  failed(): void;
  succeeded(): void;
  /** Neither (the check itself broke): the attempt is forgotten. */
  abandoned(): void;
}

export interface SignInLimiter {
  /**
   * Lets an attempt through, or throws 429 (with `Retry-After`) when the email or the client
   * has used up its failures in the window.
   */
  begin(storeId: string, email: string, client: string): SignInAttempt;
}

export function createSignInLimiter(limits: SignInLimits, clock: Clock): SignInLimiter {
  const counters = new Map<string, Counter>();

  function live(key: string, now: number): Counter | undefined {
    const counter = counters.get(key);
    if (counter === undefined) return undefined;
    const cutoff = now - limits.windowMs;
    let expired = 0;
    while (expired < counter.failures.length && (counter.failures[expired] as number) <= cutoff) {
      expired += 1;
    }
    if (expired > 0) counter.failures.splice(0, expired);
    if (counter.failures.length === 0 && counter.pending === 0) {
      counters.delete(key);
      return undefined;
    }
    return counter;
  }

  function make(key: string, now: number): Counter {
    const existing = live(key, now);
    if (existing) return existing;
    if (counters.size >= MAX_KEYS) evict(now);
    const counter: Counter = { failures: [], pending: 0 };
    counters.set(key, counter);
    return counter;
  }

  function evict(now: number): void {
    for (const key of [...counters.keys()]) live(key, now);
    // Still full: drop the counters whose last failure is oldest (Map order is insertion
    // order, and a counter is re-inserted on every failure), never one with attempts pending.
    for (const [key, counter] of counters) {
      if (counters.size < MAX_KEYS) break;
      if (counter.pending === 0) counters.delete(key);
    }
  }

  /** Milliseconds until the key takes an attempt again; 0 when it takes one now. */
  function wait(key: string, limit: number, now: number): number {
    if (limit === 0) return 0;
    const counter = live(key, now);
    if (counter === undefined) return 0;
    const { failures, pending } = counter;
    if (failures.length + pending < limit) return 0;
    // Enough failures expire when the one `limit` places from the newest does; attempts in
    // flight resolve within a second or so.
    const oldest = failures[failures.length - limit];
    return oldest === undefined ? 1000 : oldest + limits.windowMs - now;
  }

  return {
    begin(storeId, email, client) {
      const now = clock();
      const emailKey = `email\0${storeId}\0${email.toLowerCase()}`;
      const clientKey = `client\0${storeId}\0${client}`;
      const waitMs = Math.max(
        wait(emailKey, limits.perEmail, now),
        wait(clientKey, limits.perClient, now),
      );
      if (waitMs > 0) {
        const seconds = Math.max(1, Math.ceil(waitMs / 1000));
        throw new ApiError(
          429,
          `Too many failed sign-ins for this email or from this client; try again in ${seconds} s.`,
          { headers: { 'retry-after': String(seconds) } },
        );
      }
      const counted = [
        ...(limits.perEmail > 0 ? [{ key: emailKey, limit: limits.perEmail }] : []),
        ...(limits.perClient > 0 ? [{ key: clientKey, limit: limits.perClient }] : []),
      ];
      for (const { key } of counted) make(key, now).pending += 1;
      let done = false;
      const finish = (outcome: 'failed' | 'succeeded' | 'abandoned') => {
        if (done) return;
        done = true;
        const at = clock();
        for (const { key, limit } of counted) {
          const counter = counters.get(key);
          if (counter === undefined) continue;
          counter.pending -= 1;
          if (outcome === 'failed') {
            counter.failures.push(at);
            if (counter.failures.length > limit) counter.failures.shift();
            counters.delete(key);
            counters.set(key, counter);
          } else if (outcome === 'succeeded' && key === emailKey) {
            counter.failures.length = 0;
          }
          live(key, at);
        }
      };
      return {
        failed: () => finish('failed'),
        succeeded: () => finish('succeeded'),
        abandoned: () => finish('abandoned'),
      };
    },
  };
}
