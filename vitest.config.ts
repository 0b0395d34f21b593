import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

// graphql 16 ships both index.js (CJS) and index.mjs (ESM) without an exports map: Node loads
// the CJS copy for graphql-yoga, Pothos and graphql-armor, while Vite would give our own files
// the ESM copy. Two copies mean `instanceof GraphQLError` fails and errors turn into 500s, so
// every import of 'graphql' resolves to the one Node itself loads.
const graphqlEntry = createRequire(import.meta.url).resolve('graphql');

export default defineConfig({
  resolve: { alias: [{ find: /^graphql$/, replacement: graphqlEntry }] },
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one on the 2-core CI machine. The
    // end-to-end suites each run a service and a gateway on one thread, so two files at once
    // keep both cores busy.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
