// Runs a TypeScript entry of this repository: `node scripts/ts.mjs src/main.ts [args…]`.
//
// On a Node that strips types itself (22.18 and newer: `process.features.typescript`), the
// sources run as they are, with no loader. Anywhere else tsx compiles them on the fly. The
// difference is not only start-up: tsx compiles with esbuild's keepNames, which wraps every
// function expression in a `__name()` call that runs (an Object.defineProperty) each time the
// closure is created, about 40 µs of CPU per GraphQL request on the gateway's hot path.
// `tsconfig.json` sets `erasableSyntaxOnly`, so the typecheck refuses syntax Node cannot strip.
//
// Plain JavaScript, one process: signals, exit codes and `process.argv[2…]` are the entry's own.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const entry = process.argv[2];
if (entry === undefined) {
  console.error('usage: node scripts/ts.mjs FILE.ts [ARGS…]');
  process.exit(2);
}
// The entry sees the command line as if Node had been started on it directly.
process.argv.splice(1, 2, resolve(entry));
if (!process.features.typescript) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(pathToFileURL(resolve(entry)).href);
