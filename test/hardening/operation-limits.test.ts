/**
 * Limits that depend on the variables' values (src/gateway/operation-limits.ts), as a client
 * sees them over real sockets, on the node:http fast path with compiled execution and on
 * Yoga's own handler with the normal executor:
 * - list arguments (representations, ids, an `in` filter; literal or a variable, at any depth
 *   of an input object) holding more than MAX_LIST_ITEMS items, one list or all of an operation
 *   together, are refused before any upstream call, in a small answer that names the list, its
 *   length and the maximum;
 * - page sizes given as variables are costed with their values: refused exactly as the same
 *   document written literally, before any upstream call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { type Stack, startStack } from '../support/harness.ts';

const ORDER_ID = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
const globalId = (type: string, id: string) => Buffer.from(`${type}:${id}`).toString('base64');

/** Calls that reached the v2 API (the token fetch of the harness is not one). */
const v2Calls = (stack: Stack) => stack.upstreamRequests.filter((r) => r.url.startsWith('/v2'));

const ENTITIES = `query($r: [_Any!]!) {
  _entities(representations: $r) { __typename ... on Order { upstreamId } }
}`;
const NODES = 'query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }';
const PAGE = '{ nodes { upstreamId status total { formatted } } }';
const aliases = (count: number, field: string) =>
  Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(' ');

