/**
 * `@inContext` (src/schema/in-context.ts) taken from the operation before any resolver runs: its
 * headers go into the session's holder, so every upstream call of the operation sends them, and
 * a value that cannot be sent is BAD_USER_INPUT with no call made.
 */
import { GraphQLError, getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { inContextHeaders } from '../schema/in-context.ts';
import { BadUserInputError } from '../upstream/errors.ts';
import type { GatewayContext } from '../upstream/index.ts';

/** What onExecute and onSubscribe both hand a hook (the rest differs). */
type OperationHook = (
  payload: Pick<
    Parameters<NonNullable<Plugin['onExecute']>>[0],
    'args' | 'setResultAndStopExecution'
  >,
) => void;

const takeInContext: OperationHook = ({ args, setResultAndStopExecution }) => {
  const { definitions } = args.document;
  const operation =
    definitions.length === 1 && definitions[0]?.kind === 'OperationDefinition'
      ? definitions[0]
      : getOperationAST(args.document, args.operationName);
  if (operation == null || operation.directives === undefined) return;
  if (operation.directives.length === 0) return;
  try {
    const headers = inContextHeaders(operation, args.variableValues);
    if (headers !== undefined)
      (args.contextValue as unknown as GatewayContext).operation.headers = headers;
  } catch (error) {
    if (!(error instanceof BadUserInputError)) throw error;
    setResultAndStopExecution({
      errors: [new GraphQLError(error.message, { extensions: error.extensions })],
    });
  }
};

/** Queries and mutations, and subscriptions: each event's read carries the operation's context. */
export const inContextPlugin: Plugin = {
  onExecute: takeInContext,
  onSubscribe: takeInContext,
};
