/**
 * src/gateway/validation-cache.ts: a document is validated once per schema and set of rules,
 * even when a plugin adds its rules as new functions on every request (as armor does); another
 * set of rules validates anew; an invalid document gets the same errors every time.
 */
import type { ValidationRule } from 'graphql';
import { createSchema, createYoga, type Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { validationCachePlugin } from '../../src/gateway/validation-cache.ts';

function setup() {
  const visits: string[] = [];
  /** Adds a new rule function named `name` on every request, counting what it validates. */
  const counting = (name: string, when: (headers: Headers) => boolean = () => true): Plugin => ({
    onValidate({ addValidationRule, context }) {
      const request = (context as { request: Request }).request;
      if (!when(request.headers)) return;
      const rule: ValidationRule = () => {
        visits.push(name);
        return {};
      };
      Object.defineProperty(rule, 'name', { value: name });
      addValidationRule(rule);
    },
  });
  const yoga = createYoga({
    schema: createSchema({
      typeDefs: 'type Query { a: Int, b: Int }',
      resolvers: { Query: { a: () => 1, b: () => 2 } },
    }),
    plugins: [
      counting('Counting'),
      counting('OnlyWithHeader', (headers) => headers.has('x-extra-rule')),
      validationCachePlugin(),
    ],
    parserAndValidationCache: { validationCache: false },
    logging: false,
  });
  const post = async (query: string, headers: Record<string, string> = {}) => {
    const response = await yoga.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query }),
    });
    return { status: response.status, body: await response.json() };
  };
  return { visits, post };
}

describe('validation cache', () => {
  it('validates a document once per set of rules, whatever the rule functions', async () => {
    const { visits, post } = setup();
    expect(await post('{ a }')).toEqual({ status: 200, body: { data: { a: 1 } } });
    expect(await post('{ a }')).toEqual({ status: 200, body: { data: { a: 1 } } });
    expect(visits).toEqual(['Counting']);
    await post('{ b }');
    expect(visits).toEqual(['Counting', 'Counting']);
    // Another set of rules: validated anew, then remembered too.
    expect((await post('{ a }', { 'x-extra-rule': '1' })).body).toEqual({ data: { a: 1 } });
    await post('{ a }', { 'x-extra-rule': '1' });
    expect(visits).toEqual(['Counting', 'Counting', 'Counting', 'OnlyWithHeader']);
    await post('{ a }');
    expect(visits).toHaveLength(4);
  });

  it('answers an invalid document with the same errors every time', async () => {
    const { visits, post } = setup();
    const first = await post('{ c }');
    expect(first.body.errors[0].message).toMatch(/^Cannot query field "c" on type "Query"\./);
    expect(first.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(await post('{ c }')).toEqual(first);
    expect(visits).toEqual(['Counting']);
  });
});
