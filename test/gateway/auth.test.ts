import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';
import { createCustomApi, createEntry, type Json } from './fixtures.ts';

let stack: Stack;
const A = { id: 'store-a', secret: 'secret-a' };
const B = { id: 'store-b', secret: 'secret-b' };
const data: Record<string, { api: Json; entries: Json[] }> = {};

beforeAll(async () => {
  stack = await startStack({ clients: [A, B] });
  for (const client of [A, B]) {
    const api = await createCustomApi(stack, client.id, `Notes ${client.id}`);
    const entries = [];
    for (let i = 0; i < 3; i += 1) {
      entries.push(await createEntry(stack, api, { owner: client.id, i }, client.id));
    }
    data[client.id] = { api, entries };
  }
});
afterAll(() => stack?.close());
beforeEach(() => {
  stack.upstreamRequests.length = 0;
});

const codes = (body: Json): string[] => (body.errors ?? []).map((e: Json) => e.extensions?.code);
const LIST = '{ customApis(first: 10) { nodes { upstreamId name } } }';

describe('the bearer token', () => {
  it('is required: no token → UNAUTHENTICATED without any upstream call', async () => {
    const { status, body } = await stack.graphql(LIST, undefined, { token: null });
    expect(status).toBe(200);
    expect(codes(body)).toEqual(['UNAUTHENTICATED']);
    expect(body.data).toBeNull();
    expect(stack.upstreamRequests).toEqual([]);
  });

  it('must be a Bearer credential: malformed headers are refused without a call', async () => {
    for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer a b', 'Token abc', ' ']) {
      const { body } = await stack.graphql(LIST, undefined, { authorization });
      expect(codes(body), authorization).toEqual(['UNAUTHENTICATED']);
    }
    expect(stack.upstreamRequests).toEqual([]);
  });

  it('is not needed for fields that make no upstream call', async () => {
    const { body } = await stack.graphql('{ __typename }', undefined, { token: null });
    expect(body).toEqual({ data: { __typename: 'Query' } });
  });

  it('refused upstream (401) → UNAUTHENTICATED, and the token is in no error', async () => {
    const token = 'f'.repeat(40);
    const { body } = await stack.graphql(LIST, undefined, { token });
    expect(codes(body)).toEqual(['UNAUTHENTICATED']);
    expect(body.errors[0].extensions.upstreamStatus).toBe(401);
    expect(JSON.stringify(body)).not.toContain(token);
  });

  it('is forwarded verbatim, with only the expected headers, on every upstream call', async () => {
    const token = await stack.token(A.id);
    const authorization = `bearer ${token}`;
    const { api, entries } = data[A.id] as { api: Json; entries: Json[] };
    const { body } = await stack.graphql(
      `query($api: ID!, $e: ID!) {
        customApi(id: $api) { name entries(first: 2) { totalCount } }
        customApiEntry(customApiId: $api, id: $e) { upstreamId }
      }`,
      { api: api.id, e: entries[0].id },
      { authorization },
    );
    expect(body.errors).toBeUndefined();
    expect(stack.upstreamRequests.length).toBe(3);
    for (const request of stack.upstreamRequests) {
      expect(request.authorization).toBe(authorization);
    }
  });
});

describe('two stores', () => {
  it('see only their own data, even interleaved concurrently', async () => {
    const tokens = { [A.id]: await stack.token(A.id), [B.id]: await stack.token(B.id) };
    const runs = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? A.id : B.id));
    const results = await Promise.all(
      runs.map(async (clientId) => {
        const own = data[clientId] as { api: Json; entries: Json[] };
        const { body } = await stack.graphql(
          `query($api: ID!) {
            customApis(first: 10) { nodes { upstreamId } }
            customApiEntries(customApiId: $api, first: 10) { nodes { attributes } }
          }`,
          { api: own.api.id },
          { token: tokens[clientId] },
        );
        return { clientId, body };
      }),
    );
    for (const { clientId, body } of results) {
      expect(body.errors).toBeUndefined();
      const own = data[clientId] as { api: Json };
      expect(body.data.customApis.nodes).toEqual([{ upstreamId: own.api.id }]);
      for (const node of body.data.customApiEntries.nodes) {
        expect(node.attributes.owner).toBe(clientId);
      }
    }
    const seen = stack.upstreamRequests.map((r) => r.authorization);
    expect(seen.filter((a) => a === `Bearer ${tokens[A.id]}`)).toHaveLength(40);
    expect(seen.filter((a) => a === `Bearer ${tokens[B.id]}`)).toHaveLength(40);
  });

  it("cannot read each other's entries: another store's ids are null", async () => {
    const a = data[A.id] as { api: Json; entries: Json[] };
    const { body } = await stack.graphql(
      `query($api: ID!, $e: ID!) {
        customApi(id: $api) { name }
        customApiEntry(customApiId: $api, id: $e) { upstreamId }
      }`,
      { api: a.api.id, e: a.entries[0].id },
      { token: await stack.token(B.id) },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data).toEqual({ customApi: null, customApiEntry: null });
  });
});
