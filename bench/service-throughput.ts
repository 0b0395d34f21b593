/**
 * The embedded service's own throughput, per Node line and per checkout, side by side: each
 * (checkout, node) pair starts `src/commerce-service/main.ts` (`:memory:`, demo store seeded with
 * 12,000 orders) in its own process; rounds are interleaved. For three calls — a 25-order page,
 * a 100-order page at offset 5,000, and creating a Custom API entry — it reports the service's
 * CPU per request (from /proc, over serial requests) and req/s at 16 connections (autocannon).
 *
 * Run: npm run bench -- service-throughput
 *   BENCH_TARGETS="new@26,new@22,old@system" with BENCH_CHECKOUTS=old=/path/to/a/checkout
 *   compares this checkout ("new") with another, installed one; @N is a Node major fetched by
 *   scripts/toolchain.sh (@system is the machine's node). Default: this checkout on the Node
 *   running the bench. BENCH_ROUNDS=3, BENCH_SERIAL=1000, BENCH_SECONDS=5.
 * Progress (each service starting, each measurement's serial and loaded phase) goes to stderr.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from 'undici';
import { fetchClientToken } from '../src/upstream/oauth.ts';
import { autocannon, freePort, median, processCpuMicros, progress } from './lib.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SERIAL = Number(process.env.BENCH_SERIAL ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CLIENT = { id: 'bench', secret: 'bench-secret' };
const shown = progress('service-throughput');
const here = dirname(fileURLToPath(import.meta.url));
/** `new` is this checkout; BENCH_CHECKOUTS=name=/path,… names others (installed). */
const checkouts: Record<string, string | undefined> = {
  new: join(here, '..'),
  ...Object.fromEntries(
    (process.env.BENCH_CHECKOUTS ?? '')
      .split(',')
      .filter((pair) => pair.includes('='))
      .map((pair) => pair.split('=') as [string, string]),
  ),
};

interface Target {
  label: string;
  url: string;
  child: ChildProcess;
  token: string;
  apiId: string;
}

function nodeFor(spec: string): string {
  if (spec === 'current') return process.execPath;
  if (spec === 'system') return 'node';
  const out = spawnSync(join(here, '..', 'scripts', 'toolchain.sh'), ['node', spec], {
    encoding: 'utf8',
  });
  if (out.status !== 0) throw new Error(`cannot fetch Node ${spec}: ${out.stderr}`);
  return join(out.stdout.trim(), 'node');
}

async function startTarget(spec: string): Promise<Target> {
  const [which = 'new', nodeSpec = 'current'] = spec.split('@');
  const cwd = checkouts[which];
  if (!cwd) throw new Error(`no checkout named "${which}" (see BENCH_CHECKOUTS)`);
  const node = nodeFor(nodeSpec);
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const port = await freePort();
  shown.step(`starting ${spec} (${version}): the service seeds its demo store`);
  // tsx/esm where it exists; an older checkout may predate it.
  const child = spawn(node, ['--import', 'tsx/esm', 'src/commerce-service/main.ts'], {
    cwd,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      COMMERCE_DB: ':memory:',
      COMMERCE_CLIENTS: `${CLIENT.id}:${CLIENT.secret}`,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const end = Date.now() + 120_000;
  let token = '';
  while (token === '') {
    if (Date.now() > end || child.exitCode !== null) throw new Error(`${spec} did not start`);
    token = await fetchClientToken(url, CLIENT).catch(() => '');
    if (token === '') await new Promise((r) => setTimeout(r, 200));
    shown.tick(() => `waiting for ${spec} to answer`);
  }
  shown.step(`${spec} is up`);
  const api = await fetch(`${url}/v2/settings/extensions/custom-apis`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      data: {
        type: 'custom_api',
        name: 'Bench',
        slug: 'bench-throughput',
        api_type: 'bench_tp_ext',
      },
    }),
  });
  const apiId = ((await api.json()) as { data: { id: string } }).data.id;
  return { label: `${which} on Node ${version}`, url, child, token, apiId };
}

