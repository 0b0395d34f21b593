/**
 * The catalog reads kept in Redis (src/upstream/shared-reads.ts, createRedisReads) against a
 * real redis-server: the upstream's text comes back with its end, under a hashed key that holds
 * no header, token or id in clear, expiring when the entry does; a text over the size bound or
 * an entry already over is not kept; two upstream origins never share an entry; a Redis that is
 * gone is a miss, at once.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectRedis, type RedisConnection } from '../../src/redis/connection.ts';
import { createRedisReads } from '../../src/upstream/shared-reads.ts';
import { describeWithRedis, type RedisServer, startRedis } from '../support/redis.ts';

describeWithRedis('catalog reads kept in Redis', () => {
  let server: RedisServer;
  let connection: RedisConnection;

  beforeAll(async () => {
    server = await startRedis();
    connection = await connectRedis(server.url, { timeoutMs: 200 });
  });
  afterAll(async () => {
    await connection?.close();
    await server?.stop();
  });

  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  it('give back the text and its end, under a key that says nothing, for the entry’s time', async () => {
    const reads = createRedisReads(connection.client, {
      prefix: 'test:',
      origin: 'http://one',
    });
    const until = Date.now() + 30_000;
    const key = 'children\u0000catalog-1\u0000release-1\u0000x-moltin-customer-token=secret';
    reads.set(key, '{"data":[]}', until);
    await settle();
    expect(await reads.get(key)).toEqual({ text: '{"data":[]}', until });
    const keys = await connection.client.keys('test:*');
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^test:catalog:[A-Za-z0-9_-]{43}$/);
    const ttl = await connection.client.pttl(keys[0] as string);
    expect(ttl).toBeGreaterThan(29_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
    // Another upstream's gateway on the same Redis reads nothing of it.
    const other = createRedisReads(connection.client, { prefix: 'test:', origin: 'http://two' });
    expect(await other.get(key)).toBeUndefined();
  });

  it('keep nothing over the size bound or already over', async () => {
    const reads = createRedisReads(connection.client, {
      prefix: 'test:bound:',
      origin: 'http://one',
      maxBytes: 10,
    });
    reads.set('big', '"0123456789"', Date.now() + 10_000);
    reads.set('over', '"x"', Date.now() - 1);
    reads.set('small', '"x"', Date.now() + 10_000);
    await settle();
    expect(await reads.get('big')).toBeUndefined();
    expect(await reads.get('over')).toBeUndefined();
    expect((await reads.get('small'))?.text).toBe('"x"');
  });

  it('are a miss, at once, when Redis is gone', async () => {
    const own = await startRedis();
    const gone = await connectRedis(own.url, { timeoutMs: 200 });
    const reads = createRedisReads(gone.client, { prefix: 'test:', origin: 'http://one' });
    await own.stop(true);
    const started = Date.now();
    expect(await reads.get('anything')).toBeUndefined();
    reads.set('anything', '"x"', Date.now() + 10_000);
    expect(Date.now() - started).toBeLessThan(500);
    await gone.close();
  });
});
