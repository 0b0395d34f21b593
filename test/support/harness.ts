/**
 * The end-to-end stack every suite reuses: the embedded v2 service (`:memory:`, port 0) and the
 * gateway (port 0) pointed at it, both on 127.0.0.1 over real sockets. `upstreamRequests`
 * records what reached the service at the HTTP level, so tests can assert calls (or their
 * absence) and the exact Authorization header the upstream saw.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCommerceService } from '../../src/commerce-service/app.ts';
import type { ClientCredentials } from '../../src/commerce-service/config.ts';
import { createGateway, type GatewayOptions } from '../../src/gateway/create-gateway.ts';
import { createRequestListener } from '../../src/gateway/fast-path.ts';
import type { Logger } from '../../src/gateway/logging.ts';
import {
  createTypedSchemaSource,
  type TypedSchemaSource,
} from '../../src/gateway/typed-schema-source.ts';
import { schema as baseSchema } from '../../src/schema/index.ts';
import { createUpstream, type SchemaCredentials } from '../../src/upstream/index.ts';

export interface UpstreamRequestRecord {
  method: string;
  url: string;
  authorization: string | undefined;
  /** The shopper's context as the service received it (headers it resolves catalogs from). */
  context: Record<string, string | undefined>;
}

export interface StartStackOptions {
  /** Clients of the service, one store each. Default: demo / demo-secret. */
  clients?: ClientCredentials[];
  /** The service's database file; default `:memory:`. */
  dbPath?: string;
  /** Seed the first store with the demo data. Default false. */
  seed?: boolean;
  seedOptions?: { orders?: number; products?: number; bulkNodeProducts?: number };
  /** Extra gateway options (upstreamUrl is set by the harness). */
  gateway?: Partial<GatewayOptions>;
  /** Serve JSON POSTs on the node:http fast path (src/gateway/fast-path.ts). Default true. */
  fastPath?: boolean;
  /**
   * Serve the typed Custom API schema, read with these credentials (default: the first client)
   * every `refreshMs` (default 60,000); the first read completes before startStack returns.
   */
  typed?: { credentials?: SchemaCredentials; refreshMs?: number; logger?: Logger };
}

export interface GraphqlResult {
  status: number;
  /** The parsed JSON body (tests read arbitrary shapes), or the raw text when not JSON. */
  body: any;
}

export interface Stack {
  serviceUrl: string;
  gatewayUrl: string;
  /** A client_credentials token of the client's store (default: the first client). */
  token(clientId?: string): Promise<string>;
  /** An implicit (read-only) token of the client's store. */
  implicitToken(clientId?: string): Promise<string>;
  /**
   * POSTs an operation to the gateway. `token` defaults to the first client's token; pass
   * `null` to send no Authorization header, or `authorization` to send a raw header value.
   */
  graphql(
    query: string,
    variables?: Record<string, unknown>,
    options?: { token?: string | null; authorization?: string; headers?: Record<string, string> },
  ): Promise<GraphqlResult>;
  /** Every request the service received, in arrival order. */
  upstreamRequests: UpstreamRequestRecord[];
  /** The typed schema source, when `typed` was asked for. */
  schemaSource: TypedSchemaSource | undefined;
  close(): Promise<void>;
}

export const DEMO_CLIENT: ClientCredentials = { id: 'demo', secret: 'demo-secret' };

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

export async function startStack(options: StartStackOptions = {}): Promise<Stack> {
  const clients = options.clients ?? [DEMO_CLIENT];
  const service = await createCommerceService({
    dbPath: options.dbPath ?? ':memory:',
    clients,
    seed: options.seed ?? false,
    seedOptions: options.seedOptions,
    logger: false,
  });
  const upstreamRequests: UpstreamRequestRecord[] = [];
  // Recorded on the raw HTTP server: every request that reached the service, whatever route.
  service.server.on('request', (req) => {
    upstreamRequests.push({
      method: req.method ?? '',
      url: req.url ?? '',
      authorization: req.headers.authorization,
      context: {
        currency: req.headers['x-moltin-currency'] as string | undefined,
        language: req.headers['accept-language'] as string | undefined,
        channel: req.headers['ep-channel'] as string | undefined,
        tag: req.headers['ep-context-tag'] as string | undefined,
      },
    });
  });
  await service.listen({ port: 0, host: '127.0.0.1' });
  const serviceUrl = `http://127.0.0.1:${(service.server.address() as AddressInfo).port}`;

  const firstCredentials = clients[0] ?? DEMO_CLIENT;
  // The typed schema's reader has a front door (and pool) of its own here, so the gateway's own
  // options stay the test's (`npm start` shares one: test/gateway/one-pool.test.ts).
  const readerUpstream = options.typed ? createUpstream({ url: serviceUrl }) : undefined;
  const schemaSource = readerUpstream
    ? createTypedSchemaSource({
        base: baseSchema,
        reader: readerUpstream.definitions(
          options.typed?.credentials ?? {
            clientId: firstCredentials.id,
            clientSecret: firstCredentials.secret,
          },
        ),
        refreshMs: options.typed?.refreshMs,
        logger: options.typed?.logger,
      })
    : undefined;
  await schemaSource?.start();
  const gateway = createGateway({
    graphiql: false,
    ...options.gateway,
    upstreamUrl: serviceUrl,
    ...(schemaSource ? { schemaSource } : {}),
  });
  const server = createServer(createRequestListener(gateway, { fastPath: options.fastPath }));
  const gatewayUrl = `http://127.0.0.1:${await listen(server)}/graphql`;

  const tokens = new Map<string, Promise<string>>();
  const fetchToken = async (clientId: string, grant: 'client_credentials' | 'implicit') => {
    const client = clients.find((c) => c.id === clientId);
    if (!client) throw new Error(`unknown client ${clientId}`);
    const form = new URLSearchParams({ grant_type: grant, client_id: client.id });
    if (grant === 'client_credentials') form.set('client_secret', client.secret);
    const response = await fetch(`${serviceUrl}/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    const body = (await response.json()) as { access_token?: string };
    if (!response.ok || typeof body.access_token !== 'string') {
      throw new Error(`token request failed: ${response.status}`);
    }
    return body.access_token;
  };
  const cached = (clientId: string, grant: 'client_credentials' | 'implicit') => {
    const key = `${grant}:${clientId}`;
    let pending = tokens.get(key);
    if (!pending) {
      pending = fetchToken(clientId, grant);
      tokens.set(key, pending);
    }
    return pending;
  };
  const firstClient = clients[0]?.id ?? DEMO_CLIENT.id;

  return {
    serviceUrl,
    gatewayUrl,
    upstreamRequests,
    schemaSource,
    token: (clientId = firstClient) => cached(clientId, 'client_credentials'),
    implicitToken: (clientId = firstClient) => cached(clientId, 'implicit'),
    async graphql(query, variables, requestOptions = {}) {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        ...requestOptions.headers,
      };
      if (requestOptions.authorization !== undefined) {
        headers.authorization = requestOptions.authorization;
      } else if (requestOptions.token !== null) {
        headers.authorization = `Bearer ${requestOptions.token ?? (await cached(firstClient, 'client_credentials'))}`;
      }
      const response = await fetch(gatewayUrl, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query, variables }),
      });
      const text = await response.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      return { status: response.status, body };
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await gateway.dispose();
      await schemaSource?.close();
      await readerUpstream?.close();
      await service.close();
    },
  };
}
