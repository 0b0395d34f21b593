/**
 * Status codes the embedded service cannot be made to answer on demand (409, 422, 429, 5xx,
 * redirects, garbage): a tiny fastify upstream stub on port 0 answers whatever the test sets.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/create-gateway.ts';
import { USER_ERROR_CODES } from '../../src/upstream/errors.ts';
import type { Json } from './fixtures.ts';

interface Answer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

let stub: FastifyInstance;
let elsewhere: FastifyInstance;
let gateway: Gateway;
let server: Server;
let gatewayUrl: string;
let answer: Answer;
const stubRequests: {
  method: string;
  url: string;
  authorization?: string;
  headers: Record<string, string | string[] | undefined>;
}[] = [];
let elsewhereHits = 0;

const TOKEN = 'stub-token-0123456789abcdef';
const API_ID = '11111111-1111-4111-8111-111111111111';

function errorBody(status: number, detail: string): string {
  return JSON.stringify({ errors: [{ status, title: 'Error', detail }] });
}

beforeAll(async () => {
  elsewhere = Fastify();
  elsewhere.all('/*', async () => {
    elsewhereHits += 1;
    return { data: [] };
  });
  await elsewhere.listen({ port: 0, host: '127.0.0.1' });

  stub = Fastify();
  stub.all('/*', async (request, reply) => {
    stubRequests.push({
      method: request.method,
      url: request.url,
      authorization: request.headers.authorization,
      headers: request.headers,
    });
    reply.code(answer.status).headers({ 'content-type': 'application/json', ...answer.headers });
    return reply.send(answer.body ?? '');
  });
  await stub.listen({ port: 0, host: '127.0.0.1' });

  gateway = createGateway({
    upstreamUrl: `http://127.0.0.1:${(stub.server.address() as AddressInfo).port}`,
    graphiql: false,
  });
  server = createServer(gateway);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  gatewayUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await gateway?.dispose();
  await stub?.close();
  await elsewhere?.close();
});

beforeEach(() => {
  stubRequests.length = 0;
  elsewhereHits = 0;
});

async function graphql(
  query: string,
  variables?: Record<string, unknown>,
  extraHeaders: Record<string, string> = {},
): Promise<Json> {
  const response = await fetch(gatewayUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${TOKEN}`,
      ...extraHeaders,
    },
    body: JSON.stringify({ query, variables }),
  });
  expect(response.status).toBe(200);
  return response.json();
}

const READ = `{ orders(first: 2) { totalCount nodes { upstreamId } } }`;
const WRITE = `mutation($input: CreateCustomApiEntryInput!) {
  createCustomApiEntry(input: $input) { entry { upstreamId } userErrors { code field message } }
}`;
const writeVars = { input: { customApiId: API_ID, type: 'notes_ext', attributes: { a: 1 } } };

describe('upstream status → extensions.code', () => {
  const cases: [string, Answer, string, string, RegExp?][] = [
    [
      '400',
      { status: 400, body: errorBody(400, 'name is too long') },
      WRITE,
      'BAD_USER_INPUT',
      /name is too long/,
    ],
    [
      '422',
      { status: 422, body: errorBody(422, 'Discount limit reached') },
      WRITE,
      'BAD_USER_INPUT',
      /Discount limit reached/,
    ],
    ['401', { status: 401, body: errorBody(401, 'Invalid token') }, READ, 'UNAUTHENTICATED'],
    ['403', { status: 403, body: errorBody(403, 'Forbidden') }, WRITE, 'FORBIDDEN'],
    ['404', { status: 404, body: errorBody(404, 'Not found') }, WRITE, 'NOT_FOUND'],
    [
      '409',
      { status: 409, body: errorBody(409, 'Duplicate entry') },
      WRITE,
      'CONFLICT',
      /Duplicate entry/,
    ],
    ['412', { status: 412, body: errorBody(412, 'etag mismatch') }, WRITE, 'PRECONDITION_FAILED'],
    [
      '413',
      { status: 413, body: errorBody(413, 'Maximum entry size reached.') },
      WRITE,
      'ENTRY_TOO_LARGE',
    ],
    [
      '429',
      { status: 429, headers: { 'retry-after': '30' }, body: errorBody(429, 'slow down') },
      WRITE,
      'RATE_LIMITED',
      /30 s/,
    ],
    [
      '500',
      { status: 500, body: errorBody(500, 'db exploded at /srv/app.js:12') },
      WRITE,
      'UPSTREAM_UNAVAILABLE',
    ],
    [
      '503',
      { status: 503, body: 'Service Unavailable', headers: { 'content-type': 'text/plain' } },
      READ,
      'UPSTREAM_UNAVAILABLE',
    ],
    [
      '200 not JSON',
      { status: 200, body: '<html>hi</html>', headers: { 'content-type': 'text/html' } },
      READ,
      'UPSTREAM_UNAVAILABLE',
    ],
    ['200 malformed JSON', { status: 200, body: '{"data": [' }, READ, 'UPSTREAM_UNAVAILABLE'],
    [
      '200 wrong shape',
      { status: 200, body: JSON.stringify({ data: [{ id: 'x' }] }) },
      READ,
      'UPSTREAM_UNAVAILABLE',
    ],
    [
      '200 row missing fields',
      {
        status: 200,
        body: JSON.stringify({ data: [{ id: 'x' }], meta: { results: { total: 1 } } }),
      },
      READ,
      'UPSTREAM_UNAVAILABLE',
    ],
  ];
  for (const [name, given, query, code, message] of cases) {
    it(`${name} → ${code}`, async () => {
      answer = given;
      const body = await graphql(query, query === WRITE ? writeVars : undefined);
      // What the caller can fix comes in the payload's userErrors; the rest stays top-level.
      const userErrors: Json[] = body.data?.createCustomApiEntry?.userErrors ?? [];
      const user = (USER_ERROR_CODES as readonly string[]).includes(code);
      const errors = user
        ? userErrors.map((e) => ({ message: e.message, extensions: { code: e.code } }))
        : body.errors;
      expect(errors).toHaveLength(1);
      if (user) expect(body.errors).toBeUndefined();
      else expect(userErrors).toEqual([]);
      expect(errors[0].extensions.code).toBe(code);
      if (message) expect(errors[0].message).toMatch(message);
      // Internals of the upstream never leak, and the token never appears.
      expect(JSON.stringify(body)).not.toContain('/srv/app.js');
      expect(JSON.stringify(body)).not.toContain(TOKEN);
      expect(stubRequests.length).toBeGreaterThan(0);
      expect(stubRequests.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);
    });
  }

  it('forwards only Authorization, a request id and the allow-listed headers, never other caller headers', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({ data: [], meta: { results: { total: 0 } } }),
    };
    const body = await graphql(READ, undefined, {
      cookie: 'session=secret',
      'x-forwarded-for': '10.0.0.1',
      'x-request-id': 'req-123',
    });
    expect(body.errors).toBeUndefined();
    const [seen] = stubRequests;
    // fetch sends `accept-language: *` of its own, and Accept-Language is on the allow-list
    // (the shopper catalog's locales): forwarded as the caller sent it.
    expect(seen?.headers['accept-language']).toBe('*');
    expect(Object.keys(seen?.headers ?? {}).sort()).toEqual([
      'accept',
      'accept-language',
      'authorization',
      'connection',
      'host',
      'x-request-id',
    ]);
    expect(seen?.headers['x-request-id']).toBe('req-123');
    expect(seen?.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('does not follow a redirect, so the token never travels to another host', async () => {
    const target = `http://127.0.0.1:${(elsewhere.server.address() as AddressInfo).port}/v2/orders`;
    answer = { status: 302, headers: { location: target } };
    const body = await graphql(READ);
    expect(body.errors[0].extensions.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(elsewhereHits).toBe(0);
  });

  it('maps a refused connection to UPSTREAM_UNAVAILABLE', async () => {
    const closed = Fastify();
    await closed.listen({ port: 0, host: '127.0.0.1' });
    const port = (closed.server.address() as AddressInfo).port;
    await closed.close();
    const dead = createGateway({ upstreamUrl: `http://127.0.0.1:${port}`, graphiql: false });
    const response = await dead.fetch('http://gateway/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ query: READ }),
    });
    const body = (await response.json()) as Json;
    expect(body.errors[0].extensions.code).toBe('UPSTREAM_UNAVAILABLE');
    await dead.dispose();
  });
});
