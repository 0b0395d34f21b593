/**
 * Three gateway processes (`npm start` with UPSTREAM_URL and REDIS_URL, real sockets) on one
 * real redis-server and one embedded service: a product page read through replica A has its
 * breadcrumbs and children's page served to the next caller of the same key on replica B from
 * Redis (no upstream call for them); one caller sending to all three replicas at once is
 * admitted what CALLER_RATE_LIMIT allows, within 10%, and refused RATE_LIMITED with HTTP 429
 * and Retry-After beyond it.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';
import { type MainProcess, spawnMain } from '../support/main-process.ts';
import { describeWithRedis, type RedisServer, startRedis } from '../support/redis.ts';

const PAGE = `query($s: String!) { catalog { product(slug: $s) { upstreamId catalogId releaseId
  breadcrumbs { upstreamId name hierarchyId } children(first: 10) { edges { node { sku } } } } } }`;
const RATE = 20;

async function post(url: string, token: string, query: string, variables = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as any,
  };
}

describeWithRedis('three replicas on one Redis', () => {
  let redis: RedisServer;
  let stack: Stack;
  const replicas: MainProcess[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    stack = await startStack({ seed: true });
    for (let i = 0; i < 3; i++) {
      replicas.push(
        await spawnMain({
          UPSTREAM_URL: stack.serviceUrl,
          REDIS_URL: redis.url,
          CALLER_RATE_LIMIT: String(RATE),
          LOG_REQUESTS: '0',
          METRICS: '0',
        }),
      );
    }
  });

  afterAll(async () => {
    for (const replica of replicas) {
      if (replica.child.exitCode === null) {
        await new Promise((resolve) => {
          replica.child.once('exit', resolve);
          replica.child.kill('SIGTERM');
        });
      }
    }
    await stack?.close();
    await redis?.stop();
  });

  it('say so at startup', async () => {
    for (const replica of replicas) {
      await replica.waitFor(/per-caller limit/);
      expect(replica.output()).toContain(`shared through Redis: ${redis.url}`);
      expect(replica.output()).toContain(
        `per-caller limit:    ${RATE} requests/s, ${RATE} at once`,
      );
      expect(replica.output()).not.toContain('Redis answers again');
    }
  });

  it('a catalog page read through A is served to the same-keyed caller on B from Redis', async () => {
    const [a, b] = replicas as [MainProcess, MainProcess];
    const first = await stack.implicitToken();
    const found = await post(a.url, first, '{ catalog { product(sku: "TEE-001") { slug } } }');
    const slug = found.body.data.catalog.product.slug as string;
    const calls = (from: number) =>
      stack.upstreamRequests
        .slice(from)
        .map((r) => decodeURIComponent(r.url))
        // The catalog's calls: a replica's own background reads (its typed schema's refresh, a
        // token) may land in the same moment on a busy machine.
        .filter((url) => url.startsWith('/catalog'));

    let from = stack.upstreamRequests.length;
    const onA = await post(a.url, first, PAGE, { s: slug });
    expect(onA.body.errors).toBeUndefined();
    expect(onA.body.data.catalog.product.children.edges.length).toBeGreaterThan(0);
    // The product, its breadcrumb nodes (one batch or two, as the loader's ticks fall) and its
    // children's page: all read from the upstream on A.
    const onACalls = calls(from);
    expect(
      onACalls.some((url) => url.startsWith('/catalog/products?')),
      onACalls.join(' '),
    ).toBe(true);
    expect(
      onACalls.some((url) => url.startsWith('/catalog/nodes?')),
      onACalls.join(' '),
    ).toBe(true);
    expect(
      onACalls.some((url) => url.includes('/relationships/children')),
      onACalls.join(' '),
    ).toBe(true);

    // Another guest of the same catalog (another token: the key has none) on replica B.
    const second = await (async () => {
      const response = await fetch(`${stack.serviceUrl}/oauth/access_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=implicit&client_id=demo',
      });
      return ((await response.json()) as { access_token: string }).access_token;
    })();
    from = stack.upstreamRequests.length;
    const onB = await post(b.url, second, PAGE, { s: slug });
    expect(onB.body).toEqual(onA.body);
    // Only the product itself, read with the caller's own token; nodes and children from Redis.
    const made = calls(from);
    expect(made).toHaveLength(1);
    expect(made[0]).toMatch(/^\/catalog\/products\?/);
  });

  it('one caller sending to all three is admitted CALLER_RATE_LIMIT, within 10%', async () => {
    const token = await stack.token();
    const urls = replicas.map((replica) => replica.url);
    let admitted = 0;
    let refused: Awaited<ReturnType<typeof post>> | undefined;
    const other: number[] = [];
    const started = Date.now();
    const until = started + 3_000;
    // Four requests in flight per replica, for three seconds.
    await Promise.all(
      urls.flatMap((url) =>
        Array.from({ length: 4 }, async () => {
          while (Date.now() < until) {
            const answer = await post(url, token, '{ __typename }');
            if (answer.status === 200) admitted += 1;
            else if (answer.status === 429) refused = answer;
            else other.push(answer.status);
          }
        }),
      ),
    );
    const elapsed = Date.now() - started;
    // The bucket starts full (a burst of RATE), then RATE a second.
    const expected = RATE + (RATE * elapsed) / 1_000;
    expect(other).toEqual([]);
    expect(admitted).toBeGreaterThanOrEqual(expected * 0.9);
    expect(admitted).toBeLessThanOrEqual(expected * 1.1);
    expect(refused?.retryAfter).toBe('1');
    expect(refused?.body).toEqual({
      errors: [
        {
          message:
            `Too many requests from this caller: the limit is ${RATE} a second. Retry after ` +
            'the time Retry-After gives',
          extensions: { code: 'RATE_LIMITED', retryAfter: 1 },
        },
      ],
    });
  });

  it('keep answering when Redis goes away: catalog reads unshared, limits per replica', async () => {
    await redis.stop(true);
    const c = replicas[2] as MainProcess;
    const guest = await stack.implicitToken();
    const started = Date.now();
    const found = await post(c.url, guest, '{ catalog { product(sku: "TEE-001") { slug } } }');
    const page = await post(c.url, guest, PAGE, { s: found.body.data.catalog.product.slug });
    expect(page.status).toBe(200);
    expect(page.body.errors).toBeUndefined();
    expect(page.body.data.catalog.product.breadcrumbs.length).toBeGreaterThan(0);
    // Never held up by the Redis that is gone: well within REDIS_TIMEOUT_MS a command.
    expect(Date.now() - started).toBeLessThan(3_000);
    await c.waitFor(/limits per replica until it does/);
  });
});

describe('a Redis that does not answer at startup', () => {
  it('stops npm start with an error naming REDIS_URL (and not its password)', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const address = probe.address();
        probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    const started = Date.now();
    const failure = await spawnMain({
      REDIS_URL: `redis://:hunter2@127.0.0.1:${port}`,
      REDIS_TIMEOUT_MS: '300',
    }).then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(failure).toMatch(/^exited 1: /);
    expect(failure).toContain(`REDIS_URL: Redis at redis://127.0.0.1:${port} does not answer`);
    expect(failure).not.toContain('hunter2');
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
