/**
 * Yoga's request pipeline, run by the fast path (./fast-path.ts) on the objects of
 * ./fast-path-shims.ts: every plugin's `onRequest`, `onRequestParse` and its parser,
 * `onRequestParseDone`, `onParams` and Yoga's params handler (envelop's parse, validate,
 * context and execute, with masking and armor), `onExecutionResult`, `onResultProcess` with
 * Yoga's result processor, and `onResponse`, in the order Yoga runs them, in plain loops. A
 * hook that returns a promise is awaited; one that returns nothing costs no microtask turn.
 */
import { GraphQLError } from 'graphql';
import { createGraphQLError, processRegularResult } from 'graphql-yoga';
import { type BufferedRequest, BufferedResponse } from './fast-path-shims.ts';

type Hook = (payload: Record<string, unknown>) => unknown;

export interface MaskedErrorsOptions {
  maskError(error: unknown, message: string, isDev?: boolean): Error;
  errorMessage: string;
  isDev?: boolean;
}

/** What the fast path reads of a Yoga instance beyond its public type. */
export interface YogaInternals {
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

/** Answers one buffered request: the response to write (a BufferedResponse, or a hook's own). */
export type Pipeline = (
  request: BufferedRequest,
  serverContext: Record<string, unknown>,
) => Promise<unknown>;

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

/** The pipeline of one Yoga instance, its hooks collected once. */
export function createPipeline(yoga: YogaInternals, masking: MaskedErrorsOptions): Pipeline {
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
   * two closures and a wrapper per hook, a cost on every request even for hooks that return
   * nothing (docs/benchmarks.md: the hot path against other gateways).
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

  return respond;
}
