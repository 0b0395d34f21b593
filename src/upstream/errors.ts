/**
 * The gateway's one family of errors. Each class carries a stable `code` (surfaced to GraphQL
 * clients as `extensions.code`), the HTTP status the upstream answered (when there was one) and
 * the underlying `cause`. Only these errors reach clients with their message; anything else is
 * masked by Yoga. Messages never contain a bearer token.
 *
 * The family also names the refusals of a request or a document before any operation runs
 * (QueryTooComplexError, and the RequestErrors with the HTTP status of the answer), so this module
 * lists every code a client can receive: CLIENT_ERROR_CODES, which docs/errors.md's table of codes
 * matches (test/gateway/error-codes.test.ts).
 */

export type GatewayErrorCode =
  | 'BAD_USER_INPUT'
  | 'UNAUTHENTICATED'
  | 'INVALID_CREDENTIALS'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PRECONDITION_FAILED'
  | 'ENTRY_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'UPSTREAM_UNAVAILABLE'
  | 'UPSTREAM_BUDGET_EXCEEDED'
  | 'OFFSET_LIMIT_EXCEEDED'
  | 'OUT_OF_STOCK'
  | 'PRICE_NOT_FOUND'
  | 'VALUE_OUT_OF_RANGE'
  | 'WRITE_COMMITTED'
  | 'CLIENT_CLOSED_REQUEST'
  | 'EVENTS_MISSED'
  // Refusals of the request or the document, before any operation runs (below).
  | 'QUERY_TOO_COMPLEX'
  | 'BAD_REQUEST'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'CSRF_PREVENTED'
  | 'PERSISTED_QUERY_ONLY'
  | 'PERSISTED_QUERY_NOT_FOUND'
  | 'NOT_ACCEPTABLE';

export interface GatewayErrorOptions {
  /** Status of the upstream response that caused this error, if any. */
  upstreamStatus?: number;
  /** The input field (dotted path) the error is about, for input errors. */
  field?: string;
  cause?: unknown;
}

export abstract class GatewayError extends Error {
  abstract readonly code: GatewayErrorCode;
  readonly upstreamStatus: number | undefined;
  readonly field: string | undefined;

  constructor(message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.upstreamStatus = options.upstreamStatus;
    this.field = options.field;
  }

  /** What a client may see beside the message: the code, and the field when there is one. */
  get extensions(): Record<string, unknown> {
    const extensions: Record<string, unknown> = { code: this.code };
    if (this.field !== undefined) extensions.field = this.field;
    if (this.upstreamStatus !== undefined) extensions.upstreamStatus = this.upstreamStatus;
    return extensions;
  }
}

/** Input that the gateway or the upstream judged invalid (upstream 400 and 422). */
export class BadUserInputError extends GatewayError {
  override name = 'BadUserInputError';
  readonly code = 'BAD_USER_INPUT';
}

/** No bearer token, or the upstream refused it (401). */
export class UnauthenticatedError extends GatewayError {
  override name = 'UnauthenticatedError';
  readonly code = 'UNAUTHENTICATED';
  /**
   * What the upstream said about its 401 (tokens redacted), for telling a refused sign-in from
   * a refused token (src/schema/customer.ts); never shown to clients.
   */
  readonly upstreamDetail: string | undefined;

  constructor(message: string, options: GatewayErrorOptions & { upstreamDetail?: string } = {}) {
    super(message, options);
    this.upstreamDetail = options.upstreamDetail;
  }
}

/**
 * A sign-in (a customer's or an account member's) whose credentials the upstream did not
 * accept (its 401 to the sign-in itself). The message never says which credential was wrong
 * nor repeats any of them.
 */
export class InvalidCredentialsError extends GatewayError {
  override name = 'InvalidCredentialsError';
  readonly code = 'INVALID_CREDENTIALS';
}

/** The token may not do this (403), e.g. an implicit (read-only) token writing. */
export class ForbiddenError extends GatewayError {
  override name = 'ForbiddenError';
  readonly code = 'FORBIDDEN';
}

/** The upstream has no such resource in the caller's store (404). */
export class NotFoundError extends GatewayError {
  override name = 'NotFoundError';
  readonly code = 'NOT_FOUND';
}

/** A duplicate or conflicting write (409). */
export class ConflictError extends GatewayError {
  override name = 'ConflictError';
  readonly code = 'CONFLICT';
}

