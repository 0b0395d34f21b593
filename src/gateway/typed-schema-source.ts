/**
 * Keeps the typed schema current: reads the Custom API definitions with the gateway's own
 * credential every `refreshMs`, rebuilds the schema only when they changed, and swaps it in one
 * assignment. createGateway hands Yoga `current()` as its schema factory, so every request takes
 * the schema current when it arrives and keeps it to the end: in-flight operations finish on the
 * schema they started with, and the validation cache (./validation-cache.ts) is keyed by the
 * schema object, so cached results never mix schemas. A failed read or build keeps the last
 * good schema and logs why.
 */
import { createHash } from 'node:crypto';
import type { GraphQLSchema } from 'graphql';
import { buildTypedSchema, type MappedApi } from '../schema/typed/build-typed-schema.ts';
import type { DefinitionReader } from '../upstream/index.ts';
import type { Logger } from './logging.ts';
import type { SchemaRefreshState } from './metrics.ts';

/** Where createGateway gets the schema of each request. */
export interface SchemaSource {
  current(): GraphQLSchema;
  /** How its refreshes went, for the metrics (read at scrape time); absent: never refreshed. */
  refreshState?(): SchemaRefreshState;
}

export interface TypedSchemaSourceOptions {
  /** The static schema; served until the first successful read, and the base of every build. */
  base: GraphQLSchema;
  reader: DefinitionReader;
  /** Re-read interval, ms. Default 60,000 (SCHEMA_REFRESH_MS). */
  refreshMs?: number;
  logger?: Logger | undefined;
}

export interface TypedSchemaSource extends SchemaSource {
  /**
   * Reads the definitions now and swaps the schema when they changed. Never throws: true when
   * the served schema changed, false when unchanged or the refresh failed (then it is logged).
   */
  refresh(): Promise<boolean>;
  /** The first refresh, then one every `refreshMs` (timers are unref'd). */
  start(): Promise<void>;
  /** The Custom APIs the current schema types. */
  mapped(): readonly MappedApi[];
  /** Stops refreshing and waits for a refresh under way (the pool is the front door's). */
  close(): Promise<void>;
}

/** How often the definitions are re-read by default, ms (`SCHEMA_REFRESH_MS`). */
export const DEFAULT_SCHEMA_REFRESH_MS = 60_000;

export function createTypedSchemaSource(options: TypedSchemaSourceOptions): TypedSchemaSource {
  const refreshMs = options.refreshMs ?? DEFAULT_SCHEMA_REFRESH_MS;
  const log = (level: 'info' | 'warn', msg: string, fields?: Record<string, unknown>) =>
    options.logger?.log(level, msg, fields);
  let schema = options.base;
  let mapped: readonly MappedApi[] = [];
  let fingerprint: string | undefined;
  let running: Promise<boolean> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const state = {
    successes: 0,
    failures: 0,
    lastAt: undefined as number | undefined,
    lastOk: false,
    lastSuccessAt: undefined as number | undefined,
  };
  const ended = (ok: boolean) => {
    const now = Date.now();
    state.lastAt = now;
    state.lastOk = ok;
    if (ok) {
      state.successes += 1;
      state.lastSuccessAt = now;
    } else state.failures += 1;
  };

  const refreshOnce = async (): Promise<boolean> => {
    try {
      const definitions = await options.reader.read();
      const next = createHash('sha256').update(JSON.stringify(definitions)).digest('hex');
      if (next === fingerprint) {
        ended(true);
        return false;
      }
      const build = buildTypedSchema(options.base, definitions);
      for (const skip of build.skipped) {
        log('warn', 'typed schema: left out (still reachable through the generic API)', {
          apiType: skip.apiType,
          ...(skip.slug === undefined ? {} : { field: skip.slug }),
          reason: skip.reason,
        });
      }
      schema = build.schema;
      mapped = build.mapped;
      fingerprint = next;
      ended(true);
      log('info', 'typed schema: swapped', {
        types: build.mapped.map((api) => api.names.type),
      });
      return true;
    } catch (error) {
      ended(false);
      // Messages of the upstream layer never carry a token or a secret.
      log('warn', 'typed schema: refresh failed; keeping the last good schema', {
        error: error instanceof Error ? error.message : String(error),
      });
      return false;
    }
  };

  const refresh = (): Promise<boolean> => {
    // One read at a time: a slow upstream must not pile refreshes up.
    running ??= refreshOnce().finally(() => {
      running = undefined;
    });
    return running;
  };

  return {
    current: () => schema,
    refreshState: () => ({ ...state }),
    mapped: () => mapped,
    refresh,
    async start() {
      await refresh();
      if (closed || timer !== undefined) return;
      timer = setInterval(() => {
        void refresh();
      }, refreshMs);
      timer.unref();
    },
    async close() {
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      await running;
    },
  };
}