interface Call {
  name: string;
  method: 'GET' | 'POST';
  path: (t: Target) => string;
  body?: string;
}
const CALLS: Call[] = [
  { name: 'GET 25 orders', method: 'GET', path: () => '/v2/orders?page[limit]=25' },
  {
    name: 'GET 100 orders at offset 5,000',
    method: 'GET',
    path: () => '/v2/orders?page[limit]=100&page[offset]=5000',
  },
  {
    name: 'POST an entry',
    method: 'POST',
    path: (t) => `/v2/settings/extensions/custom-apis/${t.apiId}/entries`,
    body: JSON.stringify({ data: { type: 'bench_tp_ext', name: 'x', count: 1 } }),
  },
];

async function measure(target: Target, call: Call, round: number) {
  const what = `round ${round + 1} of ${ROUNDS}, ${call.name}, ${target.label}`;
  shown.step(`${what}: ${SERIAL} serial requests`);
  const headers = {
    authorization: `Bearer ${target.token}`,
    ...(call.body ? { 'content-type': 'application/json' } : {}),
  };
  const client = new Client(target.url);
  const once = async () => {
    const response = await client.request({
      method: call.method,
      path: call.path(target),
      headers,
      body: call.body,
    });
    await response.body.text();
    if (response.statusCode >= 300) throw new Error(`${call.name}: ${response.statusCode}`);
  };
  for (let i = 0; i < 50; i += 1) await once();
  const pid = target.child.pid as number;
  const before = processCpuMicros(pid);
  for (let i = 0; i < SERIAL; i += 1) {
    await once();
    shown.tick(() => `${what}: ${i + 1} of ${SERIAL} serial requests`);
  }
  const cpu = (processCpuMicros(pid) - before) / SERIAL;
  await client.close();
  shown.step(`${what}: ${SECONDS} s at 16 connections`);
  const loaded = await autocannon({
    url: `${target.url}${call.path(target)}`,
    method: call.method,
    headers,
    body: call.body,
    connections: 16,
    duration: SECONDS,
  });
  if (loaded.non2xx > 0 || loaded.errors > 0) throw new Error(`${call.name} failed under load`);
  return { cpu, rps: loaded.requests.total / (loaded.duration || SECONDS) };
}

const specs = (process.env.BENCH_TARGETS ?? 'new@current').split(',');
const targets: Target[] = [];
for (const spec of specs) targets.push(await startTarget(spec));
const results = new Map<string, { cpu: number; rps: number }[]>();
const loads: number[] = [];
for (let round = 0; round < ROUNDS; round += 1) {
  loads.push(loadavg()[0] as number);
  const order = round % 2 === 0 ? targets : [...targets].reverse();
  for (const call of CALLS) {
    for (const target of order) {
      const key = `${call.name}|${target.label}`;
      results.set(key, [...(results.get(key) ?? []), await measure(target, call, round)]);
    }
  }
}
loads.push(loadavg()[0] as number);
console.log(
  `service throughput: medians of ${ROUNDS} interleaved rounds (${SERIAL} serial, ${SECONDS} s ` +
    `at c=16); ${cpus().length} CPUs, load average ${Math.min(...loads).toFixed(2)}–` +
    `${Math.max(...loads).toFixed(2)}`,
);
for (const call of CALLS) {
  console.log(`\n${call.name}`);
  for (const target of targets) {
    const own = results.get(`${call.name}|${target.label}`) ?? [];
    console.log(
      `  ${target.label.padEnd(26)} CPU ${median(own.map((s) => s.cpu))
        .toFixed(0)
        .padStart(6)} µs/req` +
        `   ${median(own.map((s) => s.rps))
          .toFixed(0)
          .padStart(6)} req/s`,
    );
  }
}
for (const target of targets) target.child.kill('SIGTERM');