/** An `If-Match` etag no longer matches the resource (412). */
export class PreconditionFailedError extends GatewayError {
  override name = 'PreconditionFailedError';
  readonly code = 'PRECONDITION_FAILED';
}

/** A Custom API entry over the 64 KB limit (413). */
export class EntryTooLargeError extends GatewayError {
  override name = 'EntryTooLargeError';
  readonly code = 'ENTRY_TOO_LARGE';
}

/** The upstream rate-limited the caller (429). */
export class RateLimitedError extends GatewayError {
  override name = 'RateLimitedError';
  readonly code = 'RATE_LIMITED';
  /** Milliseconds the upstream asked us to wait (`Retry-After`), when it said. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: GatewayErrorOptions & { retryAfterMs?: number } = {}) {
    super(message, options);
    this.retryAfterMs = options.retryAfterMs;
  }
}

/**
 * The upstream could not give a usable answer: connection refused or reset, timeout, 5xx, a body
 * that is not the JSON it should be, or an open circuit breaker.
 */
export class UpstreamUnavailableError extends GatewayError {
  override name = 'UpstreamUnavailableError';
  readonly code = 'UPSTREAM_UNAVAILABLE';
  /** Why, for retry decisions and logs: never shown with internals to clients. */
  readonly reason:
    | 'connect'
    | 'timeout'
    | 'reset'
    | 'status'
    | 'invalid-body'
    | 'circuit-open'
    | 'aborted'
    | 'deadline';

  constructor(
    message: string,
    options: GatewayErrorOptions & { reason: UpstreamUnavailableError['reason'] },
  ) {
    super(message, options);
    this.reason = options.reason;
  }
}

/** The plan for one operation would need more upstream calls than its budget allows. */
export class UpstreamBudgetExceededError extends GatewayError {
  override name = 'UpstreamBudgetExceededError';
  readonly code = 'UPSTREAM_BUDGET_EXCEEDED';
}

/**
 * A page of a list that can only be paged by offset and whose upstream refuses offsets past its
 * limit (10,000: a `hard` list) lies beyond it. Refused before the call; a filter narrows the
 * list, and a keyset list (a sortKey) reaches any depth.
 */
export class OffsetLimitExceededError extends GatewayError {
  override name = 'OffsetLimitExceededError';
  readonly code = 'OFFSET_LIMIT_EXCEEDED';
}

/** A catalog product asked for in a quantity its stock does not have (upstream 400). */
export class OutOfStockError extends GatewayError {
  override name = 'OutOfStockError';
  readonly code = 'OUT_OF_STOCK';
}

/** A catalog product with no price in the cart's currency, so it cannot be added (upstream 400). */
export class PriceNotFoundError extends GatewayError {
  override name = 'PriceNotFoundError';
  readonly code = 'PRICE_NOT_FOUND';
}

/**
 * The upstream sent a value this API's types cannot carry (an amount or a quantity beyond
 * GraphQL's 32-bit `Int`, e.g. an order written before amounts were bounded). Raised where the
 * value is read, so it is an error of that field only; retrying does not help.
 */
export class ValueOutOfRangeError extends GatewayError {
  override name = 'ValueOutOfRangeError';
  readonly code = 'VALUE_OUT_OF_RANGE';
}

/**
 * A write succeeded upstream, but part of the mutation's answer could not be built (a value out
 * of range, a follow-up read that failed). Never retry the write: it happened. `causeCode` is
 * the code of what went wrong with the answer.
 */
export class WriteCommittedError extends GatewayError {
  override name = 'WriteCommittedError';
  readonly code = 'WRITE_COMMITTED';
  readonly causeCode: string;

  constructor(message: string, causeCode: string, options: GatewayErrorOptions = {}) {
    super(message, options);
    this.causeCode = causeCode;
  }

  override get extensions(): Record<string, unknown> {
    return { ...super.extensions, causeCode: this.causeCode };
  }
}

/**
 * The client went away (closed its connection) before the answer was ready, so the operation's
 * upstream calls were cancelled. Nobody receives this error: it exists so that logs and metrics
 * say what happened (nginx's 499, "client closed request") instead of blaming the upstream, and
 * so that the circuit breaker never counts it.
 */
export class ClientClosedRequestError extends GatewayError {
  override name = 'ClientClosedRequestError';
  readonly code = 'CLIENT_CLOSED_REQUEST';
  /** As UpstreamUnavailableError's: what an upstream attempt's metrics and span are labelled. */
  readonly reason = 'client-closed';
}

export function isGatewayError(error: unknown): error is GatewayError {
  return error instanceof GatewayError;
}

/**
 * The gateway error inside whatever GraphQL wrapped around it (`originalError`, a few levels
 * deep), if there is one.
 */
export function findGatewayError(error: unknown): GatewayError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth += 1) {
    if (isGatewayError(current)) return current;
    current =
      typeof current === 'object' && 'originalError' in current
        ? (current as { originalError?: unknown }).originalError
        : undefined;
  }
  return undefined;
}

