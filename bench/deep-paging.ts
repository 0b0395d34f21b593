/**
 * Deep pagination through the gateway: seeds 100,000 orders (the deterministic demo seed, bulk
 * SQL in one transaction, temp-file database), starts the commerce service and the gateway on
 * port 0 and, one GraphQL request at a time over real HTTP:
 *   1. walks the whole `orders` connection at `first: 1000` (created_at), timing every page, and
 *      reports the median page latency of the early pages (offset from the front), the deep
 *      pages (keyset past offset 10,000) and the last pages (offset from the back), and the
 *      total walk time; `BENCH_WALKS` walks (default 3), medians across them;
 *   2. in the offset region, `first: 500` against `first: 100` at the same positions, alternated,
 *      median wall time of each and their ratio (sequential fetching would make it ~5; the goal
 *      is at most 1.5), with the service answering at once and with 20 ms of added latency.
 * The commerce service runs in a child process, as an upstream would: the gateway's parallel
 * page fetches can only overlap when the upstream's work happens elsewhere (in one process the
 * event loop would serialise them). `BENCH_ORDERS`, `BENCH_WALKS`, `BENCH_SIZE_RUNS`,
 * `BENCH_LATENCIES` (ms, comma-separated) and `BENCH_CONCURRENCY` (the planner's; default 10)
 * override the defaults. The gateway runs with NODE_ENV=production, as deployed.
 * Run: npx tsx bench/deep-paging.ts
 */
import { fork, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createCommerceService } from '../src/commerce-service/app.ts';
import { openDatabase } from '../src/commerce-service/db.ts';
import { seedDemoStore } from '../src/commerce-service/seed/index.ts';
import { ensureStores } from '../src/commerce-service/stores.ts';
import { createGateway } from '../src/gateway/create-gateway.ts';
import { createRequestListener } from '../src/gateway/fast-path.ts';
import { fetchClientToken } from '../src/upstream/oauth.ts';
import { DEFAULT_PAGING_LIMITS } from '../src/upstream/paging/plan.ts';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 100_000);
const WALKS = Number(process.env.BENCH_WALKS ?? 3);
const SIZE_RUNS = Number(process.env.BENCH_SIZE_RUNS ?? 15);
/**
 * Upstream latencies for the size comparison: 0 (the service on this machine) and 20 ms, added
 * by the service before it answers, as a remote upstream's network and queueing would.
 */
const LATENCIES = (process.env.BENCH_LATENCIES ?? '0,20').split(',').map(Number);
const CLIENT = { id: 'bench', secret: 'bench-secret' };

