/**
 * Operational endpoints beside /graphql:
 * - `GET /healthz` — the process is up and serving (200), always cheap, never calls upstream;
 * - `GET /readyz` — the upstream origin answers HTTP at all (200), else 503; 503 too while the
 *   gateway drains for shutdown, so a load balancer stops sending new work.
 * The readiness probe is the front door's (src/upstream/index.ts, `probe`): an unauthenticated
 * GET of `<upstream>/v2` on the origin's one pool; any HTTP status (a 401 is expected) proves the
 * origin is reachable, and no token ever rides on it.
 */
import type { Plugin } from 'graphql-yoga';
import type { Upstream } from '../upstream/index.ts';

export interface HealthOptions {
  /** The upstream whose origin readiness probes. */
  upstream: Pick<Upstream, 'probe'>;
  /** Probe timeout, ms. Default 1,000. */
  probeTimeoutMs?: number;
  /** A probe result is reused this long, so a storm of probes is one upstream call. Default 1,000. */
  cacheMs?: number;
}

export interface Health {
  plugin: Plugin;
  /** Readiness turns false for good (shutdown has begun). */
  setDraining(): void;
  /** Probes the upstream now (bypassing the cache); true when it answered HTTP. */
  probe(): Promise<boolean>;
}

// A fresh object per response: the Response ponyfill keeps the object and adds a
// content-length to it, which a shared constant would carry over to the next response.
const jsonHeaders = () => ({
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
});

export function createHealth(options: HealthOptions): Health {
  const timeoutMs = options.probeTimeoutMs ?? 1_000;
  const cacheMs = options.cacheMs ?? 1_000;
  let draining = false;
  let cached: { at: number; ok: Promise<boolean> } | undefined;

  const probe = (): Promise<boolean> => options.upstream.probe(timeoutMs);

  const ready = (): Promise<boolean> => {
    const now = Date.now();
    if (cached === undefined || now - cached.at >= cacheMs) cached = { at: now, ok: probe() };
    return cached.ok;
  };

  const plugin: Plugin = {
    // Not async: it is asked on every request, and a GraphQL POST must not pay for a promise.
    onRequest({ url, request: incoming, endResponse, fetchAPI }) {
      if (incoming.method !== 'GET' && incoming.method !== 'HEAD') return;
      if (url.pathname === '/healthz') {
        endResponse(
          new fetchAPI.Response(JSON.stringify({ status: 'ok' }), {
            status: 200,
            headers: jsonHeaders(),
          }),
        );
        return;
      }
      if (url.pathname === '/readyz') {
        return (async () => {
          const upstream = draining ? false : await ready();
          const status = draining ? 'draining' : upstream ? 'ready' : 'upstream-unreachable';
          endResponse(
            new fetchAPI.Response(JSON.stringify({ status, upstream }), {
              status: !draining && upstream ? 200 : 503,
              headers: jsonHeaders(),
            }),
          );
        })();
      }
      return undefined;
    },
  };

  return {
    plugin,
    setDraining() {
      draining = true;
    },
    probe,
  };
}
