/**
 * CORS: which other sites' pages a browser lets call the gateway. In place of Yoga's default,
 * which reflects any Origin with `Access-Control-Allow-Credentials: true`, so that every site
 * could read answers made with whatever the browser attaches.
 *
 * - no origins (the default): no CORS header at all. Same-origin pages (GraphiQL) and
 *   non-browser clients are unaffected; a page of another origin cannot send the JSON POST
 *   (its preflight gets no grant) nor read an answer.
 * - `*`: any origin, without credentials (`Access-Control-Allow-Origin: *`): a public API whose
 *   callers send their bearer token themselves.
 * - exact origins (`https://shop.example`): those, with credentials, and `Vary: Origin`.
 *
 * The gateway's own credential is the Authorization header, which a page sets itself; CORS
 * decides whether the browser lets the page send it and read the answer. Every OPTIONS request
 * is answered 204 here, as Yoga's CORS did, with a grant only for an allowed origin.
 */
import type { Plugin } from 'graphql-yoga';

/** Allowed origins: a list of exact origins (empty: none), or any origin without credentials. */
export type CorsOrigins = readonly string[] | '*';

const ALLOWED_METHODS = 'GET, POST';
// A preflight's answer is cached by the browser this long (seconds).
const PREFLIGHT_MAX_AGE = '600';
// What a page may read of an answer besides the CORS-safelisted headers.
const EXPOSED_HEADERS = 'x-request-id';

/**
 * The CORS headers of the answer to a request other than a preflight, from its Origin header,
 * as name, value, name, value… in the order the plugin sets them (the direct lane of compiled
 * documents writes them itself: ./compiled/lane.ts). Empty when the request has no Origin.
 */
export function corsAnswerHeaders(origins: CorsOrigins): (origin: string | null) => string[] {
  const anyOrigin = origins === '*';
  const listed = new Set(anyOrigin ? [] : origins);
  const varyOnOrigin = listed.size > 0;
  const none: string[] = [];
  const vary = ['vary', 'Origin'];
  const star = [
    'access-control-allow-origin',
    '*',
    'access-control-expose-headers',
    EXPOSED_HEADERS,
  ];
  return (origin) => {
    if (origin === null) return none;
    if (anyOrigin) return star;
    if (!listed.has(origin)) return varyOnOrigin ? vary : none;
    return [
      ...(varyOnOrigin ? vary : none),
      'access-control-allow-origin',
      origin,
      'access-control-allow-credentials',
      'true',
      'access-control-expose-headers',
      EXPOSED_HEADERS,
    ];
  };
}

/**
 * The plugin that answers preflights and adds the CORS headers; createGateway puts it first and
 * turns Yoga's own CORS off.
 */
export function corsPlugin(origins: CorsOrigins): Plugin {
  const anyOrigin = origins === '*';
  const listed = new Set(anyOrigin ? [] : origins);
  // With a list, the answer depends on the Origin header: caches must key on it.
  const varyOnOrigin = listed.size > 0;
  const onRequest: Plugin['onRequest'] = ({ request, fetchAPI, endResponse }) => {
    if (request.method !== 'OPTIONS') return;
    // Safari waits for a body on a 204 without a length.
    endResponse(new fetchAPI.Response(null, { status: 204, headers: { 'content-length': '0' } }));
  };
  // No origin allowed (the default): no header to add, so no response pays for a look at one.
  if (!anyOrigin && listed.size === 0) return { onRequest };
  return {
    onRequest,
    onResponse({ request, response }) {
      const origin = request.headers.get('origin');
      if (origin === null) return;
      if (varyOnOrigin) response.headers.append('vary', 'Origin');
      if (!anyOrigin && !listed.has(origin)) return;
      const headers = response.headers;
      headers.set('access-control-allow-origin', anyOrigin ? '*' : origin);
      if (!anyOrigin) headers.set('access-control-allow-credentials', 'true');
      if (request.method === 'OPTIONS') {
        headers.set('access-control-allow-methods', ALLOWED_METHODS);
        const asked = request.headers.get('access-control-request-headers');
        if (asked !== null) {
          // Any header the page asks for: forwarded headers and CSRF headers are configurable.
          headers.set('access-control-allow-headers', asked);
          headers.append('vary', 'Access-Control-Request-Headers');
        }
        headers.set('access-control-max-age', PREFLIGHT_MAX_AGE);
      } else {
        headers.set('access-control-expose-headers', EXPOSED_HEADERS);
      }
    },
  };
}
