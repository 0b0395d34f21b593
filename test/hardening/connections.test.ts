/**
 * What a client can hold of the process `npm start` runs, over raw sockets: a connection that
 * sends nothing, stops in its headers or in its body is closed (HEADERS_TIMEOUT_MS,
 * REQUEST_TIMEOUT_MS), an idle keep-alive connection too (KEEP_ALIVE_TIMEOUT_MS), connections
 * beyond MAX_CONNECTIONS are closed unanswered, and ordinary requests are unaffected. The limits
 * are set small; the test waits for closes with a bound far above them (counts, not times).
 */
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEmbeddedServiceConfig, loadServiceConfig } from '../../src/commerce-service/config.ts';
import { DEFAULT_CONNECTION_LIMITS } from '../../src/commerce-service/connection-limits.ts';
import { type Stack, startStack } from '../support/harness.ts';
import { type MainProcess, spawnMain } from '../support/main-process.ts';

/** Far above every configured limit below: a socket not closed by then is held. */
const CLOSE_BOUND_MS = 15_000;

const LIMITS = {
  HEADERS_TIMEOUT_MS: '1000',
  REQUEST_TIMEOUT_MS: '3000',
  KEEP_ALIVE_TIMEOUT_MS: '3000',
  MAX_CONNECTIONS: '4',
};

interface Held {
  socket: Socket;
  /** Everything the server sent. */
  received(): string;
  isClosed(): boolean;
  /** Resolves when the server closed it, or with 'held' after CLOSE_BOUND_MS. */
  closed: Promise<'closed' | 'held'>;
}

/** A raw connection that sends `bytes` (if any) and then nothing more. */
async function hold(port: number, bytes?: string): Promise<Held> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  let text = '';
  let isClosed = false;
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
  });
  const closed = new Promise<'closed' | 'held'>((resolve) => {
    const timer = setTimeout(() => resolve('held'), CLOSE_BOUND_MS);
    socket.once('close', () => {
      isClosed = true;
      clearTimeout(timer);
      resolve('closed');
    });
  });
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  if (bytes !== undefined) socket.write(bytes);
  return { socket, received: () => text, isClosed: () => isClosed, closed };
}

/** A complete request on a connection of its own (closed after), as any client sends it. */
function post(url: string, body: string, pieces = 1): Promise<{ status: number; text: string }> {
  const bytes = Buffer.from(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': String(bytes.length),
          authorization: `Bearer ${token}`,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    // A body that keeps moving: `pieces` writes 150 ms apart, well within the request timeout.
    const size = Math.ceil(bytes.length / pieces);
    let offset = 0;
    const next = () => {
      const piece = bytes.subarray(offset, offset + size);
      offset += size;
      if (offset >= bytes.length) req.end(piece);
      else {
        req.write(piece);
        setTimeout(next, 150);
      }
    };
    next();
  });
}

let stack: Stack;
let main: MainProcess;
let token: string;
let port: number;
let metricsPort: number;

