/**
 * `npm run bench [name…]`: runs the benchmarks one after another, each in its own process so
 * that one benchmark's heap and sockets never colour the next one's figures. Without names it
 * runs them all; benchmarks are never part of `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCHES = ['service-listing', 'gateway-overhead', 'deep-paging', 'faults'] as const;

const here = dirname(fileURLToPath(import.meta.url));
const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !(BENCHES as readonly string[]).includes(name));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${BENCHES.join(', ')}`);
  process.exit(2);
}

let failed = 0;
for (const name of requested.length > 0 ? requested : BENCHES) {
  const file = join(here, `${name}.ts`);
  if (!existsSync(file)) {
    console.error(`bench/${name}.ts is missing`);
    failed += 1;
    continue;
  }
  console.log(`\n=== ${name} ===`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', file], { stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);
