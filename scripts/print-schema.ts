/**
 * `npm run schema` writes schema.graphql: the gateway's SDL, sorted so that moving code around
 * never changes the file. `--check` writes nothing and exits 1 when the committed file differs,
 * for CI and the drift test. The file is generated, never written at server start.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from '../src/schema/index.ts';

export const SCHEMA_FILE = join(dirname(fileURLToPath(import.meta.url)), '..', 'schema.graphql');

/** The SDL as it should be committed. */
export function renderSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}

function main(): void {
  const expected = renderSchema();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(SCHEMA_FILE, 'utf8');
    } catch {
      // A missing file is drift too.
    }
    if (current !== expected) {
      console.error('schema.graphql is out of date: run `npm run schema` and commit it');
      process.exit(1);
    }
    console.log('schema.graphql is up to date');
    return;
  }
  writeFileSync(SCHEMA_FILE, expected);
  console.log(`wrote ${SCHEMA_FILE}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
