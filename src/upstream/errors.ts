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
  | 'VALUE_OUT_OF_RANGE'
  | 'WRITE_COMMITTED';

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
