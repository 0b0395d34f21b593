/**
 * `npm run bench [name…] [--node MAJOR…]`: runs the benchmarks one after another, each in its
 * own process so that one benchmark's heap and sockets never colour the next one's figures.
 * Without names it runs them all; benchmarks are never part of `npm test`.
 *
 * Every line a benchmark prints is prefixed with the Node version it ran on, so no figure is
 * ever read without it. `--node 22` (repeatable; `--node current` is the Node running this
 * script, the pinned 26 under npm) runs each benchmark on that line too, fetched from the npm
 * registry by scripts/toolchain.sh into .cache/toolchains.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const BENCHES = [
  'service-listing',
  'service-throughput',
  'gateway-overhead',
  'peers',
  'pairs',
  'budget',
  'deep-paging',
  'faults',
  'search',
  'events',
  'workers',
] as const;

const here = dirname(fileURLToPath(import.meta.url));
const names: string[] = [];
const nodeArgs: string[] = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 1) {
  const arg = argv[i] ?? '';
  if (arg === '--node') nodeArgs.push(argv[++i] ?? '');
  else if (arg.startsWith('--node=')) nodeArgs.push(arg.slice('--node='.length));
  else names.push(arg);
}
const unknown = names.filter((name) => !(BENCHES as readonly string[]).includes(name));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${BENCHES.join(', ')}`);
  process.exit(2);
}

/** The node binary for `--node` MAJOR, fetched on first use. */
function nodeBinary(major: string): string {
  if (major === '' || major === 'current') return process.execPath;
  if (!/^\d+(\.\d+\.\d+)?$/.test(major)) {
    console.error(`--node takes a major version such as 22, or "current"; got "${major}"`);
    process.exit(2);
  }
  const fetched = spawnSync(join(here, '..', 'scripts', 'toolchain.sh'), ['node', major], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (fetched.status !== 0) process.exit(1);
  return join(fetched.stdout.trim(), 'node');
}

function versionOf(node: string): string {
  return spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
}

/** Runs one benchmark file on one node, each output line prefixed with that node's version. */
function runOne(node: string, file: string): Promise<number> {
  const tag = `[Node ${versionOf(node)}]`;
  // As `npm start` runs its entry: Node's own type stripping where there is one, else tsx.
  const child = spawn(node, ['scripts/ts.mjs', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = (stream: NodeJS.ReadableStream, out: NodeJS.WriteStream) =>
    new Promise<void>((resolve) => {
      const lines = createInterface({ input: stream, crlfDelay: Infinity });
      lines.on('line', (line) => out.write(line.trim() === '' ? '\n' : `${tag} ${line}\n`));
      lines.on('close', resolve);
    });
  return Promise.all([
    prefix(child.stdout, process.stdout),
    prefix(child.stderr, process.stderr),
    new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1))),
  ]).then(([, , code]) => code);
}

const nodes = (nodeArgs.length > 0 ? nodeArgs : ['current']).map(nodeBinary);
let failed = 0;
for (const name of names.length > 0 ? names : BENCHES) {
  const file = join(here, `${name}.ts`);
  if (!existsSync(file)) {
    console.error(`bench/${name}.ts is missing`);
    failed += 1;
    continue;
  }
  for (const node of nodes) {
    console.log(`\n=== ${name} on Node ${versionOf(node)} ===`);
    if ((await runOne(node, file)) !== 0) failed += 1;
  }
}
process.exit(failed === 0 ? 0 : 1);
