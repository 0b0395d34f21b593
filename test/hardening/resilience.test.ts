import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { createCircuitBreaker, DEFAULT_BREAKER_OPTIONS } from '../../src/upstream/breaker.ts';
import { type CallLane, createCallLane, createCallSlots } from '../../src/upstream/call-slots.ts';
import {
  NotFoundError,
  RateLimitedError,
  UnauthenticatedError,
  UpstreamUnavailableError,
} from '../../src/upstream/errors.ts';
import { createResilience, createResilientSend } from '../../src/upstream/resilience.ts';
import { createUpstreamTransport, type UpstreamTransport } from '../../src/upstream/transport.ts';
import {
  closedPortUrl,
  createFaultUpstream,
  type FaultUpstream,
} from '../support/fault-upstream.ts';

const unavailable = (status: number) =>
  new UpstreamUnavailableError(`status ${status}`, { reason: 'status', upstreamStatus: status });

/** An attempt function that throws the scripted errors in order, then answers 'ok'. */
function scripted(errors: Error[]) {
  const calls: number[] = [];
  const attempt = async (_signal: AbortSignal, index: number) => {
    calls.push(index);
    const error = errors[index];
    if (error) throw error;
    return 'ok';
  };
  return { attempt, calls };
}

const fast = { backoffBaseMs: 1, backoffMaxMs: 5 };

describe('retries', () => {
  it('retries a GET on 502/503/504 and connection errors, then succeeds', async () => {
    const resilience = createResilience(fast);
    const { attempt, calls } = scripted([
      unavailable(503),
      new UpstreamUnavailableError('reset', { reason: 'reset' }),
    ]);
    await expect(resilience.execute({ method: 'GET', origin: 'a' }, attempt)).resolves.toBe('ok');
    expect(calls).toEqual([0, 1, 2]);
  });

  it('never retries POST, PUT or DELETE', async () => {
    const resilience = createResilience(fast);
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const { attempt, calls } = scripted([unavailable(503)]);
      await expect(resilience.execute({ method, origin: 'a' }, attempt)).rejects.toMatchObject({
        code: 'UPSTREAM_UNAVAILABLE',
      });
      expect(calls).toEqual([0]);
    }
  });

  it('does not retry 500, 4xx or bad bodies', async () => {
    const resilience = createResilience(fast);
    for (const error of [
      unavailable(500),
      new NotFoundError('nope', { upstreamStatus: 404 }),
      new UnauthenticatedError('no', { upstreamStatus: 401 }),
      new UpstreamUnavailableError('garbage', { reason: 'invalid-body' }),
    ]) {
      const { attempt, calls } = scripted([error]);
      await expect(resilience.execute({ method: 'GET', origin: 'a' }, attempt)).rejects.toBe(error);
      expect(calls).toEqual([0]);
    }
  });

  it('gives up after maxAttempts with the last error', async () => {
    const resilience = createResilience({ ...fast, maxAttempts: 3 });
    const last = unavailable(504);
    const { attempt, calls } = scripted([unavailable(503), unavailable(502), last]);
    await expect(resilience.execute({ method: 'GET', origin: 'a' }, attempt)).rejects.toBe(last);
    expect(calls).toEqual([0, 1, 2]);
  });

  it('honours Retry-After on 429 and refuses waits longer than the cap', async () => {
    const resilience = createResilience({ ...fast, retryAfterMaxMs: 500 });
    const { attempt, calls } = scripted([new RateLimitedError('slow', { retryAfterMs: 120 })]);
    const started = Date.now();
    await expect(resilience.execute({ method: 'GET', origin: 'a' }, attempt)).resolves.toBe('ok');
    expect(Date.now() - started).toBeGreaterThanOrEqual(115);
    expect(calls).toEqual([0, 1]);

    const tooLong = new RateLimitedError('slow', { retryAfterMs: 60_000 });
    const second = scripted([tooLong]);
    const t0 = Date.now();
    await expect(resilience.execute({ method: 'GET', origin: 'a' }, second.attempt)).rejects.toBe(
      tooLong,
    );
    expect(second.calls).toEqual([0]);
    expect(Date.now() - t0).toBeLessThan(100);
  });

  it('never sleeps past the deadline', async () => {
    const resilience = createResilience({ ...fast, retryAfterMaxMs: 5_000 });
    const error = new RateLimitedError('slow', { retryAfterMs: 1_000 });
    const { attempt, calls } = scripted([error]);
    const started = Date.now();
    await expect(
      resilience.execute({ method: 'GET', origin: 'a', deadlineAt: Date.now() + 300 }, attempt),
    ).rejects.toBe(error);
    expect(calls).toEqual([0]);
    expect(Date.now() - started).toBeLessThan(100);
  });

  it('times out one attempt and classifies it as a timeout', async () => {
    const resilience = createResilience({ ...fast, attemptTimeoutMs: 50, maxAttempts: 2 });
    let attempts = 0;
    const hang = (signal: AbortSignal) =>
      new Promise<string>((_resolve, reject) => {
        attempts++;
        signal.addEventListener('abort', () => reject(new Error('aborted by signal')));
      });
    const started = Date.now();
    await expect(resilience.execute({ method: 'GET', origin: 'a' }, hang)).rejects.toMatchObject({
      reason: 'timeout',
    });
    expect(attempts).toBe(2);
    expect(Date.now() - started).toBeLessThan(400);
  });

  it('stops at once when the client aborts, reporting a client cancellation', async () => {
    const resilience = createResilience(fast);
    const controller = new AbortController();
    let aborted = false;
    const hang = (signal: AbortSignal) =>
      new Promise<string>((_resolve, reject) => {
        signal.addEventListener('abort', () => {
          aborted = true;
          reject(new Error('aborted'));
        });
      });
    setTimeout(() => controller.abort(), 20);
    await expect(
      resilience.execute({ method: 'GET', origin: 'a', signal: controller.signal }, hang),
    ).rejects.toMatchObject({ code: 'CLIENT_CLOSED_REQUEST' });
    expect(aborted).toBe(true);
  });

  it('reports a deadline (TimeoutError reason) as "deadline"', async () => {
    const resilience = createResilience(fast);
    const hang = (signal: AbortSignal) =>
      new Promise<string>((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(new Error('aborted')));
      });
    await expect(
      resilience.execute({ method: 'GET', origin: 'a', signal: AbortSignal.timeout(30) }, hang),
    ).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', reason: 'deadline' });
  });
});

