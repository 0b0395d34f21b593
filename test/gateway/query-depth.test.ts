/**
 * Depth that fits Relay (issue 31, item 8): the depth limit counts the nesting of the data asked
 * for, not the Relay wrappers around it — `edges` and `nodes` of a connection and `node` of an
 * edge add no level — so a three-level category menu with its products, written `edges { node }`,
 * runs under the defaults, while what it costs is still judged by the cost limit.
 */
import { type GraphQLError, parse, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_QUERY_LIMITS } from '../../src/gateway/armor.ts';
import { GRAPHIQL_SHOPPER_QUERY } from '../../src/gateway/create-gateway.ts';
import { createDepthRule } from '../../src/gateway/query-depth.ts';
import { schema } from '../../src/schema/index.ts';
import { type Stack, startStack } from '../support/harness.ts';

/** The depth the limit counts, read from its refusal at a maximum of 0. */
function depth(query: string): number {
  try {
    // The rule throws its refusal, as the gateway's limits do (the only error of the answer).
    validate(schema, parse(query), [createDepthRule(0)]);
    return 0;
  } catch (error) {
    const found = /^Query depth (\d+) exceeds/.exec((error as Error).message)?.[1];
    if (found === undefined) throw error;
    return Number(found);
  }
}

/**
 * A storefront's menu: hierarchies → nodes → child nodes → grandchildren, with products. Each
 * node's children and products are a call of their own, so the page sizes are a menu's, not a
 * catalog's: the cost limit (~60 calls here) is what bounds a wider one.
 */
const MENU = `{
  catalog {
    hierarchies(first: 2) {
      edges { node { name
        children(first: 3) {
          edges { node { name
            children(first: 3) {
              edges { node { name
                children(first: 2) {
                  edges { node { name
                    products(first: 2) { edges { node { name price(currency: "USD") { withTax { formatted } } } } }
                  } }
                }
              } }
            }
          } }
        }
      } }
    }
  }
}`;

describe('how deep a document is', () => {
  it('counts every field but the connection wrappers', () => {
    expect(depth('{ orders(first: 1) { totalCount } }')).toBe(2);
    expect(depth('{ orders(first: 1) { edges { node { upstreamId } } } }')).toBe(2);
    expect(depth('{ orders(first: 1) { nodes { upstreamId } } }')).toBe(2);
    expect(depth('{ orders(first: 1) { edges { cursor } } }')).toBe(2);
    expect(depth('{ orders(first: 1) { pageInfo { hasNextPage } } }')).toBe(3);
    // The menu: catalog, hierarchies, three levels of children, products, price, withTax, formatted.
    expect(depth(MENU)).toBe(9);
  });

  it('flattens fragments and inline fragments, and ignores introspection', () => {
    expect(
      depth(
        `{ orders(first: 1) { ...Page } }
         fragment Page on OrderConnection { edges { node { ... on Order { total { formatted } } } } }`,
      ),
    ).toBe(3);
    expect(depth('{ __schema { types { fields { type { ofType { name } } } } } }')).toBe(0);
    expect(depth('{ orders(first: 1) { __typename } }')).toBe(1);
  });

  it('still refuses what is deep once the wrappers are set aside', () => {
    expect(validate(schema, parse(MENU), [createDepthRule(9)])).toEqual([]);
    let refusal: GraphQLError | undefined;
    try {
      validate(schema, parse(MENU), [createDepthRule(8)]);
    } catch (error) {
      refusal = error as GraphQLError;
    }
    expect([refusal?.message, refusal?.extensions]).toEqual([
      'Query depth 9 exceeds the maximum depth 8',
      { code: 'QUERY_TOO_COMPLEX', limit: 'maxDepth', maximum: 8 },
    ]);
  });
});

describe('a three-level category menu with products, written with edges { node }', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ seed: true, seedOptions: { orders: 5 } });
  });
  afterAll(() => stack?.close());

  it(`runs under the default limits (depth ${DEFAULT_QUERY_LIMITS.maxDepth}, cost ${DEFAULT_QUERY_LIMITS.maxCost})`, async () => {
    const { status, body } = await stack.graphql(MENU, {}, { token: await stack.implicitToken() });
    expect(body.errors).toBeUndefined();
    expect(status).toBe(200);
    const hierarchies = body.data.catalog.hierarchies.edges;
    expect(hierarchies.length).toBeGreaterThan(0);
    const second = hierarchies[0].node.children.edges[0].node.children.edges;
    expect(second.length).toBeGreaterThan(0);
  });

  it('GraphiQL’s shopper tab (its category menu) runs with the storefront token', async () => {
    const { status, body } = await stack.graphql(
      GRAPHIQL_SHOPPER_QUERY,
      {},
      { token: await stack.implicitToken() },
    );
    expect(body.errors).toBeUndefined();
    expect(status).toBe(200);
    expect(body.data.catalog.hierarchies.nodes[0].children.nodes.length).toBeGreaterThan(0);
  });
});
