/**
 * The HTTP layer in front of GraphQL, on both listeners (the node:http fast path and Yoga's
 * Fetch adapter): what a malformed body is answered with, and which origins CORS admits.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

for (const fastPath of [true, false]) {
  describe(`${fastPath ? 'the fast path' : "Yoga's Fetch path"}`, () => {
    let prod: HardeningStack;
    let dev: HardeningStack;
    beforeAll(async () => {
      [prod, dev] = await Promise.all([
        startHardeningStack({ faults: false, fastPath, gateway: { production: true } }),
        startHardeningStack({ faults: false, fastPath, gateway: { production: false } }),
      ]);
    });
    afterAll(async () => {
      await Promise.all([prod?.close(), dev?.close()]);
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
