/**
 * One store's heavy queries must not take the upstream from another store (issue 20, #4).
 *
 * Two stores behind one gateway, one upstream origin (one pool, one breaker). The noisy store
 * sends `nodes(ids:)` queries from four clients at once, each as many upstream calls as its
 * budget allows, or more; the quiet store reads its orders every 100 ms meanwhile. The pool is
 * small (8 connections) so that the noisy calls alone could fill it many times over.
 *
 * - Over budget, against an upstream that never answers: the answer (UPSTREAM_BUDGET_EXCEEDED)
 *   is final at once, so the operation's calls still out are aborted with it: never more were
 *   sent than one operation may have in flight, every one of them is closed, none is retried.
 * - Within budget, against a slow upstream: the calls queue in the gateway; queueing is neither
 *   an upstream timeout nor a breaker failure, and the quiet store's call takes its turn.
 * Either way every one of the quiet store's reads succeeds. Counts, not times.
 */
import { randomUUID } from 'node:crypto';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultUpstream } from '../support/fault-upstream.ts';
import {
  createEntries,
  type HardeningStack,
  startHardeningStack,
} from '../support/hardening-stack.ts';

const CONNECTIONS = 8;
/** Calls one operation may have in flight: a quarter of the pool, by default. */
const PER_OPERATION = CONNECTIONS / 4;
const BUDGET = 12;
const NOISY_CLIENTS = 4;
const QUIET_READS = 20;
/** The attempt timeout: roomy, as the suite shares two cores with everything else. */
const ATTEMPT_MS = 2_000;
/** How long the slow upstream takes per call. */
const SLOW_MS = 600;

const NODES = `query Noisy($ids: [ID!]!) {
  nodes(ids: $ids) { id ... on CustomApiEntry { upstreamId } }
}`;
const ORDERS = 'query Quiet { orders(first: 5) { totalCount } }';
const ENTRIES_PATH = /\/custom-apis\/[^/]+\/entries$/;

let stack: HardeningStack;
let fault: FaultUpstream;
let noisyToken: string;
let quietToken: string;
/** Global ids of one entry in each of BUDGET Custom APIs of the noisy store: one call each. */
let entryIds: string[];

beforeAll(async () => {
  stack = await startHardeningStack({
    clients: [
      { id: 'noisy', secret: 'noisy-secret' },
      { id: 'quiet', secret: 'quiet-secret' },
    ],
    gateway: {
      callBudget: BUDGET,
      pool: { connections: CONNECTIONS },
      resilience: { attemptTimeoutMs: ATTEMPT_MS },
    },
  });
  fault = stack.fault as FaultUpstream;
  noisyToken = await stack.token('noisy');
  quietToken = await stack.token('quiet');
  entryIds = [];
  for (let i = 0; i < BUDGET; i++) {
    const { customApiId, entryIds: ids } = await createEntries(stack, noisyToken, `noisy${i}`, 1);
    entryIds.push(encodeGlobalID('CustomApiEntry', `${customApiId}:${ids[0]}`));
  }
});
afterAll(() => stack.close());

interface NoisyRun {
  requestId: string;
  code: string | undefined;
  entries: number;
}

/**
 * Four noisy clients send `ids` queries back to back while the quiet store reads its orders every
 * 100 ms, QUIET_READS times; returns what both saw.
 */
