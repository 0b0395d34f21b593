/**
 * Library subpath `commerce-gateway/service`: the embedded v2 commerce service (fastify over
 * Node's own `node:sqlite`), for a consumer that wants the offline stand-in in process. Kept out
 * of the main entry so that importing the gateway never loads `node:sqlite` or fastify.
 */
export {
  type CommerceServiceOptions,
  createCommerceService,
} from './commerce-service/app.ts';
export {
  type ClientCredentials,
  DEFAULT_CLIENTS,
  type SignInLimits,
} from './commerce-service/config.ts';
