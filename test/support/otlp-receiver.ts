/**
 * An in-process OTLP/HTTP trace receiver (node:http, port 0) for the tracing tests: it keeps
 * every export it gets and decodes it, JSON (`http/json`) or protobuf (`http/protobuf`), into
 * one shape. The protobuf reader is a strict decoder of the wire format for the messages of
 * opentelemetry/proto/collector/trace/v1 (ExportTraceServiceRequest down to AnyValue): the
 * OpenTelemetry packages encode protobuf but ship no decoder.
 */
import { createServer } from 'node:http';
import { listenOnPort0 } from './hardening-stack.ts';

export type AttributeValue = string | number | boolean | undefined;

export interface ReceivedSpan {
  name: string;
  /** OTLP's SpanKind: 2 server, 3 client. */
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, AttributeValue>;
}

export interface ReceivedExport {
  path: string;
  contentType: string;
  resource: Record<string, AttributeValue>;
  spans: ReceivedSpan[];
}

export interface OtlpReceiver {
  url: string;
  exports: ReceivedExport[];
  close(): Promise<void>;
}

export const SPAN_KIND_SERVER = 2;
export const SPAN_KIND_CLIENT = 3;

// --- protobuf wire format -------------------------------------------------------------------

interface Field {
  number: number;
  /** Varints as bigint; length-delimited as bytes; fixed64/fixed32 as bytes too. */
  value: bigint | Buffer;
}

function readVarint(buffer: Buffer, at: { offset: number }): bigint {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (at.offset >= buffer.length) throw new Error('protobuf: truncated varint');
    const byte = buffer[at.offset++] as number;
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return result;
    shift += 7n;
    if (shift > 63n) throw new Error('protobuf: varint too long');
  }
}

function fields(buffer: Buffer): Field[] {
  const out: Field[] = [];
  const at = { offset: 0 };
  while (at.offset < buffer.length) {
    const tag = Number(readVarint(buffer, at));
    const number = tag >>> 3;
    const wire = tag & 7;
    if (number === 0) throw new Error('protobuf: field number 0');
    let value: bigint | Buffer;
    if (wire === 0) value = readVarint(buffer, at);
    else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      value = buffer.subarray(at.offset, at.offset + size);
      at.offset += size;
    } else if (wire === 2) {
      const length = Number(readVarint(buffer, at));
      value = buffer.subarray(at.offset, at.offset + length);
      at.offset += length;
    } else throw new Error(`protobuf: unsupported wire type ${wire}`);
    if (at.offset > buffer.length) throw new Error('protobuf: truncated field');
    out.push({ number, value });
  }
  return out;
}

const bytesOf = (field: Field): Buffer => {
  if (!Buffer.isBuffer(field.value)) throw new Error(`protobuf: field ${field.number} not bytes`);
  return field.value;
};

function anyValue(buffer: Buffer): AttributeValue {
  for (const field of fields(buffer)) {
    if (field.number === 1) return bytesOf(field).toString('utf8');
    if (field.number === 2) return field.value === 1n;
    if (field.number === 3) return Number(BigInt.asIntN(64, field.value as bigint));
    if (field.number === 4) return bytesOf(field).readDoubleLE(0);
  }
  return undefined;
}

function keyValue(buffer: Buffer): [string, AttributeValue] {
  let key = '';
  let value: AttributeValue;
  for (const field of fields(buffer)) {
    if (field.number === 1) key = bytesOf(field).toString('utf8');
    if (field.number === 2) value = anyValue(bytesOf(field));
  }
  return [key, value];
}

function protobufSpan(buffer: Buffer): ReceivedSpan {
  const span: ReceivedSpan = {
    name: '',
    kind: 0,
    traceId: '',
    spanId: '',
    parentSpanId: '',
    attributes: {},
  };
  for (const field of fields(buffer)) {
    if (field.number === 1) span.traceId = bytesOf(field).toString('hex');
    else if (field.number === 2) span.spanId = bytesOf(field).toString('hex');
    else if (field.number === 4) span.parentSpanId = bytesOf(field).toString('hex');
    else if (field.number === 5) span.name = bytesOf(field).toString('utf8');
    else if (field.number === 6) span.kind = Number(field.value);
    else if (field.number === 9) {
      const [key, value] = keyValue(bytesOf(field));
      span.attributes[key] = value;
    }
  }
  return span;
}

function decodeProtobuf(body: Buffer): Omit<ReceivedExport, 'path' | 'contentType'>[] {
  return fields(body)
    .filter((field) => field.number === 1)
    .map((resourceSpans) => {
      const resource: Record<string, AttributeValue> = {};
      const spans: ReceivedSpan[] = [];
      for (const field of fields(bytesOf(resourceSpans))) {
        if (field.number === 1) {
          for (const attribute of fields(bytesOf(field)).filter((f) => f.number === 1)) {
            const [key, value] = keyValue(bytesOf(attribute));
            resource[key] = value;
          }
        } else if (field.number === 2) {
          for (const span of fields(bytesOf(field)).filter((f) => f.number === 2)) {
            spans.push(protobufSpan(bytesOf(span)));
          }
        }
      }
      return { resource, spans };
    });
}

// --- JSON -------------------------------------------------------------------------------------

interface JsonKeyValue {
  key: string;
  value: {
    stringValue?: string;
    boolValue?: boolean;
    intValue?: number | string;
    doubleValue?: number;
  };
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) {
    out[key] =
      value.stringValue ??
      value.boolValue ??
      (value.intValue === undefined ? value.doubleValue : Number(value.intValue));
  }
  return out;
}

function decodeJson(body: Buffer): Omit<ReceivedExport, 'path' | 'contentType'>[] {
  const parsed = JSON.parse(body.toString('utf8')) as {
    resourceSpans: {
      resource?: { attributes?: JsonKeyValue[] };
      scopeSpans?: {
        spans?: {
          name: string;
          kind: number;
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          attributes?: JsonKeyValue[];
        }[];
      }[];
    }[];
  };
  return parsed.resourceSpans.map((resourceSpans) => ({
    resource: jsonAttributes(resourceSpans.resource?.attributes),
    spans: (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        name: span.name,
        kind: span.kind,
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        attributes: jsonAttributes(span.attributes),
      })),
    ),
  }));
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: ReceivedExport[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = req.headers['content-type'] ?? '';
      const decoded = contentType.startsWith('application/json')
        ? decodeJson(body)
        : decodeProtobuf(body);
      for (const one of decoded) exports.push({ path: req.url ?? '', contentType, ...one });
      // An empty ExportTraceServiceResponse: zero bytes in protobuf, `{}` in JSON.
      res.writeHead(200, { 'content-type': contentType });
      res.end(contentType.startsWith('application/json') ? '{}' : '');
    });
  });
  const port = await listenOnPort0(server);
  return {
    url: `http://127.0.0.1:${port}`,
    exports,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