describe('circuit breaker', () => {
  /** Settles `count` logical calls through `breaker`, failing those `fails(i)` picks. */
  const settle = (
    breaker: ReturnType<typeof createCircuitBreaker>,
    count: number,
    fails: (i: number) => boolean,
  ) => {
    for (let i = 0; i < count; i++) {
      breaker.settle(breaker.acquire(), fails(i) ? 'failure' : 'success');
    }
  };

  it('opens on a failure rate over the window, fails fast, probes after the cool-down, recovers', () => {
    let now = 0;
    const breaker = createCircuitBreaker(
      { ...DEFAULT_BREAKER_OPTIONS, minimumCalls: 4, failureRatio: 0.5, cooldownMs: 1_000 },
      () => now,
    );
    settle(breaker, 3, () => true);
    // Three failures are not yet the minimum of four calls.
    expect(breaker.state).toBe('closed');
    settle(breaker, 1, () => true);
    expect(breaker.state).toBe('open');
    expect(() => breaker.acquire()).toThrow(/unavailable/);
    now += 1_000;
    expect(breaker.state).toBe('half-open');
    const probe = breaker.acquire();
    expect(probe.probe).toBe(true);
    // Only one probe at a time.
    expect(() => breaker.acquire()).toThrow(UpstreamUnavailableError);
    breaker.settle(probe, 'failure');
    expect(breaker.state).toBe('open');
    now += 1_000;
    breaker.settle(breaker.acquire(), 'success');
    expect(breaker.state).toBe('closed');
    expect(() => breaker.acquire()).not.toThrow();
  });

  it('stays closed under a steady 20% of failures, in runs of any length', () => {
    let now = 0;
    const breaker = createCircuitBreaker(DEFAULT_BREAKER_OPTIONS, () => now);
    // Bursts of 15 failures in a row, each followed by 60 successes: 20% over the window.
    for (let round = 0; round < 40; round++) {
      settle(breaker, 75, (i) => i < 15);
      now += 100;
    }
    expect(breaker.state).toBe('closed');
  });

  it('opens on the failure ratio within the window, and forgets old failures', () => {
    let now = 0;
    const breaker = createCircuitBreaker(
      { ...DEFAULT_BREAKER_OPTIONS, minimumCalls: 10, failureRatio: 0.5, windowMs: 1_000 },
      () => now,
    );
    settle(breaker, 20, (i) => i % 3 === 0);
    expect(breaker.state).toBe('closed');
    // Failures from more than a window ago no longer count: 10 failures of 19 calls would open it.
    now += 5_000;
    settle(breaker, 9, () => true);
    now += 5_000;
    settle(breaker, 10, (i) => i === 9);
    expect(breaker.state).toBe('closed');
    // 8 failures of 17 calls: under half; the next failure makes it half.
    settle(breaker, 7, () => true);
    expect(breaker.state).toBe('closed');
    settle(breaker, 1, () => true);
    expect(breaker.state).toBe('open');
  });

  it('ignores outcomes of calls let through before it last changed state', () => {
    let now = 0;
    const breaker = createCircuitBreaker(
      { ...DEFAULT_BREAKER_OPTIONS, minimumCalls: 2, cooldownMs: 1_000 },
      () => now,
    );
    const early = breaker.acquire();
    settle(breaker, 2, () => true);
    expect(breaker.state).toBe('open');
    now += 1_000;
    const probe = breaker.acquire();
    // A success of a call sent while closed does not close the half-open breaker…
    breaker.settle(early, 'success');
    expect(() => breaker.acquire()).toThrow(UpstreamUnavailableError);
    // …the probe's does.
    breaker.settle(probe, 'success');
    expect(breaker.state).toBe('closed');
  });

  it('counts a retried call once, by how it ended', async () => {
    const resilience = createResilience({ ...fast, breaker: { minimumCalls: 10 } });
    // Every call fails its first two attempts and passes its third: 67% of attempts fail.
    for (let i = 0; i < 30; i++) {
      const { attempt } = scripted([unavailable(503), unavailable(503)]);
      await expect(resilience.execute({ method: 'GET', origin: 'r' }, attempt)).resolves.toBe('ok');
    }
    expect(resilience.breaker('r').state).toBe('closed');
    // Calls that fail all their attempts open it, once they are half of those in the window.
    for (let i = 0; i < 30; i++) {
      const { attempt } = scripted([unavailable(503), unavailable(503), unavailable(503)]);
      await expect(resilience.execute({ method: 'GET', origin: 'r' }, attempt)).rejects.toThrow();
    }
    expect(resilience.breaker('r').state).toBe('open');
  });

  it('does not count 4xx (per-user) answers as upstream failures', async () => {
    const resilience = createResilience({ ...fast, breaker: { minimumCalls: 2 } });
    for (let i = 0; i < 10; i++) {
      const { attempt } = scripted([new NotFoundError('x', { upstreamStatus: 404 })]);
      await expect(resilience.execute({ method: 'GET', origin: 'b' }, attempt)).rejects.toThrow();
    }
    expect(resilience.breaker('b').state).toBe('closed');
  });

  it('does not count a call that waited for a slot past the deadline, nor a cancelled one', async () => {
    const resilience = createResilience({ ...fast, breaker: { minimumCalls: 2 } });
    // Waits for a connection slot (as sendUpstreamAttempt reports it) until the deadline.
    const queued = (signal: AbortSignal, _index: number, slotWait: (waiting: boolean) => void) =>
      new Promise<string>((_resolve, reject) => {
        slotWait(true);
        signal.addEventListener('abort', () => reject(signal.reason));
      });
    for (let i = 0; i < 5; i++) {
      await expect(
        resilience.execute({ method: 'GET', origin: 'q', signal: AbortSignal.timeout(20) }, queued),
      ).rejects.toMatchObject({ reason: 'deadline' });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 10);
      await expect(
        resilience.execute({ method: 'GET', origin: 'q', signal: controller.signal }, queued),
      ).rejects.toMatchObject({ code: 'CLIENT_CLOSED_REQUEST' });
    }
    expect(resilience.breaker('q').state).toBe('closed');
  });

  it('times an attempt from when it got its slot, not from when it began to wait', async () => {
    const resilience = createResilience({ ...fast, attemptTimeoutMs: 60, maxAttempts: 1 });
    // Waits 150 ms for a slot, then the upstream answers in 30 ms.
    const slow = async (signal: AbortSignal, _index: number, slotWait: (w: boolean) => void) => {
      slotWait(true);
      await new Promise((resolve) => setTimeout(resolve, 150));
      slotWait(false);
      await new Promise((resolve, reject) => {
        setTimeout(resolve, 30);
        signal.addEventListener('abort', () => reject(signal.reason));
      });
      return 'ok';
    };
    await expect(resilience.execute({ method: 'GET', origin: 's' }, slow)).resolves.toBe('ok');
  });

  it('keeps one breaker per origin', async () => {
    const resilience = createResilience({
      ...fast,
      maxAttempts: 1,
      breaker: { minimumCalls: 2 },
    });
    for (let i = 0; i < 2; i++) {
      await expect(
        resilience.execute({ method: 'GET', origin: 'down' }, scripted([unavailable(503)]).attempt),
      ).rejects.toThrow();
    }
    await expect(
      resilience.execute({ method: 'GET', origin: 'down' }, scripted([]).attempt),
    ).rejects.toMatchObject({ reason: 'circuit-open' });
    await expect(
      resilience.execute({ method: 'GET', origin: 'up' }, scripted([]).attempt),
    ).resolves.toBe('ok');
  });
});

