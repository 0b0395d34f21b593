/**
 * The shopper's context as an argument of the operation (Shopify's form): `query Page
 * @inContext(currency: "EUR", language: "fr", channel: "mobile", tag: "vip") { … }` sends, on
 * every upstream call of that operation, the currency, language, channel and context tag it
 * names — over whatever the request's headers say (they stay the fallback). A persisted document
 * then carries its own context, and one operation cannot mix two (a cart line priced under
 * another catalog because one call forgot a header). Each value is judged as its header is
 * (src/upstream/forwarded-headers.ts) before any call.
 */
import {
  DirectiveLocation,
  GraphQLDirective,
  GraphQLString,
  Kind,
  type OperationDefinitionNode,
  valueFromASTUntyped,
} from 'graphql';
import { BadUserInputError } from '../upstream/errors.ts';
import { judgeForwardedValue } from '../upstream/forwarded-headers.ts';

/** Each argument of the directive, and the header it stands for. */
export const IN_CONTEXT_HEADERS = {
  currency: 'x-moltin-currency',
  language: 'accept-language',
  channel: 'ep-channel',
  tag: 'ep-context-tag',
} as const;

export const inContextDirective = new GraphQLDirective({
  name: 'inContext',
  description:
    "The shopper's context for every upstream call of this operation, over the request's " +
    'headers (which stay the fallback): the display currency (X-Moltin-Currency), the language ' +
    '(Accept-Language; money `formatted` follows it), the channel (EP-Channel) and the context ' +
    'tag (EP-Context-Tag) that choose the catalog rule.',
  // A subscription's every event is read in that context too (src/gateway/subscriptions.ts).
  locations: [DirectiveLocation.QUERY, DirectiveLocation.MUTATION, DirectiveLocation.SUBSCRIPTION],
  args: {
    currency: { type: GraphQLString, description: 'An ISO 4217 code, e.g. "EUR".' },
    language: { type: GraphQLString, description: 'A language tag, e.g. "fr-FR".' },
    channel: { type: GraphQLString, description: 'A catalog rule channel, e.g. "mobile".' },
    tag: { type: GraphQLString, description: 'A catalog rule context tag.' },
  },
});

/**
 * The headers an operation's `@inContext` sets, judged; undefined when it has none (the common
 * case costs one look at the operation's directives).
 */
export function inContextHeaders(
  operation: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): Record<string, string> | undefined {
  const directives = operation.directives;
  if (directives === undefined || directives.length === 0) return undefined;
  const directive = directives.find((d) => d.name.value === 'inContext');
  if (directive === undefined) return undefined;
  let headers: Record<string, string> | undefined;
  for (const argument of directive.arguments ?? []) {
    const name = argument.name.value as keyof typeof IN_CONTEXT_HEADERS;
    const header = IN_CONTEXT_HEADERS[name];
    if (header === undefined) continue;
    const value =
      argument.value.kind === Kind.VARIABLE
        ? variables?.[argument.value.name.value]
        : valueFromASTUntyped(argument.value);
    if (value === null || value === undefined) continue;
    const field = `@inContext(${name}:)`;
    if (typeof value !== 'string') {
      throw new BadUserInputError(`${field} must be a string`, { field });
    }
    try {
      headers ??= {};
      headers[header] = judgeForwardedValue(header, value);
    } catch (error) {
      if (!(error instanceof BadUserInputError)) throw error;
      // Say it of the argument: the caller wrote no header.
      throw new BadUserInputError(error.message.replace(`The ${header} header`, field), {
        field,
      });
    }
  }
  return headers;
}
