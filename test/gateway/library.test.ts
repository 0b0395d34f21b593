/** Library use: the exported schema executed in process with the exported context factory. */
import { execute, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContextFactory, createUpstreamTransport, schema } from '../../src/index.ts';
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
    const transport = createUpstreamTransport(stack.serviceUrl);
    const createContext = createContextFactory({ transport });
    const token = await stack.token();
    const contextValue = createContext(
      new Request('http://in-process/graphql', { headers: { authorization: `Bearer ${token}` } }),
    );
    const result = await execute({
      schema,
      document: parse('{ customApis(first: 5) { totalCount nodes { name } } }'),
      contextValue,
    });
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ customApis: { totalCount: 1, nodes: [{ name: 'Library' }] } });
    await transport.close();
  });
});
