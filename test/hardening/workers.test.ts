/**
 * `WORKERS=<n>` (src/main.ts, src/gateway/cluster/): `npm start` as users run it, over real
 * sockets. Two workers answer on one port (the merged `/metrics` shows each one's requests,
 * labelled `worker`), one banner is printed, a killed worker is replaced, SIGTERM drains a slow
 * in-flight request before everything exits 0, and a bad WORKERS stops startup naming the
 * choices.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { parseWorkers } from '../../src/config/values.ts';
import { fetchClientToken } from '../../src/upstream/oauth.ts';
import { createFaultUpstream } from '../support/fault-upstream.ts';
import { type MainProcess, spawnMain } from '../support/main-process.ts';

const EMBEDDED = { COMMERCE_DB: ':memory:', COMMERCE_PORT: '0', COMMERCE_SEED: '0' };

/** One POST on a connection of its own (node:cluster hands connections out, not requests). */
function post(
  url: string,
  query: string,
  token?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ query }));
  });
}

/** The requests each worker counted, from the merged `/metrics` (`worker` label → total). */
async function requestsByWorker(graphqlUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(graphqlUrl.replace('/graphql', '/metrics'))).text();
  const counts = new Map<string, number>();
  for (const [, worker, value] of text.matchAll(
    /^gateway_graphql_requests_total\{worker="(\d+)",[^}]*\} (\d+)$/gm,
  )) {
    counts.set(worker as string, (counts.get(worker as string) ?? 0) + Number(value));
  }
  return counts;
}

/** The primary's child processes: its workers (Linux's /proc). */
function workerPids(main: MainProcess): number[] {
  const pid = main.child.pid as number;
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
}

async function stop(main: MainProcess): Promise<number | null> {
  if (main.child.exitCode !== null) return main.child.exitCode;
  const exited = once(main.child, 'exit');
  main.child.kill('SIGTERM');
  return (await exited)[0] as number | null;
}

