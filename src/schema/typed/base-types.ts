/**
 * What the typed schema takes from the static (Pothos) schema it is built on, so typed entries
 * page, filter and sort like every other list, and the graphql-js wrappers its types use.
 */
import {
  type GraphQLEnumType,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLInterfaceType,
  GraphQLList,
  type GraphQLNamedType,
  GraphQLNonNull,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLScalarType,
  type GraphQLSchema,
} from 'graphql';

export const nonNull = <T extends GraphQLOutputType | GraphQLInputType>(type: T) =>
  new GraphQLNonNull(type as never) as unknown as T;
export const listOf = <T extends GraphQLOutputType | GraphQLInputType>(type: T) =>
  new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type as never))) as unknown as T;

/** The static schema's types the typed ones reuse. */
export interface BaseTypes {
  NodeInterface: GraphQLInterfaceType;
  DateTime: GraphQLScalarType;
  PageInfo: GraphQLObjectType;
  IDFilter: GraphQLInputObjectType;
  DateTimeFilter: GraphQLInputObjectType;
  SortKey: GraphQLEnumType;
  /** What every mutation payload lists in `userErrors` (src/schema/kit/mutation.ts). */
  UserError: GraphQLObjectType;
}

function baseType<T extends GraphQLNamedType>(schema: GraphQLSchema, name: string): T {
  const type = schema.getType(name);
  if (!type) throw new Error(`the base schema has no ${name}`);
  return type as T;
}

export function baseTypesOf(base: GraphQLSchema): BaseTypes {
  return {
    NodeInterface: baseType<GraphQLInterfaceType>(base, 'Node'),
    DateTime: baseType<GraphQLScalarType>(base, 'DateTime'),
    PageInfo: baseType<GraphQLObjectType>(base, 'PageInfo'),
    IDFilter: baseType<GraphQLInputObjectType>(base, 'IDFilter'),
    DateTimeFilter: baseType<GraphQLInputObjectType>(base, 'DateTimeFilter'),
    SortKey: baseType<GraphQLEnumType>(base, 'CustomApiEntrySortKey'),
    UserError: baseType<GraphQLObjectType>(base, 'UserError'),
  };
}
