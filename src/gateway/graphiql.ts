/**
 * GraphiQL served entirely by the gateway: the page at the GraphQL endpoint and its assets
 * (script, stylesheet, Monaco's three web workers, favicon) from the installed
 * `@graphql-yoga/render-graphiql` package under `/graphiql/<version>/`, so the page works on a
 * machine without internet and nothing it loads comes from another origin.
 *
 * The page carries no inline script: GraphiQL's options travel in a JSON data block (never
 * executed), and two small same-origin scripts set up Monaco's workers and start GraphiQL. Its
 * Content-Security-Policy therefore allows scripts, workers and fetches from 'self' only.
 * Styles also allow 'unsafe-inline': Monaco adds `<style>` elements and style attributes at run
 * time with no nonce hook; a style cannot load anything from elsewhere under `default-src
 * 'none'`, and fonts and images may be `data:` URIs (GraphiQL's CSS embeds its fonts that way).
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';

/** Where the assets live; the version segment makes them cacheable for good. */
export const GRAPHIQL_ASSETS_PREFIX = '/graphiql/';

export const GRAPHIQL_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src 'self'",
  "connect-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join('; ');

// Runs before GraphiQL's bundle: Monaco asks this for each worker's URL (same origin, so
// `worker-src 'self'` admits them; Yoga's CDN page fetched them into blob: URLs instead).
const MONACO_ENV_JS = `'use strict';
(function () {
  var base = document.currentScript.src.replace(/[^/]*$/, '');
  var files = { json: 'json.worker.js', graphql: 'graphql.worker.js' };
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: function (_moduleId, label) {
      return base + (files[label] || 'editor.worker.js');
    },
  };
})();
`;

// Runs after it: reads the options from the page's JSON data block and renders GraphiQL.
const START_JS = `'use strict';
(function () {
  var options = JSON.parse(document.getElementById('graphiql-options').textContent);
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), options);
})();
`;

const require = createRequire(import.meta.url);
const packageVersion: string = require('@graphql-yoga/render-graphiql/package.json').version;
// The package version and our own two scripts name the asset folder: a change to either is a
// new URL, so browsers may cache every asset for a year.
const ASSETS_VERSION = createHash('sha256')
  .update(`${packageVersion}\0${MONACO_ENV_JS}\0${START_JS}`)
  .digest('hex')
  .slice(0, 12);
const assetBase = `${GRAPHIQL_ASSETS_PREFIX}${ASSETS_VERSION}/`;

interface Asset {
  type: string;
  body: Uint8Array<ArrayBuffer>;
  gzip?: Promise<Uint8Array<ArrayBuffer>>;
}

const gzip = promisify(gzipCallback);

type AssetTable = Map<string, Asset>;

let assets: Promise<AssetTable> | undefined;

/** The bundle is ~9 MB of JavaScript strings: loaded on the first asset request, not at start. */
function loadAssets(): Promise<AssetTable> {
  assets ??= import('@graphql-yoga/render-graphiql/graphiql').then((bundle) => {
    const js = 'text/javascript; charset=utf-8';
    const table: AssetTable = new Map();
    const text = (name: string, type: string, content: string) =>
      table.set(name, { type, body: Buffer.from(content, 'utf8') });
    text('monaco-env.js', js, MONACO_ENV_JS);
    text('yoga-graphiql.js', js, bundle.js);
    text('start.js', js, START_JS);
    text('graphiql.css', 'text/css; charset=utf-8', bundle.css);
    text('editor.worker.js', js, bundle.editorWorkerService);
    text('json.worker.js', js, bundle.jsonWorker);
    text('graphql.worker.js', js, bundle.graphqlWorker);
    const favicon = /^data:([^;,]+);base64,(.*)$/s.exec(bundle.favicon);
    if (favicon?.[1] && favicon[2] !== undefined) {
      table.set('favicon.ico', { type: favicon[1], body: Buffer.from(favicon[2], 'base64') });
    }
    return table;
  });
  return assets;
}

const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/**
 * The GraphiQL page (Yoga's `renderGraphiQL` option). The options are JSON inside a data block;
 * every `<` in it is escaped, so no value (a title, a default query) can close the element.
 */
