/**
 * The per-request budget: what one request pays for each part of the gateway, measured from a
 * CPU profile of serial requests. The embedded service and one gateway each run in their own
 * process; the gateway runs under `--cpu-prof` (one sample every 100 µs), takes BENCH_WARMUP
 * requests, then BENCH_REQUESTS more, and only the samples taken while those ran are counted
 * (the profile's clock is the monotonic one process.hrtime reads, in every process).
 *
 * Each sample goes to the innermost frame on its stack that belongs to a part below (a
 * `Map.get` called by the metrics' families is the metrics'; `JSON.parse` called by the answer
 * reader is the upstream answer's), so the parts add up to the whole. The parts a request
 * asked for (its upstream exchange, JSON, execution, the HTTP server) are listed apart from
 * the features every request runs through whether it uses them or not: the budget.
 *
 * Run: npm run bench -- budget   (BENCH_PAGES=narrow — one page of bench/pages.ts —,
 * BENCH_REQUESTS=10000, BENCH_WARMUP=2000, BENCH_ENTRY=path/to/src/main.ts to profile another
 * checkout's gateway, BENCH_ENV='{"LOG_REQUESTS":"1"}' for its environment,
 * BENCH_PROFILE_DIR to keep the profile)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from 'undici';
import { freePort, processCpuMicros, startBenchService, waitUntil } from './lib.ts';
import { fillProductSlug, pagesOf } from './pages.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 10_000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2_000);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A part of the request path: the frames that are its own (by file, or file and function). */
interface Part {
  name: string;
  asked: boolean;
  match: (url: string, fn: string) => boolean;
}

const inFile =
  (...files: string[]) =>
  (url: string) =>
    files.some((file) => url.endsWith(file));
const inDir =
  (...dirs: string[]) =>
  (url: string) =>
    dirs.some((dir) => url.includes(dir));

const SOCKET_WRITES = new Set(['writeUtf8String', 'writeLatin1String', 'writeBuffer', 'writev']);
const NODE = 'Node: HTTP server, streams, timers, events (under no part above)';

/**
 * First match wins for a frame; the innermost matching frame of a stack takes the sample.
 * Node's own frames and natives are transparent (a timer a part sets is the part's), but for
 * the socket writes; a sample under no part but Node's frames is Node's.
 */