beforeAll(async () => {
  stack = await startStack({ seed: true, seedOptions: { orders: 3 } });
  token = await stack.token();
  main = await spawnMain({
    UPSTREAM_URL: stack.serviceUrl,
    LOG_REQUESTS: '0',
    METRICS_PORT: '0',
    ...LIMITS,
  });
  port = Number(new URL(main.url).port);
  const [, metrics] = await main.waitFor(/Prometheus metrics: +http:\/\/[^:]+:(\d+)\//);
  metricsPort = Number(metrics);
}, 40_000);

afterAll(async () => {
  main?.child.kill('SIGKILL');
  await stack?.close();
});

const ORDERS = JSON.stringify({ query: '{ orders(first: 3) { totalCount } }' });
const head = (extra: string) =>
  `POST /graphql HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nAuthorization: Bearer ${token}\r\n${extra}`;

describe('the listener of npm start', () => {
  it('closes a connection that stops in its body, on both paths (408)', async () => {
    const stalled = await Promise.all([
      // Content-Length: the fast path's request; chunked: Yoga's.
      hold(port, `${head('Content-Length: 400\r\n\r\n')}{"query": "{ orders(first: 3) {`),
      hold(port, `${head('Transfer-Encoding: chunked\r\n\r\n')}10\r\n{"query": "{ ord\r\n`),
    ]);
    for (const one of stalled) {
      expect(await one.closed).toBe('closed');
      expect(one.received()).toMatch(/^(HTTP\/1\.1 408 |$)/);
    }
  }, 30_000);

  it('closes a connection that sends nothing, or stops in its headers', async () => {
    const idle = await Promise.all([
      hold(port),
      hold(port, 'POST /graphql HTTP/1.1\r\nHost: gateway\r\nContent-Type: app'),
      hold(metricsPort),
    ]);
    for (const one of idle) {
      expect(await one.closed).toBe('closed');
      expect(one.received()).toMatch(/^(HTTP\/1\.1 408 |$)/);
    }
  }, 30_000);

  it('closes an idle keep-alive connection after its answer', async () => {
    const kept = await hold(port, 'GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n');
    expect(await kept.closed).toBe('closed');
    expect(kept.received()).toMatch(/^HTTP\/1\.1 200 /);
  }, 30_000);

  it('answers ordinary requests, and bodies that keep moving, as before', async () => {
    const expected = { data: { orders: { totalCount: 3 } } };
    const plain = await post(main.url, ORDERS);
    expect(plain.status).toBe(200);
    expect(JSON.parse(plain.text)).toEqual(expected);
    const moving = await post(main.url, ORDERS, 4);
    expect(moving.status).toBe(200);
    expect(JSON.parse(moving.text)).toEqual(expected);
  }, 30_000);

  it('closes connections beyond MAX_CONNECTIONS unanswered, and serves again once they go', async () => {
    // Four connections with an answered request each: surely counted by the server.
    const kept = await Promise.all(
      Array.from({ length: 4 }, () => hold(port, 'GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n')),
    );
    for (const one of kept) {
      await expect.poll(() => one.received(), { timeout: 10_000 }).toContain('"status":"ok"');
    }
    const refused = await Promise.all([hold(port), hold(port)]);
    for (const one of refused) {
      expect(await one.closed).toBe('closed');
      expect(one.received()).toBe('');
    }
    expect(kept.filter((one) => one.isClosed())).toEqual([]);
    for (const one of kept) one.socket.destroy();
    await Promise.all(kept.map((one) => one.closed));
    // The server counts the closes as they reach it.
    let status = 0;
    for (let attempt = 0; attempt < 50 && status !== 200; attempt++) {
      status = await post(main.url, ORDERS).then(
        (answer) => answer.status,
        () => 0,
      );
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
  }, 30_000);
});

describe('the listener of npm run service (it may face the network alone)', () => {
  it('closes a connection that stops in its body, or sends nothing', async () => {
    const service = await spawnMain(
      { COMMERCE_DB: ':memory:', COMMERCE_SEED: '0', ...LIMITS },
      'service',
    );
    try {
      const servicePort = Number(new URL(service.url).port);
      const held = await Promise.all([
        hold(servicePort),
        hold(
          servicePort,
          'POST /oauth/access_token HTTP/1.1\r\nHost: service\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"grant_type":',
        ),
      ]);
      for (const one of held) {
        expect(await one.closed).toBe('closed');
        expect(one.received()).toMatch(/^(HTTP\/1\.1 408 |$)/);
      }
    } finally {
      service.child.kill('SIGKILL');
    }
  }, 40_000);
});

describe('HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, MAX_CONNECTIONS', () => {
  it('default to 10 s, 30 s, 5 s and 1,000, and are read for the service alone too', () => {
    expect(DEFAULT_CONNECTION_LIMITS).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 1_000,
    });
    expect(loadEmbeddedServiceConfig({}).connections).toEqual(DEFAULT_CONNECTION_LIMITS);
    const set = {
      headersTimeoutMs: 1000,
      requestTimeoutMs: 3000,
      keepAliveTimeoutMs: 3000,
      maxConnections: 4,
    };
    expect(loadEmbeddedServiceConfig(LIMITS).connections).toEqual(set);
    expect(loadServiceConfig(LIMITS).connections).toEqual(set);
  });

  it('refuse what is not a positive integer, and a headers timeout above the request timeout', () => {
    for (const name of Object.keys(LIMITS)) {
      for (const bad of ['0', '-1', '1.5', 'soon']) {
        expect(() => loadEmbeddedServiceConfig({ [name]: bad }), `${name}=${bad}`).toThrow(name);
      }
    }
    expect(() => loadEmbeddedServiceConfig({ HEADERS_TIMEOUT_MS: '40000' })).toThrow(
      /HEADERS_TIMEOUT_MS \(40000\) must not exceed REQUEST_TIMEOUT_MS \(30000\)/,
    );
  });
});
