/**
 * The browser of the browser tests, from `npm install` alone: @sparticuz/chromium (a dev
 * dependency) ships a brotli-compressed headless Chromium for x86_64 Linux inside its package
 * tarball, with no install script. It is inflated once per package version into
 * node_modules/.cache/, beside the install it came from. The package's own executablePath()
 * is not used: it inflates into a fixed /tmp/chromium shared by every project and version on
 * the machine, and reuses whatever it finds there.
 *
 * CHROMIUM_PATH names another browser (a system Chromium, say); then that one runs, and it must
 * exist: a browser test never skips for want of a browser.
 */
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
} from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createBrotliDecompress } from 'node:zlib';

export const BUNDLED_CHROMIUM_PACKAGE = '@sparticuz/chromium';

export interface ChromiumBinary {
  executablePath: string;
  /** Where it came from: the npm package (with its version) or CHROMIUM_PATH. */
  source: { kind: 'package'; name: string; version: string } | { kind: 'CHROMIUM_PATH' };
}

/** The package's root folder, found from its entry (its exports map offers nothing else). */
function packageRoot(): string {
  const entry = fileURLToPath(import.meta.resolve(BUNDLED_CHROMIUM_PACKAGE));
  let dir = dirname(entry);
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error(`${BUNDLED_CHROMIUM_PACKAGE}: no package.json above ${entry}`);
    dir = parent;
  }
  return dir;
}

/** The bundled Chromium, inflated on first use; the path of its executable. */
export async function bundledChromium(): Promise<ChromiumBinary> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `${BUNDLED_CHROMIUM_PACKAGE} ships Chromium for Linux x64 only (this is ${process.platform} ${process.arch}): set CHROMIUM_PATH to a Chromium or Chrome`,
    );
  }
  const root = packageRoot();
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    version: string;
  };
  const compressed = join(root, 'bin', 'chromium.br');
  if (!existsSync(compressed)) {
    throw new Error(`${BUNDLED_CHROMIUM_PACKAGE}@${version} has no bin/chromium.br: reinstall it`);
  }
  // node_modules/.cache, beside the installed package (hoisted or not).
  const modules = root.slice(0, root.lastIndexOf(`${sep}node_modules${sep}`) + 13);
  const dir = join(modules, '.cache', `sparticuz-chromium-${version}`);
  const executablePath = join(dir, 'chromium');
  if (!existsSync(executablePath)) {
    mkdirSync(dir, { recursive: true });
    // Inflated beside its final name and renamed: a run stopped halfway leaves no half binary.
    const partial = `${executablePath}.${process.pid}.partial`;
    await pipeline(
      createReadStream(compressed),
      createBrotliDecompress(),
      createWriteStream(partial, { mode: 0o755 }),
    );
    renameSync(partial, executablePath);
  }
  return {
    executablePath,
    source: { kind: 'package', name: BUNDLED_CHROMIUM_PACKAGE, version },
  };
}

/** CHROMIUM_PATH when set (it must exist), else the bundled Chromium. */
export async function chromiumForTests(
  env: NodeJS.ProcessEnv = process.env,
): Promise<ChromiumBinary> {
  const override = env.CHROMIUM_PATH;
  if (override !== undefined && override !== '') {
    if (!existsSync(override)) {
      throw new Error(
        `CHROMIUM_PATH=${override} does not exist: unset it to use the Chromium of ${BUNDLED_CHROMIUM_PACKAGE}`,
      );
    }
    return { executablePath: override, source: { kind: 'CHROMIUM_PATH' } };
  }
  return bundledChromium();
}
