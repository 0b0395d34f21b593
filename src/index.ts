/**
 * Library entry: build the gateway without listening (to mount it in another server), the built
 * schema with the upstream's front door that makes its per-request context (for in-process
 * stitching or execution), its Federation v2 subgraph SDL, the trusted-documents manifest reader,
 * and the typed Custom API schema (a source that reads the store's definitions and swaps the
 * schema on change, for createGateway's `schemaSource`), and the Redis connection replicas share
 * (connectRedis, for createGateway's and createUpstream's `redis`). The embedded v2 commerce service is the
 * subpath `commerce-gateway/service` (./service.ts): nothing here loads it, `node:sqlite` or fastify.
 */
export { createGateway, type Gateway, type GatewayOptions } from './gateway/create-gateway.ts';
export { createLogger, type Logger, type LoggerOptions } from './gateway/logging.ts';
export {
  documentsFromManifest,
  type PersistedDocuments,
  readPersistedDocuments,
} from './gateway/persisted-documents.ts';
export {
  createTypedSchemaSource,
  type SchemaSource,
  type TypedSchemaSource,
  type TypedSchemaSourceOptions,
} from './gateway/typed-schema-source.ts';
export {
  connectRedis,
  type RedisConnection,
  type RedisConnectionOptions,
} from './redis/connection.ts';
export { printSubgraphSchema } from './schema/federation.ts';
export { schema } from './schema/index.ts';
export type { MappedApi } from './schema/typed/build-typed-schema.ts';
export type {
  CustomApiDefinition,
  DefinitionReader,
  SchemaCredentials,
} from './upstream/custom-api-definitions.ts';
export {
  createUpstream,
  type GatewayContext,
  type RequestLike,
  type Upstream,
  type UpstreamOptions,
} from './upstream/index.ts';
