/**
 * What `npm start` gives the network: by default it listens on this machine only, and its
 * GraphiQL page carries the demo store's read-write token only to a browser on this machine
 * that asked for it by a local name. A page asked for from another machine (HOST=0.0.0.0), by
 * another name (DNS rebinding: a site whose name now points to 127.0.0.1), or through a proxy
 * carries the storefront (implicit) token, which cannot change the store's settings.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEmbeddedServiceConfig, loadServiceConfig } from '../../src/commerce-service/config.ts';
import { loadConfig } from '../../src/config/index.ts';
import { isLoopbackAddress } from '../../src/gateway/graphiql.ts';
import { type MainProcess, spawnMain } from '../support/main-process.ts';

/** This machine's first address that is not loopback, as a peer on the network reaches it. */
function externalAddress(): string | undefined {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (!address.internal && address.family === 'IPv4') return address.address;
    }
  }
  return undefined;
}

/** Whether anything accepts TCP connections on `host:port`. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The local address of the IPv4 listener on `port`, from /proc/net/tcp (hex, e.g. 0100007F). */
function listenerAddress(port: number): string | undefined {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const [, local, , state] = line.trim().split(/\s+/);
    if (state === '0A' && local?.endsWith(`:${hexPort}`)) return local.split(':')[0];
  }
  return undefined;
}

interface Page {
  /** The token in GraphiQL's default Authorization header. */
  token: string | undefined;
  defaultQuery: string;
}

/** GETs the GraphiQL page from `address:port` with the given headers; reads its options. */
function graphiqlPage(
  address: string,
  port: number,
  headers: Record<string, string> = {},
): Promise<Page> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: address,
        port,
        path: '/graphql',
        agent: false,
        headers: { accept: 'text/html', ...headers },
      },
      (res) => {
        let html = '';
        res.on('data', (chunk: Buffer) => {
          html += chunk;
        });
        res.on('end', () => {
          const json = /id="graphiql-options">([\s\S]*?)<\/script>/.exec(html)?.[1];
          if (res.statusCode !== 200 || json === undefined) {
            reject(new Error(`no GraphiQL page: ${res.statusCode} ${html.slice(0, 200)}`));
            return;
          }
          const options = JSON.parse(json) as { headers?: string; defaultQuery: string };
          const authorization = options.headers
            ? (JSON.parse(options.headers) as { Authorization?: string }).Authorization
            : undefined;
          resolve({
            token: authorization?.replace(/^Bearer /, ''),
            defaultQuery: options.defaultQuery,
          });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** What the embedded service answers a token that tries to create a Custom API (settings). */
async function settingsWrite(serviceUrl: string, token: string | undefined): Promise<number> {
  const slug = `probe${Math.random().toString(36).slice(2, 8)}`;
  const response = await fetch(`${serviceUrl}/v2/settings/extensions/custom-apis`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      data: { type: 'custom_api', name: slug, slug, api_type: `${slug}_ext`, description: 'x' },
    }),
  });
  await response.arrayBuffer();
  return response.status;
}

interface Started {
  main: MainProcess;
  port: number;
  /** The read-write token the banner printed. */
  printed: string;
  serviceUrl: string;
}

async function start(env: Record<string, string | undefined>): Promise<Started> {
  const main = await spawnMain({
    COMMERCE_DB: ':memory:',
    COMMERCE_PORT: '0',
    LOG_REQUESTS: '0',
    HOST: undefined,
    ...env,
  });
  const [, printed = ''] = await main.waitFor(/Authorization: Bearer (\S+)/);
  const [, serviceUrl = ''] = await main.waitFor(/upstream v2 API: +(http:\/\/\S+) \(embedded\)/);
  return { main, port: Number(new URL(main.url).port), printed, serviceUrl };
}

