/**
 * The query cost model (src/gateway/query-cost.ts) on the gateway's schema: what it counts for
 * the shapes clients send, and, over real sockets against the seeded service, that the upstream
 * calls it counts bound the calls the gateway makes, so a fetching field it did not know of
 * (a resolver below the root without `extensions.upstreamCalls`) fails here.
 */
import { type FragmentDefinitionNode, getOperationAST, Kind, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CUSTOMERS } from '../../src/commerce-service/seed/index.ts';
import { DEFAULT_QUERY_LIMITS } from '../../src/gateway/armor.ts';
import {
  ASSUMED_LIST_SIZE,
  COST_WEIGHTS,
  costModelOptions,
  measureOperationCost,
  type QueryCost,
} from '../../src/gateway/query-cost.ts';
import { schema } from '../../src/schema/index.ts';
import { type Stack, startStack } from '../support/harness.ts';

function measure(query: string, variables: Record<string, number> = {}): QueryCost {
  const document = parse(query);
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition.name.value, definition);
    }
  }
  const operation = getOperationAST(document);
  if (!operation) throw new Error('no operation');
  return measureOperationCost(
    schema,
    operation,
    (name) => fragments.get(name),
    (name) => variables[name],
    costModelOptions(),
  );
}

const PAGE = '{ nodes { upstreamId status total { amount currency formatted } } }';

describe('what the cost counts', () => {
  it('a page of first or last N: ceil(N / 100) calls, N rows, what it selects N times', () => {
    for (const query of [`{ orders(first: 1000) ${PAGE} }`, `{ orders(last: 1000) ${PAGE} }`]) {
      const cost = measure(query);
      expect(cost).toMatchObject({ calls: 10, rows: 1000, values: 2 + 1000 * 6 });
      expect(cost.cost).toBe(
        10 * COST_WEIGHTS.call + 1000 * COST_WEIGHTS.row + 6002 * COST_WEIGHTS.value,
      );
      expect(cost.cost).toBeLessThan(DEFAULT_QUERY_LIMITS.maxCost);
    }
    // Without first/last, the planner's default page of 25; `first: 250` is three calls.
    expect(measure(`{ orders ${PAGE} }`)).toMatchObject({ calls: 1, rows: 25 });
    expect(measure(`{ orders(first: 250) ${PAGE} }`)).toMatchObject({ calls: 3, rows: 250 });
    // Variables count with their values; unset, the default page.
    expect(measure(`query($n: Int) { orders(first: $n) ${PAGE} }`, { n: 400 })).toMatchObject({
      calls: 4,
      rows: 400,
    });
    expect(measure(`query($n: Int) { orders(first: $n) ${PAGE} }`)).toMatchObject({ rows: 25 });
  });

  it('a field that fetches per row costs a call per row, and names itself the costliest', () => {
    const cost = measure('{ orders(first: 1000) { nodes { items { name } } } }');
    expect(cost.calls).toBe(10 + 1000);
    expect(cost.rows).toBe(1000 + 1000 * ASSUMED_LIST_SIZE);
    expect(cost.costliest?.field).toBe('Order.items');
    expect(cost.costliest?.calls).toBe(1000);
    // A connection inside a connection: N times its own pages.
    const nested = measure(
      '{ customApis(first: 1000) { nodes { entries(first: 1000) { nodes { upstreamId } } } } }',
    );
    expect(nested).toMatchObject({ calls: 10 + 1000 * 10, rows: 1000 + 1000 * 1000 });
    expect(nested.costliest?.field).toBe('CustomApi.entries');
    // Scalars and plain objects of a row fetch nothing.
    expect(
      measure(`{ order(id: "x") { upstreamId total { amount } totals { discount { amount } } } }`),
    ).toMatchObject({ calls: 1, rows: 0 });
  });

  it('fields are merged as execution merges them: a page selected twice runs, and costs, once', () => {
    const once = measure(`{ orders(first: 1000) { nodes { upstreamId status } } }`);
    const twice = measure(
      `{ ...a ...b } fragment a on Query { orders(first: 1000) { nodes { upstreamId } } }
       fragment b on Query { orders(first: 1000) { nodes { status upstreamId } } }`,
    );
    expect(twice).toEqual(once);
    // Fragments spreading fragments twice over: measured once, not 2^n times.
    const levels = 40;
    const bomb = [
      '{ ...f0 }',
      ...Array.from(
        { length: levels },
        (_, i) => `fragment f${i} on Query { ...f${i + 1} ...f${i + 1} }`,
      ),
      `fragment f${levels} on Query { orders(first: 1000) { nodes { upstreamId status } } }`,
    ].join('\n');
    expect(measure(bomb)).toEqual(once);
  });

  it('an item of an abstract list costs what its costliest possible type costs', () => {
    const cost = measure(
      `query($r: [_Any!]!) { _entities(representations: $r) {
        ... on Order { upstreamId items { name } } ... on File { upstreamId } } }`,
      { r: 200 },
    );
    // Two batched lookups of 100 ids; each item an order with its items GET.
    expect(cost.calls).toBe(2 + 200);
    expect(cost.rows).toBe(200 + 200 * ASSUMED_LIST_SIZE);
  });
});

