/**
 * Library entry: build the gateway without listening (to mount it in another server), the built
 * schema with the upstream's front door that makes its per-request context (for in-process
 * stitching or execution), its Federation v2 subgraph SDL, the trusted-documents manifest
 * reader, and the embedded v2 commerce service factory.
 */
export { createCommerceService } from './commerce-service/app.ts';
export { createGateway, type Gateway, type GatewayOptions } from './gateway/create-gateway.ts';
export {
  documentsFromManifest,
  type PersistedDocuments,
  readPersistedDocuments,
} from './gateway/persisted-documents.ts';
export { printSubgraphSchema } from './schema/federation.ts';
export { schema } from './schema/index.ts';
export {
  createUpstream,
  type GatewayContext,
  type RequestLike,
  type Upstream,
  type UpstreamOptions,
} from './upstream/index.ts';
