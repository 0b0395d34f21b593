/**
 * The Node the code needs, read from package.json's `engines` (the one place it is written), and
 * the one line that says so. src/main.ts asks before it loads anything else: an older Node would
 * otherwise stop on whatever it lacks first (`node:sqlite`, an undici feature) with an error
 * that names neither the cause nor the fix. scripts/ts.mjs, the launcher of the npm scripts,
 * makes the same check in plain JavaScript for a Node that cannot even strip types.
 */
import { createRequire } from 'node:module';

/** `>=MAJOR.MINOR[.PATCH]`, the only form `engines.node` takes here. */
const RANGE = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/;

const parts = (version: string): number[] =>
  version
    .replace(/^v/, '')
    .split('.')
    .map((part) => Number.parseInt(part, 10) || 0);

/** package.json's `engines.node` (the same file from src/ and from the built dist/). */
export function requiredNode(): string {
  const pkg = createRequire(import.meta.url)('../package.json') as { engines?: { node?: string } };
  const range = pkg.engines?.node;
  if (range === undefined) throw new Error('package.json names no engines.node');
  return range;
}

/**
 * Undefined when `version` satisfies `range`, else the one line to print: which Node is needed
 * and which one this is.
 */
export function nodeVersionProblem(
  version: string = process.versions.node,
  range: string = requiredNode(),
): string | undefined {
  const match = RANGE.exec(range.trim());
  if (!match) throw new Error(`engines.node "${range}" is not of the form >=X.Y`);
  const needed = [match[1], match[2], match[3]].map((part) => Number(part ?? 0));
  const have = parts(version);
  for (let i = 0; i < 3; i += 1) {
    const a = have[i] ?? 0;
    const b = needed[i] ?? 0;
    if (a > b) return undefined;
    if (a < b) {
      const floor = needed.slice(0, match[3] === undefined ? 2 : 3).join('.');
      return `commerce-gateway needs Node ${floor} or newer (package.json engines); this is Node ${version.replace(/^v/, '')}`;
    }
  }
  return undefined;
}
