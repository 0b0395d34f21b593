import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';
import { codes, createCustomApi, createEntry, type Json, userError } from './fixtures.ts';

let stack: Stack;
let api: Json;

beforeAll(async () => {
  stack = await startStack();
  api = await createCustomApi(stack);
});
afterAll(() => stack?.close());
beforeEach(() => {
  stack.upstreamRequests.length = 0;
});

const ENTRY_FIELDS = `id upstreamId customApiId type attributes createdAt updatedAt dataSize
  resourceVersion etag selfLink`;

const CREATE = `mutation Create($input: CreateCustomApiEntryInput!) {
  createCustomApiEntry(input: $input) { entry { ${ENTRY_FIELDS} } userErrors { code field message } }
}`;

describe('createCustomApiEntry', () => {
  it('creates an entry, supplying the api_type with one GET when type is omitted', async () => {
    const { body } = await stack.graphql(CREATE, {
      input: { customApiId: api.id, attributes: { name: 'My Wishlist', items_count: 0 } },
    });
    expect(body.errors).toBeUndefined();
    const entry = body.data.createCustomApiEntry.entry;
    expect(entry.type).toBe(api.api_type);
    expect(entry.customApiId).toBe(api.id);
    expect(entry.attributes).toEqual({ name: 'My Wishlist', items_count: 0 });
    expect(entry.dataSize).toBe('My Wishlist'.length + 1);
    expect(entry.resourceVersion).toBe(0);
    expect(entry.etag).toMatch(/^W\/"[0-9a-f]{64}"$/);
    expect(entry.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(stack.upstreamRequests.map((r) => `${r.method} ${r.url}`)).toEqual([
      `GET /v2/settings/extensions/custom-apis/${api.id}`,
      `POST /v2/settings/extensions/custom-apis/${api.id}/entries`,
    ]);
  });

  it('sends the given type without looking the Custom API up', async () => {
    const { body } = await stack.graphql(CREATE, {
      input: { customApiId: api.id, type: api.api_type, attributes: { name: 'x' } },
    });
    expect(body.data.createCustomApiEntry.entry.type).toBe(api.api_type);
    expect(stack.upstreamRequests.map((r) => r.method)).toEqual(['POST']);
  });

  it('passes the upstream detail of a 400 on as BAD_USER_INPUT', async () => {
    const { body } = await stack.graphql(CREATE, {
      input: { customApiId: api.id, type: 'other_ext', attributes: { name: 'x' } },
    });
    expect(codes(body)).toEqual(['BAD_USER_INPUT']);
    expect(userError(body, 'createCustomApiEntry')?.message).toContain('data.type');
  });

  it('judges oversized, reserved and malformed input before any upstream call', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ customApiId: api.id, attributes: { big: 'x'.repeat(65_537) } }, 'input.attributes'],
      [
        { customApiId: api.id, attributes: { a: 'é'.repeat(20_000), b: 'x'.repeat(30_000) } },
        'input.attributes',
      ],
      [{ customApiId: api.id, attributes: { id: 'mine' } }, 'input.attributes.id'],
      [{ customApiId: '../../oauth', attributes: { a: 1 } }, 'input.customApiId'],
      [{ customApiId: `${api.id}?x=1`, attributes: { a: 1 } }, 'input.customApiId'],
      [{ customApiId: api.id, type: '  ', attributes: { a: 1 } }, 'input.type'],
    ];
    for (const [input, field] of cases) {
      const { body } = await stack.graphql(CREATE, { input });
      expect(codes(body), field).toEqual(['BAD_USER_INPUT']);
      expect(userError(body, 'createCustomApiEntry')?.field).toBe(field);
    }
    expect(stack.upstreamRequests).toEqual([]);
  });

  it('accepts exactly 64 KB of data', async () => {
    const { body } = await stack.graphql(CREATE, {
      input: { customApiId: api.id, attributes: { big: 'x'.repeat(65_536) } },
    });
    expect(body.errors).toBeUndefined();
    expect(body.data.createCustomApiEntry.entry.dataSize).toBe(65_536);
  });

  it('refuses a read-only (implicit) token with FORBIDDEN', async () => {
    const token = await stack.implicitToken();
    const { body } = await stack.graphql(
      CREATE,
      { input: { customApiId: api.id, type: api.api_type, attributes: { a: 1 } } },
      { token },
    );
    expect(codes(body)).toEqual(['FORBIDDEN']);
  });

  it('maps an unknown Custom API to NOT_FOUND', async () => {
    const { body } = await stack.graphql(CREATE, {
      input: {
        customApiId: '00000000-0000-4000-8000-000000000000',
        attributes: { a: 1 },
      },
    });
    expect(codes(body)).toEqual(['NOT_FOUND']);
    expect(body.data.createCustomApiEntry.entry).toBeNull();
  });
});

