/**
 * Every write has one shape (DESIGN.md rule 12, issue 29): each mutation of the schema takes one
 * argument, `input: <Something>Input!`, and answers a payload object with
 * `userErrors: [UserError!]!`; every delete payload names what it removed `deletedId`. And a
 * mistake the caller can fix comes back in `userErrors`, with the field as a path, not as a
 * top-level error.
 */
import { readFileSync } from 'node:fs';
import {
  buildSchema,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.ts';
import { type Stack, startStack } from '../support/harness.ts';

// The static schema's mutations, and the typed Custom APIs' of the demo store (the committed
// print of its typed schema, which schema-drift.test.ts keeps current).
const typed = buildSchema(
  readFileSync(new URL('../../schema.typed.graphql', import.meta.url), 'utf8'),
);
const mutations = [
  ...Object.values(schema.getMutationType()?.getFields() ?? {}),
  ...Object.values(typed.getMutationType()?.getFields() ?? {}).filter(
    (m) => schema.getMutationType()?.getFields()[m.name] === undefined,
  ),
];

describe('the shape of every mutation', () => {
  it('walks more than fifty mutations, the typed Custom APIs’ among them', () => {
    expect(mutations.length).toBeGreaterThan(50);
    expect(mutations.map((m) => m.name)).toContain('deleteWishlists');
  });

  it.each(mutations.map((m) => [m.name, m] as const))('%s takes one input', (_name, mutation) => {
    expect(mutation.args.map((a) => a.name)).toEqual(['input']);
    const type = mutation.args[0]?.type;
    expect(isNonNullType(type) && isInputObjectType(type.ofType)).toBe(true);
  });

  it.each(mutations.map((m) => [m.name, m] as const))(
    '%s answers a payload with userErrors',
    (_name, mutation) => {
      expect(isNonNullType(mutation.type)).toBe(true);
      const payload = getNamedType(mutation.type);
      expect(isObjectType(payload) && payload.name.endsWith('Payload')).toBe(true);
      if (!isObjectType(payload)) return;
      const userErrors = payload.getFields().userErrors;
      expect(userErrors).toBeDefined();
      expect(String(userErrors?.type)).toBe('[UserError!]!');
      const type = userErrors?.type;
      expect(isNonNullType(type) && isListType(type.ofType)).toBe(true);
      if (mutation.name.startsWith('delete')) {
        expect(Object.keys(payload.getFields()).filter((f) => f.startsWith('deleted'))).toEqual([
          'deletedId',
        ]);
      }
    },
  );
});

describe('userErrors over a real socket', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack?.close());

  it('answers a bad field in userErrors with its path, and makes no call', async () => {
    stack.upstreamRequests.length = 0;
    const { body } = await stack.graphql(
      `mutation { createCart(input: { name: "   " }) {
        cart { id } userErrors { code field message } } }`,
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.createCart.cart).toBeNull();
    expect(body.data.createCart.userErrors).toEqual([
      { code: 'BAD_USER_INPUT', field: ['input', 'name'], message: 'input.name must not be empty' },
    ]);
    expect(
      stack.upstreamRequests.filter((r) => r.method !== 'GET' && !r.url.includes('oauth')),
    ).toEqual([]);
  });

  it('answers a done write with empty userErrors', async () => {
    const { body } = await stack.graphql(
      `mutation { createCart(input: { name: "Shape" }) { cart { name } userErrors { code } } }`,
    );
    expect(body.data.createCart).toEqual({ cart: { name: 'Shape' }, userErrors: [] });
  });

  it('keeps a missing token a top-level UNAUTHENTICATED error', async () => {
    const { body } = await stack.graphql(
      `mutation { createCart(input: { name: "x" }) { cart { id } userErrors { code } } }`,
      {},
      { token: null },
    );
    expect(body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});
