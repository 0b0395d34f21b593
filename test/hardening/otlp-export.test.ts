import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type TracingConfig } from '../../src/config/index.ts';
import { createTracerSetup, type TracerSetup } from '../../src/gateway/otel.ts';
import { closedPortUrl } from '../support/fault-upstream.ts';
import { type HardeningStack, startHardeningStack } from '../support/hardening-stack.ts';
import {
  type OtlpReceiver,
  type ReceivedExport,
  SPAN_KIND_CLIENT,
  SPAN_KIND_SERVER,
  startOtlpReceiver,
} from '../support/otlp-receiver.ts';

const VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
const ORDERS = 'query ListOrders { orders(first: 2) { totalCount } }';

function tracingFrom(env: Record<string, string>): TracingConfig {
  const tracing = loadConfig({ OTEL_TRACES_EXPORTER: 'otlp', ...env }).tracing;
  if (tracing === undefined) throw new Error('tracing is off');
  return tracing;
}

for (const [protocol, fastPath, contentType] of [
  ['http/protobuf', true, 'application/x-protobuf'],
  ['http/json', false, 'application/json'],
] as const) {
  describe(`OTLP export over ${protocol} (fast path ${fastPath ? 'on' : 'off'})`, () => {
    let receiver: OtlpReceiver;
    let setup: TracerSetup;
    let stack: HardeningStack;
    let received: ReceivedExport;

    beforeAll(async () => {
      receiver = await startOtlpReceiver();
      setup = await createTracerSetup(
        tracingFrom({
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
          // Left unset for protobuf: OTLP's default protocol is what the gateway sends.
          ...(protocol === 'http/json' ? { OTEL_EXPORTER_OTLP_PROTOCOL: protocol } : {}),
          OTEL_SERVICE_NAME: 'edge-gateway',
          OTEL_RESOURCE_ATTRIBUTES:
            'deployment.environment.name=staging, team = checkout%2Cpayments ,note=a%3Db',
        }),
      );
      stack = await startHardeningStack({ fastPath, gateway: { tracer: setup.tracer } });
      const response = await stack.graphql(ORDERS, undefined, {
        headers: { 'user-agent': 'otlp-test/1.0' },
      });
      expect(response.body.errors).toBeUndefined();
      // Shutting the SDK down exports what it holds.
      await setup.shutdown();
      const found = receiver.exports.find((one) =>
        one.spans.some((span) => span.name === 'query ListOrders'),
      );
      if (found === undefined) throw new Error(`no export: ${JSON.stringify(receiver.exports)}`);
      received = found;
    });
    afterAll(async () => {
      await stack?.close();
      await receiver?.close();
    });

    it(`arrives at /v1/traces as ${contentType}`, () => {
      expect(received.path).toBe('/v1/traces');
      expect(received.contentType).toBe(contentType);
    });

    it('carries the resource: service name and version, OTEL_RESOURCE_ATTRIBUTES decoded', () => {
      expect(received.resource).toMatchObject({
        'service.name': 'edge-gateway',
        'service.version': VERSION,
        'deployment.environment.name': 'staging',
        team: 'checkout,payments',
        note: 'a=b',
      });
    });

    it('the server span has the HTTP and GraphQL conventions’ attributes', () => {
      const server = received.spans.find((span) => span.kind === SPAN_KIND_SERVER);
      const gatewayPort = Number(new URL(stack.gatewayBase).port);
      expect(server?.name).toBe('query ListOrders');
      expect(server?.attributes).toMatchObject({
        'http.request.method': 'POST',
        'url.scheme': 'http',
        'url.path': '/graphql',
        'http.route': '/graphql',
        'server.address': '127.0.0.1',
        'server.port': gatewayPort,
        'user_agent.original': 'otlp-test/1.0',
        'client.address': '127.0.0.1',
        'network.protocol.version': '1.1',
        'http.response.status_code': 200,
        'graphql.operation.type': 'query',
        'graphql.operation.name': 'ListOrders',
      });
      // Never the document (its literals may be a customer's values).
      expect(JSON.stringify(server?.attributes)).not.toContain('totalCount');
    });

    it('the client span has the origin, the route template as url.full, and the status', () => {
      const server = received.spans.find((span) => span.kind === SPAN_KIND_SERVER);
      const client = received.spans.find((span) => span.kind === SPAN_KIND_CLIENT);
      const upstream = new URL(stack.fault?.url ?? stack.serviceUrl);
      expect(client?.name).toBe('GET /v2/orders');
      expect(client?.parentSpanId).toBe(server?.spanId);
      expect(client?.traceId).toBe(server?.traceId);
      expect(client?.attributes).toMatchObject({
        'http.request.method': 'GET',
        'server.address': '127.0.0.1',
        'server.port': Number(upstream.port),
        'url.full': `${upstream.origin}/v2/orders`,
        'url.template': '/v2/orders',
        'http.response.status_code': 200,
      });
      // The real request had a query string (page size): it stays out of the span.
      expect(String(client?.attributes['url.full'])).not.toContain('?');
    });
  });
}

describe('an unreachable collector', () => {
  it('is said in the log once, with the spans dropped counted, not once per span', async () => {
    const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
    const setup = await createTracerSetup(
      tracingFrom({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${await closedPortUrl()}/v1/traces`,
        // Short: no retry fits, each export fails at once.
        OTEL_EXPORTER_OTLP_TIMEOUT: '200',
      }),
      { logger: { log: (level, msg, fields) => lines.push({ level, msg, fields }) } },
    );
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 5; i++) setup.tracer.startSpan(`span ${round}.${i}`).end();
      await setup.flush();
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'warn',
      msg: 'traces: export to the collector failed; spans dropped',
      fields: { droppedSpans: 5, failedExports: 1 },
    });
    expect(String(lines[0]?.fields?.endpoint)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/traces$/);
    // Shutdown says what the minute kept back: every span is counted once.
    await setup.shutdown();
    expect(lines).toHaveLength(2);
    expect(lines[1]?.fields).toMatchObject({ droppedSpans: 10, failedExports: 2 });
  });
});