describe('reading entries', () => {
  let entries: Json[];
  let readApi: Json;

  beforeAll(async () => {
    readApi = await createCustomApi(stack, undefined, 'Notes');
    entries = [];
    for (let i = 0; i < 7; i += 1) entries.push(await createEntry(stack, readApi, { n: i }));
  });

  it('looks one entry up, and answers null for a missing one', async () => {
    const { body } = await stack.graphql(
      `query($api: ID!, $id: ID!, $missing: ID!) {
        found: customApiEntry(customApiId: $api, id: $id) { upstreamId attributes etag }
        missing: customApiEntry(customApiId: $api, id: $missing) { upstreamId }
      }`,
      { api: readApi.id, id: entries[2].id, missing: '00000000-0000-4000-8000-000000000000' },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.found).toEqual({
      upstreamId: entries[2].id,
      attributes: { n: 2 },
      etag: `W/"${entries[2].meta.etag_id}"`,
    });
    expect(body.data.missing).toBeNull();
  });

  it('batches N entry lookups of one Custom API into one in(id,…) call', async () => {
    const fields = entries
      .map(
        (e, i) =>
          `e${i}: customApiEntry(customApiId: "${readApi.id}", id: "${e.id}") { upstreamId }`,
      )
      .join('\n');
    const { body } = await stack.graphql(`{ ${fields} }`);
    expect(body.errors).toBeUndefined();
    entries.forEach((e, i) => {
      expect(body.data[`e${i}`].upstreamId).toBe(e.id);
    });
    expect(stack.upstreamRequests).toHaveLength(1);
    const url = decodeURIComponent(stack.upstreamRequests[0]?.url ?? '');
    expect(url).toContain(`filter=in(id,${entries.map((e) => e.id).join(',')})`);
  });

  it('looks a Custom API up once however many fields ask for it', async () => {
    const listed = await stack.graphql(`{ customApis(first: 10) { nodes { id upstreamId } } }`);
    const notes = listed.body.data.customApis.nodes.find((n: Json) => n.upstreamId === readApi.id);
    stack.upstreamRequests.length = 0;
    const { body } = await stack.graphql(
      `query($id: ID!, $gid: ID!) {
        a: customApi(id: $id) { name } b: customApi(id: $id) { slug }
        node(id: $gid) { ... on CustomApi { apiType } }
      }`,
      { id: readApi.id, gid: notes.id },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.a.name).toBe('Notes');
    expect(body.data.node.apiType).toBe(readApi.api_type);
    expect(stack.upstreamRequests).toHaveLength(1);
  });

  it('pages through the entries connection with cursors, sort and filter', async () => {
    const query = `query($api: ID!, $after: String, $filter: CustomApiEntryFilter) {
      customApiEntries(customApiId: $api, first: 3, after: $after, sortKey: CREATED_AT,
        filter: $filter) {
        totalCount
        edges { cursor node { upstreamId attributes } }
        nodes { upstreamId }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      }
    }`;
    const first = await stack.graphql(query, { api: readApi.id });
    const page1 = first.body.data.customApiEntries;
    expect(page1.totalCount).toBe(7);
    expect(page1.edges.map((e: Json) => e.node.attributes.n)).toEqual([0, 1, 2]);
    expect(page1.nodes.map((n: Json) => n.upstreamId)).toEqual(
      entries.slice(0, 3).map((e) => e.id),
    );
    expect(page1.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(page1.pageInfo.endCursor).toBe(page1.edges[2].cursor);

    const second = await stack.graphql(query, { api: readApi.id, after: page1.pageInfo.endCursor });
    const page2 = second.body.data.customApiEntries;
    expect(page2.edges.map((e: Json) => e.node.attributes.n)).toEqual([3, 4, 5]);
    expect(page2.pageInfo.hasPreviousPage).toBe(true);

    const filtered = await stack.graphql(query, {
      api: readApi.id,
      filter: { id: { in: [entries[1].id, entries[5].id] } },
    });
    const page = filtered.body.data.customApiEntries;
    expect(page.totalCount).toBe(2);
    expect(page.nodes.map((n: Json) => n.upstreamId)).toEqual([entries[1].id, entries[5].id]);
  });

  it('reverses the order and pages backwards with last/before', async () => {
    const { body } = await stack.graphql(
      `query($api: ID!) {
        customApiEntries(customApiId: $api, last: 2, reverse: true) {
          nodes { attributes } pageInfo { hasNextPage hasPreviousPage }
        }
      }`,
      { api: readApi.id },
    );
    expect(body.errors).toBeUndefined();
    const conn = body.data.customApiEntries;
    expect(conn.nodes.map((n: Json) => n.attributes.n)).toEqual([1, 0]);
    expect(conn.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true });
  });

  it('lists Custom APIs and their entries, and refetches both by global id', async () => {
    const { body } = await stack.graphql(
      `{ customApis(first: 10, sortKey: CREATED_AT) {
          totalCount
          nodes { id upstreamId name apiType entries(first: 1) { totalCount nodes { id } } }
      } }`,
    );
    expect(body.errors).toBeUndefined();
    const notes = body.data.customApis.nodes.find((n: Json) => n.upstreamId === readApi.id);
    expect(notes.entries.totalCount).toBe(7);
    const entryId = notes.entries.nodes[0].id;

    const missing = Buffer.from(
      `CustomApiEntry:${readApi.id}:00000000-0000-4000-8000-000000000000`,
    ).toString('base64');
    const refetch = await stack.graphql(
      `query($ids: [ID!]!, $api: ID!) {
        api: node(id: $api) { __typename ... on CustomApi { name } }
        nodes(ids: $ids) { __typename ... on CustomApiEntry { upstreamId customApiId } }
      }`,
      { api: notes.id, ids: [entryId, missing] },
    );
    expect(refetch.body.errors).toBeUndefined();
    expect(refetch.body.data.api).toEqual({ __typename: 'CustomApi', name: 'Notes' });
    expect(refetch.body.data.nodes).toEqual([
      { __typename: 'CustomApiEntry', upstreamId: entries[0].id, customApiId: readApi.id },
      null,
    ]);
  });

  it('refuses a global id whose raw id is not an upstream id, before any call', async () => {
    const forged = Buffer.from('CustomApiEntry:x:../y').toString('base64');
    const { body } = await stack.graphql(`{ node(id: "${forged}") { id } }`);
    expect(codes(body)).toEqual(['BAD_USER_INPUT']);
    expect(stack.upstreamRequests).toEqual([]);
  });

  it('refuses a string that is not a global id', async () => {
    const { body } = await stack.graphql('{ node(id: "not-a-global-id") { id } }');
    expect(codes(body)).toEqual(['BAD_USER_INPUT']);
    expect(stack.upstreamRequests).toEqual([]);
  });
});

