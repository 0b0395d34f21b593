/**
 * Gateway overhead: a 25-entry connection page through the gateway against the very GET the
 * gateway sends for it, straight to the commerce service — side by side in one run, same
 * concurrency, same token. The service and the gateway each run in their own process (this file
 * re-spawned with a role), so the load generator and the two servers do not share one event loop.
 *
 * Goal (issue 3): the gateway adds < 1 ms at p50 and keeps >= 60% of the direct throughput.
 *
 * Run: npx tsx bench/gateway-overhead.ts   (BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_RUNS,
 * BENCH_LATENCY_CONNECTIONS, BENCH_VARIANTS, BENCH_PROFILE override)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { fetchClientToken } from '../src/upstream/oauth.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const CLIENT = { id: 'bench', secret: 'bench-secret' };

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (options: {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  duration: number;
}) => Promise<AutocannonResult>;
// autocannon ships no types; this is the part of its API used here.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** A child answers each "cpu" line on stdin with its CPU time so far (ms, user + system). */
function reportCpuOnRequest(): void {
  createInterface({ input: process.stdin }).on('line', (line) => {
    if (line !== 'cpu') return;
    const { user, system } = process.cpuUsage();
    console.log(JSON.stringify({ cpuMs: String((user + system) / 1000) }));
  });
}

/** Role "service": the embedded v2 service; prints its URL and, once, the entries GETs it sees. */
async function runService(): Promise<void> {
  const { createCommerceService } = await import('../src/commerce-service/app.ts');
  const service = await createCommerceService({
    dbPath: ':memory:',
    clients: [CLIENT],
    seed: false,
  });
  let reported = 0;
  service.server.on('request', (req) => {
    if (reported < 1 && req.method === 'GET' && req.url?.includes('/entries?')) {
      reported += 1;
      console.log(JSON.stringify({ entriesGet: req.url }));
    }
  });
  await service.listen({ port: 0, host: '127.0.0.1' });
  reportCpuOnRequest();
  console.log(
    JSON.stringify({ url: `http://127.0.0.1:${(service.server.address() as AddressInfo).port}` }),
  );
}

/** Role "gateway": the gateway as `npm start` builds it (resilience, armor), logs off. */
async function runGateway(upstreamUrl: string): Promise<void> {
  const { createGateway } = await import('../src/gateway/create-gateway.ts');
  // BENCH_GATEWAY_OPTIONS (JSON) switches gateway options for experiments, e.g. {"resilience":false}.
  const extra = JSON.parse(process.env.BENCH_GATEWAY_OPTIONS ?? '{}') as Record<string, unknown>;
  const gateway = createGateway({ upstreamUrl, graphiql: false, ...extra });
  // BENCH_SOURCE_MAPS=off: what tsx's source-map support (on for every Error stack) costs.
  if (process.env.BENCH_SOURCE_MAPS === 'off') process.setSourceMapsEnabled(false);
  const server = createServer(gateway);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  reportCpuOnRequest();
  // Exit (rather than die) on SIGTERM, so that --cpu-prof gets to write its profile.
  process.on('SIGTERM', () => process.exit(0));
  console.log(
    JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql` }),
  );
}

/**
 * How a gateway process runs: 'tsx' loads the TypeScript sources through tsx (as `npm start`
 * does); 'js' runs this file precompiled by esbuild, to show what the tsx runtime costs.
 */
type Runtime = 'tsx' | 'js';

/** Bundles this file (dependencies external) so a role can run on plain node. */
async function buildJs(): Promise<string> {
  // esbuild comes with tsx; a string specifier keeps it out of the type check.
  const specifier = 'esbuild';
  const esbuild = (await import(specifier)) as {
    build(options: Record<string, unknown>): Promise<unknown>;
  };
  const outfile = fileURLToPath(
    new URL('../node_modules/.cache/bench/gateway-overhead.mjs', import.meta.url),
  );
  await esbuild.build({
    entryPoints: [fileURLToPath(import.meta.url)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile,
  });
  return outfile;
}

/**
 * Role "floor": reference servers that show what any gateway of this shape costs on the machine,
 * against which the real gateway's CPU is judged. Kind (BENCH_FLOOR):
 * - 'http-proxy': node:http + the same undici GET + JSON.parse + reshaping + JSON.stringify,
 *   no GraphQL at all: the least a translating gateway can do;
 * - 'yoga-hello': graphql-yoga answering `{ hello }`: Yoga's own per-request floor;
 * - 'yoga-proxy': graphql-yoga with one resolver making that same GET: Yoga + upstream, without
 *   Pothos, the planner, resilience or hardening.
 */
async function runFloor(upstreamUrl: string): Promise<void> {
  const kind = process.env.BENCH_FLOOR;
  const { Pool } = await import('undici');
  const { createSchema, createYoga } = await import('graphql-yoga');
  const pool = new Pool(upstreamUrl, { connections: 64 });
  const path = process.env.BENCH_FLOOR_PATH ?? '/';
  const fetchPage = async (authorization: string) => {
    const response = await pool.request({ method: 'GET', path, headers: { authorization } });
    const body = (await response.body.json()) as { data: Record<string, unknown>[] };
    return body.data.map((node) => ({ cursor: String(node.id), node }));
  };
  let handler: Parameters<typeof createServer>[1];
  if (kind === 'http-proxy') {
    handler = (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
        fetchPage(req.headers.authorization ?? '').then((edges) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ data: { customApiEntries: { edges } } }));
        });
      });
    };
  } else {
    handler = createYoga<{ req: { headers: Record<string, string | undefined> } }>({
      schema: createSchema({
        typeDefs: 'scalar JSON type Query { hello: String page: JSON }',
        resolvers: {
          Query: {
            hello: () => 'world',
            page: (
              _root: unknown,
              _args: unknown,
              context: { req: { headers: Record<string, string | undefined> } },
            ) => fetchPage(context.req.headers.authorization ?? '').then((edges) => ({ edges })),
          },
        },
      }),
      landingPage: false,
      graphiql: false,
      logging: false,
    });
  }
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  reportCpuOnRequest();
  process.on('SIGTERM', () => process.exit(0));
  console.log(
    JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql` }),
  );
}

