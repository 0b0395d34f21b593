// @ts-nocheck -- the project's `tsc` leaves bench/peers/ out (tsconfig.json's exclude): its
// imports would pull in this folder's own node_modules (installed by setup.mjs, absent on a clean
// clone). Mesh Compose loads this file with its own TypeScript loader.
/**
 * GraphQL Mesh Compose: the commerce service's `GET /v2/orders` (openapi.json) as one OpenAPI
 * subgraph, composed into the supergraph Hive Gateway serves. The upstream base URL is baked
 * into the supergraph (its @transport directive), so compose once per upstream:
 *   COMMERCE_UPSTREAM_URL=http://127.0.0.1:4010 npx mesh-compose -o supergraph.graphql
 * (setup.mjs does exactly this).
 */
import { defineConfig } from '@graphql-mesh/compose-cli';
import { loadOpenAPISubgraph } from '@omnigraph/openapi';

const endpoint = process.env.COMMERCE_UPSTREAM_URL;
if (!endpoint) {
  throw new Error(
    'COMMERCE_UPSTREAM_URL must name the commerce service, e.g. http://127.0.0.1:4010',
  );
}

export const composeConfig = defineConfig({
  subgraphs: [
    {
      sourceHandler: loadOpenAPISubgraph('Commerce', {
        source: './openapi.json',
        endpoint,
      }),
    },
  ],
});
