/**
 * `@defer` and `@stream` (incremental delivery), served by graphql 17's own executor
 * (`experimentalExecuteIncrementally`), whose parts Yoga writes as multipart/mixed or as
 * text/event-stream events. Everything else runs as before: the plugin looks at a document once
 * (kept per document object, which Yoga's parse cache hands out once per query text), and an
 * operation without the directives costs one WeakMap lookup (and one more rule in the validation
 * cache's comparison: the rule itself runs only when a document is first validated).
 *
 * Parts come in graphql 17's current format (`pending` ids, `incremental`, `completed`), or in
 * the 2022 one (parts labelled by `path`) for a client that asks for it with
 * `Accept: multipart/mixed;deferSpec=20220824` (Apollo Client 3, Apollo Router).
 *
 * For an operation that uses them:
 * - a client whose `Accept` allows neither multipart/mixed nor text/event-stream is refused with
 *   406 NOT_ACCEPTABLE before anything runs (Yoga would run the operation and then answer a bare
 *   406; Apollo Router refuses the same way, with words);
 * - the session is told (`operation.incremental`), so connections hand out their edges page by
 *   page as the upstream answers them (src/schema/connection.ts);
 * - errors of later parts (in `incremental` and `completed`) are masked like those of the first,
 *   which Yoga masks itself: Yoga's masking reads only a result's top-level `errors`.
 * Mutations may not use them (a validation error): a write's answer is judged as a whole
 * (./committed-writes.ts); subscriptions are refused by graphql's own rule.
 */

import * as graphqlModule from 'graphql';
import {
  type ASTVisitor,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type ExperimentalIncrementalExecutionResults,
  GraphQLError,
  GraphQLSchema,
  Kind,
  type SubsequentIncrementalExecutionResult,
  type ValidationContext,
  visit,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { NotAcceptableError } from '../upstream/errors.ts';
import type { GatewayContext } from '../upstream/index.ts';

const INCREMENTAL = new Set(['defer', 'stream']);

/**
 * graphql 17's incremental delivery, read off the module rather than imported by name: the
 * package allows graphql 16 (peerDependencies), which has none of it, and a named import of
 * what a CommonJS graphql 16 lacks fails the whole module's loading. Without it the gateway
 * serves no `@defer`/`@stream` (a document using them is refused as naming unknown directives).
 */
const graphql17 = graphqlModule as Partial<
  Pick<
    typeof graphqlModule,
    | 'experimentalExecuteIncrementally'
    | 'legacyExecuteIncrementally'
    | 'GraphQLDeferDirective'
    | 'GraphQLStreamDirective'
  >
>;
const delivery =
  graphql17.experimentalExecuteIncrementally &&
  graphql17.legacyExecuteIncrementally &&
  graphql17.GraphQLDeferDirective &&
  graphql17.GraphQLStreamDirective
    ? {
        execute: graphql17.experimentalExecuteIncrementally,
        legacy: graphql17.legacyExecuteIncrementally,
        directives: [graphql17.GraphQLDeferDirective, graphql17.GraphQLStreamDirective],
      }
    : undefined;

/** Whether the graphql installed beside the gateway delivers incrementally (17 does, 16 not). */
export const INCREMENTAL_DELIVERY = delivery !== undefined;

const served = new WeakMap<GraphQLSchema, GraphQLSchema>();

/**
 * The schema as the gateway serves it: with `@defer` and `@stream` (graphql 17 keeps them out of
 * `specifiedDirectives`). Made once per schema (the typed schema is swapped on refresh). The
 * library's own `schema` stays without them: graphql 17's plain `execute` refuses a schema that
 * declares them, and an application may execute ours in process.
 */
export function withIncrementalDelivery(schema: GraphQLSchema): GraphQLSchema {
  if (delivery === undefined) return schema;
  let found = served.get(schema);
  if (found === undefined) {
    const config = schema.toConfig();
    const has = new Set(config.directives.map((directive) => directive.name));
    found = new GraphQLSchema({
      ...config,
      directives: [...config.directives, ...delivery.directives.filter((d) => !has.has(d.name))],
    });
    served.set(schema, found);
  }
  return found;
}

/** Whether a selection (an operation or a fragment) carries `@defer` or `@stream` itself. */
function usesDirectly(node: Parameters<typeof visit>[0]): { uses: boolean; spreads: string[] } {
  let uses = false;
  const spreads: string[] = [];
  visit(node, {
    Directive(directive) {
      if (INCREMENTAL.has(directive.name.value)) uses = true;
    },
    FragmentSpread(spread) {
      spreads.push(spread.name.value);
    },
  });
  return { uses, spreads };
}

/**
 * The operations of a document that use `@defer` or `@stream`, through their fragments too, by
 * name; an only operation also under '' (a request may leave its name out).
 */
function incrementalOperations(document: DocumentNode): ReadonlySet<string> {
  const fragments = new Map<string, { uses: boolean; spreads: string[] }>();
  const operations: { name: string; uses: boolean; spreads: string[] }[] = [];
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition.name.value, usesDirectly(definition));
    } else if (definition.kind === Kind.OPERATION_DEFINITION) {
      operations.push({ name: definition.name?.value ?? '', ...usesDirectly(definition) });
    }
  }
  const reaches = (spreads: string[], seen: Set<string>): boolean =>
    spreads.some((name) => {
      if (seen.has(name)) return false;
      seen.add(name);
      const fragment = fragments.get(name);
      return fragment !== undefined && (fragment.uses || reaches(fragment.spreads, seen));
    });
  const names = new Set<string>();
  for (const operation of operations) {
    if (operation.uses || reaches(operation.spreads, new Set())) {
      names.add(operation.name);
      if (operations.length === 1) names.add('');
    }
  }
  return names;
}

