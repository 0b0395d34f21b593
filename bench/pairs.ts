/**
 * Side-by-side CPU of gateway variants, for one change at a time: the same embedded service
 * (its own process, demo store), one process per variant, and interleaved blocks of serial
 * requests (the order reversed every block). Each block's CPU per request is read from
 * /proc for the variant's process (and the service's); printed are the medians and the median
 * of the per-block ratios to the first variant. On a shared 2-core machine a single run of
 * peers moves 10–40%; blocks taken back to back see the same machine.
 *
 * Every argument is one variant: a JSON object of environment variables for `src/main.ts`
 * (`UPSTREAM_URL`, `PORT`, `NODE_ENV=production` and `LOG_REQUESTS=0` are set), plus `ENTRY`
 * (another entry: `dist/main.js`, `bench/naive-gateway.ts`, …), `FLAGS`
 * (node flags, space-separated), `PROF` (a directory for a --cpu-prof of that variant) and
 * `TSX=1` (a .ts entry through the tsx loader; by default one runs as `npm start` runs its entry,
 * through scripts/ts.mjs). `BY_ID=1`: the variant runs a manifest holding BENCH_QUERY
 * (PERSISTED_DOCUMENTS, written by the bench) and is sent the document's id instead of its text;
 * with it, `{"BY_ID":"1"}` against `{"BY_ID":"1","COMPILED_DOCUMENTS":"0"}` prices the compiled
 * plans (src/gateway/compiled/) and `{"ENTRY":"bench/floor-gateway.ts"}` gives the floor.
 *
 * Run: npx tsx bench/pairs.ts '{"ENTRY":"bench/naive-gateway.ts"}' '{}' '{"METRICS":"0"}'
 * (BENCH_BLOCK=500 requests per block, BENCH_BLOCKS=12, BENCH_WARMUP=2000 per variant first,
 * BENCH_QUERY=the 25-order page, BENCH_MODE=rps: autocannon at c=16 for BENCH_SECONDS=5 per
 * block instead of serial CPU)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'undici';
import {
  autocannon,
  freePort,
  median,
  processCpuMicros,
  startBenchService,
  waitUntil,
} from './lib.ts';

const BLOCK = Number(process.env.BENCH_BLOCK ?? 500);
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 12);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const QUERY = process.env.BENCH_QUERY ?? '{ orders(first: 25) { edges { node { id status } } } }';

interface Variant {
  env: Record<string, string>;
  /** The request body: the query's text, or (BY_ID) its trusted document's id. */
  body: string;
  url: string;
  child: ChildProcess;
  client: Client;
  samples: number[];
  service: number[];
}

function start(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, args, {
    env: { ...process.env, NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

const variantsEnv = process.argv.slice(2).map((arg) => JSON.parse(arg) as Record<string, string>);
if (variantsEnv.length === 0) {
  console.error('give each variant as a JSON object of environment variables (see the header)');
  process.exit(2);
}
const { child: service, url: serviceUrl, token } = await startBenchService(start);
const textBody = JSON.stringify({ query: QUERY });
const idBody = JSON.stringify({ documentId: 'bench-query' });
const manifestDir = mkdtempSync(join(tmpdir(), 'pairs-manifest-'));
const manifest = join(manifestDir, 'manifest.json');
writeFileSync(manifest, JSON.stringify({ 'bench-query': QUERY }));
const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };

const variants: Variant[] = [];
for (const env of variantsEnv) {
  const port = await freePort();
  const entry = env.ENTRY ?? 'src/main.ts';
  const flags = [
    ...(env.PROF ? ['--cpu-prof', `--cpu-prof-dir=${env.PROF}`] : []),
    ...(env.FLAGS ? env.FLAGS.split(' ') : []),
  ];
  // A .ts entry as `npm start` runs one (scripts/ts.mjs); `TSX=1`: through the tsx loader.
  const args = entry.endsWith('.js')
    ? [...flags, entry]
    : env.TSX === '1'
      ? [...flags, '--import', 'tsx/esm', entry]
      : [...flags, 'scripts/ts.mjs', entry];
  const byId = env.BY_ID === '1';
  const body = byId ? idBody : textBody;
  const child = start(args, {
    PORT: String(port),
    HOST: '127.0.0.1',
    UPSTREAM_URL: serviceUrl,
    LOG_REQUESTS: '0',
    ...(byId ? { PERSISTED_DOCUMENTS: manifest } : {}),
    ...env,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntil(
    async () => (await fetch(`${url}/graphql`, { method: 'POST', headers, body })).status === 200,
    JSON.stringify(env),
  );
  variants.push({ env, body, url, child, client: new Client(url), samples: [], service: [] });
}

async function send(variant: Variant): Promise<void> {
  const response = await variant.client.request({
    method: 'POST',
    path: '/graphql',
    headers,
    body: variant.body,
  });
  const text = await response.body.text();
  if (response.statusCode !== 200 || text.includes('"errors"')) {
    throw new Error(`unexpected answer: ${text.slice(0, 200)}`);
  }
}

for (const variant of variants) {
  for (let i = 0; i < WARMUP; i += 1) await send(variant);
}
const loads = [loadavg()[0] as number];
for (let block = 0; block < BLOCKS; block += 1) {
  const order = block % 2 === 0 ? variants : [...variants].reverse();
  for (const variant of order) {
    if (process.env.BENCH_MODE === 'rps') {
      const run = await autocannon({
        url: `${variant.url}/graphql`,
        method: 'POST',
        headers,
        body: variant.body,
        connections: 16,
        duration: SECONDS,
      });
      if (run.non2xx > 0 || run.errors > 0) throw new Error(`${run.non2xx} non-2xx answers`);
      variant.samples.push(run.requests.total / (run.duration || SECONDS));
      continue;
    }
    const pid = variant.child.pid as number;
    const before = processCpuMicros(pid);
    const serviceBefore = processCpuMicros(service.pid as number);
    for (let i = 0; i < BLOCK; i += 1) await send(variant);
    variant.samples.push((processCpuMicros(pid) - before) / BLOCK);
    variant.service.push((processCpuMicros(service.pid as number) - serviceBefore) / BLOCK);
  }
}
loads.push(loadavg()[0] as number);

const unit = process.env.BENCH_MODE === 'rps' ? 'req/s at c=16' : 'CPU µs/req';
const first = variants[0] as Variant;
for (const variant of variants) {
  const ratios = variant.samples.map((value, i) => value / (first.samples[i] as number));
  const service =
    variant.service.length > 0 ? `, service ${median(variant.service).toFixed(0)} µs/req` : '';
  console.log(
    `${JSON.stringify(variant.env)}: ${unit} ${median(variant.samples).toFixed(0)}, ` +
      `×first ${median(ratios).toFixed(3)}${service} [${variant.samples.map((v) => v.toFixed(0)).join(' ')}]`,
  );
}
console.log(
  `${BLOCKS} blocks, Node ${process.version}, load average ${loads.map((l) => l.toFixed(2)).join('→')}`,
);
for (const variant of variants) {
  await variant.client.close();
  variant.child.kill('SIGTERM');
}
service.kill('SIGTERM');
