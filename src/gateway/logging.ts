/**
 * Structured logs: one JSON object per line, written by pino (chosen over a hand-written writer
 * by measurement: docs/benchmarks.md, "Library or hand-written"). Every request produces exactly one
 * `request` line (request id, operation name, duration, HTTP status, upstream calls, error
 * codes). Nothing logged ever contains a bearer token: a `headers` object's credential headers
 * are replaced by pino's `redact`, and every line is scrubbed of anything that looks like a
 * credential before it is written (pino's `redact` only knows keys, not a token inside a
 * message).
 */
import { randomUUID } from 'node:crypto';
import type { Plugin, YogaLogger } from 'graphql-yoga';
import { pino } from 'pino';
import { requestStates } from './request-state.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The lowest level a logger writes (`LOG_LEVEL`): pino's level names, `silent` writes none. */
export type LogThreshold = LogLevel | 'fatal' | 'trace' | 'silent';

export interface Logger {
  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
}

export interface LoggerOptions {
  /** Where lines go. Default: process.stdout. */
  write?: (line: string) => void;
  /** Lowest level written. Default 'info'. */
  level?: LogThreshold;
  /** Fields on every line (a worker's `worker` number under `WORKERS`). Default none. */
  fields?: Record<string, unknown>;
}

// `Bearer <b64token>` anywhere in a string, and JSON-ish "authorization": "…" pairs (also of
// the forwarded credential headers: customer and account-member tokens, and any `…-token`).
const BEARER_PATTERN = /Bearer\s+[A-Za-z0-9\-._~+/]+=*/gi;
const AUTH_FIELD_PATTERN =
  /("?(?:authorization|[a-z0-9-]*-token|password)"?\s*[:=]\s*"?)[^",}\s]+(\s+[^",}\s]+)?/gi;

// What either pattern needs to find in a line before it can match at all: most lines (every
// request line) have none of these words, and one scan for them costs a tenth of the two above.
const SECRET_WORDS = /bearer|authorization|-token|password/i;

/** Removes credentials from a string that is about to leave the process. */
export function scrubSecrets(text: string): string {
  if (!SECRET_WORDS.test(text)) return text;
  return text
    .replace(BEARER_PATTERN, 'Bearer [redacted]')
    .replace(AUTH_FIELD_PATTERN, '$1[redacted]');
}

/** Whether an Error is anywhere in `value` (JSON.stringify would write it as `{}`). */
function containsError(value: unknown, depth = 0): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (value instanceof Error || depth > 8) return true;
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    if (containsError(item, depth + 1)) return true;
  }
  return false;
}

function serialise(value: unknown): unknown {
  if (value instanceof Error) {
    const extra = value as Error & { code?: unknown; reason?: unknown };
    return { name: value.name, message: value.message, code: extra.code, reason: extra.reason };
  }
  return value;
}

/**
 * The fields of a line with every Error, at any depth, reduced to name, message, code and
 * reason (never a stack): pino's serializers see only top-level keys. Fields JSON cannot write
 * around an Error (a cycle, a BigInt) are dropped, as a line must never fail to be written.
 */
function reduceErrors(fields: Record<string, unknown>): Record<string, unknown> {
  if (!containsError(fields)) return fields;
  try {
    return JSON.parse(JSON.stringify(fields, (_key, value) => serialise(value))) as Record<
      string,
      unknown
    >;
  } catch {
    return {};
  }
}

/**
 * The credential headers of a logged `headers` object (lowercase, as node and Fetch name them),
 * replaced by pino's `redact`. The scrub catches authorization, `…-token` and password values
 * under any key too, but not cookies or API keys.
 */
const SECRET_HEADERS = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'x-moltin-customer-token',
  'ep-account-management-authentication-token',
];

let lastMs = Number.NaN;
let lastTime = '';
/** pino's isoTime, the string remembered for the last millisecond (lines of one ms share it). */
function isoTime(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastTime = `,"time":"${new Date(now).toISOString()}"`;
    lastMs = now;
  }
  return lastTime;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const write = options.write ?? ((line: string) => process.stdout.write(line));
  const logger = pino(
    {
      level: options.level ?? 'info',
      base: options.fields ?? null,
      timestamp: isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log: reduceErrors,
      },
      redact: { paths: SECRET_HEADERS.map((name) => `headers["${name}"]`), censor: '[redacted]' },
      hooks: { streamWrite: scrubSecrets },
    },
    { write },
  );
  return {
    log(level, msg, fields = {}) {
      logger[level](fields, msg);
    },
  };
}

