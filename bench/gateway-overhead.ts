/**
 * Gateway overhead: a 25-entry connection page through the gateway against the very GET the
 * gateway sends for it, straight to the commerce service — side by side in one run, same
 * concurrency, same token. The service and the gateway each run in their own process (this file
 * re-spawned with a role), so the load generator and the two servers do not share one event loop.
 *
 * Goal (issue 3): the gateway adds < 1 ms at p50 and keeps >= 60% of the direct throughput.
 *
 * Run: npx tsx bench/gateway-overhead.ts   (BENCH_SECONDS, BENCH_CONNECTIONS override)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
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
  const server = createServer(gateway);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  reportCpuOnRequest();
  // Exit (rather than die) on SIGTERM, so that --cpu-prof gets to write its profile.
  process.on('SIGTERM', () => process.exit(0));
  console.log(
    JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql` }),
  );
}

function spawnRole(
  role: string,
  ...args: string[]
): { child: ChildProcess; lines: AsyncIterator<string> } {
  // BENCH_PROFILE=dir writes a CPU profile of the gateway process there, to see where time goes.
  const profile =
    role === 'gateway' && process.env.BENCH_PROFILE
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
      : [];
  const child = spawn(
    process.execPath,
    [...profile, '--import', 'tsx', fileURLToPath(import.meta.url), role, ...args],
    {
      // As deployed: graphql-js skips its development-only instanceof checks in production.
      env: { ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'production' },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
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

/** Runs one load and returns it with the CPU each process spent per request. */
async function measure(
  name: string,
  options: Parameters<Autocannon>[0],
  roles: Role[],
): Promise<{ result: AutocannonResult; cpuPerRequest: number[] }> {
  process.stderr.write(`  ${name}: ${SECONDS}s at ${CONNECTIONS} connections…\n`);
  const before = await Promise.all(roles.map(cpuMs));
  const result = await autocannon(options);
  const after = await Promise.all(roles.map(cpuMs));
  const total = Math.max(1, result.requests.total);
  return {
    result,
    cpuPerRequest: after.map((a, i) => (a - (before[i] ?? 0)) / total),
  };
}

function fmt(n: number, digits = 2): string {
  return n.toFixed(digits).padStart(10);
}

async function main(): Promise<void> {
  const service = spawnRole('service');
  const serviceUrl = (await nextJson(service.lines)).url as string;
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: CLIENT.id,
    client_secret: CLIENT.secret,
  });
  const tokenResponse = await fetch(`${serviceUrl}/oauth/access_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  const token = ((await tokenResponse.json()) as { access_token: string }).access_token;
  const api = await rest(`${serviceUrl}/v2/settings/extensions/custom-apis`, token, {
    data: { type: 'custom_api', name: 'Bench', slug: 'bench', api_type: 'bench_ext' },
  });
  for (let i = 0; i < 60; i += 1) {
    await rest(`${serviceUrl}/v2/settings/extensions/custom-apis/${api.id}/entries`, token, {
      data: { type: api.api_type, name: `entry ${i}`, rank: i, tags: ['a', 'b'] },
    });
  }

  const gateway = spawnRole('gateway', serviceUrl);
  const gatewayUrl = (await nextJson(gateway.lines)).url as string;
  const query = JSON.stringify({
    query:
      process.env.BENCH_QUERY ??
      `query($api: ID!) { customApiEntries(customApiId: $api, first: 25) {
      totalCount pageInfo { hasNextPage endCursor }
      edges { cursor node { id upstreamId type attributes createdAt updatedAt etag } } } }`,
    variables: { api: api.id },
  });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const probe = await fetch(gatewayUrl, { method: 'POST', headers, body: query });
  const probeBody = (await probe.json()) as { data?: { customApiEntries?: { edges: unknown[] } } };
  if (!probeBody.data?.customApiEntries) {
    throw new Error(`gateway probe failed: ${JSON.stringify(probeBody).slice(0, 300)}`);
  }
  // The exact GET the gateway made for that page, replayed straight to the service.
  const directUrl = `${serviceUrl}${(await nextJson(service.lines)).entriesGet}`;

  const direct = {
    url: directUrl,
    headers: { authorization: `Bearer ${token}` },
    connections: CONNECTIONS,
  };
  const viaGateway = {
    url: gatewayUrl,
    method: 'POST',
    headers,
    body: query,
    connections: CONNECTIONS,
  };
  // Warm both paths (JIT, pools, SQLite statement cache), then measure side by side.
  await autocannon({ ...direct, duration: 2 });
  await autocannon({ ...viaGateway, duration: 2 });
  const dm = await measure('direct GET', { ...direct, duration: SECONDS }, [service]);
  const gm = await measure('gateway', { ...viaGateway, duration: SECONDS }, [service, gateway]);
  const d = dm.result;
  const g = gm.result;
  for (const [name, r] of [
    ['direct', d],
    ['gateway', g],
  ] as const) {
    if (r.non2xx > 0 || r.errors > 0) {
      throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    }
  }
  console.log(`\ngateway overhead: 25-entry page, ${CONNECTIONS} connections, ${SECONDS}s each\n`);
  console.log(
    `${'path'.padEnd(16)}${'req/s'.padStart(10)}${'p50 ms'.padStart(10)}${'p99 ms'.padStart(10)}`,
  );
  console.log(
    `${'direct GET'.padEnd(16)}${fmt(d.requests.average, 0)}${fmt(d.latency.p50)}${fmt(d.latency.p99)}`,
  );
  console.log(
    `${'gateway'.padEnd(16)}${fmt(g.requests.average, 0)}${fmt(g.latency.p50)}${fmt(g.latency.p99)}`,
  );
  const ratio = g.requests.average / d.requests.average;
  const addedP50 = g.latency.p50 - d.latency.p50;
  console.log(
    `\nthroughput kept: ${(ratio * 100).toFixed(1)}% (goal >= 60%)   ` +
      `added p50: ${addedP50.toFixed(2)} ms (goal < 1 ms)`,
  );

  const [serviceCpu = 0] = dm.cpuPerRequest;
  const [serviceCpuViaGateway = 0, gatewayCpu = 0] = gm.cpuPerRequest;
  console.log(
    `CPU per request: service ${serviceCpu.toFixed(3)} ms (direct), ` +
      `${serviceCpuViaGateway.toFixed(3)} ms (via gateway); gateway process ${gatewayCpu.toFixed(3)} ms`,
  );

  service.child.kill('SIGTERM');
  gateway.child.kill('SIGTERM');
}

const [role, arg] = process.argv.slice(2);
if (role === 'service') await runService();
else if (role === 'gateway') await runGateway(arg as string);
else await main();
