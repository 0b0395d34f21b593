/**
 * Input the gateway used to take and silently not honour (issue 20 #11): an empty `ifMatch`
 * that dropped the precondition, impossible calendar dates that Date.parse rolled over, and a
 * field slug `__proto__` whose value never left the gateway.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { judgeFieldInput, type MappedField } from '../../src/schema/typed/field-values.ts';
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

describe('ifMatch: ""', () => {
  it('is refused on update and delete before any call, instead of writing unconditionally', async () => {
    const entry = await createEntry(stack, api, { name: 'v0' });
    stack.upstreamRequests.length = 0;
    const update = await stack.graphql(
      `mutation($input: UpdateCustomApiEntryInput!) { updateCustomApiEntry(input: $input) { entry { etag } userErrors { code field message } } }`,
      {
        input: { customApiId: api.id, entryId: entry.id, attributes: { name: 'v1' }, ifMatch: '' },
      },
    );
    expect(codes(update.body)).toEqual(['BAD_USER_INPUT']);
    expect(userError(update.body, 'updateCustomApiEntry')?.field).toBe('input.ifMatch');
    const remove = await stack.graphql(
      `mutation($input: DeleteCustomApiEntryInput!) { deleteCustomApiEntry(input: $input) { deletedId userErrors { code field message } } }`,
      { input: { customApiId: api.id, entryId: entry.id, ifMatch: '' } },
    );
    expect(codes(remove.body)).toEqual(['BAD_USER_INPUT']);
    expect(stack.upstreamRequests).toEqual([]);
    const read = await stack.graphql(
      `query($c: ID!, $e: ID!) { customApiEntry(customApiId: $c, id: $e) { attributes resourceVersion } }`,
      { c: api.id, e: entry.id },
    );
    expect(read.body.data.customApiEntry).toEqual({
      attributes: { name: 'v0' },
      resourceVersion: 0,
    });
  });
});

describe('DateTime', () => {
  const ORDERS = `query($f: OrderFilter) { orders(first: 1, filter: $f) { totalCount } }`;

  it('refuses impossible calendar dates with BAD_USER_INPUT before any call', async () => {
    for (const value of [
      '2024-02-30T00:00:00Z',
      '2023-02-29T12:00:00Z',
      '2024-04-31T00:00:00.000Z',
      '2024-01-01T24:00:00Z',
      '2024-01-01T00:00:00+24:00',
    ]) {
      const { body } = await stack.graphql(ORDERS, { f: { createdAt: { gt: value } } });
      expect(codes(body), value).toEqual(['BAD_USER_INPUT']);
      const literal = await stack.graphql(
        `{ orders(first: 1, filter: { updatedAt: { lt: "${value}" } }) { totalCount } }`,
      );
      expect(codes(literal.body), value).toEqual(['BAD_USER_INPUT']);
    }
    const { body } = await stack.graphql(ORDERS, {
      f: { createdAt: { gt: '2024-02-30T00:00:00Z' } },
    });
    expect(body.errors[0].message).toContain('February 2024 has 29 days');
    expect(stack.upstreamRequests).toEqual([]);
  });

  it('still takes real dates, leap days included', async () => {
    const { body } = await stack.graphql(ORDERS, {
      f: { createdAt: { gt: '2024-02-29T23:59:59.999+01:00' } },
    });
    expect(body.errors).toBeUndefined();
  });
});

describe('typed field input', () => {
  const field = (slug: string, name: string): MappedField => ({
    slug,
    name,
    type: 'string',
    description: '',
    rules: { allowNull: false },
  });

  it('sends a slug __proto__ as an attribute, and reads only the input’s own keys', () => {
    const input = JSON.parse('{"proto": "p"}') as Record<string, unknown>;
    const attributes = judgeFieldInput([field('__proto__', 'proto')], input, 'create');
    expect(Object.hasOwn(attributes, '__proto__')).toBe(true);
    expect(JSON.stringify(attributes)).toBe('{"__proto__":"p"}');
    // `constructor` not given: required, not Object.prototype.constructor.
    expect(() => judgeFieldInput([field('constructor', 'constructor')], {}, 'create')).toThrow(
      /input.constructor is required/,
    );
  });
});
