/**
 * Prometheus metrics, kept as plain numbers and written in the text exposition format on
 * `GET /metrics` (or on a port of their own: `metricsListener`).
 *
 * The gateway's selling point is CPU per request, so collecting costs a few number increments
 * in hooks that run anyway: one small state object per request, two `performance.now()` calls,
 * Map lookups (an upstream call's key is its route template, which the upstream layer gives).
 * Everything is formatted only when scraped.
 *
 * No label ever carries a token, an id or a customer's value:
 * - `operation` is the name of an operation that passed validation (a GraphQL name from the
 *   document, at most 100 characters), for the first `maxOperationNames` distinct names whose
 *   operation proved its caller: it made an upstream call and no error said UNAUTHENTICATED, so
 *   the upstream accepted the credentials. Other names are `other` until such an operation
 *   admits them, so callers without a valid token (and documents that never call the upstream)
 *   cannot take the label values for good; unnamed operations are `anonymous`;
 * - `outcome` is `ok` or the first error's `extensions.code` when it looks like a code
 *   (`[A-Z][A-Z0-9_]*`, at most 64 distinct), else `ERROR`; a client that went away before its
 *   answer is `CLIENT_CLOSED_REQUEST`, not an upstream failure;
 * - upstream routes are templates (`/v2/orders/{id}`: src/upstream/observer.ts), statuses are
 *   numbers or one of the client's failure reasons (`timeout`, `connect`, `reset`, `aborted` for
 *   a call the gateway cancelled, `client-closed` for one whose client went away, …).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import type { BreakerState, UpstreamAttempt, UpstreamObserver } from '../upstream/index.ts';
import { requestedOperationName } from './logging.ts';

export interface MetricsOptions {
  /**
   * Distinct operation names kept as label values (admitted only by operations that proved their
   * caller); later ones count as `other`. Default 100.
   */
  maxOperationNames?: number;
  /** Path served by `plugin` (GET and HEAD). Default `/metrics`; `false` serves nothing. */
  path?: string | false;
}

export interface Metrics {
  /** Collects per-request metrics and, unless `path` is false, answers `GET /metrics`. */
  readonly plugin: Plugin;
  /** Counts upstream attempts (given to the upstream's front door, src/upstream/index.ts). */
  readonly observer: UpstreamObserver;
  /** Where the circuit breaker's state is read at scrape time (createGateway sets it). */
  breakerState: (() => BreakerState) | undefined;
  /** The exposition text of every metric now. */
  render(): string;
}

/** Seconds; Prometheus' default buckets. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Upstream calls one operation made (its budget's `used`; one bucket at DEFAULT_CALL_BUDGET). */
const CALL_BUCKETS = [0, 1, 2, 5, 10, 20, 50, 100];
const MAX_OUTCOMES = 64;
const CODE = /^[A-Z][A-Z0-9_]{0,63}$/;
export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

class Histogram {
  /** Per-bucket counts (not cumulative), the last one for +Inf. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  readonly bounds: readonly number[];
  constructor(bounds: readonly number[]) {
    this.bounds = bounds;
    this.counts = new Float64Array(bounds.length + 1);
  }
  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    this.counts[i] = (this.counts[i] as number) + 1;
    this.sum += value;
    this.count += 1;
  }
  write(lines: string[], name: string, labels: string): void {
    const sep = labels === '' ? '' : ',';
    let cumulative = 0;
    for (let i = 0; i < this.bounds.length; i++) {
      cumulative += this.counts[i] as number;
      lines.push(`${name}_bucket{${labels}${sep}le="${this.bounds[i]}"} ${cumulative}`);
    }
    lines.push(`${name}_bucket{${labels}${sep}le="+Inf"} ${this.count}`);
    const braces = labels === '' ? '' : `{${labels}}`;
    lines.push(`${name}_sum${braces} ${this.sum}`, `${name}_count${braces} ${this.count}`);
  }
}

interface Operation {
  readonly label: string;
  readonly outcomes: Map<string, number>;
  readonly latency: Histogram;
}

interface RequestState {
  started: number;
  /** The operation executed (passed validation), under this name (undefined: unnamed). */
  executed: boolean;
  name: string | undefined;
  /** Some error of the answer says UNAUTHENTICATED: the upstream refused the credentials. */
  unauthenticated: boolean;
  /** The request's params, read only when no operation executed (to tell named from not). */
  params: { operationName?: unknown; query?: unknown } | undefined;
  outcome: string | undefined;
  /** A GraphQL result was produced (not GraphiQL, health, an asset…). */
  graphql: boolean;
  budget: { readonly used: number } | undefined;
}

/** method → status (number, or a failure reason) → attempts, of one route template. */
type RouteCalls = Map<string, Map<number | string, number>>;

