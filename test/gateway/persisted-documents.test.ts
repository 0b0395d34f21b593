/**
 * Trusted documents: PERSISTED_DOCUMENTS names a manifest (Apollo or Relay format); only its
 * documents run, chosen by `documentId` (POST body or GET query) or Apollo's
 * `extensions.persistedQuery.sha256Hash`; anything else is a coded 400 before parsing, with no
 * upstream call. A manifest that cannot be used stops startup with the reason.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import {
  documentsFromManifest,
  loadPersistedDocuments,
  ManifestError,
  PERSISTED_QUERY_NOT_FOUND_CODE,
  PERSISTED_QUERY_ONLY_CODE,
} from '../../src/gateway/persisted-documents.ts';
import { type Stack, startStack } from '../support/harness.ts';
import type { Json } from './fixtures.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const ORDERS =
  'query LatestOrders($n: Int!) { orders(first: $n) { totalCount nodes { upstreamId } } }';
const TYPENAME = 'query Typename { __typename }';

const apolloManifest = {
  format: 'apollo-persisted-query-manifest',
  version: 1,
  operations: [
    { id: sha256(ORDERS), body: ORDERS, name: 'LatestOrders', type: 'query' },
    { id: sha256(TYPENAME), body: TYPENAME, name: 'Typename', type: 'query' },
  ],
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'persisted-documents-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function manifestFile(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('manifests', () => {
  it('reads the Apollo and the Relay format', () => {
    expect([...documentsFromManifest(apolloManifest)]).toEqual([
      [sha256(ORDERS), ORDERS],
      [sha256(TYPENAME), TYPENAME],
    ]);
    expect([...documentsFromManifest({ a1b2: ORDERS, c3d4: TYPENAME })]).toEqual([
      ['a1b2', ORDERS],
      ['c3d4', TYPENAME],
    ]);
  });

  it('refuses what it cannot use, saying why', () => {
    const cases: [unknown, RegExp][] = [
      [[ORDERS], /not a persisted-documents manifest/],
      ['text', /not a persisted-documents manifest/],
      [{ ...apolloManifest, version: 2 }, /expected "apollo-persisted-query-manifest" version 1/],
      [{ format: 'relay', version: 1 }, /unsupported manifest format "relay"/],
      [{ ...apolloManifest, operations: {} }, /needs an "operations" array/],
      [{ ...apolloManifest, operations: [] }, /lists no documents/],
      [{}, /lists no documents/],
      [{ ...apolloManifest, operations: ['x'] }, /operations\[0\] is not an object/],
      [{ ...apolloManifest, operations: [{ id: '', body: ORDERS }] }, /the id must be/],
      [{ a: 42 }, /"a": the document text must be a non-empty string/],
      [{ a: '{ orders(' }, /"a": the document does not parse: Syntax Error/],
      [
        {
          ...apolloManifest,
          operations: [
            { id: 'x', body: ORDERS },
            { id: 'x', body: TYPENAME },
          ],
        },
        /operations\[1\]: id x is given two different documents/,
      ],
    ];
    for (const [manifest, reason] of cases) {
      expect(() => documentsFromManifest(manifest), JSON.stringify(manifest)).toThrow(
        ManifestError,
      );
      expect(() => documentsFromManifest(manifest)).toThrow(reason);
    }
  });

  it('PERSISTED_DOCUMENTS: off by default; a bad path or file is a ConfigError naming the variable', () => {
    // The config reads only the environment: the path; the file is read at startup.
    const load = (env: Record<string, string>) =>
      loadPersistedDocuments(loadConfig(env).persistedDocumentsPath);
    expect(load({})).toBeUndefined();
    expect(load({ PERSISTED_DOCUMENTS: '' })).toBeUndefined();
    const good = manifestFile('good.json', JSON.stringify(apolloManifest));
    expect(loadConfig({ PERSISTED_DOCUMENTS: good }).persistedDocumentsPath).toBe(good);
    expect(load({ PERSISTED_DOCUMENTS: good })?.size).toBe(2);
    const missing = join(dir, 'missing.json');
    expect(loadConfig({ PERSISTED_DOCUMENTS: missing }).persistedDocumentsPath).toBe(missing);
    expect(() => load({ PERSISTED_DOCUMENTS: missing })).toThrow(ConfigError);
    expect(() => load({ PERSISTED_DOCUMENTS: missing })).toThrow(
      `PERSISTED_DOCUMENTS: cannot read ${missing} (ENOENT)`,
    );
    const broken = manifestFile('broken.json', '{"format": ');
    expect(() => load({ PERSISTED_DOCUMENTS: broken })).toThrow(
      new RegExp(`^PERSISTED_DOCUMENTS: ${broken} is not JSON`),
    );
    const wrong = manifestFile('wrong.json', '{"format":"apollo-persisted-query-manifest"}');
    expect(() => load({ PERSISTED_DOCUMENTS: wrong })).toThrow(
      `PERSISTED_DOCUMENTS: ${wrong}: unsupported manifest format`,
    );
  });

  it('npm start with a bad manifest exits 1 with the reason, before starting anything', () => {
    const run = spawnSync(process.execPath, ['scripts/ts.mjs', 'src/main.ts'], {
      encoding: 'utf8',
      env: {
        ...process.env,
        PERSISTED_DOCUMENTS: manifestFile('empty.json', '[]'),
        PORT: '0',
        COMMERCE_DB: ':memory:',
      },
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^PERSISTED_DOCUMENTS: .*empty\.json: not a persisted-documents/);
    expect(run.stdout).not.toMatch(/ready/);
  });
});

describe('a gateway with trusted documents', () => {
  let stack: Stack;
  let token: string;

  beforeAll(async () => {
    const config = loadConfig({
      PERSISTED_DOCUMENTS: manifestFile('apollo.json', JSON.stringify(apolloManifest)),
    });
    stack = await startStack({
      gateway: {
        persistedDocuments: loadPersistedDocuments(config.persistedDocumentsPath),
      },
    });
    token = await stack.token();
  });
  afterAll(() => stack?.close());

  async function post(body: unknown) {
    const response = await fetch(stack.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Json };
  }

  it('runs a listed document by documentId (with or without sha256:) or Apollo’s hash', async () => {
    const expected = { data: { orders: { totalCount: 0, nodes: [] } } };
    const variables = { n: 3 };
    expect(await post({ documentId: `sha256:${sha256(ORDERS)}`, variables })).toEqual({
      status: 200,
      body: expected,
    });
    expect(await post({ documentId: sha256(ORDERS), variables })).toEqual({
      status: 200,
      body: expected,
    });
    const apollo = await post({
      variables,
      extensions: { persistedQuery: { version: 1, sha256Hash: sha256(ORDERS) } },
    });
    expect(apollo).toEqual({ status: 200, body: expected });
    const get = await fetch(
      `${stack.gatewayUrl}?documentId=sha256:${sha256(TYPENAME)}&operationName=Typename`,
      { headers: { 'x-graphql-yoga-csrf': '1', authorization: `Bearer ${token}` } },
    );
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual({ data: { __typename: 'Query' } });
  });

  it('refuses query text, a missing id and an unknown id with coded 400s before parsing', async () => {
    const before = stack.upstreamRequests.length;
    const only = {
      message: expect.stringMatching(/^This gateway runs only trusted documents/),
      extensions: { code: PERSISTED_QUERY_ONLY_CODE },
    };
    // Even the exact text of a listed document: trusted documents run by id only.
    for (const body of [
      { query: ORDERS, variables: { n: 3 } },
      { query: '{ orders(' },
      { query: ORDERS, documentId: sha256(ORDERS), variables: { n: 3 } },
      {},
      { variables: { n: 3 } },
      { extensions: { persistedQuery: { version: 1 } } },
    ]) {
      const result = await post(body);
      expect(result.status, JSON.stringify(body)).toBe(400);
      expect(result.body.errors).toEqual([only]);
      expect(result.body.data).toBeUndefined();
    }
    for (const documentId of [sha256('{ files { totalCount } }'), 'x'.repeat(5000)]) {
      const result = await post({ documentId });
      expect(result.status).toBe(400);
      expect(result.body.errors).toEqual([
        {
          message: 'No trusted document has this id: rebuild the manifest, or send a listed id',
          extensions: { code: PERSISTED_QUERY_NOT_FOUND_CODE },
        },
      ]);
    }
    expect(stack.upstreamRequests.length).toBe(before);
  });
});
