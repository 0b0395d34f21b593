/**
 * src/gateway/validation-cache.ts: a document is validated once per schema and set of rules,
 * even when a plugin adds its rules as new functions on every request (as armor does); another
 * set of rules validates anew; an invalid document gets the same errors every time.
 */
import type { ValidationRule } from 'graphql';
import { createSchema, createYoga, type Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { createParseCache, validationCachePlugin } from '../../src/gateway/validation-cache.ts';

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

describe('parse cache store', () => {
  it('keeps at most its size, and the texts in use stay', () => {
    const cache = createParseCache<number>(4);
    for (let i = 0; i < 4; i += 1) cache.set(`q${i}`, i);
    // q0 is read again: it moves to the young generation.
    expect(cache.get('q0')).toBe(0);
    for (let i = 4; i < 8; i += 1) cache.set(`q${i}`, i);
    const kept = Array.from({ length: 8 }, (_, i) => cache.get(`q${i}`)).filter(
      (value) => value !== undefined,
    );
    expect(kept.length).toBeLessThanOrEqual(4);
    expect(cache.get('q7')).toBe(7);
    expect(cache.get('q1')).toBeUndefined();
  });

  it('serves the same document object for the same text through the gateway', async () => {
    const documents = new Set<unknown>();
    const remember: Plugin = { onExecute: ({ args }) => void documents.add(args.document) };
    const yoga = createYoga({
      schema: createSchema({
        typeDefs: 'type Query { a: Int }',
        resolvers: { Query: { a: () => 1 } },
      }),
      plugins: [remember],
      parserAndValidationCache: {
        documentCache: createParseCache(),
        errorCache: createParseCache(),
      },
      logging: false,
    });
    for (let i = 0; i < 3; i += 1) {
      const response = await yoga.fetch('http://localhost/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ a }' }),
      });
      expect(await response.json()).toEqual({ data: { a: 1 } });
    }
    expect(documents.size).toBe(1);
  });
});