describe('over real sockets with the REST client', () => {
  let upstream: FaultUpstream;
  let transport: UpstreamTransport;
  const list = { data: [], meta: { results: { total: 0 } } };

  beforeAll(async () => {
    upstream = await createFaultUpstream({});
    transport = createUpstreamTransport(upstream.url, { headersTimeoutMs: 2_000 });
  });
  afterAll(async () => {
    await transport.close();
    await upstream.close();
  });

  const context = (signal?: AbortSignal) => ({
    authorization: 'Bearer test-token-123',
    requestId: 'r1',
    signal,
  });

  it('retries a GET through 503 and reset, sending exactly three requests', async () => {
    upstream.clear();
    upstream.add({
      path: /^\/v2\/orders$/,
      sequence: [{ kind: 'status', status: 503 }, { kind: 'reset' }],
      otherwise: { kind: 'json', body: list },
    });
    const send = createResilientSend(createResilience(fast));
    const before = upstream.requests.length;
    const response = await send(transport, { method: 'GET', segments: ['orders'] }, context());
    expect(response.body).toEqual(list);
    expect(upstream.requests.length - before).toBe(3);
  });

  it('sends a POST exactly once even when it fails', async () => {
    upstream.clear();
    upstream.add({ path: /^\/v2\/carts$/, otherwise: { kind: 'status', status: 503 } });
    const send = createResilientSend(createResilience(fast));
    await expect(
      send(transport, { method: 'POST', segments: ['carts'], body: { data: {} } }, context()),
    ).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', upstreamStatus: 503 });
    expect(upstream.count('POST', /^\/v2\/carts$/)).toBe(1);
  });

  it('cuts a hanging upstream at the attempt timeout', async () => {
    upstream.clear();
    upstream.add({ path: /^\/v2\/files$/, otherwise: { kind: 'hang' } });
    const send = createResilientSend(createResilience({ ...fast, attemptTimeoutMs: 150 }));
    const started = Date.now();
    await expect(
      send(transport, { method: 'GET', segments: ['files'] }, context()),
    ).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', reason: 'timeout' });
    // 3 attempts of 150 ms plus small backoffs.
    expect(Date.now() - started).toBeLessThan(900);
    expect(upstream.count('GET', /^\/v2\/files$/)).toBe(3);
  });

  it('maps a refused connection to a connect error and retries it', async () => {
    const closed = createUpstreamTransport(await closedPortUrl());
    const send = createResilientSend(createResilience(fast));
    await expect(
      send(closed, { method: 'GET', segments: ['orders'] }, context()),
    ).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', reason: 'connect' });
    await closed.close();
  });
});

