/**
 * The direct lane of compiled trusted documents (src/gateway/compiled/lane.ts) keeps every
 * guarantee of the ordinary path: two gateways with the same manifest and settings (request
 * lines, metrics, CORS, a caller limit), one with compiled documents and one without, over one
 * service; the lane's answers, refusals, log lines and metrics must be the ordinary path's, and
 * what the lane is not sure of must go to the ordinary path with its reason counted.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGateway,
  type Gateway,
  type GatewayOptions,
  gatewaySettings,
} from '../../src/gateway/create-gateway.ts';
import { createRequestListener } from '../../src/gateway/fast-path.ts';
import { createLogger } from '../../src/gateway/logging.ts';
import { sendUpstreamAttempt } from '../../src/upstream/client.ts';
import { type Stack, startStack } from '../support/harness.ts';

const DOCS = {
  narrow: 'query Narrow { orders(first: 5) { edges { node { id status } } } }',
  page: 'query Page($n: Int!) { orders(first: $n) { totalCount nodes { upstreamId } } }',
  anonymous: '{ orders(first: 2) { nodes { status } } }',
};

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

interface Served {
  url: string;
  gateway: Gateway;
  lines: string[];
}

let stack: Stack;
let token: string;
const servers: Server[] = [];
/** Upstream calls wait this long when set (the client-close case). */
let upstreamDelayMs = 0;
/** The signals of the upstream calls made while waiting (aborted when the client goes away). */
const delayedSignals: (AbortSignal | undefined)[] = [];

async function serve(options: Partial<GatewayOptions>): Promise<Served> {
  const lines: string[] = [];
  const gateway = createGateway({
    upstreamUrl: stack.serviceUrl,
    graphiql: false,
    persistedDocuments: new Map(Object.entries(DOCS)),
    logger: createLogger({ write: (line) => lines.push(line) }),
    metrics: { path: false, processMetrics: false },
    corsOrigins: ['https://shop.example'],
    send: async (transport, request, context) => {
      if (upstreamDelayMs > 0) {
        delayedSignals.push(context.signal);
        await new Promise((resolve) => setTimeout(resolve, upstreamDelayMs));
      }
      return sendUpstreamAttempt(transport, request, context);
    },
    ...options,
  } as GatewayOptions);
  const server = createServer(createRequestListener(gateway));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  return { url, gateway, lines };
}

function post(
  url: string,
  body: object,
  headers: Record<string, string> = {},
  onRequest?: (req: ReturnType<typeof httpRequest>) => void,
): Promise<Raw> {
  const text = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(text.length),
          authorization: `Bearer ${token}`,
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const { date: _date, 'x-request-id': _id, ...rest } = res.headers;
          resolve({ status: res.statusCode ?? 0, headers: rest, body: chunks.join('') });
        });
      },
    );
    req.on('error', reject);
    req.end(text);
    onRequest?.(req);
  });
}

function stats(served: Served) {
  const compiled = gatewaySettings(served.gateway)?.compiled;
  if (!compiled) throw new Error('no stats');
  return compiled;
}

/** The lines of a metrics family, from the exposition text. */
async function family(served: Served, name: string): Promise<string[]> {
  const text = (await gatewaySettings(served.gateway)?.metrics?.render()) ?? '';
  return text.split('\n').filter((line) => line.startsWith(name));
}

function lastLine(served: Served): Record<string, unknown> {
  const {
    time: _time,
    durationMs,
    requestId: _id,
    ...rest
  } = JSON.parse(served.lines.at(-1) ?? '{}');
  expect(typeof durationMs).toBe('number');
  return rest;
}

/** Sends the same request to both; both answers must be equal. Returns the lane's. */
async function both(
  pair: { lane: Served; ordinary: Served },
  body: object,
  headers: Record<string, string> = {},
): Promise<Raw> {
  const a = await post(pair.ordinary.url, body, headers);
  const b = await post(pair.lane.url, body, headers);
  expect([b.status, b.headers, b.body]).toEqual([a.status, a.headers, a.body]);
  expect(lastLine(pair.lane)).toEqual(lastLine(pair.ordinary));
  return b;
}

let main: { lane: Served; ordinary: Served };

