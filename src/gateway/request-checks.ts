/**
 * What a request must be before it is read as a GraphQL request: not one a browser could send
 * from another site without a preflight (CSRF prevention), and in a form a parser reads, with a
 * refusal that says which and never quotes the body. Both run in `onRequestParse`, after
 * GraphiQL and the health endpoints have answered.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import {
  BadRequestError,
  CsrfPreventedError,
  type RequestError,
  UnsupportedMediaTypeError,
} from '../upstream/errors.ts';
import type { RequestLike } from '../upstream/index.ts';

/** A request parser of Yoga's (which reads a request into GraphQL params). */
type RequestParser = NonNullable<
  Parameters<NonNullable<Plugin['onRequestParse']>>[0]['requestParser']
>;

/**
 * Headers that prove a request was preflighted or sent by a non-browser client. The same names
 * as Yoga's and Apollo's CSRF prevention, so existing clients work unchanged.
 */
export const CSRF_HEADERS = [
  'x-graphql-yoga-csrf',
  'apollo-require-preflight',
  'x-apollo-operation-name',
];

// Content types a cross-site <form> or fetch can send without a CORS preflight.
const SIMPLE_CONTENT_TYPES = new Set([
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
]);

/** The GraphQL error that answers a request refused as a whole, with its HTTP status. */
function answer(refusal: RequestError): GraphQLError {
  return new GraphQLError(refusal.message, { extensions: refusal.answerExtensions });
}

function csrfError(): GraphQLError {
  return answer(
    new CsrfPreventedError(
      'This request could have been sent by another site. Send it as application/json, or add ' +
        'an x-graphql-yoga-csrf header',
    ),
  );
}

/**
 * Apollo-style CSRF prevention: a request passes when a browser must have preflighted it (a
 * content type outside the three "simple" ones) or when it carries one of CSRF_HEADERS. GET
 * requests carry no content type, so a GET query needs the header. Checked when the request is
 * parsed, after GraphiQL and the health endpoints have answered.
 */
export function csrfPreventionPlugin(headers: readonly string[] = CSRF_HEADERS): Plugin {
  return {
    onRequestParse({ request }) {
      // A browser's EventSource (a subscription over SSE) can set no header at all. A GET runs no
      // mutation, and the gateway has no ambient credential (no cookie) another site could
      // borrow: its token is in the request itself (isEventSourceRequest).
      if (isEventSourceRequest(request)) return;
      // The content type first: a JSON request (nearly all of them) needs no other header read.
      const contentType = request.headers.get('content-type');
      if (contentType === 'application/json') return;
      const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
      if (contentType !== null && type !== '' && !SIMPLE_CONTENT_TYPES.has(type)) return;
      if (headers.some((name) => (request.headers.get(name) ?? '') !== '')) return;
      throw csrfError();
    },
  };
}

/**
 * Yoga answers a POST body that is not JSON with `extensions.originalError` holding the JSON
 * parser's message, which quotes the whole body (a password in a sign-in mutation with it) in
 * every mode, production included. The answer here says where the JSON broke, never what it
 * held, and is the same in development: a body is the caller's, not a debugging aid.
 */
function withoutBodyEcho(error: GraphQLError): GraphQLError {
  const original = error.extensions?.originalError as { message?: unknown } | undefined;
  if (original === undefined) return error;
  const parserMessage = typeof original.message === 'string' ? original.message : '';
  const position = / at position (\d+)/.exec(parserMessage)?.[1];
  const where = parserMessage.startsWith('Unexpected end of JSON input')
    ? ': it ends before the JSON value does'
    : position === undefined
      ? ''
      : ` (at character ${position})`;
  return answer(new BadRequestError(`The request body is not valid JSON${where}`));
}

/** A parser's failure as the coded error a client receives (see requestShapePlugin). */
function parseFailure(error: unknown): GraphQLError {
  if (error instanceof GraphQLError) return withoutBodyEcho(error);
  return answer(new BadRequestError('The request could not be parsed as a GraphQL request'));
}

function rethrowParseFailure(error: unknown): never {
  throw parseFailure(error);
}

/**
 * Requests Yoga cannot parse become coded GraphQL errors instead of a bare 415 or a 500:
 * an unsupported content type → 415 UNSUPPORTED_MEDIA_TYPE; a parser failure (e.g. GET
 * `variables=` that is not JSON, which Yoga would let escape as a 500) → 400 BAD_REQUEST; a
 * POST body that is not JSON → 400 BAD_REQUEST that never quotes the body.
 */
export function requestShapePlugin(): Plugin {
  // Yoga's parsers are a few module-level functions: each is wrapped once, not per request.
  const wrapped = new WeakMap<RequestParser, RequestParser>();
  const shaped = (requestParser: RequestParser): RequestParser => {
    let parser = wrapped.get(requestParser);
    if (parser === undefined) {
      // No async function: a parse that succeeds costs no extra promise and await.
      parser = (req) => {
        try {
          const parsed = requestParser(req);
          // A real promise is given back by Promise.resolve as it is; a thenable is adopted.
          return typeof (parsed as PromiseLike<unknown> | undefined)?.then === 'function'
            ? Promise.resolve(parsed).catch(rethrowParseFailure)
            : parsed;
        } catch (error) {
          return Promise.reject(parseFailure(error));
        }
      };
      wrapped.set(requestParser, parser);
    }
    return parser;
  };
  return {
    onRequestParse({ requestParser, setRequestParser }) {
      if (!requestParser) {
        throw answer(
          new UnsupportedMediaTypeError(
            'Send GraphQL requests as application/json (POST) or as GET query parameters',
          ),
        );
      }
      setRequestParser(shaped(requestParser));
    },
  };
}

/** A GET asking for an event stream, as a browser's EventSource sends it. */
export function isEventSourceRequest(request: Request): boolean {
  return (
    request.method === 'GET' &&
    (request.headers.get('accept') ?? '').toLowerCase().includes('text/event-stream')
  );
}

/**
 * The request's credentials as the session reads them (src/upstream/session.ts). A browser's
 * EventSource cannot send Authorization, so a GET event stream may carry the bearer token as
 * `access_token` in its query (RFC 6750, section 2.3) when it sends no Authorization. The query
 * string is never logged nor traced (./logging.ts, ./tracing.ts write the path only). Anything
 * else is the request itself.
 */
export function credentialsOf(request: Request): RequestLike {
  if (!isEventSourceRequest(request) || request.headers.has('authorization')) return request;
  const query = request.url.indexOf('?');
  if (query < 0) return request;
  const token = new URLSearchParams(request.url.slice(query + 1)).get('access_token');
  if (token === null || token === '') return request;
  return {
    signal: request.signal,
    headers: {
      get: (name) =>
        name.toLowerCase() === 'authorization' ? `Bearer ${token}` : request.headers.get(name),
    },
  };
}
