/**
 * Defences against abusive and forged requests, all applied before any resolver (and so before
 * any upstream call) runs. Here, the limits on the document: graphql-armor's depth, alias,
 * token, directive and cost limits with explicit values, refused with a message naming the
 * limit and its maximum; a name length limit; introspection and field suggestions switchable.
 * createSecurityPlugins puts them together with the checks of the request itself
 * (./request-checks.ts: CSRF prevention, request shape) and the shaping of every error a client
 * receives (./error-answers.ts: a code on each, a bounded echo); securityYogaOptions gives the
 * Yoga request options (body size, no batching, no multipart). Limits that need the variables'
 * values: ./operation-limits.ts.
 */
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { type CostLimitOptions, costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import type { GraphQLArmorRejectCallback } from '@escape.tech/graphql-armor-types';
import {
  type ASTVisitor,
  BREAK,
  type DocumentNode,
  GraphQLError,
  type GraphQLSchema,
  Kind,
  NoSchemaIntrospectionCustomRule,
  type ValidationContext,
  type ValidationRule,
  validate,
  visit,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import {
  BadUserInputError,
  type GatewayErrorCode,
  QueryTooComplexError,
} from '../upstream/errors.ts';
import { DEFAULT_PAGING_LIMITS } from '../upstream/index.ts';
import { errorCodesPlugin, errorEchoPlugin } from './error-answers.ts';
import { csrfPreventionPlugin, requestShapePlugin } from './request-checks.ts';

// The echo bound stands beside the name length limit in the README's table of defences.
export { capEcho, MAX_ECHO } from './error-answers.ts';

/** Limits on one GraphQL document. Every value is explicit; none is taken from a library default. */
export interface QueryLimits {
  /** Deepest field nesting (fragments flattened, introspection ignored). Default 10. */
  maxDepth: number;
  /** Aliased fields per operation: each alias can be one more upstream call. Default 15. */
  maxAliases: number;
  /** Lexical tokens in the document, checked while parsing. Default 2,000. */
  maxTokens: number;
  /** Directives per operation. Default 20. */
  maxDirectives: number;
  /**
   * graphql-armor cost (objects 2, scalars 1, ×1.5 per level, × `first`/`last`). Default 5,000.
   * Page sizes given as variables are judged with their values (./operation-limits.ts).
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
type LimitName = Exclude<keyof QueryLimits, 'maxListItems'>;

/**
 * What a refused document is told, by limit: the measure and the maximum, in words. Armor's own
 * messages all begin with "Syntax Error:" whatever the limit; the number it found is read from
 * them (armor 3 says "…, found N."), and left out if a later armor words it differently.
 */
const REJECTIONS: Record<LimitName, (maximum: number, found: number | undefined) => string> = {
  maxCost: (maximum, found) =>
    `Query cost ${found ?? 'above the maximum'} exceeds the maximum cost ${maximum}: select ` +
    'fewer fields, or ask for smaller pages (first/last multiply the cost of what they select)',
  maxDepth: (maximum, found) =>
    `Query depth ${found ?? 'above the maximum'} exceeds the maximum depth ${maximum}`,
  maxAliases: (maximum, found) =>
    `Query uses ${found ?? 'more'} aliases; the maximum is ${maximum}`,
  maxDirectives: (maximum, found) =>
    `Query uses ${found ?? 'more'} directives; the maximum is ${maximum}`,
  maxTokens: (maximum) => `Query is longer than the maximum of ${maximum} tokens`,
};

/**
 * A `first`/`last` literal above the connection maximum in the document, if any: armor's cost
 * counts it as a multiplier, so such a document is refused for its cost before the planner
 * could say that the page size itself is the problem.
 */
function pageSizeOverMaximum(
  context: ValidationContext | null,
  maxFirst: number,
): { name: string; value: number } | undefined {
  if (context === null) return undefined;
  let found: { name: string; value: number } | undefined;
  visit(context.getDocument(), {
    Argument(node) {
      if (found !== undefined) return BREAK;
      if (
        (node.name.value === 'first' || node.name.value === 'last') &&
        node.value.kind === Kind.INT
      ) {
        const value = Number(node.value.value);
        if (value > maxFirst) found = { name: node.name.value, value };
      }
      return undefined;
    },
  });
  return found;
}

/**
 * Rewrites armor's rejection in place (it is the error armor then throws): a message that says
 * which limit and by how much, the stable code, and `extensions.limit` / `maximum`. Only the
 * refusal path runs this.
 */
function tagRejection(limit: LimitName, limits: QueryLimits, maxFirst: number) {
  const callback: GraphQLArmorRejectCallback = (context, error) => {
    // GraphQLError.extensions is a plain object Yoga itself fills in; set our code first so
    // Yoga's `||=` defaults keep it.
    const extensions = error.extensions as Record<string, unknown>;
    const oversized = limit === 'maxCost' ? pageSizeOverMaximum(context, maxFirst) : undefined;
    if (oversized !== undefined) {
      // The same words and code as the planner's refusal of a variable `first`.
      error.message = `\`${oversized.name}\` may be at most ${maxFirst}, got ${oversized.value}`;
      Object.assign(
        extensions,
        new BadUserInputError(error.message, { field: oversized.name }).extensions,
      );
      return;
    }
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

function armorOptions(limit: LimitName, limits: QueryLimits, maxFirst: number) {
  return {
    exposeLimits: true,
    onReject: [tagRejection(limit, limits, maxFirst)],
    propagateOnRejection: true,
  };
}

function costOptions(limits: QueryLimits, maxFirst: number): CostLimitOptions {
  return {
    ...armorOptions('maxCost', limits, maxFirst),
    maxCost: limits.maxCost,
    objectCost: 2,
    scalarCost: 1,
    depthCostFactor: 1.5,
    ignoreIntrospection: true,
    flattenFragments: true,
  };
}

/**
 * The cost limit on its own, as armor judges it during validation and with the same refusal:
 * the refusing GraphQLError, or undefined when the document's cost is within the maximum. For
 * documents whose page sizes were variables, given with the values written in
 * (./operation-limits.ts), so they are judged exactly as the same document written literally.
 */
export function createCostJudge(
  limits: Partial<QueryLimits> = {},
  maxFirst: number = DEFAULT_PAGING_LIMITS.maxFirst,
): (schema: GraphQLSchema, document: DocumentNode) => GraphQLError | undefined {
  // armor types its rule against graphql 16's ValidationContext; graphql 17 runs it the same.
  const rule = costLimitRule(
    costOptions(resolveQueryLimits(limits), maxFirst),
  ) as unknown as ValidationRule;
  return (schema, document) => {
    try {
      validate(schema, document, [rule]);
      return undefined;
    } catch (error) {
      if (error instanceof GraphQLError) return error;
      throw error;
    }
  };
}

function armorPlugin(limits: QueryLimits, maxFirst: number): Plugin {
  const common = (limit: LimitName) => armorOptions(limit, limits, maxFirst);
  return EnvelopArmorPlugin({
    maxDepth: {
      ...common('maxDepth'),
      n: limits.maxDepth,
      flattenFragments: true,
      ignoreIntrospection: true,
    },
    maxAliases: { ...common('maxAliases'), n: limits.maxAliases, allowList: [] },
    maxTokens: { ...common('maxTokens'), n: limits.maxTokens },
    maxDirectives: { ...common('maxDirectives'), n: limits.maxDirectives },
    costLimit: costOptions(limits, maxFirst),
    // Suggestions ("Did you mean …?") reveal the schema; they are masked whenever introspection
    // is off, via the separate plugin below, so armor's own switch stays off here.
    blockFieldSuggestion: { enabled: false },
  }) as Plugin;
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
    armorPlugin(
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