const PARTS: Part[] = [
  // What every request runs through whether or not it uses it: the budget.
  {
    name: 'context: the session built per request (ids, budget, loaders), copied in by envelop',
    asked: false,
    match: (url, fn) =>
      (url.endsWith('src/upstream/session.ts') && fn === 'createContext') ||
      (url.endsWith('src/gateway/create-gateway.ts') && fn === 'createYoga.context') ||
      url.endsWith('plugins/use-extend-context.js'),
  },
  {
    name: 'the operation signal and deadline timer, the per-request upstream client',
    asked: false,
    match: (url, fn) =>
      url.endsWith('src/upstream/session.ts') && (fn === 'getSignal' || fn === 'upstream'),
  },
  {
    name: 'token judges (Authorization, forwarded headers)',
    asked: false,
    match: (url, fn) =>
      inFile('src/upstream/forwarded-headers.ts')(url) ||
      (url.endsWith('src/upstream/session.ts') && fn === 'readAuthorization'),
  },
  {
    name: 'request checks (CSRF, request shape)',
    asked: false,
    match: inFile('src/gateway/request-checks.ts'),
  },
  {
    name: 'document limits (armor, depth, cost, name length; cached validation)',
    asked: false,
    match: (url) =>
      inFile(
        'src/gateway/armor.ts',
        'src/gateway/query-cost.ts',
        'src/gateway/query-depth.ts',
        'src/gateway/validation-cache.ts',
      )(url) || url.includes('@escape.tech/'),
  },
  {
    name: 'operation limits (lists and sizes from the variables)',
    asked: false,
    match: inFile('src/gateway/operation-limits.ts'),
  },
  { name: '@inContext', asked: false, match: inFile('src/gateway/in-context.ts') },
  { name: 'committed writes', asked: false, match: inFile('src/gateway/committed-writes.ts') },
  { name: 'CORS', asked: false, match: inFile('src/gateway/cors.ts') },
  {
    name: 'metrics',
    asked: false,
    match: (url) =>
      inFile('src/gateway/metrics.ts', 'src/gateway/metric-families.ts')(url) ||
      url.includes('/prom-client/'),
  },
  {
    name: 'request log',
    asked: false,
    match: (url) => inFile('src/gateway/logging.ts')(url) || inDir('/pino', '/@pinojs/')(url),
  },
  {
    name: 'tracing',
    asked: false,
    match: (url) =>
      inFile('src/gateway/tracing.ts', 'src/gateway/otel.ts')(url) ||
      url.includes('/@opentelemetry/'),
  },
  {
    name: 'error shaping (codes, echo caps, masking)',
    asked: false,
    match: inFile('src/gateway/error-answers.ts'),
  },
  {
    name: 'health, GraphiQL, persisted documents, drain count (their hooks)',
    asked: false,
    match: inFile(
      'src/gateway/health.ts',
      'src/gateway/graphiql.ts',
      'src/gateway/persisted-documents.ts',
      'src/gateway/shutdown.ts',
      'plugins/use-health-check.js',
    ),
  },
  {
    name: 'resilience (attempt timer, retries, breaker)',
    asked: false,
    match: inFile('src/upstream/resilience.ts', 'src/upstream/breaker.ts'),
  },
  {
    name: 'call slots and the call budget',
    asked: false,
    match: inFile(
      'src/upstream/call-slots.ts',
      'src/upstream/budget.ts',
      'src/upstream/route-template.ts',
    ),
  },
  { name: 'shared reads', asked: false, match: inFile('src/upstream/shared-reads.ts') },
  {
    name: 'upstream observers (metrics and tracing hooks of each attempt)',
    asked: false,
    match: inFile('src/upstream/observer.ts'),
  },
  // What the request asked for.
  {
    name: 'upstream answer: JSON.parse and the envelope checks',
    asked: true,
    match: inFile('src/upstream/answers.ts'),
  },
  {
    name: 'upstream exchange: path, headers, undici and its parser',
    asked: true,
    match: (url) =>
      inFile(
        'src/upstream/client.ts',
        'src/upstream/transport.ts',
        'src/upstream/session.ts',
      )(url) ||
      url.includes('/undici/') ||
      url.startsWith('wasm'),
  },
  { name: 'paging: planner, cursors', asked: true, match: inDir('src/upstream/paging/') },
  {
    name: 'execution: graphql-jit, resolvers, rows',
    asked: true,
    match: (url) =>
      inDir('src/schema/', '/graphql-jit/', '/@pothos/', '/graphql/', '/dataloader/')(url) ||
      inFile('src/gateway/jit.ts')(url),
  },
  {
    name: 'GraphQL server: the fast path, Yoga, envelop (parse cache, hooks, result)',
    asked: true,
    match: (url) =>
      inFile(
        'src/gateway/fast-path.ts',
        'src/gateway/fast-path-pipeline.ts',
        'src/gateway/fast-path-shims.ts',
        'src/gateway/create-gateway.ts',
      )(url) || inDir('/graphql-yoga/', '/@envelop/', '/@whatwg-node/', '/lru-cache/')(url),
  },
  {
    name: 'socket writes (the response, the upstream request: the kernel loopback work)',
    asked: true,
    match: (_url, fn) => SOCKET_WRITES.has(fn),
  },
  { name: 'garbage collection', asked: true, match: (_url, fn) => fn === '(garbage collector)' },
];

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** µs per part over the samples taken in [from, to] (µs of the monotonic clock). */
function attribute(profile: Profile, from: number, to: number): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const owner = new Map<number, string | null>();
  const ownerOf = (id: number): string | null => {
    const known = owner.get(id);
    if (known !== undefined) return known;
    const { url, functionName } = (byId.get(id) as ProfileNode).callFrame;
    const path = url.replace(/^file:\/\//, '');
    const transparent =
      ((path === '' && !functionName.startsWith('(')) || path.startsWith('node:')) &&
      !SOCKET_WRITES.has(functionName);
    const part = transparent ? undefined : PARTS.find((one) => one.match(path, functionName));
    const up = parent.get(id);
    const found = part ? part.name : up === undefined ? null : ownerOf(up);
    owner.set(id, found);
    return found;
  };
  const underNode = (id: number): boolean => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      if ((byId.get(at) as ProfileNode).callFrame.url.startsWith('node:')) return true;
    }
    return false;
  };
  const totals = new Map<string, number>();
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i += 1) {
    time += profile.timeDeltas[i] ?? 0;
    const next = profile.timeDeltas[i + 1] ?? 0;
    if (time < from || time > to) continue;
    const id = profile.samples[i] as number;
    const fn = (byId.get(id) as ProfileNode).callFrame.functionName;
    if (fn === '(idle)') continue;
    const name =
      ownerOf(id) ?? (underNode(id) ? NODE : fn === '(program)' ? 'V8: (program)' : 'other');
    totals.set(name, (totals.get(name) ?? 0) + next);
  }
  return totals;
}

