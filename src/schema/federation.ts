/**
 * The schema as an Apollo Federation v2 subgraph: `_service { sdl }` and
 * `_entities(representations:)`, added to any built schema (the static one and every typed
 * build) by `federate()`. Implemented here rather than with @pothos/plugin-federation: the typed
 * entry types are built with graphql-js at run time, outside Pothos, and must be entities too,
 * and that plugin (through @apollo/subgraph) targets graphql 16.
 *
 * `_entities` resolves each representation through the request's batch loaders, so N
 * representations of one type cost one upstream `in(id,…)` call per 100 ids; an unknown id is
 * null. The subgraph SDL (`printSubgraphSchema`) is the served schema without the federation
 * fields and types, with `@key` on the entities and the `@link` to the federation spec; it is
 * printed once per schema object, on the first `_service` query.
 */
import {
  type ASTVisitor,
  type DefinitionNode,
  type DirectiveNode,
  GraphQLError,
  type GraphQLFieldConfigMap,
  GraphQLList,
  type GraphQLNamedType,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  GraphQLUnionType,
  isObjectType,
  Kind,
  lexicographicSortSchema,
  parse,
  print,
  printSchema,
  type ValidationContext,
  valueFromASTUntyped,
} from 'graphql';
import { BadUserInputError } from '../upstream/errors.ts';
import type { GatewayContext } from '../upstream/session.ts';

/** The federation spec version the subgraph SDL links to. */
export const FEDERATION_SPEC_URL = 'https://specs.apollo.dev/federation/v2.3';

/** A representation as a federation gateway sends it: `__typename` plus the key fields. */
export type Representation = { readonly __typename: string } & Readonly<Record<string, unknown>>;

/** One entity type of the subgraph: its key and how to load it from a representation. */
export interface EntityDefinition {
  /** The GraphQL object type. */
  readonly typeName: string;
  /** The fields of its `@key`, e.g. `['upstreamId']`; each must be a non-null ID or String. */
  readonly keyFields: readonly string[];
  /**
   * Loads the entity named by a representation whose key fields are strings; null when the store
   * has none. Must reach the request's batch loader synchronously (before any await), so the
   * representations of one `_entities` call batch into one upstream call per 100 ids.
   */
  resolve(representation: Representation, context: GatewayContext): Promise<object | null>;
}

const FEDERATION_TYPES = new Set(['_Any', '_Entity', '_Service']);

/**
 * Directives the gateway serves itself but a subgraph SDL leaves out: a federation router
 * defines and plans its own `@defer`, and composition refuses a subgraph that redefines it.
 */
const GATEWAY_ONLY_DIRECTIVES = new Set(['defer', 'stream']);
const FEDERATION_FIELDS = new Set(['_entities', '_service']);
// A string key: graphql-js copies extensions with Object.entries, which drops symbols.
const ENTITIES = 'commerceGatewayFederationEntities';

/** The entity definitions `federate` gave this schema (none for a schema it did not build). */
export function entitiesOf(schema: GraphQLSchema): readonly EntityDefinition[] {
  return (schema.extensions[ENTITIES] as readonly EntityDefinition[] | undefined) ?? [];
}

const AnyScalar = new GraphQLScalarType({
  name: '_Any',
  description:
    'Federation: an entity representation, `{ __typename, ...key fields }`, as a federation ' +
    'gateway sends it to `_entities`.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast) => valueFromASTUntyped(ast),
});

const ServiceType = new GraphQLObjectType<{ sdl: string }>({
  name: '_Service',
  description: 'Federation: what a federation gateway needs to know about this subgraph.',
  fields: {
    sdl: {
      type: new GraphQLNonNull(GraphQLString),
      description: 'The subgraph schema (Federation v2 SDL, with `@link` and `@key`).',
    },
  },
});

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `schema` with `_service`, `_entities` and their types (replacing those of an earlier call):
 * `entities` become the members of `_Entity`, each must be an object type of the schema that has
 * its key fields.
 */
