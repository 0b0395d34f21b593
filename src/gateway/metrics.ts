/**
 * Prometheus metrics, kept in a prom-client registry of the gateway's own (never the global
 * one) and written in the text exposition format on `GET /metrics` (or on a port of their own:
 * `metricsListener`). The registry, its rendering and the scrape-time families are prom-client's;
 * the families written on every request and upstream attempt are ./metric-families.ts's, which
 * measured cheaper per request (docs/benchmarks.md, "Library or hand-written").
 * Collecting happens in hooks that run anyway: one small state object per request, two
 * `performance.now()` calls, a counter, a histogram or two, and a counter per upstream attempt
 * (keyed by its route template, src/upstream/route-template.ts).
 *
 * Beside the gateway's own families: an upstream latency histogram by method and route template
 * (each attempt, from the observer), `gateway_build_info`, the typed schema's refreshes (read
 * from its source at scrape time), and prom-client's process and runtime metrics (CPU, memory,
 * handles, event-loop lag, GC). Those cost nothing per request: most are read at scrape time;
 * event-loop lag is node's own sampling histogram (perf_hooks.monitorEventLoopDelay) and GC
 * durations come from a perf_hooks observer called once per collection, not per request.
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
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { BreakerState, UpstreamAttempt, UpstreamObserver } from '../upstream/index.ts';
import { packageVersion } from './build-info.ts';
import { requestedOperationName } from './logging.ts';
import { FastCounter, FastGauge, FastHistogram } from './metric-families.ts';
import { requestStates } from './request-state.ts';

/** What the typed schema's source says of its refreshes (./typed-schema-source.ts). */
export interface SchemaRefreshState {
  /** Refreshes that read the definitions (whether or not the schema changed). */
  readonly successes: number;
  /** Refreshes that failed (the last good schema kept). */
  readonly failures: number;
  /** When the last refresh ended, ms since the epoch; undefined before the first. */
  readonly lastAt: number | undefined;
  readonly lastOk: boolean;
  /** When the last successful refresh ended, ms since the epoch. */
  readonly lastSuccessAt: number | undefined;
}

export interface MetricsOptions {
  /**
   * Distinct operation names kept as label values (admitted only by operations that proved their
   * caller); later ones count as `other`. Default 100.
   */
  maxOperationNames?: number;
  /** Path served by `plugin` (GET and HEAD). Default `/metrics`; `false` serves nothing. */
  path?: string | false;
  /**
   * prom-client's process and runtime metrics (CPU, memory, handles, event-loop lag, GC) in the
   * same registry. Default true.
   */
  processMetrics?: boolean;
}

export interface Metrics {
  /** Collects per-request metrics and, unless `path` is false, answers `GET /metrics`. */
  readonly plugin: Plugin;
  /** Counts upstream attempts (given to the upstream's front door, src/upstream/index.ts). */
  readonly observer: UpstreamObserver;
  /** Where the circuit breaker's state is read at scrape time (createGateway sets it). */
  breakerState: (() => BreakerState) | undefined;
  /** Where the typed schema's refreshes are read at scrape time (createGateway sets it). */
  schemaRefresh: (() => SchemaRefreshState) | undefined;
  /** The exposition text of every metric now. */
  render(): Promise<string>;
  /**
   * What the plugin records, for a request the direct lane of compiled documents answers
   * (./compiled/lane.ts): `begin` where the plugin's onRequest counts it in flight, `end` where
   * its onResponse records the executed operation `name` with its result and HTTP status.
   */
  readonly lane: {
    begin(): void;
    end(
      started: number,
      name: string | undefined,
      used: number,
      result: unknown,
      status: number,
    ): void;
  };
}

