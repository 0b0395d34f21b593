import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createLogger, scrubSecrets } from '../../src/gateway/logging.ts';
import { installGracefulShutdown } from '../../src/gateway/shutdown.ts';

describe('secret scrubbing', () => {
  it('removes bearer tokens and authorization values from any text', () => {
    expect(scrubSecrets('failed for Bearer abc.DEF-123_~+/== at upstream')).toBe(
      'failed for Bearer [redacted] at upstream',
    );
    expect(scrubSecrets('{"authorization":"Basic dXNlcg=="}')).toBe(
      '{"authorization":"[redacted]"}',
    );
    expect(scrubSecrets('Authorization: token123')).toBe('Authorization: [redacted]');
    expect(scrubSecrets('nothing secret here')).toBe('nothing secret here');
  });

  it('redacts credential headers of a logged headers object, keeps the rest', () => {
    const lines: string[] = [];
    createLogger({ write: (line) => lines.push(line) }).log('info', 'headers', {
      headers: {
        authorization: 'Bearer x1',
        'proxy-authorization': 'Basic x2',
        cookie: 'a=x3',
        'set-cookie': 's=x4',
        'x-api-key': 'x5',
        'x-request-id': 'r1',
        accept: '*/*',
      },
    });
    expect(JSON.parse(lines[0] as string).headers).toEqual({
      authorization: '[redacted]',
      'proxy-authorization': '[redacted]',
      cookie: '[redacted]',
      'set-cookie': '[redacted]',
      'x-api-key': '[redacted]',
      'x-request-id': 'r1',
      accept: '*/*',
    });
    for (const secret of ['x1', 'x2', 'x3', 'x4', 'x5']) expect(lines[0]).not.toContain(secret);
  });

  it('writes a line even when its fields hold a cycle', () => {
    const lines: string[] = [];
    const logger = createLogger({ write: (line) => lines.push(line) });
    const cycle: Record<string, unknown> = { error: new Error('e') };
    cycle.self = cycle;
    logger.log('error', 'cyclic', { cycle });
    expect(JSON.parse(lines[0] as string)).toMatchObject({ level: 'error', msg: 'cyclic' });
  });

  it('writes one JSON object per line, scrubbed, errors reduced to name/message/code', () => {
    const lines: string[] = [];
    const logger = createLogger({ write: (line) => lines.push(line), level: 'info' });
    logger.log('debug', 'hidden');
    const error = Object.assign(new Error('upstream said Bearer sekrit123'), { code: 'X' });
    logger.log('error', 'boom', { error, headers: { authorization: 'Bearer sekrit123' } });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.endsWith('\n')).toBe(true);
    const parsed = JSON.parse(lines[0] as string);
    expect(parsed).toMatchObject({
      level: 'error',
      msg: 'boom',
      error: { name: 'Error', code: 'X' },
    });
    expect(lines[0]).not.toContain('sekrit123');
    expect(parsed.error.stack).toBeUndefined();
  });

  it('finds errors at any depth and secret words in any case, and leaves other lines as built', () => {
    const lines: string[] = [];
    const logger = createLogger({ write: (line) => lines.push(line) });
    logger.log('warn', 'nested', {
      attempts: [{ error: Object.assign(new Error('e1'), { reason: 'timeout' }) }],
      note: 'PassWord=hunter2',
      header: 'x-moltin-customer-TOKEN: abc123',
      upstream: 'BEARER zz9',
    });
    const nested = JSON.parse(lines[0] as string);
    expect(nested.attempts[0].error).toEqual({ name: 'Error', message: 'e1', reason: 'timeout' });
    for (const secret of ['hunter2', 'abc123', 'zz9']) expect(lines[0]).not.toContain(secret);
    logger.log('info', 'request', { requestId: 'r1', status: 200, errorCodes: ['NOT_FOUND'] });
    expect(JSON.parse(lines[1] as string)).toMatchObject({
      level: 'info',
      msg: 'request',
      requestId: 'r1',
      status: 200,
      errorCodes: ['NOT_FOUND'],
    });
  });
});

describe('graceful shutdown', () => {
  it('waits for in-flight requests, then cuts off those past the timeout', async () => {
    const server = createServer((req, res) => {
      const ms = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('ms'));
      setTimeout(() => res.end('done'), ms);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const exits: number[] = [];
    let cleaned = false;
    let drainingAt = 0;
    const shutdown = installGracefulShutdown(server, {
      timeoutMs: 400,
      signals: [],
      exit: (code) => exits.push(code),
      onDraining: () => {
        drainingAt = Date.now();
      },
      cleanup: async () => {
        cleaned = true;
      },
    });
    const quick = fetch(`${url}/?ms=150`).then((r) => r.text());
    const stuck = fetch(`${url}/?ms=5000`).then(
      (r) => r.text(),
      (error: unknown) => error,
    );
    const waitUntil = Date.now() + 5_000;
    while (shutdown.inFlight < 2 && Date.now() < waitUntil) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(shutdown.inFlight).toBe(2);
    const started = Date.now();
    await shutdown.shutdown('test');
    expect(drainingAt).toBeGreaterThanOrEqual(started);
    expect(await quick).toBe('done');
    expect(await stuck).toBeInstanceOf(Error);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(350);
    expect(took).toBeLessThan(2_000);
    expect(cleaned).toBe(true);
    expect(exits).toEqual([]);
  });
});
