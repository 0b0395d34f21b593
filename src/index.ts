/**
 * Library entry: build the gateway without listening (to mount it in another server), the built
 * schema (for in-process stitching), and the embedded v2 commerce service factory.
 */
export { createCommerceService } from './commerce-service/app.ts';
export { createGateway, type Gateway, type GatewayOptions } from './gateway/create-gateway.ts';
export { schema } from './schema/index.ts';