/**
 * A subscription asked to resume after an event (`Last-Event-ID`, `after:`) older than the replay
 * window: events since were dropped, so the client must read the state afresh, then subscribe
 * without it.
 */
export class EventsMissedError extends GatewayError {
  override name = 'EventsMissedError';
  readonly code = 'EVENTS_MISSED';
}

/**
 * A document over one of the limits judged before it runs (depth, aliases, tokens, directives,
 * cost, name length): `extensions.limit` names the limit and `maximum` gives its value.
 */
export class QueryTooComplexError extends GatewayError {
  override name = 'QueryTooComplexError';
  readonly code = 'QUERY_TOO_COMPLEX';
  readonly limit: string;
  readonly maximum: number;

  constructor(message: string, options: GatewayErrorOptions & { limit: string; maximum: number }) {
    super(message, options);
    this.limit = options.limit;
    this.maximum = options.maximum;
  }

  override get extensions(): Record<string, unknown> {
    return { ...super.extensions, limit: this.limit, maximum: this.maximum };
  }
}

/**
 * A request refused as a whole before any operation runs: its answer has no `data`, and
 * `httpStatus` is the HTTP status of that answer.
 */
export abstract class RequestError extends GatewayError {
  abstract readonly httpStatus: number;

  /**
   * The extensions of the GraphQL error that answers it: what the client sees, and the status
   * under `http`, where Yoga reads it (and which it never sends).
   */
  get answerExtensions(): Record<string, unknown> {
    return { ...this.extensions, http: { status: this.httpStatus } };
  }
}

/** A request the gateway cannot read as a GraphQL request (a body that is not JSON, say). */
export class BadRequestError extends RequestError {
  override name = 'BadRequestError';
  readonly code = 'BAD_REQUEST';
  readonly httpStatus = 400;
}

/** A POST whose content type no request parser understands. */
export class UnsupportedMediaTypeError extends RequestError {
  override name = 'UnsupportedMediaTypeError';
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
  readonly httpStatus = 415;
}

/** A request a browser could have sent from another site without a preflight (CSRF). */
export class CsrfPreventedError extends RequestError {
  override name = 'CsrfPreventedError';
  readonly code = 'CSRF_PREVENTED';
  readonly httpStatus = 403;
}

/** Query text, or no document id, sent to a gateway that runs only trusted documents. */
export class PersistedQueryOnlyError extends RequestError {
  override name = 'PersistedQueryOnlyError';
  readonly code = 'PERSISTED_QUERY_ONLY';
  readonly httpStatus = 400;
}

/** A document id that the trusted documents' manifest does not list. */
export class PersistedQueryNotFoundError extends RequestError {
  override name = 'PersistedQueryNotFoundError';
  readonly code = 'PERSISTED_QUERY_NOT_FOUND';
  readonly httpStatus = 400;
}

/**
 * A caller over the gateway's own per-caller limit (`CALLER_RATE_LIMIT`, src/gateway/caller-limit.ts),
 * refused before anything runs: HTTP 429 with `Retry-After` (whole seconds), and the same wait
 * in `extensions.retryAfter` (seconds) for clients that read only the body. Same code as the
 * upstream's 429 (RateLimitedError): to the client both mean "slow down".
 */
export class CallerRateLimitedError extends RequestError {
  override name = 'CallerRateLimitedError';
  readonly code = 'RATE_LIMITED';
  readonly httpStatus = 429;
  /** Whole seconds to wait, at least 1. */
  readonly retryAfterSeconds: number;

  constructor(message: string, options: GatewayErrorOptions & { retryAfterMs?: number } = {}) {
    super(message, options);
    this.retryAfterSeconds = Math.max(1, Math.ceil((options.retryAfterMs ?? 1_000) / 1_000));
  }

  override get extensions(): Record<string, unknown> {
    return { ...super.extensions, retryAfter: this.retryAfterSeconds };
  }

