// @ts-nocheck -- the project's `tsc` leaves bench/peers/ out (tsconfig.json's exclude): its
// imports would pull in this folder's own node_modules (installed by setup.mjs, absent on a clean
// clone). Hive Gateway loads this file with its own TypeScript loader.
/**
 * Hive Gateway, set up as a production deployment would be for this benchmark: the caller's
 * Authorization header goes to the commerce service (which answers 401 without it), request
 * logging off (errors only), no GraphiQL or landing page, no WebSockets (no subscriptions
 * here), errors masked (the default). The supergraph path and port come from start.mjs.
 */
import { defineConfig } from '@graphql-hive/gateway';

export const gatewayConfig = defineConfig({
  logging: 'error',
  graphiql: false,
  landingPage: false,
  disableWebsockets: true,
  propagateHeaders: {
    fromClientToSubgraphs({ request }) {
      const authorization = request.headers.get('authorization');
      return authorization ? { authorization } : {};
    },
  },
});
