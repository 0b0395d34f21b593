/**
 * What every answer of the service carries, whatever the route: CORS as production answers it
 * (a browser-side storefront calls the API from its own origin with a bearer token, never a
 * cookie, so any origin may read the answers: `Access-Control-Allow-Origin: *` and a preflight
 * `OPTIONS` answered 204 for any path), and one line of request log per answer for a developer
 * who needs to see which call failed.
 */
import type { FastifyInstance } from 'fastify';

/** One answered request, as the log shows it: the path's query has its secrets redacted. */
export interface ServiceRequestLog {
  method: string;
  path: string;
  status: number;
  ms: number;
}

const METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
/** What a storefront sends beyond the simple headers (the SDK's and production's own). */
const ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'accept',
  'accept-language',
  'x-moltin-currency',
  'x-moltin-customer-token',
  'ep-account-management-authentication-token',
  'ep-channel',
  'ep-context-tag',
  'x-moltin-settings-language',
  'x-moltin-settings-locale',
].join(', ');
const EXPOSED_HEADERS = 'content-type, content-length, location, retry-after';
/** A header list a preflight may ask for: names only, bounded. */
const HEADER_LIST = /^[A-Za-z0-9-]+(\s*,\s*[A-Za-z0-9-]+){0,49}$/;
const SECRET_PARAM = /token|secret|password|key/i;

/** The one line `npm run service` prints for a request: `GET /v2/carts/… 200 3.1 ms`. */
export function requestLine(entry: ServiceRequestLog): string {
  return `${entry.method} ${entry.path} ${entry.status} ${entry.ms} ms`;
}

/** The request's path and query, each value of a parameter that may hold a secret redacted. */
export function loggablePath(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const query = url
    .slice(at + 1)
    .split('&')
    .map((pair) => {
      const name = decodeSafely(pair.split('=')[0] ?? '');
      return SECRET_PARAM.test(name) ? `${pair.split('=')[0]}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, at)}?${query}`;
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function registerHttpFront(
  app: FastifyInstance,
  requestLog: ((entry: ServiceRequestLog) => void) | undefined,
): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('access-control-allow-origin', '*');
    reply.header('access-control-expose-headers', EXPOSED_HEADERS);
    return payload;
  });
  // A preflight carries no token: answered for any path before authentication.
  app.options('/*', async (request, reply) => {
    const asked = request.headers['access-control-request-headers'];
    reply.header('access-control-allow-methods', METHODS);
    reply.header(
      'access-control-allow-headers',
      typeof asked === 'string' && HEADER_LIST.test(asked) ? asked : ALLOWED_HEADERS,
    );
    reply.header('access-control-max-age', '86400');
    reply.header('vary', 'access-control-request-headers');
    return reply.code(204).send();
  });
  if (requestLog === undefined) return;
  app.addHook('onResponse', async (request, reply) => {
    requestLog({
      method: request.method,
      path: loggablePath(request.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    });
  });
}
