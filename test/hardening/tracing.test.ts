import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { type HardeningStack, startHardeningStack } from '../support/hardening-stack.ts';

const ORDERS = 'query ListOrders { orders(first: 2) { totalCount } }';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

function requestLog(stack: HardeningStack, requestId: string) {
  return stack.logs.find((line) => line.msg === 'request' && line.requestId === requestId);
}

for (const fastPath of [false, true]) {
  describe(`traces (fast path ${fastPath ? 'on' : 'off'})`, () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    let stack: HardeningStack;

    beforeAll(async () => {
      stack = await startHardeningStack({
        fastPath,
        gateway: {
          tracer: provider.getTracer('test'),
          resilience: { backoffBaseMs: 1, backoffMaxMs: 2 },
        },
      });
      await stack.token();
    });
    afterAll(async () => {
      await stack.close();
      await provider.shutdown();
    });
    beforeEach(() => exporter.reset());

    const spansOf = (traceId: string): ReadableSpan[] =>
      exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);

    it('a span per operation, a child span per upstream call, traceparent to the upstream', async () => {
      const before = stack.serviceRequests.length;
      const response = await stack.graphql(ORDERS, undefined, {
        headers: { 'x-request-id': 'trace-one' },
      });
      expect(response.body.errors).toBeUndefined();
      // The caller gets no trace context back.
      expect(response.headers.get('traceparent')).toBeNull();

      const server = exporter
        .getFinishedSpans()
        .find((span) => span.kind === SpanKind.SERVER && span.name === 'query ListOrders');
      if (!server) throw new Error('no operation span');
      const traceId = server.spanContext().traceId;
      expect(server.attributes['graphql.operation.name']).toBe('ListOrders');
      expect(server.attributes['graphql.operation.type']).toBe('query');
      expect(server.attributes['http.response.status_code']).toBe(200);
      // The document is not recorded unless asked for (its literals may be a customer's values).
      expect(server.attributes['graphql.document']).toBeUndefined();
      expect(server.status.code).not.toBe(SpanStatusCode.ERROR);
      expect(server.parentSpanContext).toBeUndefined();

      const clients = spansOf(traceId).filter((span) => span.kind === SpanKind.CLIENT);
      expect(clients.map((span) => span.name)).toEqual(['GET /v2/orders']);
      const [client] = clients as [ReadableSpan];
      expect(client.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
      expect(client.attributes['http.response.status_code']).toBe(200);
      expect(client.attributes['url.template']).toBe('/v2/orders');

      // The upstream received the client span's context, nothing else did.
      const upstream = stack.serviceRequests.slice(before);
      expect(upstream).toHaveLength(1);
      const match = TRACEPARENT.exec(String(upstream[0]?.headers.traceparent));
      expect(match?.[1]).toBe(traceId);
      expect(match?.[2]).toBe(client.spanContext().spanId);

      // The request's log line carries the trace id.
      expect(requestLog(stack, 'trace-one')?.traceId).toBe(traceId);
    });

    it('joins the caller’s trace from an incoming traceparent', async () => {
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const parentId = '00f067aa0ba902b7';
      const before = stack.serviceRequests.length;
      await stack.graphql(ORDERS, undefined, {
        headers: { traceparent: `00-${traceId}-${parentId}-01`, 'x-request-id': 'trace-two' },
      });
      const server = spansOf(traceId).find((span) => span.kind === SpanKind.SERVER);
      expect(server?.parentSpanContext?.spanId).toBe(parentId);
      const sent = String(stack.serviceRequests[before]?.headers.traceparent);
      expect(sent.startsWith(`00-${traceId}-`)).toBe(true);
      // The caller's own span id is not what the upstream sees: the gateway's client span is.
      expect(sent).not.toContain(parentId);
      expect(requestLog(stack, 'trace-two')?.traceId).toBe(traceId);
    });

    it('retries are sibling spans with a resend count; failures are marked', async () => {
      const remove = stack.fault?.add({
        method: 'GET',
        path: /^\/v2\/orders$/,
        sequence: [{ kind: 'status', status: 503 }],
      });
      try {
        const response = await stack.graphql(ORDERS);
        expect(response.body.errors).toBeUndefined();
      } finally {
        remove?.();
      }
      const clients = exporter
        .getFinishedSpans()
        .filter((span) => span.kind === SpanKind.CLIENT)
        .sort(
          (a, b) =>
            Number(a.attributes['http.request.resend_count'] ?? 0) -
            Number(b.attributes['http.request.resend_count'] ?? 0),
        );
      expect(clients).toHaveLength(2);
      const [first, retry] = clients as [ReadableSpan, ReadableSpan];
      expect(first.attributes['http.response.status_code']).toBe(503);
      expect(first.attributes['error.type']).toBe('503');
      expect(first.status.code).toBe(SpanStatusCode.ERROR);
      expect(retry.attributes['http.request.resend_count']).toBe(1);
      expect(retry.attributes['http.response.status_code']).toBe(200);
      expect(retry.parentSpanContext?.spanId).toBe(first.parentSpanContext?.spanId);
    });

    it('an operation that fails carries its error code', async () => {
      const response = await stack.graphql(ORDERS, undefined, { token: null });
      expect(response.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      const server = exporter.getFinishedSpans().find((span) => span.kind === SpanKind.SERVER);
      expect(server?.status.code).toBe(SpanStatusCode.ERROR);
      expect(server?.attributes['error.type']).toBe('UNAUTHENTICATED');
    });

    it('health probes and their upstream probe are not traced', async () => {
      const before = stack.serviceRequests.length;
      expect((await fetch(`${stack.gatewayBase}/readyz`)).status).toBe(200);
      expect(exporter.getFinishedSpans()).toEqual([]);
      for (const request of stack.serviceRequests.slice(before)) {
        expect(request.headers.traceparent).toBeUndefined();
      }
    });
  });
}

