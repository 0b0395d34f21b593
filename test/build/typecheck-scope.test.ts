/**
 * `npm test`'s type check covers the project's own code and nothing a benchmark installs: the
 * Hive peer (`npm run bench -- peers`) installs its packages into bench/peers/hive/node_modules,
 * and its two config files import them, which would pull hundreds of foreign files into the
 * program and fail it on any of theirs. Checked on a copy of tsconfig.json over a small tree of
 * the same shape, whose fake peer package has a type error.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = process.cwd();
mkdirSync(join(root, '.cache'), { recursive: true });
// Inside the repository, so @types/node resolves from its node_modules as it does for tsc.
const scratch = mkdtempSync(join(root, '.cache', 'typecheck-scope-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(dirname(join(scratch, path)), { recursive: true });
  writeFileSync(join(scratch, path), text);
}

describe('tsconfig.json', () => {
  it('type-checks src/, test/, bench/ and scripts/ but nothing under bench/peers/', async () => {
    writeFileSync(join(scratch, 'tsconfig.json'), readFileSync(join(root, 'tsconfig.json')));
    write('src/index.ts', 'export const answer: number = 42;\n');
    write(
      'test/a.test.ts',
      "import { answer } from '../src/index.ts';\nexport const b = answer;\n",
    );
    write('bench/run.ts', "import { answer } from '../src/index.ts';\nexport const c = answer;\n");
    write('scripts/tool.ts', 'export const d: string = "d";\n');
    write('vitest.config.ts', 'export default {};\n');
    // What the Hive peer looks like once `npm run bench -- peers` installed it.
    write(
      'bench/peers/hive/gateway.config.ts',
      "import { defineConfig } from 'fake-peer-gateway';\nexport const config = defineConfig();\n",
    );
    write(
      'bench/peers/hive/node_modules/fake-peer-gateway/package.json',
      JSON.stringify({ name: 'fake-peer-gateway', type: 'module', exports: './index.ts' }),
    );
    write(
      'bench/peers/hive/node_modules/fake-peer-gateway/index.ts',
      'export const defineConfig = (): number => "not a number";\n',
    );
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    const listed = await run(process.execPath, [tsc, '-p', scratch, '--listFilesOnly'], {
      env,
    }).then(({ stdout }) =>
      stdout
        .split('\n')
        .filter((line) => line.startsWith(scratch))
        .map((line) => relative(scratch, line))
        .sort(),
    );
    expect(listed).toEqual([
      'bench/run.ts',
      'scripts/tool.ts',
      'src/index.ts',
      'test/a.test.ts',
      'vitest.config.ts',
    ]);
    const checked = await run(process.execPath, [tsc, '-p', scratch], { env }).then(
      ({ stdout }) => ({ ok: true, stdout }),
      (error: { stdout?: string }) => ({ ok: false, stdout: error.stdout ?? String(error) }),
    );
    expect(checked).toEqual({ ok: true, stdout: '' });
  });
});
