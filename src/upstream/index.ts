/**
 * The front door to the upstream: `createUpstream(options)` is built once per gateway (by
 * createGateway, or by `npm start` before it: src/main.ts) and is everything the gateway has of
 * the v2 service. Behind it, one undici Pool for the origin (./transport.ts) carries every call
 * there — the resolvers' (through the per-request session, ./session.ts), the typed schema's
 * definitions, the gateway's own tokens and the readiness probe — with retries and the circuit
 * breaker (./resilience.ts, ./breaker.ts) around the resolvers' calls. Metrics, traces and logs
 * watch it through one observer interface (./observer.ts).
 *
 * src/gateway/ imports nothing else from src/upstream/ but the error family (./errors.ts)
 * (test/build/import-graph.test.ts checks it); what it needs of the rest is re-exported here.
 */

import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { type Buckets, createLocalBuckets, createSharedBuckets } from '../limits/buckets.ts';
import { REDIS_PREFIX, type RedisConnection } from '../redis/connection.ts';
import type { BreakerState } from './breaker.ts';
import type { SendAttempt } from './client.ts';
import {
  createDefinitionReader,
  type DefinitionReader,
  type SchemaCredentials,
} from './custom-api-definitions.ts';
import { createTokenSource, requestToken, type TokenGrant } from './oauth.ts';
import { combineAttemptWatch, type UpstreamObserver } from './observer.ts';
import type { PagingLimits } from './paging/plan.ts';
import { createResilience, createResilientSend, type ResilienceConfig } from './resilience.ts';
import { createContextFactory, type GatewayContext, type RequestLike } from './session.ts';
import { createShaper } from './shaper.ts';
import { createRedisReads, DEFAULT_CATALOG_CACHE_SECONDS, SharedReads } from './shared-reads.ts';
import { createUpstreamTransport, probeOrigin, type UpstreamPoolOptions } from './transport.ts';

export type { BreakerState } from './breaker.ts';
export type { SendAttempt } from './client.ts';
export type {
  CustomApiDefinition,
  DefinitionReader,
  SchemaCredentials,
} from './custom-api-definitions.ts';
export { LightAbortSignal } from './light-signal.ts';
export type { TokenGrant } from './oauth.ts';
export type { UpstreamAttempt, UpstreamObserver } from './observer.ts';
export { DEFAULT_PAGING_LIMITS, type PagingLimits } from './paging/plan.ts';
export type { ResilienceConfig } from './resilience.ts';
export { UPSTREAM_ROOTS, type UpstreamRoot } from './route-template.ts';
export type { GatewayContext, RequestLike } from './session.ts';
export type { UpstreamPoolOptions } from './transport.ts';

export interface UpstreamOptions {
  /** Base URL of the v2 service, without `/v2` (e.g. `http://127.0.0.1:4010`). */
  url: string;
  /** Settings of the origin's connection pool (./transport.ts). */
  pool?: UpstreamPoolOptions;
  /**
   * Timeouts, retries and circuit breaker around the resolvers' calls (./resilience.ts); `false`
   * sends every call exactly once. Defaults: 5 s per attempt, 3 attempts for GET, breaker on.
   */
  resilience?: ResilienceConfig | false;
  /** The attempt function, for resilience to wrap; default: one plain HTTP attempt. */
  send?: SendAttempt;
  /** Upstream calls allowed per operation. Default DEFAULT_CALL_BUDGET (./budget.ts). */
  callBudget?: number;
  /** Limits of the pagination planner (maxFirst, concurrency, consistency buffer…). */
  paging?: Partial<PagingLimits>;
  /** Deadline of one operation; its upstream calls are aborted after it. Default 15,000 ms. */
  operationDeadlineMs?: number;
  /**
   * Caller headers forwarded upstream besides Authorization (lowercase names), with the bearer
   * token's guarantees. Default: X-Moltin-Customer-Token, EP-Account-Management-Authentication-
   * Token and X-Moltin-Currency (./forwarded-headers.ts).
   */
  forwardHeaders?: readonly string[];
  /**
   * How long answers every caller may share are kept, seconds (`CATALOG_CACHE_SECONDS`;
   * ./shared-reads.ts: a product's breadcrumb nodes and children's pages, by the catalog and
   * release that served them). Default DEFAULT_CATALOG_CACHE_SECONDS (60); 0 keeps none.
   */
  catalogCacheSeconds?: number;
  /**
   * Calls a second the gateway sends to the store (`UPSTREAM_RATE_LIMIT`, ./shaper.ts): calls
   * beyond it wait their turn. Default 0: unpaced.
   */
  rateLimit?: number;
  /**
   * Redis shared by the replicas (`REDIS_URL`, src/redis/connection.ts): the catalog reads and
   * the store's rate are then every replica's. The caller connects and closes it. Default none.
   */
  redis?: RedisConnection;
  /** Told when a shared limit falls back to this process (Redis not answering) and back. */
  onSharedStateChange?: (degraded: boolean, detail: string) => void;
}

