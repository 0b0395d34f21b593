/**
 * The examples of the README and of every page of docs/, run. Every fenced block of README.md
 * and of docs/*.md (and docs/adr/*.md) is either run here, against one gateway started as
 * `npm start` starts it (the embedded service with the demo store seeded, `:memory:`, ports 0),
 * or marked right before it with `<!-- readme-test: skip (why) -->`; a block that is neither
 * fails the first test, so a new example is run from the day it is written, and a docs change
 * that breaks one fails CI. The order is stable: README.md first, then PAGES below in the order
 * written (a later page's examples may rely on an earlier page's writes), then docs/adr/ by file
 * name, each page's blocks in the order written. A page of docs/ that PAGES does not name fails
 * the first test, so none is left unrun.
 *
 * - ```graphql: run unless marked skip. POSTed with the demo token GraphiQL carries; the answer
 *   has no `errors` and no root field is null.
 * - ```sh / ```bash / ```shell: run only when marked `<!-- readme-test: run -->`, never merely for being
 *   unmarked: a shell block can do anything (`npm ci`, `git worktree add`, a benchmark), so an
 *   unmarked one fails the first test without being executed. Run by bash with
 *   `set -euo pipefail` in the repository, the examples' ports (4000 the gateway, 4010 the
 *   embedded service) replaced by this gateway's, its process group killed when it ends; it
 *   exits 0 and no JSON line it prints has `errors`.
 * - A `# → …` line states an answer: of the block's operation (GraphQL), or of the command
 *   before it (shell: the last JSON line printed before it). What it claims is checked: every
 *   amount (`€77.00`, `-$12.50`) is a value of the answer, under the key written right before it
 *   when the answer has such a key (`withTax €77.00`); every quoted text (`"Welcome"`) is a value
 *   of it; `Mug × 2` (or `"Hand grinder" × 2`) is an object holding the values `Mug` and 2. A `→` line that claims nothing
 *   checkable fails.
 * And GraphiQL opens with the README's first GraphQL block, character for character.
 *
 * The storefront journey of docs/storefront.md is run here as written;
 * test/gateway/storefront-journey.test.ts walks the same journey in more depth (another
 * customer's view, every payload).
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MainProcess, spawnMain } from '../support/main-process.ts';

interface Block {
  /** The page it is on, from the repository's root: `README.md`, `docs/storefront.md`. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  /** The lines between the fences, each ending in a newline. */
  body: string;
  /** The reason of a `<!-- readme-test: skip (…) -->` right before the block. */
  skip: string | undefined;
  /** `<!-- readme-test: run -->` right before the block. */
  run: boolean;
}

const SHELL = new Set(['sh', 'bash', 'shell']);
/** Whether the test runs the block: GraphQL unless skipped, shell only when marked `run`. */
const runs = (block: Block) =>
  block.skip === undefined && (block.lang === 'graphql' || (SHELL.has(block.lang) && block.run));
const MARKER = /^\s*<!--\s*readme-test:(.*?)-->\s*$/;

/** The fenced blocks of a Markdown page, and what is wrong with its markers. */
function pageBlocks(file: string, text: string): { blocks: Block[]; problems: string[] } {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  const problems: string[] = [];
  const usedMarkers = new Set<number>();
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^`\s]*)/.exec(lines[i] as string);
    if (!open) continue;
    const [, indent = '', fence = '', info = ''] = open;
    const lang = info.toLowerCase();
    const close = new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !close.test(lines[j] as string)) {
      const bodyLine = lines[j] as string;
      body.push(bodyLine.startsWith(indent) ? bodyLine.slice(indent.length) : bodyLine.trimStart());
      j++;
    }
    if (j === lines.length) problems.push(`${file}:${i + 1}: the block never closes`);
    let before = i - 1;
    while (before >= 0 && (lines[before] as string).trim() === '') before--;
    const marker = before >= 0 ? MARKER.exec(lines[before] as string) : null;
    let skip: string | undefined;
    let run = false;
    if (marker) {
      usedMarkers.add(before);
      const directive = (marker[1] as string).trim();
      const reason = /^skip\s+\((.+)\)$/.exec(directive)?.[1]?.trim();
      if (reason) skip = reason;
      else if (directive === 'run') run = true;
      else problems.push(`${file}:${before + 1}: "${directive}" is neither "skip (why)" nor "run"`);
    }
    blocks.push({ file, line: i + 1, lang, body: body.map((l) => `${l}\n`).join(''), skip, run });
    i = j;
  }
  lines.forEach((line, index) => {
    if (MARKER.test(line) && !usedMarkers.has(index)) {
      problems.push(`${file}:${index + 1}: a readme-test marker with no block right after it`);
    }
  });
  return { blocks, problems };
}

/**
 * The pages of docs/ after README.md, in the order their examples run: the storefront's first
 * (its journey writes carts and orders that later pages' reads may count), the guide to
 * building one from an empty directory next, then the rest as a reader would take them.
 */
const PAGES = [
  'docs/storefront.md',
  'docs/building-a-storefront.md',
  'docs/paging.md',
  'docs/incremental-delivery.md',
  'docs/schema.md',
  'docs/errors.md',
  'docs/merchandiser.md',
  'docs/security.md',
  'docs/compiled-documents.md',
  'docs/operations.md',
  'docs/integration.md',
  'docs/subscriptions.md',
  'docs/embedded-service.md',
  'docs/benchmarks.md',
  'docs/request-budget.md',
  'docs/development.md',
  'docs/contributing.md',
];
const root = new URL('../../', import.meta.url);
const markdownIn = (dir: string) =>
  readdirSync(new URL(dir, root))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `${dir}${name}`);
const onDisk = markdownIn('docs/');
const files = [
  'README.md',
  ...PAGES.filter((file) => onDisk.includes(file)),
  ...markdownIn('docs/adr/'),
];
const blocks: Block[] = [];
const problems: string[] = [
  ...onDisk
    .filter((file) => !PAGES.includes(file))
    .map(
      (file) => `${file}: a page of docs/ that PAGES does not name (its examples would not run)`,
    ),
  ...PAGES.filter((file) => !onDisk.includes(file)).map((file) => `${file}: named but missing`),
];
for (const file of files) {
  const found = pageBlocks(file, readFileSync(new URL(file, root), 'utf8'));
  blocks.push(...found.blocks);
  problems.push(...found.problems);
}
const runnable = blocks.filter(runs);

// --- What a `# →` line claims, and whether an answer bears it out -------------------------

type Json = unknown;

function* walk(node: Json): Generator<Json> {
  yield node;
  if (typeof node === 'object' && node !== null) {
    for (const child of Object.values(node)) yield* walk(child);
  }
}

function* underKey(node: Json, key: string): Generator<Json> {
  for (const value of walk(node)) {
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && key in value) {
      yield (value as Record<string, Json>)[key];
    }
  }
}

