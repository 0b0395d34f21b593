/**
 * One module lists every `extensions.code` a client can receive (src/upstream/errors.ts), and
 * the table of docs/errors.md lists exactly those. The family's list is checked against
 * what its classes produce, the table against the list, and the codes Yoga gives its own answers
 * against real answers over a socket (each is seen, so none is listed that clients never get).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/create-gateway.ts';
import { createRequestListener } from '../../src/gateway/fast-path.ts';
import {
  documentsFromManifest,
  ManifestError,
  readPersistedDocuments,
} from '../../src/gateway/persisted-documents.ts';
import * as family from '../../src/upstream/errors.ts';
import {
  CLIENT_ERROR_CODES,
  GATEWAY_ERROR_CODES,
  GatewayError,
  USER_ERROR_CODES,
  YOGA_ERROR_CODES,
} from '../../src/upstream/errors.ts';
import { listenOnPort0 } from '../support/hardening-stack.ts';

/** The codes in the first column of the "Error codes" table of docs/errors.md, in order. */
function documentedCodes(): string[] {
  const page = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const start = page.search(/^#{1,3} Error codes\n/m);
  expect(start, 'docs/errors.md has an "Error codes" section').toBeGreaterThan(-1);
  const rest = page.slice(start);
  const end = rest.slice(1).search(/\n#{1,3} /);
  const section = end === -1 ? rest : rest.slice(0, end + 1);
  const codes: string[] = [];
  for (const line of section.split('\n')) {
    const cell = /^\| `([A-Z_]+)` \|/.exec(line)?.[1];
    if (cell !== undefined) codes.push(cell);
  }
  return codes;
}

describe('the codes a client can receive', () => {
  it('the family lists the code of every one of its classes, and no other', () => {
    const produced = new Set<string>();
    for (const value of Object.values(family)) {
      if (typeof value !== 'function' || !(value.prototype instanceof GatewayError)) continue;
      // Every class takes (message, options); the two that need more are given it.
      const Class = value as unknown as new (
        message: string,
        second?: unknown,
        third?: unknown,
      ) => GatewayError;
      const instance =
        value === family.WriteCommittedError
          ? new Class('m', 'NOT_FOUND')
          : new Class('m', { reason: 'connect', limit: 'maxDepth', maximum: 1 });
      // Abstract classes (RequestError) have no code of their own.
      if (instance.code !== undefined) produced.add(instance.code);
    }
    expect([...produced].sort()).toEqual([...GATEWAY_ERROR_CODES].sort());
    expect(new Set(GATEWAY_ERROR_CODES).size).toBe(GATEWAY_ERROR_CODES.length);
  });

  it('a manifest the gateway cannot use has a code of its own, never a client code', () => {
    const missing = new URL('./no-such-manifest.json', import.meta.url).pathname;
    let thrown: unknown;
    try {
      readPersistedDocuments(missing);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ManifestError);
    const error = thrown as ManifestError;
    expect(error.code).toBe('INVALID_MANIFEST');
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
    expect(CLIENT_ERROR_CODES).not.toContain(error.code);
  });

  it("docs/errors.md's table lists every code a client can receive, once, and nothing else", () => {
    const listed = documentedCodes();
    expect(new Set(listed).size, `a code listed twice: ${listed.join(', ')}`).toBe(listed.length);
    expect([...listed].sort()).toEqual([...CLIENT_ERROR_CODES].sort());
  });

  it('docs/errors.md\'s "which is which" lists exactly the codes answered in userErrors', () => {
    const page = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    const section = page.slice(page.indexOf('## Which is which'));
    const listed = [...section.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]);
    expect(listed).toEqual([...USER_ERROR_CODES]);
  });
});

describe("Yoga's own codes reach clients as listed", () => {
  let base: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    // No upstream at all: every upstream call fails with an unexpected error, masked.
    const gateway = createGateway({
      upstreamUrl: 'http://127.0.0.1:9',
      logger: false,
      production: true,
      resilience: false,
      send: () => Promise.reject(new Error('a bug in the upstream layer')),
    });
    const server = createServer(createRequestListener(gateway));
    base = `http://127.0.0.1:${await listenOnPort0(server)}`;
    close = async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await gateway.dispose();
    };
  });
  afterAll(() => close());

  const post = async (body: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer t', ...headers },
      body,
    });
    const answer = (await response.json()) as { errors?: { extensions?: { code?: string } }[] };
    return { status: response.status, code: answer.errors?.[0]?.extensions?.code };
  };

  it('answers each with its code and the status the table gives', async () => {
    const seen = new Map<string, number>();
    const cases: [string, Record<string, string>?][] = [
      ['{"query":"{"}'],
      ['{"query":"{ nope }"}'],
      ['{"query":"query A { __typename }","operationName":"B"}'],
      [JSON.stringify({ query: `{ __typename } # ${'x'.repeat(600_000)}` })],
      ['{}'],
      ['{"query":"{ customApis(first: 1) { totalCount } }"}'],
    ];
    for (const [body, headers] of cases) {
      const { status, code } = await post(body, headers);
      expect(code, body.slice(0, 60)).toBeDefined();
      seen.set(code as string, status);
    }
    expect(Object.fromEntries(seen)).toEqual({
      GRAPHQL_PARSE_FAILED: 200,
      GRAPHQL_VALIDATION_FAILED: 200,
      OPERATION_RESOLUTION_FAILURE: 400,
      REQUEST_ENTITY_TOO_LARGE: 413,
      BAD_REQUEST: 200,
      INTERNAL_SERVER_ERROR: 200,
    });
    expect([...seen.keys()].sort()).toEqual([...YOGA_ERROR_CODES].sort());
  });

  it("answers the family's request refusals with their HTTP status", async () => {
    const refusals = {
      CSRF_PREVENTED: await post('{"query":"{ __typename }"}', { 'content-type': 'text/plain' }),
      UNSUPPORTED_MEDIA_TYPE: await post('<q/>', { 'content-type': 'application/xml' }),
      BAD_REQUEST: await post('{"query": "a password'),
    };
    expect(refusals).toEqual({
      CSRF_PREVENTED: { status: 403, code: 'CSRF_PREVENTED' },
      UNSUPPORTED_MEDIA_TYPE: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
      BAD_REQUEST: { status: 400, code: 'BAD_REQUEST' },
    });
    const documents = documentsFromManifest({ one: '{ __typename }' });
    const trusted = createGateway({
      upstreamUrl: 'http://127.0.0.1:9',
      logger: false,
      persistedDocuments: documents,
    });
    try {
      const ask = async (body: string) => {
        const response = await trusted.fetch('http://gateway/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        const answer = (await response.json()) as { errors: { extensions: { code: string } }[] };
        return { status: response.status, code: answer.errors[0]?.extensions.code };
      };
      expect(await ask('{"query":"{ __typename }"}')).toEqual({
        status: 400,
        code: 'PERSISTED_QUERY_ONLY',
      });
      expect(await ask('{"documentId":"two"}')).toEqual({
        status: 400,
        code: 'PERSISTED_QUERY_NOT_FOUND',
      });
    } finally {
      await trusted.dispose();
    }
  });
});
