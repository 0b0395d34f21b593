/**
 * One undici Pool per upstream origin, for everything `npm start` sends there: the demo store's
 * tokens at startup, the gateway's own token and the typed schema's definitions (its first read
 * and a refresh), the readiness probe, and a caller's query. The process is the one users start;
 * a preload (test/support/pool-census.mjs) writes down which dispatcher sent each request.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MainProcess, spawnMain } from '../support/main-process.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts';

interface Sent {
  dispatcher: string;
  origin: string;
  method: string;
  path: string;
}

let main: MainProcess | undefined;
let dir: string;
let census: string;
let collector: OtlpReceiver;

function sent(): Sent[] {
  let text = '';
  try {
    text = readFileSync(census, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [dispatcher = '', origin = '', method = '', target = ''] = line.split('\t');
      return { dispatcher, origin, method, path: target.split('?')[0] ?? '' };
    });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'one-pool-'));
  census = join(dir, 'census.tsv');
  // Traces and metrics on: the exporter has connections of its own, to another origin.
  collector = await startOtlpReceiver();
  main = await spawnMain({
    NODE_OPTIONS: `--import=${resolve('test/support/pool-census.mjs')}`,
    POOL_CENSUS_FILE: census,
    COMMERCE_DB: ':memory:',
    COMMERCE_PORT: '0',
    SCHEMA_REFRESH_MS: '1000',
    LOG_REQUESTS: 'false',
    OTEL_SDK_DISABLED: undefined,
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
  });
  await main.waitFor(/Authorization: Bearer \S+/);
}, 60_000);

afterAll(async () => {
  if (main && main.child.exitCode === null) {
    const exited = new Promise((done) => main?.child.once('exit', done));
    main.child.kill('SIGTERM');
    await exited;
  }
  await collector?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('one Pool per upstream origin', () => {
  it('carries startup, a typed-schema refresh, /readyz and a query, and nothing else reaches the origin', async () => {
    if (!main) throw new Error('not started');
    const [, origin = ''] = await main.waitFor(/upstream v2 API:\s+(http:\/\/\S+) \(embedded\)/);
    const [, token = ''] = await main.waitFor(/Authorization: Bearer (\S+)/);
    const base = new URL(main.url).origin;

    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    const answer = await fetch(main.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: '{ orders(first: 1) { totalCount } }' }),
    });
    expect(((await answer.json()) as { data?: unknown }).data).toMatchObject({
      orders: { totalCount: expect.any(Number) },
    });
    // A refresh of the typed schema: its second read of the Custom APIs.
    const definitionReads = () =>
      sent().filter(
        (one) => one.method === 'GET' && one.path.endsWith('/v2/settings/extensions/custom-apis'),
      ).length;
    for (let waited = 0; definitionReads() < 2 && waited < 10_000; waited += 100) await sleep(100);
    expect(definitionReads()).toBeGreaterThanOrEqual(2);

    const toOrigin = sent().filter((one) => one.origin === origin);
    const kinds = (match: (one: Sent) => boolean) => toOrigin.filter(match).length;
    // Every kind of call was made: tokens (demo read-write, storefront, schema), the readiness
    // probe, the definitions, the caller's query.
    expect(kinds((one) => one.method === 'POST' && one.path.endsWith('/oauth/access_token'))).toBe(
      3,
    );
    expect(kinds((one) => one.method === 'GET' && one.path.endsWith('/v2'))).toBeGreaterThan(0);
    expect(kinds((one) => one.path.includes('/v2/orders'))).toBeGreaterThan(0);
    // …and all of them went through one dispatcher.
    const byDispatcher: Record<string, string[]> = {};
    for (const one of toOrigin) {
      const call = `${one.method} ${one.path.replace(/\/v2\/.*/, '/v2/…')}`;
      const calls = byDispatcher[one.dispatcher] ?? [];
      byDispatcher[one.dispatcher] = calls;
      if (!calls.includes(call)) calls.push(call);
    }
    expect(Object.keys(byDispatcher), JSON.stringify(byDispatcher)).toHaveLength(1);
    expect(toOrigin.every((one) => one.dispatcher.startsWith('pool#'))).toBe(true);
    // The spans of that query go to the collector, never on the upstream's pool.
    expect(sent().filter((one) => one.origin === collector.url)).toEqual([]);
    expect(
      sent().filter((one) => one.dispatcher === toOrigin[0]?.dispatcher && one.origin !== origin),
    ).toEqual([]);
  }, 30_000);

  it('exports the spans to the collector on SIGTERM, over http/protobuf', async () => {
    if (!main) throw new Error('not started');
    const exited = new Promise((done) => main?.child.once('exit', done));
    main.child.kill('SIGTERM');
    await exited;
    expect(collector.exports.length).toBeGreaterThan(0);
    expect(collector.exports[0]?.contentType).toBe('application/x-protobuf');
    expect(collector.exports.flatMap((one) => one.spans).map((span) => span.name)).toContain(
      'GET /v2/orders',
    );
  }, 30_000);
});