describe('breaker and pool configuration from the environment', () => {
  it('reads the failure-rate breaker and the per-operation share, with their defaults', () => {
    expect(loadConfig({}).upstream).toMatchObject({
      resilience: {
        breaker: { failureRatio: 0.5, minimumCalls: 20, windowMs: 10_000, cooldownMs: 5_000 },
      },
      pool: { perOperation: 16 },
    });
    expect(
      loadConfig({
        BREAKER_FAILURE_RATE: '30',
        BREAKER_MIN_CALLS: '50',
        BREAKER_WINDOW_MS: '30000',
        UPSTREAM_OPERATION_CONCURRENCY: '8',
      }).upstream,
    ).toMatchObject({
      resilience: { breaker: { failureRatio: 0.3, minimumCalls: 50, windowMs: 30_000 } },
      pool: { perOperation: 8 },
    });
  });

  it('refuses BREAKER_FAILURES, whose consecutive-failures breaker is gone, saying what replaces it', () => {
    expect(() => loadConfig({ BREAKER_FAILURES: '10' })).toThrow(ConfigError);
    expect(() => loadConfig({ BREAKER_FAILURES: '1000' })).toThrow(
      /BREAKER_FAILURES is no longer read.*BREAKER_FAILURE_RATE.*BREAKER_MIN_CALLS.*BREAKER_WINDOW_MS/,
    );
  });

  it('refuses a failure rate outside 1–100 and a share larger than the pool', () => {
    expect(() => loadConfig({ BREAKER_FAILURE_RATE: '0' })).toThrow(/BREAKER_FAILURE_RATE/);
    expect(() => loadConfig({ BREAKER_FAILURE_RATE: '101' })).toThrow(/from 1 to 100/);
    expect(() => loadConfig({ BREAKER_FAILURE_RATE: '0.5' })).toThrow(/BREAKER_FAILURE_RATE/);
    expect(() => loadConfig({ UPSTREAM_OPERATION_CONCURRENCY: '65' })).toThrow(/from 1 to 64/);
  });
});

