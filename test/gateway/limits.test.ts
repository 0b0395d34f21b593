/**
 * The limits in one process, without Redis: the per-caller token bucket answers RATE_LIMITED
 * with HTTP 429 and Retry-After before any upstream call, the same on the fast path and Yoga's,
 * per token (or per address without one); the per-store shaper keeps the upstream calls under
 * its rate by making them wait, and refuses a call whose turn would come after the deadline.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { createGateway } from '../../src/gateway/create-gateway.ts';
import { createRequestListener } from '../../src/gateway/fast-path.ts';
import { createLogger } from '../../src/gateway/logging.ts';
import { createLocalBuckets } from '../../src/limits/buckets.ts';
import { createShaper } from '../../src/upstream/shaper.ts';
import { type Stack, startStack } from '../support/harness.ts';

const QUERY = '{ customers(first: 1) { totalCount } }';

async function post(url: string, authorization: string | undefined, query = QUERY) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: JSON.stringify({ query }),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    contentType: response.headers.get('content-type'),
    body: (await response.json()) as { data?: unknown; errors?: { extensions?: unknown }[] },
  };
}

describe('token buckets in one process', () => {
  it('give the burst at once, then one token per 1/rate second, and say how long to wait', () => {
    let now = 1_000_000;
    const buckets = createLocalBuckets({ rate: 10, burst: 3, now: () => now });
    expect([buckets.take('a'), buckets.take('a'), buckets.take('a')]).toEqual([0, 0, 0]);
    expect(buckets.take('a')).toBe(100);
    expect(buckets.take('b')).toBe(0);
    now += 50;
    expect(buckets.take('a')).toBe(50);
    now += 50;
    expect(buckets.take('a')).toBe(0);
    now += 10_000;
    // Refilled to the burst, never past it.
    expect([buckets.take('a'), buckets.take('a'), buckets.take('a'), buckets.take('a')]).toEqual([
      0, 0, 0, 100,
    ]);
  });

  it('keep at most maxKeys buckets, dropping the full ones first', () => {
    let now = 0;
    const buckets = createLocalBuckets({ rate: 1, burst: 1, maxKeys: 2, now: () => now });
    buckets.take('a');
    buckets.take('b');
    now += 5_000;
    buckets.take('c');
    // `a` and `b` were full again: dropped, and `c`'s own empty bucket kept.
    expect(buckets.take('c')).toBeGreaterThan(0);
  });
});

for (const fastPath of [true, false]) {
  describe(`the per-caller limit (${fastPath ? 'fast path' : "Yoga's path"})`, () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({
        fastPath,
        gateway: { callerRateLimit: 2, callerRateBurst: 4 },
      });
    });
    afterAll(() => stack?.close());

    it('answers RATE_LIMITED with HTTP 429 and Retry-After past the burst, before any upstream call', async () => {
      const token = await stack.token();
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await post(stack.gatewayUrl, `Bearer ${token}`)).status);
      expect(statuses).toEqual([200, 200, 200, 200]);
      const calls = stack.upstreamRequests.length;
      const refused = await post(stack.gatewayUrl, `Bearer ${token}`);
      expect(refused.status).toBe(429);
      expect(refused.retryAfter).toBe('1');
      expect(refused.contentType).toMatch(/^application\/(graphql-response\+)?json/);
      expect(refused.body.data).toBeUndefined();
      expect(refused.body.errors).toEqual([
        {
          message:
            'Too many requests from this caller: the limit is 2 a second. Retry after the time ' +
            'Retry-After gives',
          extensions: { code: 'RATE_LIMITED', retryAfter: 1 },
        },
      ]);
      expect(stack.upstreamRequests.length).toBe(calls);
      // Another token is another caller.
      const other = await stack.implicitToken();
      expect((await post(stack.gatewayUrl, `Bearer ${other}`)).status).toBe(200);
      // Half a second later the bucket holds a token again.
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect((await post(stack.gatewayUrl, `Bearer ${token}`)).status).toBe(200);
    });

    it('counts a caller without a token by its address', async () => {
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await post(stack.gatewayUrl, undefined));
      expect(answers.slice(0, 4).map((a) => a.body.errors?.[0]?.extensions)).toEqual(
        Array(4).fill({ code: 'UNAUTHENTICATED' }),
      );
      expect(answers[4]?.status).toBe(429);
    });
  });
}

describe('the refusal on both paths', () => {
  it('is the same bytes and headers on the fast path as on Yoga’s', async () => {
    const stack = await startStack();
    try {
      const token = await stack.token();
      const answers: { status: number; headers: [string, string][]; body: string }[] = [];
      const lines: string[] = [];
      for (const fastPath of [true, false]) {
        const gateway = createGateway({
          graphiql: false,
          upstreamUrl: stack.serviceUrl,
          callerRateLimit: 1,
          logger: createLogger({ write: (line) => lines.push(line) }),
        });
        const server = createServer(createRequestListener(gateway, { fastPath }));
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
        try {
          await post(url, `Bearer ${token}`);
          const response = await fetch(url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              authorization: `Bearer ${token}`,
              'x-request-id': 'same',
            },
            body: JSON.stringify({ query: QUERY }),
          });
          answers.push({
            status: response.status,
            headers: [...response.headers].filter(([name]) => name !== 'date'),
            body: await response.text(),
          });
          const metrics = await (await fetch(url.replace('/graphql', '/metrics'))).text();
          expect(metrics).toMatch(
            /^gateway_graphql_requests_total\{[^}]*outcome="RATE_LIMITED"\} 1$/m,
          );
        } finally {
          server.closeAllConnections();
          await new Promise((resolve) => server.close(resolve));
          await gateway.dispose();
        }
      }
      expect(answers[0]?.status).toBe(429);
      expect(answers[0]).toEqual(answers[1]);
      // The request log says who was refused and why, on both paths.
      const refusals = lines
        .map((line) => JSON.parse(line) as { msg: string; status?: number; errors?: string[] })
        .filter((line) => line.msg === 'request' && line.status === 429);
      expect(refusals.map((line) => line.errors)).toEqual([['RATE_LIMITED'], ['RATE_LIMITED']]);
    } finally {
      await stack.close();
    }
  });
});

describe('the per-store shaper', () => {
  it('lets calls through at its rate, first come first served, and none faster', async () => {
    const shaper = createShaper(createLocalBuckets({ rate: 50, burst: 5 }), 'store');
    const started = Date.now();
    const times: number[] = [];
    await Promise.all(
      Array.from({ length: 30 }, async () => {
        const wait = shaper.acquire();
        if (wait !== undefined) await wait;
        times.push(Date.now() - started);
      }),
    );
    // 5 at once, then 25 at 50 a second: half a second at least.
    expect(times.at(-1)).toBeGreaterThanOrEqual(450);
    for (let i = 5; i < times.length; i++) {
      expect(times[i], `call ${i}`).toBeGreaterThanOrEqual(((i - 5) * 1_000) / 50 - 30);
    }
  });

  it('refuses at once, RATE_LIMITED, a call whose turn would come after its deadline', async () => {
    const shaper = createShaper(createLocalBuckets({ rate: 1, burst: 1 }), 'store');
    expect(shaper.acquire()).toBeUndefined();
    await expect(shaper.acquire(undefined, Date.now() + 200)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
    });
    // A waiting call leaves the queue when its operation is aborted.
    const controller = new AbortController();
    const waiting = shaper.acquire(controller.signal, Date.now() + 10_000);
    controller.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    expect(shaper.queued).toBe(0);
  });

  it('paces a gateway’s upstream calls under UPSTREAM_RATE_LIMIT instead of failing them', async () => {
    const stack = await startStack({ gateway: { upstreamRateLimit: 40 } });
    try {
      const token = await stack.token();
      const from = stack.upstreamRequests.length;
      const started = Date.now();
      const answers = await Promise.all(
        Array.from({ length: 40 }, () => post(stack.gatewayUrl, `Bearer ${token}`)),
      );
      const elapsed = Date.now() - started;
      expect(answers.every((a) => a.status === 200 && a.body.errors === undefined)).toBe(true);
      expect(stack.upstreamRequests.length - from).toBe(40);
      // 4 at once (a tenth of a second's worth), then 36 at 40 a second.
      expect(elapsed).toBeGreaterThanOrEqual(800);
    } finally {
      await stack.close();
    }
  });
});

describe('the settings', () => {
  it('read REDIS_URL, the limits and their defaults, and refuse what they cannot use', () => {
    const defaults = loadConfig({});
    expect(defaults.redis).toEqual({ url: undefined, timeoutMs: 500 });
    expect(defaults.limits).toEqual({ callerRate: 0, callerBurst: 0, upstreamRate: 100 });
    const set = loadConfig({
      REDIS_URL: 'redis://:secret@cache.internal:6380/2',
      CALLER_RATE_LIMIT: '50',
      CALLER_RATE_BURST: '100',
      UPSTREAM_RATE_LIMIT: '25',
    });
    expect(set.redis.url).toBe('redis://:secret@cache.internal:6380/2');
    expect(set.limits).toEqual({ callerRate: 50, callerBurst: 100, upstreamRate: 25 });
    const refused = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(refused({ REDIS_URL: 'http://cache:6379' })).toBe(
      'REDIS_URL must use redis: or rediss:, got "http:"',
    );
    expect(refused({ REDIS_URL: 'redis://:pw@cache:6379/x' })).toMatch(/database number/);
    expect(refused({ REDIS_URL: 'redis://:pw@cache:6379/x' })).not.toContain('pw');
    expect(refused({ CALLER_RATE_BURST: '10' })).toMatch(
      /CALLER_RATE_BURST needs CALLER_RATE_LIMIT/,
    );
    expect(refused({ CALLER_RATE_LIMIT: '-1' })).toMatch(/^CALLER_RATE_LIMIT must be 0 \(off\)/);
    expect(refused({ UPSTREAM_RATE_LIMIT: '1.5' })).toMatch(/^UPSTREAM_RATE_LIMIT must be/);
    expect(refused({ REDIS_TIMEOUT_MS: '0' })).toMatch(/^REDIS_TIMEOUT_MS must be/);
  });
});
