/**
 * Listing cost at scale: seeds 1,000,000 entries of one Custom API (bulk SQL, one transaction,
 * temp-file database), starts the commerce service on port 0 and measures, over real HTTP and
 * one request at a time, the latency of:
 *   - the first page,
 *   - the page at offset 9,900 (the deepest offset page most clients ever ask for),
 *   - a keyset page deep in the set: sort=created_at&filter=gt(created_at,<value near the end>),
 *   - a keyset page in the middle, whose filtered results.total has to count ~500,000 rows.
 * Prints p50 and p99 per scenario, then, timed separately in process, the page query, the plain
 * count(*) of the filter and the prefix ladder's count (ladder.ts: what the service answers
 * results.total with). `BENCH_ENTRIES` and `BENCH_REQUESTS` override the sizes. Progress
 * (seeding, then each scenario) goes to stderr every few seconds.
 *
 * Run: npx tsx bench/service-listing.ts
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createCommerceService } from '../src/commerce-service/app.ts';
import { openDatabase } from '../src/commerce-service/db.ts';
import { listLadder, loadWithoutLadder, rank } from '../src/commerce-service/ladder.ts';
import { parseListQuery, standardListSpec } from '../src/commerce-service/listing/parse.ts';
import { buildListSql } from '../src/commerce-service/listing/sql.ts';
import { ensureStores } from '../src/commerce-service/stores.ts';
import { fetchClientToken } from '../src/upstream/oauth.ts';
import { progress } from './lib.ts';

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const WARMUP = 20;
const CLIENT = { id: 'bench', secret: 'bench-secret' };
/** Entries per millisecond: several share each created_at, as in bulk imports. */
const PER_MS = 4;
const START = Date.parse('2024-01-01T00:00:00.000Z');

