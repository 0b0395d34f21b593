/**
 * One kind of id (issue 29): every id input of the schema's mutations takes the object's global
 * `id` or its `upstreamId`, judged before any call, and a wrong one is refused saying what was
 * expected. The walk covers every `ID` input field reachable from a mutation's input; each was
 * made by the kit (src/schema/kit/ids.ts), which records the type it names.
 */
import { encodeGlobalID } from '@pothos/plugin-relay';
import {
  type GraphQLInputObjectType,
  getNamedType,
  isInputObjectType,
  isObjectType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.ts';
import { ID_INPUTS, judgeId } from '../../src/schema/kit/ids.ts';
import { type Stack, startStack } from '../support/harness.ts';

/**
 * Every id the schema takes: each `<Input>.<field>` of type ID or [ID] reachable from a
 * mutation's input, and each ID argument of a field (`Query.cart(id:)`), but `node(id:)` and
 * `nodes(ids:)`, which take global ids by definition.
 */
function idInputs(): string[] {
  const found = new Set<string>();
  const seen = new Set<string>();
  const walk = (type: GraphQLInputObjectType) => {
    if (seen.has(type.name)) return;
    seen.add(type.name);
    for (const field of Object.values(type.getFields())) {
      const named = getNamedType(field.type);
      if (named.name === 'ID') found.add(`${type.name}.${field.name}`);
      if (isInputObjectType(named)) walk(named);
    }
  };
  for (const mutation of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    for (const arg of mutation.args) {
      const named = getNamedType(arg.type);
      if (isInputObjectType(named)) walk(named);
    }
  }
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('_') || type.name === 'Mutation') continue;
    for (const field of Object.values(type.getFields())) {
      if (type.name === 'Query' && (field.name === 'node' || field.name === 'nodes')) continue;
      for (const arg of field.args) {
        if (getNamedType(arg.type).name === 'ID')
          found.add(`${type.name}.${field.name}(${arg.name}:)`);
      }
    }
  }
  return [...found].sort();
}

const UUID = '0b8e3e8c-5a7c-4a57-9a55-2f1a8d7f0c11';
const inputs = idInputs();

describe('every id input of the schema', () => {
  it('finds the id inputs, of mutations and of reads', () => {
    expect(inputs.length).toBeGreaterThan(100);
    expect(inputs).toContain('Query.cart(id:)');
    expect(inputs).toContain('AddCartProductItemInput.cartId');
  });

  it.each(inputs)('%s takes the global id or the upstreamId', (coordinate) => {
    const kind = ID_INPUTS.get(coordinate);
    expect(kind, `${coordinate} is not made by the kit`).toBeDefined();
    if (kind === undefined) return;
    const upstream = kind.form === 'cart' ? 'cart-123' : UUID;
    expect(judgeId(upstream, 'input.x', kind)).toBe(upstream);
    if (kind.node) {
      expect(judgeId(encodeGlobalID(kind.type, upstream), 'input.x', kind)).toBe(upstream);
      // A global id of another type is refused, saying what was expected.
      expect(() => judgeId(encodeGlobalID('Nothing', upstream), 'input.x', kind)).toThrow(
        `input.x must be a ${kind.type} id or its upstreamId (the upstreamId is ${
          kind.form === 'uuid' ? 'a uuid' : '1-64 letters, digits, "-" or "_"'
        })`,
      );
    } else {
      expect(() => judgeId('not an id!', 'input.x', kind)).toThrow(`a ${kind.type} upstreamId`);
    }
  });
});

describe('a cart by either id, over a real socket', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack?.close());

  const ADD = `mutation($i: AddCartCustomItemInput!) { addCartCustomItem(input: $i) {
    cart { upstreamId items { sku } } userErrors { code field message } } }`;

  it('createCart { cart { id } } then adds to it by that id and by its upstreamId', async () => {
    const created = await stack.graphql(
      `mutation { createCart(input: { name: "Ids" }) { cart { id upstreamId } } }`,
    );
    const { id, upstreamId } = created.body.data.createCart.cart;
    expect(id).not.toBe(upstreamId);
    const item = (cartId: string, sku: string) => ({
      i: { cartId, name: sku, sku, quantity: 1, price: { amount: 100 } },
    });
    const byGlobal = await stack.graphql(ADD, item(id, 'BY-GLOBAL'));
    expect(byGlobal.body.data.addCartCustomItem.userErrors).toEqual([]);
    expect(byGlobal.body.data.addCartCustomItem.cart.upstreamId).toBe(upstreamId);
    const byUpstream = await stack.graphql(ADD, item(upstreamId, 'BY-UPSTREAM'));
    expect(
      byUpstream.body.data.addCartCustomItem.cart.items.map((i: { sku: string }) => i.sku),
    ).toEqual(expect.arrayContaining(['BY-GLOBAL', 'BY-UPSTREAM']));

    // Reads take either form too.
    for (const form of [id, upstreamId]) {
      const read = await stack.graphql('query($id: ID!) { cart(id: $id) { upstreamId } }', {
        id: form,
      });
      expect(read.body.data.cart).toEqual({ upstreamId });
    }

    stack.upstreamRequests.length = 0;
    const wrong = await stack.graphql(ADD, item(encodeGlobalID('Order', UUID), 'NO'));
    expect(wrong.body.data.addCartCustomItem.userErrors).toEqual([
      {
        code: 'BAD_USER_INPUT',
        field: ['input', 'cartId'],
        message:
          'input.cartId must be a Cart id or its upstreamId (the upstreamId is 1-64 letters, digits, "-" or "_")',
      },
    ]);
    expect(
      stack.upstreamRequests.filter((r) => r.method !== 'GET' && !r.url.includes('oauth')),
    ).toEqual([]);
  });
});
