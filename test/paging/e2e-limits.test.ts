/**
 * The planner's refusals as a GraphQL client sees them, over real sockets: configured limits
 * reach the planner, and refused plans, bad arguments and forged cursors cost no upstream call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { type Stack, startStack } from '../support/harness.ts';

let stack: Stack;

beforeAll(async () => {
  // The default cost limit: a page of 600 (six calls, 600 rows) is well within it, so the
  // planner's own refusals are what is tested here.
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

  it('a literal first/last above maxFirst says the maximum, not the query cost', async () => {
    for (const [arg, value] of [
      ['first', 5000],
      ['last', 601],
    ] as const) {
      const before = stack.upstreamRequests.length;
      const result = await stack.graphql(
        `{ orders(${arg}: ${value}) { nodes { upstreamId status total { formatted } } } }`,
      );
      expect(result.status).toBeLessThan(500);
      expect(result.body.data ?? null).toBeNull();
      expect(result.body.errors).toEqual([
        {
          message: `\`${arg}\` may be at most 600, got ${value}`,
          extensions: { code: 'BAD_USER_INPUT', field: arg },
        },
      ]);
      expect(stack.upstreamRequests.length).toBe(before);
    }
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
    expect(loadConfig({}).upstream).toMatchObject({
      callBudget: 50,
      paging: { maxFirst: 1000, concurrency: 10, consistencyBufferMs: 0 },
    });
    const config = loadConfig({
      UPSTREAM_CALL_BUDGET: '80',
      PAGING_MAX_FIRST: '500',
      PAGING_CONCURRENCY: '8',
      PAGING_CONSISTENCY_BUFFER_MS: '2000',
    });
    expect(config.upstream).toMatchObject({
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

describe('incremental sync through the gateway', () => {
  it('pinnedAt of one walk, passed as updatedSince, yields exactly what changed since', async () => {
    const token = await stack.token();
    const rest = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${stack.serviceUrl}/v2${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(response.ok).toBe(true);
      return ((await response.json()) as { data: { id: string } }).data;
    };
    const api = await rest('POST', '/settings/extensions/custom-apis', {
      data: { type: 'custom_api', name: 'Sync', slug: 'sync', api_type: 'sync_ext' },
    });
    const entries = `/settings/extensions/custom-apis/${api.id}/entries`;
    const ids: string[] = [];
    for (let i = 0; i < 12; i++)
      ids.push((await rest('POST', entries, { data: { type: 'sync_ext', n: i } })).id);

    const SYNC = /* GraphQL */ `
      query($api: ID!, $after: String, $since: DateTime) {
        customApiEntries(customApiId: $api, first: 5, after: $after, sortKey: UPDATED_AT,
                         updatedSince: $since) {
          pinnedAt
          pageInfo { hasNextPage endCursor }
          edges { node { upstreamId } }
        }
      }
    `;
    const sync = async (since: string | null, duringFirstPage?: () => Promise<void>) => {
      const seen: string[] = [];
      let after: string | null = null;
      let pinnedAt = '';
      for (let page = 0; ; page++) {
        const result = await stack.graphql(SYNC, { api: api.id, after, since });
        expect(result.body.errors).toBeUndefined();
        const connection = result.body.data.customApiEntries;
        seen.push(
          ...connection.edges.map((e: { node: { upstreamId: string } }) => e.node.upstreamId),
        );
        pinnedAt = connection.pinnedAt;
        if (page === 0) await duringFirstPage?.();
        after = connection.pageInfo.endCursor;
        if (!connection.pageInfo.hasNextPage) break;
      }
      return { seen, pinnedAt };
    };

    // Full sync; while it runs, one entry already delivered and one not yet delivered change,
    // and a new one is created.
    await new Promise((resolve) => setTimeout(resolve, 5));
    let created = '';
    const first = await sync(null, async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      await rest('PUT', `${entries}/${ids[0]}`, { data: { type: 'sync_ext', n: 100 } });
      await rest('PUT', `${entries}/${ids[11]}`, { data: { type: 'sync_ext', n: 111 } });
      created = (await rest('POST', entries, { data: { type: 'sync_ext', n: 12 } })).id;
    });
    // Nothing twice; the entry updated before it was reached left this walk (its updated_at is
    // past the pin); the new one is not in it.
    expect(new Set(first.seen).size).toBe(first.seen.length);
    // (Compared as sets: entries created within one millisecond are ordered by id.)
    expect([...first.seen].sort()).toEqual(ids.slice(0, 11).sort());
    // The next sync from the pin brings exactly the three changes.
    const second = await sync(first.pinnedAt);
    expect([...second.seen].sort()).toEqual([ids[0], ids[11], created].sort());
    expect(second.pinnedAt >= first.pinnedAt).toBe(true);
  });
});
