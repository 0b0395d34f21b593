/**
 * How long a client may hold a connection without finishing a request, and how many it may
 * hold: Node's own http.Server settings, applied to every listener `npm start` opens (the
 * gateway's, the metrics port's) and to `npm run service`. It lives with the service, the lower
 * floor, so that the service imports nothing from the gateway.
 *
 * - `headersTimeoutMs`: from the connection's first byte (or its opening, or the end of the
 *   previous request) to the end of the headers. A socket that never sends a byte is answered
 *   408 and closed after it too.
 * - `requestTimeoutMs`: from the same start to the end of the body. It is a total, not an idle
 *   time: a body that stalls and one that trickles are both cut at this bound (408, closed), so
 *   no client can hold a half-read body (up to MAX_BODY_BYTES) longer. A slow but steady upload
 *   must finish within it: 512 KiB in the default 30 s needs 17 KB/s. The answer's own time is
 *   not counted; OPERATION_DEADLINE_MS bounds that.
 * - `keepAliveTimeoutMs`: an idle keep-alive connection between requests (Node adds its one
 *   second of grace). Behind a load balancer, set it above the balancer's idle timeout.
 * - `maxConnections`: connections beyond it are closed as soon as they open, without an answer.
 */
import type { Server } from 'node:http';

export interface ConnectionLimits {
  /** `HEADERS_TIMEOUT_MS`, default 10,000. At most `requestTimeoutMs`. */
  headersTimeoutMs: number;
  /** `REQUEST_TIMEOUT_MS`, default 30,000. */
  requestTimeoutMs: number;
  /** `KEEP_ALIVE_TIMEOUT_MS`, default 5,000 (Node's own). */
  keepAliveTimeoutMs: number;
  /** `MAX_CONNECTIONS`, default 1,000. */
  maxConnections: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1_000,
};

/**
 * Sets the limits on a server before it listens. Node checks the two request timeouts on an
 * interval (30 s by default, which would let a 10 s limit run to 40 s); it is set to a quarter of
 * the shorter one, at most a second.
 */
export function applyConnectionLimits(
  server: Server,
  limits: Partial<ConnectionLimits> = {},
): ConnectionLimits {
  const defined = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
  const resolved: ConnectionLimits = { ...DEFAULT_CONNECTION_LIMITS, ...defined };
  if (resolved.headersTimeoutMs > resolved.requestTimeoutMs) {
    throw new RangeError('the headers timeout must not exceed the request timeout');
  }
  server.headersTimeout = resolved.headersTimeoutMs;
  server.requestTimeout = resolved.requestTimeoutMs;
  server.keepAliveTimeout = resolved.keepAliveTimeoutMs;
  server.maxConnections = resolved.maxConnections;
  // Node reads it when the server starts listening; @types/node has it as an option only.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    Math.max(50, Math.min(1_000, Math.floor(resolved.headersTimeoutMs / 4)));
  return resolved;
}
