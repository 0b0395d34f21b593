/**
 * Isolation and secrecy under concurrency: two stores, two tokens, 1,000 interleaved requests
 * in flight together. No request sees the other store's data, the upstream sees exactly each
 * request's own token, and no token reaches a log line or an error body. Then production mode:
 * internals masked, introspection and GraphiQL switched off by config.
 */
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/create-gateway.ts';
import type { FaultUpstream } from '../support/fault-upstream.ts';
import {
  createEntries,
  type HardeningStack,
  listenOnPort0,
  startHardeningStack,
} from '../support/hardening-stack.ts';

const STORES = ['alpha', 'beta'] as const;
type Store = (typeof STORES)[number];

let stack: HardeningStack;
const tokens = {} as Record<Store, string>;
const apiIds = {} as Record<Store, string>;

beforeAll(async () => {
  stack = await startHardeningStack({
    faults: false,
    clients: [
      { id: 'alpha', secret: 'alpha-secret' },
      { id: 'beta', secret: 'beta-secret' },
    ],
  });
  for (const store of STORES) {
    tokens[store] = await stack.token(store);
    apiIds[store] = (await createEntries(stack, tokens[store], store, 3)).customApiId;
  }
});
afterAll(() => stack.close());

const LIST = `query Mine {
  customApis(first: 10) {
    nodes { slug entries(first: 5) { totalCount nodes { attributes } } }
  }
}`;
const OTHER = `query Other($id: ID!) {
  customApiEntries(customApiId: $id, first: 5) { totalCount nodes { attributes } }
}`;

