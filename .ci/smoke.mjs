// A new user's first minute, checked: in DIR (a fresh clone, already installed), `npm start`
// must come up on the embedded default, serve a page of orders through the gateway QUERIES
// times at CONCURRENCY requests at once with no error, keep running throughout, and stop
// cleanly (exit 0) on SIGTERM. The Node that `npm start` actually ran on must have the
// expected major.
//
//   node .ci/smoke.mjs DIR EXPECTED_NODE_MAJOR [QUERIES=400] [CONCURRENCY=8]
//
// Plain JavaScript for any Node from 20 on; it uses whatever `npm` is first on PATH.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const [dir, expectedMajor, queries = '400', concurrency = '8'] = process.argv.slice(2);
if (!dir || !expectedMajor) {
  console.error('usage: node .ci/smoke.mjs DIR EXPECTED_NODE_MAJOR [QUERIES] [CONCURRENCY]');
  process.exit(2);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** The deepest process under `pid` whose command line runs src/main.ts: the gateway itself. */
function gatewayProcess(pid) {
  const children = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  const runsMain = (p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').includes('src/main.ts');
    } catch {
      return false;
    }
  };
  let found = pid;
  const walk = (p) => {
    for (const child of children.get(p) ?? []) {
      if (runsMain(child)) found = child;
      walk(child);
    }
  };
  walk(pid);
  return found;
}

function fail(message, output) {
  console.error(`smoke: ${message}`);
  if (output) console.error(output.slice(-4000));
  process.exit(1);
}

const port = await freePort();
const commercePort = await freePort();
const child = spawn('npm', ['start'], {
  cwd: dir,
  env: {
    ...process.env,
    PORT: String(port),
    COMMERCE_PORT: String(commercePort),
    COMMERCE_DB: ':memory:',
    LOG_REQUESTS: '0',
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
let exited = null;
child.stdout.on('data', (chunk) => {
  output += chunk;
});
child.stderr.on('data', (chunk) => {
  output += chunk;
});
const exit = new Promise((resolve) => {
  child.on('exit', (code, signal) => {
    exited = { code, signal };
    resolve(exited);
  });
});

// Up within 60 s (the first start seeds the demo store).
const started = Date.now();
while (!/Authorization: Bearer (\S+)/.test(output)) {
  if (exited) fail(`npm start exited before it was ready (${JSON.stringify(exited)})`, output);
  if (Date.now() - started > 60_000) fail('npm start was not ready within 60 s', output);
  await new Promise((r) => setTimeout(r, 50));
}
const readyMs = Date.now() - started;
const token = /Authorization: Bearer (\S+)/.exec(output)[1];
const ranOn = /ready in \d+ ms \(Node v(\d+)\.[^)]*\)/.exec(output);
if (!ranOn) fail('the ready line does not name the Node version', output);
if (ranOn[1] !== expectedMajor) {
  fail(`npm start ran on Node ${ranOn[1]}, expected Node ${expectedMajor}`, output);
}

const query = '{ orders(first: 25) { totalCount edges { node { id status } } } }';
let sent = 0;
let ok = 0;
const failures = [];
async function worker() {
  while (sent < Number(queries)) {
    sent += 1;
    try {
      const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query }),
      });
      const body = await response.json();
      const edges = body?.data?.orders?.edges;
      if (response.status !== 200 || body.errors || !Array.isArray(edges) || edges.length !== 25) {
        failures.push(`${response.status} ${JSON.stringify(body).slice(0, 300)}`);
      } else {
        ok += 1;
      }
    } catch (error) {
      failures.push(String(error));
    }
  }
}
const queriesStarted = Date.now();
await Promise.all(Array.from({ length: Number(concurrency) }, worker));
const queriesMs = Date.now() - queriesStarted;
if (exited) fail(`npm start died while serving (${JSON.stringify(exited)})`, output);
if (failures.length > 0) {
  fail(`${failures.length} of ${queries} queries failed; first: ${failures[0]}`, output);
}

// A refusal by the query limits is the caller's error with its code, never a 500: under
// `node --import tsx`, tsx's CommonJS hook loads a second copy of graphql for graphql-armor, whose
// errors Yoga then cannot recognise (npm start runs scripts/ts.mjs: Node's own type stripping, or
// where Node has none, tsx's ESM hooks alone).
// Far over MAX_COST: ten wide pages of 1,000 orders (100 upstream calls and 10,000 rows; the cost
// model in src/gateway/query-cost.ts counts calls, rows and values).
const wide = 'id upstreamId status payment shipping customerName customerEmail createdAt updatedAt';
const overLimit = `{ ${Array.from(
  { length: 10 },
  (_, i) => `o${i}: orders(first: 1000) { edges { node { ${wide} total { amount currency } } } }`,
).join(' ')} }`;
const refused = await fetch(`http://127.0.0.1:${port}/graphql`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
  body: JSON.stringify({ query: overLimit }),
});
const refusal = await refused.json().catch(() => ({}));
const refusalCode = refusal?.errors?.[0]?.extensions?.code;
if (refused.status >= 500 || refusalCode !== 'QUERY_TOO_COMPLEX') {
  fail(`an over-limit query got ${refused.status} ${refusalCode}`, output);
}

// The gateway is the deepest process under npm that runs src/main.ts (npm → sh → node):
// stop it as a process manager would, and expect the whole chain to exit 0.
const gateway = gatewayProcess(child.pid);
process.kill(gateway, 'SIGTERM');
const timer = setTimeout(
  () => fail('npm start did not stop within 20 s of SIGTERM', output),
  20_000,
);
const { code, signal } = await exit;
clearTimeout(timer);
if (code !== 0) fail(`npm start exited with ${code ?? signal} after SIGTERM`, output);

console.log(
  `smoke: Node ${ranOn[1]} ready in ${readyMs} ms; ${ok}/${queries} queries at ` +
    `${concurrency} concurrent in ${queriesMs} ms; clean stop`,
);
