/**
 * A write that happened is never answered as failed. Every mutation resolver of the schema makes
 * its upstream write and returns its payload; whatever the payload shows (the cart read after
 * the write, the order the checkout answered) is built by the payload's own fields, and those
 * that can fail are nullable. So an error whose path goes below a mutation's root field comes
 * from a write that was done: this plugin recodes it WRITE_COMMITTED (the original code kept as
 * `causeCode`), so a client that retries on UPSTREAM_UNAVAILABLE does not place a second order.
 * An error at the root field itself (path of length 1) is the resolver's: judged input, or the
 * write's own failure, and keeps its code.
 *
 * It runs before Yoga's masking (user plugins come first), so it sees the original errors; an
 * error that is not the gateway's own is logged here, as masking would have.
 */
import { GraphQLError, getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { findGatewayError, WriteCommittedError } from '../upstream/errors.ts';

interface ErrorLogger {
  error(...args: unknown[]): void;
}

function committed(error: GraphQLError, logger: ErrorLogger | undefined): GraphQLError {
  const cause = findGatewayError(error);
  if (cause instanceof WriteCommittedError) return error;
  if (cause === undefined) logger?.error(error.originalError ?? error);
  const detail = cause === undefined ? 'an internal error' : cause.message;
  const message =
    `The write was done, but this part of its answer could not be built (${detail}); ` +
    'do not repeat the write: read the result instead.';
  return new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: new WriteCommittedError(message, cause?.code ?? 'INTERNAL_SERVER_ERROR', {
      cause: error,
    }),
  });
}

export function committedWritesPlugin(): Plugin {
  let logger: ErrorLogger | undefined;
  return {
    onYogaInit({ yoga }) {
      logger = yoga.logger;
    },
    onExecute({ args }) {
      if (getOperationAST(args.document, args.operationName)?.operation !== 'mutation') return;
      return {
        onExecuteDone({ result, setResult }) {
          if (!('errors' in result) || !result.errors?.length) return;
          if (!result.errors.some((e) => (e.path?.length ?? 0) > 1)) return;
          setResult({
            ...result,
            errors: result.errors.map((e) =>
              (e.path?.length ?? 0) > 1 ? committed(e, logger) : e,
            ),
          });
        },
      };
    },
  };
}
