/**
 * scripts/ts.mjs, what `npm start`, `npm run service`, `seed` and `schema` run: on a Node that
 * strips types the sources run untransformed (no tsx, so no keepNames `__name()` wrapper on
 * every closure); on one that does not, tsx compiles them. Either way the entry sees its own
 * path in process.argv[1], its arguments after it, and its exit code is the process's.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = process.cwd();
const scratch = mkdtempSync(join(root, '.cache', 'ts-launcher-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// Types in a parameter list: stripping blanks them out in place, a compiler drops them.
const entry = join(scratch, 'entry.ts');
writeFileSync(
  entry,
  `const double = (value: number): number => value * 2;
console.log(JSON.stringify({ source: double.toString(), argv: process.argv.slice(1), twice: double(21) }));
process.exitCode = Number(process.argv[3] ?? 0);
`,
);

const env = (): NodeJS.ProcessEnv => {
  const clean = { ...process.env };
  delete clean.NODE_OPTIONS;
  return clean;
};

function launch(nodeFlags: string[], args: string[]) {
  const run = spawnSync(process.execPath, [...nodeFlags, 'scripts/ts.mjs', entry, ...args], {
    encoding: 'utf8',
    env: env(),
    timeout: 30_000,
  });
  const line = run.stdout.trim().split('\n').at(-1) ?? '';
  return { status: run.status, stderr: run.stderr, out: JSON.parse(line || 'null') };
}

describe('scripts/ts.mjs', () => {
  it('runs the sources untransformed where Node strips types', () => {
    expect(process.features.typescript).toBeTruthy();
    const run = launch([], ['one', '3']);
    expect(run.out).toEqual({
      source: '(value        )         => value * 2',
      argv: [entry, 'one', '3'],
      twice: 42,
    });
    expect(run.status).toBe(3);
  });

  it('compiles with tsx where Node does not strip types', () => {
    const run = launch(['--no-experimental-strip-types'], ['two']);
    expect(run.stderr).toBe('');
    expect(run.out.source).not.toContain(':');
    // esbuild prints its own source text: the types gone, not blanked out.
    expect(run.out.source).toMatch(/^\(?value\)?\s*=>\s*value\s*\*\s*2$/);
    expect(run.out).toMatchObject({ argv: [entry, 'two'], twice: 42 });
    expect(run.status).toBe(0);
  });

  it('on a Node older than engines, says in one line which Node is needed, and nothing else', () => {
    // The Node it reports is played by a preload; the check reads process.versions.node.
    const preload = join(scratch, 'node-20.mjs');
    writeFileSync(
      preload,
      "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.20.2' } });\n",
    );
    for (const target of [entry, 'src/main.ts']) {
      const run = spawnSync(process.execPath, ['--import', preload, 'scripts/ts.mjs', target], {
        encoding: 'utf8',
        env: env(),
        timeout: 30_000,
      });
      expect({ status: run.status, stdout: run.stdout, stderr: run.stderr }).toEqual({
        status: 1,
        stdout: '',
        stderr:
          'commerce-gateway needs Node 22.19 or newer (package.json engines); this is Node 20.20.2\n',
      });
    }
  });

  it('refuses to start without an entry', () => {
    const run = spawnSync(process.execPath, ['scripts/ts.mjs'], { encoding: 'utf8', env: env() });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('usage: node scripts/ts.mjs FILE.ts');
  });
});
