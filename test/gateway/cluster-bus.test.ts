/**
 * The workers' event bus without Redis (src/gateway/events/cluster-bus.ts), over real node:cluster
 * processes and their IPC channels (test/support/cluster-bus-fixture.ts): an event published in
 * worker 1 reaches a subscriber in worker 2, replay after an id works through the relay, and the
 * primary drops the subscriptions of a subscriber that left or a worker that died.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('the cluster bus', () => {
  it('relays an event published in one worker to a subscriber in another, through the primary’s one bus', () => {
    const run = spawnSync(
      process.execPath,
      ['scripts/ts.mjs', 'test/support/cluster-bus-fixture.ts'],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const seen = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}');
    const [pidOne, pidTwo] = seen.pids;
    // Two processes, neither of them the primary: the event crossed processes.
    expect(pidOne).not.toBe(pidTwo);
    expect(seen.published.pid).toBe(pidOne);
    const published = seen.published.published;
    expect(published).toMatchObject({ type: 'cart.updated', subject: { cartId: 'cart-1' } });
    expect(published.id).toMatch(/^\d+-\d+$/);
    expect(seen.received.got).toEqual(published);
    expect(seen.subscriptionsWhileSubscribed).toBe(1);
    // The subscriber left: its iteration ended, and the primary no longer serves it.
    expect(seen.ended).toEqual({ ended: true });
    expect(seen.subscriptionsAfterAbort).toBe(0);
    // Reconnecting after the first event replays the two published since, in order.
    expect(
      seen.replayed.map((m: { got: { subject: { cartId: string } } }) => m.got.subject.cartId),
    ).toEqual(['cart-2', 'cart-3']);
    expect(seen.firstBeforeWindow).toBe(true);
    expect(seen.subscriptionsBeforeKill).toBe(1);
    expect(seen.subscriptionsAfterKill).toBe(0);
  }, 40_000);
});