for (const [fastPath, jit] of [
  [true, true],
  [false, false],
] as const) {
  describe(`variable-sized input (fast path ${fastPath}, jit ${jit})`, () => {
    let stack: Stack;
    let orderIds: string[];

    beforeAll(async () => {
      stack = await startStack({
        seed: true,
        seedOptions: { orders: 1_100 },
        fastPath,
        gateway: { jit },
      });
      const page = await stack.graphql('{ orders(first: 3) { nodes { upstreamId } } }');
      orderIds = page.body.data.orders.nodes.map((n: { upstreamId: string }) => n.upstreamId);
    });
    afterAll(() => stack.close());

    /** Sends and expects one refusal before any upstream call; returns status, error and size. */
    async function refused(
      query: string,
      variables?: Record<string, unknown>,
      options?: { token?: string | null },
    ) {
      await stack.token();
      const before = v2Calls(stack).length;
      const result = await stack.graphql(query, variables, options);
      expect(v2Calls(stack).length - before).toBe(0);
      expect(result.status).toBeLessThan(500);
      expect(result.body.data ?? null).toBeNull();
      expect(result.body.errors).toHaveLength(1);
      return {
        status: result.status,
        body: result.body,
        error: result.body.errors[0] as { message: string; extensions: Record<string, unknown> },
        bytes: JSON.stringify(result.body).length,
      };
    }

    it('40,000 representations (an 80 KB body, no token): refused at once, in a small answer', async () => {
      const representations = new Array(40_000).fill(0);
      expect(
        JSON.stringify({ query: ENTITIES, variables: { r: representations } }).length,
      ).toBeLessThan(90_000);
      const { error, bytes } = await refused(ENTITIES, { r: representations }, { token: null });
      expect(error.message).toBe(
        '`representations` of `_entities` has 40000 items; the maximum is 1000: send the rest in another request',
      );
      expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'representations' });
      expect(bytes).toBeLessThan(1_000);
    });

    it('5,000 ids for nodes(ids:), with a token: refused before any upstream call', async () => {
      const ids = Array.from({ length: 5_000 }, (_, i) => globalId('Order', ORDER_ID(i)));
      const { error } = await refused(NODES, { ids });
      expect(error.message).toBe(
        '`ids` of `nodes` has 5000 items; the maximum is 1000: send the rest in another request',
      );
      expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'ids' });
    });

    it('a list inside an input object, and a literal list, are judged the same way', async () => {
      const inFilter = await refused(
        'query($f: OrderFilter) { orders(first: 5, filter: $f) { totalCount } }',
        { f: { id: { in: Array.from({ length: 1_001 }, (_, i) => ORDER_ID(i)) } } },
      );
      expect(inFilter.error.message).toBe(
        '`filter.id.in` of `orders` has 1001 items; the maximum is 1000: send the rest in another request',
      );
      expect(inFilter.error.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'filter.id.in' });
      const literal = await refused(
        `{ nodes(ids: [${Array.from({ length: 1_001 }, (_, i) => `"${globalId('Order', ORDER_ID(i))}"`).join(' ')}]) { id } }`,
      );
      expect(literal.error.message).toBe(
        '`ids` of `nodes` has 1001 items; the maximum is 1000: send the rest in another request',
      );
      expect(literal.error.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'ids' });
    });

    it('aliases cannot multiply the bound: all lists of an operation count together', async () => {
      const ids = Array.from({ length: 300 }, (_, i) => globalId('Order', ORDER_ID(i)));
      const { error } = await refused(
        `query($ids: [ID!]!) { ${aliases(4, 'nodes(ids: $ids) { id }')} }`,
        { ids },
      );
      expect(error.message).toBe(
        "The lists of this operation's arguments hold 1200 items together (the longest, `ids` of " +
          '`nodes`, 300); the maximum is 1000: send some in another request',
      );
      expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'ids' });
      const three = await stack.graphql(
        `query($ids: [ID!]!) { ${aliases(3, 'nodes(ids: $ids) { id }')} }`,
        { ids },
      );
      expect(three.body.errors).toBeUndefined();
      expect(three.body.data.a2).toHaveLength(300);
    });

    it('a list of the maximum runs, one upstream call per 100 ids', async () => {
      const representations = [
        ...orderIds.map((upstreamId) => ({ __typename: 'Order', upstreamId })),
        ...Array.from({ length: 1_000 - orderIds.length }, (_, i) => ({
          __typename: 'Order',
          upstreamId: ORDER_ID(i),
        })),
      ];
      const before = v2Calls(stack).length;
      const result = await stack.graphql(ENTITIES, { r: representations });
      expect(result.body.errors).toBeUndefined();
      expect(result.body.data._entities).toHaveLength(1_000);
      expect(result.body.data._entities.slice(0, 3)).toEqual(
        orderIds.map((upstreamId) => ({ __typename: 'Order', upstreamId })),
      );
      expect(v2Calls(stack).length - before).toBe(10);
    });

    it('page sizes in variables are costed with their values, exactly as written literally', async () => {
      const literal = await refused(`{ ${aliases(5, `orders(first: 1000) ${PAGE}`)} }`);
      expect(literal.error.extensions).toEqual({
        code: 'QUERY_TOO_COMPLEX',
        limit: 'maxCost',
        maximum: 5000,
      });
      const variable = await refused(
        `query($n: Int) { ${aliases(5, `orders(first: $n) ${PAGE}`)} }`,
        {
          n: 1000,
        },
      );
      expect(variable.status).toBe(literal.status);
      expect(variable.body).toEqual(literal.body);
      // A default value counts as the value it is.
      const byDefault = await refused(
        `query($n: Int = 1000) { ${aliases(5, `orders(first: $n) ${PAGE}`)} }`,
      );
      expect(byDefault.body).toEqual(literal.body);
      // last, in a fragment: the same measure as the same fragment written literally.
      const single = await refused(
        `{ ...page } fragment page on Query { ${aliases(5, `orders(last: 1000) ${PAGE}`)} }`,
      );
      const fragment = await refused(
        `query($n: Int!) { ...page } fragment page on Query { ${aliases(5, `orders(last: $n) ${PAGE}`)} }`,
        { n: 1000 },
      );
      expect(fragment.body).toEqual(single.body);
      // What was measured: ten calls and 1,000 rows of four values each, five times over.
      expect(literal.error.message).toBe(
        'Query cost 8501 exceeds the maximum cost 5000 (50 upstream calls, 5000 rows, 20010 ' +
          'values; the costliest field is Query.orders at 7501): select fewer fields, or ask for ' +
          'smaller pages (first/last multiply the cost of what they select)',
      );
    });

    it('the largest page runs under the default limits, literal or in variables', async () => {
      for (const [query, variables] of [
        ['{ orders(first: 1000) { nodes { upstreamId } } }', undefined],
        ['query($n: Int) { orders(last: $n) { nodes { upstreamId } } }', { n: 1000 }],
        [`query($n: Int = 1000) { orders(first: $n) ${PAGE} }`, undefined],
      ] as const) {
        const before = v2Calls(stack).length;
        const result = await stack.graphql(query, variables);
        expect(result.body.errors).toBeUndefined();
        expect(result.body.data.orders.nodes).toHaveLength(1_000);
        expect(v2Calls(stack).length - before).toBe(10);
      }
      // Three such pages in one operation: 30 calls, within UPSTREAM_CALL_BUDGET.
      const three = await stack.graphql(
        `query($n: Int) { ${aliases(3, 'orders(first: $n) { nodes { upstreamId } }')} }`,
        { n: 1000 },
      );
      expect(three.body.errors).toBeUndefined();
      expect(three.body.data.a2.nodes).toHaveLength(1_000);
    });

    it('fan-out under a page is refused before any upstream call, naming the field', async () => {
      // One GET per order for its items: 1,000 pages' worth of calls.
      const items = await refused(
        '{ orders(first: 1000) { nodes { upstreamId items { name } } } }',
      );
      expect(items.error.extensions).toEqual({
        code: 'QUERY_TOO_COMPLEX',
        limit: 'maxCost',
        maximum: 5000,
      });
      expect(items.error.message).toMatch(
        /^Query cost \d+ exceeds the maximum cost 5000 \(1010 upstream calls, .*; the costliest field is Order\.items at \d+\)/,
      );
      const variable = await refused(
        'query($n: Int) { orders(first: $n) { nodes { upstreamId items { name } } } }',
        { n: 1000 },
      );
      expect(variable.body).toEqual(items.body);
      // 101 calls already: twice the call budget.
      const hundred = await refused('{ orders(first: 100) { nodes { items { name } } } }');
      expect(hundred.error.message).toContain('(101 upstream calls,');
      // A connection inside a connection: 1,000 × 10 calls.
      const nested = await refused(
        'query($n: Int) { customApis(first: $n) { nodes { entries(first: $n) { nodes { id } } } } }',
        { n: 1000 },
      );
      expect(nested.error.message).toMatch(
        /\(10010 upstream calls, 1001000 rows, .*; the costliest field is CustomApi\.entries /,
      );
      // The most aliases a document may have, each a page of 1,000.
      const wide = await refused(
        `query($n: Int) { ${aliases(15, 'orders(first: $n) { nodes { upstreamId } }')} }`,
        { n: 1000 },
      );
      expect(wide.error.message).toContain('(150 upstream calls, 15000 rows,');
      // Fragments selecting the same page twice run it once, and are costed once.
      const twice = await stack.graphql(
        `query($n: Int) { ...a ...b } fragment a on Query { orders(first: $n) { nodes { upstreamId } } } fragment b on Query { orders(first: $n) { nodes { upstreamId status } } }`,
        { n: 1000 },
      );
      expect(twice.body.errors).toBeUndefined();
      expect(twice.body.data.orders.nodes).toHaveLength(1_000);
    });

    it('a variable page size above PAGING_MAX_FIRST says so, as the literal one does', async () => {
      const literal = await refused(`{ ${aliases(2, `orders(first: 2000) ${PAGE}`)} }`);
      const variable = await refused(
        `query($n: Int) { ${aliases(2, `orders(first: $n) ${PAGE}`)} }`,
        {
          n: 2000,
        },
      );
      expect(variable.body).toEqual(literal.body);
      expect(variable.error).toEqual({
        message: '`first` may be at most 1000, got 2000',
        extensions: { code: 'BAD_USER_INPUT', field: 'first' },
      });
    });

    it('small page sizes in variables run as before', async () => {
      const result = await stack.graphql(
        `query($n: Int) { ${aliases(5, `orders(first: $n) ${PAGE}`)} }`,
        { n: 2 },
      );
      expect(result.body.errors).toBeUndefined();
      expect(result.body.data.a4.nodes).toHaveLength(2);
    });
  });
}

describe('MAX_LIST_ITEMS', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ gateway: { queryLimits: { maxListItems: 3 } } });
  });
  afterAll(() => stack.close());

  it('is read from the environment, default 1000', () => {
    expect(loadConfig({}).gateway.queryLimits?.maxListItems).toBe(1000);
    expect(loadConfig({ MAX_LIST_ITEMS: '500' }).gateway.queryLimits?.maxListItems).toBe(500);
    expect(() => loadConfig({ MAX_LIST_ITEMS: '0' })).toThrow(/MAX_LIST_ITEMS/);
  });

  it('bounds every list argument of the gateway it is given to', async () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => globalId('Order', ORDER_ID(i)));
    const over = await stack.graphql(NODES, { ids: ids(4) });
    expect(over.body.errors[0].message).toBe(
      '`ids` of `nodes` has 4 items; the maximum is 3: send the rest in another request',
    );
    const within = await stack.graphql(NODES, { ids: ids(3) });
    expect(within.body.errors).toBeUndefined();
    expect(within.body.data.nodes).toEqual([null, null, null]);
  });
});
