/**
 * `npm run service`, the commerce service alone, as a person or a process manager meets it: the
 * address it prints is the one it is bound to (every interface with HOST=0.0.0.0, not the
 * 127.0.0.1 fastify names), and GET /healthz answers without a token.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningAddress } from '../../src/commerce-service/listening-address.ts';
import { type MainProcess, spawnMain } from '../support/main-process.ts';
import { type ServiceUnderTest, startService } from './service-helpers.ts';

/** The local address of the TCP socket listening on `port`, as Linux reports it (`ss -ltn`). */
function listeningOn(port: number): string[] {
  const found: string[] = [];
  for (const [file, decode] of [
    [
      '/proc/net/tcp',
      (hex: string) =>
        hex
          .match(/../g)
          ?.reverse()
          .map((b) => parseInt(b, 16))
          .join('.'),
    ],
    ['/proc/net/tcp6', (hex: string) => (/^0+$/.test(hex) ? '::' : hex)],
  ] as const) {
    let table = '';
    try {
      table = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of table.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== '0A') continue; // 0A: LISTEN
      const [hexAddress = '', hexPort = ''] = local.split(':');
      if (parseInt(hexPort, 16) === port) found.push(decode(hexAddress) ?? hexAddress);
    }
  }
  return found;
}

const env = { COMMERCE_DB: ':memory:', COMMERCE_SEED: '0', NODE_ENV: 'test' };

describe('npm run service prints the address it is bound to', () => {
  let wildcard: MainProcess | undefined;
  let loopback: MainProcess | undefined;
  afterAll(() => {
    wildcard?.child.kill('SIGKILL');
    loopback?.child.kill('SIGKILL');
  });

  it('HOST=0.0.0.0: every interface, and the URL that reaches it from this machine', async () => {
    wildcard = await spawnMain({ ...env, HOST: '0.0.0.0' }, 'service');
    const port = Number(new URL(wildcard.url).port);
    expect(listeningOn(port)).toEqual(['0.0.0.0']);
    await wildcard.waitFor(/oauth\/access_token\n/);
    const lines = wildcard.output().split('\n');
    expect(lines[0]).toBe(
      `commerce service listening on http://0.0.0.0:${port} (database :memory:)`,
    );
    expect(lines[1]).toBe(`  every interface; from this machine: http://127.0.0.1:${port}`);
    expect(lines[2]).toBe(`  health: http://127.0.0.1:${port}/healthz`);
    expect(wildcard.output()).toContain(
      `  -d client_secret=demo-secret http://127.0.0.1:${port}/oauth/access_token`,
    );
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
  });

  it('HOST unset (development): this machine only, and says exactly that', async () => {
    loopback = await spawnMain({ ...env, HOST: undefined }, 'service');
    const port = Number(new URL(loopback.url).port);
    expect(listeningOn(port)).toEqual(['127.0.0.1']);
    await loopback.waitFor(/health: \S+\n/);
    const lines = loopback.output().split('\n');
    expect(lines[0]).toBe(
      `commerce service listening on http://127.0.0.1:${port} (database :memory:)`,
    );
    expect(lines[1]).toBe(`  health: http://127.0.0.1:${port}/healthz`);
  });

  it('names an IPv6 wildcard and a specific address as URLs', () => {
    expect(listeningAddress({ address: '::', family: 'IPv6', port: 4010 })).toEqual({
      bound: 'http://[::]:4010',
      local: 'http://[::1]:4010',
    });
    expect(listeningAddress({ address: '10.1.2.3', family: 'IPv4', port: 80 })).toEqual({
      bound: 'http://10.1.2.3:80',
      local: 'http://10.1.2.3:80',
    });
    expect(() => listeningAddress('/tmp/socket')).toThrow('not listening on a TCP port');
  });
});

describe('GET /healthz', () => {
  let service: ServiceUnderTest;
  beforeAll(async () => {
    service = await startService();
  });
  afterAll(() => service?.close());

  it('answers {"status":"ok"} with no token, and with any token', async () => {
    for (const token of [null, 'not-a-token']) {
      const result = await service.call('GET', '/healthz', { token });
      expect(result.status).toBe(200);
      expect(result.headers.get('content-type')).toMatch(/^application\/json/);
      expect(result.body).toEqual({ status: 'ok' });
    }
    expect((await service.call('GET', '/healthz', { token: await service.token() })).body).toEqual({
      status: 'ok',
    });
  });
});
