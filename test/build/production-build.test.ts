/**
 * The production build: `npm run build` compiles src/ into dist/ with tsc; `npm run start:prod`
 * runs the compiled gateway with plain node (no tsx) and answers queries against the embedded
 * service; the package's `exports` give a consumer the built library, with types, by name.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
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
  exports: Record<string, { types: string; default: string } | string>;
  peerDependencies: Record<string, string>;
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
    expect(pkg.exports['./service']).toEqual({
      types: './dist/service.d.ts',
      default: './dist/service.js',
    });
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
    const url = /endpoint:\s+(http:\/\/\S+)/.exec(banner)?.[1];
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
    // NODE_ENV=production: GraphiQL and introspection are off unless asked for, and the banner
    // says so rather than offering a page that a browser's GET is refused (406).
    const page = await fetch(url as string, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(406);
    expect(await page.text()).not.toContain('<html');
    expect(banner).toContain(`  GraphQL endpoint:    ${url} (GraphiQL off; GRAPHIQL=1 serves it)`);
    expect(banner).not.toMatch(/GraphiQL \/ endpoint|GraphiQL at|GraphiQL sends/);

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
      `import * as library from '${pkg.name}';
import { createCommerceService } from '${pkg.name}/service';
import { fileURLToPath } from 'node:url';
const { createGateway, schema } = library;
const resolved = fileURLToPath(import.meta.resolve('${pkg.name}'));
const resolvedService = fileURLToPath(import.meta.resolve('${pkg.name}/service'));
const gateway = createGateway({ upstreamUrl: 'http://127.0.0.1:9', graphiql: false, logger: false });
const response = await gateway.fetch('http://localhost/graphql', {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ query: '{ __typename }' }),
});
console.log(JSON.stringify({
  resolved,
  resolvedService,
  status: response.status,
  body: await response.json(),
  service: typeof createCommerceService,
  serviceInMainEntry: 'createCommerceService' in library,
  typedSchemaSource: typeof library.createTypedSchemaSource,
  query: typeof schema.getQueryType()?.getFields().orders,
}));
await gateway.dispose();
`,
    );
    const { stdout } = await run(process.execPath, [consumer], { cwd: scratch, env: cleanEnv() });
    expect(JSON.parse(stdout)).toEqual({
      resolved: join(dist, 'index.js'),
      resolvedService: join(dist, 'service.js'),
      status: 200,
      body: { data: { __typename: 'Query' } },
      service: 'function',
      serviceInMainEntry: false,
      typedSchemaSource: 'function',
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

/**
 * What an older Node lacks, played on this one by a preload: `node:sqlite` is unknown (as before
 * Node 22.5) and, when `version` is given, process.versions.node says so.
 */
function olderNodePreload(version: string | undefined): string {
  const file = join(scratch, `older-node-${version ?? 'no-sqlite'}.mjs`);
  writeFileSync(
    file,
    `import { registerHooks } from 'node:module';
${version === undefined ? '' : `Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '${version}' } });`}
registerHooks({
  resolve(specifier, context, next) {
    if (specifier === 'node:sqlite') {
      const error = new Error('No such built-in module: node:sqlite');
      error.code = 'ERR_UNKNOWN_BUILTIN_MODULE';
      throw error;
    }
    return next(specifier, context);
  },
});
`,
  );
  return file;
}

