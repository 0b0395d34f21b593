/**
 * The typed schema as a remote schema in a larger graph: introspected and stitched over HTTP
 * (`@graphql-tools/stitch` + `@graphql-tools/executor-http`), with a local schema that extends
 * the generated `GiftCard` type, and the caller's Authorization passed through.
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
import { type Json, rest } from './fixtures.ts';

let stack: Stack;
let stitched: ReturnType<typeof createYoga<{ authorization?: string }>>;

function localSchema(): GraphQLSchema {
  const GiftCard = new GraphQLObjectType({
    name: 'GiftCard',
    fields: {
      upstreamId: { type: new GraphQLNonNull(GraphQLID) },
      printUrl: {
        type: new GraphQLNonNull(GraphQLString),
        resolve: (card: { upstreamId: string }) => `https://print.example/${card.upstreamId}`,
      },
    },
  });
  return new GraphQLSchema({
    query: new GraphQLObjectType({
      name: 'Query',
      fields: {
        giftCardPrint: {
          type: GiftCard,
          args: { upstreamId: { type: new GraphQLNonNull(GraphQLID) } },
          resolve: (_root, args: { upstreamId: string }) => ({ upstreamId: args.upstreamId }),
        },
      },
    }),
  });
}

beforeAll(async () => {
  stack = await startStack({ typed: {} });
  const api = await rest(stack, 'POST', '/settings/extensions/custom-apis', {
    data: { type: 'custom_api', name: 'Gift cards', slug: 'gift-cards', api_type: 'gift_card_ext' },
  });
  const id = api.body.data.id;
  for (const [slug, fieldType] of [
    ['code', 'string'],
    ['balance', 'integer'],
  ]) {
    await rest(stack, 'POST', `/settings/extensions/custom-apis/${id}/fields`, {
      data: { type: 'custom_field', name: slug, slug, field_type: fieldType },
    });
  }
  for (const [code, balance] of [
    ['A-1', 10],
    ['B-2', 20],
  ]) {
    await rest(stack, 'POST', `/settings/extensions/custom-apis/${id}/entries`, {
      data: { type: 'gift_card_ext', code, balance },
    });
  }
  expect(await stack.schemaSource?.refresh()).toBe(true);

  const executor = buildHTTPExecutor({
    endpoint: stack.gatewayUrl,
    headers: (request) => {
      const authorization = (request?.context as { authorization?: string } | undefined)
        ?.authorization;
      const headers: Record<string, string> = {};
      if (authorization) headers.authorization = authorization;
      return headers;
    },
  });
  const introspection = (await executor({ document: parse(getIntrospectionQuery()) })) as {
    data: IntrospectionQuery;
  };
  const schema = stitchSchemas({
    subschemas: [
      { schema: buildClientSchema(introspection.data), executor },
      {
        schema: localSchema(),
        merge: {
          GiftCard: {
            selectionSet: '{ upstreamId }',
            fieldName: 'giftCardPrint',
            args: (card: { upstreamId: string }) => ({ upstreamId: card.upstreamId }),
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
    headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
    body: JSON.stringify({ query: source }),
  });
  return response.json();
}

describe('stitching the typed schema into a larger graph', () => {
  it('queries and filters generated types across the remote and a local schema', async () => {
    const token = await stack.token();
    const body = await query(
      `{ giftCards(first: 10, sortKey: CREATED_AT, filter: { balance: { gt: 15 } }) {
           totalCount nodes { code balance printUrl upstreamId }
         } }`,
      `Bearer ${token}`,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.giftCards.totalCount).toBe(1);
    const [card] = body.data.giftCards.nodes;
    expect(card).toMatchObject({ code: 'B-2', balance: 20 });
    expect(card.printUrl).toBe(`https://print.example/${card.upstreamId}`);
  });

  it('runs a generated mutation through the stitched graph, judged by the gateway', async () => {
    const token = await stack.token();
    const created = await query(
      'mutation { createGiftCard(input: { code: "C-3", balance: 30 }) { giftCard { code balance } } }',
      `Bearer ${token}`,
    );
    expect(created.errors).toBeUndefined();
    expect(created.data.createGiftCard.giftCard).toEqual({ code: 'C-3', balance: 30 });
    const missingToken = await query('{ giftCards(first: 1) { totalCount } }');
    expect(missingToken.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});