describe('updating and deleting entries', () => {
  const UPDATE = `mutation($input: UpdateCustomApiEntryInput!) {
    updateCustomApiEntry(input: $input) { entry { attributes resourceVersion etag dataSize }
      userErrors { code field message } }
  }`;
  const DELETE = `mutation($input: DeleteCustomApiEntryInput!) {
    deleteCustomApiEntry(input: $input) { deletedId userErrors { code field message } }
  }`;

  it('updates with a matching etag, refuses a stale one, then deletes', async () => {
    const entry = await createEntry(stack, api, { name: 'v0', keep: true });
    const etag0 = `W/"${entry.meta.etag_id}"`;
    const updated = await stack.graphql(UPDATE, {
      input: { customApiId: api.id, entryId: entry.id, attributes: { name: 'v1' }, ifMatch: etag0 },
    });
    expect(updated.body.errors).toBeUndefined();
    const after = updated.body.data.updateCustomApiEntry.entry;
    expect(after.attributes).toEqual({ name: 'v1', keep: true });
    expect(after.resourceVersion).toBe(1);
    expect(after.etag).not.toBe(etag0);

    const stale = await stack.graphql(UPDATE, {
      input: { customApiId: api.id, entryId: entry.id, attributes: { name: 'v2' }, ifMatch: etag0 },
    });
    expect(codes(stale.body)).toEqual(['PRECONDITION_FAILED']);

    const staleDelete = await stack.graphql(DELETE, {
      input: { customApiId: api.id, entryId: entry.id, ifMatch: etag0 },
    });
    expect(codes(staleDelete.body)).toEqual(['PRECONDITION_FAILED']);

    const deleted = await stack.graphql(DELETE, {
      input: { customApiId: api.id, entryId: entry.id, ifMatch: after.etag },
    });
    expect(deleted.body.data.deleteCustomApiEntry.deletedId).toBe(entry.id);
    const gone = await stack.graphql(`query($id: ID!) { node(id: $id) { id } }`, {
      id: Buffer.from(`CustomApiEntry:${api.id}:${entry.id}`).toString('base64'),
    });
    expect(gone.body).toEqual({ data: { node: null } });

    const again = await stack.graphql(DELETE, {
      input: { customApiId: api.id, entryId: entry.id },
    });
    expect(codes(again.body)).toEqual(['NOT_FOUND']);
  });

  it('maps the upstream 413 of an update that grows the entry past 64 KB', async () => {
    const entry = await createEntry(stack, api, { a: 'x'.repeat(40_000) });
    const { body } = await stack.graphql(UPDATE, {
      input: { customApiId: api.id, entryId: entry.id, attributes: { b: 'y'.repeat(40_000) } },
    });
    expect(codes(body)).toEqual(['ENTRY_TOO_LARGE']);
  });

  it('refuses a malformed ifMatch before any call', async () => {
    const { body } = await stack.graphql(UPDATE, {
      input: {
        customApiId: api.id,
        entryId: '00000000-0000-4000-8000-000000000000',
        attributes: {},
        ifMatch: 'W/"a b"',
      },
    });
    expect(codes(body)).toEqual(['BAD_USER_INPUT']);
    expect(userError(body, 'updateCustomApiEntry')?.field).toBe('input.ifMatch');
    expect(stack.upstreamRequests).toEqual([]);
  });
});
