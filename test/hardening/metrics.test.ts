import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { createGateway, gatewaySettings } from '../../src/gateway/create-gateway.ts';
import { metricsListener } from '../../src/gateway/metrics.ts';
import {
  createEntries,
  type HardeningStack,
  listenOnPort0,
  startHardeningStack,
} from '../support/hardening-stack.ts';
import { spawnMain } from '../support/main-process.ts';

/**
 * The exposition text as series → value, a series written `name{labels}` with its labels in
 * alphabetical order (the format leaves their order, and the order of lines, to the writer).
 * A series written twice is an error.
 */
function parse(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null) throw new Error(`not a sample line: ${line}`);
    const [, name, labels, value] = match as unknown as [
      string,
      string,
      string | undefined,
      string,
    ];
    const pairs =
      labels === undefined || labels === '' ? [] : (labels.match(/\w+="(?:[^"\\]|\\.)*"/g) ?? []);
    const key = pairs.length === 0 ? name : `${name}{${pairs.sort().join(',')}}`;
    if (series.has(key)) throw new Error(`series written twice: ${key}`);
    series.set(key, Number(value));
  }
  return series;
}

async function scrape(base: string): Promise<{ text: string; series: Map<string, number> }> {
  const response = await fetch(`${base}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  const text = await response.text();
  return { text, series: parse(text) };
}

const ORDERS = 'query ListOrders { orders(first: 2) { totalCount } }';
const ENTRIES = `query Entries($id: ID!) {
  customApiEntries(customApiId: $id, first: 2) { totalCount }
}`;
const MISSING_API = '00000000-0000-4000-8000-000000000000';

for (const fastPath of [false, true]) {
  describe(`metrics after a known sequence of requests (fast path ${fastPath ? 'on' : 'off'})`, () => {
    let stack: HardeningStack;
    let token: string;
    let customApiId: string;
    let entryIds: string[];
    let series: Map<string, number>;
    let text: string;

    beforeAll(async () => {
      stack = await startHardeningStack({
        fastPath,
        gateway: {
          metrics: { maxOperationNames: 4 },
          resilience: { backoffBaseMs: 1, backoffMaxMs: 2 },
        },
      });
      token = await stack.token();
      ({ customApiId, entryIds } = await createEntries(stack, token, 'metricsapi', 2));
      const fault = stack.fault;
      if (!fault) throw new Error('no fault upstream');

      // ok, twice
      expect((await stack.graphql(ORDERS)).body.errors).toBeUndefined();
      expect((await stack.graphql(ORDERS)).body.errors).toBeUndefined();
      // an error: no token
      const unauthenticated = await stack.graphql(ORDERS, undefined, { token: null });
      expect(unauthenticated.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      // an upstream 404: the entries of a Custom API the store does not have
      const missing = await stack.graphql(ENTRIES, { id: MISSING_API });
      expect(missing.body.errors[0].extensions.code).toBe('NOT_FOUND');
      // the entries of one it has
      const found = await stack.graphql(ENTRIES, { id: customApiId });
      expect(found.body.data.customApiEntries.totalCount).toBe(2);
      // two 503s, retried, then the real answer
      const removeRetry = fault.add({
        method: 'GET',
        path: /^\/v2\/orders$/,
        sequence: [
          { kind: 'status', status: 503 },
          { kind: 'status', status: 503 },
        ],
      });
      const retried = await stack.graphql(ORDERS);
      expect(retried.body.errors).toBeUndefined();
      removeRetry();
      // a 429 asking for longer than the gateway waits: RATE_LIMITED reaches the client
      const removeLimit = fault.add({
        method: 'GET',
        path: /^\/v2\/orders$/,
        otherwise: { kind: 'status', status: 429, headers: { 'retry-after': '60' } },
      });
      const limited = await stack.graphql('query Limited { orders(first: 1) { totalCount } }');
      expect(limited.body.errors[0].extensions.code).toBe('RATE_LIMITED');
      removeLimit();
      // a syntax error, an anonymous operation, and names beyond the bound of 4
      await stack.graphql('query Broken {');
      await stack.graphql('{ orders(first: 1) { totalCount } }');
      await stack.graphql('query Fifth { customApis(first: 1) { totalCount } }');
      await stack.graphql('query Sixth { customApis(first: 1) { totalCount } }');
      // a name never admitted because its operation failed validation
      await stack.graphql('query NeverValid { noSuchField }');
      ({ text, series } = await scrape(stack.gatewayBase));
    });
    afterAll(() => stack.close());

    it('counts GraphQL requests by operation and outcome, with their latency', () => {
      const requests = (operation: string, outcome: string) =>
        series.get(`gateway_graphql_requests_total{operation="${operation}",outcome="${outcome}"}`);
      expect(requests('ListOrders', 'ok')).toBe(3);
      expect(requests('ListOrders', 'UNAUTHENTICATED')).toBe(1);
      expect(requests('Entries', 'ok')).toBe(1);
      expect(requests('Entries', 'NOT_FOUND')).toBe(1);
      expect(requests('Limited', 'RATE_LIMITED')).toBe(1);
      expect(requests('anonymous', 'ok')).toBe(1);
      // Names of operations that never executed are not admitted.
      expect(requests('other', 'GRAPHQL_PARSE_FAILED')).toBe(1);
      // Four names admitted (ListOrders, Entries, Limited, Fifth); Sixth is `other`.
      expect(requests('Fifth', 'ok')).toBe(1);
      expect(requests('other', 'ok')).toBe(1);
      expect(requests('other', 'GRAPHQL_VALIDATION_FAILED')).toBe(1);
      expect(text).not.toContain('Sixth');
      expect(text).not.toContain('NeverValid');
      expect(text).not.toContain('Broken');

      expect(
        series.get('gateway_graphql_request_duration_seconds_count{operation="ListOrders"}'),
      ).toBe(4);
      expect(
        series.get(
          'gateway_graphql_request_duration_seconds_bucket{le="+Inf",operation="ListOrders"}',
        ),
      ).toBe(4);
      expect(
        series.get('gateway_graphql_request_duration_seconds_sum{operation="ListOrders"}'),
      ).toBeGreaterThan(0);
      // One scrape, no request left in flight.
      expect(series.get('gateway_http_requests_in_flight')).toBe(0);
    });

    it('counts upstream attempts by method, route template and status, retries and 429s', () => {
      const calls = (route: string, status: string) =>
        series.get(
          `gateway_upstream_requests_total{method="GET",route="${route}",status="${status}"}`,
        );
      // 2 ok + 1 after the retries + the anonymous one
      expect(calls('/v2/orders', '200')).toBe(4);
      expect(calls('/v2/orders', '503')).toBe(2);
      expect(calls('/v2/orders', '429')).toBe(1);
      expect(calls('/v2/settings/extensions/custom-apis/{id}/entries', '404')).toBe(1);
      expect(calls('/v2/settings/extensions/custom-apis/{id}/entries', '200')).toBe(1);
      expect(series.get('gateway_upstream_retries_total{method="GET"}')).toBe(2);
      expect(series.get('gateway_upstream_rate_limited_total')).toBe(1);
      expect(series.get('gateway_upstream_circuit_breaker_state{state="closed"}')).toBe(1);
      expect(series.get('gateway_upstream_circuit_breaker_state{state="open"}')).toBe(0);
      // Operations that executed: their upstream calls, retries not counted (the one without a
      // token made none).
      expect(
        series.get('gateway_graphql_upstream_calls_per_operation_bucket{le="0"}'),
      ).toBeGreaterThanOrEqual(1);
      expect(series.get('gateway_graphql_upstream_calls_per_operation_count')).toBeGreaterThan(8);
    });

    it('never shows a token, an id or a value of the store', () => {
      expect(text).not.toContain(token);
      expect(text).not.toContain(customApiId);
      expect(text).not.toContain(MISSING_API);
      for (const id of entryIds) expect(text).not.toContain(id);
      expect(text).not.toMatch(/bearer|metricsapi/i);
      // Every label value is from the bounded sets.
      for (const [name] of series) {
        for (const [, label, value] of name.matchAll(/(\w+)="([^"]*)"/g)) {
          if (label === 'route') expect(value).toMatch(/^\/v2(\/([a-z-]+|\{id\}))*$/);
          else if (label === 'operation') expect(value).toMatch(/^[_A-Za-z][_0-9A-Za-z]*$/);
          else expect(value).toMatch(/^[A-Za-z0-9_.+-]+$/);
        }
      }
    });

    it('does not count health probes, scrapes or the metrics themselves', async () => {
      await fetch(`${stack.gatewayBase}/healthz`);
      const again = await scrape(stack.gatewayBase);
      const total = (map: Map<string, number>) =>
        [...map]
          .filter(([name]) => name.startsWith('gateway_graphql_requests_total'))
          .reduce((sum, [, value]) => sum + value, 0);
      expect(total(again.series)).toBe(total(series));
    });
  });
}

describe('operation names callers cannot fill for good', () => {
  it('names of callers without a valid token, or of operations that call nothing, stay `other`', async () => {
    const stack = await startHardeningStack({ fastPath: true });
    try {
      const forged = 'a'.repeat(40);
      for (let i = 0; i < 150; i++) {
        const sent = await Promise.all([
          stack.graphql(`query NoToken${i} { orders(first: 1) { totalCount } }`, undefined, {
            token: null,
          }),
          stack.graphql(`query Forged${i} { orders(first: 1) { totalCount } }`, undefined, {
            token: forged,
          }),
          // The first error is another one; the upstream still refused the token.
          stack.graphql(
            `query Mixed${i} { order(id: "x") { id } orders(first: 1) { totalCount } }`,
            undefined,
            { token: forged },
          ),
          stack.graphql(`query NoCall${i} { __typename }`),
        ]);
        expect(sent.map((one) => one.status)).toEqual([200, 200, 200, 200]);
      }
      const operations = (series: Map<string, number>) =>
        new Set(
          [...series.keys()].flatMap((name) =>
            [...name.matchAll(/operation="([^"]*)"/g)].map((m) => m[1]),
          ),
        );
      const junk = await scrape(stack.gatewayBase);
      expect([...operations(junk.series)]).toEqual(['other']);
      // 600 requests under 450 names: a handful of series, as for one request.
      const graphqlSeries = (series: Map<string, number>) =>
        [...series.keys()].filter((name) => name.startsWith('gateway_graphql_request')).length;
      expect(graphqlSeries(junk.series)).toBeLessThanOrEqual(20);
      expect(
        junk.series.get(
          'gateway_graphql_requests_total{operation="other",outcome="UNAUTHENTICATED"}',
        ),
      ).toBe(300);

      // A caller whose token the upstream accepts still gets its operation's name.
      const real = await stack.graphql('query ListOrders { orders(first: 1) { totalCount } }');
      expect(real.body.errors).toBeUndefined();
      const after = await scrape(stack.gatewayBase);
      expect([...operations(after.series)].sort()).toEqual(['ListOrders', 'other']);
      expect(
        after.series.get('gateway_graphql_requests_total{operation="ListOrders",outcome="ok"}'),
      ).toBe(1);
    } finally {
      await stack.close();
    }
  });
});

describe('turning metrics off or moving them', () => {
  it('METRICS=0 and METRICS_PORT reach the config', () => {
    expect(loadConfig({}).gateway.metrics).toEqual({ path: '/metrics' });
    expect(loadConfig({}).listen.metricsPort).toBeUndefined();
    expect(loadConfig({ METRICS: '0' }).gateway.metrics).toBe(false);
    expect(loadConfig({ METRICS_PORT: '9464' }).listen.metricsPort).toBe(9464);
    expect(() => loadConfig({ METRICS_PORT: 'x' })).toThrow(/METRICS_PORT/);
    expect(loadConfig({}).listen.metricsHost).toBeUndefined();
    expect(
      loadConfig({ HOST: '0.0.0.0', METRICS_PORT: '9464', METRICS_HOST: '127.0.0.1' }).listen
        .metricsHost,
    ).toBe('127.0.0.1');
    expect(() => loadConfig({ METRICS_HOST: '127.0.0.1' })).toThrow(
      /METRICS_HOST needs METRICS_PORT/,
    );
  });

  it('npm start with METRICS_PORT and METRICS_HOST serves them there only', async () => {
    const main = await spawnMain({
      COMMERCE_DB: ':memory:',
      COMMERCE_PORT: '0',
      METRICS_PORT: '0',
      METRICS_HOST: '127.0.0.1',
      OTEL_SDK_DISABLED: 'true',
    });
    try {
      const [, url = ''] = await main.waitFor(/Prometheus metrics:\s+(http:\/\/\S+)/);
      const metricsUrl = new URL(url);
      expect(metricsUrl.hostname).toBe('127.0.0.1');
      expect(metricsUrl.port).not.toBe(new URL(main.url).port);
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('gateway_build_info{');
      expect((await fetch(`${new URL(main.url).origin}/metrics`)).status).toBe(404);
    } finally {
      main.child.kill('SIGKILL');
    }
  });

  it('off: no /metrics and no hook', async () => {
    const stack = await startHardeningStack({ gateway: { metrics: false } });
    try {
      expect((await stack.graphql(ORDERS)).status).toBe(200);
      const response = await fetch(`${stack.gatewayBase}/metrics`);
      expect(response.status).toBe(404);
      expect(await response.text()).not.toContain('gateway_');
    } finally {
      await stack.close();
    }
  });

  it('on a port of its own: served there, not on the gateway port', async () => {
    const stack = await startHardeningStack({ gateway: { metrics: { path: false } } });
    const metricsServer = createServer();
    try {
      const gateway = createGateway({ upstreamUrl: stack.serviceUrl, metrics: { path: false } });
      const metrics = gatewaySettings(gateway)?.metrics;
      if (!metrics) throw new Error('metrics missing');
      metricsServer.on('request', metricsListener(metrics));
      const gatewayServer = createServer(gateway);
      const gatewayBase = `http://127.0.0.1:${await listenOnPort0(gatewayServer)}`;
      const metricsBase = `http://127.0.0.1:${await listenOnPort0(metricsServer)}`;
      try {
        const token = await stack.token();
        const response = await fetch(`${gatewayBase}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ query: ORDERS }),
        });
        expect(response.status).toBe(200);
        expect((await fetch(`${gatewayBase}/metrics`)).status).toBe(404);
        const { series } = await scrape(metricsBase);
        expect(
          series.get('gateway_graphql_requests_total{operation="ListOrders",outcome="ok"}'),
        ).toBe(1);
        expect((await fetch(`${metricsBase}/graphql`)).status).toBe(404);
      } finally {
        await new Promise((resolve) => gatewayServer.close(resolve));
        await gateway.dispose();
      }
    } finally {
      await new Promise((resolve) => metricsServer.close(resolve));
      await stack.close();
    }
  });
});
