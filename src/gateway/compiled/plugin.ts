/**
 * Compiled trusted documents: when the gateway runs a manifest (PERSISTED_DOCUMENTS), each of
 * its documents is compiled once, at startup, into a plan (./plan.ts), and an operation of a
 * compiled document runs its plan (./run.ts) instead of the executor. Everything around
 * execution stays the ordinary path's, in the same order: the request checks, the manifest
 * lookup, the (cached) parse and validation with the depth and cost rules, the context with its
 * session, `@inContext`, the limits judged with the variables' values (the plugin after this one
 * wraps whatever runs), masking, the request log, metrics and traces, CORS. Bad variables or
 * another operation name run the ordinary executor, which answers them as always.
 */
import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { type CompiledPlan, compileDocument } from './plan.ts';
import { BAD_VARIABLES, runPlan } from './run.ts';

/** Operations that ran a plan, and operations of compiled documents that fell back. */
export interface CompiledStats {
  compiled: number;
  fallback: number;
  /** Requests the direct lane answered (./lane.ts). */
  lane: number;
  /** Requests naming a trusted document that the lane left to the ordinary path, by reason. */
  declined: Record<string, number>;
}

export function createCompiledStats(): CompiledStats {
  return { compiled: 0, fallback: 0, lane: 0, declined: {} };
}

export interface CompiledManifest {
  /** The schema the plans were made for at startup (the static one). */
  schema: GraphQLSchema;
  /** Every trusted document's text (compiled or not). */
  texts: ReadonlySet<string>;
  /** Plans by document text. */
  plans: ReadonlyMap<string, CompiledPlan>;
  /** The ids of documents not compiled, with the reason (they run on the ordinary path). */
  skipped: readonly { id: string; reason: string }[];
}

/** Compiles every document of a manifest against `schema`. */
export function compileManifest(
  schema: GraphQLSchema,
  documents: ReadonlyMap<string, string>,
): CompiledManifest {
  const plans = new Map<string, CompiledPlan>();
  const skipped: { id: string; reason: string }[] = [];
  const reasons = new Map<string, string>();
  for (const [id, text] of documents) {
    if (plans.has(text)) continue;
    const known = reasons.get(text);
    if (known !== undefined) {
      skipped.push({ id, reason: known });
      continue;
    }
    const result = compileDocument(schema, text);
    if (result.reason === undefined) plans.set(text, result.plan);
    else {
      reasons.set(text, result.reason);
      skipped.push({ id, reason: result.reason });
    }
  }
  return { schema, texts: new Set(documents.values()), plans, skipped };
}

/**
 * The plans of a manifest by schema and document, and which of them the ordinary path has
 * seen pass validation (with every rule the gateway adds: depth, cost, aliases, tokens…).
 */
export interface PlanRegistry {
  /** The plan of a trusted document's text on this schema; null when it is not compiled. */
  planFor(schema: GraphQLSchema, text: string): CompiledPlan | null;
  /** The plan of a parsed document (Yoga's parse cache hands out one object per text). */
  planOf(schema: GraphQLSchema, document: DocumentNode): CompiledPlan | null;
  /** The document reached execution on this schema: it passed parsing and validation. */
  proven(plan: CompiledPlan): boolean;
  markProven(plan: CompiledPlan): void;
}

export function createPlanRegistry(manifest: CompiledManifest): PlanRegistry {
  // The typed Custom API schema (swapped on refresh) gets plans of its own, made when a trusted
  // document first runs on it: its base types and resolvers are the static schema's.
  const bySchema = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, CompiledPlan | null>>();
  const madeLater = new WeakMap<GraphQLSchema, Map<string, CompiledPlan | null>>();
  const proven = new WeakSet<CompiledPlan>();
  const planFor = (schema: GraphQLSchema, text: string): CompiledPlan | null => {
    if (schema === manifest.schema) return manifest.plans.get(text) ?? null;
    let byText = madeLater.get(schema);
    if (byText === undefined) {
      byText = new Map();
      madeLater.set(schema, byText);
    }
    let plan = byText.get(text);
    if (plan === undefined) {
      plan = manifest.texts.has(text) ? compiledOrNull(schema, text) : null;
      byText.set(text, plan);
    }
    return plan;
  };
  const planOf = (schema: GraphQLSchema, document: DocumentNode): CompiledPlan | null => {
    let byDocument = bySchema.get(schema);
    if (byDocument === undefined) {
      byDocument = new WeakMap();
      bySchema.set(schema, byDocument);
    }
    let plan = byDocument.get(document);
    if (plan === undefined) {
      const text = document.loc?.source.body;
      plan = text !== undefined && manifest.texts.has(text) ? planFor(schema, text) : null;
      byDocument.set(document, plan);
    }
    return plan;
  };
  return {
    planFor,
    planOf,
    proven: (plan) => proven.has(plan),
    markProven(plan) {
      proven.add(plan);
    },
  };
}

function compiledOrNull(schema: GraphQLSchema, text: string): CompiledPlan | null {
  const result = compileDocument(schema, text);
  return result.reason === undefined ? result.plan : null;
}

/** The envelop plugin that runs compiled plans; it goes after jitPlugin, before the limits. */
export function compiledDocumentsPlugin(
  registry: PlanRegistry,
  stats: CompiledStats = createCompiledStats(),
): Plugin {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      if (!args.document || !args.schema) return;
      const plan = registry.planOf(args.schema, args.document);
      if (plan === null) return;
      // Execution is reached only by a document that passed validation with the gateway's
      // rules: from now on the direct lane (./lane.ts) may answer it without validating.
      registry.markProven(plan);
      const name = args.operationName;
      if (name != null && name !== plan.operation.name?.value) return;
      setExecuteFn((executeArgs) => {
        const out = runPlan(
          plan,
          executeArgs.contextValue,
          executeArgs.rootValue,
          executeArgs.variableValues as Record<string, unknown> | null | undefined,
        );
        if (out === BAD_VARIABLES) {
          stats.fallback += 1;
          return executeFn(executeArgs);
        }
        stats.compiled += 1;
        return out as ExecutionResult | Promise<ExecutionResult>;
      });
    },
  };
}
