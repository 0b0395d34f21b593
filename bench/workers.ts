/**
 * Every core (`WORKERS`): req/s of `npm start` with WORKERS=2 against WORKERS=1 on the same
 * machine, for the 25-order page, against an upstream that costs little. Goal (issue 32): ≥ 1.6×
 * on a 2-core machine.
 *
 * On two cores the gateway shares the CPU with the upstream and the load generator, so both are
 * made as cheap as Node allows and their cost is measured, not guessed:
 *   - the stand-in upstream (this file re-spawned with the role `stand-in`) answers every request
 *     with one canned body: the embedded service's own answer to the gateway's GET, read once
 *     before the run (so the gateway parses real data). Raw `node:net`, no HTTP parser: the
 *     gateway's GETs have no body, so each `\r\n\r\n` is one request;
 *   - the load generator (this process) keeps BENCH_CONNECTIONS raw sockets, each sending one
 *     prepared POST at a time and reading the answer's framing (status line, content-length);
 *     autocannon costs several times as much per request.
 * Both gateways run side by side the whole time (idle one costs nothing); rounds interleave
 * them, alternating which goes first; each figure is the median of the rounds, and the ratio is
 * taken within each round. CPU per request of each role (the gateway's processes together, the
 * stand-in, the load generator) is read from /proc over the same window, so a ratio below the
 * goal says where the cores went.
 *
 * Run: npm run bench -- workers   (BENCH_ROUNDS=5, BENCH_SECONDS=5, BENCH_WARMUP_SECONDS=1,
 * BENCH_CONNECTIONS=32, BENCH_WORKERS=2)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, median, processCpuMicros, startBenchService, waitUntil } from './lib.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 2);
const QUERY = '{ orders(first: 25) { edges { node { id status } } } }';
/** The GET the gateway sends for the page (its walk also adds a pinned `le(created_at, now)`). */
const REST = '/v2/orders?page[limit]=25&page[offset]=0&sort=created_at';
const CRLF2 = Buffer.from('\r\n\r\n');

