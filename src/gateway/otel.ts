/**
 * The OpenTelemetry SDK for `npm start`, built from the `OTEL_*` variables that src/config.ts
 * reads (README "Traces"). Imported only when tracing is configured, so a gateway without it
 * never loads the SDK. Nothing is registered globally: the tracer is handed to createGateway.
 */
import type { Tracer } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import type { TracingConfig } from '../config.ts';

export interface TracerSetup {
  tracer: Tracer;
  /** Exports what is still buffered, then stops. */
  shutdown(): Promise<void>;
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

export async function createTracerSetup(config: TracingConfig): Promise<TracerSetup> {
  let exporter: SpanExporter;
  if (config.exporter === 'console') {
    exporter = new ConsoleSpanExporter();
  } else {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    exporter = new OTLPTraceExporter({ url: config.endpoint, headers: { ...config.headers } });
  }
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName }),
    sampler: samplerOf(config),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  return {
    tracer: provider.getTracer('commerce-gateway'),
    shutdown: () => provider.shutdown(),
  };
}
