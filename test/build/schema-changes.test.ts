/**
 * `npm run schema:check-changes` (scripts/check-schema-changes.ts), run as CI runs it but on a
 * temporary copy of schema.released.graphql, schema.graphql and CHANGELOG.md: a breaking
 * change fails (exit 1, naming its coordinate) until the CHANGELOG's Unreleased "Breaking" list
 * names it in backquotes; a mention anywhere else does not count.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSchema, type DocumentNode, parse, print, visit } from 'graphql';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSchemaChanges, listedBreaking } from '../../scripts/check-schema-changes.ts';

const root = new URL('../../', import.meta.url);
const released = readFileSync(new URL('schema.released.graphql', root), 'utf8');
const scratch = mkdtempSync(join(tmpdir(), 'schema-changes-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The released schema with one field of one type left out. */
function without(typeName: string, fieldName: string): string {
  const edited = visit(parse(released), {
    ObjectTypeDefinition(node) {
      if (node.name.value !== typeName) return undefined;
      return { ...node, fields: node.fields?.filter((field) => field.name.value !== fieldName) };
    },
  }) as DocumentNode;
  return print(edited);
}

const changelog = (breaking: string, older = '') => `# Changelog

## [Unreleased]

### Breaking

${breaking}

### Added

- Something new, naming \`Query.orders\` in passing.

## [0.1.0] - 2026-11-27

### Breaking

${older}
`;

function runCheck(schema: string, log: string) {
  const dir = mkdtempSync(join(scratch, 'case-'));
  writeFileSync(join(dir, 'schema.released.graphql'), released);
  writeFileSync(join(dir, 'schema.graphql'), schema);
  writeFileSync(join(dir, 'CHANGELOG.md'), log);
  const run = spawnSync(
    process.execPath,
    ['scripts/ts.mjs', 'scripts/check-schema-changes.ts', '--dir', dir],
    { cwd: root, encoding: 'utf8', timeout: 60_000 },
  );
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('npm run schema:check-changes', () => {
  it('is an npm script, and the committed released schema builds', () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts['schema:check-changes']).toBe(
      'node scripts/ts.mjs scripts/check-schema-changes.ts',
    );
    expect(() => buildSchema(released)).not.toThrow();
    expect(readFileSync(new URL('.ci/run', root), 'utf8')).toMatch(
      /^npm run schema:check-changes\b/m,
    );
  });

  it('passes an unchanged schema', () => {
    const result = runCheck(released, changelog('- None yet.'));
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('0 breaking');
  });

  it('fails on a removed field the Unreleased section does not list, naming its coordinate', () => {
    const result = runCheck(without('Query', 'files'), changelog('- None yet.'));
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('`Query.files`');
    expect(result.stderr).toMatch(/Query\.files was removed/);
  });

  it('passes once the Unreleased "Breaking" list names it', () => {
    const result = runCheck(
      without('Query', 'files'),
      changelog('- `Query.files` removed: read files through the REST API.'),
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('1 breaking, all listed');
  });

  it("does not count a mention in another version's section or outside the Breaking list", () => {
    const older = runCheck(
      without('Query', 'orders'),
      changelog('- None yet.', '- `Query.orders` removed.'),
    );
    expect(older.status).toBe(1);
    expect(older.stderr).toContain('`Query.orders`');
  });

  it('names arguments, enum values and union members by their own coordinates', () => {
    const schema = `type Query { product(id: ID!): Product list: [Item] status: Status }
type Product { id: ID! price(currency: String!): Int }
type A { id: ID! }
type B { id: ID! }
union Item = A | B
enum Status { OPEN CLOSED }
`;
    const changed = schema
      .replace('price(currency: String!)', 'price(currency: Int!)')
      .replace('union Item = A | B', 'union Item = A')
      .replace('enum Status { OPEN CLOSED }', 'enum Status { OPEN }');
    const none = checkSchemaChanges(schema, changed, changelog('- None yet.'));
    expect(none.unlisted.map(({ coordinate }) => coordinate).sort()).toEqual([
      'Item',
      'Product.price(currency:)',
      'Status.CLOSED',
    ]);
    const listed = checkSchemaChanges(
      schema,
      changed,
      changelog('- `Product.price(currency:)` takes an Int\n- `Item` lost `B`\n- `Status.CLOSED`'),
    );
    expect(listed.unlisted).toEqual([]);
  });

  it('reads only backquoted texts of the Unreleased "### Breaking" list', () => {
    const text = changelog('- `A.b` and `C`\n- plain D.e', '- `Old.one`');
    expect([...listedBreaking(text)].sort()).toEqual(['A.b', 'C']);
  });
});