export function renderGraphiQLPage(options: GraphiQLOptions): string {
  const title = escapeHtml(options.title ?? 'GraphiQL');
  const json = JSON.stringify(options)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${title}</title>
    <link rel="icon" href="${assetBase}favicon.ico" />
    <link rel="stylesheet" href="${assetBase}graphiql.css" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>You need to enable JavaScript to run GraphiQL.</noscript>
    <div id="root"></div>
    <script type="application/json" id="graphiql-options">${json}</script>
    <script src="${assetBase}monaco-env.js"></script>
    <script src="${assetBase}yoga-graphiql.js"></script>
    <script src="${assetBase}start.js"></script>
  </body>
</html>
`;
}

/**
 * A token for GraphiQL's default headers; `storefront`: an implicit token, and the page says so.
 * `shopperToken`: the storefront (implicit) token for a second tab, a shopper's headers preset.
 */
export interface GraphiQLToken {
  token: string;
  storefront?: boolean;
  shopperToken?: string;
}

/** Whether a bind address (HOST) accepts connections from this machine only. */
export function isLoopbackAddress(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

/** Whether a Host header names this machine: localhost (and *.localhost), 127.x.x.x, [::1]. */
function isLoopbackHostHeader(value: string | null): boolean {
  if (value === null) return false;
  const host = value.toLowerCase().replace(/:\d+$/, '');
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '[::1]' ||
    /^127(\.\d{1,3}){3}$/.test(host)
  );
}

/**
 * Which demo token GraphiQL's page carries. The read-write (client_credentials) token only when
 * the page cannot have been asked for from another machine: the gateway is bound to a loopback
 * address, the request names this machine in its Host header (a page of another site that
 * rebinds its own name to 127.0.0.1 sends that name, so it gets no write token), and no proxy
 * forwarded it. Every other page gets the demo store's implicit (storefront) token, which any
 * storefront publishes anyway. A local page also opens a second tab with the storefront token,
 * so a new developer tries the API as a shopper would.
 */
export function demoTokenChooser(options: {
  bindHost: string;
  readWrite: () => string | undefined;
  storefront: () => string | undefined;
}): (request: Request) => GraphiQLToken | undefined {
  const loopback = isLoopbackAddress(options.bindHost);
  return (request) => {
    const headers = request.headers;
    const local =
      loopback &&
      isLoopbackHostHeader(headers.get('host')) &&
      !headers.has('forwarded') &&
      !headers.has('x-forwarded-for') &&
      !headers.has('x-forwarded-host');
    const token = local ? options.readWrite() : options.storefront();
    if (token === undefined) return undefined;
    if (!local) return { token, storefront: true };
    const shopperToken = options.storefront();
    return shopperToken === undefined ? { token } : { token, shopperToken };
  };
}

const notFoundInit = () => ({
  status: 404,
  headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
});

/**
 * Serves the assets under `/graphiql/<version>/` (GET and HEAD; an old version's URL is a 404)
 * and puts the Content-Security-Policy on the GraphiQL page.
 */
export function graphiqlPlugin(): Plugin {
  return {
    // Not async, and no URL parsed unless the raw URL can be an asset's: every request asks.
    onRequest(payload) {
      const raw = payload.request.url;
      // A URL that normalises to another path (dot segments, escapes) is parsed to tell.
      if (!raw.includes(GRAPHIQL_ASSETS_PREFIX) && !/%|\/\.|\\/.test(raw)) return undefined;
      return serveAsset(payload);
    },
    onResponse({ request, response }) {
      // Yoga answers a browser's GET of the endpoint with the page rendered above.
      if (request.method !== 'GET') return;
      if (!response.headers.get('content-type')?.startsWith('text/html')) return;
      response.headers.set('content-security-policy', GRAPHIQL_CSP);
      response.headers.set('x-content-type-options', 'nosniff');
      response.headers.set('referrer-policy', 'no-referrer');
      response.headers.set('cache-control', 'no-store');
    },
  };
}

/** Answers a request under `/graphiql/` (see graphiqlPlugin). */
async function serveAsset({
  request,
  url,
  endResponse,
  fetchAPI,
}: Parameters<NonNullable<Plugin['onRequest']>>[0]): Promise<void> {
  if (!url.pathname.startsWith(GRAPHIQL_ASSETS_PREFIX)) return;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    endResponse(new fetchAPI.Response(null, { status: 405, headers: { allow: 'GET, HEAD' } }));
    return;
  }
  const name = url.pathname.startsWith(assetBase)
    ? url.pathname.slice(assetBase.length)
    : undefined;
  const asset = name === undefined ? undefined : (await loadAssets()).get(name);
  if (asset === undefined) {
    endResponse(new fetchAPI.Response('Not Found', notFoundInit()));
    return;
  }
  const headers: Record<string, string> = {
    'content-type': asset.type,
    'cache-control': 'public, max-age=31536000, immutable',
    'x-content-type-options': 'nosniff',
    vary: 'accept-encoding',
  };
  let body = asset.body;
  // GraphiQL's script is 5 MB and gzips to about a fifth; compressed once, on first demand.
  if (/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) {
    asset.gzip ??= gzip(asset.body);
    body = await asset.gzip;
    headers['content-encoding'] = 'gzip';
  }
  headers['content-length'] = String(body.length);
  endResponse(
    new fetchAPI.Response(request.method === 'HEAD' ? null : body, { status: 200, headers }),
  );
}