async function hammer(ids: () => string[]) {
  let quietDone = false;
  const noisy: NoisyRun[] = [];
  const noisyClient = async () => {
    while (!quietDone) {
      const requestId = `noisy-${randomUUID()}`;
      const response = await stack.graphql(
        NODES,
        { ids: ids() },
        { token: noisyToken, headers: { 'x-request-id': requestId } },
      );
      noisy.push({
        requestId,
        code: response.body.errors?.[0]?.extensions?.code,
        entries: (response.body.data?.nodes ?? []).filter((n: unknown) => n !== null).length,
      });
    }
  };
  const quiet: { ok: boolean; code: string | undefined }[] = [];
  const quietClient = async () => {
    // Let the noisy clients fill the pool first.
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (let i = 0; i < QUIET_READS; i++) {
      const response = await stack.graphql(ORDERS, {}, { token: quietToken });
      quiet.push({
        ok: response.status === 200 && response.body.data?.orders?.totalCount === 0,
        code: response.body.errors?.[0]?.extensions?.code,
      });

      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    quietDone = true;
  };
  await Promise.all([quietClient(), ...Array.from({ length: NOISY_CLIENTS }, () => noisyClient())]);
  return { quiet, noisy };
}

const callsOf = (requestId: string) => fault.requests.filter((r) => r.requestId === requestId);

describe('a store whose queries need more calls than their budget, on a hanging upstream', () => {
  it('leaves every read of the other store to succeed, and its own calls end with its answer', async () => {
    fault.clear();
    fault.add({ method: 'GET', path: ENTRIES_PATH, otherwise: { kind: 'hang' } });
    // One call more than the budget: each id is an entry of a Custom API of its own.
    const overBudget = () =>
      Array.from({ length: BUDGET + 1 }, () =>
        encodeGlobalID('CustomApiEntry', `${randomUUID()}:${randomUUID()}`),
      );
    const { quiet, noisy } = await hammer(overBudget);
    fault.clear();

    expect(quiet.filter((q) => !q.ok)).toEqual([]);
    expect(quiet).toHaveLength(QUIET_READS);
    expect(noisy.length).toBeGreaterThanOrEqual(NOISY_CLIENTS);
    expect(new Set(noisy.map((n) => n.code))).toEqual(new Set(['UPSTREAM_BUDGET_EXCEEDED']));

    // When a noisy operation's answer was final, what it had in flight was aborted: a hanging
    // upstream never closes a call itself (the 2 s attempt timeout would, and a retry would
    // follow). Calls written just before the answer may reach the upstream just after it; they
    // are closed at once too. Wait for the closes to be seen, far less than the attempt timeout.
    const noisyCalls = () => noisy.flatMap((n) => callsOf(n.requestId));
    for (let i = 0; i < 50 && noisyCalls().some((c) => c.closedAt === undefined); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(noisyCalls().filter((c) => c.closedAt === undefined)).toEqual([]);
    // Past the attempt timeout: still nothing open, and nothing beyond what was in flight ever
    // arrived (no retry, no call that was waiting for a slot): at most one operation's share of
    // the pool per operation, though each asked for 12 calls.
    await new Promise((resolve) => setTimeout(resolve, ATTEMPT_MS + 200));
    expect(noisyCalls().filter((c) => c.closedAt === undefined)).toEqual([]);
    const perOperation = noisy.map((n) => callsOf(n.requestId).length);
    expect(Math.max(...perOperation)).toBeLessThanOrEqual(PER_OPERATION);
  });
});

describe('a store whose queries use their whole budget, on a slow upstream', () => {
  it('leaves every read of the other store to succeed, and its own queries too', async () => {
    fault.clear();
    // Each call takes 600 ms at the upstream: four operations of 12 calls on 8 connections
    // queue for about 3.6 s in the gateway, longer than the 2 s attempt timeout.
    fault.add({ method: 'GET', path: ENTRIES_PATH, otherwise: { kind: 'delay', ms: SLOW_MS } });
    const { quiet, noisy } = await hammer(() => entryIds);
    fault.clear();

    expect(quiet.filter((q) => !q.ok)).toEqual([]);
    expect(quiet).toHaveLength(QUIET_READS);
    // Queueing is not an upstream failure: the noisy queries got every entry too.
    expect(noisy.length).toBeGreaterThanOrEqual(NOISY_CLIENTS);
    expect(noisy.filter((n) => n.code !== undefined || n.entries !== BUDGET)).toEqual([]);
    // And no operation ever had more than its share in flight at the upstream.
    for (const run of noisy) {
      const calls = callsOf(run.requestId);
      expect(calls).toHaveLength(BUDGET);
      const overlaps = calls.map(
        (call) =>
          calls.filter((other) => other.at <= call.at && (other.closedAt ?? Infinity) > call.at)
            .length,
      );
      expect(Math.max(...overlaps)).toBeLessThanOrEqual(PER_OPERATION);
    }
  });
});
