/**
 * `npm run schema:check-changes`: compares schema.graphql with schema.released.graphql (the
 * schema as of the last release, committed) using graphql-js's findBreakingChanges, and fails
 * (exit 1, listing them) on any breaking change that CHANGELOG.md's Unreleased section does not
 * name. Run by `.ci/run`.
 *
 * The matchable form: every breaking change has one schema coordinate, the most specific thing
 * it changed (`Query.files` for a removed field, `Product.price(currency:)` for an argument,
 * `OrderStatus.PAID` for an enum value, `_Entity` for a member leaving that union, `Cart` for a
 * removed type, `@key` for a directive), and that coordinate must appear in backquotes in the
 * `### Breaking` list of `## [Unreleased]`:
 *
 *   ## [Unreleased]
 *   ### Breaking
 *   - `Query.files` removed: list files with `fileConnection` instead.
 *
 * A coordinate named anywhere else (an older version's section, prose outside that list) does
 * not count. Dangerous changes (an enum value added, an optional argument added, …) are printed
 * and never fail. On release, schema.released.graphql becomes a copy of schema.graphql and the
 * Unreleased section becomes the version's.
 *
 * `--dir <path>` reads the three files from another folder (the test runs it on a temp copy).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type BreakingChange,
  buildSchema,
  type DangerousChange,
  findBreakingChanges,
  findDangerousChanges,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
} from 'graphql';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Every coordinate a schema defines: types, fields, input fields, enum values, arguments, directives. */
function coordinatesOf(schema: GraphQLSchema): Set<string> {
  const known = new Set<string>();
  for (const [name, type] of Object.entries(schema.getTypeMap())) {
    if (name.startsWith('__')) continue;
    known.add(name);
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        known.add(`${name}.${field.name}`);
        for (const arg of 'args' in field ? field.args : []) {
          known.add(`${name}.${field.name}(${arg.name}:)`);
        }
      }
    }
    if (isEnumType(type)) for (const value of type.getValues()) known.add(`${name}.${value.name}`);
  }
  for (const directive of schema.getDirectives()) {
    known.add(`@${directive.name}`);
    for (const arg of directive.args) known.add(`@${directive.name}(${arg.name}:)`);
  }
  return known;
}

const COORDINATE =
  /@?[_A-Za-z][_0-9A-Za-z]*(?:\.[_A-Za-z][_0-9A-Za-z]*)?(?:\([_A-Za-z][_0-9A-Za-z]*:\))?/g;

/**
 * The coordinate a change is listed by: the most specific coordinate its description names that
 * either schema defines (an argument over a field over a type); for a union that lost a member,
 * the union. graphql-js words its descriptions with schema coordinates (`Field Query.files was
 * removed.`), so this reads them rather than each change type's sentence.
 */
export function coordinateOf(change: BreakingChange, known: Set<string>): string {
  const named = [...change.description.matchAll(COORDINATE)]
    .map(([text]) => text)
    .filter((text) => known.has(text));
  const enumValue = /^(\w+) was removed from enum type (\w+)\.$/.exec(change.description);
  if (enumValue) return `${enumValue[2]}.${enumValue[1]}`;
  if (change.type === 'TYPE_REMOVED_FROM_UNION' && named.length > 0) return named.at(-1) as string;
  const specificity = (text: string) => (text.includes('(') ? 2 : text.includes('.') ? 1 : 0);
  const best = [...named].sort((a, b) => specificity(b) - specificity(a))[0];
  return best ?? change.description;
}

/** The backquoted texts of CHANGELOG.md's `### Breaking` list under `## [Unreleased]`. */
export function listedBreaking(changelog: string): Set<string> {
  const lines = changelog.split('\n');
  const start = lines.findIndex((line) => /^##\s+\[?Unreleased\]?\s*$/i.test(line));
  const listed = new Set<string>();
  if (start === -1) return listed;
  let inBreaking = false;
  for (const line of lines.slice(start + 1)) {
    if (/^##\s/.test(line)) break;
    if (/^###\s/.test(line)) {
      inBreaking = /^###\s+Breaking\b/i.test(line);
      continue;
    }
    if (!inBreaking) continue;
    for (const [, text] of line.matchAll(/`([^`]+)`/g)) listed.add((text as string).trim());
  }
  return listed;
}

export interface SchemaCheck {
  breaking: { coordinate: string; change: BreakingChange }[];
  unlisted: { coordinate: string; change: BreakingChange }[];
  dangerous: DangerousChange[];
}

/** Compares the schema with the released one and says which breaking changes go unlisted. */
export function checkSchemaChanges(
  released: string,
  current: string,
  changelog: string,
): SchemaCheck {
  const before = buildSchema(released);
  const after = buildSchema(current);
  const known = new Set([...coordinatesOf(before), ...coordinatesOf(after)]);
  const listed = listedBreaking(changelog);
  const breaking = findBreakingChanges(before, after).map((change) => ({
    coordinate: coordinateOf(change, known),
    change,
  }));
  return {
    breaking,
    unlisted: breaking.filter(({ coordinate }) => !listed.has(coordinate)),
    dangerous: findDangerousChanges(before, after),
  };
}

function main(): void {
  const at = process.argv.indexOf('--dir');
  const dir = at === -1 ? ROOT : (process.argv[at + 1] ?? ROOT);
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');
  const result = checkSchemaChanges(
    read('schema.released.graphql'),
    read('schema.graphql'),
    read('CHANGELOG.md'),
  );
  for (const change of result.dangerous) {
    console.log(`schema change (dangerous, not checked): ${change.description}`);
  }
  if (result.unlisted.length > 0) {
    console.error(
      `schema.graphql has ${result.unlisted.length} breaking change(s) since schema.released.graphql ` +
        'that CHANGELOG.md\'s Unreleased "### Breaking" list does not name (put each coordinate ' +
        'there in backquotes):',
    );
    for (const { coordinate, change } of result.unlisted) {
      console.error(`  \`${coordinate}\`: ${change.description}`);
    }
    process.exitCode = 1;
    return;
  }
  console.log(
    `schema changes: ${result.breaking.length} breaking, all listed in CHANGELOG.md's Unreleased ` +
      `section; ${result.dangerous.length} dangerous`,
  );
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main();
