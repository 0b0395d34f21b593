/**
 * The plan runner (src/gateway/compiled/run.ts) against graphql-js's own executor, rule by rule,
 * on a small schema shaped as the gateway's (exposed fields, described resolvers): aliases,
 * __typename, fragments and type conditions, non-null propagation, list items, promises,
 * errors, leaves, variables. Every answer must serialise to the same JSON as `execute`'s.
 */
import {
  execute,
  GraphQLInt,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  parse,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { compileDocument } from '../../src/gateway/compiled/plan.ts';
import { BAD_VARIABLES, runPlan } from '../../src/gateway/compiled/run.ts';

const exposed = (name: string) => ({ pothosExposedField: name });

/** A row of the test's upstream, as the resolvers read it. */
interface Row {
  key: string;
  status: string | null;
  payment: string | null;
  count: number;
  total: unknown;
}
interface Context {
  rows: Row[];
}

const Node = new GraphQLInterfaceType({
  name: 'Node',
  fields: { id: { type: new GraphQLNonNull(GraphQLString) } },
});
const Money = new GraphQLObjectType({
  name: 'Money',
  fields: {
    amount: { type: new GraphQLNonNull(GraphQLInt), extensions: exposed('amount') },
    // Described (src/gateway/compiled/described-fields.ts): called as the executor calls it.
    decimal: {
      type: new GraphQLNonNull(GraphQLString),
      resolve: (money: { amount: unknown }) => {
        if (money.amount === 13) throw new Error('unlucky');
        return money.amount === 7 ? null : `${money.amount}.00`;
      },
    },
  },
});
const Order: GraphQLObjectType = new GraphQLObjectType<Row, Context>({
  name: 'Order',
  interfaces: [Node],
  fields: () => ({
    id: { type: new GraphQLNonNull(GraphQLString), resolve: (o: Row) => `O:${o.key}` },
    status: { type: new GraphQLNonNull(GraphQLString), extensions: exposed('status') },
    payment: { type: GraphQLString, extensions: exposed('payment') },
    count: { type: GraphQLInt, extensions: exposed('count') },
    total: {
      type: Money,
      resolve: (o: Row) => (o.total instanceof Error ? o.total : Promise.resolve(o.total)),
    },
  }),
});
const Query = new GraphQLObjectType<unknown, Context>({
  name: 'Query',
  fields: {
    orders: {
      type: new GraphQLList(Order),
      args: { first: { type: GraphQLInt } },
      resolve: (_root, args: { first?: number }, context) =>
        args.first === -1
          ? Promise.reject(new Error('refused'))
          : context.rows.slice(0, args.first ?? 10),
    },
    order: {
      type: new GraphQLNonNull(Order),
      args: { key: { type: new GraphQLNonNull(GraphQLString) } },
      resolve: (_root, args: { key: string }, context) =>
        context.rows.find((row) => row.key === args.key) ?? null,
    },
  },
});
const schema = new GraphQLSchema({ query: Query, types: [Order] });

const ROWS: Row[] = [
  { key: 'a', status: 'paid', payment: null, count: 1, total: { amount: 5 } },
  { key: 'b', status: null, payment: 'x', count: 2, total: { amount: 6 } },
  { key: 'c', status: 'open', payment: 'y', count: 2 ** 40, total: { amount: 7 } },
  { key: 'd', status: 'open', payment: 'z', count: 3, total: { amount: 13 } },
  { key: 'e', status: 'open', payment: 'w', count: 4, total: new Error('no total') },
  { key: 'f', status: 'open', payment: 'v', count: 5, total: null },
];

async function both(text: string, variables?: Record<string, unknown>) {
  const compiled = compileDocument(schema, text);
  if (compiled.reason !== undefined) throw new Error(compiled.reason);
  const contextValue = { rows: ROWS };
  const ours = await runPlan(compiled.plan, contextValue, undefined, variables);
  const theirs = await execute({
    schema,
    document: parse(text),
    contextValue,
    variableValues: variables,
  });
  return { ours: JSON.stringify(ours), theirs: JSON.stringify(theirs) };
}

async function expectSame(text: string, variables?: Record<string, unknown>) {
  const { ours, theirs } = await both(text, variables);
  expect(ours).toBe(theirs);
  return JSON.parse(ours) as { data: unknown; errors?: { path: unknown[] }[] };
}

describe('a compiled plan answers as graphql-js executes', () => {
  it('aliases and __typename, in selection order', async () => {
    await expectSame('{ x: orders(first: 1) { __typename s: status id t: __typename } }');
  });

  it('fragments: named and inline, on the type and on an interface it implements, merged', async () => {
    await expectSame(
      '{ orders(first: 1) { ...F ... on Node { id } ... on Order { status payment } status } } ' +
        'fragment F on Order { payment total { amount } }',
    );
  });

  it('a null non-null field nulls its parent, its error recorded once, at its path', async () => {
    const answer = await expectSame('{ orders(first: 3) { status } }');
    expect(answer.errors?.[0]?.path).toEqual(['orders', 1, 'status']);
  });

  it('a nullable field that fails is null, with its error; promises and Error values alike', async () => {
    await expectSame('{ orders { key: id total { amount decimal } } }');
  });

  it('a leaf that does not serialise is an error of that field', async () => {
    await expectSame('{ orders(first: 3) { count } }');
  });

  it('a rejected root field is null with its error; a null non-null root field nulls data', async () => {
    await expectSame('{ orders(first: -1) { status } }');
    const answer = await expectSame('{ order(key: "zz") { status } }');
    expect(answer.data).toBeNull();
  });

  it('variables coerced as graphql-js coerces them; bad ones are left to the executor', async () => {
    const text =
      'query Q($n: Int = 2, $k: String!) { orders(first: $n) { id } order(key: $k) { id } }';
    await expectSame(text, { k: 'a' });
    await expectSame(text, { n: 1, k: 'c' });
    const compiled = compileDocument(schema, text);
    if (compiled.reason !== undefined) throw new Error(compiled.reason);
    expect(runPlan(compiled.plan, { rows: ROWS }, undefined, { n: 'two', k: 'a' })).toBe(
      BAD_VARIABLES,
    );
    expect(runPlan(compiled.plan, { rows: ROWS }, undefined, {})).toBe(BAD_VARIABLES);
  });

  it('is not made for what it cannot prove', () => {
    expect(
      compileDocument(schema, '{ orders { id ...on Order @include(if: true) { status } } }'),
    ).toEqual({ reason: 'the directive @include is not compiled' });
    const unknown = new GraphQLSchema({
      query: new GraphQLObjectType({
        name: 'Query',
        fields: { hello: { type: GraphQLString, resolve: () => 'world' } },
      }),
    });
    expect(compileDocument(unknown, '{ hello }')).toEqual({
      reason: 'Query.hello is not described',
    });
  });
});