export function federate(
  schema: GraphQLSchema,
  entities: readonly EntityDefinition[],
): GraphQLSchema {
  const config = schema.toConfig();
  const queryType = schema.getQueryType();
  if (!queryType) throw new Error('a subgraph needs a Query type');
  const byName = new Map<string, EntityDefinition>();
  const members: GraphQLObjectType[] = [];
  for (const entity of entities) {
    const type = schema.getType(entity.typeName);
    if (!isObjectType(type)) throw new Error(`entity ${entity.typeName} is not an object type`);
    for (const key of entity.keyFields) {
      if (!type.getFields()[key]) throw new Error(`entity ${entity.typeName} has no field ${key}`);
    }
    if (byName.has(entity.typeName)) throw new Error(`entity ${entity.typeName} given twice`);
    byName.set(entity.typeName, entity);
    members.push(type);
  }
  if (members.length === 0) throw new Error('a subgraph needs at least one entity');

  const EntityUnion = new GraphQLUnionType({
    name: '_Entity',
    description: 'Federation: every type of this subgraph that `_entities` can resolve.',
    types: members,
    resolveType: (value: { __typename?: string }) => value.__typename,
  });

  const resolveOne = async (representation: unknown, context: GatewayContext) => {
    if (!isRecord(representation) || typeof representation.__typename !== 'string') {
      throw new BadUserInputError('A representation must be an object with a __typename', {
        field: 'representations',
      });
    }
    const typeName = representation.__typename;
    const entity = byName.get(typeName);
    if (entity === undefined) {
      throw new BadUserInputError(`${typeName} is not an entity of this subgraph`, {
        field: 'representations',
      });
    }
    for (const key of entity.keyFields) {
      if (typeof representation[key] !== 'string') {
        throw new BadUserInputError(`A ${typeName} representation needs ${key} (a string)`, {
          field: 'representations',
        });
      }
    }
    const value = await entity.resolve(representation as Representation, context);
    return value === null ? null : { ...value, __typename: typeName };
  };

  const queryConfig = queryType.toConfig();
  const ownFields = Object.fromEntries(
    Object.entries(queryConfig.fields).filter(([name]) => !FEDERATION_FIELDS.has(name)),
  );
  const federationFields: GraphQLFieldConfigMap<unknown, GatewayContext> = {
    _entities: {
      type: new GraphQLNonNull(new GraphQLList(EntityUnion)),
      description:
        'Federation: the entities named by `representations`, in order; null for one the store ' +
        'does not have. A federation gateway calls this; clients need not.',
      args: {
        representations: {
          type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(AnyScalar))),
          description: 'Entity representations: `__typename` plus the fields of its `@key`.',
        },
      },
      // Every representation reaches its loader in this same tick, so they batch.
      resolve: (_root, args: { representations: readonly unknown[] }, context) =>
        args.representations.map((representation) => resolveOne(representation, context)),
    },
    _service: {
      type: new GraphQLNonNull(ServiceType),
      description: 'Federation: this subgraph’s schema, for a federation gateway or registry.',
      resolve: (_root, _args, _context, info) => ({ sdl: printSubgraphSchema(info.schema) }),
    },
  };
  const query = new GraphQLObjectType({
    ...queryConfig,
    fields: { ...ownFields, ...(federationFields as typeof ownFields) },
  });
  const types: GraphQLNamedType[] = config.types.filter(
    (type) => type !== queryType && !FEDERATION_TYPES.has(type.name),
  );
  return new GraphQLSchema({
    ...config,
    query,
    types: [...types, AnyScalar, ServiceType, EntityUnion],
    extensions: { ...config.extensions, [ENTITIES]: [...byName.values()] },
  });
}

/**
 * Refuses `Query._service` as graphql-js's NoSchemaIntrospectionCustomRule refuses `__schema`:
 * the subgraph SDL is the whole schema (the store's typed Custom API types included), so a
 * gateway with introspection off serves it only when told to (FEDERATION_SDL, docs/operations.md). A
 * validation error like that rule's, coded GRAPHQL_VALIDATION_FAILED by Yoga (YOGA_ERROR_CODES).
 */
export function NoSubgraphSdlRule(context: ValidationContext): ASTVisitor {
  return {
    Field(node) {
      if (node.name.value !== '_service') return;
      if (context.getParentType() !== context.getSchema().getQueryType()) return;
      context.reportError(
        new GraphQLError(
          'GraphQL introspection has been disabled, but the requested query contained the field "_service".',
          { nodes: node },
        ),
      );
    },
  };
}

const printed = new WeakMap<GraphQLSchema, string>();

/**
 * The subgraph SDL of a schema built by `federate`: sorted, without the federation fields and
 * types, with `@key(fields: …)` on every entity and `extend schema @link(…)` importing `@key`.
 */
export function printSubgraphSchema(schema: GraphQLSchema): string {
  const cached = printed.get(schema);
  if (cached !== undefined) return cached;
  const keys = new Map(entitiesOf(schema).map((entity) => [entity.typeName, entity.keyFields]));
  const document = parse(printSchema(lexicographicSortSchema(schema)));
  const definitions = document.definitions.flatMap((definition): DefinitionNode[] => {
    if (
      definition.kind === Kind.DIRECTIVE_DEFINITION &&
      GATEWAY_ONLY_DIRECTIVES.has(definition.name.value)
    ) {
      return [];
    }
    if (
      (definition.kind === Kind.OBJECT_TYPE_DEFINITION ||
        definition.kind === Kind.UNION_TYPE_DEFINITION ||
        definition.kind === Kind.SCALAR_TYPE_DEFINITION) &&
      FEDERATION_TYPES.has(definition.name.value)
    ) {
      return [];
    }
    if (definition.kind !== Kind.OBJECT_TYPE_DEFINITION) return [definition];
    const name = definition.name.value;
    const fields =
      name === schema.getQueryType()?.name
        ? definition.fields?.filter((field) => !FEDERATION_FIELDS.has(field.name.value))
        : definition.fields;
    const key = keys.get(name);
    const directives = key
      ? [
          ...(definition.directives ?? []),
          {
            kind: Kind.DIRECTIVE,
            name: { kind: Kind.NAME, value: 'key' },
            arguments: [
              {
                kind: Kind.ARGUMENT,
                name: { kind: Kind.NAME, value: 'fields' },
                value: { kind: Kind.STRING, value: key.join(' ') },
              },
            ],
          } satisfies DirectiveNode,
        ]
      : definition.directives;
    return [{ ...definition, fields, directives }];
  });
  const link: DefinitionNode = {
    kind: Kind.SCHEMA_EXTENSION,
    directives: [
      {
        kind: Kind.DIRECTIVE,
        name: { kind: Kind.NAME, value: 'link' },
        arguments: [
          {
            kind: Kind.ARGUMENT,
            name: { kind: Kind.NAME, value: 'url' },
            value: { kind: Kind.STRING, value: FEDERATION_SPEC_URL },
          },
          {
            kind: Kind.ARGUMENT,
            name: { kind: Kind.NAME, value: 'import' },
            value: { kind: Kind.LIST, values: [{ kind: Kind.STRING, value: '@key' }] },
          },
        ],
      },
    ],
  };
  const sdl = `${print({ kind: Kind.DOCUMENT, definitions: [link, ...definitions] })}\n`;
  printed.set(schema, sdl);
  return sdl;
}
