/**
 * Typed Custom APIs end to end: a Custom API defined through REST gets a GraphQL type within one
 * refresh; its connection, lookup, filters and mutations work against the real service; wrong
 * values are refused before any upstream call; fields added or removed later appear or
 * disappear without a restart while an operation in flight completes on its own schema.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendUpstreamAttempt } from '../../src/upstream/client.ts';
import { type Stack, startStack } from '../support/harness.ts';
import { type Json, rest, userError } from './fixtures.ts';

const REFRESH_MS = 300;
const API = '/settings/extensions/custom-apis';

let stack: Stack;
let apiId: string;
/** Entry list calls of the caller are slowed down while this is set (the "long query"). */
let slowEntries = 0;
const logs: { msg: string; fields?: Record<string, unknown> }[] = [];

beforeAll(async () => {
  stack = await startStack({
    typed: {
      refreshMs: REFRESH_MS,
      logger: { log: (_level, msg, fields) => logs.push({ msg, ...(fields ? { fields } : {}) }) },
    },
    gateway: {
      send: async (transport, request, context) => {
        if (slowEntries > 0 && request.method === 'GET' && request.segments.at(-1) === 'entries') {
          await sleep(slowEntries);
        }
        return sendUpstreamAttempt(transport, request, context);
      },
    },
  });
});
afterAll(() => stack?.close());

async function ok(method: string, path: string, body?: unknown): Promise<Json> {
  const response = await rest(stack, method, path, body);
  if (response.status >= 300)
    throw new Error(`${method} ${path}: ${JSON.stringify(response.body)}`);
  return response.body?.data;
}

const defineField = (slug: string, fieldType: string, validation: Json = {}, description = '') =>
  ok('POST', `${API}/${apiId}/fields`, {
    data: {
      type: 'custom_field',
      name: slug,
      slug,
      field_type: fieldType,
      description,
      validation: { [fieldType]: validation },
    },
  });

/** Calls the caller made (the schema reader's own calls use another token). */
async function callerCalls(): Promise<number> {
  const token = await stack.token();
  return stack.upstreamRequests.filter((r) => r.authorization === `Bearer ${token}`).length;
}

async function typeFields(name: string): Promise<Record<string, string> | null> {
  const body = (
    await stack.graphql(
      `query($name: String!) { __type(name: $name) { fields { name type { name kind ofType { name } } } } }`,
      { name },
    )
  ).body;
  const fields = body.data.__type?.fields as Json[] | undefined;
  if (!fields) return null;
  return Object.fromEntries(fields.map((f) => [f.name, f.type.name ?? `${f.type.ofType.name}!`]));
}

const CARDS = [
  { code: 'ALPHA-1', balance: 100, active: true, rate: 0.1 },
  { code: 'BRAVO-2', balance: 250, active: false, rate: 0.5 },
  { code: 'CHARLIE-3', balance: 0, active: true, rate: null },
  { code: 'DELTA-4', balance: 990, active: true, rate: 0.9 },
  { code: 'ECHO-5', balance: 40, active: false, rate: 0.25 },
];

