/**
 * The gateway's one family of errors. Each class carries a stable `code` (surfaced to GraphQL
 * clients as `extensions.code`), the HTTP status the upstream answered (when there was one) and
 * the underlying `cause`. Only these errors reach clients with their message; anything else is
 * masked by Yoga. Messages never contain a bearer token.
 */

export type GatewayErrorCode =
  | 'BAD_USER_INPUT'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'PRECONDITION_FAILED'
  | 'ENTRY_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'UPSTREAM_UNAVAILABLE'
  | 'UPSTREAM_BUDGET_EXCEEDED'
  | 'CLIENT_CLOSED_REQUEST';

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
