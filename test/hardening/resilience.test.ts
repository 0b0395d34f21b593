import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createUpstreamTransport,
  sendUpstreamAttempt,
  type UpstreamTransport,
} from '../../src/upstream/client.ts';
import {
  NotFoundError,
  RateLimitedError,
  UnauthenticatedError,
  UpstreamUnavailableError,
} from '../../src/upstream/errors.ts';
import {
  createCircuitBreaker,
  createResilience,
  createResilientSend,
  DEFAULT_BREAKER_OPTIONS,
} from '../../src/upstream/resilience.ts';
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
  it('opens after consecutive failures, fails fast, probes after the cool-down, recovers', () => {
    let now = 0;
    const breaker = createCircuitBreaker(
      { ...DEFAULT_BREAKER_OPTIONS, consecutiveFailures: 3, cooldownMs: 1_000 },
      () => now,
    );
    for (let i = 0; i < 3; i++) {
      breaker.acquire();
      breaker.record('failure');
    }
    expect(breaker.state).toBe('open');
    expect(() => breaker.acquire()).toThrow(/unavailable/);
    now += 1_000;
    expect(breaker.state).toBe('half-open');
    const release = breaker.acquire();
    // Only one probe at a time.
    expect(() => breaker.acquire()).toThrow(UpstreamUnavailableError);
    breaker.record('failure');
    release();
    expect(breaker.state).toBe('open');
    now += 1_000;
    breaker.acquire();
    breaker.record('success');
    expect(breaker.state).toBe('closed');
    expect(() => breaker.acquire()).not.toThrow();
  });

  it('opens on the failure ratio within the window, and forgets old failures', () => {
    let now = 0;
    const breaker = createCircuitBreaker(
      {
        ...DEFAULT_BREAKER_OPTIONS,
        consecutiveFailures: 1_000,
        minimumCalls: 10,
        failureRatio: 0.5,
        windowMs: 1_000,
      },
      () => now,
    );
    for (let i = 0; i < 20; i++) breaker.record(i % 3 === 0 ? 'failure' : 'success');
    expect(breaker.state).toBe('closed');
    now += 5_000;
    for (let i = 0; i < 11; i++) breaker.record(i % 2 === 0 ? 'failure' : 'success');
    expect(breaker.state).toBe('open');
  });

  it('does not count 4xx (per-user) answers as upstream failures', async () => {
    const resilience = createResilience({ ...fast, breaker: { consecutiveFailures: 2 } });
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
      breaker: { consecutiveFailures: 2 },
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
      then: { kind: 'json', body: list },
    });
    const send = createResilientSend(createResilience(fast));
    const before = upstream.requests.length;
    const response = await send(transport, { method: 'GET', segments: ['orders'] }, context());
    expect(response.body).toEqual(list);
    expect(upstream.requests.length - before).toBe(3);
  });

  it('sends a POST exactly once even when it fails', async () => {
    upstream.clear();
    upstream.add({ path: /^\/v2\/carts$/, then: { kind: 'status', status: 503 } });
    const send = createResilientSend(createResilience(fast));
    await expect(
      send(transport, { method: 'POST', segments: ['carts'], body: { data: {} } }, context()),
    ).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', upstreamStatus: 503 });
    expect(upstream.count('POST', /^\/v2\/carts$/)).toBe(1);
  });

  it('cuts a hanging upstream at the attempt timeout', async () => {
    upstream.clear();
    upstream.add({ path: /^\/v2\/files$/, then: { kind: 'hang' } });
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
