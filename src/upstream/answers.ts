/**
 * What an upstream answer means, for the REST client (./client.ts): a 2xx body that is the JSON
 * it should be, or the error of the family (./errors.ts) that says what went wrong — a status
 * mapped to its code, a network failure to its reason — with the upstream's own words where a
 * client can act on them, and never a credential of the caller's.
 */
import {
  BadUserInputError,
  ConflictError,
  EntryTooLargeError,
  ForbiddenError,
  type GatewayError,
  isGatewayError,
  NotFoundError,
  PreconditionFailedError,
  RateLimitedError,
  UnauthenticatedError,
  UpstreamUnavailableError,
} from './errors.ts';
import type { UpstreamMethod } from './transport.ts';

/**
 * What of an attempt's context an answer is read with: the secrets it sent, kept out of any
 * detail quoted from the body (client.ts's AttemptContext has them; named here so that this
 * module does not import the client that imports it).
 */
export interface AnswerSecrets {
  /** The caller's `Authorization` header value. */
  authorization: string;
  /** The caller's forwarded headers, secrets among them. */
  headers?: Readonly<Record<string, string>> | undefined;
}

export type AnswerHeaders = Record<string, string | string[] | undefined>;

export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  // What the upstream sends on every answer, told without splitting the header.
  if (value === 'application/json' || value === 'application/json; charset=utf-8') return true;
  const type = value.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || type.endsWith('+json');
}

export function invalidBody(why: string, cause?: unknown): UpstreamUnavailableError {
  return new UpstreamUnavailableError(`The commerce service sent an unusable answer (${why})`, {
    reason: 'invalid-body',
    cause,
  });
}

export function parseSuccessBody(status: number, headers: AnswerHeaders, text: string): unknown {
  if (text === '' && (status === 204 || status === 202)) return undefined;
  if (!isJsonContentType(headerValue(headers['content-type']))) {
    throw invalidBody('not JSON');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalidBody('malformed JSON', error);
  }
}

const NETWORK_REASONS: Record<string, UpstreamUnavailableError['reason']> = {
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ECONNREFUSED: 'connect',
  ENOTFOUND: 'connect',
  EAI_AGAIN: 'connect',
  EHOSTUNREACH: 'connect',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  UND_ERR_SOCKET: 'reset',
  UND_ERR_CLOSED: 'reset',
  UND_ERR_ABORTED: 'aborted',
};

export function networkError(error: unknown, method: UpstreamMethod): GatewayError {
  // Our own abort reasons (an attempt's timeout, a client that went away, a finished operation)
  // come back as they were given.
  if (isGatewayError(error)) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const name = (error as { name?: unknown } | null)?.name;
  let reason: UpstreamUnavailableError['reason'] =
    typeof code === 'string' ? (NETWORK_REASONS[code] ?? 'connect') : 'connect';
  if (name === 'AbortError' || name === 'TimeoutError') reason = 'aborted';
  const what =
    reason === 'timeout'
      ? 'did not answer in time'
      : reason === 'aborted'
        ? 'call was cancelled'
        : 'could not be reached';
  return new UpstreamUnavailableError(`The commerce service ${what} (${method})`, {
    reason,
    cause: error,
  });
}

interface UpstreamErrorObject {
  status?: unknown;
  title?: unknown;
  detail?: unknown;
  source?: unknown;
}

/** The JSON:API error details a client can act on, without any of the caller's credentials. */
function upstreamDetail(text: string, context: AnswerSecrets): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const errors = (parsed as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors)) return undefined;
  const parts: string[] = [];
  for (const item of errors as UpstreamErrorObject[]) {
    const detail = typeof item?.detail === 'string' ? item.detail : item?.title;
    if (typeof detail === 'string' && detail !== '') parts.push(detail);
  }
  if (parts.length === 0) return undefined;
  let detail = parts.join('; ').slice(0, 1000);
  const secrets = [context.authorization.replace(/^Bearer\s+/i, '')];
  if (context.headers !== undefined) secrets.push(...Object.values(context.headers));
  for (const secret of secrets) {
    if (secret.length >= 8) detail = detail.split(secret).join('[redacted]');
  }
  return detail;
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

export function statusError(
  status: number,
  headers: AnswerHeaders,
  text: string,
  context: AnswerSecrets,
): GatewayError {
  const detail = upstreamDetail(text, context);
  const options = { upstreamStatus: status };
  switch (status) {
    case 400:
    case 422:
      return new BadUserInputError(detail ?? 'The commerce service rejected the input', options);
    case 401:
      return new UnauthenticatedError(
        'The bearer token was not accepted by the commerce service (missing, unknown or expired)',
        { ...options, upstreamDetail: detail },
      );
    case 403:
      return new ForbiddenError(
        detail ?? 'This token may not perform this operation (implicit tokens are read-only)',
        options,
      );
    case 404:
      return new NotFoundError(detail ?? 'Not found in this store', options);
    case 409:
      return new ConflictError(detail ?? 'The write conflicts with an existing resource', options);
    case 412:
      return new PreconditionFailedError(
        'The resource changed since that etag was read; read it again and retry',
        options,
      );
    case 413:
      return new EntryTooLargeError(detail ?? 'The entry exceeds the 64 KB limit', options);
    case 429: {
      const retryAfterMs = parseRetryAfter(headerValue(headers['retry-after']));
      return new RateLimitedError(
        retryAfterMs === undefined
          ? 'The commerce service is rate-limiting this store; retry later'
          : `The commerce service is rate-limiting this store; retry in ${Math.ceil(retryAfterMs / 1000)} s`,
        { ...options, retryAfterMs },
      );
    }
    default: {
      const message =
        status >= 300 && status < 400
          ? `The commerce service answered with a redirect (${status}), which is not followed`
          : `The commerce service failed (${status})`;
      return new UpstreamUnavailableError(message, { ...options, reason: 'status' });
    }
  }
}
