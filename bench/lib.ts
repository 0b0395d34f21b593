/** Small helpers the benchmarks share: autocannon's typed entry, medians, CPU of a process. */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { fetchClientToken } from '../src/upstream/oauth.ts';

// Every gateway a benchmark starts (they inherit this process's environment) sends unpaced
// unless UPSTREAM_RATE_LIMIT says otherwise: the benchmarks measure the gateway's CPU and
// throughput against an upstream with no limit, beside gateways that pace nothing.
process.env.UPSTREAM_RATE_LIMIT ??= '0';

export interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
  duration: number;
}
export type Autocannon = (options: {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  /** Seconds to run, or … */
  duration?: number;
  /** … exactly this many requests. */
  amount?: number;
}) => Promise<AutocannonResult>;
// autocannon ships no types; this is the part of its API the benchmarks use.
export const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The p-th percentile (nearest rank) of already sorted values. */
export function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}

const TICKS_PER_SECOND = 100;

/** CPU time (user + system, all threads) a process has used so far, in microseconds. */
export function processCpuMicros(pid: number): number {
  // The scheduler's nanosecond count summed over the process's threads: /proc/PID/stat counts
  // clock ticks (10 ms), which quantises a block of 500 serial requests to about ±3%.
  try {
    let nanos = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const line = readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8');
      nanos += Number(line.slice(0, line.indexOf(' ')));
    }
    return nanos / 1000;
  } catch {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of /proc/PID/stat, 12 and 13 after the name.
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1_000_000) / TICKS_PER_SECOND;
  }
}

/** Resident set size of a process, in MB. */
export function processRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `check` every 100 ms until it holds (a throw counts as not yet). */
export async function waitUntil(check: () => Promise<boolean>, what: string, ms = 120_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not come up within ${ms / 1000} s`);
}

/** The client the benches use against the embedded service (the demo store is seeded for it). */
export const BENCH_CLIENT = { id: 'bench', secret: 'bench-secret' };

/**
 * The embedded service in its own process, as `npm run service` runs it (scripts/ts.mjs), on a
 * free port with an in-memory database; resolves once it answers, with a token for BENCH_CLIENT.
 * `start` spawns `node ARGS` with that environment added (each bench keeps its own handling).
 */
export async function startBenchService(
  start: (args: string[], env: Record<string, string>) => ChildProcess,
): Promise<{ child: ChildProcess; url: string; token: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = start(['scripts/ts.mjs', 'src/commerce-service/main.ts'], {
    PORT: String(port),
    HOST: '127.0.0.1',
    COMMERCE_DB: ':memory:',
    COMMERCE_CLIENTS: `${BENCH_CLIENT.id}:${BENCH_CLIENT.secret}`,
  });
  await waitUntil(async () => (await fetch(`${url}/healthz`)).status < 500, 'service');
  return { child, url, token: await fetchClientToken(url, BENCH_CLIENT) };
}

export interface Progress {
  /** Prints `message` now. */
  step(message: string): void;
  /** Prints `message()` if `everyMs` have passed since the last line (cheap to call often). */
  tick(message: () => string): void;
}

/**
 * Progress lines on stderr, `<label>: <message> (<seconds since start>)`, so a long phase (a
 * seed, a measurement) never leaves the terminal silent; stdout keeps only the results. Lines
 * written from a synchronous loop still appear at once: stderr to a pipe or a terminal is
 * synchronous on Linux.
 */
export function progress(label: string, everyMs = 3_000): Progress {
  const started = performance.now();
  let last = started;
  const print = (message: string) => {
    last = performance.now();
    console.error(`${label}: ${message} (${((last - started) / 1000).toFixed(1)} s)`);
  };
  return {
    step: print,
    tick(message) {
      if (performance.now() - last >= everyMs) print(message());
    },
  };
}