const hasValue = (node: Json, wanted: string | number) =>
  [...walk(node)].some((value) => value === wanted);

const MONEY = /(?:([A-Za-z][\w']*)\s+)?(-?[€$£¥]\d[\d,]*(?:\.\d+)?)/g;
const QUOTED = /"([^"]+)"|“([^”]+)”/g;
const TIMES = /(?:"([^"]+)"|(\S+))\s*×\s*(\d+)\b/g;

/** What `expectation` claims that `answer` does not bear out; throws when it claims nothing. */
function unmetClaims(answer: Json, expectation: string): string[] {
  const unmet: string[] = [];
  let claims = 0;
  for (const [, label, amount = ''] of expectation.matchAll(MONEY)) {
    claims++;
    const scopes = label ? [...underKey(answer, label)] : [];
    const within = scopes.length > 0 ? scopes : [answer];
    if (!within.some((scope) => hasValue(scope, amount))) {
      unmet.push(scopes.length > 0 ? `${label} ${amount}` : amount);
    }
  }
  for (const [, straight, curly] of expectation.matchAll(QUOTED)) {
    claims++;
    const text = straight ?? curly ?? '';
    if (!hasValue(answer, text)) unmet.push(`"${text}"`);
  }
  for (const [, quoted, word, count] of expectation.matchAll(TIMES)) {
    claims++;
    const name = quoted ?? word ?? '';
    const found = [...walk(answer)].some((value) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
      const own = Object.values(value);
      return own.includes(name) && own.includes(Number(count));
    });
    if (!found) unmet.push(`${name} × ${count}`);
  }
  if (claims === 0) throw new Error(`"→ ${expectation}" claims nothing this test can check`);
  return unmet;
}

const ARROW = /^\s*#\s*→\s*(.*)$/;

// --- The gateway, as `npm start` runs it -------------------------------------------------

let main: MainProcess;
let gatewayUrl: string;
let serviceUrl: string;
let graphiql: { defaultQuery: string; token: string };

beforeAll(async () => {
  // Only the README's defaults: nothing of the caller's environment may change the demo store.
  main = await spawnMain({
    NODE_ENV: undefined,
    HOST: undefined,
    COMMERCE_DB: ':memory:',
    COMMERCE_PORT: '0',
    COMMERCE_CLIENTS: undefined,
    COMMERCE_SEED: undefined,
    UPSTREAM_URL: undefined,
    GRAPHIQL: undefined,
    PERSISTED_DOCUMENTS: undefined,
    SCHEMA_CLIENT_ID: undefined,
    SCHEMA_CLIENT_SECRET: undefined,
    LOG_REQUESTS: '0',
  });
  gatewayUrl = main.url;
  [, serviceUrl = ''] = await main.waitFor(/upstream v2 API: +(http:\/\/\S+) \(embedded\)/);
  const page = await fetch(gatewayUrl, { headers: { accept: 'text/html' } });
  const html = await page.text();
  const json = /id="graphiql-options">([\s\S]*?)<\/script>/.exec(html)?.[1];
  if (page.status !== 200 || json === undefined) throw new Error(`no GraphiQL page: ${html}`);
  const options = JSON.parse(json) as { defaultQuery: string; headers?: string };
  const headers = JSON.parse(options.headers ?? '{}') as { Authorization?: string };
  graphiql = {
    defaultQuery: options.defaultQuery,
    token: headers.Authorization?.replace(/^Bearer /, '') ?? '',
  };
}, 90_000);

