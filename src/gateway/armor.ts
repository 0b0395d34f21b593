/**
 * Defences against abusive and forged requests, all applied before any resolver (and so before
 * any upstream call) runs. Here, the limits on the document: graphql-armor's alias, token and
 * directive limits with explicit values, and our own depth (./query-depth.ts) and cost limits (./query-cost.ts:
 * upstream calls, rows and values, page sizes from `first`/`last`), each refused with a message
 * naming the limit and what was measured; a name length limit; introspection and field
 * suggestions switchable. createSecurityPlugins puts them together with the checks of the
 * request itself (./request-checks.ts: CSRF prevention, request shape) and the shaping of every
 * error a client receives (./error-answers.ts: a code on each, a bounded echo);
 * securityYogaOptions gives the Yoga request options (body size, no batching, no multipart).
 * Limits that need the variables' values: ./operation-limits.ts.
 *
 * graphql-armor's own cost limit is not used: it reads no schema (it cannot know that a field
 * fetches, or that `first: 1000` is ten calls of 100 rather than a thousand times a selection),
 * takes no cost function, and its multiplier of `first` × every field at every level refused
 * the largest page the planner serves.
 */
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import type { GraphQLArmorRejectCallback } from '@escape.tech/graphql-armor-types';
import { type ASTVisitor, GraphQLError, NoSchemaIntrospectionCustomRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { type GatewayErrorCode, QueryTooComplexError } from '../upstream/errors.ts';
import { DEFAULT_PAGING_LIMITS } from '../upstream/index.ts';
import { errorCodesPlugin, errorEchoPlugin } from './error-answers.ts';
import { costModelOptions, createCostRule } from './query-cost.ts';
import { createDepthRule } from './query-depth.ts';
import { csrfPreventionPlugin, requestShapePlugin } from './request-checks.ts';

// The echo bound stands beside the name length limit in docs/security.md's table of defences.
export { capEcho, MAX_ECHO } from './error-answers.ts';

/** Limits on one GraphQL document. Every value is explicit; none is taken from a library default. */
export interface QueryLimits {
  /**
   * Deepest field nesting (fragments flattened, introspection ignored, a connection's `edges`
   * and `node` free: ./query-depth.ts). Default 10.
   */
  maxDepth: number;
  /** Aliased fields per operation: each alias can be one more upstream call. Default 15. */
  maxAliases: number;
  /** Lexical tokens in the document, checked while parsing. Default 2,000. */
  maxTokens: number;
  /** Directives per operation. Default 20. */
  maxDirectives: number;
  /**
   * The cost of an operation (./query-cost.ts), in rows: each upstream call 50, each row 1 and
   * each value 0.05, page sizes from `first`/`last` and list lengths from the arguments, the
   * variables' values included (./operation-limits.ts). Default 5,000: a page of 1,000 with
   * some 70 values a row, or 100 upstream calls.
   */
  maxCost: number;
  /**
   * List items in the arguments of one operation, every list counted where it is used (input
   * fields and variables included), so no one list holds more either (./operation-limits.ts).
   * Default 1,000: PAGING_MAX_FIRST, so a federation gateway can resolve the entities of a whole
   * page in one `_entities` call; at 100 ids an upstream call, 10 calls per type, a fifth of
   * UPSTREAM_CALL_BUDGET.
   */
  maxListItems: number;
}

export const DEFAULT_QUERY_LIMITS: QueryLimits = {
  maxDepth: 10,
  maxAliases: 15,
  maxTokens: 2_000,
  maxDirectives: 20,
  maxCost: 5_000,
  maxListItems: 1_000,
};

export interface SecurityOptions {
  limits?: Partial<QueryLimits>;
  /** Allow `__schema`/`__type` queries. Default true (stitching introspects the gateway). */
  introspection?: boolean;
  /** Refuse requests a browser could send cross-site without a preflight. Default true. */
  csrfPrevention?: boolean;
  /** The largest `first`/`last` of a connection (PAGING_MAX_FIRST), named when exceeded. */
  maxFirst?: number;
}

/** The `extensions.code` of a document refused by a limit (QueryTooComplexError). */
export const QUERY_REJECTED_CODE: GatewayErrorCode = 'QUERY_TOO_COMPLEX';

/** The limits graphql-armor judges on the document alone. */
type LimitName = Exclude<keyof QueryLimits, 'maxListItems' | 'maxCost' | 'maxDepth'>;

/**
 * What a refused document is told, by limit: the measure and the maximum, in words. Armor's own
 * messages all begin with "Syntax Error:" whatever the limit; the number it found is read from
 * them (armor 3 says "…, found N."), and left out if a later armor words it differently.
 */
const REJECTIONS: Record<LimitName, (maximum: number, found: number | undefined) => string> = {
  maxAliases: (maximum, found) =>
    `Query uses ${found ?? 'more'} aliases; the maximum is ${maximum}`,
  maxDirectives: (maximum, found) =>
    `Query uses ${found ?? 'more'} directives; the maximum is ${maximum}`,
  maxTokens: (maximum) => `Query is longer than the maximum of ${maximum} tokens`,
};

/**
 * Rewrites armor's rejection in place (it is the error armor then throws): a message that says
 * which limit and by how much, the stable code, and `extensions.limit` / `maximum`. Only the
 * refusal path runs this.
 */
function tagRejection(limit: LimitName, limits: QueryLimits) {
  const callback: GraphQLArmorRejectCallback = (_context, error) => {
    // GraphQLError.extensions is a plain object Yoga itself fills in; set our code first so
    // Yoga's `||=` defaults keep it.
    const extensions = error.extensions as Record<string, unknown>;
    const found = /found (\d+(?:\.\d+)?)/.exec(error.message)?.[1];
    error.message = REJECTIONS[limit](
      limits[limit],
      found === undefined ? undefined : Math.ceil(Number(found)),
    );
    Object.assign(
      extensions,
      new QueryTooComplexError(error.message, { limit, maximum: limits[limit] }).extensions,
    );
  };
  return callback;
}

function armorOptions(limit: LimitName, limits: QueryLimits) {
  return {
    exposeLimits: true,
    onReject: [tagRejection(limit, limits)],
    propagateOnRejection: true,
  };
}

/**
 * graphql-armor's limits (tokens while parsing; then directives, aliases), then ours on depth
 * and cost: a document over several limits is told the first. Depth before cost, so the cost is
 * only ever measured on a document at most maxDepth deep.
 */
function limitPlugins(limits: QueryLimits, maxFirst: number): Plugin[] {
  const common = (limit: LimitName) => armorOptions(limit, limits);
  const depthRule = createDepthRule(limits.maxDepth);
  const costRule = createCostRule(limits.maxCost, costModelOptions(maxFirst));
  return [
    EnvelopArmorPlugin({
      // Ours instead (./query-depth.ts): a Relay connection's edges and node add no level.
      maxDepth: { enabled: false },
      maxAliases: { ...common('maxAliases'), n: limits.maxAliases, allowList: [] },
      maxTokens: { ...common('maxTokens'), n: limits.maxTokens },
      maxDirectives: { ...common('maxDirectives'), n: limits.maxDirectives },
      // Ours instead (./query-cost.ts), added below.
      costLimit: { enabled: false },
      // Suggestions ("Did you mean …?") reveal the schema; they are masked whenever
      // introspection is off, via the separate plugin below, so armor's own switch stays off.
      blockFieldSuggestion: { enabled: false },
    }) as Plugin,
    {
      onValidate({ addValidationRule }) {
        addValidationRule(depthRule);
        addValidationRule(costRule);
      },
    },
  ];
}

/** Removes "Did you mean …" hints: with introspection off they would leak the schema anyway. */
function blockSuggestionsPlugin(): Plugin {
  return {
    onValidate() {
      return ({ result, setResult }) => {
        if (result.length === 0) return;
        setResult(
          result.map((error) =>
            error.message.includes('Did you mean')
              ? new GraphQLError(error.message.replace(/ ?Did you mean .*$/, '').trim(), {
                  nodes: error.nodes,
                  source: error.source,
                  positions: error.positions,
                  path: error.path,
                  originalError: error.originalError,
                  extensions: error.extensions,
                })
              : error,
          ),
        );
      };
    },
  };
}

/** The longest name (field, alias, argument, operation, fragment, variable) a document may use. */
export const MAX_NAME_LENGTH = 100;

/**
 * Refuses a document with a name longer than MAX_NAME_LENGTH, before other rules can repeat it
 * in their messages or execution in an answer's keys and error paths. No schema name comes
 * near it. Thrown, as armor's limits are, so the refusal is the only error.
 */
function MaxNameLengthRule(): ASTVisitor {
  return {
    Name(node) {
      if (node.value.length <= MAX_NAME_LENGTH) return;
      const refusal = new QueryTooComplexError(
        `A name in the document is ${node.value.length} characters long; the maximum is ` +
          `${MAX_NAME_LENGTH}`,
        { limit: 'maxNameLength', maximum: MAX_NAME_LENGTH },
      );
      throw new GraphQLError(refusal.message, { nodes: node, extensions: refusal.extensions });
    },
  };
}

function nameLengthPlugin(): Plugin {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(MaxNameLengthRule);
    },
  };
}

