/**
 * Side-by-side CPU of gateway variants, for one change at a time: the same embedded service
 * (its own process, demo store), one process per variant, and interleaved blocks of serial
 * requests (the order reversed every block). Each block's CPU per request is read from
 * /proc for the variant's process (and the service's); printed are the medians and the median
 * of the per-block ratios. On a shared 2-core machine a single run of peers moves 10–40%;
 * blocks taken back to back see the same machine.
 *
 * Two ways to run it:
 *
 * - **The regression guard** (no arguments: `npm run bench -- pairs`): the naive gateway
 *   (bench/naive-gateway.ts), the gateway of another commit (`BENCH_BASE`, default `HEAD^`:
 *   its files are taken with `git archive` into .cache/bench-base/<commit>, once) and this
 *   checkout's, on the peers bench's narrow, wide, catalog and product pages
 *   (`BENCH_PAGES=narrow,wide,catalog,product`); per page, each variant's median CPU per request
 *   and serial p50/p99, this checkout's ratios to the naive gateway and to the base (medians of
 *   the per-block ratios). `BENCH_ENV='{"LOG_REQUESTS":"1"}'` sets variables for both gateways.
 * - **Variants given** as arguments, each a JSON object of environment variables for
 *   `src/main.ts` (`UPSTREAM_URL`, `PORT`, `NODE_ENV=production` and `LOG_REQUESTS=0` are set),
 *   plus `ENTRY` (another entry: `dist/main.js`, `bench/naive-gateway.ts`, …), `FLAGS` (node
 *   flags, space-separated), `PROF` (a directory for a --cpu-prof of that variant) and `TSX=1`
 *   (a .ts entry through the tsx loader; by default one runs as `npm start` runs its entry,
 *   through scripts/ts.mjs); ratios are to the first variant, on `BENCH_QUERY` (the 25-order
 *   page unless given), or on the pages of `BENCH_PAGES` when it is given.
 *
 * `BY_ID=1` (a variant's, or in the guard `BENCH_ENV`'s): the gateway runs a manifest holding
 * the measured query or pages (PERSISTED_DOCUMENTS, written by the bench) and is sent each
 * document's id instead of its text. The floor (`{"ENTRY":"bench/floor-gateway.ts"}`: node:http
 * + undici + JSON.parse, no GraphQL) is sent each page's `floor` query (bench/pages.ts; it
 * answers the narrow, catalog and product pages only). So
 * `'{"BY_ID":"1"}' '{"BY_ID":"1","COMPILED_DOCUMENTS":"0"}' '{"ENTRY":"bench/floor-gateway.ts"}'`
 * prices the compiled plans (src/gateway/compiled/) and sets them against the floor.
 *
 * Run: node scripts/ts.mjs bench/pairs.ts '{"ENTRY":"bench/naive-gateway.ts"}' '{}' '{"METRICS":"0"}'
 * (BENCH_BLOCK=500 requests per block, 300 in the guard; BENCH_BLOCKS=12, 8 in the guard;
 * BENCH_WARMUP=2000 per variant first, 500 per page in the guard; BENCH_MODE=rps: autocannon at
 * c=16 for BENCH_SECONDS=5 per block instead of serial CPU)
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from 'undici';
import {
  autocannon,
  freePort,
  median,
  percentile,
  processCpuMicros,
  startBenchService,
  waitUntil,
} from './lib.ts';
import { fillProductSlug, type Page, pagesOf, writeManifest } from './pages.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const given = process.argv.slice(2).map((arg) => JSON.parse(arg) as Record<string, string>);
const guard = given.length === 0;
const BLOCK = Number(process.env.BENCH_BLOCK ?? (guard ? 300 : 500));
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? (guard ? 8 : 12));
const WARMUP = Number(process.env.BENCH_WARMUP ?? (guard ? 500 : 2000));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const RPS = process.env.BENCH_MODE === 'rps';
const QUERY = process.env.BENCH_QUERY ?? '{ orders(first: 25) { edges { node { id status } } } }';

interface Variant {
  name: string;
  env: Record<string, string>;
  url: string;
  child: ChildProcess;
  client: Client;
  /** The request body per target: the query's text, its document's id (BY_ID), or the floor's. */
  bodies: Map<string, string>;
}

/** What is measured: one of the guard's (or BENCH_PAGES') pages, or BENCH_QUERY. */
interface Target {
  name: string;
  page: Page | undefined;
  /** The GraphQL query the gateways are sent (or, BY_ID, hold in their manifest). */
  query: string;
}

/** One variant's figures on one page, a value per block. */
interface Samples {
  values: number[];
  service: number[];
  latencies: number[];
}