afterAll(() => {
  if (main && main.child.exitCode === null) main.child.kill('SIGKILL');
});

async function runGraphql(block: Block): Promise<void> {
  const response = await fetch(gatewayUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json',
      authorization: `Bearer ${graphiql.token}`,
    },
    body: JSON.stringify({ query: block.body }),
  });
  const answer = (await response.json()) as { data?: Record<string, Json> | null; errors?: Json };
  const shown = JSON.stringify(answer).slice(0, 2000);
  expect(response.status, shown).toBe(200);
  expect(answer.errors, shown).toBeUndefined();
  expect(answer.data, shown).toBeTypeOf('object');
  for (const [field, value] of Object.entries(answer.data ?? {})) {
    expect(value, `${field} is null: ${shown}`).not.toBeNull();
  }
  for (const line of block.body.split('\n')) {
    const expectation = ARROW.exec(line)?.[1];
    if (expectation !== undefined) expect(unmetClaims(answer, expectation), shown).toEqual([]);
  }
}

async function runShell(block: Block): Promise<void> {
  const gateway = new URL(gatewayUrl).host;
  const service = new URL(serviceUrl).host;
  const expectations: string[] = [];
  const script = block.body
    .split('\n')
    .map((line) => {
      const expectation = ARROW.exec(line)?.[1];
      if (expectation === undefined) return line;
      expectations.push(expectation);
      return `echo '@@readme-expect ${expectations.length - 1}'`;
    })
    .join('\n')
    .replace(/\b(?:localhost|127\.0\.0\.1):4000\b/g, gateway)
    .replace(/\b(?:localhost|127\.0\.0\.1):4010\b/g, service);
  const child = spawn('bash', ['-e', '-u', '-o', 'pipefail', '-c', script], {
    // `node` in the examples is the Node running the tests (the pinned one under npm test).
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A group of its own: whatever the block started is killed with it, never left running.
    detached: true,
  });
  const killGroup = () => {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // The group is gone already.
    }
  };
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const timer = setTimeout(killGroup, 60_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  killGroup();
  const shown = `exit ${code}\n${stdout}\n${stderr}`.slice(0, 4000);
  expect(code, shown).toBe(0);
  let last: Json;
  let checked = 0;
  for (const line of stdout.split('\n')) {
    const marker = /^@@readme-expect (\d+)$/.exec(line);
    if (marker) {
      const expectation = expectations[Number(marker[1])] as string;
      expect(last, `nothing printed before "→ ${expectation}"`).toBeDefined();
      expect(unmetClaims(last, expectation), `→ ${expectation}\n${shown}`).toEqual([]);
      checked++;
      continue;
    }
    // Answers are the JSON lines; anything else a command prints is not checked.
    let parsed: Json;
    try {
      parsed = line.startsWith('{') ? (JSON.parse(line) as Json) : undefined;
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined) continue;
    last = parsed;
    expect((last as { errors?: Json }).errors, line).toBeUndefined();
  }
  expect(checked, 'every → line was reached').toBe(expectations.length);
}

describe('the README and docs/', () => {
  it('have every fenced block run here or marked `<!-- readme-test: skip (why) -->`', () => {
    const unmarked = blocks
      .filter((block) => block.skip === undefined && !runs(block))
      .map((block) =>
        SHELL.has(block.lang)
          ? `${block.file}:${block.line}: a shell block is run only when marked: put ` +
            '<!-- readme-test: run --> (if it can run against the test gateway) or ' +
            '<!-- readme-test: skip (why) --> right before it'
          : `${block.file}:${block.line}: a \`\`\`${block.lang} block is neither run (graphql; sh or ` +
            'bash marked run) nor marked: put <!-- readme-test: skip (why) --> right before it',
      );
    const misplaced = blocks
      .filter((block) => block.run && !SHELL.has(block.lang))
      .map((block) => `${block.file}:${block.line}: "run" marks shell blocks only`);
    expect([...problems, ...unmarked, ...misplaced]).toEqual([]);
    expect(runnable.filter((block) => block.lang === 'graphql').length).toBeGreaterThan(0);
    expect(runnable.filter((block) => SHELL.has(block.lang)).length).toBeGreaterThan(0);
  });

  it("opens GraphiQL with the README's first query, exactly, and the demo token", () => {
    const first = blocks.find((block) => block.file === 'README.md' && block.lang === 'graphql');
    expect(first?.skip).toBeUndefined();
    expect(graphiql.defaultQuery).toBe(first?.body);
    expect(graphiql.token).toMatch(/^\S{20,}$/);
  });

  for (const block of runnable) {
    const firstLine = block.body.split('\n').find((line) => line.trim() !== '') ?? '';
    it(`runs ${block.file}:${block.line} (${block.lang}: ${firstLine.trim().slice(0, 60)})`, async () => {
      if (block.lang === 'graphql') await runGraphql(block);
      else await runShell(block);
    }, 90_000);
  }
});
