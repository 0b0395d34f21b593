/**
 * The HTTP layer in front of GraphQL, on both listeners (the node:http fast path and Yoga's
 * Fetch adapter): what a malformed body is answered with, and which origins CORS admits.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseCorsOrigins } from '../../src/config/index.ts';
import { type HardeningStack, startHardeningStack } from '../support/hardening-stack.ts';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request over a socket of its own, headers exactly as given (node:http adds Host). */
function send(
  base: string,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string },
): Promise<Answer> {
  const body = options.body === undefined ? undefined : Buffer.from(options.body);
  const headers = { ...options.headers };
  if (body !== undefined) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${base}${options.path ?? '/graphql'}`,
      { method: options.method ?? 'POST', headers, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const PASSWORD = 'hunter2-Secret-0x51';

// A sign-in with its closing brace missing: the body holds a password and is not JSON.
const SIGN_IN_BROKEN = JSON.stringify({
  query: `mutation { createCustomerToken(input: { email: "ada@example.com", password: "${PASSWORD}" }) { token } }`,
}).slice(0, -1);

const SHOP = 'https://shop.example';
const LOCAL_APP = 'http://localhost:5173';
const EVIL = 'https://evil.example';
const QUERY = JSON.stringify({ query: '{ __typename }' });

for (const fastPath of [true, false]) {
  describe(`${fastPath ? 'the fast path' : "Yoga's Fetch path"}`, () => {
    // prod: production, CORS for two listed origins; dev: the defaults; open: CORS_ORIGINS=*.
    let prod: HardeningStack;
    let dev: HardeningStack;
    let open: HardeningStack;
    beforeAll(async () => {
      [prod, dev, open] = await Promise.all([
        startHardeningStack({
          faults: false,
          fastPath,
          gateway: { production: true, corsOrigins: [SHOP, LOCAL_APP] },
        }),
        startHardeningStack({ faults: false, fastPath, gateway: { production: false } }),
        startHardeningStack({ faults: false, fastPath, gateway: { corsOrigins: '*' } }),
      ]);
    });
    afterAll(async () => {
      await Promise.all([prod?.close(), dev?.close(), open?.close()]);
    });

    const preflight = (stack: HardeningStack, origin: string) =>
      send(stack.gatewayBase, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      });
    const post = async (stack: HardeningStack, origin: string) =>
      send(stack.gatewayBase, {
        headers: {
          origin,
          'content-type': 'application/json',
          authorization: `Bearer ${await stack.token()}`,
        },
        body: QUERY,
      });
    const grant = (answer: Answer) => ({
      origin: answer.headers['access-control-allow-origin'],
      credentials: answer.headers['access-control-allow-credentials'],
    });

    it('CORS by default: no grant to any other origin, on preflights and answers alike', async () => {
      for (const origin of [EVIL, SHOP, 'null']) {
        const checked = await preflight(dev, origin);
        expect(checked.status, origin).toBe(204);
        expect(grant(checked), origin).toEqual({ origin: undefined, credentials: undefined });
        expect(checked.headers['access-control-allow-methods'], origin).toBeUndefined();
        const answer = await post(dev, origin);
        // Non-browser clients are unaffected: the query runs; a browser page may not read it.
        expect(answer.status, origin).toBe(200);
        expect(JSON.parse(answer.text), origin).toEqual({ data: { __typename: 'Query' } });
        expect(grant(answer), origin).toEqual({ origin: undefined, credentials: undefined });
      }
    });

    it('CORS_ORIGINS lists exact origins: they get a grant with credentials, no other', async () => {
      for (const origin of [SHOP, LOCAL_APP]) {
        const checked = await preflight(prod, origin);
        expect(checked.status, origin).toBe(204);
        expect(grant(checked), origin).toEqual({ origin, credentials: 'true' });
        expect(checked.headers['access-control-allow-methods']).toBe('GET, POST');
        expect(checked.headers['access-control-allow-headers']).toBe('authorization, content-type');
        expect(checked.headers.vary).toContain('Origin');
        const answer = await post(prod, origin);
        expect(answer.status, origin).toBe(200);
        expect(grant(answer), origin).toEqual({ origin, credentials: 'true' });
        expect(answer.headers.vary).toContain('Origin');
        expect(answer.headers['access-control-expose-headers']).toBe('x-request-id');
      }
      // Not listed: another site, the same host over http, a longer host, another port.
      for (const origin of [
        EVIL,
        'http://shop.example',
        'https://shop.example.evil.example',
        'http://localhost:5174',
        'null',
      ]) {
        const checked = await preflight(prod, origin);
        expect(grant(checked), origin).toEqual({ origin: undefined, credentials: undefined });
        expect(checked.headers['access-control-allow-methods'], origin).toBeUndefined();
        const answer = await post(prod, origin);
        expect(grant(answer), origin).toEqual({ origin: undefined, credentials: undefined });
        // The answer depends on Origin: a shared cache must not hand it to a listed one.
        expect(answer.headers.vary, origin).toContain('Origin');
      }
    });

    it('CORS_ORIGINS=* grants any origin, never with credentials', async () => {
      for (const origin of [EVIL, SHOP]) {
        const checked = await preflight(open, origin);
        expect(checked.status).toBe(204);
        expect(grant(checked), origin).toEqual({ origin: '*', credentials: undefined });
        expect(checked.headers['access-control-allow-headers']).toBe('authorization, content-type');
        const answer = await post(open, origin);
        expect(answer.status).toBe(200);
        expect(grant(answer), origin).toEqual({ origin: '*', credentials: undefined });
      }
    });

    it('answers a body that is not JSON with BAD_REQUEST, never echoing it (a password in it)', async () => {
      for (const stack of [prod, dev]) {
        const answer = await send(stack.gatewayBase, {
          headers: {
            'content-type': 'application/json',
            accept: 'application/graphql-response+json, application/json',
          },
          body: SIGN_IN_BROKEN,
        });
        expect(answer.status).toBe(400);
        expect(answer.text).not.toContain(PASSWORD);
        expect(answer.text).not.toContain('originalError');
        const body = JSON.parse(answer.text) as {
          errors: { message: string; extensions: Record<string, unknown> }[];
        };
        expect(body.errors).toHaveLength(1);
        expect(body.errors[0]?.message).toMatch(/^The request body is not valid JSON/);
        expect(body.errors[0]?.extensions).toEqual({ code: 'BAD_REQUEST' });
        // Nor does it reach the log.
        expect(stack.rawLogs.join('')).not.toContain(PASSWORD);
      }
    });

    it('says where the JSON broke, and nothing of what it held', async () => {
      const cases: [string, RegExp][] = [
        ['{"query": "{ __typename }", "password": "p4ss-w0rd" x}', / \(at character \d+\)$/],
        ['{"a": ["p4ss-w0rd",', /: it ends before the JSON value does$/],
        ['password=p4ss-w0rd', /JSON$/],
      ];
      for (const [text, where] of cases) {
        const answer = await send(prod.gatewayBase, {
          headers: { 'content-type': 'application/json' },
          body: text,
        });
        expect(answer.status, text).toBe(400);
        expect(answer.text, text).not.toContain('p4ss-w0rd');
        const [error] = (JSON.parse(answer.text) as { errors: { message: string }[] }).errors;
        expect(error?.message, text).toMatch(where);
      }
    });
  });
}

describe('CORS_ORIGINS', () => {
  it('is none by default, `*` alone, or exact origins; anything else stops startup', () => {
    expect(loadConfig({}).gateway.corsOrigins).toEqual([]);
    expect(parseCorsOrigins('')).toEqual([]);
    expect(parseCorsOrigins(' * ')).toBe('*');
    expect(
      parseCorsOrigins('https://Shop.Example, http://localhost:5173,https://shop.example'),
    ).toEqual(['https://shop.example', 'http://localhost:5173']);
    for (const bad of [
      '*,https://shop.example',
      'shop.example',
      'https://shop.example/',
      'https://shop.example/path',
      'https://user:pw@shop.example',
      'ftp://shop.example',
      'null',
      'https://shop.example,',
    ]) {
      expect(() => parseCorsOrigins(bad), bad).toThrow(ConfigError);
    }
    expect(() => loadConfig({ CORS_ORIGINS: 'nope' })).toThrow(/CORS_ORIGINS/);
  });
});