describe('npm run start:prod on an older Node', () => {
  it('says in one line which Node it needs, before anything else fails, UPSTREAM_URL or not', async () => {
    const { env, args } = startProdCommand();
    const preload = olderNodePreload('20.20.2');
    for (const upstream of [{ UPSTREAM_URL: 'http://127.0.0.1:9' }, {}]) {
      const result = await run(process.execPath, ['--import', preload, ...args], {
        cwd: root,
        env: { ...cleanEnv(), ...env, ...upstream, PORT: '0', HOST: '127.0.0.1' },
      }).then(
        () => ({ code: 0, stdout: '', stderr: '' }),
        (error: { code?: number; stdout?: string; stderr?: string }) => ({
          code: error.code,
          stdout: error.stdout,
          stderr: error.stderr,
        }),
      );
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr:
          'commerce-gateway needs Node 22.19 or newer (package.json engines); this is Node 20.20.2\n',
      });
    }
  });

  it('with UPSTREAM_URL, starts and serves on a Node without node:sqlite (the embedded service is not loaded)', async () => {
    const { env, args } = startProdCommand();
    // A stand-in upstream: the query below needs one list call.
    const upstream = createServer((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          data: [],
          meta: { page: { limit: 25, offset: 0, current: 1, total: 0 }, results: { total: 0 } },
          links: {},
        }),
      );
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const main = spawn(process.execPath, ['--import', olderNodePreload(undefined), ...args], {
      cwd: root,
      env: { ...cleanEnv(), ...env, UPSTREAM_URL: upstreamUrl, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      main.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      main.stderr?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner: ${output}`)), 30_000);
        main.stdout?.on('data', () => {
          const found = /endpoint:\s+(http:\/\/\S+)/.exec(output)?.[1];
          if (found) {
            clearTimeout(timer);
            resolve(found);
          }
        });
        main.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
      });
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer any' },
        body: JSON.stringify({ query: '{ orders(first: 2) { totalCount } }' }),
      });
      expect(await response.json()).toEqual({ data: { orders: { totalCount: 0 } } });
      expect(output).not.toContain('node:sqlite');
    } finally {
      main.kill('SIGKILL');
      upstream.close();
    }
  });
});

/**
 * The npm environment for an install in another project: without the npm_* variables of an
 * enclosing `npm test` (its npm_config_local_prefix would point npm back at this repository),
 * but with the settings that say how to reach the registry and where its cache is.
 */
function consumerNpmEnv(): NodeJS.ProcessEnv {
  const keep =
    /^npm_config_(registry|cache|cafile|userconfig|globalconfig|proxy|https_proxy|noproxy|strict_ssl)$/i;
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(cleanEnv())) {
    if (/^npm_/i.test(key) && !keep.test(key)) continue;
    env[key] = value;
  }
  return env;
}

/** The lowest version the peer range names, and the range of its newest major. */
function graphqlVersionsToTry(range: string): { lowest: string; newest: string } {
  const alternatives = range.split('||').map((part) => part.trim());
  const lowest = /^\^(\d+\.\d+\.\d+)$/.exec(alternatives[0] ?? '')?.[1];
  const newest = alternatives.at(-1);
  if (lowest === undefined || newest === undefined || !/^\^\d+\.\d+\.\d+$/.test(newest)) {
    throw new Error(`peerDependencies.graphql "${range}" is not of the form ^A.B.C || ^D.E.F`);
  }
  return { lowest, newest };
}

// In the consumer: the library with the subpath's service, a typed Custom API schema, queries,
// and three of armor's refusals (one while parsing, two while validating).
const CONSUMER_SERVE = `import { readFileSync } from 'node:fs';
import { createGateway, createTypedSchemaSource, createUpstream, schema } from 'commerce-gateway';
import { createCommerceService, DEFAULT_CLIENTS } from 'commerce-gateway/service';
const [demo] = DEFAULT_CLIENTS;
const service = await createCommerceService({
  dbPath: ':memory:', clients: [demo], seed: true, seedOptions: { orders: 3 }, logger: false,
});
await service.listen({ port: 0, host: '127.0.0.1' });
const upstreamUrl = 'http://127.0.0.1:' + service.server.address().port;
const credentials = { clientId: demo.id, clientSecret: demo.secret };
const upstream = createUpstream({ url: upstreamUrl });
const source = createTypedSchemaSource({ base: schema, reader: upstream.definitions(credentials) });
await source.start();
const gateway = createGateway({ upstream, schemaSource: source, graphiql: false, logger: false });
const grant = await fetch(upstreamUrl + '/oauth/access_token', {
  method: 'POST',
  body: new URLSearchParams({ grant_type: 'client_credentials', client_id: demo.id, client_secret: demo.secret }),
});
const token = (await grant.json()).access_token;
const ask = async (query) => {
  const response = await gateway.fetch('http://localhost/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + token },
    body: JSON.stringify({ query }),
  });
  return { status: response.status, body: await response.json() };
};
const code = (answer) => answer.status + ' ' + answer.body.errors?.[0]?.extensions?.code;
const list = source.mapped().find((api) => api.apiType === 'wishlists_ext').names.list;
const typed = await ask('{ ' + list + '(first: 1) { totalCount } }');
console.log(JSON.stringify({
  graphql: JSON.parse(readFileSync('node_modules/graphql/package.json', 'utf8')).version,
  orders: await ask('{ orders(first: 2) { totalCount nodes { upstreamId } } }'),
  typed: { status: typed.status, totalCount: typeof typed.body.data?.[list]?.totalCount },
  tokens: code(await ask('{ ' + '__typename '.repeat(2100) + '}')),
  aliases: code(await ask('{ ' + Array.from({ length: 20 }, (_, i) => 'a' + i + ': __typename').join(' ') + ' }')),
  directives: code(await ask('{ ' + '__typename @skip(if: false) '.repeat(21) + '}')),
}));
await gateway.dispose();
await source.close();
await upstream.close();
await service.close();
`;

// The main entry alone, on a Node without node:sqlite: every module it resolves is recorded.
const CONSUMER_MAIN_ONLY = `import { registerHooks } from 'node:module';
const resolved = [];
registerHooks({
  resolve(specifier, context, next) {
    if (specifier === 'node:sqlite') {
      const error = new Error('No such built-in module: node:sqlite');
      error.code = 'ERR_UNKNOWN_BUILTIN_MODULE';
      throw error;
    }
    const result = next(specifier, context);
    resolved.push(result.url);
    return result;
  },
});
const { createGateway } = await import('commerce-gateway');
const gateway = createGateway({ upstreamUrl: 'http://127.0.0.1:9', graphiql: false, logger: false });
const response = await gateway.fetch('http://localhost/graphql', {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ query: '{ __typename }' }),
});
const body = await response.json();
await gateway.dispose();
const sqlite = process.moduleLoadList.filter((name) => name.includes('sqlite'));
// The service's own modules and packages (the main entry shares only its config parsing).
const embedded = resolved.filter((url) =>
  /node:sqlite|\\/commerce-service\\/(app|db|sqlite)\\.js$|\\/node_modules\\/(fastify|@fastify\\/multipart)\\//.test(url),
);
const service = await import('commerce-gateway/service').then(() => 'loaded', (error) => error.code);
console.log(JSON.stringify({ body, sqlite, embedded, service }));
`;

describe('the packed tarball in another project', () => {
  let tarball: string;
  let packed: string[];

  beforeAll(async () => {
    // npm pack after npm run build (beforeAll above): its prepack would build again.
    const { stdout } = await run(
      'npm',
      ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch],
      { cwd: root, env: consumerNpmEnv() },
    );
    const [info] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    if (!info) throw new Error(`npm pack said nothing: ${stdout}`);
    tarball = join(scratch, info.filename);
    packed = info.files.map((file) => file.path);
  }, 120_000);

  it('holds the LICENSE, the docs, the schema files and both entries, and no test or CI file', () => {
    expect(packed).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'CHANGELOG.md',
        'docs/storefront.md',
        'docs/adr/0001-fast-path-over-yoga.md',
        'package.json',
        'schema.graphql',
        'subgraph.graphql',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/service.js',
        'dist/service.d.ts',
        'dist/main.js',
      ]),
    );
    // schema.typed.graphql is the demo store's schema, of no use to another store.
    expect(packed.filter((path) => /^(test|bench|\.ci|scripts)\//.test(path))).toEqual([]);
    expect(packed).not.toContain('schema.typed.graphql');
    // The released schema is CI's baseline (npm run schema:check-changes), not the package's.
    expect(packed).not.toContain('schema.released.graphql');
    // Every page the README links to is in the package, so its links work where it is installed.
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const linked = [
      ...readme.matchAll(/\]\((docs\/[^)#]+\.md|CHANGELOG\.md|LICENSE)(?:#[^)]*)?\)/g),
    ].map(([, path]) => path);
    expect(linked.length).toBeGreaterThan(0);
    expect(linked.filter((path) => !packed.includes(path as string))).toEqual([]);
    expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toMatch(
      /^MIT License\n\nCopyright \(c\) 2026 commerce-gateway contributors\n/,
    );
  });

  it('installs from the npm registry with the lowest and the newest graphql, runs no install script, and serves', async () => {
    const { lowest, newest } = graphqlVersionsToTry(pkg.peerDependencies.graphql ?? '');
    const install = async (graphql: string) => {
      const dir = mkdtempSync(join(tmpdir(), 'commerce-gateway-consumer-'));
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
      );
      await run(
        'npm',
        ['install', '--no-audit', '--no-fund', '--prefer-offline', `graphql@${graphql}`, tarball],
        { cwd: dir, env: consumerNpmEnv(), timeout: 180_000 },
      );
      return dir;
    };
    const dirs = await Promise.all([install(lowest), install(newest)]);
    try {
      for (const [dir, wanted] of [
        [dirs[0] as string, lowest],
        [dirs[1] as string, newest],
      ] as const) {
        const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')) as {
          packages: Record<string, { version?: string; hasInstallScript?: boolean }>;
        };
        const scripted = Object.entries(lock.packages)
          .filter(([, entry]) => entry.hasInstallScript)
          .map(([path]) => path);
        expect(scripted, `install scripts with graphql@${wanted}`).toEqual([]);
        // One graphql at the top, the consumer's: ours and Pothos's and Yoga's are that one.
        const topGraphql = lock.packages['node_modules/graphql']?.version ?? '';
        if (wanted === lowest) expect(topGraphql).toBe(lowest);
        else expect(topGraphql.split('.')[0]).toBe(newest.slice(1).split('.')[0]);
        expect(lock.packages['node_modules/commerce-gateway/node_modules/graphql']).toBeUndefined();

        writeFileSync(join(dir, 'serve.mjs'), CONSUMER_SERVE);
        const served = await run(process.execPath, ['serve.mjs'], { cwd: dir, env: cleanEnv() });
        const result = JSON.parse(served.stdout) as Record<string, unknown> & {
          orders: { status: number; body: { data?: { orders: { totalCount: number } } } };
        };
        expect(result.graphql).toBe(topGraphql);
        expect(result.orders.status).toBe(200);
        expect(result.orders.body.data?.orders.totalCount).toBe(3);
        expect(result).toMatchObject({
          typed: { status: 200, totalCount: 'number' },
          tokens: '200 QUERY_TOO_COMPLEX',
          aliases: '200 QUERY_TOO_COMPLEX',
          directives: '200 QUERY_TOO_COMPLEX',
        });

        writeFileSync(join(dir, 'main-only.mjs'), CONSUMER_MAIN_ONLY);
        const mainOnly = await run(process.execPath, ['main-only.mjs'], {
          cwd: dir,
          env: cleanEnv(),
        });
        expect(JSON.parse(mainOnly.stdout)).toEqual({
          body: { data: { __typename: 'Query' } },
          sqlite: [],
          embedded: [],
          // The subpath does load it: on this played older Node it fails as it would there.
          service: 'ERR_UNKNOWN_BUILTIN_MODULE',
        });
      }
    } finally {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