/** Seconds; Prometheus' default buckets. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds; one upstream attempt, from a millisecond to the longest attempt timeout. */
const UPSTREAM_LATENCY_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];
/** Upstream calls one operation made (its budget's `used`; one bucket at DEFAULT_CALL_BUDGET). */
const CALL_BUCKETS = [0, 1, 2, 5, 10, 20, 50, 100];
const MAX_OUTCOMES = 64;
const CODE = /^[A-Z][A-Z0-9_]{0,63}$/;
export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

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
  const registry = new Registry();
  const registers = [registry];
  // The families written per request and per attempt are ./metric-families.ts's (measured
  // cheaper); the rest are prom-client's.
  const requests = new FastCounter(
    'gateway_graphql_requests_total',
    'GraphQL requests by operation name and outcome (ok or the first error code).',
    ['operation', 'outcome'],
    registry,
  );
  const latency = new FastHistogram(
    'gateway_graphql_request_duration_seconds',
    'Time from request to response of GraphQL requests.',
    ['operation'],
    LATENCY_BUCKETS,
    registry,
  );
  const callsPerOperation = new FastHistogram(
    'gateway_graphql_upstream_calls_per_operation',
    'Upstream calls (retries not counted) one executed operation made.',
    [],
    CALL_BUCKETS,
    registry,
  );
  const inFlight = new FastGauge(
    'gateway_http_requests_in_flight',
    'HTTP requests being served now (scrapes excluded).',
    registry,
  );
  const upstreamCalls = new FastCounter(
    'gateway_upstream_requests_total',
    'Upstream HTTP attempts by method, route template and status (or failure reason).',
    ['method', 'route', 'status'],
    registry,
  );
  const retries = new FastCounter(
    'gateway_upstream_retries_total',
    'Upstream attempts that were retries of a failed one.',
    ['method'],
    registry,
  );
  const rateLimited = new FastCounter(
    'gateway_upstream_rate_limited_total',
    'Upstream answers with status 429.',
    [],
    registry,
  );
  const breaker = new Gauge({
    name: 'gateway_upstream_circuit_breaker_state',
    help: 'State of the upstream circuit breaker (1 for the current one).',
    labelNames: ['state'] as const,
    registers: [],
    collect() {
      const state = metrics.breakerState?.();
      for (const one of ['closed', 'open', 'half-open'] as const) {
        this.set({ state: one }, state === one ? 1 : 0);
      }
    },
  });
  const upstreamLatency = new FastHistogram(
    'gateway_upstream_request_duration_seconds',
    'Time of each upstream HTTP attempt, from sending to its answer or failure, by method and route template.',
    ['method', 'route'],
    UPSTREAM_LATENCY_BUCKETS,
    registry,
  );
  new Gauge({
    name: 'gateway_build_info',
    help: 'The running build: the package version and the Node version (always 1).',
    labelNames: ['version', 'node_version'] as const,
    registers,
  }).set({ version: packageVersion(), node_version: process.versions.node }, 1);
  const schemaMetrics = [
    new Counter({
      name: 'gateway_typed_schema_refreshes_total',
      help: 'Reads of the Custom API definitions for the typed schema, by outcome (success or failure).',
      labelNames: ['outcome'] as const,
      registers: [],
      collect() {
        const state = metrics.schemaRefresh?.();
        if (state === undefined) return;
        this.reset();
        this.inc({ outcome: 'success' }, state.successes);
        this.inc({ outcome: 'failure' }, state.failures);
      },
    }),
    new Gauge({
      name: 'gateway_typed_schema_last_refresh_timestamp_seconds',
      help: 'When the last refresh of the typed schema ended (Unix time), whatever its outcome.',
      registers: [],
      collect() {
        const at = metrics.schemaRefresh?.().lastAt;
        if (at !== undefined) this.set(at / 1000);
      },
    }),
    new Gauge({
      name: 'gateway_typed_schema_last_refresh_success',
      help: 'Whether the last refresh of the typed schema succeeded (1) or failed (0).',
      registers: [],
      collect() {
        const state = metrics.schemaRefresh?.();
        if (state?.lastAt !== undefined) this.set(state.lastOk ? 1 : 0);
      },
    }),
    new Gauge({
      name: 'gateway_typed_schema_last_success_timestamp_seconds',
      help: 'When the typed schema was last read successfully (Unix time): how stale it may be.',
      registers: [],
      collect() {
        const at = metrics.schemaRefresh?.().lastSuccessAt;
        if (at !== undefined) this.set(at / 1000);
      },
    }),
  ];
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  let breakerShown = false;
  let schemaShown = false;
  /** Operation names admitted as label values. */
  const operations = new Set<string>();
  const outcomes = new Set<string>();
  const states = requestStates<RequestState>('metrics');

  /**
   * The operation label of a name that executed: one already admitted, else admitted while
   * there is room if the request proved its caller (see the top of this file), else `other`.
   */
  const executed = (name: string | undefined, proved: boolean): string => {
    if (name === undefined) return 'anonymous';
    if (!operations.has(name)) {
      if (!proved || operations.size >= maxNames || name.length > 100) return 'other';
      operations.add(name);
    }
    return name;
  };

  /**
   * A request that never executed (bad document, refused, no params): its name is not proved
   * real, so only a name already admitted is used; any other is `other`.
   */
  const unexecuted = (params: RequestState['params']): string => {
    const name = params === undefined ? undefined : requestedOperationName(params);
    if (name === undefined) return 'anonymous';
    return operations.has(name) ? name : 'other';
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
        return render().then((text) => {
          endResponse(
            new fetchAPI.Response(request.method === 'HEAD' ? null : text, {
              status: 200,
              headers: { 'content-type': CONTENT_TYPE, 'cache-control': 'no-store' },
            }),
          );
        });
      }
      inFlight.inc();
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
      return undefined;
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
      inFlight.dec();
      if (!state.graphql) return;
      const operation = state.executed
        ? executed(state.name, (state.budget?.used ?? 0) > 0 && !state.unauthenticated)
        : unexecuted(state.params);
      let outcome = state.outcome ?? 'ok';
      if (outcome === 'ok' && response.status >= 400) outcome = 'ERROR';
      requests.inc(operation, outcome);
      latency.observe((performance.now() - state.started) / 1000, operation);
      if (state.budget !== undefined) callsPerOperation.observe(state.budget.used);
    },
  };

  const observer: UpstreamObserver = {
    attemptStart: () => performance.now(),
    attemptEnd(attempt: UpstreamAttempt, started: unknown) {
      const { method, status } = attempt;
      if (typeof started === 'number') {
        upstreamLatency.observe((performance.now() - started) / 1000, method, attempt.route);
      }
      const key: number | string =
        status > 0
          ? status
          : ((attempt.error as { reason?: string } | undefined)?.reason ?? 'error');
      upstreamCalls.inc(method, attempt.route, String(key));
      if (attempt.retry > 0) retries.inc(method);
      if (status === 429) rateLimited.inc();
    },
  };

  const lane: Metrics['lane'] = {
    begin() {
      inFlight.inc();
    },
    end(started, name, used, result, status) {
      inFlight.dec();
      let outcome = outcomeOf(result);
      const unauthenticated = outcome !== 'ok' && saysUnauthenticated(result);
      const operation = executed(name, used > 0 && !unauthenticated);
      if (outcome === 'ok' && status >= 400) outcome = 'ERROR';
      requests.inc(operation, outcome);
      latency.observe((performance.now() - started) / 1000, operation);
      callsPerOperation.observe(used);
    },
  };

  const metrics: Metrics = {
    plugin,
    observer,
    breakerState: undefined,
    schemaRefresh: undefined,
    render,
    lane,
  };

  /** The breaker's and the typed schema's families only once something reports their state. */
  function render(): Promise<string> {
    if (metrics.breakerState !== undefined && !breakerShown) {
      registry.registerMetric(breaker);
      breakerShown = true;
    }
    if (metrics.schemaRefresh !== undefined && !schemaShown) {
      for (const one of schemaMetrics) registry.registerMetric(one);
      schemaShown = true;
    }
    return registry.metrics();
  }

  return metrics;
}

/**
 * A node:http listener serving only the metrics (for `METRICS_PORT`): `GET /metrics` (or
 * `HEAD`), 404 for anything else.
 */
export function metricsListener(
  metrics: Pick<Metrics, 'render'>,
  path = '/metrics',
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const target = (req.url ?? '/').split('?')[0];
    if ((req.method === 'GET' || req.method === 'HEAD') && target === path) {
      metrics.render().then(
        (body) => {
          res.writeHead(200, {
            'content-type': CONTENT_TYPE,
            'cache-control': 'no-store',
            'content-length': Buffer.byteLength(body),
          });
          res.end(req.method === 'HEAD' ? undefined : body);
        },
        () => {
          res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
          res.end('Metrics unavailable\n');
        },
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('Not found\n');
  };
}
