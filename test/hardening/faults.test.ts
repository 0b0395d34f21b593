/**
 * Fault injection end to end: gateway → fault proxy → embedded service. The proxy makes chosen
 * upstream calls refuse, hang, drip, reset, fail with 5xx/429 or answer garbage; the gateway must
 * answer each with a stable code within its deadline, retry only what is safe, trip its breaker
 * on upstream trouble (never on per-user 4xx), and keep serving healthy requests meanwhile.
 */
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/create-gateway.ts';
import type { FaultRule, FaultUpstream } from '../support/fault-upstream.ts';
import { closedPortUrl } from '../support/fault-upstream.ts';
import {
  createEntries,
  type HardeningStack,
  listenOnPort0,
  startHardeningStack,
} from '../support/hardening-stack.ts';

const DEADLINE_MS = 1_500;
const ATTEMPT_MS = 400;
/** Scheduling slack on a shared 2-core machine. */
const MARGIN_MS = 600;

const LIST = `query List($id: ID!) {
  customApiEntries(customApiId: $id, first: 2) { totalCount nodes { upstreamId attributes } }
}`;

let stack: HardeningStack;
let fault: FaultUpstream;
let healthyApi: string;
let faultyApi: string;
let faultyPath: RegExp;

beforeAll(async () => {
  stack = await startHardeningStack({
    gateway: {
      operationDeadlineMs: DEADLINE_MS,
      resilience: {
        attemptTimeoutMs: ATTEMPT_MS,
        backoffBaseMs: 20,
        backoffMaxMs: 100,
        retryAfterMaxMs: 1_000,
        // This gateway's breaker stays out of the way; a dedicated one is tested below.
        breaker: { minimumCalls: 1_000_000 },
      },
    },
  });
  fault = stack.fault as FaultUpstream;
  const token = await stack.token();
  healthyApi = (await createEntries(stack, token, 'healthy', 2)).customApiId;
  faultyApi = (await createEntries(stack, token, 'faulty', 2)).customApiId;
  faultyPath = new RegExp(`/custom-apis/${faultyApi}/entries$`);
});
afterAll(() => stack.close());

/** Runs `body` with `rule` installed, while a loop of healthy queries checks the gateway serves. */
async function withFault<T>(rule: FaultRule, body: () => Promise<T>): Promise<T> {
  fault.clear();
  fault.add({ ...rule, path: rule.path ?? faultyPath });
  let running = true;
  const healthy: { ok: boolean; ms: number }[] = [];
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      const response = await stack.graphql(LIST, { id: healthyApi });
      healthy.push({
        ok: response.status === 200 && response.body.data?.customApiEntries?.totalCount === 2,
        ms: Date.now() - started,
      });
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  try {
    return await body();
  } finally {
    running = false;
    await loop;
    fault.clear();
    expect(healthy.length).toBeGreaterThan(0);
    expect(healthy.every((h) => h.ok)).toBe(true);
    // Healthy requests never wait on the faulty ones next to them (which take up to the
    // deadline); the bound is loose because the whole suite shares two cores.
    expect(Math.max(...healthy.map((h) => h.ms))).toBeLessThan(DEADLINE_MS);
  }
}

const faultyCalls = () => fault.requests.filter((r) => faultyPath.test(r.url.split('?')[0] ?? ''));

async function queryFaulty() {
  const before = faultyCalls().length;
  const started = Date.now();
  const response = await stack.graphql(LIST, { id: faultyApi });
  return {
    response,
    ms: Date.now() - started,
    calls: faultyCalls().length - before,
    code: response.body.errors?.[0]?.extensions?.code as string | undefined,
  };
}