const byDocument = new WeakMap<DocumentNode, ReadonlySet<string>>();

/** The operations of this document that use the directives (worked out once per document). */
function incrementalIn(document: DocumentNode): ReadonlySet<string> {
  let names = byDocument.get(document);
  if (names === undefined) {
    names = incrementalOperations(document);
    byDocument.set(document, names);
  }
  return names;
}

/** Whether a document uses `@defer` or `@stream` anywhere (graphql-jit compiles none of them). */
export function usesIncrementalDelivery(document: DocumentNode): boolean {
  return incrementalIn(document).size > 0;
}

/**
 * The format of parts the request's `Accept` asks for: none (no type Yoga answers in parts), the
 * 2022 one (`multipart/mixed;deferSpec=20220824`, which Apollo Client 3 and Apollo Router send,
 * and which graphql-tools' executors read), or graphql 17's current one. No header: anything goes.
 */
type PartsFormat = 'none' | 'legacy' | 'current';

function partsFormat(request: { headers: { get(name: string): string | null } } | undefined) {
  const accept = request?.headers.get('accept');
  if (accept === null || accept === undefined || accept.trim() === '') return 'current';
  let format: PartsFormat = 'none';
  for (const entry of accept.toLowerCase().split(',')) {
    const [type = '', ...params] = entry.split(';').map((part) => part.trim());
    if (type === 'multipart/mixed' && params.includes('deferspec=20220824')) return 'legacy';
    if (
      type === 'multipart/mixed' ||
      type === 'text/event-stream' ||
      type === 'multipart/*' ||
      type === 'text/*' ||
      type === '*/*'
    ) {
      format = 'current';
    }
  }
  return format;
}

/** `@defer`/`@stream` in a mutation: a validation error, located at the directive. */
export function DeferStreamOnQueriesRule(context: ValidationContext): ASTVisitor {
  return {
    OperationDefinition(operation) {
      if (operation.operation !== 'mutation') return false;
      const selections = [operation, ...context.getRecursivelyReferencedFragments(operation)];
      for (const selection of selections) {
        visit(selection, {
          Directive(directive) {
            if (!INCREMENTAL.has(directive.name.value)) return;
            context.reportError(
              new GraphQLError(
                `@${directive.name.value} is served on queries only: a mutation's answer comes whole`,
                { nodes: directive },
              ),
            );
          },
        });
      }
      return false;
    },
  };
}

type MaskError = (error: unknown) => Error;

/**
 * Errors masked, without the marks Yoga keeps for itself (`extensions.unexpected`, `http`),
 * which it takes off a result's top-level errors when it writes them, and would leave on these.
 */