describe('TRACE_GRAPHQL_DOCUMENT', () => {
  for (const fastPath of [false, true]) {
    it(`records the document as sent on the request's span (fast path ${fastPath ? 'on' : 'off'})`, async () => {
      const exporter = new InMemorySpanExporter();
      const provider = new BasicTracerProvider({
        spanProcessors: [new SimpleSpanProcessor(exporter)],
      });
      const stack = await startHardeningStack({
        fastPath,
        gateway: { tracer: provider.getTracer('test'), traceGraphqlDocument: true },
      });
      try {
        await stack.graphql(ORDERS);
        const server = exporter.getFinishedSpans().find((span) => span.kind === SpanKind.SERVER);
        expect(server?.attributes['graphql.document']).toBe(ORDERS);
      } finally {
        await stack.close();
        await provider.shutdown();
      }
    });
  }
});

describe('tracing off', () => {
  let stack: HardeningStack;
  beforeAll(async () => {
    stack = await startHardeningStack({ fastPath: true });
  });
  afterAll(() => stack.close());

  it('sends no traceparent upstream and logs no trace id', async () => {
    const before = stack.serviceRequests.length;
    await stack.graphql(ORDERS, undefined, {
      headers: {
        'x-request-id': 'untraced',
        traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      },
    });
    const upstream = stack.serviceRequests.slice(before);
    expect(upstream.length).toBeGreaterThan(0);
    for (const request of upstream) expect(request.headers.traceparent).toBeUndefined();
    const line = requestLog(stack, 'untraced');
    expect(line).toBeDefined();
    expect(line).not.toHaveProperty('traceId');
  });
});

describe('OTEL_* configuration', () => {
  const tracing = (env: Record<string, string>) => loadConfig(env).tracing;

  it('is off unless an exporter is named', () => {
    expect(tracing({})).toBeUndefined();
    expect(tracing({ OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(tracing({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
  });

  it('reads the endpoint, headers, service name and sampler', () => {
    expect(tracing({ OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({
      exporter: 'otlp',
      endpoint: 'http://localhost:4318/v1/traces',
      protocol: 'http/protobuf',
      timeoutMs: 10_000,
      headers: {},
      serviceName: 'commerce-gateway',
      resourceAttributes: {},
      sampler: 'parentbased_always_on',
      samplerArg: 1,
      graphqlDocument: false,
    });
    expect(
      tracing({
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=abc%3D,tenant=shop',
        OTEL_SERVICE_NAME: 'edge-gateway',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TIMEOUT: '2500',
        OTEL_RESOURCE_ATTRIBUTES: 'service.name=ignored,region=eu%2Dwest,,k8s.pod.name = p-1 ',
      }),
    ).toEqual({
      exporter: 'otlp',
      endpoint: 'http://collector:4318/v1/traces',
      protocol: 'http/json',
      timeoutMs: 2500,
      headers: { 'x-api-key': 'abc=', tenant: 'shop' },
      serviceName: 'edge-gateway',
      resourceAttributes: { 'service.name': 'ignored', region: 'eu-west', 'k8s.pod.name': 'p-1' },
      sampler: 'parentbased_traceidratio',
      samplerArg: 0.25,
      graphqlDocument: false,
    });
    expect(
      tracing({ OTEL_TRACES_EXPORTER: 'otlp', TRACE_GRAPHQL_DOCUMENT: '1' })?.graphqlDocument,
    ).toBe(true);
    expect(
      tracing({
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:9999/custom',
      })?.endpoint,
    ).toBe('http://traces:9999/custom');
    // service.name from the resource attributes when OTEL_SERVICE_NAME is unset (the SDK's order).
    expect(
      tracing({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_RESOURCE_ATTRIBUTES: 'service.name=shop-edge' })
        ?.serviceName,
    ).toBe('shop-edge');
    expect(
      tracing({
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf',
      })?.protocol,
    ).toBe('http/protobuf');
  });

  it('refuses what it does not support, with the variable named', () => {
    expect(() => tracing({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER/);
    expect(() =>
      tracing({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
    ).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL: grpc is not supported; use http\/protobuf/);
    expect(() =>
      tracing({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'thrift' }),
    ).toThrow(/OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be http\/protobuf or http\/json/);
    expect(() =>
      tracing({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_RESOURCE_ATTRIBUTES: 'region=eu,oops' }),
    ).toThrow(/OTEL_RESOURCE_ATTRIBUTES must be a list of key=value pairs, got "oops"/);
    expect(() =>
      tracing({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_RESOURCE_ATTRIBUTES: 'region=%E0%A4%A' }),
    ).toThrow(/OTEL_RESOURCE_ATTRIBUTES: the value of "region" is not percent-encoded/);
    expect(() =>
      tracing({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TIMEOUT: 'soon' }),
    ).toThrow(/OTEL_EXPORTER_OTLP_TIMEOUT/);
    expect(() => tracing({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'maybe' })).toThrow(
      /OTEL_TRACES_SAMPLER/,
    );
    expect(() => tracing({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(
      /OTEL_TRACES_SAMPLER_ARG/,
    );
  });
});