/** Runs `tasks` with at most `limit` in flight. */
async function pool<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await (tasks[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

describe('two stores, 1,000 interleaved concurrent requests', () => {
  it('never mixes stores, and the upstream sees exactly each request’s own token', async () => {
    const plan = Array.from({ length: 1_000 }, (_, i) => ({
      i,
      store: STORES[(i * 7 + (i >> 3)) % 2] as Store,
      // Every fifth request tries to read the other store's Custom API by its id.
      cross: i % 5 === 0,
    }));
    const firstServiceRequest = stack.serviceRequests.length;
    const problems: string[] = [];

    await pool(
      plan.map(({ i, store, cross }) => async () => {
        const other: Store = store === 'alpha' ? 'beta' : 'alpha';
        const response = await stack.graphql(
          cross ? OTHER : LIST,
          cross ? { id: apiIds[other] } : undefined,
          { token: tokens[store], headers: { 'x-request-id': `iso-${i}` } },
        );
        const text = JSON.stringify(response.body);
        if (text.includes(tokens.alpha) || text.includes(tokens.beta)) {
          problems.push(`iso-${i}: a token in the response body`);
        }
        if (text.includes(other))
          problems.push(`iso-${i}: saw ${other} data: ${text.slice(0, 200)}`);
        if (cross) {
          if (response.body.errors?.[0]?.extensions?.code !== 'NOT_FOUND') {
            problems.push(`iso-${i}: cross-store read was not NOT_FOUND: ${text.slice(0, 200)}`);
          }
        } else {
          const apis = response.body.data?.customApis?.nodes ?? [];
          if (apis.length !== 1 || apis[0].slug !== store) {
            problems.push(`iso-${i}: expected only ${store}: ${text.slice(0, 200)}`);
          }
          for (const entry of apis[0]?.entries?.nodes ?? []) {
            if (entry.attributes.owner !== store) problems.push(`iso-${i}: foreign entry`);
          }
          if (apis[0]?.entries?.totalCount !== 3) problems.push(`iso-${i}: wrong total`);
        }
      }),
      64,
    );
    expect(problems).toEqual([]);

    // Upstream side: every call carries the token of the request it was made for.
    const calls = stack.serviceRequests.slice(firstServiceRequest);
    const storeOf = new Map(plan.map((p) => [`iso-${p.i}`, p.store]));
    const callsPer = new Map<string, number>();
    for (const call of calls) {
      const store = storeOf.get(call.requestId ?? '');
      expect(store, `call without a known request id: ${call.url}`).toBeDefined();
      expect(call.authorization).toBe(`Bearer ${tokens[store as Store]}`);
      callsPer.set(call.requestId as string, (callsPer.get(call.requestId as string) ?? 0) + 1);
    }
    // And every request did reach the upstream (so the check above covered all of them).
    expect(callsPer.size).toBe(plan.length);
  });

  it('keeps tokens out of the logs and out of error bodies', async () => {
    const secret = 'Sekr1tTokenValue-do-not-log-42';
    const response = await stack.graphql(LIST, undefined, { token: secret });
    expect(response.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(JSON.stringify(response.body)).not.toContain(secret);
    const log = stack.rawLogs.join('');
    expect(stack.logs.filter((l) => l.msg === 'request').length).toBeGreaterThanOrEqual(1_000);
    for (const token of [secret, tokens.alpha, tokens.beta]) expect(log).not.toContain(token);
    expect(log).not.toMatch(/Bearer [A-Za-z0-9]/);
  });
});

describe('production mode', () => {
  const previous = process.env.NODE_ENV;
  let proxy: FaultUpstream;
  let prodStack: HardeningStack;
  let devBase: string;
  let closeDev: () => Promise<void>;

  beforeAll(async () => {
    // Yoga reads NODE_ENV=development to add stack traces to masked errors; production mode
    // must not, whatever the environment says.
    process.env.NODE_ENV = 'development';
    prodStack = await startHardeningStack({
      gateway: { production: true, introspection: false, graphiql: true },
    });
    proxy = prodStack.fault as FaultUpstream;
    const dev = createGateway({ upstreamUrl: proxy.url, logger: false, graphiql: true });
    const server = createServer(dev);
    devBase = `http://127.0.0.1:${await listenOnPort0(server)}`;
    closeDev = async () => {
      server.close();
      server.closeAllConnections();
      await dev.dispose();
    };
  });
  afterAll(async () => {
    process.env.NODE_ENV = previous;
    await closeDev();
    await prodStack.close();
  });

  const post = (base: string, query: string, token: string) =>
    fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query }),
    }).then(async (r) => ({ status: r.status, text: await r.text() }));

  it('masks internal errors without stack or original message', async () => {
    // A bug deep inside the upstream layer: a plain Error carrying an internal detail.
    const buggy = () => Promise.reject(new Error('internal detail: pool state 0xdeadbeef'));
    const serve = async (production: boolean) => {
      const gateway = createGateway({
        upstreamUrl: proxy.url,
        logger: false,
        production,
        send: buggy,
      });
      const server = createServer(gateway);
      const base = `http://127.0.0.1:${await listenOnPort0(server)}`;
      return {
        base,
        close: async () => {
          server.close();
          await gateway.dispose();
        },
      };
    };
    const token = await prodStack.token();
    const query = '{ customApis(first: 1) { totalCount } }';
    const prod = await serve(true);
    const dev = await serve(false);
    try {
      const masked = await post(prod.base, query, token);
      expect(masked.status).toBeLessThan(500);
      const body = JSON.parse(masked.text) as {
        errors: { message: string; extensions: { code: string } }[];
      };
      expect(body.errors[0]?.message).toBe('Unexpected error.');
      expect(body.errors[0]?.extensions.code).toBe('INTERNAL_SERVER_ERROR');
      expect(masked.text).not.toMatch(/deadbeef|stack|originalError/);
      // The same bug on a development gateway does show internals: the switch is real.
      const shown = await post(dev.base, query, token);
      expect(shown.text).toContain('deadbeef');
    } finally {
      await prod.close();
      await dev.close();
    }
  });

  it('refuses introspection and hides field suggestions when switched off', async () => {
    const token = await prodStack.token();
    const intro = await post(prodStack.gatewayBase, '{ __schema { types { name } } }', token);
    expect(intro.text).toContain('GRAPHQL_VALIDATION_FAILED');
    expect(intro.text).not.toContain('"types"');
    const typo = await post(prodStack.gatewayBase, '{ customApi { nam } }', token);
    expect(typo.text).not.toContain('Did you mean');
    const open = await post(devBase, '{ __schema { queryType { name } } }', token);
    expect(JSON.parse(open.text)).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
  });

  it('serves GraphiQL only when enabled', async () => {
    const page = (base: string) =>
      fetch(`${base}/graphql`, { headers: { accept: 'text/html' } }).then(async (r) => ({
        status: r.status,
        text: await r.text(),
      }));
    const shown = await page(devBase);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('<html');
    const off = createGateway({ upstreamUrl: proxy.url, logger: false, graphiql: false });
    const server = createServer(off);
    const base = `http://127.0.0.1:${await listenOnPort0(server)}`;
    try {
      const hidden = await page(base);
      expect(hidden.status).toBeLessThan(500);
      expect(hidden.text).not.toContain('<html');
    } finally {
      server.close();
      await off.dispose();
    }
  });
});