function maskAll(errors: readonly GraphQLError[] | undefined, mask: MaskError) {
  return errors?.map((error) => {
    const masked = mask(error) as GraphQLError;
    const extensions = masked.extensions as Record<string, unknown> | undefined;
    if (extensions === undefined || !('unexpected' in extensions || 'http' in extensions)) {
      return masked;
    }
    const { unexpected: _unexpected, http: _http, ...kept } = extensions;
    return new GraphQLError(masked.message, {
      nodes: masked.nodes,
      source: masked.source,
      positions: masked.positions,
      path: masked.path,
      extensions: kept,
    });
  });
}

/** A later part with its errors masked (a part without errors is passed as it is). */
function maskedPart(
  part: SubsequentIncrementalExecutionResult,
  mask: MaskError,
): SubsequentIncrementalExecutionResult {
  const failed =
    part.incremental?.some((entry) => entry.errors !== undefined) ||
    part.completed?.some((entry) => entry.errors !== undefined);
  if (!failed) return part;
  return {
    ...part,
    ...(part.incremental && {
      incremental: part.incremental.map((entry) =>
        entry.errors === undefined ? entry : { ...entry, errors: maskAll(entry.errors, mask) },
      ),
    }),
    ...(part.completed && {
      completed: part.completed.map((entry) =>
        entry.errors === undefined
          ? entry
          : { ...entry, errors: maskAll(entry.errors, mask) as readonly GraphQLError[] },
      ),
    }),
  } as SubsequentIncrementalExecutionResult;
}

/** The initial part, then the later ones: the async iterable Yoga writes out part by part. */
async function* parts(
  results: ExperimentalIncrementalExecutionResults,
  mask: MaskError,
): AsyncGenerator<ExecutionResult | SubsequentIncrementalExecutionResult, void, void> {
  const later = results.subsequentResults;
  try {
    yield results.initialResult;
    for (let next = await later.next(); !next.done; next = await later.next()) {
      yield maskedPart(next.value, mask);
    }
  } finally {
    // The client went away (Yoga returns this generator): graphql stops its streams, which
    // closes the connections' edge iterators.
    await later.return();
  }
}

function isPromiseLike<V>(value: V | PromiseLike<V>): value is PromiseLike<V> {
  return typeof (value as Partial<PromiseLike<V>>).then === 'function';
}

function execute(
  run: NonNullable<typeof delivery>,
  args: ExecutionArgs,
  mask: MaskError,
  format: 'legacy' | 'current',
) {
  const done = (
    result: ExecutionResult | ExperimentalIncrementalExecutionResults,
  ): ExecutionResult | AsyncGenerator<ExecutionResult | SubsequentIncrementalExecutionResult> =>
    'initialResult' in result ? parts(result, mask) : result;
  // The same executor either way; the 2022 format only labels parts by path instead of by id.
  const result =
    format === 'legacy' ? (run.legacy(args) as ReturnType<typeof run.execute>) : run.execute(args);
  return isPromiseLike(result) ? result.then(done) : done(result);
}

export interface IncrementalDeliveryOptions {
  /** The gateway's error mask (create-gateway.ts), for the errors of later parts. */
  maskError: MaskError;
}

/** Place it after jitPlugin and before operationLimitsPlugin, which then wraps it. */
export function incrementalDeliveryPlugin(options: IncrementalDeliveryOptions): Plugin {
  const { maskError } = options;
  // graphql 16: nothing to deliver in parts, and the schema declares no directive to ask for it.
  if (delivery === undefined) return {};
  const run = delivery;
  const current = (args: ExecutionArgs) => execute(run, args, maskError, 'current');
  const legacy = (args: ExecutionArgs) => execute(run, args, maskError, 'legacy');
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(DeferStreamOnQueriesRule);
    },
    onExecute({ args, setExecuteFn, setResultAndStopExecution }) {
      const names = incrementalIn(args.document);
      if (names.size === 0 || !names.has(args.operationName ?? '')) return;
      const context = args.contextValue as Partial<GatewayContext> & {
        request?: { headers: { get(name: string): string | null } };
      };
      const format = partsFormat(context.request);
      if (format === 'none') {
        const refusal = new NotAcceptableError(
          '@defer and @stream answer in parts: send `Accept: multipart/mixed` or ' +
            '`Accept: text/event-stream`, or leave the directives out',
        );
        setResultAndStopExecution({
          errors: [new GraphQLError(refusal.message, { extensions: refusal.answerExtensions })],
        });
        return;
      }
      if (context.operation !== undefined) context.operation.incremental = true;
      setExecuteFn((format === 'legacy' ? legacy : current) as never);
    },
  };
}