describe('WORKERS', () => {
  it('is 1 by default, a count from 1 to 64, or auto (one per core); anything else is refused by name', () => {
    expect(parseWorkers(undefined)).toBe(1);
    expect(parseWorkers('')).toBe(1);
    expect(parseWorkers('3')).toBe(3);
    expect(parseWorkers('auto', 6)).toBe(6);
    expect(parseWorkers(' AUTO ', 200)).toBe(64);
    for (const bad of ['0', '65', '-1', '1.5', 'two', '2x', '1e1']) {
      expect(() => parseWorkers(bad, 2)).toThrow(
        `WORKERS must be auto (one per core, 2 here) or an integer from 1 to 64, got "${bad}"`,
      );
    }
  });

  it('a bad WORKERS stops npm start with one line naming the variable and the choices', async () => {
    const started = spawnMain({ ...EMBEDDED, WORKERS: 'many' });
    await expect(started).rejects.toThrow(
      /exited 1: .*WORKERS must be auto \(one per core, \d+ here\) or an integer from 1 to 64, got "many"/s,
    );
  });

  it('two workers answer on one port, one banner says so, and a killed worker is replaced', async () => {
    const main = await spawnMain({ ...EMBEDDED, WORKERS: '2' });
    try {
      // The banner's last line: the whole banner is in.
      await main.waitFor(/GraphiQL at .* sends it/);
      const banner = main.output();
      expect(banner.match(/GraphQL gateway ready/g)).toHaveLength(1);
      expect(banner).toContain('worker processes:    2 (WORKERS)');
      const token = /Authorization: Bearer (\S+)/.exec(banner)?.[1];
      expect(token).toBeDefined();
      const pids = workerPids(main);
      expect(pids).toHaveLength(2);
      expect(pids).not.toContain(main.child.pid);

      // GraphiQL, whichever worker serves it, sends the token the primary fetched and printed.
      for (let i = 0; i < 4; i += 1) {
        const page = await new Promise<string>((resolve, reject) => {
          request(main.url, { agent: false, headers: { accept: 'text/html' } }, (res) => {
            let html = '';
            res.on('data', (chunk: Buffer) => {
              html += chunk.toString();
            });
            res.on('end', () => resolve(html));
          })
            .on('error', reject)
            .end();
        });
        expect(page).toContain(`Bearer ${token}`);
      }

      // Each on its own connection, through to the embedded service in the primary.
      const query = '{ orders(first: 1) { edges { node { id } } } }';
      for (let i = 0; i < 8; i += 1) {
        expect(await post(main.url, query, token)).toEqual({
          status: 200,
          body: '{"data":{"orders":{"edges":[]}}}',
        });
      }
      // Both workers served some: connections are handed out in turn.
      const counts = await requestsByWorker(main.url);
      expect([...counts.keys()].sort()).toEqual(['1', '2']);
      expect((counts.get('1') ?? 0) + (counts.get('2') ?? 0)).toBe(8);
      expect(counts.get('1')).toBeGreaterThan(0);
      expect(counts.get('2')).toBeGreaterThan(0);

      // A worker killed outright is logged and replaced; the gateway keeps answering.
      process.kill(pids[0] as number, 'SIGKILL');
      await main.waitFor(/"msg":"worker exited unexpectedly; restarted"/);
      await main.waitFor(/"msg":"worker listening"/);
      const replaced = workerPids(main);
      expect(replaced).toHaveLength(2);
      expect(replaced).not.toContain(pids[0]);
      expect(replaced).toContain(pids[1]);
      const died = main
        .output()
        .split('\n')
        .find((line) => line.includes('worker exited unexpectedly'));
      expect(JSON.parse(died ?? '{}')).toMatchObject({
        level: 'error',
        pid: pids[0],
        signal: 'SIGKILL',
        replacement: 3,
      });
      for (let i = 0; i < 4; i += 1) expect((await post(main.url, query, token)).status).toBe(200);
      const after = await requestsByWorker(main.url);
      expect(after.has('1')).toBe(false);
      expect(after.get('3')).toBeGreaterThan(0);

      expect(await stop(main)).toBe(0);
      expect(main.output().match(/"msg":"shutdown: done"/g)).toHaveLength(3);
      expect(main.output().match(/GraphQL gateway ready/g)).toHaveLength(1);
    } finally {
      if (main.child.exitCode === null) main.child.kill('SIGKILL');
    }
  }, 90_000);

  it('SIGTERM lets every worker finish its in-flight request, then all exit 0; METRICS_PORT is the primary’s', async () => {
    const service = await spawnMain({ COMMERCE_DB: ':memory:', COMMERCE_SEED: '0' }, 'service');
    const slow = await createFaultUpstream({ target: service.url });
    slow.add({ method: 'GET', path: /^\/v2\/orders$/, otherwise: { kind: 'delay', ms: 1500 } });
    let main: MainProcess | undefined;
    try {
      const token = await fetchClientToken(service.url, { id: 'demo', secret: 'demo-secret' });
      main = await spawnMain({ UPSTREAM_URL: slow.url, WORKERS: '2', METRICS_PORT: '0' });
      const gateway = main;
      // METRICS_PORT: the primary serves it, every worker's families under one HELP and TYPE.
      const metricsUrl = (await gateway.waitFor(/Prometheus metrics:\s+(http:\/\/\S+)/))[1] ?? '';
      expect(metricsUrl).not.toContain(new URL(gateway.url).port);
      const scraped = await (await fetch(metricsUrl)).text();
      expect(scraped.match(/^# TYPE process_cpu_seconds_total counter$/gm)).toHaveLength(1);
      expect(scraped).toMatch(/^process_cpu_seconds_total\{worker="1"\} /m);
      expect(scraped).toMatch(/^process_cpu_seconds_total\{worker="2"\} /m);
      const answer = post(gateway.url, '{ orders(first: 2) { edges { node { id } } } }', token);
      // The upstream call is under way: the request is in flight in one of the workers.
      const deadline = Date.now() + 10_000;
      while (slow.count('GET', /^\/v2\/orders$/) === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(slow.count('GET', /^\/v2\/orders$/)).toBe(1);
      const exited = once(gateway.child, 'exit');
      gateway.child.kill('SIGTERM');
      expect(await answer).toEqual({ status: 200, body: '{"data":{"orders":{"edges":[]}}}' });
      expect((await exited)[0]).toBe(0);
      const lines = gateway
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      // The worker that held it said so when it began to drain.
      expect(
        lines
          .filter((l) => l.msg === 'shutdown: draining')
          .map((l) => l.inFlight)
          .sort(),
      ).toEqual([0, 1]);
      expect(lines.at(-1)).toMatchObject({ msg: 'shutdown: done' });
      expect(lines.at(-1)).not.toHaveProperty('worker');
    } finally {
      if (main && main.child.exitCode === null) main.child.kill('SIGKILL');
      await slow.close();
      service.child.kill('SIGKILL');
    }
  }, 60_000);
});