const QUERY = `query($first: Int, $after: String) {
  orders(first: $first, after: $after, sortKey: CREATED_AT) {
    pageInfo { hasNextPage endCursor }
    edges { node { upstreamId createdAt } }
  }
}`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-deep-paging-'));
  const dbPath = join(dir, 'bench.db');
  const seedStart = performance.now();
  const db = openDatabase(dbPath);
  const [storeId = ''] = ensureStores(db, [CLIENT], new Date().toISOString());
  seedDemoStore(db, storeId, { orders: ORDERS });
  db.close();
  console.log(`seeded ${ORDERS} orders in ${ms(performance.now() - seedStart)}`);

  const child = fork('scripts/ts.mjs', [fileURLToPath(import.meta.url), '--service', dbPath]);
  const serviceUrl = await new Promise<string>((resolve, reject) => {
    child.once('message', (message) => resolve(String(message)));
    child.once('exit', (code) => reject(new Error(`service exited with ${code}`)));
  });
  const concurrency = process.env.BENCH_CONCURRENCY;
  const gateway = createGateway({
    upstreamUrl: serviceUrl,
    graphiql: false,
    logger: false,
    ...(concurrency ? { paging: { concurrency: Number(concurrency) } } : {}),
  });
  // The listener main.ts serves with (the node:http fast path for JSON POSTs).
  const server = createServer(createRequestListener(gateway));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const gatewayUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  try {
    const token = await fetchClientToken(serviceUrl, CLIENT);
    const page = async (first: number, after: string | null) => {
      const started = performance.now();
      const response = await fetch(gatewayUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: QUERY, variables: { first, after } }),
      });
      const body = (await response.json()) as {
        data?: {
          orders: {
            pageInfo: { hasNextPage: boolean; endCursor: string | null };
            edges: unknown[];
          };
        };
        errors?: unknown;
      };
      if (!body.data) throw new Error(`page failed: ${JSON.stringify(body.errors)}`);
      return { ms: performance.now() - started, ...body.data.orders };
    };

    const setLatency = (latency: number) =>
      new Promise<void>((resolve) => {
        child.once('message', () => resolve());
        child.send({ latency });
      });

    // 1. Full walks at first: 1000.
    const early: number[] = [];
    const deep: number[] = [];
    const back: number[] = [];
    const totals: number[] = [];
    for (let walk = 0; walk < WALKS; walk++) {
      const started = performance.now();
      let after: string | null = null;
      let seen = 0;
      for (let index = 0; ; index++) {
        const result = await page(1000, after);
        const start = index * 1000;
        if (start + 1000 <= 10_000) early.push(result.ms);
        else if (start >= ORDERS - 10_000) back.push(result.ms);
        else deep.push(result.ms);
        seen += result.edges.length;
        after = result.pageInfo.endCursor;
        if (!result.pageInfo.hasNextPage) break;
      }
      if (seen !== ORDERS) throw new Error(`walk saw ${seen} orders, expected ${ORDERS}`);
      totals.push(performance.now() - started);
    }
    if (WALKS > 0) {
      console.log(`\nfull walk of ${ORDERS} orders at first: 1000 (${WALKS} walks, medians)`);
      console.table({
        'early pages (offset, < 10,000)': {
          pages: early.length,
          'median latency': ms(median(early)),
        },
        'deep pages (keyset)': { pages: deep.length, 'median latency': ms(median(deep)) },
        'last pages (offset from the back)': {
          pages: back.length,
          'median latency': ms(median(back)),
        },
        'whole walk': {
          pages: early.length + deep.length + back.length,
          'median latency': ms(median(totals)),
        },
      });
      console.log(`deep / early page latency: ${(median(deep) / median(early)).toFixed(2)}`);
    }

    // 2. first: 500 vs first: 100 in the offset region, alternated at the same positions.
    const cursors: (string | null)[] = [null];
    let after: string | null = null;
    for (let i = 0; i < 8; i++) {
      after = (await page(1000, after)).pageInfo.endCursor;
      cursors.push(after);
    }
    const rows: Record<string, Record<string, string>> = {};
    for (const latency of LATENCIES) {
      await setLatency(latency);
      const t100: number[] = [];
      const t500: number[] = [];
      for (let run = 0; run < SIZE_RUNS; run++) {
        for (const cursor of cursors) {
          t100.push((await page(100, cursor)).ms);
          t500.push((await page(500, cursor)).ms);
        }
      }
      rows[`upstream +${latency} ms`] = {
        'first: 100 (1 call)': ms(median(t100)),
        [`first: 500 (5 calls, ${Math.min(5, Number(concurrency ?? DEFAULT_PAGING_LIMITS.concurrency))} in flight)`]:
          ms(median(t500)),
        ratio: (median(t500) / median(t100)).toFixed(2),
      };
    }
    await setLatency(0);
    console.log(
      `\noffset region, ${cursors.length} positions alternated, ${SIZE_RUNS} rounds (medians; goal: ratio <= 1.5)`,
    );
    console.table(rows);
  } finally {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    await gateway.dispose();
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The child: the commerce service alone, its URL sent to the parent. */
async function serve(dbPath: string): Promise<void> {
  const service = await createCommerceService({ dbPath, clients: [CLIENT], seed: false });
  let latency = 0;
  service.addHook('onRequest', async () => {
    if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));
  });
  process.on('message', (message: { latency: number }) => {
    latency = message.latency;
    process.send?.('ok');
  });
  const url = await service.listen({ port: 0, host: '127.0.0.1' });
  process.on('SIGTERM', () => {
    void service.close().then(() => process.exit(0));
  });
  process.send?.(url);
}

if (process.argv[2] === '--service') await serve(process.argv[3] as string);
else if (process.env.NODE_ENV !== 'production') {
  // graphql-js reads NODE_ENV when it loads (its development-mode checks cost ~5% of the
  // gateway's CPU here), so run again as production runs, with the variable set from the start.
  const again = [...process.execArgv, 'scripts/ts.mjs', ...process.argv.slice(1)];
  const rerun = spawnSync(process.execPath, again, {
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: 'inherit',
  });
  process.exit(rerun.status ?? 1);
} else await main();
