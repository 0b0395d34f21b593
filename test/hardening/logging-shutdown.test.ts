import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { createLogger, type LogThreshold, scrubSecrets } from '../../src/gateway/logging.ts';
import { installGracefulShutdown } from '../../src/gateway/shutdown.ts';
import { type MainProcess, spawnMain } from '../support/main-process.ts';

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

describe('LOG_LEVEL', () => {
  it('writes the levels at or above the threshold; silent writes none', () => {
    const written = (level: LogThreshold | undefined) => {
      const lines: string[] = [];
      const logger = createLogger({ write: (line) => lines.push(line), level });
      for (const at of ['debug', 'info', 'warn', 'error'] as const) logger.log(at, at);
      return lines.map((line) => JSON.parse(line).msg);
    };
    expect(written('warn')).toEqual(['warn', 'error']);
    expect(written('error')).toEqual(['error']);
    expect(written('fatal')).toEqual([]);
    expect(written('silent')).toEqual([]);
    expect(written('trace')).toEqual(['debug', 'info', 'warn', 'error']);
    expect(written(undefined)).toEqual(['info', 'warn', 'error']);
  });

  it('reads the level names in any case, defaults to info, and refuses anything else', () => {
    const level = (raw: string | undefined) => loadConfig({ LOG_LEVEL: raw }).logging.level;
    expect(level(undefined)).toBe('info');
    expect(level('')).toBe('info');
    expect(level('WARN')).toBe('warn');
    expect(level(' silent ')).toBe('silent');
    expect(level('trace')).toBe('trace');
    for (const bad of ['verbose', 'warning', '30', 'info,debug']) {
      expect(() => level(bad), bad).toThrow(ConfigError);
    }
    expect(() => level('verbose')).toThrow(
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "verbose"',
    );
  });

  /**
   * `npm start` whose typed schema cannot be read (a wrong schema secret): a warning at start,
   * one per refresh after; serves one query, then SIGTERM, so every line it wrote is in.
   */
  async function runOnce(env: Record<string, string>): Promise<Record<string, unknown>[]> {
    const main: MainProcess = await spawnMain({
      COMMERCE_DB: ':memory:',
      COMMERCE_PORT: '0',
      COMMERCE_SEED: '0',
      SCHEMA_CLIENT_ID: 'demo',
      SCHEMA_CLIENT_SECRET: 'not-the-demo-secret',
      ...env,
    });
    try {
      const response = await fetch(main.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      const exited = once(main.child, 'exit');
      main.child.kill('SIGTERM');
      expect((await exited)[0]).toBe(0);
    } finally {
      if (main.child.exitCode === null) main.child.kill('SIGKILL');
    }
    // Only JSON lines are log lines; the banner is plain text.
    return main
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  it('LOG_LEVEL=warn drops request lines (info) and keeps warnings, in the process npm start runs', async () => {
    const [quiet, normal] = await Promise.all([runOnce({ LOG_LEVEL: 'warn' }), runOnce({})]);
    const refreshFailed = 'typed schema: refresh failed; keeping the last good schema';
    // The default (info) writes both: the comparison below is not vacuous.
    expect(normal.filter((line) => line.msg === 'request')).toHaveLength(1);
    expect(normal.some((line) => line.msg === refreshFailed)).toBe(true);
    expect(quiet.filter((line) => line.msg === 'request')).toEqual([]);
    expect(quiet.filter((line) => line.level !== 'warn' && line.level !== 'error')).toEqual([]);
    expect(quiet.find((line) => line.msg === refreshFailed)).toMatchObject({ level: 'warn' });
    expect(JSON.stringify(quiet)).not.toContain('not-the-demo-secret');
  }, 60_000);

  it('a bad LOG_LEVEL stops startup with one line that names the variable and the choices', async () => {
    const started = spawnMain({
      COMMERCE_DB: ':memory:',
      COMMERCE_PORT: '0',
      LOG_LEVEL: 'verbose',
    });
    // Had it started after all, it must not outlive the test.
    started.then(
      (main) => main.child.kill('SIGKILL'),
      () => undefined,
    );
    // Nothing on stdout (no banner, nothing listened), one line on stderr.
    await expect(started).rejects.toThrow(
      /^exited 1: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "verbose"\n$/,
    );
  }, 60_000);
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