const createdAt = (i: number) => new Date(START + Math.floor(i / PER_MS)).toISOString();

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-service-listing-'));
  const dbPath = join(dir, 'bench.db');

  // Bulk load before the service starts (a synchronous load would stall its sockets): one
  // prepared statement in one transaction, with a page cache large enough to hold the indexes.
  const shown = progress('service-listing');
  shown.step(`seeding ${ENTRIES.toLocaleString('en')} entries`);
  const seedStart = performance.now();
  const seedCpu = process.cpuUsage();
  const db = openDatabase(dbPath);
  db.pragma('cache_size = -1000000');
  // A throwaway database: no crash safety needed while loading, WAL again before serving.
  db.pragma('journal_mode = MEMORY');
  db.pragma('synchronous = OFF');
  const now = new Date().toISOString();
  const [storeId = ''] = ensureStores(db, [CLIENT], now);
  const apiId = randomUUID();
  db.prepare(
    `INSERT INTO custom_apis (id, store_id, name, slug, api_type, created_at, updated_at)
     VALUES (?, ?, 'Bench', 'bench', 'bench_ext', ?, ?)`,
  ).run(apiId, storeId, now, now);
  const insert = db.prepare(
    `INSERT INTO custom_api_entries (store_id, custom_api_id, id, data, data_size,
       resource_version, etag_id, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)`,
  );
  // A bulk load, as the seed does it: the prefix ladder is counted once afterwards instead of
  // by its triggers on every row.
  db.transaction(() =>
    loadWithoutLadder(db, storeId, ['custom_api_entries'], () => {
      for (let i = 0; i < ENTRIES; i++) {
        const name = `Entry ${i}`;
        const count = i % 50;
        const data = JSON.stringify({ name, items_count: count });
        const at = createdAt(i);
        const id = randomUUID();
        insert.run(storeId, apiId, id, data, name.length + String(count).length, id, at, at);
        if (i % 4096 === 0) {
          shown.tick(() => `${i.toLocaleString('en')} of ${ENTRIES.toLocaleString('en')} entries`);
        }
      }
      shown.step('all entries in; counting the prefix ladder');
    }),
  )();
  db.pragma('journal_mode = WAL');
  db.close();
  const seedSeconds = (performance.now() - seedStart) / 1000;
  const cpu = process.cpuUsage(seedCpu);
  const seedCpuSeconds = (cpu.user + cpu.system) / 1e6;

  const app = await createCommerceService({ dbPath, clients: [CLIENT], seed: false });
  try {
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const token = await fetchClientToken(url, CLIENT);
    const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };

    const base = `${url}/v2/extensions/bench`;
    const nearEnd = createdAt(ENTRIES - 1_000);
    const middle = createdAt(Math.floor(ENTRIES / 2));
    const scenarios: [string, string][] = [
      ['first page (sort=created_at)', `${base}?sort=created_at&page[limit]=25`],
      [
        'offset 9,900 (sort=created_at)',
        `${base}?sort=created_at&page[limit]=25&page[offset]=9900`,
      ],
      [
        'keyset near the end',
        `${base}?sort=created_at&page[limit]=25&filter=${encodeURIComponent(`gt(created_at,${nearEnd})`)}`,
      ],
      [
        'keyset in the middle',
        `${base}?sort=created_at&page[limit]=25&filter=${encodeURIComponent(`gt(created_at,${middle})`)}`,
      ],
    ];

    console.log(
      `${ENTRIES.toLocaleString('en')} entries seeded in ${seedSeconds.toFixed(1)} s ` +
        `(${seedCpuSeconds.toFixed(1)} s CPU); ` +
        `${REQUESTS} sequential requests per scenario after ${WARMUP} warm-up requests`,
    );
    console.log(
      `${'scenario'.padEnd(34)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}  results.total`,
    );
    for (const [name, target] of scenarios) {
      const times: number[] = [];
      let total = 0;
      shown.step(`measuring "${name}": ${WARMUP + REQUESTS} requests`);
      for (let i = 0; i < WARMUP + REQUESTS; i++) {
        shown.tick(() => `"${name}": ${i} of ${WARMUP + REQUESTS} requests`);
        const start = performance.now();
        const response = await fetch(target, { headers });
        const body = (await response.json()) as {
          data: unknown[];
          meta: { results: { total: number } };
        };
        const elapsed = performance.now() - start;
        if (response.status !== 200 || body.data.length !== 25) {
          throw new Error(`${name}: HTTP ${response.status}, ${body.data?.length} rows`);
        }
        total = body.meta.results.total;
        if (i >= WARMUP) times.push(elapsed);
      }
      times.sort((a, b) => a - b);
      console.log(
        `${name.padEnd(34)}${percentile(times, 50).toFixed(2).padStart(9)}` +
          `${percentile(times, 99).toFixed(2).padStart(9)}  ${total.toLocaleString('en')}`,
      );
    }

    // Where the time of a filtered list goes: the page itself is an index seek; a plain
    // count(*) visits every matching row, the ladder's count (total minus the rank of the
    // bound) a few ladder rows. Timed in process on a second connection.
    shown.step('timing the SQL in process');
    const reader = openDatabase(dbPath);
    const spec = standardListSpec();
    const scope = { store_id: storeId, custom_api_id: apiId };
    const ladder = listLadder(reader, 'custom_api_entries', scope);
    if (!ladder) throw new Error('custom_api_entries has no prefix ladder');
    console.log(`\nSQL only (in process, p50 of ${REQUESTS}):`);
    console.log(
      `${'filter'.padEnd(34)}${'page ms'.padStart(9)}${'count ms'.padStart(9)}` +
        `${'ladder ms'.padStart(10)}`,
    );
    for (const [name, value] of [
      ['keyset near the end', nearEnd],
      ['keyset in the middle', middle],
    ] as const) {
      const query = parseListQuery(
        { sort: 'created_at', 'page[limit]': '25', filter: `gt(created_at,${value})` },
        spec,
        25,
      );
      const built = buildListSql('custom_api_entries', '*', scope, query);
      const page = reader.prepare(built.sql);
      const count = reader.prepare(built.countSql).pluck();
      const pageTimes: number[] = [];
      const countTimes: number[] = [];
      const ladderTimes: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        let start = performance.now();
        page.all(...built.params);
        pageTimes.push(performance.now() - start);
        start = performance.now();
        const counted = Number(count.get(...built.countParams));
        countTimes.push(performance.now() - start);
        start = performance.now();
        const laddered = ENTRIES - rank(ladder, 'created_at', value, true);
        ladderTimes.push(performance.now() - start);
        if (laddered !== counted) throw new Error(`${name}: ladder ${laddered}, count ${counted}`);
      }
      pageTimes.sort((a, b) => a - b);
      countTimes.sort((a, b) => a - b);
      ladderTimes.sort((a, b) => a - b);
      console.log(
        `${name.padEnd(34)}${percentile(pageTimes, 50).toFixed(2).padStart(9)}` +
          `${percentile(countTimes, 50).toFixed(2).padStart(9)}` +
          `${percentile(ladderTimes, 50).toFixed(2).padStart(10)}`,
      );
    }
    reader.close();
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
