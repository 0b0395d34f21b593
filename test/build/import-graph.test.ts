/**
 * The floors hold by construction, read from the sources: the embedded commerce service
 * (`npm run service`, `npm run seed`) imports nothing from the rest of src/ and no GraphQL
 * package, so it runs, and can be moved out, without the gateway; nothing else imports it but
 * the two composition roots; the gateway reaches into src/upstream/ only through its front door
 * (index.ts) and the error family (errors.ts); the REST query of a list is spelled in one file;
 * src/ has no import cycle; and every runtime dependency is imported by the code that ships. The
 * walker and the cycle finder (test/support/import-graph.ts) are checked first.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importCycles, importSpecifiers, walkImportGraph } from '../support/import-graph.ts';

const SERVICE = 'src/commerce-service/';

/** Every TypeScript file under src/ (relative to the root). */
const SOURCES = readdirSync('src', { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.ts'))
  .map((name) => `src/${name}`)
  .sort();

/** GraphQL itself, its tool families, the schema builder and the query armor. */
const GRAPHQL_PACKAGE = /^(graphql|graphql-.+|@graphql-[^/]+\/.+|@pothos\/.+|@escape\.tech\/.+)$/;

describe('the import walker', () => {
  it('sees every form of import, type-only ones too, and nothing that only looks like one', () => {
    const source = `
import { a, type B } from './a.ts';
import type { C } from "./c.ts";
import D, * as e from '@scope/d/sub';
import {
  f,
  g as h,
} from 'node:fs';
import './side-effect.ts';
export { i } from './i.ts';
export type { J } from './j.ts';
export * as k from './k.ts';
export * from './l.ts';
const m = await import('./m.ts');
type N = typeof import('./n.ts');
const o = require('./o.cjs');
import json from './p.json' with { type: 'json' };
// import { x } from './comment.ts';
/* export * from './block-comment.ts'; import('./block.ts') */
const text = "import { y } from './string.ts'";
const template = \`import z from './template.ts' \${f(\`export * from './nested.ts'\`)} \`;
const re = /import q from '.\\/regex.ts'/;
const ratio = 10 / 2; const other = "from './after-division.ts'";
export { local };
export const from = 'x';
import.meta.url;
const lazy = await import(name);
`;
    expect(importSpecifiers(source)).toEqual({
      specifiers: [
        './a.ts',
        './c.ts',
        '@scope/d/sub',
        'node:fs',
        './side-effect.ts',
        './i.ts',
        './j.ts',
        './k.ts',
        './l.ts',
        './m.ts',
        './n.ts',
        './o.cjs',
        './p.json',
      ],
      dynamic: ['import(…)'],
    });
  });

  it('follows relative imports to their files and records packages by name', () => {
    const graph = walkImportGraph(['src/commerce-service/main.ts']);
    expect(graph.files).toContain('src/commerce-service/app.ts');
    expect(graph.files).toContain('src/commerce-service/carts/routes.ts');
    expect(graph.edges).toContainEqual({
      from: 'src/commerce-service/app.ts',
      specifier: 'fastify',
      packageName: 'fastify',
    });
  });
});

describe('the cycle finder', () => {
  it('finds every cycle, type-only ones and self-imports too, and nothing else', () => {
    const edge = (from: string, file: string) => ({ from, specifier: `./${file}`, file });
    const cycles = importCycles({
      edges: [
        edge('a.ts', 'b.ts'),
        edge('b.ts', 'c.ts'),
        edge('c.ts', 'a.ts'),
        edge('c.ts', 'd.ts'),
        edge('d.ts', 'e.ts'),
        edge('e.ts', 'd.ts'),
        edge('f.ts', 'f.ts'),
        edge('g.ts', 'a.ts'),
        { from: 'g.ts', specifier: 'graphql', packageName: 'graphql' },
      ],
    });
    expect(cycles).toEqual([['a.ts', 'b.ts', 'c.ts'], ['d.ts', 'e.ts'], ['f.ts']]);
    expect(importCycles({ edges: [edge('a.ts', 'b.ts'), edge('b.ts', 'c.ts')] })).toEqual([]);
  });
});

describe('the embedded commerce service stands apart', () => {
  // npm run service and npm run seed, and every other file of the folder, reached or not.
  const entries = [
    `${SERVICE}main.ts`,
    `${SERVICE}seed/cli.ts`,
    ...readdirSync(SERVICE, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .map((name) => `${SERVICE}${name}`),
  ];
  const graph = walkImportGraph(entries);

  it('imports no file outside src/commerce-service/', () => {
    const outside = graph.edges
      .filter((edge) => edge.file !== undefined && !edge.file.startsWith(SERVICE))
      .map((edge) => `${edge.from} → ${edge.file}`);
    expect(outside).toEqual([]);
    expect([...graph.files].filter((file) => !file.startsWith(SERVICE))).toEqual([]);
    expect(graph.unresolved).toEqual([]);
  });

  it('imports no GraphQL package (graphql, graphql-*, @graphql-*, @pothos/*, @escape.tech/*)', () => {
    const graphqlImports = graph.edges
      .filter((edge) => edge.packageName !== undefined && GRAPHQL_PACKAGE.test(edge.packageName))
      .map((edge) => `${edge.from} → ${edge.specifier}`);
    expect(graphqlImports).toEqual([]);
  });
});

describe('the library entry stands apart from the embedded service', () => {
  it('reaches neither the service, fastify nor node:sqlite (they are commerce-gateway/service)', () => {
    const graph = walkImportGraph(['src/index.ts']);
    const embedded = graph.edges
      .filter(
        (edge) =>
          edge.file === `${SERVICE}app.ts` ||
          edge.packageName === 'node:sqlite' ||
          edge.packageName === 'fastify' ||
          edge.packageName === '@fastify/multipart',
      )
      .map((edge) => `${edge.from} → ${edge.specifier}`);
    expect(embedded).toEqual([]);
    expect(graph.unresolved).toEqual([]);
    // …while the subpath entry does.
    expect(walkImportGraph(['src/service.ts']).files).toContain(`${SERVICE}app.ts`);
  });
});

describe('nothing but the composition roots imports the embedded service', () => {
  /** npm start (src/main.ts) and the library's `commerce-gateway/service` entry (src/service.ts). */
  const ROOTS = new Set(['src/main.ts', 'src/service.ts']);

  it('no file of src/ outside src/commerce-service/ imports it, but src/main.ts and src/service.ts', () => {
    const graph = walkImportGraph(SOURCES);
    const upward = graph.edges
      .filter(
        (edge) =>
          edge.file?.startsWith(SERVICE) === true &&
          !edge.from.startsWith(SERVICE) &&
          !ROOTS.has(edge.from),
      )
      .map((edge) => `${edge.from} → ${edge.file}`);
    expect(upward).toEqual([]);
    // The walk reads the roots' imports of it (main.ts starts it, service.ts exports it).
    expect(graph.edges.some((e) => e.from === 'src/main.ts' && e.file?.startsWith(SERVICE))).toBe(
      true,
    );
  });

  it('the library entry and the config loader reach no file of it at all', () => {
    for (const entry of ['src/index.ts', 'src/config/index.ts']) {
      const reached = [...walkImportGraph([entry]).files].filter((file) =>
        file.startsWith(SERVICE),
      );
      expect(reached, entry).toEqual([]);
    }
  });
});

describe('the planner owns the REST query', () => {
  // The embedded service reads these parameters (its listing parser is the server side of the
  // same API), so its files are not counted: the rule is that the gateway spells a list call in
  // one place, src/upstream/paging/query.ts, from the planner's plan.
  const gatewaySources = SOURCES.filter((file) => !file.startsWith(SERVICE));

  for (const parameter of ['page[offset]', 'page[limit]']) {
    it(`\`${parameter}\` appears in one file of src/ outside the embedded service`, () => {
      const naming = gatewaySources.filter((file) =>
        readFileSync(file, 'utf8').includes(parameter),
      );
      expect(naming).toEqual(['src/upstream/paging/query.ts']);
    });
  }
});

describe('src/ has no import cycle', () => {
  const cycles = importCycles(walkImportGraph(SOURCES));

  it('none anywhere: the gateway, schema, upstream, config and the embedded service', () => {
    expect(cycles).toEqual([]);
  });
});

describe('the gateway reaches the upstream only through its front door', () => {
  const GATEWAY = 'src/gateway/';
  const UPSTREAM = 'src/upstream/';
  /** src/upstream/index.ts (the front door) and errors.ts (the error family every floor throws). */
  const DOORS = new Set([`${UPSTREAM}index.ts`, `${UPSTREAM}errors.ts`]);
  const graph = walkImportGraph(
    readdirSync(GATEWAY, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts'))
      .map((name) => `${GATEWAY}${name}`),
  );

  it('imports from src/upstream/ nothing but index.ts and errors.ts', () => {
    const past = graph.edges
      .filter(
        (edge) =>
          edge.from.startsWith(GATEWAY) &&
          edge.file?.startsWith(UPSTREAM) === true &&
          !DOORS.has(edge.file),
      )
      .map((edge) => `${edge.from} → ${edge.file}`);
    expect(past).toEqual([]);
  });

  it('sees the gateway import the front door (the walk reads the folder)', () => {
    expect(graph.edges).toContainEqual({
      from: `${GATEWAY}create-gateway.ts`,
      specifier: '../upstream/index.ts',
      file: `${UPSTREAM}index.ts`,
    });
  });
});

describe('dependencies', () => {
  it('every runtime dependency is imported by the code that ships', () => {
    // npm start, npm run service and seed, the library's entries, and the launcher that runs them.
    const graph = walkImportGraph([
      'src/main.ts',
      'src/index.ts',
      'src/service.ts',
      `${SERVICE}main.ts`,
      `${SERVICE}seed/cli.ts`,
      'scripts/ts.mjs',
    ]);
    const imported = new Set(graph.edges.map((edge) => edge.packageName));
    const { dependencies } = JSON.parse(readFileSync('package.json', 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(dependencies).filter((name) => !imported.has(name))).toEqual([]);
  });
});