/** A label value as the exposition format wants it (ours are bounded, but escape anyway). */
function escapeLabel(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

function operationName(args: {
  operationName?: string | null | undefined;
  document?: { definitions: readonly { kind: string; name?: { value: string } }[] };
}): string | undefined {
  if (typeof args.operationName === 'string' && args.operationName !== '') {
    return args.operationName;
  }
  let found: string | undefined;
  for (const definition of args.document?.definitions ?? []) {
    if (definition.kind !== 'OperationDefinition') continue;
    if (found !== undefined) return undefined;
    found = definition.name?.value ?? '';
  }
  return found === '' ? undefined : found;
}

function saysUnauthenticated(result: unknown): boolean {
  const one = Array.isArray(result) ? result[0] : result;
  const errors = (one as { errors?: readonly { extensions?: { code?: unknown } }[] } | null)
    ?.errors;
  return errors?.some((error) => error.extensions?.code === 'UNAUTHENTICATED') ?? false;
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const maxNames = options.maxOperationNames ?? 100;
  const path = options.path === undefined ? '/metrics' : options.path;
  const newOperation = (label: string): Operation => ({
    label,
    outcomes: new Map(),
    latency: new Histogram(LATENCY_BUCKETS),
  });
  const operations = new Map<string, Operation>();
  const other = newOperation('other');
  const anonymous = newOperation('anonymous');
  const outcomes = new Set<string>();
  const callsPerOperation = new Histogram(CALL_BUCKETS);
  const routes = new Map<string, RouteCalls>();
  const retries = new Map<string, number>();
  let rateLimited = 0;
  let inFlight = 0;
  const states = new WeakMap<Request, RequestState>();

  /**
   * The operation of a name that executed: one already admitted, else admitted while there is
   * room if the request proved its caller (see the top of this file), else `other`.
   */
  const executed = (name: string | undefined, proved: boolean): Operation => {
    if (name === undefined) return anonymous;
    let operation = operations.get(name);
    if (operation === undefined) {
      if (!proved || operations.size >= maxNames || name.length > 100) return other;
      operation = newOperation(name);
      operations.set(name, operation);
    }
    return operation;
  };

  /**
   * A request that never executed (bad document, refused, no params): its name is not proved
   * real, so only a name already admitted is used; any other is `other`.
   */
  const unexecuted = (params: RequestState['params']): Operation => {
    const name = params === undefined ? undefined : requestedOperationName(params);
    return name === undefined ? anonymous : (operations.get(name) ?? other);
  };

  const outcomeOf = (result: unknown): string => {
    const one = Array.isArray(result) ? result[0] : result;
    const errors = (one as { errors?: readonly { extensions?: { code?: unknown } }[] } | null)
      ?.errors;
    if (errors === undefined || errors.length === 0) return 'ok';
    const code = errors[0]?.extensions?.code;
    if (typeof code !== 'string' || !CODE.test(code)) return 'ERROR';
    if (outcomes.has(code)) return code;
    if (outcomes.size >= MAX_OUTCOMES) return 'ERROR';
    outcomes.add(code);
    return code;
  };

  const plugin: Plugin = {
    onRequest({ request, url, endResponse, fetchAPI }) {
      // Method first: on the fast path `url` is parsed only when read, and POSTs never are.
      if (
        path !== false &&
        (request.method === 'GET' || request.method === 'HEAD') &&
        url.pathname === path
      ) {
        endResponse(
          new fetchAPI.Response(request.method === 'HEAD' ? null : render(), {
            status: 200,
            headers: { 'content-type': CONTENT_TYPE, 'cache-control': 'no-store' },
          }),
        );
        return;
      }
      inFlight += 1;
      states.set(request, {
        started: performance.now(),
        executed: false,
        name: undefined,
        unauthenticated: false,
        params: undefined,
        outcome: undefined,
        graphql: false,
        budget: undefined,
      });
    },
    onParams({ params, request }) {
      const state = states.get(request);
      if (state !== undefined) state.params = params;
    },
    onExecute({ args }) {
      const context = args.contextValue as {
        request?: Request;
        budget?: { readonly used: number };
      };
      const state = context.request ? states.get(context.request) : undefined;
      if (state === undefined) return;
      state.executed = true;
      state.name = operationName(args);
      state.budget = context.budget;
    },
    onResultProcess({ request, result }) {
      const state = states.get(request);
      if (state === undefined) return;
      state.graphql = true;
      state.outcome = outcomeOf(result);
      if (state.outcome !== 'ok') state.unauthenticated = saysUnauthenticated(result);
    },
    onResponse({ request, response }) {
      const state = states.get(request);
      if (state === undefined) return;
      states.delete(request);
      inFlight -= 1;
      if (!state.graphql) return;
      const operation = state.executed
        ? executed(state.name, (state.budget?.used ?? 0) > 0 && !state.unauthenticated)
        : unexecuted(state.params);
      let outcome = state.outcome ?? 'ok';
      if (outcome === 'ok' && response.status >= 400) outcome = 'ERROR';
      operation.outcomes.set(outcome, (operation.outcomes.get(outcome) ?? 0) + 1);
      operation.latency.observe((performance.now() - state.started) / 1000);
      if (state.budget !== undefined) callsPerOperation.observe(state.budget.used);
    },
  };

  const observer: UpstreamObserver = {
    attemptEnd(attempt: UpstreamAttempt) {
      const { method, status } = attempt;
      let calls = routes.get(attempt.route);
      if (calls === undefined) {
        calls = new Map();
        routes.set(attempt.route, calls);
      }
      let byStatus = calls.get(method);
      if (byStatus === undefined) {
        byStatus = new Map();
        calls.set(method, byStatus);
      }
      const key: number | string =
        status > 0
          ? status
          : ((attempt.error as { reason?: string } | undefined)?.reason ?? 'error');
      byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
      if (attempt.retry > 0) retries.set(method, (retries.get(method) ?? 0) + 1);
      if (status === 429) rateLimited += 1;
    },
  };

  const metrics: Metrics = {
    plugin,
    observer,
    breakerState: undefined,
    render,
  };

  function render(): string {
    const lines: string[] = [];
    const all = [...operations.values(), other, anonymous];

    lines.push(
      '# HELP gateway_graphql_requests_total GraphQL requests by operation name and outcome (ok or the first error code).',
      '# TYPE gateway_graphql_requests_total counter',
    );
    for (const operation of all) {
      const op = escapeLabel(operation.label);
      for (const [outcome, count] of operation.outcomes) {
        lines.push(
          `gateway_graphql_requests_total{operation="${op}",outcome="${escapeLabel(outcome)}"} ${count}`,
        );
      }
    }
    lines.push(
      '# HELP gateway_graphql_request_duration_seconds Time from request to response of GraphQL requests.',
      '# TYPE gateway_graphql_request_duration_seconds histogram',
    );
    for (const operation of all) {
      if (operation.latency.count === 0) continue;
      operation.latency.write(
        lines,
        'gateway_graphql_request_duration_seconds',
        `operation="${escapeLabel(operation.label)}"`,
      );
    }
    lines.push(
      '# HELP gateway_graphql_upstream_calls_per_operation Upstream calls (retries not counted) one executed operation made.',
      '# TYPE gateway_graphql_upstream_calls_per_operation histogram',
    );
    callsPerOperation.write(lines, 'gateway_graphql_upstream_calls_per_operation', '');
    lines.push(
      '# HELP gateway_http_requests_in_flight HTTP requests being served now (scrapes excluded).',
      '# TYPE gateway_http_requests_in_flight gauge',
      `gateway_http_requests_in_flight ${inFlight}`,
    );

    lines.push(
      '# HELP gateway_upstream_requests_total Upstream HTTP attempts by method, route template and status (or failure reason).',
      '# TYPE gateway_upstream_requests_total counter',
    );
    for (const template of [...routes.keys()].sort()) {
      for (const [method, byStatus] of routes.get(template) ?? []) {
        for (const [status, count] of byStatus) {
          lines.push(
            `gateway_upstream_requests_total{method="${escapeLabel(method)}",route="${escapeLabel(template)}",status="${escapeLabel(String(status))}"} ${count}`,
          );
        }
      }
    }
    lines.push(
      '# HELP gateway_upstream_retries_total Upstream attempts that were retries of a failed one.',
      '# TYPE gateway_upstream_retries_total counter',
    );
    for (const [method, count] of retries) {
      lines.push(`gateway_upstream_retries_total{method="${escapeLabel(method)}"} ${count}`);
    }
    lines.push(
      '# HELP gateway_upstream_rate_limited_total Upstream answers with status 429.',
      '# TYPE gateway_upstream_rate_limited_total counter',
      `gateway_upstream_rate_limited_total ${rateLimited}`,
    );
    const state = metrics.breakerState?.();
    if (state !== undefined) {
      lines.push(
        '# HELP gateway_upstream_circuit_breaker_state State of the upstream circuit breaker (1 for the current one).',
        '# TYPE gateway_upstream_circuit_breaker_state gauge',
      );
      for (const one of ['closed', 'open', 'half-open'] as const) {
        lines.push(
          `gateway_upstream_circuit_breaker_state{state="${one}"} ${state === one ? 1 : 0}`,
        );
      }
    }
    return `${lines.join('\n')}\n`;
  }

  return metrics;
}

/**
 * A node:http listener serving only the metrics (for `METRICS_PORT`): `GET /metrics` (or
 * `HEAD`), 404 for anything else.
 */
export function metricsListener(
  metrics: Metrics,
  path = '/metrics',
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const target = (req.url ?? '/').split('?')[0];
    if ((req.method === 'GET' || req.method === 'HEAD') && target === path) {
      const body = metrics.render();
      res.writeHead(200, {
        'content-type': CONTENT_TYPE,
        'cache-control': 'no-store',
        'content-length': Buffer.byteLength(body),
      });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('Not found\n');
  };
}
