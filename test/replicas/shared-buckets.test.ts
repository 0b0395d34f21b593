/**
 * The token buckets shared through Redis (src/limits/buckets.ts) against a real redis-server:
 * three sets of buckets on three connections are three replicas; what they admit together
 * stays within 10% of what one bucket would (burst + rate × time), and when Redis stops
 * answering each falls back to a bucket of its own instead of failing or hanging.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Buckets, createSharedBuckets } from '../../src/limits/buckets.ts';
import { connectRedis, type RedisConnection } from '../../src/redis/connection.ts';
import { createShaper } from '../../src/upstream/shaper.ts';
import { describeWithRedis, type RedisServer, startRedis } from '../support/redis.ts';

describeWithRedis('token buckets shared by three replicas through Redis', () => {
  let server: RedisServer;
  const connections: RedisConnection[] = [];

  beforeAll(async () => {
    server = await startRedis();
    for (let i = 0; i < 3; i++) connections.push(await connectRedis(server.url));
  });
  afterAll(async () => {
    for (const connection of connections) await connection.close();
    await server?.stop();
  });

  const replicas = (prefix: string, rate: number, burst: number): Buckets[] =>
    connections.map((connection) =>
      createSharedBuckets({ rate, burst, redis: connection.client, prefix }),
    );

  it('admit together what one bucket would, within 10%', async () => {
    const rate = 100;
    const burst = 100;
    const buckets = replicas('test:shared:a:', rate, burst);
    let admitted = 0;
    const started = Date.now();
    const until = started + 2_000;
    // Each replica takes for the same caller as fast as it can, 20 requests at a time.
    await Promise.all(
      buckets.flatMap((bucket) =>
        Array.from({ length: 20 }, async () => {
          while (Date.now() < until) {
            const wait = await bucket.take('caller');
            if (wait === 0) admitted += 1;
            else await new Promise((resolve) => setTimeout(resolve, Math.min(wait, 20)));
          }
        }),
      ),
    );
    const expected = burst + (rate * (Date.now() - started)) / 1_000;
    expect(admitted).toBeGreaterThanOrEqual(expected * 0.9);
    expect(admitted).toBeLessThanOrEqual(expected * 1.1);
  });

  it('cost a caller under the limit one Redis round trip per lease, not per request', async () => {
    const [one] = replicas('test:shared:lease:', 1_000, 1_000);
    const scripts = async () => {
      const stats = (await (connections[0] as RedisConnection).client.info(
        'commandstats',
      )) as string;
      let calls = 0;
      for (const match of stats.matchAll(/^cmdstat_(?:eval|evalsha):calls=(\d+)/gm)) {
        calls += Number(match[1]);
      }
      return calls;
    };
    const before = await scripts();
    for (let i = 0; i < 200; i++) expect(await one?.take('steady')).toBe(0);
    // A lease of 50 (a twentieth of the limit): four round trips for 200 requests.
    expect((await scripts()) - before).toBeLessThanOrEqual(5);
  });

  it('keep callers apart', async () => {
    const [one] = replicas('test:shared:b:', 1, 1);
    expect(await one?.take('x')).toBe(0);
    expect(await one?.take('x')).toBeGreaterThan(0);
    expect(await one?.take('y')).toBe(0);
  });

  it('fall back to this process’s bucket when Redis stops answering, and say so', async () => {
    const own = await startRedis();
    const connection = await connectRedis(own.url, { timeoutMs: 200 });
    const told: string[] = [];
    const buckets = createSharedBuckets({
      rate: 1,
      burst: 2,
      redis: connection.client,
      prefix: 'test:shared:c:',
      onFallback: (degraded, detail) => told.push(`${degraded}: ${detail}`),
    });
    expect(await buckets.take('z')).toBe(0);
    await own.stop(true);
    const started = Date.now();
    // Per process now: the burst of a fresh local bucket, then refusals; never a hang.
    const verdicts = [await buckets.take('z'), await buckets.take('z'), await buckets.take('z')];
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(verdicts.slice(0, 2)).toEqual([0, 0]);
    expect(verdicts[2]).toBeGreaterThan(0);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/^true: Redis does not answer .*limits per replica/);
    await connection.close();
  });

  it('pace one store’s calls from three replicas together at the store’s rate', async () => {
    const rate = 50;
    const burst = 5;
    const shapers = connections.map((connection) =>
      createShaper(
        createSharedBuckets({
          rate,
          burst,
          redis: connection.client,
          prefix: 'test:shared:store:',
          lease: 1,
          leaseMs: 200,
        }),
        'store',
      ),
    );
    const started = Date.now();
    const sent: number[] = [];
    // 40 calls on each replica at once: 120 calls, 5 at once then 50 a second.
    await Promise.all(
      shapers.flatMap((shaper) =>
        Array.from({ length: 40 }, async () => {
          const turn = shaper.acquire();
          if (turn !== undefined) await turn;
          sent.push(Date.now() - started);
        }),
      ),
    );
    expect(sent).toHaveLength(120);
    // No second holds more than the rate (and the burst), whichever replica sent the calls.
    for (let from = 0; from + 1_000 <= (sent.at(-1) ?? 0); from += 100) {
      const inSecond = sent.filter((at) => at >= from && at < from + 1_000).length;
      expect(inSecond, `calls in [${from}, ${from + 1_000}) ms`).toBeLessThanOrEqual(
        (rate + burst) * 1.1,
      );
    }
    // …and the calls were not held back much more than the rate asks: 115 after the burst.
    expect(sent.at(-1)).toBeGreaterThanOrEqual(((120 - burst) * 1_000) / rate - 100);
    expect(sent.at(-1)).toBeLessThanOrEqual((((120 - burst) * 1_000) / rate) * 1.25);
  });
});
