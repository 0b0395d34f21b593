/**
 * What every error a client receives carries and repeats, whatever its phase (parse,
 * validation, armor, variables, execution, masking): a stable `extensions.code`, and at most a
 * bounded part of the client's own text.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { BadRequestError, BadUserInputError } from '../upstream/errors.ts';

/** The longest run of one word an error message repeats of what a client sent. */
export const MAX_ECHO = 100;
/** The longest error message a client receives. */
const MAX_MESSAGE = 1_000;
const LONG_RUN = new RegExp(`[^\\s"]{${MAX_ECHO + 1},}`, 'g');

/**
 * An error message with every run of non-space characters longer than MAX_ECHO cut to MAX_ECHO
 * and an ellipsis (a quoted name keeps its closing quote), and the whole cut at MAX_MESSAGE.
 * graphql-js repeats names and values in full ("Cannot query field "…"", "Syntax Error:
 * Unexpected String "…"", "Variable "$n" got invalid value "…"" — twice), so a 300 KB name
 * or value would come back in the answer, twice as large.
 */
export function capEcho(message: string): string {
  if (message.length <= MAX_ECHO) return message;
  const capped = message.replace(LONG_RUN, (run) => `${run.slice(0, MAX_ECHO)}…`);
  return capped.length > MAX_MESSAGE ? `${capped.slice(0, MAX_MESSAGE)}…` : capped;
}

/**
 * Every error a client receives, whatever its phase (parse, validation, armor, variables,
 * execution, masking), passes capEcho. It reads the result as it is sent; a result without a
 * long message is untouched.
 */
export function errorEchoPlugin(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result) || Symbol.asyncIterator in result) return;
      const capped = withCappedEcho(result as { errors?: readonly GraphQLError[] });
      if (capped !== result) setResult(capped as typeof result);
    },
  };
}

function capError(error: GraphQLError): GraphQLError {
  const message = capEcho(error.message);
  if (message === error.message) return error;
  if (!(error instanceof GraphQLError)) return { ...(error as object), message } as GraphQLError;
  return new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
}

/** A result whose errors' messages pass capEcho (the same object when none is long). */
export function withCappedEcho<R extends { errors?: readonly GraphQLError[] }>(result: R): R {
  const errors = result.errors;
  if (errors === undefined || !errors.some((error) => error.message.length > MAX_ECHO)) {
    return result;
  }
  return { ...result, errors: errors.map(capError) };
}

/** Where graphql-js prints a client's input object or list in a coercion message. */
const QUOTED_INPUT = /(got invalid value |found: )([{[])/g;

/** The end (exclusive) of the object or list printed from `start`: brackets balanced outside strings. */
function printedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth += 1;
    else if (c === '}' || c === ']') {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
  }
  return text.length;
}

/**
 * A variable coercion message without the objects and lists it quotes: graphql-js prints the
 * whole input object around the field at fault (`got invalid value { name: "…", secretKey:
 * "…", sneaky: 1 }; … unknown field "sneaky", found: { … }`), so a password or secret key sent
 * beside a mistake came back in the answer. Each becomes `{…}` (a list `[…]`); the path and the
 * reason stay, and a scalar at fault is still quoted.
 */
export function withoutQuotedInput(message: string): string {
  if (!message.startsWith('Variable "$')) return message;
  let out = '';
  let from = 0;
  for (const match of message.matchAll(QUOTED_INPUT)) {
    const open = match.index + (match[1]?.length ?? 0);
    if (open < from) continue;
    out += `${message.slice(from, open)}${match[2] === '{' ? '{…}' : '[…]'}`;
    from = printedEnd(message, open);
  }
  return out + message.slice(from);
}

/**
 * graphql-js reports variable coercion failures ("Variable "$x" got invalid value …") and a few
 * operation-level failures without any code. Every error a client receives carries one:
 * coercion → BAD_USER_INPUT (its quoted input object cut: withoutQuotedInput), other
 * request-level errors → BAD_REQUEST.
 */
export function errorCodesPlugin(): Plugin {
  return {
    onExecutionResult({ result, setResult }) {
      if (!result || Symbol.asyncIterator in result) return;
      const coded = withErrorCodes(result);
      if (coded !== result) setResult(coded);
    },
  };
}

function withCode(error: GraphQLError): GraphQLError {
  if (typeof error.extensions?.code === 'string') return error;
  const message = withoutQuotedInput(error.message);
  const coded = /^Variable "\$/.test(message)
    ? new BadUserInputError(message)
    : new BadRequestError(message);
  return new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, code: coded.code },
  });
}

/** A result whose every error has a code (the same object when all have). */
export function withErrorCodes<R extends { errors?: readonly GraphQLError[] }>(result: R): R {
  if (!result.errors?.some((e) => typeof e.extensions?.code !== 'string')) return result;
  return { ...result, errors: result.errors.map(withCode) };
}