describe('connection slots shared between operations', () => {
  it('caps each operation, and gives a freed slot to the next operation in turn', async () => {
    const slots = createCallSlots(4, 2);
    const heavy = [createCallLane(), createCallLane()];
    const granted: string[] = [];
    const take = (lane: CallLane, name: string) => {
      const waiting = slots.acquire(lane);
      if (waiting === undefined) granted.push(name);
      else void waiting.then(() => granted.push(name));
    };
    // Two heavy operations ask for 10 calls each: 2 each get a slot, the rest wait.
    for (let i = 0; i < 10; i++) {
      take(heavy[0] as CallLane, `a${i}`);
      take(heavy[1] as CallLane, `b${i}`);
    }
    expect(granted).toEqual(['a0', 'b0', 'a1', 'b1']);
    expect(slots.queued).toBe(16);
    // A light operation with one call: the pool is full, so it waits…
    const light = createCallLane();
    take(light, 'light');
    // …for one slot only: the next one freed goes to it, though 16 calls were there first.
    slots.release(heavy[0] as CallLane);
    await Promise.resolve();
    expect(granted.at(-1)).toBe('light');
    // A waiting call whose operation is over leaves the queue without a slot.
    const controller = new AbortController();
    const gone = slots.acquire(createCallLane(), controller.signal);
    controller.abort(new Error('finished'));
    await expect(gone).rejects.toThrow('finished');
    expect(slots.queued).toBe(16);
    expect(slots.inFlight).toBe(4);
  });
});
