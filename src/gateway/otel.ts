/**
 * The OpenTelemetry SDK for `npm start`, built from the `OTEL_*` variables that
 * src/config/index.ts reads (docs/operations.md "Traces"). Imported only when tracing is
 * configured, so a gateway without it never loads the SDK. Nothing is registered globally: the
 * tracer is handed to createGateway.
 *
 * Spans go to the collector over OTLP/HTTP, protobuf (OTLP's default) or JSON, on the
 * exporter's own node:http connections: never through the upstream's pool, whose one origin is
 * the v2 API. A collector that cannot be reached is said in the log, at most once a minute with
 * the number of spans lost since the last such line, never once per span.
 */
import type { Tracer } from '@opentelemetry/api';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import { packageVersion } from './build-info.ts';
import type { Logger } from './logging.ts';

export type TracesSampler =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

/** Tracing settings, from the standard OpenTelemetry SDK variables (a documented subset). */
export interface TracingConfig {
  /** `OTEL_TRACES_EXPORTER`: `otlp` (OTLP over HTTP) or `console`; unset/`none` = off. */
  exporter: 'otlp' | 'console';
  /**
   * `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`: `http/protobuf`
   * (OTLP's default) or `http/json`; `grpc` is refused at startup.
   */
  protocol: 'http/protobuf' | 'http/json';
  /**
   * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as is, else `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`,
   * else `http://localhost:4318/v1/traces`.
   */
  endpoint: string;
  /** `OTEL_EXPORTER_OTLP_TRACES_HEADERS`, else `OTEL_EXPORTER_OTLP_HEADERS` (`k=v,k2=v2`). */
  headers: Readonly<Record<string, string>>;
  /**
   * How long one export may take, retries included, ms: `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT`,
   * else `OTEL_EXPORTER_OTLP_TIMEOUT`, default 10000.
   */
  timeoutMs: number;
  /** `OTEL_SERVICE_NAME`, else `service.name` of the resource attributes, else `commerce-gateway`. */
  serviceName: string;
  /**
   * `OTEL_RESOURCE_ATTRIBUTES` (`key=value,key2=value2`, values percent-decoded), added to the
   * resource of every span; `service.name` and `service.version` are the gateway's own.
   */
  resourceAttributes: Readonly<Record<string, string>>;
  /** `OTEL_TRACES_SAMPLER`, default `parentbased_always_on`. */
  sampler: TracesSampler;
  /** `OTEL_TRACES_SAMPLER_ARG`: the ratio of the ratio samplers, default 1. */
  samplerArg: number;
  /**
   * `TRACE_GRAPHQL_DOCUMENT`: record the document as sent (`graphql.document`, its literal values
   * included) on the request's span. Default off: a document's literals may be a customer's data.
   */
  graphqlDocument: boolean;
}

export interface TracerSetup {
  tracer: Tracer;
  /** Exports what is buffered now. */
  flush(): Promise<void>;
  /** Exports what is still buffered, then stops. */
  shutdown(): Promise<void>;
}

export interface TracerSetupOptions {
  /** Where failed exports are said (warn). Default: nowhere. */
  logger?: Logger | undefined;
  /** Fewest ms between two export-failure lines. Default 60,000. */
  failureLogIntervalMs?: number;
}

/** The endpoint without user, password, query or fragment, for the log. */
function shownEndpoint(endpoint: string): string {
  try {
    const url = new URL(endpoint);
    return `${url.origin}${url.pathname}`;
  } catch {
    return '(invalid)';
  }
}

/**
 * The exporter, telling the log about failed exports: the first at once, then at most one line
 * per `intervalMs` counting the spans lost meanwhile; what is still uncounted at shutdown is
 * said by the first export a minute on, once the collector is back, or at shutdown. The SDK
 * itself only reports to its diagnostic logger, which nothing reads.
 */
function reportingFailures(
  inner: SpanExporter,
  endpoint: string,
  logger: Logger | undefined,
  intervalMs: number,
): SpanExporter {
  let dropped = 0;
  let failures = 0;
  let lastError = '';
  let lastLine = Number.NEGATIVE_INFINITY;
  const say = () => {
    if (dropped === 0) return;
    logger?.log('warn', 'traces: export to the collector failed; spans dropped', {
      endpoint: shownEndpoint(endpoint),
      droppedSpans: dropped,
      failedExports: failures,
      error: lastError.slice(0, 200),
    });
    dropped = 0;
    failures = 0;
    lastLine = Date.now();
  };
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void) {
      inner.export(spans, (result) => {
        if (result.code !== ExportResultCode.SUCCESS) {
          dropped += spans.length;
          failures += 1;
          lastError = result.error?.message ?? 'unknown error';
          if (Date.now() - lastLine >= intervalMs) say();
        } else if (dropped > 0 && Date.now() - lastLine >= intervalMs) {
          // The collector is back: what was lost since the last line is not kept to shutdown.
          say();
        }
        done(result);
      });
    },
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
    async shutdown() {
      await inner.shutdown();
      say();
    },
  };
}

function samplerOf(config: TracingConfig): Sampler {
  const ratio = () => new TraceIdRatioBasedSampler(config.samplerArg);
  switch (config.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio() });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

export async function createTracerSetup(
  config: TracingConfig,
  options: TracerSetupOptions = {},
): Promise<TracerSetup> {
  let exporter: SpanExporter;
  if (config.exporter === 'console') {
    exporter = new ConsoleSpanExporter();
  } else {
    const { OTLPTraceExporter } =
      config.protocol === 'http/json'
        ? await import('@opentelemetry/exporter-trace-otlp-http')
        : await import('@opentelemetry/exporter-trace-otlp-proto');
    exporter = reportingFailures(
      new OTLPTraceExporter({
        url: config.endpoint,
        headers: { ...config.headers },
        timeoutMillis: config.timeoutMs,
      }),
      config.endpoint,
      options.logger,
      options.failureLogIntervalMs ?? 60_000,
    );
  }
  const provider = new BasicTracerProvider({
    // The package's version unless OTEL_RESOURCE_ATTRIBUTES says another (a deployment's own
    // build id); the name is OTEL_SERVICE_NAME's, as the SDK specification orders them.
    resource: resourceFromAttributes({
      'service.version': packageVersion(),
      ...config.resourceAttributes,
      'service.name': config.serviceName,
    }),
    sampler: samplerOf(config),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const version = packageVersion();
  return {
    tracer: provider.getTracer('commerce-gateway', version),
    // A failed export was counted and is said by reportingFailures: flushing never throws, so a
    // collector that is down cannot stop a shutdown half-way.
    flush: () => provider.forceFlush().catch(() => {}),
    shutdown: () => provider.shutdown().catch(() => {}),
  };
}
