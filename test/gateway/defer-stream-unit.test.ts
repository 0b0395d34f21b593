/**
 * The incremental-delivery plugin (src/gateway/incremental.ts) on a small schema, in process
 * through Yoga's fetch: errors of later parts masked like the first part's, the operations of a
 * document that use the directives told apart (through fragments, by name), and the `Accept`
 * values that may receive parts.
 */
import { GraphQLList, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { maskGatewayError } from '../../src/gateway/create-gateway.ts';
import {
  incrementalDeliveryPlugin,
  withIncrementalDelivery,
} from '../../src/gateway/incremental.ts';
import { UpstreamUnavailableError } from '../../src/upstream/errors.ts';
import { mergeParts, type Part } from '../support/incremental-client.ts';

const Item = new GraphQLObjectType({
  name: 'Item',
  fields: {
    name: {
      type: GraphQLString,
      resolve: (item: { name: string }) => {
        if (item.name === 'bug') throw new TypeError('internal detail: x is undefined');
        if (item.name === 'down')
          throw new UpstreamUnavailableError('The upstream is down', { reason: 'status' });
        return item.name;
      },
    },
  },
});

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      items: {
        type: new GraphQLList(Item),
        async *resolve() {
          yield { name: 'a' };
          await new Promise((resolve) => setTimeout(resolve, 5));
          yield { name: 'bug' };
          yield { name: 'down' };
        },
      },
      greeting: { type: GraphQLString, resolve: () => 'hello' },
    },
  }),
});

const yoga = createYoga({
  schema: withIncrementalDelivery(schema),
  logging: false,
  maskedErrors: { maskError: (error, message) => maskGatewayError(error, message, false) },
  plugins: [
    incrementalDeliveryPlugin({
      maskError: (error) => maskGatewayError(error, 'Unexpected error.', false),
    }),
  ],
});

async function post(query: string, accept?: string, operationName?: string) {
  const response = await yoga.fetch('http://localhost/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(accept ? { accept } : {}) },
    body: JSON.stringify({ query, operationName }),
  });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    text: await response.text(),
  };
}

/** The JSON parts of a multipart/mixed body. */
function partsOf(text: string): Part[] {
  return text
    .split('\r\n---')
    .map((chunk) => chunk.split('\r\n\r\n')[1])
    .filter((body): body is string => body !== undefined && body.trim() !== '')
    .map((body) => ({ at: 0, body: JSON.parse(body) }));
}

describe('later parts', () => {
  it('carry masked errors: the gateway’s own with their code, anything else as Unexpected error', async () => {
    const answer = await post('{ items @stream(initialCount: 1) { name } }', 'multipart/mixed');
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain('internal detail');
    // Yoga's own marks of a masked error stay inside, as they do for the first part's errors.
    expect(answer.text).not.toContain('unexpected');
    const merged = mergeParts(partsOf(answer.text));
    expect(merged.data).toEqual({ items: [{ name: 'a' }, { name: null }, { name: null }] });
    expect(merged.errors.map((e) => [e.message, e.extensions?.code])).toEqual([
      ['Unexpected error.', 'INTERNAL_SERVER_ERROR'],
      ['The upstream is down', 'UPSTREAM_UNAVAILABLE'],
    ]);
  });
});

describe('which operations answer in parts', () => {
  const document = `
    query Plain { greeting }
    query Streamed { ...Streaming }
    fragment Streaming on Query { items @stream { name } }`;

  it('the one named, through its fragments; the others run as ever, even for a JSON client', async () => {
    const plain = await post(document, 'application/json', 'Plain');
    expect([plain.status, JSON.parse(plain.text)]).toEqual([200, { data: { greeting: 'hello' } }]);
    const refused = await post(document, 'application/json', 'Streamed');
    expect(refused.status).toBe(406);
    expect(JSON.parse(refused.text).errors[0].extensions.code).toBe('NOT_ACCEPTABLE');
    const streamed = await post(document, 'multipart/mixed', 'Streamed');
    expect(partsOf(streamed.text).length).toBeGreaterThan(1);
  });

  it('parts for multipart/mixed, text/event-stream, their wildcards, and no Accept at all', async () => {
    const query = '{ items @stream { name } }';
    for (const accept of [
      undefined,
      '*/*',
      'multipart/*',
      'text/*',
      'application/json, multipart/mixed;deferSpec=20220824',
      'text/event-stream',
    ]) {
      const answer = await post(query, accept);
      expect(answer.status, String(accept)).toBe(200);
      expect(answer.type, String(accept)).toMatch(/multipart\/mixed|text\/event-stream/);
    }
    const legacy = partsOf((await post(query, 'multipart/mixed; deferSpec=20220824')).text);
    expect(legacy[0]?.body.pending).toBeUndefined();
    expect(legacy[1]?.body.incremental[0].path).toEqual(['items', 0]);
    const current = partsOf((await post(query, 'multipart/mixed')).text);
    expect(current[0]?.body.pending).toEqual([{ id: '0', path: ['items'] }]);
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      expect((await post(query, accept)).status, accept).toBe(406);
    }
  });
});
