/**
 * Events: the time from a write to the service to a subscriber's event, over the whole path a
 * store event takes: the service's outbox and webhook deliverer → the gateway's receiver (secret,
 * body, bus) → the subscription's read of the cart with the subscriber's token → the SSE frame.
 *
 * Three processes: the embedded service (as `npm run service`), the gateway as `npm start` runs
 * it against it (`src/main.ts` with UPSTREAM_URL and WEBHOOK_SECRET, request logs off), and this
 * client, which creates the store's integration (src/webhook-integration.ts, as
 * `npm run webhooks:create` does), subscribes to `cartUpdated` over SSE and then, one at a time,
 * changes the cart's line quantity with `PUT /v2/carts/{id}/items/{item}` and waits for the
 * event. Prints p50/p95/p99 from the write sent and from the write answered, and the load
 * average. Goal: p95 ≤ 50 ms on one machine.
 *
 * Run: npm run bench -- events   (BENCH_EVENTS=300)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { ensureWebhookIntegration } from '../src/webhook-integration.ts';
import { freePort, percentile, progress, startBenchService, waitUntil } from './lib.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 300);
const WARMUP = 20;
const SECRET = 'bench-events-webhook-secret';

const children: ChildProcess[] = [];
const start = (args: string[], env: Record<string, string>) => {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
};
const stopAll = () => {
  for (const child of children) child.kill('SIGTERM');
};
process.on('exit', stopAll);

const log = progress('events');
const service = await startBenchService(start);
const port = await freePort();
const gateway = `http://127.0.0.1:${port}`;
start(['scripts/ts.mjs', 'src/main.ts'], {
  PORT: String(port),
  HOST: '127.0.0.1',
  UPSTREAM_URL: service.url,
  WEBHOOK_SECRET: SECRET,
  LOG_REQUESTS: '0',
  GRAPHIQL: '0',
  METRICS: '0',
});
await waitUntil(async () => (await fetch(`${gateway}/readyz`)).status === 200, 'gateway');
await ensureWebhookIntegration({
  apiUrl: service.url,
  token: service.token,
  url: `${gateway}/webhooks/commerce`,
  secret: SECRET,
});
log.step('service, gateway and integration up');

async function call(method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${service.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

const made = await call('POST', '/v2/carts', { data: { name: 'Bench events' } });
const cartId = (made.data as { id: string }).id;
const added = await call('POST', `/v2/carts/${cartId}/items`, {
  data: { type: 'custom_item', name: 'Mug', sku: 'BENCH-MUG', quantity: 1, price: { amount: 900 } },
});
const itemId = (added.data as { id: string }[])[0]?.id;
if (itemId === undefined) throw new Error('no item');

// The subscriber: one SSE stream, frames parsed as they come.
const response = await fetch(`${gateway}/graphql`, {
  method: 'POST',
  headers: {
    accept: 'text/event-stream',
    'content-type': 'application/json',
    authorization: `Bearer ${service.token}`,
  },
  body: JSON.stringify({
    query: `subscription { cartUpdated(cartId: "${cartId}") { eventId cart { totals { withTax { amount } } } } }`,
  }),
});
if (response.status !== 200 || response.body === null) throw new Error(`SSE: ${response.status}`);
const reader = response.body.getReader();
const decoder = new TextDecoder();
let buffer = '';
async function nextEvent(): Promise<unknown> {
  for (;;) {
    const at = buffer.indexOf('\n\n');
    if (at >= 0) {
      const block = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      const data = /^data: (.+)$/m.exec(block)?.[1];
      if (block.includes('event: next') && data) return JSON.parse(data);
      if (block.includes('event: complete')) throw new Error('the subscription ended');
      continue;
    }
    const { value, done } = await reader.read();
    if (done) throw new Error('the stream closed');
    buffer += decoder.decode(value, { stream: true });
  }
}

const fromSent: number[] = [];
const fromAnswered: number[] = [];
for (let i = 0; i < WARMUP + EVENTS; i += 1) {
  const sent = performance.now();
  const waiting = nextEvent();
  await call('PUT', `/v2/carts/${cartId}/items/${itemId}`, {
    data: { type: 'cart_item', id: itemId, quantity: 2 + (i % 50) },
  });
  const answered = performance.now();
  const event = (await waiting) as { errors?: unknown };
  if (event.errors) throw new Error(`event with errors: ${JSON.stringify(event.errors)}`);
  const received = performance.now();
  if (i >= WARMUP) {
    fromSent.push(received - sent);
    fromAnswered.push(received - answered);
  }
  log.tick(() => `${i + 1}/${WARMUP + EVENTS} events`);
}
await reader.cancel();

const line = (label: string, values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const ms = (p: number) => percentile(sorted, p).toFixed(1);
  console.log(`${label.padEnd(34)} p50 ${ms(50)} ms  p95 ${ms(95)} ms  p99 ${ms(99)} ms`);
};
console.log(
  `events: ${EVENTS} cart writes, one at a time, one subscriber (after ${WARMUP} warm-up)`,
);
line('write sent → subscriber’s event', fromSent);
line('write answered → subscriber’s event', fromAnswered);
console.log(
  `load average: ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')} (goal: p95 ≤ 50 ms)`,
);
stopAll();
process.exit(0);