/** Yoga's own logger (it reports unexpected errors) routed into the structured log. */
export function createYogaLogger(logger: Logger): YogaLogger {
  const at =
    (level: LogLevel) =>
    (...args: unknown[]) => {
      const [first, ...rest] = args;
      const msg = first instanceof Error ? first.message : String(first);
      logger.log(level, msg, {
        source: 'yoga',
        ...(first instanceof Error ? { error: first } : {}),
        ...(rest.length > 0 ? { details: rest.map(serialise) } : {}),
      });
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The path of an absolute request URL; URL parsing only when it needs normalising. */
function pathOf(url: string): string {
  const scheme = url.indexOf('://');
  const start = scheme === -1 ? -1 : url.indexOf('/', scheme + 3);
  if (start === -1) return new URL(url, 'http://localhost').pathname;
  let end = url.indexOf('?', start);
  if (end === -1) end = url.indexOf('#', start);
  const path = end === -1 ? url.slice(start) : url.slice(start, end);
  return /[%.\\#]/.test(path) ? new URL(url, 'http://localhost').pathname : path;
}
const OPERATION_NAME = /^\s*(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/;

/**
 * The operation name a request asks for: its `operationName`, else the name of a document that
 * starts with a named operation. Read from the params, before (or without) parsing.
 */
export function requestedOperationName(params: {
  operationName?: unknown;
  query?: unknown;
}): string | undefined {
  if (typeof params.operationName === 'string' && params.operationName !== '') {
    return params.operationName;
  }
  return typeof params.query === 'string' ? OPERATION_NAME.exec(params.query)?.[1] : undefined;
}

/** What one request line says (the plugin's, and the direct lane's: ./compiled/lane.ts). */
export interface RequestLine {
  requestId: string;
  method: string;
  path: string;
  operationName: string | undefined;
  status: number;
  /** performance.now() when the request began. */
  started: number;
  upstreamCalls: number;
  errorCodes: readonly string[];
  traceId?: string | undefined;
}

/** Writes the `request` line. */
export function writeRequestLine(logger: Logger, line: RequestLine): void {
  logger.log('info', 'request', {
    requestId: line.requestId,
    method: line.method,
    path: line.path,
    operationName: line.operationName ?? null,
    // nginx's 499: the client went away, so the status above it was never delivered.
    status: line.errorCodes.includes('CLIENT_CLOSED_REQUEST') ? 499 : line.status,
    durationMs: Math.round((performance.now() - line.started) * 100) / 100,
    upstreamCalls: line.upstreamCalls,
    ...(line.errorCodes.length > 0 ? { errors: [...new Set(line.errorCodes)] } : {}),
    ...(line.traceId === undefined ? {} : { traceId: line.traceId }),
  });
}

interface RequestState {
  started: number;
  /** The incoming id or the context's; made at the end only for a request that had neither. */
  requestId: string | undefined;
  operationName: string | undefined;
  context: { requestId?: unknown; budget?: { used?: unknown } } | undefined;
  errorCodes: string[];
}

export interface RequestLogOptions {
  logger: Logger;
  /** Paths that are not logged (health probes would drown the log). Default /healthz, /readyz. */
  quietPaths?: string[];
  /** The request's trace id when tracing (src/gateway/tracing.ts), logged as `traceId`. */
  traceIdOf?: (request: Request) => string | undefined;
}

/**
 * One `request` line per HTTP request, written when the response is ready, and the request id
 * echoed in an `x-request-id` response header. The id is the context's (which honours a
 * well-formed incoming `x-request-id`), or a fresh one when the request never reached execution.
 */
export function requestLogPlugin(options: RequestLogOptions): Plugin {
  const states = requestStates<RequestState>('logging');
  const quiet = new Set(options.quietPaths ?? ['/healthz', '/readyz']);
  return {
    onRequest({ request }) {
      const incoming = request.headers.get('x-request-id');
      states.set(request, {
        started: performance.now(),
        // Most requests reach execution, whose context has an id (the incoming one, or its own).
        requestId: incoming && REQUEST_ID.test(incoming) ? incoming : undefined,
        operationName: undefined,
        context: undefined,
        errorCodes: [],
      });
    },
    onParams({ params, request }) {
      const state = states.get(request);
      if (!state) return;
      state.operationName = requestedOperationName(params)?.slice(0, 100);
    },
    onExecute({ args }) {
      const context = args.contextValue as RequestState['context'] & { request?: Request };
      const request = context?.request;
      const state = request ? states.get(request) : undefined;
      if (!state) return;
      state.context = context;
      if (typeof context?.requestId === 'string') state.requestId = context.requestId;
    },
    onResultProcess({ request, result }) {
      const state = states.get(request);
      const results = Array.isArray(result) ? result : [result];
      for (const one of results) {
        const errors = (one as { errors?: readonly { extensions?: { code?: unknown } }[] }).errors;
        for (const error of errors ?? []) {
          const code = error.extensions?.code;
          if (state && typeof code === 'string') state.errorCodes.push(code);
        }
      }
    },
    onResponse({ request, response }) {
      const state = states.get(request);
      if (!state) return;
      states.delete(request);
      state.requestId ??= randomUUID();
      response.headers.set('x-request-id', state.requestId);
      const path = pathOf(request.url);
      if (quiet.has(path)) return;
      const used = state.context?.budget?.used;
      writeRequestLine(options.logger, {
        requestId: state.requestId,
        method: request.method,
        path,
        operationName: state.operationName,
        status: response.status,
        started: state.started,
        upstreamCalls: typeof used === 'number' ? used : 0,
        errorCodes: state.errorCodes,
        traceId: options.traceIdOf?.(request),
      });
    },
  };
}
