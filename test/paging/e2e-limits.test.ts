/**
 * The planner's refusals as a GraphQL client sees them, over real sockets: configured limits
 * reach the planner, and refused plans, bad arguments and forged cursors cost no upstream call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { type Stack, startStack } from '../support/harness.ts';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ gateway: { callBudget: 5, paging: { maxFirst: 600 } } });
  await stack.token();
});

afterAll(async () => {
  await stack?.close();
});

const ORDERS = /* GraphQL */ `
  query($first: Int, $last: Int, $after: String, $before: String) {
    orders(first: $first, last: $last, after: $after, before: $before) {
      totalCount
      edges { cursor }
    }
  }
`;

async function refused(variables: Record<string, unknown>) {
  const before = stack.upstreamRequests.filter((r) => r.url.startsWith('/v2/')).length;
  const result = await stack.graphql(ORDERS, variables);
  const after = stack.upstreamRequests.filter((r) => r.url.startsWith('/v2/')).length;
  expect(after - before).toBe(0);
  expect(result.body.data?.orders ?? null).toBeNull();
  return result.body.errors?.[0] as { message: string; extensions: Record<string, unknown> };
}

describe('paging limits through the gateway', () => {
  it('maxFirst from the gateway options: first: 601 → BAD_USER_INPUT on `first`', async () => {
    const error = await refused({ first: 601 });
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'first' });
    expect(error.message).toContain('at most 600');
  });

  it('a plan over the call budget (5) is refused before any call, saying why', async () => {
    const error = await refused({ first: 600 });
    expect(error.extensions.code).toBe('UPSTREAM_BUDGET_EXCEEDED');
    expect(error.message).toContain('needs 6 upstream call(s)');
  });

  it('first and last together, and forged cursors, are refused without a call', async () => {
    expect((await refused({ first: 5, last: 5 })).extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'last',
    });
    const forged = Buffer.from(JSON.stringify({ v: 1, c: 'files' })).toString('base64url');
    expect((await refused({ first: 5, after: forged })).extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'after',
    });
    expect((await refused({ last: 5, before: 'not-a-cursor!' })).extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'before',
    });
  });

  it('an empty connection pages cleanly', async () => {
    const result = await stack.graphql(ORDERS, { first: 10 });
    expect(result.body.data.orders).toEqual({ totalCount: 0, edges: [] });
  });
});

describe('paging configuration from the environment', () => {
  it('reads the knobs, with defaults', () => {
    expect(loadConfig({}).gateway).toMatchObject({
      callBudget: 50,
      paging: { maxFirst: 1000, concurrency: 4, consistencyBufferMs: 0 },
    });
    const config = loadConfig({
      UPSTREAM_CALL_BUDGET: '80',
      PAGING_MAX_FIRST: '500',
      PAGING_CONCURRENCY: '8',
      PAGING_CONSISTENCY_BUFFER_MS: '2000',
    });
    expect(config.gateway).toMatchObject({
      callBudget: 80,
      paging: { maxFirst: 500, concurrency: 8, consistencyBufferMs: 2000 },
    });
  });

  it('refuses values the planner could not honour', () => {
    expect(() => loadConfig({ PAGING_MAX_FIRST: '20000' })).toThrow(ConfigError);
    expect(() => loadConfig({ PAGING_CONSISTENCY_BUFFER_MS: '-1' })).toThrow(ConfigError);
    expect(() => loadConfig({ PAGING_CONCURRENCY: '0' })).toThrow(ConfigError);
  });
});