function start(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

const page = pagesOf(process.env.BENCH_PAGES ?? 'narrow')[0];
if (page === undefined) throw new Error('BENCH_PAGES names no page');
const { child: service, url: serviceUrl, token } = await startBenchService(start);
await fillProductSlug(serviceUrl, token);
const dir = process.env.BENCH_PROFILE_DIR
  ? resolve(process.env.BENCH_PROFILE_DIR)
  : mkdtempSync(join(tmpdir(), 'budget-'));
const port = await freePort();
const entry = process.env.BENCH_ENTRY ?? 'src/main.ts';
const gateway = start(
  ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${dir}`, 'scripts/ts.mjs', entry],
  {
    PORT: String(port),
    HOST: '127.0.0.1',
    UPSTREAM_URL: serviceUrl,
    LOG_REQUESTS: '0',
    ...(JSON.parse(process.env.BENCH_ENV ?? '{}') as Record<string, string>),
  },
);
const url = `http://127.0.0.1:${port}`;
const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
const body = JSON.stringify({ query: page.query.relay });
await waitUntil(
  async () => (await fetch(`${url}/graphql`, { method: 'POST', headers, body })).status === 200,
  'gateway',
);
const client = new Client(url);
const send = async () => {
  const response = await client.request({ method: 'POST', path: '/graphql', headers, body });
  const text = await response.body.text();
  if (response.statusCode !== 200 || text.split(page.count).length - 1 !== page.size) {
    throw new Error(`unexpected answer: ${text.slice(0, 200)}`);
  }
};
for (let i = 0; i < WARMUP; i += 1) await send();
const loads = [loadavg()[0] as number];
const cpuBefore = processCpuMicros(gateway.pid as number);
const from = Number(process.hrtime.bigint() / 1000n);
for (let i = 0; i < REQUESTS; i += 1) await send();
const to = Number(process.hrtime.bigint() / 1000n);
const cpu = (processCpuMicros(gateway.pid as number) - cpuBefore) / REQUESTS;
loads.push(loadavg()[0] as number);
await client.close();
await new Promise<void>((done) => {
  gateway.once('exit', () => done());
  gateway.kill('SIGTERM');
});
service.kill('SIGTERM');

const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
if (file === undefined) throw new Error(`no profile written in ${dir}`);
const totals = attribute(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile, from, to);
if (!process.env.BENCH_PROFILE_DIR) rmSync(dir, { recursive: true, force: true });
const sampled = [...totals.values()].reduce((a, b) => a + b, 0) / REQUESTS;
console.log(
  `${page.name}, ${entry}: ${REQUESTS} serial requests, CPU ${cpu.toFixed(0)} µs/req (/proc, ` +
    `profiler on), ${sampled.toFixed(0)} µs/req sampled; Node ${process.version}, load average ` +
    `${loads.map((l) => l.toFixed(2)).join('→')}`,
);
const row = (name: string) => {
  const us = (totals.get(name) ?? 0) / REQUESTS;
  console.log(`| ${name} | ${us.toFixed(1)} | ${((100 * us) / sampled).toFixed(1)}% |`);
  return us;
};
console.log('\n| not asked for (the budget) | µs/req | share |\n|---|---:|---:|');
let budget = 0;
for (const part of PARTS.filter((one) => !one.asked)) budget += row(part.name);
console.log(
  `| **all of the budget** | **${budget.toFixed(1)}** | ${((100 * budget) / sampled).toFixed(1)}% |`,
);
console.log('\n| asked for | µs/req | share |\n|---|---:|---:|');
for (const part of PARTS.filter((one) => one.asked)) row(part.name);
row(NODE);
row('V8: (program)');
row('other');
