/**
 * The subgraph's entities come from the resource descriptions (`entity: true`), with no second
 * list to forget one in: every resource whose description says entity has its `@key` in the
 * committed subgraph.graphql and is a member of `_Entity`. The resources are found by importing
 * every module of src/schema/ and reading what they export (a resource, or an object holding
 * resources, like a promotion engine's), not from the list the schema is built with.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { EntityDefinition } from '../../src/schema/federation.ts';

interface Described {
  name: string;
  entity: EntityDefinition | undefined;
}

const isDescribed = (value: unknown): value is Described =>
  typeof value === 'object' &&
  value !== null &&
  'entity' in value &&
  'name' in value &&
  typeof (value as { name: unknown }).name === 'string';

async function describedResources(): Promise<Described[]> {
  const files = readdirSync('src/schema', { recursive: true, encoding: 'utf8' }).filter((name) =>
    name.endsWith('.ts'),
  );
  const found = new Map<string, Described>();
  for (const file of files) {
    const exports = (await import(`../../src/schema/${file}`)) as Record<string, unknown>;
    for (const value of Object.values(exports)) {
      const candidates =
        typeof value === 'object' && value !== null && !isDescribed(value)
          ? Object.values(value)
          : [value];
      for (const candidate of candidates) {
        if (isDescribed(candidate)) found.set(candidate.name, candidate);
      }
    }
  }
  return [...found.values()];
}

describe('federation entities', () => {
  it('every resource described as an entity has a @key in subgraph.graphql and is in _Entity', async () => {
    const resources = await describedResources();
    const entities = resources.filter((resource) => resource.entity !== undefined);
    // The walk finds them: orders, accounts, account members and the catalog's at least.
    expect(entities.map((resource) => resource.name)).toEqual(
      expect.arrayContaining(['Order', 'Account', 'AccountMember', 'Product', 'Promotion']),
    );
    const sdl = readFileSync('subgraph.graphql', 'utf8');
    const missing = entities
      .filter((resource) => {
        const keys = (resource.entity as EntityDefinition).keyFields.join(' ');
        const typeLine = new RegExp(
          `^type ${resource.name} implements [^{]*@key\\(fields: "${keys}"\\) \\{`,
          'm',
        );
        return !typeLine.test(sdl);
      })
      .map((resource) => resource.name);
    expect(missing).toEqual([]);

    const { schema } = await import('../../src/schema/index.ts');
    const union = schema.getType('_Entity') as { getTypes(): { name: string }[] } | undefined;
    const members = new Set(union?.getTypes().map((type) => type.name));
    expect(entities.map((resource) => resource.name).filter((name) => !members.has(name))).toEqual(
      [],
    );
  });
});