describe('npm start with the default HOST', () => {
  let started: Started;
  beforeAll(async () => {
    started = await start({});
  }, 60_000);
  afterAll(() => {
    started?.main.child.kill('SIGKILL');
  });

  it('listens on this machine only', async () => {
    const { port } = started;
    expect(await accepts('127.0.0.1', port)).toBe(true);
    const external = externalAddress();
    if (external !== undefined) expect(await accepts(external, port)).toBe(false);
    else expect(listenerAddress(port)).toBe('0100007F');
    await expect
      .poll(() => started.main.output())
      .toContain(`GraphiQL at http://127.0.0.1:${port}/graphql`);
  });

  it('gives the read-write demo token to GraphiQL asked for by a local name', async () => {
    const { port, printed, serviceUrl } = started;
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      const page = await graphiqlPage('127.0.0.1', port, { host });
      expect(page.token, host).toBe(printed);
      expect(page.defaultQuery, host).toMatch(/^# Your first query/);
    }
    // It is the full demo: it may change the store's settings.
    expect(await settingsWrite(serviceUrl, printed)).toBe(201);
  });

  it('gives only the storefront token to a page asked for by another name or through a proxy', async () => {
    const { port, printed, serviceUrl } = started;
    const asked: Record<string, string>[] = [
      { host: `rebound.example:${port}` },
      { host: `localhost.example:${port}` },
      { host: `localhost:${port}`, 'x-forwarded-for': '203.0.113.7' },
      { host: `localhost:${port}`, forwarded: 'for=203.0.113.7' },
    ];
    for (const headers of asked) {
      const page = await graphiqlPage('127.0.0.1', port, headers);
      const what = JSON.stringify(headers);
      expect(page.token, what).toBeDefined();
      expect(page.token, what).not.toBe(printed);
      expect(page.defaultQuery, what).toMatch(/^# This page came from another machine/);
      expect(await settingsWrite(serviceUrl, page.token), what).toBe(403);
    }
  });
});

describe('npm start with HOST=0.0.0.0 (reachable from the network)', () => {
  let started: Started;
  beforeAll(async () => {
    started = await start({ HOST: '0.0.0.0' });
  }, 60_000);
  afterAll(() => {
    started?.main.child.kill('SIGKILL');
  });

  it('never puts the read-write token in GraphiQL, whoever asks', async () => {
    const { port, printed, serviceUrl } = started;
    const external = externalAddress();
    const from = [
      { address: '127.0.0.1', host: `localhost:${port}` },
      ...(external ? [{ address: external, host: `${external}:${port}` }] : []),
    ];
    for (const { address, host } of from) {
      const page = await graphiqlPage(address, port, { host });
      expect(page.token, host).toBeDefined();
      expect(page.token, host).not.toBe(printed);
      expect(await settingsWrite(serviceUrl, page.token), host).toBe(403);
    }
    await expect.poll(() => started.main.output()).toContain('GraphiQL sends only the demo store');
  });
});

describe('HOST', () => {
  it('defaults to 127.0.0.1, and to 0.0.0.0 with NODE_ENV=production, for the service alone too', () => {
    expect(loadConfig({}).listen.host).toBe('127.0.0.1');
    expect(loadConfig({ NODE_ENV: 'production' }).listen.host).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '0.0.0.0' }).listen.host).toBe('0.0.0.0');
    expect(loadConfig({ NODE_ENV: 'production', HOST: '10.0.0.5' }).listen.host).toBe('10.0.0.5');
    // The service beside the gateway: loopback whatever HOST says.
    expect(loadEmbeddedServiceConfig({ HOST: '0.0.0.0' }).host).toBe('127.0.0.1');
    expect(loadServiceConfig({}).host).toBe('127.0.0.1');
    expect(loadServiceConfig({ NODE_ENV: 'production' }).host).toBe('0.0.0.0');
    expect(loadServiceConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
  });

  it('is loopback for localhost, 127.x.x.x and ::1 only', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', 'LOCALHOST']) {
      expect(isLoopbackAddress(host), host).toBe(true);
    }
    for (const host of ['0.0.0.0', '::', '192.168.1.5', 'example.com', '128.0.0.1', '']) {
      expect(isLoopbackAddress(host), host).toBe(false);
    }
  });
});
