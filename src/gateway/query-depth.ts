/**
 * The depth limit (MAX_DEPTH), counted as a reader counts the nesting of the data asked for:
 * fragments flattened, introspection ignored, and a Relay connection's wrappers free — `edges`
 * and `nodes` on a `…Connection` and `node` on an `…Edge` add no level. A three-level category
 * menu with its products written `edges { node { … } }` is then as deep as the same menu
 * written with `nodes`, and what bounds the work of a document is its cost (./query-cost.ts:
 * calls, rows and values), not how many wrappers the Relay convention puts around a list.
 */
import {
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { QueryTooComplexError } from '../upstream/errors.ts';

/** Whether `field` of `parent` is a connection's wrapper, adding no level. */
function isWrapper(parent: GraphQLNamedType | undefined, field: FieldNode): boolean {
  if (parent === undefined) return false;
  const name = field.name.value;
  if (name === 'edges' || name === 'nodes') return parent.name.endsWith('Connection');
  return name === 'node' && parent.name.endsWith('Edge');
}

function fieldType(
  parent: GraphQLNamedType | undefined,
  name: string,
): GraphQLNamedType | undefined {
  if (!isObjectType(parent) && !isInterfaceType(parent)) return undefined;
  const field = parent.getFields()[name];
  return field === undefined ? undefined : getNamedType(field.type);
}

/** The deepest nesting under `set`, read against `parent` (undefined where the schema says nothing). */
function depthOf(
  schema: GraphQLSchema,
  set: SelectionSetNode,
  parent: GraphQLNamedType | undefined,
  fragment: (name: string) => FragmentDefinitionNode | null | undefined,
  visiting: Set<string>,
): number {
  let deepest = 0;
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value.startsWith('__')) continue;
      const inner =
        selection.selectionSet === undefined
          ? 0
          : depthOf(
              schema,
              selection.selectionSet,
              fieldType(parent, selection.name.value),
              fragment,
              visiting,
            );
      deepest = Math.max(deepest, (isWrapper(parent, selection) ? 0 : 1) + inner);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const type = selection.typeCondition
        ? schema.getType(selection.typeCondition.name.value)
        : parent;
      deepest = Math.max(
        deepest,
        depthOf(schema, selection.selectionSet, type ?? undefined, fragment, visiting),
      );
    } else {
      const name = selection.name.value;
      const definition = fragment(name);
      // A fragment that spreads itself is another rule's error (NoFragmentCycles).
      if (definition == null || visiting.has(name)) continue;
      visiting.add(name);
      const type = schema.getType(definition.typeCondition.name.value) ?? undefined;
      deepest = Math.max(
        deepest,
        depthOf(schema, definition.selectionSet, type, fragment, visiting),
      );
      visiting.delete(name);
    }
  }
  return deepest;
}

/** The deepest nesting of an operation, as the depth limit counts it (exported for tests). */
export function operationDepth(
  context: Pick<ValidationContext, 'getSchema' | 'getFragment'>,
  set: SelectionSetNode,
  root: GraphQLNamedType | undefined,
): number {
  return depthOf(context.getSchema(), set, root, (name) => context.getFragment(name), new Set());
}

/** Refuses an operation deeper than `maxDepth`, saying how deep it is and the maximum. */
export function createDepthRule(maxDepth: number): ValidationRule {
  return function QueryDepthRule(context: ValidationContext) {
    return {
      OperationDefinition(node) {
        const schema = context.getSchema();
        const root =
          node.operation === 'query'
            ? schema.getQueryType()
            : node.operation === 'mutation'
              ? schema.getMutationType()
              : schema.getSubscriptionType();
        const depth = operationDepth(context, node.selectionSet, root ?? undefined);
        if (depth > maxDepth) {
          // Thrown, as armor's limits and the cost rule are, so the refusal is the only error.
          const message = `Query depth ${depth} exceeds the maximum depth ${maxDepth}`;
          throw new GraphQLError(message, {
            extensions: new QueryTooComplexError(message, { limit: 'maxDepth', maximum: maxDepth })
              .extensions,
          });
        }
        return false;
      },
    };
  };
}
