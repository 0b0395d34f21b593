/**
 * docs/operations.md's configuration tables are the contract for every environment variable:
 * each variable the gateway's loader (src/config/) or the service's
 * (src/commerce-service/config.ts) reads has a row, each row names a variable one of them reads,
 * and a default the table gives in backquotes is the one the loaders apply. The loaders' lists of
 * names are checked too: a loader reading a variable its list does not name fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  loadEmbeddedServiceConfig,
  loadServiceConfig,
  SERVICE_VARIABLES,
  type ServiceConfig,
} from '../../src/commerce-service/config.ts';
import { type Config, GATEWAY_VARIABLES, loadConfig } from '../../src/config/index.ts';

/** Read only to be refused at startup, naming what replaced it; the table mentions it. */
const REFUSED = ['BREAKER_FAILURES'];

interface Row {
  names: string[];
  defaults: (string | undefined)[];
  text: string;
}

/** Every table row of docs/operations.md whose first cell names variables (`UPPER_CASE`). */
function tableRows(): Row[] {
  const rows: Row[] = [];
  for (const line of readFileSync('docs/operations.md', 'utf8').split('\n')) {
    if (!line.startsWith('| `')) continue;
    const [first = '', second = ''] = line.slice(1).split(' | ');
    const names = [...first.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1] as string);
    if (names.length === 0) continue;
    // `a` / `b` / `c`: one default per name, in order; a lone one when the cell is not split.
    const parts = names.length > 1 ? second.split(' / ') : [second];
    const defaults = parts.map((part) => /^\s*`([^`]*)`/.exec(part)?.[1]);
    rows.push({ names, defaults, text: line });
  }
  return rows;
}

/** Every key a loader reads, whatever the environment holds (a Proxy notes each read). */
function readsOf(load: (env: Record<string, string | undefined>) => unknown): Set<string> {
  const read = new Set<string>();
  const environments: Record<string, string>[] = [
    {},
    {
      METRICS_PORT: '9464',
      METRICS_HOST: '127.0.0.1',
      SCHEMA_CLIENT_ID: 'a',
      SCHEMA_CLIENT_SECRET: 'b',
    },
    { OTEL_TRACES_EXPORTER: 'otlp' },
    {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'a=b',
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '5000',
      OTEL_TRACES_SAMPLER_ARG: '0.5',
    },
  ];
  for (const values of environments) {
    const env = new Proxy(values, {
      get(target, key) {
        if (typeof key === 'string') read.add(key);
        return target[key as string];
      },
    });
    load(env);
  }
  return read;
}

describe("docs/operations.md's configuration tables", () => {
  const rows = tableRows();
  const documented = new Set(rows.flatMap((row) => row.names));

  it('name every variable the loaders read, and only those', () => {
    const declared = new Set([...GATEWAY_VARIABLES, ...SERVICE_VARIABLES]);
    const undocumented = [...declared].filter(
      (name) => !documented.has(name) && !REFUSED.includes(name),
    );
    expect(undocumented).toEqual([]);
    expect([...documented].filter((name) => !declared.has(name))).toEqual([]);
    // The refused variable is explained where its replacements are.
    for (const name of REFUSED) {
      expect(rows.some((row) => row.text.includes(`\`${name}\``))).toBe(true);
    }
  });

  it("the loaders' lists name every variable they read", () => {
    const gateway = readsOf(loadConfig);
    expect([...gateway].filter((name) => !GATEWAY_VARIABLES.includes(name))).toEqual([]);
    const service = new Set([...readsOf(loadServiceConfig), ...readsOf(loadEmbeddedServiceConfig)]);
    expect([...service].filter((name) => !SERVICE_VARIABLES.includes(name))).toEqual([]);
    // The walk sees the conditional reads too.
    expect(gateway).toContain('OTEL_EXPORTER_OTLP_TRACES_TIMEOUT');
    expect(gateway).toContain('METRICS_HOST');
  });

  it('give the defaults the loaders apply', () => {
    const config = loadConfig({});
    const service = loadEmbeddedServiceConfig({});
    const alone = loadServiceConfig({});
    const gatewayDefaults: Record<string, (c: Config) => unknown> = {
      PORT: (c) => c.listen.port,
      UPSTREAM_CALL_BUDGET: (c) => c.upstream.callBudget,
      PAGING_MAX_FIRST: (c) => c.upstream.paging.maxFirst,
      PAGING_CONCURRENCY: (c) => c.upstream.paging.concurrency,
      PAGING_CONSISTENCY_BUFFER_MS: (c) => c.upstream.paging.consistencyBufferMs,
      MAX_BODY_BYTES: (c) => c.gateway.maxBodyBytes,
      MAX_DEPTH: (c) => c.gateway.queryLimits.maxDepth,
      MAX_ALIASES: (c) => c.gateway.queryLimits.maxAliases,
      MAX_TOKENS: (c) => c.gateway.queryLimits.maxTokens,
      MAX_DIRECTIVES: (c) => c.gateway.queryLimits.maxDirectives,
      MAX_COST: (c) => c.gateway.queryLimits.maxCost,
      MAX_LIST_ITEMS: (c) => c.gateway.queryLimits.maxListItems,
      UPSTREAM_TIMEOUT_MS: (c) => c.upstream.resilience.attemptTimeoutMs,
      OPERATION_DEADLINE_MS: (c) => c.upstream.operationDeadlineMs,
      UPSTREAM_MAX_ATTEMPTS: (c) => c.upstream.resilience.maxAttempts,
      BREAKER_FAILURE_RATE: (c) => (c.upstream.resilience.breaker?.failureRatio ?? 0) * 100,
      BREAKER_MIN_CALLS: (c) => c.upstream.resilience.breaker?.minimumCalls,
      BREAKER_WINDOW_MS: (c) => c.upstream.resilience.breaker?.windowMs,
      BREAKER_COOLDOWN_MS: (c) => c.upstream.resilience.breaker?.cooldownMs,
      UPSTREAM_OPERATION_CONCURRENCY: (c) => c.upstream.pool.perOperation,
      LOG_LEVEL: (c) => c.logging.level,
      SHUTDOWN_TIMEOUT_MS: (c) => c.listen.shutdownTimeoutMs,
      WORKERS: (c) => c.listen.workers,
      SCHEMA_REFRESH_MS: (c) => c.typedSchema.refreshMs,
      FORWARD_HEADERS: (c) => c.upstream.forwardHeaders.join(','),
      CATALOG_CACHE_SECONDS: (c) => c.upstream.catalogCacheSeconds,
      REDIS_TIMEOUT_MS: (c) => c.redis.timeoutMs,
      CALLER_RATE_LIMIT: (c) => c.limits.callerRate,
      CALLER_RATE_BURST: (c) => c.limits.callerBurst,
      UPSTREAM_RATE_LIMIT: (c) => c.limits.upstreamRate,
      EVENT_REPLAY_SECONDS: (c) => c.gateway.events.replaySeconds,
      EVENT_REPLAY_MAX: (c) => c.gateway.events.replayMax,
    };
    const serviceDefaults: Record<string, (s: ServiceConfig) => unknown> = {
      COMMERCE_PORT: (s) => s.port,
      COMMERCE_DB: (s) => s.dbPath,
      COMMERCE_CLIENTS: (s) => s.clients.map((c) => `${c.id}:${c.secret}`).join(','),
      COMMERCE_SEED: (s) => (s.seed ? '1' : '0'),
      COMMERCE_SIGNIN_EMAIL_FAILURES: (s) => s.signInLimits.perEmail,
      COMMERCE_SIGNIN_CLIENT_FAILURES: (s) => s.signInLimits.perClient,
      COMMERCE_SIGNIN_WINDOW_MS: (s) => s.signInLimits.windowMs,
      COMMERCE_HTTPS: (s) => (s.https ? '1' : '0'),
      HEADERS_TIMEOUT_MS: (s) => s.connections?.headersTimeoutMs,
      REQUEST_TIMEOUT_MS: (s) => s.connections?.requestTimeoutMs,
      KEEP_ALIVE_TIMEOUT_MS: (s) => s.connections?.keepAliveTimeoutMs,
      MAX_CONNECTIONS: (s) => s.connections?.maxConnections,
    };
    const wrong: string[] = [];
    let compared = 0;
    for (const row of rows) {
      row.names.forEach((name, i) => {
        const documentedDefault = row.defaults[i];
        const actual = gatewayDefaults[name]?.(config) ?? serviceDefaults[name]?.(service);
        if (documentedDefault === undefined || actual === undefined) return;
        compared += 1;
        if (String(actual) !== documentedDefault) {
          wrong.push(`${name}: the table says ${documentedDefault}, the loader ${String(actual)}`);
        }
      });
    }
    expect(wrong).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(30);
    // `PORT`'s row gives the service's own default beside the gateway's.
    expect(rows.find((row) => row.names[0] === 'PORT')?.text).toContain(
      `\`${alone.port}\` for \`npm run service\``,
    );
  });
});
