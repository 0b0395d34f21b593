/**
 * The node:http listener of the gateway, with a fast path for the common request: `POST` of a
 * JSON body to the GraphQL endpoint.
 *
 * Yoga serves Node through @whatwg-node's adapter, which turns every request into Fetch API
 * objects (URL, Headers, an AbortController and three listeners on the response, a
 * ReadableStream body that the body-size limit pipes through a TransformStream into a second
 * Request) and every result into a Response that is written back. For a JSON POST none of that
 * changes what the client gets, and it is a third of the gateway's CPU per request.
 *
 * The fast path keeps Yoga as the server: it runs Yoga's own pipeline — every plugin's
 * `onRequest`, `onRequestParse` (CSRF, request shape, the schema factory), `onParams`,
 * envelop's parse/validate/context/execute with masking and armor, `onExecutionResult`,
 * `onResultProcess` with Yoga's result processor, and `onResponse` (CORS, request log) — on
 * light request and response objects, and writes the response itself. Everything else (GET,
 * GraphiQL, health, other content types, bodies without a Content-Length or over the limit,
 * streaming Accept types) goes to Yoga's handler untouched. test/gateway/fast-path.test.ts sends
 * one corpus through both paths and compares status, headers and body byte for byte.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { GraphQLError } from 'graphql';
import { createGraphQLError, processRegularResult } from 'graphql-yoga';
import { type Gateway, gatewaySettings } from './create-gateway.ts';

type Hook = (payload: Record<string, unknown>) => unknown;

interface MaskedErrorsOptions {
  maskError(error: unknown, message: string, isDev?: boolean): Error;
  errorMessage: string;
  isDev?: boolean;
}
type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** The listener, and how many requests it served on the fast path (for tests and benches). */
export interface GatewayRequestListener extends Listener {
  readonly fastPathRequests: number;
}

interface YogaInternals {
  plugins: ({ onRequest?: Hook; onResponse?: Hook } | undefined | false)[];
  onRequestParseHooks: Hook[];
  onParamsHooks: Hook[];
  onExecutionResultHooks: Hook[];
  onResultProcessHooks: Hook[];
  handleParams: Hook;
  instrumentation?: unknown;
  fetchAPI: { Response: new (body?: unknown, init?: unknown) => Response };
  waitUntil: (promise: Promise<unknown>) => void;
  maskedErrorsOpts: MaskedErrorsOptions | null;
  logger: { debug(...args: unknown[]): void; error(...args: unknown[]): void };
}

/** Headers over Node's incoming header object: the part of the Fetch API plugins use. */
class IncomingHeaders {
  readonly #raw: IncomingHttpHeaders;
  constructor(raw: IncomingHttpHeaders) {
    this.#raw = raw;
  }
  get(name: string): string | null {
    const value = this.#raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }
  has(name: string): boolean {
    return this.#raw[name.toLowerCase()] !== undefined;
  }
  forEach(callback: (value: string, name: string, headers: IncomingHeaders) => void): void {
    for (const name of Object.keys(this.#raw)) {
      const value = this.get(name);
      if (value !== null) callback(value, name, this);
    }
  }
  *entries(): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.#raw)) {
      const value = this.get(name);
      if (value !== null) yield [name, value];
    }
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
  set(): never {
    throw new TypeError('Request headers are immutable');
  }
  append(): never {
    throw new TypeError('Request headers are immutable');
  }
  delete(): never {
    throw new TypeError('Request headers are immutable');
  }
}

/** A request whose body has been read: what Yoga's hooks and the session read of a Request. */
class BufferedRequest {
  readonly method = 'POST';
  readonly url: string;
  readonly headers: IncomingHeaders;
  readonly body = null;
  readonly bodyUsed = false;
  readonly #text: string;
  readonly #res: ServerResponse;
  #controller: AbortController | undefined;
  constructor(url: string, req: IncomingMessage, res: ServerResponse, text: string) {
    this.url = url;
    this.headers = new IncomingHeaders(req.headers);
    this.#text = text;
    this.#res = res;
  }
  /** Aborts when the client goes away before the response is written (as Yoga's adapter). */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      this.#controller = controller;
      const res = this.#res;
      const onClose = () => {
        if (!controller.signal.aborted) controller.abort(res.errored ?? undefined);
      };
      res.once('close', onClose);
      res.once('error', onClose);
      res.once('finish', () => res.removeListener('close', onClose));
    }
    return this.#controller.signal;
  }
  text(): Promise<string> {
    return Promise.resolve(this.#text);
  }
  json(): Promise<unknown> {
    try {
      return Promise.resolve(JSON.parse(this.#text));
    } catch (error) {
      // The parser's own message; the answer (armor.ts, withoutBodyEcho) keeps only its position.
      return Promise.reject(error);
    }
  }
}

/** Response headers: names lower-cased like Fetch Headers, kept in insertion order. */
class OutgoingHeaders {
  readonly map = new Map<string, [name: string, value: string]>();
  constructor(init?: Record<string, string>) {
    if (init)
      for (const name of Object.keys(init))
        this.map.set(name.toLowerCase(), [name, init[name] as string]);
  }
  get(name: string): string | null {
    return this.map.get(name.toLowerCase())?.[1] ?? null;
  }
  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }
  set(name: string, value: string): void {
    const key = name.toLowerCase();
    this.map.set(key, [this.map.get(key)?.[0] ?? key, String(value)]);
  }
  append(name: string, value: string): void {
    const current = this.get(name);
    this.set(name, current === null ? value : `${current}, ${value}`);
  }
  delete(name: string): void {
    this.map.delete(name.toLowerCase());
  }
  forEach(callback: (value: string, name: string) => void): void {
    for (const [key, [, value]] of this.map) callback(value, key);
  }
}

/** The Response Yoga's result processor builds, as data the fast path writes itself. */
class BufferedResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: OutgoingHeaders;
  readonly bodyText: string | null;
  constructor(
    body?: unknown,
    init?: { status?: number; statusText?: string; headers?: Record<string, string> },
  ) {
    if (body != null && typeof body !== 'string') {
      throw new TypeError('the fast path writes string bodies only');
    }
    this.bodyText = body ?? null;
    this.status = init?.status ?? 200;
    this.statusText = init?.statusText ?? '';
    this.headers = new OutgoingHeaders(init?.headers);
  }
}