export interface Upstream {
  /** `scheme://host:port` of the v2 service: the only place a token is ever sent. */
  readonly origin: string;
  /** The pagination limits the sessions page with (as given; defaults in ./paging/plan.ts). */
  readonly paging: Partial<PagingLimits>;
  /**
   * The session of one GraphQL request (./session.ts): the caller's credentials, the client
   * bound to them, the budget, the loaders. `trace` is the request's span, when tracing.
   */
  createContext(request: RequestLike, trace?: unknown): GatewayContext;
  /**
   * Adds an observer of every attempt and of the breaker (./observer.ts). Call it while building
   * the gateway, before the first request.
   */
  observe(observer: UpstreamObserver): void;
  /** The origin's circuit breaker, read when asked (metrics); undefined with resilience off. */
  readonly breaker: { readonly state: BreakerState } | undefined;
  /**
   * Whether the origin answers HTTP at all: an unauthenticated `GET /v2` (a 401 proves it as well
   * as a 200), within `timeoutMs` (default 1,000). Never throws.
   */
  probe(timeoutMs?: number): Promise<boolean>;
  /** A token of the gateway's own: client_credentials with a secret, implicit without (./oauth.ts). */
  token(grant: TokenGrant): Promise<string>;
  /**
   * Reads the store's Custom API definitions for the typed schema, with a token of these
   * credentials (requested when needed, renewed before it expires).
   */
  definitions(credentials: SchemaCredentials, options?: { timeoutMs?: number }): DefinitionReader;
  /**
   * The origin's one pool, for the gateway's own housekeeping calls to the store (the webhook
   * integration `npm start` makes): nothing reaches the origin but through it.
   */
  readonly dispatcher: Dispatcher;
  /** Closes the pool; calls in flight fail. */
  close(): Promise<void>;
}

/**
 * The store's bucket of calls: a tenth of a second's worth at once, so calls go out evenly
 * rather than a second's worth in a burst the upstream may count in a shorter window.
 */
function storeBuckets(options: UpstreamOptions, rate: number): Buckets {
  const burst = Math.max(1, Math.ceil(rate / 10));
  if (options.redis === undefined) return createLocalBuckets({ rate, burst });
  return createSharedBuckets({
    rate,
    burst,
    redis: options.redis.client,
    prefix: `${REDIS_PREFIX}limit:store:`,
    lease: Math.max(1, Math.floor(burst / 4)),
    leaseMs: 200,
    onFallback: options.onSharedStateChange,
  });
}

export function createUpstream(options: UpstreamOptions): Upstream {
  const transport = createUpstreamTransport(options.url, options.pool);
  const rate = options.rateLimit ?? 0;
  if (rate > 0) {
    const store = createHash('sha256').update(transport.origin).digest('base64url').slice(0, 22);
    transport.shaper = createShaper(storeBuckets(options, rate), store);
  }
  const observers: UpstreamObserver[] = [];
  const resilience =
    options.resilience === false
      ? undefined
      : createResilience(options.resilience, (_origin, state) => {
          for (const observer of observers) observer.breakerChange?.(state);
        });
  const paging = options.paging ?? {};
  const createContext = createContextFactory({
    transport,
    callBudget: options.callBudget,
    paging,
    operationDeadlineMs: options.operationDeadlineMs,
    send: resilience ? createResilientSend(resilience, options.send) : options.send,
    forwardHeaders: options.forwardHeaders,
    shared: new SharedReads({
      catalogCacheSeconds: options.catalogCacheSeconds ?? DEFAULT_CATALOG_CACHE_SECONDS,
      ...(options.redis
        ? {
            remote: createRedisReads(options.redis.client, {
              prefix: REDIS_PREFIX,
              origin: transport.origin,
            }),
          }
        : {}),
    }),
  });
  let closing: Promise<void> | undefined;

  return {
    origin: transport.origin,
    paging,
    createContext,
    observe(observer) {
      observers.push(observer);
      transport.watch = combineAttemptWatch(observers);
    },
    breaker: resilience?.breaker(transport.origin),
    probe: (timeoutMs = 1_000) => probeOrigin(transport, timeoutMs),
    async token(grant) {
      return (await requestToken(transport, grant)).value;
    },
    dispatcher: transport.pool,
    definitions(credentials, readOptions = {}) {
      return createDefinitionReader({
        transport,
        tokens: createTokenSource(transport, {
          clientId: credentials.clientId,
          clientSecret: credentials.clientSecret,
        }),
        timeoutMs: readOptions.timeoutMs,
      });
    },
    close() {
      closing ??= transport.close();
      return closing;
    },
  };
}