describe('typed Custom APIs', () => {
  it('gives a Custom API defined through REST a typed API within one refresh', async () => {
    expect(await typeFields('GiftCard')).toBeNull();
    const api = await ok('POST', API, {
      data: {
        type: 'custom_api',
        name: 'Gift cards',
        slug: 'gift-cards',
        api_type: 'gift_card_ext',
        description: 'Store gift cards',
      },
    });
    apiId = api.id;
    await defineField(
      'code',
      'string',
      { min_length: 4, max_length: 12, regex: '^[A-Z]+-[0-9]+$', allow_null_values: false },
      'Code printed on the card.',
    );
    await defineField('balance', 'integer', { min_value: 0, max_value: 1000 });
    await defineField('active', 'boolean');
    await defineField('rate', 'float', { min_value: 0, max_value: 1 });
    const defined = Date.now();
    let fields = await typeFields('GiftCard');
    // A refresh may land between two of the definitions above: wait for the last one.
    while (fields?.rate === undefined && Date.now() - defined < 10 * REFRESH_MS) {
      await sleep(25);
      fields = await typeFields('GiftCard');
    }
    // The timer, not a manual refresh, brought it: within one period (plus the read itself).
    expect(Date.now() - defined).toBeLessThan(REFRESH_MS + 1000);
    expect(fields).toEqual({
      id: 'ID!',
      upstreamId: 'ID!',
      createdAt: 'DateTime!',
      updatedAt: 'DateTime!',
      etag: 'String',
      resourceVersion: 'Int!',
      dataSize: 'Int!',
      active: 'Boolean',
      balance: 'Int',
      code: 'String',
      rate: 'Float',
    });
    const shape = (
      await stack.graphql(`{
        __type(name: "GiftCard") { interfaces { name } fields { name description } }
        query: __type(name: "Query") { fields { name args { name type { name } } } }
        mutation: __type(name: "Mutation") { fields { name } }
      }`)
    ).body.data;
    expect(shape.__type.interfaces.map((i: Json) => i.name).sort()).toEqual([
      'Node',
      'TypedCustomApiEntry',
    ]);
    expect(shape.__type.fields.find((f: Json) => f.name === 'code').description).toBe(
      'Code printed on the card.',
    );
    const giftCards = shape.query.fields.find((f: Json) => f.name === 'giftCards');
    expect(giftCards.args.map((a: Json) => a.name)).toEqual([
      'first',
      'after',
      'last',
      'before',
      'sortKey',
      'reverse',
      'filter',
      'updatedSince',
    ]);
    expect(shape.query.fields.some((f: Json) => f.name === 'giftCard')).toBe(true);
    // The generic API stays as it is.
    expect(shape.query.fields.some((f: Json) => f.name === 'customApiEntries')).toBe(true);
    expect(shape.mutation.fields.map((f: Json) => f.name)).toEqual(
      expect.arrayContaining([
        'createGiftCard',
        'updateGiftCard',
        'deleteGiftCard',
        'createCustomApiEntry',
      ]),
    );
    expect(logs.some((l) => l.msg === 'typed schema: swapped')).toBe(true);
  });

  it('creates, reads, looks up, updates and deletes typed entries', async () => {
    const ids: string[] = [];
    for (const card of CARDS) {
      const { body } = await stack.graphql(
        `mutation($input: CreateGiftCardInput!) {
           createGiftCard(input: $input) { giftCard { id upstreamId code balance active rate etag } }
         }`,
        { input: card },
      );
      expect(body.errors).toBeUndefined();
      expect(body.data.createGiftCard.giftCard).toMatchObject(card);
      ids.push(body.data.createGiftCard.giftCard.upstreamId);
    }
    const stored = await ok('GET', `${API}/${apiId}/entries/${ids[0]}`);
    expect(stored).toMatchObject({ type: 'gift_card_ext', ...CARDS[0] });

    const { body } = await stack.graphql(
      `query($id: ID!) {
         giftCard(id: $id) { id code balance }
         missing: giftCard(id: "00000000-0000-4000-8000-000000000000") { id }
         giftCards(first: 10, sortKey: CREATED_AT) { totalCount nodes { code } pageInfo { hasNextPage } }
       }`,
      { id: ids[1] },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.giftCard).toMatchObject({ code: 'BRAVO-2', balance: 250 });
    expect(body.data.missing).toBeNull();
    expect(body.data.giftCards.totalCount).toBe(CARDS.length);
    expect(body.data.giftCards.nodes.map((n: Json) => n.code)).toEqual(CARDS.map((c) => c.code));
    const node = (
      await stack.graphql(
        `query($id: ID!) { node(id: $id) { __typename ... on GiftCard { code } } }`,
        {
          id: body.data.giftCard.id,
        },
      )
    ).body;
    expect(node.data.node).toEqual({ __typename: 'GiftCard', code: 'BRAVO-2' });

    const read = (
      await stack.graphql(`query($id: ID!) { giftCard(id: $id) { etag } }`, { id: ids[4] })
    ).body.data.giftCard;
    const updated = (
      await stack.graphql(
        `mutation($input: UpdateGiftCardInput!) {
           updateGiftCard(input: $input) { giftCard { code balance active resourceVersion } }
         }`,
        { input: { id: ids[4], ifMatch: read.etag, balance: 45 } },
      )
    ).body;
    expect(updated.errors).toBeUndefined();
    expect(updated.data.updateGiftCard.giftCard).toEqual({
      code: 'ECHO-5',
      balance: 45,
      active: false,
      resourceVersion: 1,
    });
    CARDS[4] = { ...(CARDS[4] as (typeof CARDS)[number]), balance: 45 };
    const stale = (
      await stack.graphql(
        `mutation($input: UpdateGiftCardInput!) { updateGiftCard(input: $input) { giftCard { id } userErrors { code field message } } }`,
        { input: { id: ids[4], ifMatch: read.etag, balance: 46 } },
      )
    ).body;
    expect(userError(stale, 'updateGiftCard')?.code).toBe('PRECONDITION_FAILED');
    // An empty ifMatch is refused, not taken as "no precondition" (issue 20 #11).
    const calls = await callerCalls();
    const empty = (
      await stack.graphql(
        `mutation($input: UpdateGiftCardInput!) { updateGiftCard(input: $input) { giftCard { id } userErrors { code field message } } }`,
        { input: { id: ids[4], ifMatch: '', balance: 47 } },
      )
    ).body;
    expect(userError(empty, 'updateGiftCard')).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.ifMatch',
    });
    const emptyDelete = (
      await stack.graphql(
        `mutation($input: DeleteGiftCardInput!) { deleteGiftCard(input: $input) { deletedId userErrors { code field message } } }`,
        { input: { id: ids[4], ifMatch: '' } },
      )
    ).body;
    expect(userError(emptyDelete, 'deleteGiftCard')?.code).toBe('BAD_USER_INPUT');
    expect(await callerCalls()).toBe(calls);

    const extra = (
      await stack.graphql(
        `mutation { createGiftCard(input: { code: "FOXTROT-6", balance: 1 }) { giftCard { upstreamId } } }`,
      )
    ).body.data.createGiftCard.giftCard.upstreamId;
    const deleted = (
      await stack.graphql(
        `mutation($input: DeleteGiftCardInput!) { deleteGiftCard(input: $input) { deletedId } }`,
        { input: { id: extra } },
      )
    ).body;
    expect(deleted.data.deleteGiftCard.deletedId).toBe(extra);
    // Its global id works as well as its upstreamId (issue 29: one kind of id).
    const other = (
      await stack.graphql(
        `mutation { createGiftCard(input: { code: "FOXTROT-7", balance: 1 }) { giftCard { id upstreamId } } }`,
      )
    ).body.data.createGiftCard.giftCard;
    const byGlobal = (
      await stack.graphql(
        `mutation($input: DeleteGiftCardInput!) { deleteGiftCard(input: $input) { deletedId userErrors { code } } }`,
        { input: { id: other.id } },
      )
    ).body;
    expect(byGlobal.data.deleteGiftCard).toEqual({ deletedId: other.upstreamId, userErrors: [] });
    // And so does its lookup.
    const lookedUp = (
      await stack.graphql('query($id: ID!) { giftCard(id: $id) { upstreamId } }', { id: ids[0] })
    ).body;
    const global = (
      await stack.graphql('query($id: ID!) { giftCard(id: $id) { id } }', { id: ids[0] })
    ).body.data.giftCard.id;
    const byGlobalId = (
      await stack.graphql('query($id: ID!) { giftCard(id: $id) { upstreamId } }', { id: global })
    ).body;
    expect(byGlobalId.data.giftCard).toEqual(lookedUp.data.giftCard);
    expect((await rest(stack, 'GET', `${API}/${apiId}/entries/${extra}`)).status).toBe(404);
  });

  it('filters on every field type with the ground truth', async () => {
    const codes = async (filter: Json) => {
      const { body } = await stack.graphql(
        `query($filter: GiftCardFilter) { giftCards(first: 50, filter: $filter) { totalCount nodes { code } } }`,
        { filter },
      );
      expect(body.errors, JSON.stringify(filter)).toBeUndefined();
      const list = body.data.giftCards.nodes.map((n: Json) => n.code).sort();
      expect(body.data.giftCards.totalCount).toBe(list.length);
      return list;
    };
    const truth = (keep: (card: (typeof CARDS)[number]) => boolean) =>
      CARDS.filter(keep)
        .map((c) => c.code)
        .sort();
    const cases: [Json, (card: (typeof CARDS)[number]) => boolean][] = [
      [{ code: { eq: 'BRAVO-2' } }, (c) => c.code === 'BRAVO-2'],
      [{ code: { in: ['ALPHA-1', 'ECHO-5'] } }, (c) => ['ALPHA-1', 'ECHO-5'].includes(c.code)],
      [{ code: { like: '*A-*' } }, (c) => c.code.includes('A-')],
      [{ code: { gt: 'C' } }, (c) => c.code > 'C'],
      [{ code: { le: 'BRAVO-2' } }, (c) => c.code <= 'BRAVO-2'],
      [{ code: { isNull: false } }, () => true],
      [{ balance: { gt: 40 } }, (c) => c.balance > 40],
      [{ balance: { ge: 45, lt: 990 } }, (c) => c.balance >= 45 && c.balance < 990],
      [{ balance: { in: [0, 100] } }, (c) => [0, 100].includes(c.balance)],
      [{ balance: { eq: 250 } }, (c) => c.balance === 250],
      [{ rate: { lt: 0.5 } }, (c) => c.rate !== null && c.rate < 0.5],
      [{ rate: { ge: 0.5 } }, (c) => c.rate !== null && c.rate >= 0.5],
      [{ rate: { in: [0.25, 0.9] } }, (c) => c.rate === 0.25 || c.rate === 0.9],
      [{ rate: { isNull: true } }, (c) => c.rate === null],
      [{ active: { eq: true } }, (c) => c.active],
      [{ active: { eq: false }, balance: { lt: 100 } }, (c) => !c.active && c.balance < 100],
      [{ active: { isNull: true } }, () => false],
    ];
    for (const [filter, keep] of cases) {
      expect(await codes(filter), JSON.stringify(filter)).toEqual(truth(keep));
    }
    // Operators a type does not allow are not in its filter input.
    const refused = (
      await stack.graphql(`{ giftCards(filter: { rate: { eq: 0.5 } }) { totalCount } }`)
    ).body;
    expect(refused.errors[0].message).toMatch(/eq/);
  });

  it('refuses wrong values with BAD_USER_INPUT naming the field, before any upstream call', async () => {
    const cases: [Json, string][] = [
      [{ code: 'A-1', balance: 1 }, 'input.code'],
      [{ code: 'ALPHA-12345678', balance: 1 }, 'input.code'],
      [{ code: 'lower-1', balance: 1 }, 'input.code'],
      [{ code: null, balance: 1 }, 'input.code'],
      [{ balance: 1 }, 'input.code'],
      [{ code: 'GOLF-7', balance: -1 }, 'input.balance'],
      [{ code: 'GOLF-7', balance: 1001 }, 'input.balance'],
      [{ code: 'GOLF-7', rate: 1.5 }, 'input.rate'],
    ];
    const before = await callerCalls();
    for (const [input, field] of cases) {
      const { body } = await stack.graphql(
        `mutation($input: CreateGiftCardInput!) { createGiftCard(input: $input) { giftCard { id } userErrors { code field message } } }`,
        { input },
      );
      expect(userError(body, 'createGiftCard'), JSON.stringify(input)).toMatchObject({
        code: 'BAD_USER_INPUT',
        field,
      });
    }
    const update = (
      await stack.graphql(
        `mutation { updateGiftCard(input: { id: "00000000-0000-4000-8000-000000000000", code: null }) { giftCard { id } userErrors { code field message } } }`,
      )
    ).body;
    expect(userError(update, 'updateGiftCard')).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.code',
    });
    const filter = (
      await stack.graphql(`{ giftCards(filter: { code: { eq: "A(B" } }) { totalCount } }`)
    ).body;
    expect(filter.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'filter.code.eq',
    });
    expect(await callerCalls()).toBe(before);
    // Rules only the upstream can judge (uniqueness, immutability) come back with its verdict.
  });

  it('adds and removes fields without a restart; an operation in flight completes', async () => {
    const rate = (await ok('GET', `${API}/${apiId}/fields?filter=eq(slug,rate)`)) as Json[];
    slowEntries = 800;
    const inFlight = stack.graphql(`{ giftCards(first: 10) { nodes { code rate } } }`);
    await sleep(150);
    await ok('DELETE', `${API}/${apiId}/fields/${rate[0].id}`);
    await defineField('label', 'string', { max_length: 20 }, 'Shown on the card.');
    // The timer's next read (or this one, whichever comes first) swaps the schema.
    const deadline = Date.now() + 10 * REFRESH_MS;
    let fields = await typeFields('GiftCard');
    while (fields?.label === undefined && Date.now() < deadline) {
      await sleep(25);
      fields = await typeFields('GiftCard');
    }
    expect(fields?.label).toBe('String');
    expect(fields?.rate).toBeUndefined();
    slowEntries = 0;
    const old = (await inFlight).body;
    expect(old.errors).toBeUndefined();
    expect(old.data.giftCards.nodes).toHaveLength(CARDS.length);
    expect(old.data.giftCards.nodes[0]).toEqual({ code: 'ALPHA-1', rate: 0.1 });

    const now = (await stack.graphql(`{ giftCards(first: 1) { nodes { code rate } } }`)).body;
    expect(now.errors[0].message).toMatch(/Cannot query field "rate"/);
    const labelled = (
      await stack.graphql(
        `mutation { createGiftCard(input: { code: "HOTEL-8", label: "Happy birthday" }) { giftCard { label } } }`,
      )
    ).body;
    expect(labelled.data.createGiftCard.giftCard.label).toBe('Happy birthday');
    const long = (
      await stack.graphql(
        `mutation { createGiftCard(input: { code: "INDIA-9", label: "${'x'.repeat(21)}" }) { giftCard { label } userErrors { code field message } } }`,
      )
    ).body;
    expect(userError(long, 'createGiftCard')).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.label',
    });
  });

  it('keeps the last good schema when a refresh fails, and says why without secrets', async () => {
    const source = stack.schemaSource;
    if (!source) throw new Error('no schema source');
    const before = source.current();
    // Deleting the store's access is not possible here; an unreachable read is: close the
    // reader's pool by pointing a second source at a dead port instead.
    const { createTypedSchemaSource } = await import('../../src/gateway/typed-schema-source.ts');
    const { createUpstream } = await import('../../src/upstream/index.ts');
    const failing: typeof logs = [];
    const upstream = createUpstream({ url: stack.serviceUrl });
    const broken = createTypedSchemaSource({
      base: before,
      reader: upstream.definitions({ clientId: 'demo', clientSecret: 'not-the-secret' }),
      logger: { log: (_l, msg, fields) => failing.push({ msg, ...(fields ? { fields } : {}) }) },
    });
    expect(await broken.refresh()).toBe(false);
    expect(broken.current()).toBe(before);
    await broken.close();
    await upstream.close();
    expect(failing).toHaveLength(1);
    expect(failing[0]?.msg).toBe('typed schema: refresh failed; keeping the last good schema');
    expect(String(failing[0]?.fields?.error)).toMatch(/refused: status 401/);
    expect(JSON.stringify(failing)).not.toContain('not-the-secret');
    // The served schema is untouched.
    expect(source.current()).toBe(before);
  });
});
