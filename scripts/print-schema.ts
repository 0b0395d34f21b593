/**
 * `npm run schema` writes schema.graphql: the gateway's static SDL, sorted so that moving code
 * around never changes the file, and subgraph.graphql: the same schema as a Federation v2
 * subgraph (what `_service { sdl }` answers: `@link`, `@key`, without `_entities`/`_service`). `npm run schema -- --typed` writes schema.typed.graphql: the
 * full schema of the demo store, i.e. the static one plus the types generated from the demo
 * Custom APIs' field definitions (read over HTTP from an in-memory embedded service, as the
 * gateway reads them). `--check` writes nothing and exits 1 when the committed file differs,
 * for CI and the drift test. The files are generated, never written at server start.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { createCommerceService } from '../src/commerce-service/app.ts';
import { DEFAULT_CLIENTS } from '../src/commerce-service/config.ts';
import { withIncrementalDelivery } from '../src/gateway/incremental.ts';
import { printSubgraphSchema } from '../src/schema/federation.ts';
import { schema } from '../src/schema/index.ts';
import { buildTypedSchema } from '../src/schema/typed/build-typed-schema.ts';
import { createUpstream } from '../src/upstream/index.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const SCHEMA_FILE = join(ROOT, 'schema.graphql');
export const TYPED_SCHEMA_FILE = join(ROOT, 'schema.typed.graphql');
export const SUBGRAPH_FILE = join(ROOT, 'subgraph.graphql');

const print = (printed: GraphQLSchema) => `${printSchema(lexicographicSortSchema(printed))}\n`;

/** The static SDL as it should be committed: the schema as the gateway serves it. */
export function renderSchema(): string {
  return print(withIncrementalDelivery(schema));
}

/** The static schema's Federation v2 subgraph SDL as it should be committed. */
export function renderSubgraphSchema(): string {
  return printSubgraphSchema(schema);
}

/** The demo store's full schema (static plus generated), built as the gateway builds it. */
export async function buildDemoTypedSchema(): Promise<GraphQLSchema> {
  const demo = DEFAULT_CLIENTS[0] ?? { id: 'demo', secret: 'demo-secret' };
  const service = await createCommerceService({
    dbPath: ':memory:',
    clients: [demo],
    seed: true,
    seedOptions: { orders: 0 },
    logger: false,
  });
  await service.listen({ port: 0, host: '127.0.0.1' });
  const upstream = createUpstream({
    url: `http://127.0.0.1:${(service.server.address() as AddressInfo).port}`,
  });
  const reader = upstream.definitions({ clientId: demo.id, clientSecret: demo.secret });
  try {
    return withIncrementalDelivery(buildTypedSchema(schema, await reader.read()).schema);
  } finally {
    await upstream.close();
    await service.close();
  }
}

export async function renderTypedSchema(): Promise<string> {
  return print(await buildDemoTypedSchema());
}

async function main(): Promise<void> {
  const typed = process.argv.includes('--typed');
  const files = typed
    ? [{ file: TYPED_SCHEMA_FILE, expected: await renderTypedSchema() }]
    : [
        { file: SCHEMA_FILE, expected: renderSchema() },
        { file: SUBGRAPH_FILE, expected: renderSubgraphSchema() },
      ];
  const check = process.argv.includes('--check');
  let drift = false;
  for (const { file, expected } of files) {
    const name = basename(file);
    if (!check) {
      writeFileSync(file, expected);
      console.log(`wrote ${file}`);
      continue;
    }
    let current = '';
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      // A missing file is drift too.
    }
    if (current === expected) {
      console.log(`${name} is up to date`);
    } else {
      console.error(
        `${name} is out of date: run \`npm run schema${typed ? ' -- --typed' : ''}\` and commit it`,
      );
      drift = true;
    }
  }
  if (drift) process.exit(1);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
