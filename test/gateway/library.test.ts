/** Library use: the exported schema executed in process with a context of the exported front door. */
import { execute, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUpstream, schema } from '../../src/index.ts';
import { type Stack, startStack } from '../support/harness.ts';
import { createCustomApi } from './fixtures.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
  await createCustomApi(stack, undefined, 'Library');
});
afterAll(() => stack?.close());

describe('the exported schema', () => {
  it('executes in process with a context built from a request', async () => {
    const upstream = createUpstream({ url: stack.serviceUrl });
    const token = await stack.token();
    const contextValue = upstream.createContext(
      new Request('http://in-process/graphql', { headers: { authorization: `Bearer ${token}` } }),
    );
    const result = await execute({
      schema,
      document: parse('{ customApis(first: 5) { totalCount nodes { name } } }'),
      contextValue,
    });
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ customApis: { totalCount: 1, nodes: [{ name: 'Library' }] } });
    await upstream.close();
  });
});
