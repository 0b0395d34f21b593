/**
 * The gateway as a remote schema in a larger graph: `@graphql-tools/stitch` over HTTP
 * (`@graphql-tools/executor-http`), the caller's Authorization passed through from the
 * stitched gateway's context, merged with a small local schema that extends `CustomApi`.
 */
import { buildHTTPExecutor } from '@graphql-tools/executor-http';
import { stitchSchemas } from '@graphql-tools/stitch';
import {
  buildClientSchema,
  GraphQLID,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  getIntrospectionQuery,
  type IntrospectionQuery,
  parse,
} from 'graphql';
import { createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';
import { createCustomApi, type Json } from './fixtures.ts';

let stack: Stack;
let stitched: ReturnType<typeof createYoga<{ authorization?: string }>>;

/** The local part of the graph: a storefront, and a label it keeps for each Custom API. */
function localSchema(): GraphQLSchema {
  const CustomApi = new GraphQLObjectType({
    name: 'CustomApi',
    fields: {
      upstreamId: { type: new GraphQLNonNull(GraphQLID) },
      shelfLabel: {
        type: new GraphQLNonNull(GraphQLString),
        resolve: (api: { upstreamId: string }) => `shelf for ${api.upstreamId.slice(0, 8)}`,
      },
    },
  });
  const Storefront = new GraphQLObjectType({
    name: 'Storefront',
    fields: { title: { type: new GraphQLNonNull(GraphQLString) } },
  });
  return new GraphQLSchema({
    query: new GraphQLObjectType({
      name: 'Query',
      fields: {
        storefront: { type: new GraphQLNonNull(Storefront), resolve: () => ({ title: 'Demo' }) },
        customApiLabel: {
          type: CustomApi,
          args: { upstreamId: { type: new GraphQLNonNull(GraphQLID) } },
          resolve: (_root, args: { upstreamId: string }) => ({ upstreamId: args.upstreamId }),
        },
      },
    }),
  });
}

beforeAll(async () => {
  stack = await startStack();
  await createCustomApi(stack, undefined, 'Wishlists');
  await createCustomApi(stack, undefined, 'Reviews');

  const executor = buildHTTPExecutor({
    endpoint: stack.gatewayUrl,
    // The caller's own Authorization, taken from the stitched gateway's context.
    headers: (request) => {
      const authorization = (request?.context as { authorization?: string } | undefined)
        ?.authorization;
      const headers: Record<string, string> = {};
      if (authorization) headers.authorization = authorization;
      return headers;
    },
  });
  // Introspection needs no token: it never reaches the commerce API.
  const introspection = (await executor({ document: parse(getIntrospectionQuery()) })) as {
    data: IntrospectionQuery;
  };
  const remote = buildClientSchema(introspection.data);

  const schema = stitchSchemas({
    subschemas: [
      { schema: remote, executor },
      {
        schema: localSchema(),
        merge: {
          CustomApi: {
            selectionSet: '{ upstreamId }',
            fieldName: 'customApiLabel',
            args: (api: { upstreamId: string }) => ({ upstreamId: api.upstreamId }),
          },
        },
      },
    ],
  });
  stitched = createYoga<{ authorization?: string }>({
    schema,
    context: ({ request }) => ({
      authorization: request.headers.get('authorization') ?? undefined,
    }),
    maskedErrors: false,
  });
});
afterAll(() => stack?.close());

async function query(source: string, authorization?: string): Promise<Json> {
  const response = await stitched.fetch('http://stitched/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify({ query: source }),
  });
  return response.json();
}

const ACROSS = `{
  storefront { title }
  customApis(first: 10, sortKey: CREATED_AT) { totalCount nodes { name upstreamId shelfLabel } }
}`;

describe('stitching the gateway into a larger graph', () => {
  it('runs one query across the gateway and a local schema, with the token passed through', async () => {
    const token = await stack.token();
    stack.upstreamRequests.length = 0;
    const body = await query(ACROSS, `Bearer ${token}`);
    expect(body.errors).toBeUndefined();
    expect(body.data.storefront).toEqual({ title: 'Demo' });
    expect(body.data.customApis.totalCount).toBe(2);
    expect(body.data.customApis.nodes.map((n: Json) => n.name)).toEqual(['Wishlists', 'Reviews']);
    for (const node of body.data.customApis.nodes) {
      expect(node.shelfLabel).toBe(`shelf for ${node.upstreamId.slice(0, 8)}`);
    }
    expect(stack.upstreamRequests.length).toBeGreaterThan(0);
    expect(stack.upstreamRequests.every((r) => r.authorization === `Bearer ${token}`)).toBe(true);
  });

  it('reports the gateway’s UNAUTHENTICATED when the caller sent no token', async () => {
    stack.upstreamRequests.length = 0;
    const body = await query(ACROSS);
    expect(body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(stack.upstreamRequests).toEqual([]);
  });
});