  override get answerExtensions(): Record<string, unknown> {
    return {
      ...this.extensions,
      http: { status: this.httpStatus, headers: { 'retry-after': String(this.retryAfterSeconds) } },
    };
  }
}

/**
 * An operation with `@defer` or `@stream` from a client that accepts neither multipart/mixed nor
 * text/event-stream: its answer would come in several parts, which a JSON answer cannot carry.
 */
export class NotAcceptableError extends RequestError {
  override name = 'NotAcceptableError';
  readonly code = 'NOT_ACCEPTABLE';
  readonly httpStatus = 406;
}

/**
 * Every code of the classes above, each once (the type makes the list complete). A new class
 * adds its code here and a row to docs/errors.md's table of error codes; the test checks both.
 */
const GATEWAY_CODES: Record<GatewayErrorCode, true> = {
  BAD_USER_INPUT: true,
  UNAUTHENTICATED: true,
  INVALID_CREDENTIALS: true,
  FORBIDDEN: true,
  NOT_FOUND: true,
  CONFLICT: true,
  PRECONDITION_FAILED: true,
  ENTRY_TOO_LARGE: true,
  RATE_LIMITED: true,
  UPSTREAM_UNAVAILABLE: true,
  UPSTREAM_BUDGET_EXCEEDED: true,
  OFFSET_LIMIT_EXCEEDED: true,
  OUT_OF_STOCK: true,
  PRICE_NOT_FOUND: true,
  VALUE_OUT_OF_RANGE: true,
  WRITE_COMMITTED: true,
  CLIENT_CLOSED_REQUEST: true,
  EVENTS_MISSED: true,
  QUERY_TOO_COMPLEX: true,
  BAD_REQUEST: true,
  UNSUPPORTED_MEDIA_TYPE: true,
  CSRF_PREVENTED: true,
  PERSISTED_QUERY_ONLY: true,
  PERSISTED_QUERY_NOT_FOUND: true,
  NOT_ACCEPTABLE: true,
};

/** The codes of the gateway's own errors. */
export const GATEWAY_ERROR_CODES = Object.keys(GATEWAY_CODES) as readonly GatewayErrorCode[];

/**
 * Codes that Yoga gives its own answers, which reach clients unchanged: a document that does not
 * parse or validate, an operation name the document lacks, a body over MAX_BODY_BYTES, Yoga's
 * own request checks (BAD_REQUEST, as the gateway's), and anything unexpected, masked.
 */
export const YOGA_ERROR_CODES = [
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'OPERATION_RESOLUTION_FAILURE',
  'REQUEST_ENTITY_TOO_LARGE',
  'BAD_REQUEST',
  'INTERNAL_SERVER_ERROR',
] as const;

export type YogaErrorCode = (typeof YOGA_ERROR_CODES)[number];

/** Every `extensions.code` a client of the gateway can receive. */
export const CLIENT_ERROR_CODES: readonly (GatewayErrorCode | YogaErrorCode)[] = [
  ...new Set([...GATEWAY_ERROR_CODES, ...YOGA_ERROR_CODES]),
];

/**
 * The codes a mutation answers in its payload's `userErrors` instead of as a top-level error:
 * what the caller can correct by changing the input (a bad field, an id of nothing, a conflict
 * such as a taken username or a code already on the cart, a stale `ifMatch`, an entry too large,
 * a product out of stock or without a price). Everything else (authentication, a refused sign-in,
 * authorization, rate limits, transport, the upstream, the query budget) stays a top-level error.
 * docs/errors.md ("which is which") says the same.
 */
export const USER_ERROR_CODES = [
  'BAD_USER_INPUT',
  'NOT_FOUND',
  'CONFLICT',
  'PRECONDITION_FAILED',
  'ENTRY_TOO_LARGE',
  'OUT_OF_STOCK',
  'PRICE_NOT_FOUND',
] as const satisfies readonly GatewayErrorCode[];

export type UserErrorCode = (typeof USER_ERROR_CODES)[number];

const USER_ERROR_CODE_SET: ReadonlySet<string> = new Set(USER_ERROR_CODES);

/** A gateway error a mutation answers as a user error (USER_ERROR_CODES). */
export function isUserError(error: unknown): error is GatewayError & { code: UserErrorCode } {
  return isGatewayError(error) && USER_ERROR_CODE_SET.has(error.code);
}