function start(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** The files of `commit` under .cache/bench-base/<sha> (git archive, once), node_modules linked. */
function baseCheckout(commit: string): { sha: string; dir: string } {
  const git = (...args: string[]) => {
    const run = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr.trim()}`);
    return run.stdout.trim();
  };
  const sha = git('rev-parse', '--verify', `${commit}^{commit}`);
  const dir = join(root, '.cache', 'bench-base', sha);
  if (!existsSync(join(dir, 'src', 'main.ts'))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const tar = join(dir, '..', `${sha}.tar`);
    git('archive', '--format=tar', '-o', tar, sha);
    const untar = spawnSync('tar', ['-xf', tar, '-C', dir], { encoding: 'utf8' });
    rmSync(tar, { force: true });
    if (untar.status !== 0) throw new Error(`tar: ${untar.stderr}`);
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  }
  return { sha, dir };
}

function variantsToStart(): { name: string; env: Record<string, string> }[] {
  // Numbered: two processes of the same variant are measured apart.
  if (!guard) return given.map((env, i) => ({ name: `#${i + 1} ${JSON.stringify(env)}`, env }));
  const base = baseCheckout(process.env.BENCH_BASE ?? 'HEAD^');
  const extra = JSON.parse(process.env.BENCH_ENV ?? '{}') as Record<string, string>;
  return [
    { name: 'naive', env: { ENTRY: 'bench/naive-gateway.ts' } },
    {
      name: `base ${base.sha.slice(0, 7)}`,
      env: { ...extra, ENTRY: join(base.dir, 'src', 'main.ts') },
    },
    { name: 'this checkout', env: extra },
  ];
}

const toStart = variantsToStart();
const onPages = guard || process.env.BENCH_PAGES !== undefined;
const pages = onPages ? pagesOf(process.env.BENCH_PAGES ?? 'narrow,wide,catalog,product') : [];
const isFloor = (env: Record<string, string>) => (env.ENTRY ?? '').endsWith('floor-gateway.ts');
// The floor answers only the pages with a `floor` query: said before anything is started.
const noFloor = pages.filter((page) => page.query.floor === undefined).map((page) => page.key);
if (noFloor.length > 0 && toStart.some(({ env }) => isFloor(env))) {
  console.error(
    `bench/floor-gateway.ts answers no ${noFloor.join(', ')} page: only narrow, catalog and ` +
      'product (BENCH_PAGES=narrow,catalog,product)',
  );
  process.exit(2);
}
const { child: service, url: serviceUrl, token } = await startBenchService(start);
const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
if (onPages) await fillProductSlug(serviceUrl, token);
const targets: Target[] = onPages
  ? pages.map((page) => ({ name: `${page.key} (${page.name})`, page, query: page.query.relay }))
  : [{ name: 'query', page: undefined, query: QUERY }];
// BY_ID=1: the measured documents as a trusted-documents manifest, sent by id.
const manifest = toStart.some(({ env }) => env.BY_ID === '1')
  ? writeManifest(targets.map((target) => target.query))
  : undefined;

/** Each target's request body for a variant: text, id (BY_ID=1), or the floor's own query. */
function bodiesOf(env: Record<string, string>): Map<string, string> {
  const bodies = new Map<string, string>();
  for (const target of targets) {
    if (isFloor(env)) {
      // The floor reads its own form of each page (pages.ts; every page here has one, checked
      // above); BENCH_QUERY is sent as it is.
      const query = target.page === undefined ? target.query : target.page.query.floor;
      bodies.set(target.name, JSON.stringify({ query }));
    } else if (env.BY_ID === '1') {
      bodies.set(target.name, JSON.stringify({ documentId: manifest?.ids.get(target.query) }));
    } else {
      bodies.set(target.name, JSON.stringify({ query: target.query }));
    }
  }
  return bodies;
}

const variants: Variant[] = [];
for (const { name, env } of toStart) {
  const bodies = bodiesOf(env);
  const port = await freePort();
  const entry = env.ENTRY ?? 'src/main.ts';
  const flags = [
    ...(env.PROF ? ['--cpu-prof', `--cpu-prof-dir=${resolve(env.PROF)}`] : []),
    ...(env.FLAGS ? env.FLAGS.split(' ') : []),
  ];
  // A .ts entry as `npm start` runs one (scripts/ts.mjs); `TSX=1`: through the tsx loader.
  const args = entry.endsWith('.js')
    ? [...flags, entry]
    : env.TSX === '1'
      ? [...flags, '--import', 'tsx/esm', entry]
      : [...flags, 'scripts/ts.mjs', entry];
  const child = start(args, {
    PORT: String(port),
    HOST: '127.0.0.1',
    UPSTREAM_URL: serviceUrl,
    LOG_REQUESTS: '0',
    ...(env.BY_ID === '1' && manifest ? { PERSISTED_DOCUMENTS: manifest.file } : {}),
    ...env,
  });
  const url = `http://127.0.0.1:${port}`;
  const body = bodies.get(targets[0]?.name ?? '');
  await waitUntil(
    async () => (await fetch(`${url}/graphql`, { method: 'POST', headers, body })).status === 200,
    name,
  );
  variants.push({ name, env, url, child, client: new Client(url), bodies });
}

async function send(client: Client, body: string, page: Page | undefined): Promise<void> {
  const response = await client.request({ method: 'POST', path: '/graphql', headers, body });
  const text = await response.body.text();
  const full = page === undefined || text.split(page.count).length - 1 === page.size;
  if (response.statusCode !== 200 || text.includes('"errors"') || !full) {
    throw new Error(`unexpected answer: ${text.slice(0, 200)}`);
  }
}

const samples = new Map<string, Samples>();
const samplesOf = (variant: Variant, target: string): Samples => {
  const key = `${variant.name}\u0000${target}`;
  let found = samples.get(key);
  if (found === undefined) {
    found = { values: [], service: [], latencies: [] };
    samples.set(key, found);
  }
  return found;
};

const bodyOf = (variant: Variant, target: Target) => variant.bodies.get(target.name) as string;

for (const variant of variants) {
  for (const target of targets) {
    const body = bodyOf(variant, target);
    for (let i = 0; i < WARMUP; i += 1) await send(variant.client, body, target.page);
  }
}
const loads = [loadavg()[0] as number];
for (let block = 0; block < BLOCKS; block += 1) {
  const order = block % 2 === 0 ? variants : [...variants].reverse();
  for (const target of targets) {
    for (const variant of order) {
      const body = bodyOf(variant, target);
      const into = samplesOf(variant, target.name);
      if (RPS) {
        const run = await autocannon({
          url: `${variant.url}/graphql`,
          method: 'POST',
          headers,
          body,
          connections: 16,
          duration: SECONDS,
        });
        if (run.non2xx > 0 || run.errors > 0) throw new Error(`${run.non2xx} non-2xx answers`);
        into.values.push(run.requests.total / (run.duration || SECONDS));
        continue;
      }
      const pid = variant.child.pid as number;
      const before = processCpuMicros(pid);
      const serviceBefore = processCpuMicros(service.pid as number);
      for (let i = 0; i < BLOCK; i += 1) {
        const started = performance.now();
        await send(variant.client, body, target.page);
        into.latencies.push(performance.now() - started);
      }
      into.values.push((processCpuMicros(pid) - before) / BLOCK);
      into.service.push((processCpuMicros(service.pid as number) - serviceBefore) / BLOCK);
    }
  }
}
loads.push(loadavg()[0] as number);

const unit = RPS ? 'req/s at c=16' : 'CPU µs/req';
/** The median of the per-block ratios of `a` to `b`. */
const ratio = (a: Samples, b: Samples) =>
  median(a.values.map((value, i) => value / (b.values[i] as number)));
const ms = (value: number) => value.toFixed(2);
for (const target of targets) {
  if (onPages) console.log(`\n${target.name}`);
  const first = samplesOf(variants[0] as Variant, target.name);
  const last = samplesOf(variants[variants.length - 1] as Variant, target.name);
  for (const variant of variants) {
    const own = samplesOf(variant, target.name);
    const sorted = [...own.latencies].sort((a, b) => a - b);
    const latency = RPS
      ? ''
      : `, p50/p99 ${ms(percentile(sorted, 50))}/${ms(percentile(sorted, 99))} ms`;
    const service = RPS ? '' : `, service ${median(own.service).toFixed(0)} µs/req`;
    console.log(
      `  ${variant.name}: ${unit} ${median(own.values).toFixed(0)}, ${guard ? '×naive' : '×first'} ${ratio(own, first).toFixed(3)}` +
        `${latency}${service} [${own.values.map((v) => v.toFixed(0)).join(' ')}]`,
    );
  }
  if (guard) {
    const base = samplesOf(variants[1] as Variant, target.name);
    const p99 = (s: Samples) =>
      percentile(
        [...s.latencies].sort((a, b) => a - b),
        99,
      );
    console.log(
      `  this checkout: ×naive ${ratio(last, first).toFixed(3)}, ×base ${ratio(last, base).toFixed(3)}` +
        (RPS
          ? ''
          : `; p99 ×naive ${(p99(last) / p99(first)).toFixed(2)}, ×base ${(p99(last) / p99(base)).toFixed(2)}`),
    );
  }
}
console.log(
  `${BLOCKS} blocks of ${RPS ? `${SECONDS} s` : `${BLOCK} requests`}, Node ${process.version}, ` +
    `load average ${loads.map((l) => l.toFixed(2)).join('→')}`,
);
for (const variant of variants) {
  await variant.client.close();
  variant.child.kill('SIGTERM');
}
service.kill('SIGTERM');
