#!/usr/bin/env node
/**
 * Starts the Hive Gateway peer: Hive Gateway 2's own CLI (`hive-gateway supergraph`, with
 * gateway.config.ts) serving the Mesh-composed OpenAPI supergraph of the commerce service's
 * GET /v2/orders, in this process (so this process's pid is the gateway's, for CPU and RSS).
 *
 *   node bench/peers/hive/start.mjs --upstream http://127.0.0.1:4010 --port 4100 [--host 127.0.0.1]
 *
 * Installs this folder's packages on first use (setup.mjs), composes the supergraph for that
 * upstream (cached per upstream in generated/), and once the gateway answers prints one line
 * to stdout: {"url":"http://127.0.0.1:4100/graphql"}. Set-up progress goes to stderr; the
 * gateway's own log (errors only) to stdout, as the CLI writes it. Exits on SIGTERM or SIGINT.
 * Plain JavaScript for Node 22 and later.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { compose, ensureInstalled, here, hiveGatewayBin } from './setup.mjs';

const { values } = parseArgs({
  options: {
    upstream: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string', default: '127.0.0.1' },
  },
});
if (!values.upstream || !values.port || !/^\d+$/.test(values.port)) {
  process.stderr.write(
    'usage: node bench/peers/hive/start.mjs --upstream http://127.0.0.1:PORT --port N [--host H]\n',
  );
  process.exit(2);
}
const port = Number(values.port);
const host = values.host;

ensureInstalled();
const upstream = new URL(values.upstream);
const supergraph = compose({
  upstream: upstream.origin,
  out: join('generated', `supergraph-${upstream.hostname}-${upstream.port || 'default'}.graphql`),
});

// Stop on SIGTERM/SIGINT: the gateway's own handlers close its server and upstream pools; this
// makes sure the process is gone within a second even if a socket lingers.
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    setTimeout(() => process.exit(0), 1000).unref();
  });
}

// Exactly `hive-gateway supergraph <file> -c gateway.config.ts -h <host> -p <port>`: flags
// rather than the CLI's environment fallbacks (PORT, HOST, FORK, CONFIG_PATH), one process.
// LOG_LEVEL=error quiets the CLI's start-up lines too (the config sets the level afterwards);
// Node 26's deprecation notice for module.register, which the CLI calls, is not ours to show.
// NODE_ENV=production (unless set) as a deployment runs it: graphql-js skips its development checks.
process.chdir(here);
process.env.NODE_ENV ??= 'production';
process.env.LOG_LEVEL ??= 'error';
process.noDeprecation = true;
const bin = hiveGatewayBin();
process.argv = [
  process.execPath,
  bin,
  'supergraph',
  supergraph,
  '--config-path',
  join(here, 'gateway.config.ts'),
  '--host',
  host,
  '--port',
  String(port),
  '--fork',
  '1',
];
await import(pathToFileURL(bin).href);

// The CLI listens only once the supergraph is loaded; wait for its health check to answer.
const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
const deadline = Date.now() + 60_000;
for (;;) {
  const ok = await fetch(`${origin}/healthcheck`).then(
    (response) => response.ok,
    () => false,
  );
  if (ok) break;
  if (Date.now() > deadline) {
    process.stderr.write(`[hive peer] the gateway did not answer on ${origin} within 60 s\n`);
    process.exit(1);
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
}
process.stdout.write(`${JSON.stringify({ url: `${origin}/graphql` })}\n`);
