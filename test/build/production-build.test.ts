/**
 * The production build: `npm run build` compiles src/ into dist/ with tsc; `npm run start:prod`
 * runs the compiled gateway with plain node (no tsx) and answers queries against the embedded
 * service; the package's `exports` give a consumer the built library, with types, by name.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = process.cwd();
const dist = join(root, 'dist');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  main: string;
  types: string;
  exports: Record<string, { types: string; default: string }>;
  scripts: Record<string, string>;
};
// Node and tsc without anything a test runner put into NODE_OPTIONS (a loader would hide tsx).
const cleanEnv = (): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  return env;
};

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));

let scratch: string;
let buildSeconds = 0;

beforeAll(async () => {
  mkdirSync(join(root, '.cache'), { recursive: true });
  // Inside the package, so a file there imports 'commerce-gateway' by name (self-reference).
  scratch = mkdtempSync(join(root, '.cache', 'build-test-'));
  const started = Date.now();
  await run('npm', ['run', 'build'], { cwd: root, env: cleanEnv(), timeout: 240_000 });
  buildSeconds = (Date.now() - started) / 1000;
}, 300_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('npm run build', () => {
  it('compiles every source file to JavaScript with declarations and .js import specifiers', () => {
    const sources = files(join(root, 'src')).filter((f) => f.endsWith('.ts'));
    const built = new Set(files(dist));
    for (const source of sources) {
      const stem = source.replace(/\.ts$/, '');
      expect(built.has(`${stem}.js`), `${stem}.js`).toBe(true);
      expect(built.has(`${stem}.d.ts`), `${stem}.d.ts`).toBe(true);
      const js = readFileSync(join(dist, `${stem}.js`), 'utf8');
      // Node would not find './x.ts' next to the built './x.js'.
      expect(js, `${stem}.js`).not.toMatch(/(?:from|import\()\s*['"]\.{1,2}\/[^'"]*\.ts['"]/);
    }
    expect(pkg.exports['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
    expect(pkg.main).toBe('./dist/index.js');
    expect(pkg.types).toBe('./dist/index.d.ts');
    console.log(`npm run build: ${buildSeconds.toFixed(1)} s`);
  });
});

/** `npm run start:prod`'s command line: leading VAR=value pairs, then node and its arguments. */
function startProdCommand(): { env: Record<string, string>; args: string[] } {
  const words = (pkg.scripts['start:prod'] ?? '').split(' ');
  const env: Record<string, string> = {};
  while (words[0]?.includes('=')) {
    const [name, value] = (words.shift() ?? '').split('=');
    if (name && value !== undefined) env[name] = value;
  }
  const [command, ...args] = words;
  if (command !== 'node') throw new Error(`start:prod no longer runs node: ${words.join(' ')}`);
  return { env, args };
}

describe('npm run start:prod', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    child?.kill('SIGKILL');
  });

  it('runs the compiled gateway with plain node against the embedded service', async () => {
    const { env, args } = startProdCommand();
    expect(env.NODE_ENV).toBe('production');
    expect(args.join(' ')).not.toContain('tsx');
    const main = spawn(process.execPath, args, {
      cwd: root,
      env: {
        ...cleanEnv(),
        ...env,
        PORT: '0',
        HOST: '127.0.0.1',
        COMMERCE_PORT: '0',
        COMMERCE_DB: ':memory:',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = main;
    let stdout = '';
    let stderr = '';
    main.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    main.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const banner = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner: ${stdout}${stderr}`)), 60_000);
      main.stdout?.on('data', () => {
        if (/Bearer \S+/.test(stdout)) {
          clearTimeout(timer);
          resolve(stdout);
        }
      });
      main.once('exit', (code) => reject(new Error(`exited ${code}: ${stdout}${stderr}`)));
    });
    const url = /endpoint: (http:\/\/\S+)/.exec(banner)?.[1];
    const token = /Bearer (\S+)/.exec(banner)?.[1];
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/graphql$/);
    const response = await fetch(url as string, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        query: '{ orders(first: 2, sortKey: CREATED_AT) { totalCount nodes { upstreamId } } }',
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      data?: { orders: { totalCount: number; nodes: unknown[] } };
      errors?: unknown;
    };
    expect(body.errors).toBeUndefined();
    expect(body.data?.orders.totalCount).toBeGreaterThan(0);
    expect(body.data?.orders.nodes).toHaveLength(2);
    // NODE_ENV=production: GraphiQL and introspection are off unless asked for.
    const page = await fetch(url as string, { headers: { accept: 'text/html' } });
    expect(await page.text()).not.toContain('<html');

    const exited = new Promise<number | null>((resolve) => main.once('exit', resolve));
    main.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toBe('');
  });
});

describe('the built library', () => {
  it('imports by package name with plain node and serves a query in process', async () => {
    const consumer = join(scratch, 'consumer.mjs');
    writeFileSync(
      consumer,
      `import { createGateway, createCommerceService, schema } from '${pkg.name}';
import { fileURLToPath } from 'node:url';
const resolved = fileURLToPath(import.meta.resolve('${pkg.name}'));
const gateway = createGateway({ upstreamUrl: 'http://127.0.0.1:9', graphiql: false, logger: false });
const response = await gateway.fetch('http://localhost/graphql', {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ query: '{ __typename }' }),
});
console.log(JSON.stringify({
  resolved,
  status: response.status,
  body: await response.json(),
  service: typeof createCommerceService,
  query: typeof schema.getQueryType()?.getFields().orders,
}));
await gateway.dispose();
`,
    );
    const { stdout } = await run(process.execPath, [consumer], { cwd: scratch, env: cleanEnv() });
    expect(JSON.parse(stdout)).toEqual({
      resolved: join(dist, 'index.js'),
      status: 200,
      body: { data: { __typename: 'Query' } },
      service: 'function',
      query: 'object',
    });
  });

  it('type-checks a consumer against the declarations the exports name', async () => {
    writeFileSync(
      join(scratch, 'consumer.ts'),
      `import { createGateway, type GatewayOptions } from '${pkg.name}';
const options: GatewayOptions = { upstreamUrl: 'http://127.0.0.1:9', paging: { maxFirst: 50 } };
const endpoint: string = createGateway(options).graphqlEndpoint;
// @ts-expect-error upstreamUrl is required
createGateway({});
// @ts-expect-error maxFirst is a number (a type from another built file, ../upstream/paging)
createGateway({ upstreamUrl: 'http://127.0.0.1:9', paging: { maxFirst: 'many' } });
export { endpoint };
`,
    );
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2023',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', scratch], { env: cleanEnv() }).then(
      ({ stdout }) => ({ ok: true, stdout }),
      (error: { stdout?: string }) => ({ ok: false, stdout: error.stdout ?? String(error) }),
    );
    expect(result.stdout).toBe('');
    expect(result.ok).toBe(true);
  });
});
