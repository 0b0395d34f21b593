import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTypedSchemaSource,
  type TypedSchemaSource,
} from '../../src/gateway/typed-schema-source.ts';
import { schema as baseSchema } from '../../src/schema/index.ts';
import { createUpstream, type Upstream } from '../../src/upstream/index.ts';
import { type HardeningStack, startHardeningStack } from '../support/hardening-stack.ts';
import { type Family, parsePrometheusText } from '../support/prometheus-text.ts';

const VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
const ORDERS = 'query ListOrders { orders(first: 2) { totalCount } }';

describe('/metrics in the exposition format, with what operators look for', () => {
  let stack: HardeningStack;
  let reader: Upstream;
  let schemaSource: TypedSchemaSource;
  let failing = false;
  let families: Map<string, Family>;
  let before: number;
  let after: number;

  const value = (family: string, sample: string, labels: Record<string, string> = {}) =>
    families
      .get(family)
      ?.samples.find(
        (one) =>
          one.name === sample &&
          Object.entries(labels).every(([name, wanted]) => one.labels[name] === wanted),
      )?.value;

  beforeAll(async () => {
    stack = await startHardeningStack({ faults: false });
    // The typed schema's source, as npm start builds it; its reader can be made to fail.
    reader = createUpstream({ url: stack.serviceUrl });
    const definitions = reader.definitions({ clientId: 'demo', clientSecret: 'demo-secret' });
    before = Date.now();
    schemaSource = createTypedSchemaSource({
      base: baseSchema,
      reader: {
        read: () =>
          failing ? Promise.reject(new Error('upstream unreachable')) : definitions.read(),
      },
    });
    await schemaSource.start();
    failing = true;
    await schemaSource.refresh();
    after = Date.now();
    await stack.close();
    stack = await startHardeningStack({ faults: false, gateway: { schemaSource } });
    for (let i = 0; i < 3; i++) {
      expect((await stack.graphql(ORDERS)).body.errors).toBeUndefined();
    }
    const response = await fetch(`${stack.gatewayBase}/metrics`);
    expect(response.status).toBe(200);
    families = parsePrometheusText(await response.text());
  });
  afterAll(async () => {
    await schemaSource?.close();
    await reader?.close();
    await stack?.close();
  });

  it('parses strictly: names, escaping, HELP/TYPE, histograms with le="+Inf"', () => {
    // parsePrometheusText threw otherwise; every family says what it is.
    expect(families.size).toBeGreaterThan(20);
    for (const family of families.values()) {
      expect(family.help, family.name).toBeTruthy();
      expect(family.type, family.name).not.toBe('untyped');
    }
  });

  it('has an upstream latency histogram by method and route template', () => {
    const family = families.get('gateway_upstream_request_duration_seconds');
    expect(family?.type).toBe('histogram');
    const labels = { method: 'GET', route: '/v2/orders' };
    expect(value(family?.name ?? '', `${family?.name}_count`, labels)).toBe(3);
    expect(value(family?.name ?? '', `${family?.name}_bucket`, { ...labels, le: '+Inf' })).toBe(3);
    // Buckets from a millisecond to ten seconds.
    const les = new Set(family?.samples.map((sample) => sample.labels.le).filter(Boolean));
    expect(les).toContain('0.001');
    expect(les).toContain('10');
    expect(value(family?.name ?? '', `${family?.name}_sum`, labels)).toBeGreaterThan(0);
  });

  it('has process and runtime metrics: CPU, memory, event-loop lag, GC', () => {
    expect(families.get('process_cpu_user_seconds_total')?.type).toBe('counter');
    expect(families.get('process_cpu_system_seconds_total')?.type).toBe('counter');
    expect(value('process_resident_memory_bytes', 'process_resident_memory_bytes')).toBeGreaterThan(
      0,
    );
    expect(value('nodejs_heap_size_used_bytes', 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(families.get('nodejs_eventloop_lag_seconds')?.type).toBe('gauge');
    expect(families.get('nodejs_eventloop_lag_p99_seconds')?.type).toBe('gauge');
    expect(families.get('nodejs_gc_duration_seconds')?.type).toBe('histogram');
  });

  it('has gateway_build_info with the package and Node versions', () => {
    expect(
      value('gateway_build_info', 'gateway_build_info', {
        version: VERSION,
        node_version: process.versions.node,
      }),
    ).toBe(1);
  });

  it('has the typed schema’s refreshes by outcome and when the last one ended', () => {
    const name = 'gateway_typed_schema_refreshes_total';
    expect(value(name, name, { outcome: 'success' })).toBe(1);
    expect(value(name, name, { outcome: 'failure' })).toBe(1);
    const last = 'gateway_typed_schema_last_refresh_success';
    expect(value(last, last)).toBe(0);
    const lastAt = value(
      'gateway_typed_schema_last_refresh_timestamp_seconds',
      'gateway_typed_schema_last_refresh_timestamp_seconds',
    );
    const successAt = value(
      'gateway_typed_schema_last_success_timestamp_seconds',
      'gateway_typed_schema_last_success_timestamp_seconds',
    );
    expect(lastAt).toBeGreaterThanOrEqual(before / 1000);
    expect(lastAt).toBeLessThanOrEqual(after / 1000);
    expect(successAt).toBeGreaterThanOrEqual(before / 1000);
    expect(successAt).toBeLessThanOrEqual(lastAt ?? 0);
  });
});

describe('the strict exposition parser', () => {
  it('refuses what a scraper could misread', () => {
    const bad = [
      'no_newline 1',
      'bad-name 1\n',
      'x{a="unterminated} 1\n',
      'x{a="bad \\q escape"} 1\n',
      'x{__reserved="1"} 1\n',
      '# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n',
      '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n',
      '# TYPE c counter\nc 1\n# TYPE g gauge\ng 1\nc 2\n',
      '# TYPE c counter\nc -1\n',
      'x 1\nx 2\n',
    ];
    for (const text of bad) expect(() => parsePrometheusText(text), text).toThrow();
    const good = parsePrometheusText(
      '# HELP h a \\\\ help\\nline\n# TYPE h histogram\nh_bucket{a="x\\"y",le="0.5"} 1\nh_bucket{a="x\\"y",le="+Inf"} 2\nh_sum{a="x\\"y"} 1.5\nh_count{a="x\\"y"} 2\n',
    );
    expect(good.get('h')?.help).toBe('a \\ help\nline');
    expect(good.get('h')?.samples[0]?.labels.a).toBe('x"y');
  });
});
