/**
 * Library or hand-written, piece by piece, in one process: CPU per operation of the gateway's
 * metrics (prom-client) and request log lines (pino) against the hand-written ones they
 * replaced, and of the service's money formatting (its currency table) against
 * `Intl.NumberFormat` cached per currency. Interleaved rounds (the order reversed every round);
 * printed are the medians and the median of the per-round ratios, with the load average. The
 * request-level comparison is `bench/pairs.ts` (docs/benchmarks.md, "Library or hand-written").
 *
 * Run: BENCH_BEFORE=DIR node scripts/ts.mjs bench/library-pieces.ts, DIR a checkout of the
 * commit before the switch (83c4245^) with this node_modules linked into it; without it, only
 * money. (BENCH_ROUNDS=20, BENCH_ITERATIONS=20000 per round)
 */
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatMoney } from '../src/commerce-service/money.ts';
import { createLogger, type Logger } from '../src/gateway/logging.ts';
import { createMetrics, type Metrics } from '../src/gateway/metrics.ts';
import { median } from './lib.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 20_000);
const BEFORE = process.env.BENCH_BEFORE;

/** Metrics as either version shows them (the hand-written render was synchronous). */
type AnyMetrics = Omit<Metrics, 'render'> & { render(): string | Promise<string> };

/** What the hand-written pieces looked like from outside. */
interface Before {
  createMetrics(options: { path: false }): AnyMetrics;
  createLogger(options: { write: (line: string) => void }): Logger;
}

type Operation = (i: number) => void;

function cpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

/** Nanoseconds of CPU per call of `op`, over `n` calls. */
function time(op: Operation, n: number): number {
  const before = cpuMicros();
  for (let i = 0; i < n; i++) op(i);
  return ((cpuMicros() - before) * 1000) / n;
}

function compare(name: string, ours: Operation, library: Operation, n = ITERATIONS): void {
  time(ours, n);
  time(library, n);
  const a: number[] = [];
  const b: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      a.push(time(ours, n));
      b.push(time(library, n));
    } else {
      b.push(time(library, n));
      a.push(time(ours, n));
    }
  }
  const ratios = b.map((value, i) => value / (a[i] as number));
  console.log(
    `${name}: hand-written ${median(a).toFixed(0)} ns, library ${median(b).toFixed(0)} ns, ` +
      `library/hand-written ${median(ratios).toFixed(2)} ` +
      `(rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
  );
}

/** One GraphQL request's hooks and one upstream attempt, as the gateway calls them. */
function oneRequest(metrics: AnyMetrics): Operation {
  type Hook = (args: unknown) => unknown;
  const plugin = metrics.plugin as unknown as Record<string, Hook | undefined>;
  const names = ['ListOrders', 'Entries', 'Cart', 'Checkout'];
  const attempt = { method: 'GET', segments: ['v2', 'orders'] };
  const result = { data: { orders: {} } };
  const response = { status: 200 };
  return (i: number) => {
    const request = { method: 'POST' };
    const contextValue = { request, budget: { used: 1 } };
    plugin.onRequest?.({ request, endResponse() {}, fetchAPI: {} });
    plugin.onParams?.({ params: { query: 'query', operationName: names[i & 3] }, request });
    plugin.onExecute?.({ args: { operationName: names[i & 3], contextValue } });
    // The observer's shape before the upstream's front door (end) and after it (attemptEnd).
    const observer = metrics.observer as unknown as Record<string, Hook | undefined>;
    if (observer.attemptEnd) {
      observer.attemptEnd({ method: 'GET', route: '/v2/orders', retry: 0, status: 200 });
    } else {
      (observer.end as unknown as (...args: unknown[]) => void)(
        attempt,
        200,
        undefined,
        { attempt: 0 },
        undefined,
      );
    }
    plugin.onResultProcess?.({ request, result });
    plugin.onResponse?.({ request, response });
  };
}

/** The request line requestLogPlugin writes. */
function requestLine(logger: Logger): Operation {
  return (i) =>
    logger.log('info', 'request', {
      requestId: '0b6d8c1e-6c1e-4f7e-9a51-2f7d1f0c9e3a',
      method: 'POST',
      path: '/graphql',
      operationName: 'ListOrders',
      status: 200,
      durationMs: 1.25 + (i & 7),
      upstreamCalls: 1,
    });
}

let written = 0;
const write = (line: string) => {
  written += line.length;
};

if (BEFORE !== undefined) {
  const load = async (file: string) =>
    (await import(pathToFileURL(join(resolve(BEFORE), file)).href)) as Before;
  const { createMetrics: createBefore } = await load('src/gateway/metrics.ts');
  const { createLogger: loggerBefore } = await load('src/gateway/logging.ts');
  const before = createBefore({ path: false });
  const after = createMetrics({ path: false });
  before.breakerState = () => 'closed';
  after.breakerState = () => 'closed';
  compare(
    'metrics, one request (its hooks and one upstream attempt)',
    oneRequest(before),
    oneRequest(after),
  );
  // A scrape: prom-client renders asynchronously, so each round awaits every render.
  const a: number[] = [];
  const b: number[] = [];
  const scrapes = async (render: () => string | Promise<string>) => {
    const start = cpuMicros();
    for (let i = 0; i < 200; i++) written += (await render()).length;
    return ((cpuMicros() - start) * 1000) / 200;
  };
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      a.push(await scrapes(() => before.render()));
      b.push(await scrapes(() => after.render()));
    } else {
      b.push(await scrapes(() => after.render()));
      a.push(await scrapes(() => before.render()));
    }
  }
  console.log(
    `metrics, one scrape (4 operations): hand-written ${median(a).toFixed(0)} ns, library ` +
      `${median(b).toFixed(0)} ns, library/hand-written ${median(b.map((v, i) => v / (a[i] as number))).toFixed(2)}`,
  );
  compare(
    'logging, one request line',
    requestLine(loggerBefore({ write })),
    requestLine(createLogger({ write })),
  );
} else {
  console.log('metrics and logging: give BENCH_BEFORE (see the header) to compare them');
}

const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'CAD', 'AUD', 'NZD', 'CHF', 'INR', 'CNY', 'SEK'];
const AMOUNTS = [7700, -300, 123_456, 0, 99, -1000, 250_000, 1999];
const formats = new Map<string, { format: Intl.NumberFormat; scale: number }>();
/** The cheapest form of the library: no fix-ups of its output (which differs for CHF and SEK). */
function intlFormat(amount: number, currency: string): string {
  let cached = formats.get(currency);
  if (cached === undefined) {
    const format = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    cached = { format, scale: 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2) };
    formats.set(currency, cached);
  }
  return cached.format.format(amount / cached.scale);
}
compare(
  'money, one formatted string (11 currencies)',
  (i) => {
    written += formatMoney(AMOUNTS[i & 7] as number, CURRENCIES[i % 11] as string).length;
  },
  (i) => {
    written += intlFormat(AMOUNTS[i & 7] as number, CURRENCIES[i % 11] as string).length;
  },
  ITERATIONS * 5,
);
console.log(
  `${ROUNDS} rounds, Node ${process.version}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}${written > 0 ? '' : ' (nothing written?)'}`,
);
