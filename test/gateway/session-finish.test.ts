/**
 * A finished operation leaves nothing behind: its deadline timer (which holds the operation's
 * abort controller) is cleared when execution ends, on the fast path and on Yoga's, instead of
 * living out its 15 s. At hundreds of requests a second those timers were most of what the
 * garbage collector had to copy.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';

/** A deadline no other timer in the process uses, to tell the operation's timer apart. */
const DEADLINE_MS = 12_345;

describe('the operation deadline timer', () => {
  for (const fastPath of [true, false]) {
    describe(fastPath ? 'on the fast path' : "on Yoga's handler", () => {
      let stack: Stack;
      beforeAll(async () => {
        stack = await startStack({
          seed: true,
          seedOptions: { orders: 3 },
          fastPath,
          gateway: { operationDeadlineMs: DEADLINE_MS },
        });
      });
      afterAll(() => stack?.close());
      afterEach(() => vi.restoreAllMocks());

      it('is cleared when the operation ends', async () => {
        await stack.token();
        const created = new Set<unknown>();
        const cleared = new Set<unknown>();
        const realSetTimeout = globalThis.setTimeout;
        vi.spyOn(globalThis, 'setTimeout').mockImplementation(((
          fn: () => void,
          ms?: number,
          ...rest: unknown[]
        ) => {
          const timer = realSetTimeout(fn, ms, ...rest);
          // The timer starts at the first upstream call, a few ms after the operation began.
          if (typeof ms === 'number' && ms > DEADLINE_MS - 1000 && ms <= DEADLINE_MS) {
            created.add(timer);
          }
          return timer;
        }) as typeof setTimeout);
        const realClearTimeout = globalThis.clearTimeout;
        vi.spyOn(globalThis, 'clearTimeout').mockImplementation(((timer) => {
          cleared.add(timer);
          realClearTimeout(timer);
        }) as typeof clearTimeout);

        for (let i = 0; i < 3; i += 1) {
          const { body } = await stack.graphql('{ orders(first: 2) { nodes { upstreamId } } }');
          expect(body.errors).toBeUndefined();
        }
        expect(created.size).toBe(3);
        for (const timer of created) expect(cleared.has(timer)).toBe(true);
      });
    });
  }
});