describe('the calls counted bound the calls made', () => {
  let stack: Stack;
  let cartId: string;
  let customerToken: string;

  beforeAll(async () => {
    stack = await startStack({ seed: true, seedOptions: { orders: 200 } });
    const ada = DEMO_CUSTOMERS[0];
    const signIn = await stack.graphql(
      'mutation($i: CreateCustomerTokenInput!) { createCustomerToken(input: $i) { token } }',
      { i: { email: ada.email, password: ada.password } },
    );
    customerToken = signIn.body.data.createCustomerToken.token;
    const created = await stack.graphql(
      'mutation { createCart(input: { name: "bound" }) { cart { upstreamId } } }',
    );
    cartId = created.body.data.createCart.cart.upstreamId;
  });
  afterAll(() => stack?.close());

  const v2Calls = () => stack.upstreamRequests.filter((r) => r.url.startsWith('/v2')).length;

  const cases: {
    name: string;
    query: string;
    variables?: () => Record<string, unknown>;
    customer?: boolean;
    exact?: boolean;
  }[] = [
    {
      name: 'an order page with each order’s items',
      query: '{ orders(first: 30) { nodes { upstreamId items { name quantity } } } }',
      exact: true,
    },
    {
      name: 'a page of 250 and a backward page',
      query:
        '{ a: orders(first: 250, sortKey: UPDATED_AT) { totalCount nodes { upstreamId } } b: files(last: 3) { nodes { upstreamId } } }',
    },
    {
      name: 'Custom APIs with their entries',
      query:
        '{ customApis(first: 5) { nodes { slug entries(first: 3) { nodes { upstreamId attributes } } } } }',
    },
    {
      name: 'a cart with its items, and a write whose payload reads the cart',
      query:
        'mutation($c: ID!) { addCartCustomItem(input: { cartId: $c, name: "Tea", sku: "tea-1", quantity: 2, price: { amount: 450 } }) { cart { upstreamId items { name } totals { withTax { formatted } } } } }',
      variables: () => ({ c: cartId }),
    },
    {
      name: 'a cart read by id with its items',
      query:
        'query($c: ID!) { cart(id: $c) { name items { name customDiscounts { amount { formatted } } } } }',
      variables: () => ({ c: cartId }),
      exact: true,
    },
    {
      name: 'the signed-in customer’s orders and carts, with their items',
      query:
        '{ viewer { customer { email } orders(first: 5) { nodes { items { name } } } carts(first: 5) { nodes { name items { name } } } } }',
      customer: true,
    },
    {
      name: 'entities and nodes by id',
      query:
        'query($r: [_Any!]!) { _entities(representations: $r) { ... on Order { upstreamId status } } }',
      variables: () => ({
        r: Array.from({ length: 150 }, (_, i) => ({
          __typename: 'Order',
          upstreamId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        })),
      }),
      exact: true,
    },
  ];

  for (const one of cases) {
    it(one.name, async () => {
      const variables = one.variables?.();
      const sizes: Record<string, number> = {};
      for (const [name, value] of Object.entries(variables ?? {})) {
        if (Array.isArray(value)) sizes[name] = value.length;
      }
      const counted = measure(one.query, sizes);
      const headers: Record<string, string> = one.customer
        ? { 'x-moltin-customer-token': customerToken }
        : {};
      await stack.token();
      const before = v2Calls();
      const result = await stack.graphql(one.query, variables, { headers });
      expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
      const made = v2Calls() - before;
      expect(made).toBeGreaterThan(0);
      expect(made).toBeLessThanOrEqual(counted.calls);
      if (one.exact) expect(made).toBe(counted.calls);
    });
  }
});
