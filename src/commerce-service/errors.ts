/**
 * The one module that owns the service's error body. Every failure leaves the service as a
 * JSON:API error document, `{"errors":[{"status":400,"title":"Bad Request","detail":"…"}]}`,
 * with `status` a number (clients of the production API must tolerate a string too).
 *
 * Route code throws `ApiError` (through the helpers below); fastify's own client errors (bad
 * JSON, wrong content type, body too large, bad URL) are translated by `registerErrorHandling`.
 * Anything else is a bug: it is logged and answered with a generic 500 that leaks nothing.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Standard reason phrases, used as the error object's `title`. */
const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Request Entity Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function titleFor(status: number): string {
  return TITLES[status] ?? (status >= 500 ? 'Internal Server Error' : 'Bad Request');
}

/** One JSON:API error object as the service sends it. */
export interface ApiErrorObject {
  status: number;
  title: string;
  detail: string;
  /** The request part the error is about: a body pointer (`data.name`) or a query parameter. */
  source?: string;
}

/** A client error the service answers on purpose, with a detail the client can act on. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly source: string | undefined;
  /** Extra response headers (e.g. `WWW-Authenticate` on a 401). */
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    detail: string,
    options: { title?: string; source?: string; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.status = status;
    this.title = options.title ?? titleFor(status);
    this.detail = detail;
    this.source = options.source;
    this.headers = options.headers ?? {};
  }

  toJSON(): ApiErrorObject {
    const body: ApiErrorObject = { status: this.status, title: this.title, detail: this.detail };
    if (this.source !== undefined) body.source = this.source;
    return body;
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

export const badRequest = (detail: string, source?: string): ApiError =>
  new ApiError(400, detail, { source });
export const unauthorized = (detail: string): ApiError =>
  new ApiError(401, detail, { headers: { 'www-authenticate': 'Bearer' } });
export const forbidden = (detail: string): ApiError => new ApiError(403, detail);
export const notFound = (detail: string): ApiError => new ApiError(404, detail);
export const conflict = (detail: string, source?: string): ApiError =>
  new ApiError(409, detail, { source });
export const preconditionFailed = (detail: string): ApiError => new ApiError(412, detail);
export const payloadTooLarge = (detail: string): ApiError => new ApiError(413, detail);
export const unprocessable = (detail: string, source?: string): ApiError =>
  new ApiError(422, detail, { source });

/** Writes an error document; the one place that builds the `errors` array. */
export function sendApiError(reply: FastifyReply, error: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send({ errors: [error.toJSON()] });
}

/** Details for fastify's own client errors, phrased for someone fixing their request. */
function fromFastifyError(error: FastifyError, request: FastifyRequest): ApiError | undefined {
  const contentType = request.headers['content-type'];
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return badRequest('The request body is not valid JSON.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return badRequest('The request body is empty but Content-Type says JSON; send a JSON body.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(
        415,
        `Content-Type ${contentType ? `"${contentType}"` : '(missing)'} is not supported here; ` +
          'send application/json.',
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return payloadTooLarge('The request body is larger than the service accepts.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return badRequest('The request body size does not match its Content-Length header.');
    case 'FST_ERR_BAD_URL':
      return badRequest('The request URL is malformed (bad percent-encoding).');
    case 'FST_ERR_VALIDATION':
      return badRequest(error.message);
    default:
      break;
  }
  // Safety nets for writes racing another connection (e.g. the seed CLI): the routes check
  // uniqueness first, so these are rare, but they are conflicts and waits, not server bugs.
  const sqliteCode = (error as { code?: unknown }).code;
  if (typeof sqliteCode === 'string' && sqliteCode.startsWith('SQLITE_CONSTRAINT_UNIQUE')) {
    return conflict('The request conflicts with an existing record.');
  }
  if (sqliteCode === 'SQLITE_BUSY') {
    return new ApiError(503, 'The database is busy; retry the request.');
  }
  const status = error.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    // Remaining fastify/plugin client errors (e.g. multipart limits) carry safe messages.
    return new ApiError(status, error.message || titleFor(status));
  }
  return undefined;
}

/**
 * Installs the error handler, the not-found handler, and nothing else. Register it on the root
 * instance before any route plugin so every encapsulated context inherits it.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (isApiError(error)) return sendApiError(reply, error);
    const mapped = fromFastifyError(error, request);
    if (mapped) return sendApiError(reply, mapped);
    request.log.error({ err: error }, 'unexpected error while handling a request');
    return sendApiError(
      reply,
      new ApiError(500, 'The service failed to handle this request; it has been logged.'),
    );
  });
  app.setNotFoundHandler((request, reply) =>
    sendApiError(
      reply,
      notFound(`No route ${request.method} ${request.url.split('?')[0] ?? ''} in this service.`),
    ),
  );
}

/** For fastify's `frameworkErrors` option: bad URLs never reach the error handler otherwise. */
export function frameworkErrorHandler(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const mapped = fromFastifyError(error, request) ?? badRequest(error.message);
  void sendApiError(reply, mapped);
}
