import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSchema, createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSecurityPlugins,
  DEFAULT_QUERY_LIMITS,
  QUERY_REJECTED_CODE,
  securityYogaOptions,
} from '../../src/gateway/armor.ts';
import { ASSUMED_LIST_SIZE, COST_WEIGHTS } from '../../src/gateway/query-cost.ts';

// A toy recursive schema: the defences are schema-independent, and counting resolver calls
// proves a refused document never reached execution (so never an upstream call).
let resolved = 0;
const schema = createSchema({
  typeDefs: /* GraphQL */ `
    type Node { name: String, child: Node, children: [Node!]! }
    type Query { root: Node, echo(text: String): String, list(first: Int): [Node!]! }
    type Mutation { touch: Int }
  `,
  resolvers: {
    Query: {
      root: () => {
        resolved++;
        return {};
      },
      echo: (_: unknown, args: { text?: string }) => args.text ?? null,
      list: () => {
        resolved++;
        return [];
      },
    },
    Node: { name: () => 'n', child: () => ({}), children: () => [{}, {}] },
    Mutation: { touch: () => 1 },
  },
});

async function serve(introspection: boolean) {
  const yoga = createYoga({
    schema,
    ...securityYogaOptions({ maxBodyBytes: 64 * 1024 }),
    plugins: createSecurityPlugins({ introspection }),
    logging: false,
  });
  const server = createServer(yoga);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

let server: Server;
let closed: Server;
let url: string;
let closedUrl: string;

beforeAll(async () => {
  server = await serve(true);
  closed = await serve(false);
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/graphql`;
});
afterAll(() => {
  server.close();
  closed.close();
});

async function post(query: string, target = url, headers: Record<string, string> = {}) {
  const response = await fetch(target, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
  });
  return {
    status: response.status,
    body: (await response.json()) as {
      errors?: { message: string; extensions?: { code?: string } }[];
      data?: unknown;
    },
  };
}

const nested = (depth: number) =>
  `{ root { ${'child { '.repeat(depth)}name${' }'.repeat(depth)} } }`;

describe('query limits', () => {
  it('accepts a query within every limit', async () => {
    const { status, body } = await post(nested(3));
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
  });

  const cases: [string, string, RegExp][] = [
    [
      'maxDepth',
      nested(DEFAULT_QUERY_LIMITS.maxDepth + 2),
      /^Query depth 14 exceeds the maximum depth 10$/,
    ],
    [
      'maxAliases',
      `{ ${Array.from({ length: DEFAULT_QUERY_LIMITS.maxAliases + 1 }, (_, i) => `a${i}: echo`).join(' ')} }`,
      /^Query uses 16 aliases; the maximum is 15$/,
    ],
    [
      'maxTokens',
      `{ ${'echo '.repeat(DEFAULT_QUERY_LIMITS.maxTokens)} }`,
      /^Query is longer than the maximum of 2000 tokens$/,
    ],
    [
      'maxDirectives',
      `{ echo ${'@include(if: true) '.repeat(DEFAULT_QUERY_LIMITS.maxDirectives + 1)} }`,
      /^Query uses 21 directives; the maximum is 20$/,
    ],
    [
      'maxCost',
      `{ root { ${'children { '.repeat(7)}${'name '.repeat(400)}${' }'.repeat(7)} } }`,
      /^Query cost \d+ exceeds the maximum cost 5000 \(1 upstream call, \d+ rows, \d+ values; the costliest field is Node\.children at \d+\): select fewer fields, or ask for smaller pages/,
    ],
  ];
  for (const [limit, query, message] of cases) {
    it(`refuses a query over ${limit} before execution, saying which limit and its maximum`, async () => {
      const before = resolved;
      const { status, body } = await post(query);
      expect(status).toBeLessThan(500);
      expect(body.data ?? null).toBeNull();
      expect(body.errors).toHaveLength(1);
      expect(body.errors?.[0]?.message).toMatch(message);
      expect(body.errors?.[0]?.message).not.toMatch(/Syntax Error/);
      expect(body.errors?.[0]?.extensions).toMatchObject({
        code: QUERY_REJECTED_CODE,
        limit,
        maximum: DEFAULT_QUERY_LIMITS[limit as keyof typeof DEFAULT_QUERY_LIMITS],
      });
      expect(resolved).toBe(before);
    });
  }

  it('names the cost it measured', async () => {
    // The root field is one upstream call; `children`, a list no argument sizes, is taken to
    // hold ASSUMED_LIST_SIZE at each level; `name` repeated is one field, as execution merges it.
    const size = ASSUMED_LIST_SIZE;
    let rows = 0;
    let values = 1;
    for (let level = 1; level <= 5; level++) {
      values += size ** (level - 1);
      rows += size ** level;
    }
    values += size ** 5;
    const expected = COST_WEIGHTS.call + rows * COST_WEIGHTS.row + values * COST_WEIGHTS.value;
    const { body } = await post(
      `{ root { ${'children { '.repeat(5)}${'name '.repeat(500)}${' }'.repeat(5)} } }`,
    );
    const message = body.errors?.[0]?.message ?? '';
    const cost = Number(/^Query cost (\d+) /.exec(message)?.[1]);
    expect(cost).toBe(Math.ceil(expected));
    expect(cost).toBeGreaterThan(DEFAULT_QUERY_LIMITS.maxCost);
    expect(message).toContain(`(1 upstream call, ${rows} rows, ${values} values;`);
  });

  it('a page as large as maxFirst runs, and what it selects is costed per row', async () => {
    // `list(first:)` is sized by its argument: 1,000 rows of a few values are within the cost.
    const within = await post(`{ list(first: 1000) { name child { name } } }`);
    expect(within.body.errors).toBeUndefined();
    // The same page with a list under each row: 1,000 × 10 more rows, over it.
    const before = resolved;
    const over = await post(`{ list(first: 1000) { name children { name } } }`);
    expect(over.body.errors?.[0]?.message).toMatch(
      /^Query cost \d+ exceeds the maximum cost 5000 \(10 upstream calls, 11000 rows, /,
    );
    expect(resolved).toBe(before);
  });

  it('a literal first/last above the maximum page size is refused as that, not as cost', async () => {
    const before = resolved;
    const { status, body } = await post(`{ list(first: 5000) { name child { name } } }`);
    expect(status).toBeLessThan(500);
    expect(body.errors).toEqual([
      {
        message: '`first` may be at most 1000, got 5000',
        extensions: { code: 'BAD_USER_INPUT', field: 'first' },
      },
    ]);
    expect(resolved).toBe(before);
  });
});

describe('request rules', () => {
  it('refuses a body over maxRequestBodySize with 413', async () => {
    const { status, body } = await post(`{ echo(text: "${'x'.repeat(70_000)}") }`);
    expect(status).toBe(413);
    expect(body.errors?.[0]?.extensions?.code).toBe('REQUEST_ENTITY_TOO_LARGE');
  });

  it('refuses batches', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ query: '{ echo }' }, { query: '{ echo }' }]),
    });
    expect(response.status).toBe(400);
  });

  it('refuses simple-content-type POSTs and header-less GETs (CSRF)', async () => {
    const form = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ query: '{ echo }' }),
    });
    expect(form.status).toBe(403);
    const get = await fetch(`${url}?query=${encodeURIComponent('{ echo }')}`);
    expect(get.status).toBe(403);
    const withHeader = await fetch(`${url}?query=${encodeURIComponent('{ echo(text: "hi") }')}`, {
      headers: { 'x-graphql-yoga-csrf': '1' },
    });
    expect(withHeader.status).toBe(200);
    expect(await withHeader.json()).toEqual({ data: { echo: 'hi' } });
  });

  it('never runs a mutation over GET', async () => {
    const response = await fetch(`${url}?query=${encodeURIComponent('mutation { touch }')}`, {
      headers: { 'x-graphql-yoga-csrf': '1' },
    });
    expect(response.status).toBe(405);
  });

  it('switches introspection and suggestions off', async () => {
    const open = await post('{ __schema { queryType { name } } }');
    expect(open.body.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    const shut = await post('{ __schema { queryType { name } } }', closedUrl);
    expect(shut.body.data ?? null).toBeNull();
    expect(shut.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const typo = await post('{ roots { name } }', closedUrl);
    expect(typo.body.errors?.[0]?.message).not.toMatch(/Did you mean/);
    const helpful = await post('{ roots { name } }');
    expect(helpful.body.errors?.[0]?.message).toMatch(/Did you mean/);
  });
});
