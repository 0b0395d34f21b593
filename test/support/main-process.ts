/**
 * The processes users start, spawned as `npm start` / `npm run service` run them (the package's
 * own script command line, after `node`), on port 0, for tests of what only the entry points do:
 * the listener's settings, the startup banner, signals.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** An npm script's command line after `node`: the test runs exactly what users run. */
export function scriptArgs(script: string): string[] {
  const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as {
    scripts: Record<string, string>;
  };
  const line = scripts[script] ?? '';
  const [command, ...args] = line.split(' ');
  if (command !== 'node') throw new Error(`npm run ${script} no longer runs node: ${line}`);
  return args;
}

export interface MainProcess {
  child: ChildProcess;
  /** `npm start`: the GraphQL endpoint; `npm run service`: the service's base URL. */
  url: string;
  output(): string;
  errors(): string;
  /** Resolves with the first match of `pattern` in stdout, once it is there. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
}

/**
 * Spawns `src/main.ts` (or the service alone) on port 0 and waits for its URL. Defaults:
 * NODE_ENV=test, PORT=0, HOST=127.0.0.1; `env` overrides them (an `undefined` value unsets).
 */
export async function spawnMain(
  env: Record<string, string | undefined>,
  script: 'start' | 'service' = 'start',
): Promise<MainProcess> {
  const merged: Record<string, string | undefined> = {
    ...process.env,
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    ...env,
  };
  for (const name of Object.keys(merged)) if (merged[name] === undefined) delete merged[name];
  const child = spawn(process.execPath, scriptArgs(script), {
    env: merged,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const waitFor = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${pattern} never printed: ${stdout}${stderr}`)),
        30_000,
      );
      const check = () => {
        const match = pattern.exec(stdout);
        if (match) {
          clearTimeout(timer);
          child.stdout?.removeListener('data', check);
          resolve(match);
        }
      };
      child.stdout?.on('data', check);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`exited ${code}: ${stdout}${stderr}`));
      });
      check();
    });
  const ready = script === 'start' ? /endpoint:\s+(http:\/\/\S+)/ : /listening on (https?:\/\/\S+)/;
  const [, url = ''] = await waitFor(ready);
  return {
    child,
    url: url.replace('localhost', '127.0.0.1'),
    output: () => stdout,
    errors: () => stderr,
    waitFor,
  };
}