/** The stand-in upstream: one canned answer per request head, on raw sockets. */
function standIn(port: number, bodyFile: string): void {
  const body = readFileSync(bodyFile);
  const answer = Buffer.concat([
    Buffer.from(
      `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
    ),
    body,
  ]);
  createServer((socket) => {
    // The end of the previous chunk, so a head split across two chunks is still seen once.
    let tail = '';
    socket.on('data', (chunk: Buffer) => {
      const text = tail + chunk.toString('latin1');
      let count = 0;
      let at = text.indexOf('\r\n\r\n');
      let last = -1;
      while (at !== -1) {
        count += 1;
        last = at + 4;
        at = text.indexOf('\r\n\r\n', last);
      }
      tail = text.slice(Math.max(last, text.length - 3));
      for (let i = 0; i < count; i += 1) socket.write(answer);
    });
    socket.on('error', () => {});
  }).listen(port, '127.0.0.1', () => process.send?.('listening'));
}

/** Load on `connections` sockets, one request at a time each; counts 200s and anything else. */
function startLoad(port: number, token: string) {
  const payload = JSON.stringify({ query: QUERY });
  const request = Buffer.from(
    `POST /graphql HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\n` +
      `authorization: Bearer ${token}\r\ncontent-length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`,
  );
  const counts = { ok: 0, other: 0 };
  let running = true;
  const sockets: Socket[] = [];
  for (let i = 0; i < CONNECTIONS; i += 1) {
    const socket = connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    let buffered: Buffer = Buffer.alloc(0);
    socket.on('connect', () => socket.write(request));
    socket.on('data', (chunk: Buffer) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      for (;;) {
        const headEnd = buffered.indexOf(CRLF2);
        if (headEnd === -1) return;
        const head = buffered.toString('latin1', 0, headEnd).toLowerCase();
        const match = /\r\ncontent-length: *(\d+)/.exec(head);
        if (!match) throw new Error(`an answer without content-length: ${head}`);
        const end = headEnd + 4 + Number(match[1]);
        if (buffered.length < end) return;
        if (head.startsWith('http/1.1 200')) counts.ok += 1;
        else counts.other += 1;
        buffered = buffered.subarray(end);
        if (running) socket.write(request);
      }
    });
    socket.on('error', (error) => {
      if (running) throw error;
    });
    sockets.push(socket);
  }
  return {
    counts,
    stop() {
      running = false;
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** A process and its children (a cluster primary's workers), by pid (Linux's /proc). */
function family(pid: number): number[] {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
    return [pid, ...(children === '' ? [] : children.split(/\s+/).map(Number))];
  } catch {
    return [pid];
  }
}
const cpuOf = (pids: number[]) => pids.reduce((sum, pid) => sum + processCpuMicros(pid), 0);
const ownCpu = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

function start(args: string[], env: Record<string, string>, ipc = false): ChildProcess {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, NODE_ENV: 'production', ...env },
    // Only the stand-in says when it listens; the gateway is started as `npm start` is.
    stdio: ['ignore', 'ignore', 'inherit', ...(ipc ? ['ipc' as const] : [])],
  });
  child.on('exit', (code, signal) => {
    if (!stopping && !done.has(child))
      console.error(`${args.join(' ')} exited early (${code ?? signal})`);
  });
  return child;
}
let stopping = false;
/** Children stopped on purpose before the end. */
const done = new WeakSet<ChildProcess>();

interface Sample {
  rps: number;
  /** CPU µs per request: the gateway's processes, the stand-in, the load generator. */
  gateway: number;
  standIn: number;
  load: number;
}

async function measure(port: number, gatewayPid: number, standInPid: number): Promise<Sample> {
  const load = startLoad(port, 'bench');
  await new Promise((resolve) => setTimeout(resolve, WARMUP_SECONDS * 1000));
  const pids = family(gatewayPid);
  const before = {
    ok: load.counts.ok,
    gw: cpuOf(pids),
    si: processCpuMicros(standInPid),
    me: ownCpu(),
  };
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  const seconds = (performance.now() - started) / 1000;
  const done = load.counts.ok - before.ok;
  const after = { gw: cpuOf(pids), si: processCpuMicros(standInPid), me: ownCpu() };
  load.stop();
  if (load.counts.other > 0) throw new Error(`${load.counts.other} answers were not 200`);
  return {
    rps: done / seconds,
    gateway: (after.gw - before.gw) / done,
    standIn: (after.si - before.si) / done,
    load: (after.me - before.me) / done,
  };
}

async function main(): Promise<void> {
  // The canned answer: the embedded service's own, to the GET the gateway sends for the page.
  const {
    child: service,
    url: serviceUrl,
    token,
  } = await startBenchService((args, env) => start(args, env));
  const body = await (
    await fetch(`${serviceUrl}${REST}`, { headers: { authorization: `Bearer ${token}` } })
  ).text();
  done.add(service);
  service.kill('SIGTERM');
  const bodyFile = join(tmpdir(), `bench-workers-${process.pid}.json`);
  writeFileSync(bodyFile, body);

  const standInPort = await freePort();
  const stand = start(
    ['scripts/ts.mjs', 'bench/workers.ts', 'stand-in', String(standInPort), bodyFile],
    {},
    true,
  );
  await new Promise((resolve) => stand.once('message', resolve));

  const targets: { workers: number; port: number; child: ChildProcess }[] = [];
  for (const workers of [1, WORKERS]) {
    const port = await freePort();
    const child = start(['scripts/ts.mjs', 'src/main.ts'], {
      PORT: String(port),
      HOST: '127.0.0.1',
      UPSTREAM_URL: `http://127.0.0.1:${standInPort}`,
      LOG_REQUESTS: '0',
      WORKERS: String(workers),
    });
    targets.push({ workers, port, child });
  }
  const ask = (port: number) =>
    fetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
      body: JSON.stringify({ query: QUERY }),
    });
  for (const target of targets) {
    await waitUntil(
      async () => (await ask(target.port)).status === 200,
      `WORKERS=${target.workers}`,
    );
    // Each answers the page in full (25 orders from the canned body) before anything is measured.
    const text = await (await ask(target.port)).text();
    if (text.split('"status":').length - 1 !== 25) {
      throw new Error(`WORKERS=${target.workers} answered wrongly: ${text.slice(0, 300)}`);
    }
  }

  const samples = new Map<number, Sample[]>(targets.map((t) => [t.workers, []]));
  const ratios: number[] = [];
  const loads: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    loads.push(loadavg()[0] as number);
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    const rps = new Map<number, number>();
    for (const target of order) {
      const sample = await measure(target.port, target.child.pid as number, stand.pid as number);
      samples.get(target.workers)?.push(sample);
      rps.set(target.workers, sample.rps);
    }
    ratios.push((rps.get(WORKERS) ?? Number.NaN) / (rps.get(1) ?? Number.NaN));
    process.stderr.write(
      `round ${round + 1}/${ROUNDS}: WORKERS=1 ${rps.get(1)?.toFixed(0)} req/s, ` +
        `WORKERS=${WORKERS} ${rps.get(WORKERS)?.toFixed(0)} req/s, load average ${loadavg()[0]?.toFixed(2)}\n`,
    );
  }
  loads.push(loadavg()[0] as number);

  console.log(
    `\nworkers: 25-order page, medians of ${ROUNDS} interleaved rounds of ${SECONDS} s at ` +
      `c=${CONNECTIONS} (after ${WARMUP_SECONDS} s of warm-up); Node ${process.version}, ` +
      `${cpus().length} CPUs (${availableParallelism()} available), 1-min load average ` +
      `${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}`,
  );
  console.log(
    `${'WORKERS'.padEnd(9)}${'req/s'.padStart(8)}${'gateway µs/req'.padStart(16)}` +
      `${'stand-in µs/req'.padStart(17)}${'load gen µs/req'.padStart(17)}${'cores used'.padStart(12)}`,
  );
  for (const target of targets) {
    const own = samples.get(target.workers) ?? [];
    const med = (key: keyof Sample) => median(own.map((s) => s[key]));
    console.log(
      `${String(target.workers).padEnd(9)}${med('rps').toFixed(0).padStart(8)}` +
        `${med('gateway').toFixed(0).padStart(16)}${med('standIn').toFixed(0).padStart(17)}` +
        `${med('load').toFixed(0).padStart(17)}` +
        // The cores the three roles kept busy together: below the machine's count, the rest
        // went to other processes (or idled).
        `${median(own.map((s) => ((s.gateway + s.standIn + s.load) * s.rps) / 1e6))
          .toFixed(2)
          .padStart(12)}`,
    );
    console.log(`  by round: req/s ${own.map((s) => s.rps.toFixed(0)).join(' ')}`);
  }
  console.log(
    `WORKERS=${WORKERS} / WORKERS=1: median ${median(ratios).toFixed(2)}× (goal ≥ 1.60; by round ` +
      `${ratios.map((r) => r.toFixed(2)).join(' ')})`,
  );

  stopping = true;
  for (const target of targets) target.child.kill('SIGTERM');
  stand.kill('SIGTERM');
}

if (process.argv[2] === 'stand-in') {
  standIn(Number(process.argv[3]), process.argv[4] ?? '');
} else {
  await main();
}
