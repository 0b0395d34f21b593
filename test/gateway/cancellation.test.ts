/**
 * Cancellation with the signals server adapters really hand over. @whatwg-node's adapter (under
 * Yoga) gives the request a signal that only inherits from AbortSignal; Node 26's
 * `AbortSignal.any` refuses such an object, which once turned every upstream call into an
 * INTERNAL_SERVER_ERROR. Here the exported schema runs in process with a context built from a
 * request carrying such a signal, against a real upstream (the embedded service behind a
 * fault-injecting proxy), on whatever Node runs the suite.
 */
import { execute, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUpstream, schema } from '../../src/index.ts';
import { createFaultUpstream, type FaultUpstream } from '../support/fault-upstream.ts';
import { type Stack, startStack } from '../support/harness.ts';
import { createCustomApi } from './fixtures.ts';

/** An abort signal that is not Node's own: an EventTarget whose prototype chain has AbortSignal. */
class ForeignAbortSignal extends EventTarget {
  aborted = false;
  reason: unknown = undefined;
  onabort: ((event: Event) => void) | null = null;
  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.dispatchEvent(new Event('abort'));
  }
  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }
}
Object.setPrototypeOf(ForeignAbortSignal.prototype, AbortSignal.prototype);

const QUERY = parse('{ customApis(first: 5) { totalCount nodes { name } } }');

let stack: Stack;
let fault: FaultUpstream;
let token: string;
beforeAll(async () => {
  stack = await startStack();
  await createCustomApi(stack, undefined, 'Cancellable');
  fault = await createFaultUpstream({ target: stack.serviceUrl });
  token = await stack.token();
});
afterAll(async () => {
  await fault?.close();
  await stack?.close();
});

function run(signal: ForeignAbortSignal, operationDeadlineMs = 15_000) {
  const upstream = createUpstream({ url: fault.url, operationDeadlineMs, resilience: false });
  const headers = new Headers({ authorization: `Bearer ${token}` });
  const contextValue = upstream.createContext({ headers, signal });
  const started = Date.now();
  const result = Promise.resolve(execute({ schema, document: QUERY, contextValue }));
  return {
    started,
    result: result.finally(() => upstream.close()),
  };
}

const callsToCustomApis = () => fault.requests.filter((r) => r.url.includes('/custom-apis'));

async function until(condition: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!condition() && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
}

describe('a request signal that is not a native AbortSignal', () => {
  it('is the kind of signal Node 26 refuses to combine natively', () => {
    const foreign = new ForeignAbortSignal();
    expect(foreign).toBeInstanceOf(AbortSignal);
    // Node 20 combines it; Node 24.x may; Node 26 throws. Either way the gateway must not care.
    let refused = false;
    try {
      AbortSignal.any([foreign as unknown as AbortSignal]);
    } catch {
      refused = true;
    }
    const major = Number(process.versions.node.split('.')[0]);
    if (major >= 26) expect(refused).toBe(true);
  });

  it('still lets every field reach the upstream', async () => {
    fault.clear();
    const { result } = run(new ForeignAbortSignal());
    const { data, errors } = await result;
    expect(errors).toBeUndefined();
    expect(data).toEqual({ customApis: { totalCount: 1, nodes: [{ name: 'Cancellable' }] } });
  });

  it('cancels the upstream call when it aborts (the client went away)', async () => {
    fault.clear();
    fault.add({ path: /custom-apis$/, otherwise: { kind: 'hang' } });
    const before = callsToCustomApis().length;
    const signal = new ForeignAbortSignal();
    const { result } = run(signal);
    await until(() => callsToCustomApis().length > before, 5_000);
    expect(callsToCustomApis().length).toBe(before + 1);
    const abortedAt = Date.now();
    signal.abort();
    const { errors } = await result;
    expect(Date.now() - abortedAt).toBeLessThan(1_000);
    expect(errors?.[0]?.extensions?.code).toBeDefined();
    const call = callsToCustomApis()[before];
    await until(() => call?.closedAt !== undefined, 1_000);
    expect(call?.closedAt).toBeDefined();
    // No retry for a caller who is gone.
    await new Promise((r) => setTimeout(r, 100));
    expect(callsToCustomApis().length).toBe(before + 1);
  });

  it('already aborted, stops the operation before any upstream call', async () => {
    fault.clear();
    const before = callsToCustomApis().length;
    const signal = new ForeignAbortSignal();
    signal.abort();
    const { errors } = await run(signal).result;
    expect(errors?.[0]?.extensions?.code).toBeDefined();
    expect(callsToCustomApis().length).toBe(before);
  });

  it('leaves the operation deadline in force', async () => {
    fault.clear();
    fault.add({ path: /custom-apis$/, otherwise: { kind: 'hang' } });
    const { started, result } = run(new ForeignAbortSignal(), 400);
    const { errors } = await result;
    expect(errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(Date.now() - started).toBeLessThan(400 + 1_000);
  });
});
