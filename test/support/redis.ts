/**
 * A real redis-server for the tests that need one: started on a free port, without
 * persistence, stopped after. Where the binary is missing the suite is skipped with how to
 * install it — unless REQUIRE_REDIS=1 (CI: .ci/run sets it), where the missing binary fails it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { delimiter, join } from 'node:path';
import { describe } from 'vitest';

const INSTALL_HINT =
  'redis-server is not installed: `apt-get install redis-server` (Debian/Ubuntu) or ' +
  '`brew install redis`; CI (REQUIRE_REDIS=1) fails instead of skipping';

/** The redis-server binary on PATH, or undefined. */
export function findRedisServer(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'redis-server');
    if (dir !== '' && existsSync(candidate)) return candidate;
  }
  return undefined;
}

const required = process.env.REQUIRE_REDIS === '1';
const binary = findRedisServer();

/**
 * `describe` when redis-server can run here (or must: REQUIRE_REDIS=1, where startRedis then
 * fails), else a skipped suite whose name says how to install it.
 */
export function describeWithRedis(name: string, body: () => void): void {
  if (binary === undefined && !required) {
    console.warn(`${name}: skipped, ${INSTALL_HINT}`);
    describe.skip(`${name} (skipped: ${INSTALL_HINT})`, body);
    return;
  }
  describe(name, body);
}

export interface RedisServer {
  url: string;
  port: number;
  /** Stops the server (SIGKILL with `abruptly`), for tests of a Redis that goes away. */
  stop(abruptly?: boolean): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether something answers PING on the port. */
function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.once('data', (chunk) => done(chunk.toString().startsWith('+PONG')));
  });
}

export async function startRedis(): Promise<RedisServer> {
  if (binary === undefined) throw new Error(`REQUIRE_REDIS=1 but ${INSTALL_HINT}`);
  const port = await freePort();
  const child: ChildProcess = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const deadline = Date.now() + 10_000;
  while (!(await pings(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start on port ${port}: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop(abruptly = false) {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      return new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill(abruptly ? 'SIGKILL' : 'SIGTERM');
      });
    },
  };
}