const CONTENT_LENGTH = /^\d+$/;

/**
 * Whether a hook returned a promise: most return nothing, and awaiting each of them would cost
 * a microtask turn, a dozen per request.
 */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as PromiseLike<unknown>).then === 'function'
  );
}

function isAbortError(error: unknown): boolean {
  const candidate = error as { constructor?: { name?: string }; name?: string } | null;
  return (
    typeof error === 'object' &&
    candidate?.constructor?.name === 'DOMException' &&
    (candidate.name === 'AbortError' || candidate.name === 'TimeoutError')
  );
}

/** Whether Yoga would parse this content type as JSON (its isContentTypeMatch, for POST). */
function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const first = value.split(',')[0] ?? '';
  return (
    first === 'application/json' ||
    first.startsWith('application/json;') ||
    first === 'application/graphql+json' ||
    first.startsWith('application/graphql+json;')
  );
}

export interface RequestListenerOptions {
  /** Serve JSON POSTs on the fast path. Default true; false = every request through Yoga. */
  fastPath?: boolean;
}

/**
 * The listener for `http.createServer`: JSON POSTs to the endpoint on the fast path, every
 * other request through Yoga's own Node handler.
 */
export function createRequestListener(
  gateway: Gateway,
  options: RequestListenerOptions = {},
): GatewayRequestListener {
  const yoga = gateway as unknown as YogaInternals;
  const yogaListener = gateway as unknown as Listener;
  const masking = yoga.maskedErrorsOpts;
  // Only gateways built by createGateway (whose plugins the fast path knows) take it; with Yoga
  // instrumentation configured, Yoga's handler is the one that runs it.
  const settings = gatewaySettings(gateway);
  if (options.fastPath === false || !settings || yoga.instrumentation || !masking) {
    return Object.assign((req: IncomingMessage, res: ServerResponse) => yogaListener(req, res), {
      fastPathRequests: 0,
    });
  }
  const maxBodyBytes = settings.maxBodyBytes;
  const endpoint = gateway.graphqlEndpoint;
  const onRequestHooks: Hook[] = [];
  const onResponseHooks: Hook[] = [];
  for (const plugin of yoga.plugins) {
    if (!plugin) continue;
    if (plugin.onRequest) onRequestHooks.push(plugin.onRequest);
    if (plugin.onResponse) onResponseHooks.push(plugin.onResponse);
  }
  const requestParseHooks = yoga.onRequestParseHooks;
  const paramsHooks = yoga.onParamsHooks;
  const executionResultHooks = yoga.onExecutionResultHooks;
  const resultHooks = yoga.onResultProcessHooks;
  const fetchAPI = { ...yoga.fetchAPI, Response: BufferedResponse };
  const waitUntil = (promise: Promise<unknown>) => yoga.waitUntil(promise);

  const write = (res: ServerResponse, response: unknown): void => {
    if (res.destroyed || res.writableEnded) return;
    if (response instanceof BufferedResponse) {
      const headers: Record<string, string> = {};
      for (const [name, value] of response.headers.map.values()) headers[name] = value;
      if (response.bodyText !== null && !response.headers.has('content-length')) {
        headers['content-length'] = String(Buffer.byteLength(response.bodyText));
      }
      if (response.statusText) res.writeHead(response.status, response.statusText, headers);
      else res.writeHead(response.status, headers);
      res.end(response.bodyText ?? undefined);
      return;
    }
    // A hook answered with a real Response (none of ours does for a JSON POST).
    const real = response as Response;
    void real.arrayBuffer().then((body) => {
      const headers: Record<string, string> = {};
      real.headers.forEach((value, name) => {
        headers[name] = value;
      });
      res.writeHead(real.status, real.statusText, headers);
      res.end(Buffer.from(body));
    });
  };

  const respond = async (
    request: BufferedRequest,
    serverContext: Record<string, unknown>,
  ): Promise<unknown> => {
    let early: unknown;
    let url: URL | undefined;
    const lazyUrl = new Proxy(
      {},
      {
        get: (_target, prop) => {
          url ??= new URL(request.url);
          return Reflect.get(url, prop, url);
        },
      },
    );
    for (const hook of onRequestHooks) {
      let stop = false;
      const pending = hook({
        request,
        setRequest() {
          throw new Error('the fast path does not replace requests');
        },
        serverContext,
        fetchAPI,
        url: lazyUrl,
        requestHandler: undefined,
        setRequestHandler() {
          throw new Error('the fast path does not replace the request handler');
        },
        endResponse(response: unknown) {
          early = response;
          if (response) stop = true;
        },
      });
      if (isThenable(pending)) await pending;
      if (stop) break;
    }
    let response = early ?? (await handle(request, serverContext, lazyUrl));
    for (const hook of onResponseHooks) {
      const pending = hook({
        request,
        response,
        serverContext,
        setResponse(next: unknown) {
          response = next;
        },
        fetchAPI,
      });
      if (isThenable(pending)) await pending;
    }
    return response;
  };

  /** Yoga's `handle`, minus instrumentation, on the buffered request. */
  const handle = async (
    request: BufferedRequest,
    serverContext: Record<string, unknown>,
    url: unknown,
  ) => {
    let result: unknown;
    try {
      const parsed = await parseRequest(request, serverContext, url);
      if (parsed.response) return parsed.response;
      result = await resultForParams(parsed.requestParserResult, request, serverContext);
    } catch (error) {
      result = { errors: handleErrorOf(error) };
    }
    return processResult(request, result, serverContext);
  };

  /**
   * Yoga's `parseRequest` (its `onRequestParse` hooks, the parser they chose, then their
   * `onRequestParseDone` hooks), in plain loops: Yoga chains each hook through promise helpers,
   * two closures and a wrapper per hook, about 25 µs a request for hooks that return nothing.
   */
  const parseRequest = async (
    request: BufferedRequest,
    serverContext: Record<string, unknown>,
    url: unknown,
  ): Promise<{ response?: unknown; requestParserResult?: unknown }> => {
    let requestParser: ((request: unknown) => unknown) | undefined;
    let response: unknown;
    let ended = false;
    const doneHooks: Hook[] = [];
    for (const hook of requestParseHooks) {
      let returned = hook({
        request,
        url,
        requestParser,
        serverContext,
        setRequestParser(parser: typeof requestParser) {
          requestParser = parser;
        },
        endResponse(early: unknown) {
          response = early;
          ended = true;
        },
        fetchAPI: yoga.fetchAPI,
      });
      if (isThenable(returned)) returned = await returned;
      const done = (returned as { onRequestParseDone?: Hook } | undefined)?.onRequestParseDone;
      if (done) doneHooks.push(done);
      if (ended) break;
    }
    if (response) return { response };
    yoga.logger.debug('Parsing request to extract GraphQL parameters');
    if (!requestParser) {
      return {
        response: new yoga.fetchAPI.Response(null, {
          status: 415,
          statusText: 'Unsupported Media Type',
        }),
      };
    }
    let parsed = requestParser(request);
    if (isThenable(parsed)) parsed = await parsed;
    const maybeResponse = parsed as { status?: unknown; headers?: unknown } | undefined;
    if (maybeResponse?.status && maybeResponse.headers) return { response: parsed };
    let requestParserResult = parsed;
    for (const hook of doneHooks) {
      const pending = hook({
        requestParserResult,
        setRequestParserResult(next: unknown) {
          requestParserResult = next;
        },
      });
      if (isThenable(pending)) await pending;
    }
    return { requestParserResult };
  };

  /** Yoga's `getResultForParams` (`onParams`, its params handler, `onExecutionResult`), likewise. */
  const resultForParams = async (
    initial: unknown,
    request: BufferedRequest,
    context: Record<string, unknown>,
  ): Promise<unknown> => {
    let params = initial;
    let result: unknown;
    let paramsHandler = yoga.handleParams;
    for (const hook of paramsHooks) {
      const pending = hook({
        params,
        request,
        setParams(next: unknown) {
          params = next;
        },
        paramsHandler,
        setParamsHandler(next: Hook) {
          paramsHandler = next;
        },
        setResult(next: unknown) {
          result = next;
        },
        fetchAPI: yoga.fetchAPI,
        context,
      });
      if (isThenable(pending)) await pending;
    }
    if (!result) {
      result = paramsHandler({ request, params, context });
      if (isThenable(result)) result = await result;
    }
    for (const hook of executionResultHooks) {
      const pending = hook({
        result,
        setResult(next: unknown) {
          result = next;
        },
        request,
        context,
      });
      if (isThenable(pending)) await pending;
    }
    return result;
  };

  /** Yoga's handling of an error thrown outside execution (its `handleError`, masked). */
  const handleErrorOf = (error: unknown, into = new Set<GraphQLError>()): GraphQLError[] => {
    if (error !== null && typeof error === 'object' && 'errors' in error) {
      for (const one of (error as { errors: unknown[] }).errors) handleErrorOf(one, into);
    } else if (isAbortError(error)) {
      yoga.logger.debug('Request aborted');
    } else {
      const masked = masking.maskError(error, masking.errorMessage, masking.isDev);
      if (masked !== error) yoga.logger.error(error);
      into.add(
        masked instanceof GraphQLError
          ? masked
          : createGraphQLError(masked.message, { originalError: masked }),
      );
    }
    return [...into];
  };

  const processResult = async (
    request: BufferedRequest,
    initial: unknown,
    serverContext: unknown,
  ): Promise<unknown> => {
    let result = initial;
    let processor: ((r: unknown, f: unknown, t: string) => unknown) | undefined;
    let accepted = '*/*';
    const acceptableMediaTypes: string[] = [];
    for (const hook of resultHooks) {
      const pending = hook({
        request,
        acceptableMediaTypes,
        result,
        setResult(next: unknown) {
          result = next;
        },
        resultProcessor: processor,
        setResultProcessor(next: typeof processor, mediaType: string) {
          processor = next;
          accepted = mediaType;
        },
        serverContext,
      });
      if (isThenable(pending)) await pending;
    }
    if (!processor) {
      return new BufferedResponse(null, {
        status: 406,
        statusText: 'Not Acceptable',
        headers: { accept: acceptableMediaTypes.join('; charset=utf-8, ') },
      });
    }
    if (processor !== processRegularResult) {
      return processor(result, yoga.fetchAPI, accepted);
    }
    return processRegularResult(result as never, fetchAPI as never, accepted);
  };

  let fastPathRequests = 0;
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const headers = req.headers;
    const length = headers['content-length'];
    const accept = headers.accept;
    if (
      req.method !== 'POST' ||
      req.url !== endpoint ||
      length === undefined ||
      !CONTENT_LENGTH.test(length) ||
      Number(length) > maxBodyBytes ||
      headers['transfer-encoding'] !== undefined ||
      !isJsonContentType(headers['content-type']) ||
      (accept !== undefined && (accept.includes('event-stream') || accept.includes('multipart')))
    ) {
      yogaListener(req, res);
      return;
    }
    fastPathRequests += 1;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString(
        'utf-8',
      );
      const request = new BufferedRequest(
        `http://${headers.host ?? 'localhost'}${endpoint}`,
        req,
        res,
        text,
      );
      const serverContext = { req, res, waitUntil };
      respond(request, serverContext).then(
        (response) => write(res, response),
        (error: unknown) => {
          // What Yoga's adapter answers when its own handler throws.
          const failure = error as { stack?: string; message?: string; status?: number };
          write(
            res,
            new BufferedResponse(String(failure?.stack ?? failure?.message ?? error), {
              status: failure?.status ?? 500,
            }),
          );
        },
      );
    });
    req.on('error', () => res.destroy());
  };
  return Object.defineProperty(listener, 'fastPathRequests', {
    get: () => fastPathRequests,
  }) as GatewayRequestListener;
}
