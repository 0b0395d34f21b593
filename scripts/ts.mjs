// Runs a TypeScript entry of this repository: `node scripts/ts.mjs src/main.ts [args…]`.
//
// On a Node that strips types itself (22.18 and newer: `process.features.typescript`), the
// sources run as they are, with no loader. Anywhere else tsx compiles them on the fly. The
// difference is not only start-up: tsx compiles with esbuild's keepNames, which wraps every
// function expression in a `__name()` call that runs (an Object.defineProperty) each time the
// closure is created, about 40 µs of CPU per GraphQL request on the gateway's hot path.
// `tsconfig.json` sets `erasableSyntaxOnly`, so the typecheck refuses syntax Node cannot strip.
//
// tsx is a dev dependency: every Node that `engines` allows strips types, so a deployment
// (`npm ci --omit=dev`) never needs it. On a Node older than `engines`, this says which Node is
// needed, in one line, before anything else can fail (src/node-version.ts does the same for the
// built dist/main.js).
//
// Plain JavaScript, one process: signals, exit codes and `process.argv[2…]` are the entry's own.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const floor = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(engines.node.trim())?.[1];
const older = (have, need) => {
  const a = have.split('.').map(Number);
  const b = need.split('.').map(Number);
  for (let i = 0; i < 3; i += 1) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0);
  return false;
};
if (floor === undefined) {
  console.error(`scripts/ts.mjs: engines.node "${engines.node}" is not of the form >=X.Y`);
  process.exit(2);
}
if (older(process.versions.node, floor)) {
  console.error(
    `commerce-gateway needs Node ${floor} or newer (package.json engines); this is Node ${process.versions.node}`,
  );
  process.exit(1);
}

const entry = process.argv[2];
if (entry === undefined) {
  console.error('usage: node scripts/ts.mjs FILE.ts [ARGS…]');
  process.exit(2);
}
// The entry sees the command line as if Node had been started on it directly.
process.argv.splice(1, 2, resolve(entry));
if (!process.features.typescript) {
  const tsx = await import('tsx/esm/api').catch((error) => {
    if (error?.code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw error;
  });
  if (tsx === undefined) {
    console.error(
      'scripts/ts.mjs: this Node does not strip types (was it started with --no-experimental-strip-types?) and tsx, a dev dependency, is not installed',
    );
    process.exit(1);
  }
  tsx.register();
}
await import(pathToFileURL(resolve(entry)).href);
