/**
 * A stack for the hardening suites: the embedded service (`:memory:`, port 0), optionally a
 * fault-injecting proxy in front of it, and the gateway (port 0) with its structured log
 * captured line by line. Data is created over the service's REST API (a few calls only).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCommerceService } from '../../src/commerce-service/app.ts';
import type { ClientCredentials } from '../../src/commerce-service/config.ts';
import { createGateway, type GatewayOptions } from '../../src/gateway/create-gateway.ts';
import { createRequestListener } from '../../src/gateway/fast-path.ts';
import { createLogger } from '../../src/gateway/logging.ts';
import { fetchClientToken } from '../../src/upstream/oauth.ts';
import { createFaultUpstream, type FaultUpstream } from './fault-upstream.ts';

export interface HardeningStack {
  serviceUrl: string;
  /** The proxy the gateway talks to (absent when `faults` was false). */
  fault: FaultUpstream | undefined;
  gatewayUrl: string;
  /** Base of the gateway (no /graphql), for /healthz and /readyz. */
  gatewayBase: string;
  /** Every log line the gateway wrote, parsed, plus the raw text. */
  logs: Record<string, unknown>[];
  rawLogs: string[];
  /** Every request the service itself received. */
  serviceRequests: {
    method: string;
    url: string;
    authorization: string | undefined;
    requestId: string | undefined;
    /** The X-Moltin-Customer-Token header the service received, if any. */
    customerToken: string | undefined;
    /** Every header the service received, lowercase name → value. */
    headers: Record<string, string | string[] | undefined>;
  }[];
  token(clientId?: string): Promise<string>;
  graphql(
    query: string,
    variables?: Record<string, unknown>,
    options?: { token?: string | null; headers?: Record<string, string>; signal?: AbortSignal },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  /** A REST call to the service (not through the proxy), for test setup. */
  rest(token: string, method: string, path: string, body?: unknown): Promise<any>;
  close(): Promise<void>;
}

export async function listenOnPort0(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

export async function startHardeningStack(
  options: {
    clients?: ClientCredentials[];
    faults?: boolean;
    gateway?: Partial<GatewayOptions>;
    /** Serve through the node:http fast path too (src/gateway/fast-path.ts). Default false. */
    fastPath?: boolean;
    /**
     * The service's SQLite file (default `:memory:`): a test that must put rows no route would
     * write (data of an older version) opens a second connection to it.
     */
    dbPath?: string;
    /** The fault proxy's draws for rules with a `rate` (createFaultUpstream's `random`). */
    random?: (key: string) => number;
  } = {},
): Promise<HardeningStack> {
  const clients = options.clients ?? [{ id: 'demo', secret: 'demo-secret' }];
  const service = await createCommerceService({
    dbPath: options.dbPath ?? ':memory:',
    clients,
    seed: false,
    logger: false,
  });
  const serviceRequests: HardeningStack['serviceRequests'] = [];
  service.server.on('request', (req) => {
    serviceRequests.push({
      method: req.method ?? '',
      url: req.url ?? '',
      authorization: req.headers.authorization,
      requestId: req.headers['x-request-id'] as string | undefined,
      customerToken: req.headers['x-moltin-customer-token'] as string | undefined,
      headers: { ...req.headers },
    });
  });
  await service.listen({ port: 0, host: '127.0.0.1' });
  const serviceUrl = `http://127.0.0.1:${(service.server.address() as AddressInfo).port}`;
  const fault =
    options.faults === false
      ? undefined
      : await createFaultUpstream({ target: serviceUrl, random: options.random });

  const rawLogs: string[] = [];
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger({
    write: (line) => {
      rawLogs.push(line);
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ unparsable: line });
      }
    },
  });
  const gateway = createGateway({
    graphiql: false,
    logger,
    ...options.gateway,
    upstreamUrl: fault?.url ?? serviceUrl,
  });
  const server = createServer(
    options.fastPath ? createRequestListener(gateway, { fastPath: true }) : gateway,
  );
  const port = await listenOnPort0(server);
  const gatewayBase = `http://127.0.0.1:${port}`;

  const tokens = new Map<string, Promise<string>>();
  const token = (clientId = clients[0]?.id ?? 'demo') => {
    let pending = tokens.get(clientId);
    if (!pending) {
      const client = clients.find((c) => c.id === clientId);
      if (!client) throw new Error(`unknown client ${clientId}`);
      pending = fetchClientToken(serviceUrl, client);
      tokens.set(clientId, pending);
    }
    return pending;
  };

  return {
    serviceUrl,
    fault,
    gatewayUrl: `${gatewayBase}/graphql`,
    gatewayBase,
    logs,
    rawLogs,
    serviceRequests,
    token,
    async graphql(query, variables, requestOptions = {}) {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        ...requestOptions.headers,
      };
      if (requestOptions.token !== null) {
        headers.authorization = `Bearer ${requestOptions.token ?? (await token())}`;
      }
      const response = await fetch(`${gatewayBase}/graphql`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query, variables }),
        signal: requestOptions.signal,
      });
      const text = await response.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      return { status: response.status, body, headers: response.headers };
    },
    async rest(bearer, method, path, body) {
      const response = await fetch(`${serviceUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${bearer}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path} → ${response.status}: ${text}`);
      return text === '' ? undefined : JSON.parse(text);
    },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await gateway.dispose();
      await fault?.close();
      await service.close();
    },
  };
}

/** Creates a Custom API and `count` entries in the token's store; returns their upstream ids. */
export async function createEntries(
  stack: HardeningStack,
  token: string,
  slug: string,
  count: number,
): Promise<{ customApiId: string; entryIds: string[] }> {
  const api = await stack.rest(token, 'POST', '/v2/settings/extensions/custom-apis', {
    data: { type: 'custom_api', name: slug, slug, api_type: `${slug}_ext`, description: slug },
  });
  const customApiId = api.data.id as string;
  const entryIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const entry = await stack.rest(
      token,
      'POST',
      `/v2/settings/extensions/custom-apis/${customApiId}/entries`,
      { data: { type: `${slug}_ext`, name: `${slug}-${i}`, owner: slug } },
    );
    entryIds.push(entry.data.id as string);
  }
  return { customApiId, entryIds };
}