function spawnRole(
  role: string,
  args: string[],
  script: { file: string; runtime: Runtime } = {
    file: fileURLToPath(import.meta.url),
    runtime: 'tsx',
  },
  env: Record<string, string> = {},
): { child: ChildProcess; lines: AsyncIterator<string> } {
  // BENCH_PROFILE=dir writes a CPU profile of the gateway process there, to see where time goes.
  const profile =
    role === 'gateway' && process.env.BENCH_PROFILE
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
      : [];
  const loader = script.runtime === 'tsx' ? ['--import', 'tsx/esm'] : [];
  const child = spawn(process.execPath, [...profile, ...loader, script.file, role, ...args], {
    // As deployed: graphql-js skips its development-only instanceof checks in production.
    env: { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'production', ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[
    Symbol.asyncIterator
  ]();
  return { child, lines };
}

async function nextJson(lines: AsyncIterator<string>): Promise<Record<string, string>> {
  for (;;) {
    const { value, done } = await lines.next();
    if (done) throw new Error('child exited early');
    if (value.startsWith('{')) return JSON.parse(value) as Record<string, string>;
  }
}

async function rest(
  url: string,
  token: string,
  body: unknown,
): Promise<{ id: string; api_type: string }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${url} → ${response.status}`);
  return ((await response.json()) as { data: { id: string; api_type: string } }).data;
}

type Role = ReturnType<typeof spawnRole>;

async function cpuMs(role: Role): Promise<number> {
  role.child.stdin?.write('cpu\n');
  return Number((await nextJson(role.lines)).cpuMs);
}

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  /** CPU ms per request of the service process, then of the gateway process (if any). */
  serviceCpu: number;
  gatewayCpu: number;
}

/** Runs one load and returns its figures with the CPU each process spent per request. */
async function measure(
  label: string,
  options: Parameters<Autocannon>[0],
  service: Role,
  gateway?: Role,
): Promise<Sample> {
  process.stderr.write(`  ${label}: ${options.duration}s at ${options.connections} connections…\n`);
  const roles = gateway ? [service, gateway] : [service];
  const before = await Promise.all(roles.map(cpuMs));
  const result = await autocannon(options);
  const after = await Promise.all(roles.map(cpuMs));
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${label}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  }
  const total = Math.max(1, result.requests.total);
  const perRequest = after.map((a, i) => (a - (before[i] ?? 0)) / total);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    serviceCpu: perRequest[0] ?? 0,
    gatewayCpu: perRequest[1] ?? 0,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function fmt(n: number, digits = 2, width = 10): string {
  return n.toFixed(digits).padStart(width);
}

/**
 * A gateway to measure. BENCH_VARIANTS (JSON array) puts several side by side in one run, each
 * in its own process against the same service, e.g.
 * `[{"name":"tsx"},{"name":"js","runtime":"js"},{"name":"no-breaker","options":{"resilience":false}}]`.
 * `script` runs another copy of this file (e.g. an older checkout) for a before/after;
 * `{"name":"yoga hello","floor":"yoga-hello"}` adds a reference server (see runFloor).
 */
interface Variant {
  name: string;
  /** Extra environment of its process, e.g. {"BENCH_SOURCE_MAPS":"off"}. */
  env?: Record<string, string>;
  /** A reference server instead of the gateway (see runFloor). */
  floor?: 'http-proxy' | 'yoga-hello' | 'yoga-proxy';
  runtime?: Runtime;
  options?: Record<string, unknown>;
  script?: string;
}

async function main(): Promise<void> {
  const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
  const latencyConnections = Number(process.env.BENCH_LATENCY_CONNECTIONS ?? 1);
  const variants = JSON.parse(process.env.BENCH_VARIANTS ?? '[{"name":"gateway"}]') as Variant[];
  const service = spawnRole('service', []);
  const serviceUrl = (await nextJson(service.lines)).url as string;
  const token = await fetchClientToken(serviceUrl, CLIENT);
  const api = await rest(`${serviceUrl}/v2/settings/extensions/custom-apis`, token, {
    data: { type: 'custom_api', name: 'Bench', slug: 'bench', api_type: 'bench_ext' },
  });
  for (let i = 0; i < 60; i += 1) {
    await rest(`${serviceUrl}/v2/settings/extensions/custom-apis/${api.id}/entries`, token, {
      data: { type: api.api_type, name: `entry ${i}`, rank: i, tags: ['a', 'b'] },
    });
  }

  const js = variants.some((v) => v.runtime === 'js') ? await buildJs() : undefined;
  const spawnVariant = async (variant: Variant, directPath?: string) => {
    const script =
      variant.runtime === 'js'
        ? { file: js as string, runtime: 'js' as const }
        : { file: variant.script ?? fileURLToPath(import.meta.url), runtime: 'tsx' as const };
    const role = spawnRole(variant.floor ? 'floor' : 'gateway', [serviceUrl], script, {
      BENCH_GATEWAY_OPTIONS: JSON.stringify(variant.options ?? {}),
      BENCH_FLOOR: variant.floor ?? '',
      BENCH_FLOOR_PATH: directPath ?? '',
      ...variant.env,
    });
    return { variant, role, url: (await nextJson(role.lines)).url as string };
  };
  const gateways: { variant: Variant; role: Role; url: string }[] = [];
  for (const variant of variants.filter((v) => !v.floor))
    gateways.push(await spawnVariant(variant));
  if (gateways.length === 0) throw new Error('BENCH_VARIANTS needs at least one real gateway');
  const query = JSON.stringify({
    query:
      process.env.BENCH_QUERY ??
      `query($api: ID!) { customApiEntries(customApiId: $api, first: 25) {
      totalCount pageInfo { hasNextPage endCursor }
      edges { cursor node { id upstreamId type attributes createdAt updatedAt etag } } } }`,
    variables: { api: api.id },
  });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  let directPath: string | undefined;
  for (const gateway of gateways) {
    const probe = await fetch(gateway.url, { method: 'POST', headers, body: query });
    const probeBody = (await probe.json()) as {
      data?: { customApiEntries?: { edges: unknown[] } };
    };
    if (probeBody.data?.customApiEntries?.edges.length !== 25) {
      throw new Error(`gateway probe failed: ${JSON.stringify(probeBody).slice(0, 300)}`);
    }
    // The exact GET the gateway made for that page, replayed straight to the service.
    directPath ??= (await nextJson(service.lines)).entriesGet;
  }
  // Reference servers make that same GET, so they start once it is known.
  for (const variant of variants.filter((v) => v.floor)) {
    gateways.push(await spawnVariant(variant, directPath));
  }
  gateways.sort((a, b) => variants.indexOf(a.variant) - variants.indexOf(b.variant));
  const bodyOf = (variant: Variant): string =>
    variant.floor === 'yoga-hello'
      ? JSON.stringify({ query: '{ hello }' })
      : variant.floor === 'yoga-proxy'
        ? JSON.stringify({ query: '{ page }' })
        : query;

  const direct = {
    url: `${serviceUrl}${directPath}`,
    headers: { authorization: `Bearer ${token}` },
  };
  const viaGateway = (g: { url: string; variant: Variant }) => ({
    url: g.url,
    method: 'POST',
    headers,
    body: bodyOf(g.variant),
  });
  // Warm every path (JIT, pools, SQLite statement cache) before anything is measured.
  await autocannon({ ...direct, connections: CONNECTIONS, duration: 2 });
  for (const g of gateways) {
    await autocannon({ ...viaGateway(g), connections: CONNECTIONS, duration: 2 });
  }

  // Every run measures direct and each gateway back to back, at the throughput concurrency and
  // at the latency concurrency; the gateways' order alternates so drift favours none.
  const names = ['direct GET', ...gateways.map((g) => g.variant.name)];
  const loaded = new Map<string, Sample[]>(names.map((n) => [n, []]));
  const idle = new Map<string, Sample[]>(names.map((n) => [n, []]));
  const loads: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    loads.push(loadavg()[0] as number);
    process.stderr.write(`run ${run + 1}/${runs} (load average ${loadavg()[0]?.toFixed(2)})\n`);
    const order = run % 2 === 0 ? gateways : [...gateways].reverse();
    for (const [connections, into] of [
      [CONNECTIONS, loaded],
      [latencyConnections, idle],
    ] as const) {
      const duration = into === loaded ? SECONDS : Math.max(1, Math.round(SECONDS / 2));
      into
        .get('direct GET')
        ?.push(await measure('direct GET', { ...direct, connections, duration }, service));
      for (const g of order) {
        const options = { ...viaGateway(g), connections, duration };
        into.get(g.variant.name)?.push(await measure(g.variant.name, options, service, g.role));
      }
    }
  }
  loads.push(loadavg()[0] as number);

  const med = (samples: Sample[] | undefined, key: keyof Sample) =>
    median((samples ?? []).map((s) => s[key]));
  const width = Math.max(12, ...names.map((n) => n.length + 2));
  console.log(
    `\ngateway overhead: 25-entry page, medians of ${runs} runs of ${SECONDS}s each; ` +
      `1-min load average ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)} ` +
      `(${cpus().length} CPUs, node ${process.version})`,
  );
  for (const [connections, samples] of [
    [CONNECTIONS, loaded],
    [latencyConnections, idle],
  ] as const) {
    console.log(`\n${connections} connection${connections === 1 ? '' : 's'}:`);
    console.log(
      `${'path'.padEnd(width)}${'req/s'.padStart(8)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}` +
        `${'mean ms'.padStart(9)}${'kept'.padStart(7)}${'+p50 ms'.padStart(9)}${'+mean'.padStart(7)}` +
        `${'svc CPU'.padStart(9)}${'gw CPU'.padStart(8)}  (CPU ms per request)`,
    );
    const base = samples.get('direct GET') ?? [];
    for (const name of names) {
      const own = samples.get(name) ?? [];
      // Ratios are taken within a run (direct and gateway back to back), then the median.
      const kept = median(own.map((s, i) => s.rps / (base[i]?.rps ?? s.rps)));
      const addedP50 = median(own.map((s, i) => s.p50 - (base[i]?.p50 ?? s.p50)));
      // Mean latency by Little's law (closed loop: connections / throughput); autocannon's
      // percentiles have whole-millisecond resolution, too coarse for a < 1 ms goal.
      const mean = (s: Sample) => (connections * 1000) / s.rps;
      const addedMean = median(own.map((s, i) => mean(s) - mean(base[i] ?? s)));
      const isDirect = name === 'direct GET';
      console.log(
        `${name.padEnd(width)}${fmt(med(own, 'rps'), 0, 8)}${fmt(med(own, 'p50'), 1, 8)}` +
          `${fmt(med(own, 'p99'), 1, 8)}${fmt(median(own.map(mean)), 2, 9)}` +
          `${isDirect ? '       ' : `${fmt(kept * 100, 0, 6)}%`}` +
          `${isDirect ? '                ' : `${fmt(addedP50, 1, 9)}${fmt(addedMean, 2, 7)}`}` +
          `${fmt(med(own, 'serviceCpu'), 3, 9)}${isDirect ? '' : fmt(med(own, 'gatewayCpu'), 3, 8)}`,
      );
    }
  }
  console.log(
    '\ngoal (issue 3): kept >= 60% of direct req/s, +p50 < 1 ms (p50/p99 in whole ms, ' +
      'mean = connections / req/s)',
  );

  service.child.kill('SIGTERM');
  for (const g of gateways) g.role.child.kill('SIGTERM');
}

const [role, arg] = process.argv.slice(2);
if (role === 'service') await runService();
else if (role === 'gateway') await runGateway(arg as string);
else if (role === 'floor') await runFloor(arg as string);
else await main();
