import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/create-gateway.ts';
import { closedPortUrl } from '../support/fault-upstream.ts';
import {
  createEntries,
  type HardeningStack,
  listenOnPort0,
  startHardeningStack,
} from '../support/hardening-stack.ts';
import { spawnMain } from '../support/main-process.ts';

let stack: HardeningStack;
let customApiId: string;

beforeAll(async () => {
  stack = await startHardeningStack();
  ({ customApiId } = await createEntries(stack, await stack.token(), 'opslist', 3));
});
afterAll(() => stack.close());

describe('health endpoints', () => {
  it('/healthz answers 200 without touching the upstream', async () => {
    const before = stack.fault?.requests.length ?? 0;
    const response = await fetch(`${stack.gatewayBase}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
    expect(stack.fault?.requests.length).toBe(before);
  });

  it('/readyz probes the upstream origin without any token', async () => {
    const response = await fetch(`${stack.gatewayBase}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready', upstream: true });
    const probes = stack.fault?.requests.filter((r) => r.url === '/v2') ?? [];
    expect(probes.length).toBeGreaterThan(0);
    for (const probe of probes) expect(probe.authorization).toBeUndefined();
  });

  it("/readyz answers 200 while the gateway's calls hold every connection of the pool", async () => {
    // Two connections, both held by calls the upstream never answers: the probe still gets
    // through (the pool keeps a connection for it), so readiness says whether the origin answers,
    // not whether the gateway is busy.
    const busy = await startHardeningStack({
      gateway: {
        pool: { connections: 2 },
        resilience: { attemptTimeoutMs: 20_000, maxAttempts: 1 },
      },
    });
    const cancel = new AbortController();
    try {
      const token = await busy.token();
      const { customApiId: held } = await createEntries(busy, token, 'held', 1);
      const fault = busy.fault as NonNullable<typeof busy.fault>;
      fault.add({ method: 'GET', path: /\/entries$/, otherwise: { kind: 'hang' } });
      const query = `{ customApiEntries(customApiId: "${held}", first: 1) { totalCount } }`;
      const hanging = [1, 2].map(() =>
        busy.graphql(query, {}, { token, signal: cancel.signal }).catch(() => undefined),
      );
      for (let i = 0; i < 200 && fault.count('GET', /\/entries$/) < 2; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(fault.count('GET', /\/entries$/)).toBe(2);
      const ready = await fetch(`${busy.gatewayBase}/readyz`);
      expect(await ready.json()).toEqual({ status: 'ready', upstream: true });
      expect(ready.status).toBe(200);
      cancel.abort();
      await Promise.all(hanging);
    } finally {
      cancel.abort();
      await busy.close();
    }
  });

  it('/readyz is 503 when the upstream cannot be reached', async () => {
    const gateway = createGateway({ upstreamUrl: await closedPortUrl(), logger: false });
    const server = createServer(gateway);
    const port = await listenOnPort0(server);
    try {
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: 'upstream-unreachable', upstream: false });
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    } finally {
      server.close();
      await gateway.dispose();
    }
  });
});

describe('structured request logs', () => {
  it('writes one JSON line per request with id, operation, status, duration, upstream calls', async () => {
    const token = await stack.token();
    const before = stack.logs.length;
    const response = await stack.graphql(
      'query ListEntries($id: ID!) { customApiEntries(customApiId: $id, first: 2) { totalCount } }',
      { id: customApiId },
      { headers: { 'x-request-id': 'trace-abc-123' } },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('trace-abc-123');
    const lines = stack.logs.slice(before).filter((l) => l.msg === 'request');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'info',
      requestId: 'trace-abc-123',
      method: 'POST',
      path: '/graphql',
      operationName: 'ListEntries',
      status: 200,
      upstreamCalls: 1,
    });
    expect(typeof lines[0]?.durationMs).toBe('number');
    expect(stack.rawLogs.join('')).not.toContain(token);
  });

  it('logs refused requests with their error codes and a fresh id for a malformed one', async () => {
    const before = stack.logs.length;
    const response = await stack.graphql('{ nope }', undefined, {
      headers: { 'x-request-id': 'bad id with spaces\r\n' },
    });
    expect(response.status).toBeLessThan(500);
    const line = stack.logs.slice(before).find((l) => l.msg === 'request');
    expect(line?.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(line?.errors).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(line?.upstreamCalls).toBe(0);
  });
});

describe('the process npm start runs', () => {
  it('refuses a query over the cost limit with its code, not a 500', async () => {
    const main = await spawnMain({ UPSTREAM_URL: stack.serviceUrl });
    try {
      const fields = 'id upstreamId status payment shipping customerName createdAt updatedAt';
      const pages = Array.from(
        { length: 10 },
        (_, i) => `o${i}: orders(first: 1000) { edges { node { ${fields} } } }`,
      );
      const response = await fetch(main.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
        body: JSON.stringify({ query: `{ ${pages.join(' ')} }` }),
      });
      expect(response.status).toBeLessThan(500);
      const body = (await response.json()) as { errors?: { extensions?: { code?: string } }[] };
      expect(body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    } finally {
      main.child.kill('SIGKILL');
    }
  });
});

describe('SIGTERM', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  it('stops accepting, finishes in-flight requests, then exits 0', async () => {
    const fault = stack.fault;
    if (!fault) throw new Error('fault proxy expected');
    const token = await stack.token();
    // Every entries list through the proxy takes 1.5 s: the request is surely in flight.
    const remove = fault.add({
      method: 'GET',
      path: /\/entries$/,
      otherwise: { kind: 'delay', ms: 1_500 },
    });
    try {
      const main = await spawnMain({ UPSTREAM_URL: fault.url, SHUTDOWN_TIMEOUT_MS: '10000' });
      child = main.child;
      const exited = once(main.child, 'exit');
      const seen = fault.requests.filter((r) => r.url.includes('/entries')).length;
      const inFlight = fetch(main.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({
          query:
            'query Slow($id: ID!) { customApiEntries(customApiId: $id, first: 3) { totalCount } }',
          variables: { id: customApiId },
        }),
      });
      // Wait until the upstream call is under way, then ask the process to stop.
      const deadline = Date.now() + 10_000;
      while (
        fault.requests.filter((r) => r.url.includes('/entries')).length === seen &&
        Date.now() < deadline
      ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const signalledAt = Date.now();
      main.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 200));
      // New connections are refused while the old request drains.
      await expect(fetch(main.url.replace('/graphql', '/healthz'))).rejects.toThrow();

      const response = await inFlight;
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ data: { customApiEntries: { totalCount: 3 } } });
      const [code] = await exited;
      expect(code).toBe(0);
      expect(Date.now() - signalledAt).toBeGreaterThan(1_000);
      const out = main.output();
      expect(out).toContain('"msg":"shutdown: draining"');
      expect(out).toContain('"msg":"shutdown: done"');
      expect(out).toContain('"operationName":"Slow"');
      // The request line is there; the caller's token is not.
      expect(out).not.toContain(token);
    } finally {
      remove();
    }
  });
});
