/**
 * The service reachable as storefronts reach production, and visible (issue 30, items 12 and
 * 13): HTTPS with a development certificate it makes itself (its authority kept and reused, the
 * server certificate valid for localhost and 127.0.0.1), CORS as production answers it (any
 * origin, a preflight answered without a token), and one request line per answer with secrets
 * kept out — through createCommerceService, `npm run service` and `npm start`.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { createCommerceService } from '../../src/commerce-service/app.ts';
import type { ServiceRequestLog } from '../../src/commerce-service/http-front.ts';
import { developmentCertificate } from '../../src/commerce-service/tls.ts';
import { type MainProcess, spawnMain } from '../support/main-process.ts';

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-tls-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A fetch that trusts `ca` (and nothing else is changed). */
function trusting(ca: string) {
  const agent = new Agent({ connect: { ca } });
  cleanups.push(() => agent.close());
  return (url: string, init: Parameters<typeof undiciFetch>[1] = {}) =>
    undiciFetch(url, { ...init, dispatcher: agent });
}

describe('the development certificate', () => {
  it('is signed by a kept authority, for localhost, 127.0.0.1, ::1 and the names given', () => {
    const dir = tempDir();
    const first = developmentCertificate(dir, ['shop.test']);
    const ca = new X509Certificate(first.ca);
    expect(ca.ca).toBe(true);
    expect(readFileSync(first.caPath, 'utf8')).toBe(first.ca);
    const server = new X509Certificate(first.cert);
    expect(server.ca).toBe(false);
    expect(server.verify(ca.publicKey)).toBe(true);
    expect(server.checkIssued(ca)).toBe(true);
    expect(server.checkHost('localhost')).toBe('localhost');
    expect(server.checkHost('shop.test')).toBe('shop.test');
    expect(server.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(server.checkIP('::1')).toBe('::1');
    expect(server.checkHost('example.com')).toBeUndefined();
    const days = (Date.parse(server.validTo) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(360);
    expect(days).toBeLessThan(366);
    // The next start keeps the authority (trusted once) and signs a new server certificate.
    const second = developmentCertificate(dir);
    expect(second.ca).toBe(first.ca);
    expect(second.cert).not.toBe(first.cert);
    expect(new X509Certificate(second.cert).verify(ca.publicKey)).toBe(true);
  });
});

describe('HTTPS, CORS and the request log', () => {
  it('answers over TLS to a client that trusts the authority, with CORS on every answer', async () => {
    const tls = developmentCertificate(tempDir());
    const lines: ServiceRequestLog[] = [];
    const app = await createCommerceService({
      dbPath: ':memory:',
      clients: [{ id: 'alpha', secret: 'alpha-secret' }],
      seed: false,
      https: { key: tls.key, cert: tls.cert },
      requestLog: (entry) => lines.push(entry),
    });
    cleanups.push(() => app.close());
    const url = (await app.listen({ port: 0, host: '127.0.0.1' })).replace('http:', 'https:');
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const secure = trusting(tls.ca);

    // A client that does not trust the authority is refused by TLS, not answered.
    await expect(undiciFetch(`${url}/healthz`)).rejects.toThrow();
    expect((await secure(`${url}/healthz`)).status).toBe(200);

    const token = (await (
      await secure(`${url}/oauth/access_token?client_secret=hidden`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=implicit&client_id=alpha',
      })
    ).json()) as { access_token: string };

    // A browser's preflight carries no token: answered 204 with what may be sent.
    const preflight = await secure(`${url}/v2/carts`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://shop.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, x-moltin-currency',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toBe(
      'authorization, content-type, x-moltin-currency',
    );
    // A header list that is not one is not echoed.
    const odd = await secure(`${url}/v2/carts`, {
      method: 'OPTIONS',
      headers: { 'access-control-request-headers': 'x-a, <script>' },
    });
    expect(odd.headers.get('access-control-allow-headers')).toContain('ep-channel');

    const created = await secure(`${url}/v2/carts`, {
      method: 'POST',
      headers: {
        origin: 'https://shop.example',
        authorization: `Bearer ${token.access_token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ data: { name: 'Web' } }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('access-control-allow-origin')).toBe('*');
    // Errors carry it too, so a browser can read why.
    const refused = await secure(`${url}/v2/carts`, {
      headers: { origin: 'https://shop.example' },
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');

    expect(lines.map((line) => `${line.method} ${line.path} ${line.status}`)).toEqual([
      'GET /healthz 200',
      'POST /oauth/access_token?client_secret=[redacted] 200',
      'OPTIONS /v2/carts 204',
      'OPTIONS /v2/carts 204',
      'POST /v2/carts 201',
      'GET /v2/carts 401',
    ]);
    for (const line of lines) expect(line.ms).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(lines)).not.toContain(token.access_token);
    expect(JSON.stringify(lines)).not.toContain('hidden');
  });
});

describe('the processes users start', () => {
  let service: MainProcess | undefined;
  let gateway: MainProcess | undefined;
  afterAll(() => {
    service?.child.kill('SIGKILL');
    gateway?.child.kill('SIGKILL');
  });
  const env = { COMMERCE_DB: ':memory:', COMMERCE_SEED: '0', COMMERCE_HTTPS: '1' };

  it('npm run service with COMMERCE_HTTPS=1 serves TLS, names its authority, logs each request', async () => {
    service = await spawnMain(env, 'service');
    expect(service.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const [, caPath = ''] = await service.waitFor(/local authority (\S+):/);
    const secure = trusting(readFileSync(caPath, 'utf8'));
    expect((await secure(`${service.url}/healthz`)).status).toBe(200);
    await service.waitFor(/^GET \/healthz 200 [\d.]+ ms$/m);
  });

  it('npm start with COMMERCE_HTTPS=1 talks to its service over TLS and logs its requests', async () => {
    gateway = await spawnMain({ ...env, COMMERCE_SEED: '1' }, 'start');
    await gateway.waitFor(/upstream v2 API:\s+https:\/\/127\.0\.0\.1:\d+ \(embedded\)/);
    await gateway.waitFor(/its TLS authority:/);
    const [, demo = ''] = await gateway.waitFor(/Authorization: Bearer (\S+)/);
    const answer = (await (
      await fetch(gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${demo}` },
        body: JSON.stringify({ query: '{ orders(first: 1) { totalCount } }' }),
      })
    ).json()) as any;
    expect(answer.errors).toBeUndefined();
    expect(answer.data.orders.totalCount).toBeGreaterThan(0);
    const line = await gateway.waitFor(/\{[^\n]*"msg":"service request"[^\n]*\}/);
    const entry = JSON.parse(line[0]);
    expect(entry).toMatchObject({ method: 'POST', path: '/oauth/access_token', status: 200 });
    await gateway.waitFor(
      /"path":"\/v2\/orders\?[^"]*","status":200,[^\n]*"msg":"service request"/,
    );
  });
});