function noIntrospectionPlugin(): Plugin {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(NoSchemaIntrospectionCustomRule);
    },
  };
}

export function resolveQueryLimits(limits: Partial<QueryLimits> = {}): QueryLimits {
  const defined = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
  return { ...DEFAULT_QUERY_LIMITS, ...defined };
}

/** Plugins to add to the Yoga app, in order. */
export function createSecurityPlugins(options: SecurityOptions = {}): Plugin[] {
  const plugins: Plugin[] = [];
  if (options.csrfPrevention ?? true) plugins.push(csrfPreventionPlugin());
  plugins.push(requestShapePlugin(), errorCodesPlugin(), errorEchoPlugin(), nameLengthPlugin());
  plugins.push(
    ...limitPlugins(
      resolveQueryLimits(options.limits),
      options.maxFirst ?? DEFAULT_PAGING_LIMITS.maxFirst,
    ),
  );
  if (!(options.introspection ?? true)) {
    plugins.push(noIntrospectionPlugin(), blockSuggestionsPlugin());
  }
  return plugins;
}

/** Largest request body accepted by default: a 64 KB entry JSON-escaped, with room to spare. */
export const DEFAULT_MAX_BODY_BYTES = 512 * 1024;

/** Yoga server options the defences rely on; spread them into `createYoga`. */
export function securityYogaOptions(options: { maxBodyBytes?: number } = {}) {
  return {
    maxRequestBodySize: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    // One operation per request: a batch would multiply every limit above by its length.
    batching: false,
    // No schema type takes an upload; multipart would only be a CSRF-friendly content type.
    multipart: false,
  } as const;
}