beforeAll(async () => {
  stack = await startStack({ seed: true, seedOptions: { orders: 12 } });
  token = await stack.token();
  main = { lane: await serve({}), ordinary: await serve({ compiledDocuments: false }) };
  // The first run of each document is the ordinary path's: it proves the document valid.
  for (const body of [
    { documentId: 'narrow' },
    { documentId: 'page', variables: { n: 2 } },
    { documentId: 'anonymous' },
  ]) {
    await both(main, body);
  }
});

afterAll(async () => {
  for (const server of servers) {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
  await stack?.close();
});

describe('what takes the lane', () => {
  it('a trusted document, once proven, by id, with its variables and operation name', async () => {
    const before = stats(main.lane).lane;
    await both(main, { documentId: 'narrow' });
    await both(main, { documentId: 'narrow', operationName: 'Narrow' });
    await both(main, { documentId: 'page', variables: { n: 3 } });
    await both(main, { documentId: 'anonymous', variables: null });
    expect(stats(main.lane).lane - before).toBe(4);
  });

  it('the first run of a document is the ordinary path, which proves it valid', async () => {
    const fresh = await serve({});
    const first = await post(fresh.url, { documentId: 'narrow' });
    expect(first.status).toBe(200);
    expect([stats(fresh).lane, stats(fresh).declined['not yet validated']]).toEqual([0, 1]);
    await post(fresh.url, { documentId: 'narrow' });
    expect(stats(fresh).lane).toBe(1);
  });

  it('anything else goes to the ordinary path, its reason counted, with the same answer', async () => {
    const declined = stats(main.lane).declined;
    const before = { ...declined };
    const lane = stats(main.lane).lane;
    await both(main, { documentId: 'page', variables: { n: 'three' } });
    await both(main, { documentId: 'page' });
    await both(main, { documentId: 'narrow', operationName: 'Other' });
    await both(main, { documentId: 'no-such-id' });
    await both(main, { documentId: 'narrow', extensions: { x: 1 } });
    await both(main, { documentId: 'narrow' }, { accept: 'application/graphql-response+json' });
    await both(main, { documentId: 'page', variables: { n: 100000 } });
    expect(stats(main.lane).lane).toBe(lane);
    const delta = (reason: string) => (declined[reason] ?? 0) - (before[reason] ?? 0);
    expect({
      variables: delta('variables do not coerce'),
      name: delta('another operation name'),
      id: delta('unknown id'),
      other: delta('other parameters'),
      accept: delta('accept'),
      limits: delta('operation limits'),
    }).toEqual({ variables: 2, name: 1, id: 1, other: 1, accept: 1, limits: 1 });
  });

  it('with a tracer configured there is no lane', async () => {
    const traced = createGateway({
      upstreamUrl: stack.serviceUrl,
      persistedDocuments: new Map(Object.entries(DOCS)),
      tracer: trace.getTracer('lane-test'),
      logger: false,
    });
    expect(gatewaySettings(traced)?.lane).toBeUndefined();
    expect(gatewaySettings(main.lane.gateway)?.lane).toBeDefined();
  });
});

describe('the guarantees it keeps', () => {
  it('CORS: an allowed origin, another origin, none', async () => {
    const before = stats(main.lane).lane;
    const allowed = await both(main, { documentId: 'narrow' }, { origin: 'https://shop.example' });
    expect(allowed.headers['access-control-allow-origin']).toBe('https://shop.example');
    expect(allowed.headers.vary).toBe('Origin');
    const other = await both(main, { documentId: 'narrow' }, { origin: 'https://evil.example' });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    await both(main, { documentId: 'narrow' });
    const any = {
      lane: await serve({ corsOrigins: '*' }),
      ordinary: await serve({ corsOrigins: '*', compiledDocuments: false }),
    };
    await both(any, { documentId: 'narrow' }, { origin: 'https://a.example' });
    const star = await both(any, { documentId: 'narrow' }, { origin: 'https://a.example' });
    expect(star.headers['access-control-allow-origin']).toBe('*');
    expect(stats(main.lane).lane - before).toBe(3);
    expect(stats(any.lane).lane).toBe(1);
  });

  it('the request line: request id echoed, operation, status, upstream calls, error codes', async () => {
    const answer = await post(
      main.lane.url,
      { documentId: 'narrow' },
      { 'x-request-id': 'lane-1' },
    );
    expect(answer.status).toBe(200);
    const line = JSON.parse(main.lane.lines.at(-1) ?? '{}');
    expect(line).toMatchObject({
      msg: 'request',
      requestId: 'lane-1',
      method: 'POST',
      path: '/graphql',
      operationName: 'Narrow',
      status: 200,
      upstreamCalls: 1,
    });
    const refused = await both(main, { documentId: 'narrow' }, { authorization: 'Bearer nope' });
    expect(refused.body).toContain('UNAUTHENTICATED');
    expect(lastLine(main.lane)).toMatchObject({ errors: ['UNAUTHENTICATED'] });
  });

  it('metrics: the same requests, outcomes, latencies and calls per operation', async () => {
    const pair = {
      lane: await serve({}),
      ordinary: await serve({ compiledDocuments: false }),
    };
    await both(pair, { documentId: 'narrow' });
    for (let i = 0; i < 3; i += 1) await both(pair, { documentId: 'narrow' });
    await both(pair, { documentId: 'anonymous' });
    await both(pair, { documentId: 'anonymous' });
    await both(pair, { documentId: 'narrow' }, { authorization: 'Bearer nope' });
    await both(pair, { documentId: 'page', variables: { n: 'x' } });
    expect(stats(pair.lane).lane).toBe(5);
    for (const name of [
      'gateway_graphql_requests_total',
      'gateway_graphql_upstream_calls_per_operation',
      'gateway_graphql_request_duration_seconds_count',
      'gateway_http_requests_in_flight',
      'gateway_upstream_requests_total',
    ]) {
      expect(await family(pair.lane, name), name).toEqual(await family(pair.ordinary, name));
    }
    expect(await family(pair.lane, 'gateway_graphql_requests_total')).toContain(
      'gateway_graphql_requests_total{operation="Narrow",outcome="ok"} 4',
    );
  });

  it('the caller limit: the same refusals (429, Retry-After), the lane never taking twice', async () => {
    const limited = {
      lane: await serve({ callerRateLimit: 1, callerRateBurst: 3 }),
      ordinary: await serve({ callerRateLimit: 1, callerRateBurst: 3, compiledDocuments: false }),
    };
    const answers: Raw[] = [];
    for (let i = 0; i < 5; i += 1) answers.push(await both(limited, { documentId: 'narrow' }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429, 429]);
    expect(answers[3]?.headers['retry-after']).toBeDefined();
    expect(answers[3]?.body).toContain('RATE_LIMITED');
    // The first proved the document; the next two took the lane; the refused two fell back.
    expect(stats(limited.lane).lane).toBe(2);
    expect(stats(limited.lane).declined['caller over its rate']).toBe(2);
  });

  it('a client that goes away: its upstream calls are cancelled, logged as 499', async () => {
    const pair = { lane: await serve({}), ordinary: await serve({ compiledDocuments: false }) };
    await both(pair, { documentId: 'narrow' });
    const lines: Record<string, unknown>[] = [];
    for (const served of [pair.ordinary, pair.lane]) {
      upstreamDelayMs = 150;
      delayedSignals.length = 0;
      const count = served.lines.length;
      await post(served.url, { documentId: 'narrow' }, {}, (req) => {
        setTimeout(() => req.destroy(), 40);
      }).catch(() => undefined);
      const deadline = Date.now() + 5_000;
      while (served.lines.length === count && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      upstreamDelayMs = 0;
      expect(delayedSignals.length).toBeGreaterThan(0);
      expect(delayedSignals.every((signal) => signal?.aborted)).toBe(true);
      lines.push(lastLine(served));
    }
    expect(lines[1]).toEqual(lines[0]);
    expect(lines[1]).toMatchObject({ status: 499, errors: ['CLIENT_CLOSED_REQUEST'] });
    expect(stats(pair.lane).lane).toBe(1);
    expect(await family(pair.lane, 'gateway_graphql_requests_total')).toEqual(
      await family(pair.ordinary, 'gateway_graphql_requests_total'),
    );
  });
});
