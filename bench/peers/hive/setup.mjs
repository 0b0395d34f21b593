#!/usr/bin/env node
/**
 * Installs the Hive Gateway peer (this folder's own package.json, never a product dependency)
 * and composes its supergraph with GraphQL Mesh for one upstream commerce service.
 *
 *   node bench/peers/hive/setup.mjs [--upstream http://127.0.0.1:4010] [--out supergraph.graphql]
 *                                   [--force (compose again)] [--reinstall (npm ci again)]
 *
 * Without --upstream it only installs. Installing runs `npm ci` (`npm install` without a lock)
 * here when node_modules is missing or was installed from another package.json or
 * package-lock.json. start.mjs imports ensureInstalled and compose from here.
 * Plain JavaScript for Node 22 and later; no dependency outside node: modules.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const here = dirname(fileURLToPath(import.meta.url));
const modules = join(here, 'node_modules');
const stampFile = join(modules, '.bench-peer-install');
const lockFile = join(here, 'package-lock.json');
/** The packages this peer runs on; a missing one means node_modules is incomplete. */
const REQUIRED = ['@graphql-hive/gateway', '@graphql-mesh/compose-cli', '@omnigraph/openapi'];

function log(message) {
  process.stderr.write(`[hive peer] ${message}\n`);
}

function sha256(...parts) {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return hash.digest('hex');
}

function installKey() {
  const lock = existsSync(lockFile) ? readFileSync(lockFile) : 'no lock';
  return sha256(readFileSync(join(here, 'package.json')), lock);
}

function installed() {
  if (!existsSync(stampFile)) return false;
  if (readFileSync(stampFile, 'utf8').trim() !== installKey()) return false;
  return REQUIRED.every((name) => existsSync(join(modules, name, 'package.json')));
}

/**
 * The environment for npm: without the npm_* variables of an enclosing `npm run` (its
 * npm_config_local_prefix would point npm at the project root, its omit/production settings
 * would drop packages), but with the settings that say how to reach the registry.
 */
function npmEnv() {
  const keep =
    /^npm_config_(registry|cache|cafile|userconfig|globalconfig|proxy|https_proxy|noproxy|strict_ssl)$/i;
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) && !keep.test(key)) continue;
    env[key] = value;
  }
  return env;
}

/** Installs this folder's packages unless node_modules already matches package(-lock).json. */
export function ensureInstalled({ force = false } = {}) {
  if (!force && installed()) return false;
  const command = existsSync(lockFile) ? 'ci' : 'install';
  log(`npm ${command} in ${here} (one-time, about a minute) ...`);
  const started = Date.now();
  // Install scripts are not needed (the only ones print notices) and stay off.
  const result = spawnSync(
    'npm',
    [command, '--prefix', here, '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'],
    {
      cwd: here,
      env: npmEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      shell: process.platform === 'win32',
    },
  );
  if (result.status !== 0) {
    process.stderr.write(result.stdout ?? '');
    process.stderr.write(result.stderr ?? '');
    throw new Error(
      `npm ${command} failed in ${here} (${result.error?.message ?? `exit ${result.status}`})`,
    );
  }
  writeFileSync(stampFile, `${installKey()}\n`);
  log(`installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return true;
}

/** The path of a package's file inside this folder's node_modules. */
export function packageFile(name, relative) {
  return join(modules, name, relative);
}

function binOf(name, bin) {
  const pkg = JSON.parse(readFileSync(packageFile(name, 'package.json'), 'utf8'));
  const entry = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin[bin];
  return packageFile(name, entry);
}

/** Mesh Compose's CLI script and Hive Gateway's CLI script. */
export const meshComposeBin = () => binOf('@graphql-mesh/compose-cli', 'mesh-compose');
export const hiveGatewayBin = () => binOf('@graphql-hive/gateway', 'hive-gateway');

/**
 * Composes the supergraph of openapi.json for the service at `upstream` into `out` (relative to
 * this folder) with `mesh-compose` (mesh.config.ts), in a child process on this Node. Skipped
 * when `out` was composed from the same inputs for the same upstream; returns the absolute path.
 */
export function compose({ upstream, out = 'supergraph.graphql', force = false }) {
  const url = new URL(upstream);
  const base = url.origin;
  const target = isAbsolute(out) ? out : resolve(here, out);
  const keyFile = `${target}.key`;
  const key = sha256(
    base,
    readFileSync(join(here, 'openapi.json')),
    readFileSync(join(here, 'mesh.config.ts')),
    installKey(),
  );
  if (!force && existsSync(target) && existsSync(keyFile)) {
    if (readFileSync(keyFile, 'utf8').trim() === key) return target;
  }
  mkdirSync(dirname(target), { recursive: true });
  const result = spawnSync(process.execPath, [meshComposeBin(), '--output', target], {
    cwd: here,
    env: { ...process.env, COMMERCE_UPSTREAM_URL: base, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  if (result.status !== 0 || !existsSync(target)) {
    process.stderr.write(result.stdout ?? '');
    process.stderr.write(result.stderr ?? '');
    throw new Error(`mesh-compose failed (${result.error?.message ?? `exit ${result.status}`})`);
  }
  writeFileSync(keyFile, `${key}\n`);
  return target;
}

async function main() {
  const { values } = parseArgs({
    options: {
      upstream: { type: 'string' },
      out: { type: 'string', default: 'supergraph.graphql' },
      force: { type: 'boolean', default: false },
      reinstall: { type: 'boolean', default: false },
    },
  });
  ensureInstalled({ force: values.reinstall });
  if (values.upstream) {
    const started = Date.now();
    const path = compose({ upstream: values.upstream, out: values.out, force: values.force });
    log(`supergraph for ${values.upstream}: ${path} (${Date.now() - started} ms)`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    process.stderr.write(`[hive peer] ${error instanceof Error ? error.message : error}\n`);
    process.exit(1);
  });
}
