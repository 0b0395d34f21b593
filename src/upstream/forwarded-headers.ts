/**
 * The caller's headers that say who is acting, forwarded upstream beside Authorization: an
 * allow-list (FORWARD_HEADERS), nothing else of the caller's headers. They get the bearer
 * token's guarantees: read per request, sent only to the configured origin on that request's
 * calls, never logged (src/gateway/logging.ts), never echoed in an error, and judged before any
 * call: a value that is not one clean header token (CR, LF, spaces, control or non-ASCII
 * characters, longer than MAX_FORWARDED_VALUE) is BAD_USER_INPUT and nothing is sent. The
 * catalog's channel, context tag and Accept-Language are judged by their own grammar (SHAPED).
 */
import { BadUserInputError } from './errors.ts';

/**
 * The headers forwarded by default (lowercase): customer, account member, currency, and what
 * the shopper catalog resolves its rule and language from (channel, context tag, locales).
 */
export const DEFAULT_FORWARDED_HEADERS: readonly string[] = [
  'x-moltin-customer-token',
  'ep-account-management-authentication-token',
  'x-moltin-currency',
  'ep-channel',
  'ep-context-tag',
  'accept-language',
];

/** The customer token header: `viewer` is null without it. */
export const CUSTOMER_TOKEN_HEADER = 'x-moltin-customer-token';
/** An account member's token: `viewer` is the member's, for the token's account. */
export const ACCOUNT_TOKEN_HEADER = 'ep-account-management-authentication-token';
/** The v2 currency header (a 3-letter code); `createCart(input: { currency })` sends it too. */
export const CURRENCY_HEADER = 'x-moltin-currency';

/** Longest forwarded value: production's customer tokens are JWTs of well under 2 KB. */
export const MAX_FORWARDED_VALUE = 4096;
/** Longest channel, context tag or Accept-Language: names and a locale list, not tokens. */
export const MAX_SHORT_VALUE = 256;

const HEADER_NAME = /^[a-z0-9][a-z0-9-]{0,99}$/;
// Headers the gateway sets itself, or that would change how a request is framed or routed.
const NEVER_FORWARDED = new Set([
  'authorization',
  'proxy-authorization',
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'accept',
  'accept-encoding',
  'if-match',
  'x-request-id',
  'cookie',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
]);

/** Why a configured header name cannot be forwarded, or undefined when it can. */
export function refuseForwardedHeaderName(name: string): string | undefined {
  if (!HEADER_NAME.test(name)) return `"${name}" is not a lowercase header name`;
  if (NEVER_FORWARDED.has(name)) return `"${name}" is set by the gateway or frames the request`;
  return undefined;
}

// One visible-ASCII token: no space, no CR/LF, no control or non-ASCII character.
const VALUE = /^[\x21-\x7e]+$/;
const CURRENCY = /^[A-Za-z]{3}$/;
// A catalog rule's channel or tag: a name (letters, digits, `_ - . : /`).
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.:/-]*$/;
// RFC 9110 Accept-Language: language ranges (`en-US`, `*`) with `;q=0.8`, separated by commas.
const LANGUAGES = /^[A-Za-z0-9*][A-Za-z0-9*;=., -]*$/;

/** Headers judged by their own grammar and a shorter bound; the message says the grammar. */
const SHAPED: Readonly<Record<string, { shape: RegExp; says: string }>> = {
  'ep-channel': { shape: NAME, says: 'a channel name (letters, digits, _ - . : /)' },
  'ep-context-tag': { shape: NAME, says: 'a tag (letters, digits, _ - . : /)' },
  'accept-language': {
    shape: LANGUAGES,
    says: 'a list of language ranges (letters, digits, * - ; = . , and spaces)',
  },
};

/** Judges one forwarded value; the error names the header, never the value. */
export function judgeForwardedValue(name: string, value: string): string {
  const field = `headers.${name}`;
  const shaped = SHAPED[name];
  if (shaped !== undefined) {
    if (value.length === 0 || value.length > MAX_SHORT_VALUE || !shaped.shape.test(value)) {
      throw new BadUserInputError(
        `The ${name} header must be ${shaped.says}, 1-${MAX_SHORT_VALUE} characters`,
        { field },
      );
    }
    return value;
  }
  if (value.length === 0 || value.length > MAX_FORWARDED_VALUE || !VALUE.test(value)) {
    throw new BadUserInputError(
      `The ${name} header must be one token of 1-${MAX_FORWARDED_VALUE} visible ASCII characters`,
      { field },
    );
  }
  if (name === CURRENCY_HEADER && !CURRENCY.test(value)) {
    throw new BadUserInputError(`The ${name} header must be a 3-letter currency code`, { field });
  }
  return value;
}

/**
 * The allow-listed headers the caller sent, judged; undefined when none is present (the
 * common case costs a `get` per name and no allocation).
 */
export function readForwardedHeaders(
  headers: { get(name: string): string | null },
  names: readonly string[],
): Readonly<Record<string, string>> | undefined {
  let out: Record<string, string> | undefined;
  for (const name of names) {
    const value = headers.get(name);
    if (value === null) continue;
    out ??= {};
    out[name] = judgeForwardedValue(name, value);
  }
  return out;
}
