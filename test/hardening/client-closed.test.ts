/**
 * A client that goes away mid-request is a client cancellation, not an upstream failure
 * (issue 20, #11): its upstream calls are aborted (faults.test.ts), its request is logged with
 * `errors: ["CLIENT_CLOSED_REQUEST"]` and status 499 (nginx's "client closed request"), counted
 * under that outcome in the metrics (its upstream attempts as `client-closed`), and never counted
 * by the circuit breaker — on both of the gateway's request paths.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultUpstream } from '../support/fault-upstream.ts';
import {
  createEntries,
  type HardeningStack,
  startHardeningStack,
} from '../support/hardening-stack.ts';

const HANG = `query Hang($id: ID!) {
  customApiEntries(customApiId: $id, first: 2) { totalCount }
}`;
const DISCONNECTS = 5;

/** The exposition text as series → value. */
async function scrape(base: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    series.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return series;
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !condition(); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

for (const fastPath of [false, true]) {
  describe(`a client that disconnects mid-request (fast path ${fastPath ? 'on' : 'off'})`, () => {
    let stack: HardeningStack;
    let fault: FaultUpstream;
    let apiId: string;

    beforeAll(async () => {
      stack = await startHardeningStack({
        fastPath,
        // A breaker that two failed calls would open.
        gateway: { resilience: { breaker: { minimumCalls: 2 } } },
      });
      fault = stack.fault as FaultUpstream;
      apiId = (await createEntries(stack, await stack.token(), 'gone', 2)).customApiId;
    });
    afterAll(() => stack.close());

    it('is logged and counted as CLIENT_CLOSED_REQUEST, and the breaker never hears of it', async () => {
      fault.clear();
      fault.add({ method: 'GET', path: /\/entries$/, otherwise: { kind: 'hang' } });
      const requestIds: string[] = [];
      for (let i = 0; i < DISCONNECTS; i++) {
        const requestId = `gone-${fastPath}-${i}`;
        requestIds.push(requestId);
        const sent = fault.requests.length;
        const controller = new AbortController();
        const pending = stack
          .graphql(
            HANG,
            { id: apiId },
            { signal: controller.signal, headers: { 'x-request-id': requestId } },
          )
          .catch((error: unknown) => error);
        await until(() => fault.requests.length > sent);
        controller.abort();
        await pending;
        await until(() => stack.logs.some((line) => line.requestId === requestId));
      }
      fault.clear();

      const lines = stack.logs.filter((line) => requestIds.includes(line.requestId as string));
      expect(lines).toHaveLength(DISCONNECTS);
      for (const line of lines) {
        expect(line).toMatchObject({ msg: 'request', status: 499 });
        expect(line.errors).toEqual(['CLIENT_CLOSED_REQUEST']);
      }

      const series = await scrape(stack.gatewayBase);
      expect(
        series.get(
          'gateway_graphql_requests_total{operation="Hang",outcome="CLIENT_CLOSED_REQUEST"}',
        ),
      ).toBe(DISCONNECTS);
      expect(
        series.get(
          'gateway_graphql_requests_total{operation="Hang",outcome="UPSTREAM_UNAVAILABLE"}',
        ),
      ).toBeUndefined();
      const attempts = [...series].filter(([name]) =>
        name.startsWith(
          'gateway_upstream_requests_total{method="GET",route="/v2/settings/extensions/custom-apis/{id}/entries"',
        ),
      );
      expect(attempts).toEqual([
        [
          'gateway_upstream_requests_total{method="GET",route="/v2/settings/extensions/custom-apis/{id}/entries",status="client-closed"}',
          DISCONNECTS,
        ],
      ]);

      // Five cancelled calls, and the breaker (two failures open it) is closed: the next query
      // reaches the upstream and succeeds.
      expect(series.get('gateway_upstream_circuit_breaker_state{state="closed"}')).toBe(1);
      const sent = fault.requests.length;
      const after = await stack.graphql(HANG, { id: apiId });
      expect(after.body.data?.customApiEntries?.totalCount).toBe(2);
      expect(fault.requests.length - sent).toBe(1);
    });
  });
}