describe('retries of GETs', () => {
  it('rides out 503, 502 and 504 and answers with data', async () => {
    await withFault(
      {
        sequence: [
          { kind: 'status', status: 503 },
          { kind: 'status', status: 502 },
        ],
      },
      async () => {
        const result = await queryFaulty();
        expect(result.response.body.data.customApiEntries.totalCount).toBe(2);
        expect(result.calls).toBe(3);
      },
    );
  });

  it('gives up after 3 attempts of 503 with UPSTREAM_UNAVAILABLE', async () => {
    await withFault({ otherwise: { kind: 'status', status: 503 } }, async () => {
      const result = await queryFaulty();
      expect(result.response.status).toBeLessThan(500);
      expect(result.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(result.calls).toBe(3);
      expect(result.response.body.data).toBeNull();
    });
  });

  it('does not retry a 500', async () => {
    await withFault({ otherwise: { kind: 'status', status: 500 } }, async () => {
      const result = await queryFaulty();
      expect(result.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(result.calls).toBe(1);
    });
  });

  it('retries after a reset mid-body and after a reset before any answer', async () => {
    await withFault({ sequence: [{ kind: 'reset-mid-body' }, { kind: 'reset' }] }, async () => {
      const result = await queryFaulty();
      expect(result.response.body.data.customApiEntries.totalCount).toBe(2);
      expect(result.calls).toBe(3);
    });
  });

  it('honours Retry-After on 429', async () => {
    await withFault(
      { sequence: [{ kind: 'status', status: 429, headers: { 'retry-after': '1' } }] },
      async () => {
        const result = await queryFaulty();
        expect(result.response.body.data.customApiEntries.totalCount).toBe(2);
        expect(result.calls).toBe(2);
        expect(result.ms).toBeGreaterThanOrEqual(1_000);
      },
    );
  });

  it('answers RATE_LIMITED at once when Retry-After is beyond the cap', async () => {
    await withFault(
      { otherwise: { kind: 'status', status: 429, headers: { 'retry-after': '120' } } },
      async () => {
        const result = await queryFaulty();
        expect(result.code).toBe('RATE_LIMITED');
        expect(result.calls).toBe(1);
        expect(result.ms).toBeLessThan(MARGIN_MS);
      },
    );
  });

  it('backs off with jitter on a 429 without Retry-After, then RATE_LIMITED', async () => {
    await withFault({ otherwise: { kind: 'status', status: 429 } }, async () => {
      const result = await queryFaulty();
      expect(result.code).toBe('RATE_LIMITED');
      expect(result.calls).toBe(3);
    });
  });
});

describe('slow and broken upstreams', () => {
  it('cuts a hanging upstream within the deadline', async () => {
    await withFault({ otherwise: { kind: 'hang' } }, async () => {
      const result = await queryFaulty();
      expect(result.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(result.ms).toBeLessThan(DEADLINE_MS + MARGIN_MS);
      // 400 ms attempts inside a 1.5 s deadline: at most 3 were sent (maxAttempts).
      expect(result.calls).toBeGreaterThanOrEqual(2);
      expect(result.calls).toBeLessThanOrEqual(3);
    });
  });

  it('cuts an upstream that drips its body byte by byte', async () => {
    await withFault({ otherwise: { kind: 'drip', intervalMs: 50, bytesPerTick: 1 } }, async () => {
      const result = await queryFaulty();
      expect(result.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(result.ms).toBeLessThan(DEADLINE_MS + MARGIN_MS);
    });
  });

  it('turns a non-JSON 200 into UPSTREAM_UNAVAILABLE without retrying it', async () => {
    await withFault({ otherwise: { kind: 'garbage' } }, async () => {
      const result = await queryFaulty();
      expect(result.response.status).toBeLessThan(500);
      expect(result.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(result.calls).toBe(1);
      expect(result.response.body.data).toBeNull();
    });
  });

  it('turns wrongly shaped JSON into UPSTREAM_UNAVAILABLE, never a half-filled object', async () => {
    const shapes: unknown[] = [
      { data: 'not a list', meta: { results: { total: 1 } } },
      { data: [{ no: 'id' }], meta: { results: { total: 1 } } },
      { data: [], meta: {} },
      [1, 2, 3],
      null,
    ];
    for (const body of shapes) {
      await withFault({ otherwise: { kind: 'json', body } }, async () => {
        const result = await queryFaulty();
        expect(result.code).toBe('UPSTREAM_UNAVAILABLE');
        expect(result.response.body.data).toBeNull();
      });
    }
  });

  it('fails fast when the upstream refuses connections', async () => {
    const gateway = createGateway({
      upstreamUrl: await closedPortUrl(),
      logger: false,
      resilience: { backoffBaseMs: 10 },
    });
    const server = createServer(gateway);
    const port = await listenOnPort0(server);
    try {
      const started = Date.now();
      const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer abc123' },
        body: JSON.stringify({ query: LIST, variables: { id: faultyApi } }),
      });
      const body = (await response.json()) as { errors: { extensions: { code: string } }[] };
      expect(response.status).toBeLessThan(500);
      expect(body.errors[0]?.extensions.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(Date.now() - started).toBeLessThan(MARGIN_MS);
    } finally {
      server.close();
      await gateway.dispose();
    }
  });
});

describe('mutations', () => {
  const CREATE = `mutation Create($input: CreateCustomApiEntryInput!) {
    createCustomApiEntry(input: $input) { entry { upstreamId } }
  }`;
  const postsToFaulty = () =>
    fault.requests.filter((r) => r.method === 'POST' && faultyPath.test(r.url)).length;

  for (const [name, rule] of [
    ['a 503', { method: 'POST', otherwise: { kind: 'status', status: 503 } }],
    ['a reset', { method: 'POST', otherwise: { kind: 'reset' } }],
    ['a hang', { method: 'POST', otherwise: { kind: 'hang' } }],
    [
      'a 429 with Retry-After',
      {
        method: 'POST',
        otherwise: { kind: 'status', status: 429, headers: { 'retry-after': '0' } },
      },
    ],
  ] as [string, FaultRule][]) {
    it(`sends a mutation exactly once on ${name}`, async () => {
      await withFault(rule, async () => {
        const before = postsToFaulty();
        const started = Date.now();
        const response = await stack.graphql(CREATE, {
          input: { customApiId: faultyApi, type: 'faulty_ext', attributes: { name: 'once' } },
        });
        expect(response.status).toBeLessThan(500);
        expect(['UPSTREAM_UNAVAILABLE', 'RATE_LIMITED']).toContain(
          response.body.errors?.[0]?.extensions?.code,
        );
        expect(Date.now() - started).toBeLessThan(DEADLINE_MS + MARGIN_MS);
        expect(postsToFaulty() - before).toBe(1);
      });
    });
  }
});

describe('cancellation', () => {
  it('a client that goes away cancels its upstream call', async () => {
    await withFault({ otherwise: { kind: 'hang' } }, async () => {
      const before = faultyCalls().length;
      const controller = new AbortController();
      const pending = stack
        .graphql(LIST, { id: faultyApi }, { signal: controller.signal })
        .catch((error: unknown) => error);
      while (faultyCalls().length === before) await new Promise((r) => setTimeout(r, 10));
      const abortedAt = Date.now();
      controller.abort();
      await pending;
      const call = faultyCalls()[before];
      while (call?.closedAt === undefined && Date.now() - abortedAt < 1_000) {
        await new Promise((r) => setTimeout(r, 10));
      }
      // Closed by the abort, well before the 400 ms attempt timeout would have closed it.
      expect(call?.closedAt).toBeDefined();
      expect((call?.closedAt ?? Infinity) - abortedAt).toBeLessThan(ATTEMPT_MS / 2);
      // And no retry was sent for a caller who is gone.
      await new Promise((r) => setTimeout(r, 100));
      expect(faultyCalls().length - before).toBe(1);
    });
  });
});

describe('circuit breaker', () => {
  let breakerStack: HardeningStack;
  let apiId: string;
  // Long enough that the 20 fail-fast calls below all fall inside it on a loaded CI machine.
  const COOLDOWN = 2_500;

  beforeAll(async () => {
    breakerStack = await startHardeningStack({
      gateway: {
        resilience: {
          backoffBaseMs: 5,
          attemptTimeoutMs: ATTEMPT_MS,
          breaker: { minimumCalls: 3, cooldownMs: COOLDOWN },
        },
      },
    });
    apiId = (await createEntries(breakerStack, await breakerStack.token(), 'brk', 1)).customApiId;
  });
  afterAll(() => breakerStack.close());

  const list = (token?: string | null) =>
    breakerStack.graphql(LIST, { id: apiId }, token === undefined ? {} : { token });

  it('never opens on per-user 401/404 answers', async () => {
    for (let i = 0; i < 10; i++) {
      const response = await list('not-a-real-token');
      expect(response.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    }
    for (let i = 0; i < 5; i++) {
      const response = await breakerStack.graphql(LIST, {
        id: '00000000-0000-4000-8000-000000000000',
      });
      expect(response.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    }
    const ok = await list();
    expect(ok.body.data.customApiEntries.totalCount).toBe(1);
  });

  /** The breaker's state changes the log told, in order (`upstream circuit breaker <state>`). */
  const breakerLines = () =>
    breakerStack.logs
      .filter((line) => String(line.msg).startsWith('upstream circuit breaker '))
      .map((line) => `${line.level} ${String(line.msg).slice('upstream circuit breaker '.length)}`);

  it('opens on 5xx, fails fast without calling the upstream, probes and recovers', async () => {
    const proxy = breakerStack.fault as FaultUpstream;
    proxy.clear();
    expect(breakerLines()).toEqual([]);
    proxy.add({ method: 'GET', otherwise: { kind: 'status', status: 503 } });
    // Three calls, each failing all three attempts: every call of the window failed.
    for (let i = 0; i < 3; i++) {
      const failed = await list();
      expect(failed.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    }

    // Open: fails fast, nothing reaches the upstream.
    const sent = proxy.requests.length;
    const started = Date.now();
    for (let i = 0; i < 20; i++) {
      const response = await list();
      expect(response.status).toBeLessThan(500);
      expect(response.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    }
    expect(proxy.requests.length).toBe(sent);
    expect((Date.now() - started) / 20).toBeLessThan(150);
    // The operator hears of it once, as a warning.
    expect(breakerLines()).toEqual(['warn open']);
    // The readiness endpoint stays honest: the origin still answers HTTP.
    expect((await fetch(`${breakerStack.gatewayBase}/healthz`)).status).toBe(200);

    // The upstream heals; after the cool-down one probe goes through and closes the breaker.
    proxy.clear();
    await new Promise((resolve) => setTimeout(resolve, COOLDOWN + 50));
    const healed = await list();
    expect(healed.body.data.customApiEntries.totalCount).toBe(1);
    const after = proxy.requests.length;
    for (let i = 0; i < 5; i++) expect((await list()).body.data).toBeTruthy();
    expect(proxy.requests.length - after).toBe(5);
    expect(breakerLines()).toEqual(['warn open', 'info half-open', 'info closed']);
  });

  it('re-opens when the half-open probe fails', async () => {
    const proxy = breakerStack.fault as FaultUpstream;
    proxy.clear();
    proxy.add({ method: 'GET', otherwise: { kind: 'status', status: 503 } });
    // Failing calls until half of the window's calls failed (the successes of the test before
    // are in it too) and a call no longer reaches the upstream.
    let opened = false;
    for (let i = 0; i < 20 && !opened; i++) {
      const before = proxy.requests.length;
      await list();
      opened = proxy.requests.length === before;
    }
    expect(opened).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, COOLDOWN + 50));
    const sent = proxy.requests.length;
    await list(); // the probe: one call, fails, breaker opens again
    expect(proxy.requests.length - sent).toBe(1);
    await list();
    expect(proxy.requests.length - sent).toBe(1);
    proxy.clear();
    await new Promise((resolve) => setTimeout(resolve, COOLDOWN + 50));
    expect((await list()).body.data.customApiEntries.totalCount).toBe(1);
  });
});
