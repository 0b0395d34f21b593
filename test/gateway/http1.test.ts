/**
 * The upstream connection pool (src/upstream/http1.ts) against raw TCP (and TLS) servers that
 * answer byte by byte what each test scripts: framing by length, chunks and close, split at every
 * byte; keep-alive reuse and its limits; malformed answers; timeouts; the socket bound; aborts;
 * closing the pool.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { Http1Error, Http1Pool, type Http1PoolOptions } from '../../src/upstream/http1.ts';

interface Received {
  head: string;
  body: string;
}

/** A server that reads each request whole and calls `answer` with it and the socket. */
interface RawServer {
  origin: string;
  /** Sockets accepted so far. */
  connections: number;
  /** Sockets open now. */
  open: Set<Socket>;
  requests: Received[];
  close(): Promise<void>;
}

const servers: RawServer[] = [];
const pools: Http1Pool[] = [];

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function handleRequests(
  socket: Socket,
  state: RawServer,
  answer: (socket: Socket, request: Received, index: number) => void,
) {
  let buffered = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (;;) {
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buffered.toString('latin1', 0, end);
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      const body = buffered.toString('utf8', end + 4, end + 4 + length);
      buffered = buffered.subarray(end + 4 + length);
      const request = { head, body };
      state.requests.push(request);
      answer(socket, request, state.requests.length - 1);
    }
  });
  socket.on('error', () => {});
}

async function rawServer(
  answer: (socket: Socket, request: Received, index: number) => void,
  tls = false,
): Promise<RawServer> {
  const state: RawServer = {
    origin: '',
    connections: 0,
    open: new Set(),
    requests: [],
    close: async () => {
      for (const socket of state.open) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const onSocket = (socket: Socket) => {
    state.connections += 1;
    state.open.add(socket);
    socket.on('close', () => state.open.delete(socket));
    handleRequests(socket, state, answer);
  };
  const server: Server = tls
    ? createTlsServer(
        {
          cert: readFileSync(join(import.meta.dirname, '../support/tls/localhost-cert.pem')),
          key: readFileSync(join(import.meta.dirname, '../support/tls/localhost-key.pem')),
        },
        onSocket,
      )
    : createServer(onSocket);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  state.origin = `${tls ? 'https' : 'http'}://${tls ? 'localhost' : '127.0.0.1'}:${port}`;
  servers.push(state);
  return state;
}

function pool(origin: string, options: Partial<Http1PoolOptions> = {}): Http1Pool {
  const created = new Http1Pool(origin, {
    connections: 4,
    connectTimeoutMs: 2_000,
    headersTimeoutMs: 2_000,
    bodyTimeoutMs: 2_000,
    keepAliveTimeoutMs: 4_000,
    maxResponseBytes: 1024 * 1024,
    ...options,
  });
  pools.push(created);
  return created;
}

const get = (target: Http1Pool, path = '/v2/x', signal?: AbortSignal) =>
  target.request('GET', path, { accept: 'application/json' }, undefined, signal);

/** Writes `text` one byte at a time (each its own TCP segment, as far as Nagle allows). */
async function dribble(socket: Socket, bytes: Buffer) {
  socket.setNoDelay(true);
  for (let i = 0; i < bytes.length; i++) {
    socket.write(bytes.subarray(i, i + 1));
    if (i % 7 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
}

const BODY = '{"data":[{"id":"1","name":"Crème brûlée ☕ 𝄞"}]}';

function lengthAnswer(body = BODY, extra = '') {
  return Buffer.from(
    `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`,
  );
}

function chunkedAnswer(body = BODY) {
  const bytes = Buffer.from(body);
  const parts = [bytes.subarray(0, 5), bytes.subarray(5, 23), bytes.subarray(23)];
  const chunks = parts.map((part, i) =>
    Buffer.concat([
      Buffer.from(`${part.length.toString(16)}${i === 1 ? ';ext=1' : ''}\r\n`),
      part,
      Buffer.from('\r\n'),
    ]),
  );
  return Buffer.concat([
    Buffer.from('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\netag: W/"7"\r\n\r\n'),
    ...chunks,
    Buffer.from('0\r\nx-trailer: yes\r\n\r\n'),
  ]);
}

describe('Http1Pool', () => {
  it('sends one well-formed request and reads a length-framed answer split at every byte', async () => {
    const server = await rawServer((socket) => void dribble(socket, lengthAnswer()));
    const target = pool(server.origin);
    const answer = await target.request(
      'POST',
      '/v2/carts?x=1',
      { authorization: 'Bearer t0k', 'content-type': 'application/json' },
      '{"name":"é"}',
      undefined,
    );
    expect(answer).toEqual({
      status: 200,
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(BODY)),
      },
      text: BODY,
    });
    const [request] = server.requests;
    expect(request?.head.split('\r\n')).toEqual([
      'POST /v2/carts?x=1 HTTP/1.1',
      `host: ${new URL(server.origin).host}`,
      'connection: keep-alive',
      'authorization: Bearer t0k',
      'content-type: application/json',
      'content-length: 13',
    ]);
    expect(request?.body).toBe('{"name":"é"}');
  });

  it('reads chunked answers (extensions, trailers) split at every byte, and keeps the socket', async () => {
    const server = await rawServer((socket) => void dribble(socket, chunkedAnswer()));
    const target = pool(server.origin);
    for (let i = 0; i < 3; i++) {
      const answer = await get(target);
      expect(answer.text).toBe(BODY);
      expect(answer.headers.etag).toBe('W/"7"');
    }
    expect(server.connections).toBe(1);
  });

  it('reuses one keep-alive socket for serial requests and reads answers arriving whole', async () => {
    const server = await rawServer((socket, _request, index) =>
      socket.write(lengthAnswer(`{"n":${index}}`)),
    );
    const target = pool(server.origin);
    for (let i = 0; i < 5; i++) expect((await get(target)).text).toBe(`{"n":${i}}`);
    expect(server.connections).toBe(1);
    expect(target.size).toBe(1);
  });

  it('reads an answer framed by the end of the connection, then opens a new socket', async () => {
    const server = await rawServer((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n${BODY}`);
      socket.end();
    });
    const target = pool(server.origin);
    expect((await get(target)).text).toBe(BODY);
    expect((await get(target)).text).toBe(BODY);
    expect(server.connections).toBe(2);
  });

  it('does not reuse a socket after `connection: close`, HTTP/1.0 or a too short keep-alive hint', async () => {
    const extras = [
      'HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\n{}',
      'HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\n{}',
      'HTTP/1.1 200 OK\r\nkeep-alive: timeout=1\r\ncontent-length: 2\r\n\r\n{}',
    ];
    const server = await rawServer((socket, _request, index) => socket.write(extras[index] ?? ''));
    const target = pool(server.origin);
    for (let i = 0; i < extras.length; i++) expect((await get(target)).text).toBe('{}');
    expect(server.connections).toBe(3);
  });

  it('answers 204 and content-length 0 without a body, and skips 100 Continue', async () => {
    const answers = [
      'HTTP/1.1 204 No Content\r\n\r\n',
      'HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n',
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\ncontent-length: 2\r\n\r\n{}',
    ];
    const server = await rawServer((socket, _request, index) => socket.write(answers[index] ?? ''));
    const target = pool(server.origin);
    expect(await get(target)).toMatchObject({ status: 204, text: '' });
    expect(await get(target)).toMatchObject({ status: 200, text: '' });
    expect(await get(target)).toMatchObject({ status: 201, text: '{}' });
    expect(server.connections).toBe(1);
  });

  it('keeps repeated headers in order as arrays', async () => {
    const server = await rawServer((socket) =>
      socket.write('HTTP/1.1 200 OK\r\nx-a: 1\r\nX-A: 2\r\nx-a:3\r\ncontent-length: 0\r\n\r\n'),
    );
    expect((await get(pool(server.origin))).headers['x-a']).toEqual(['1', '2', '3']);
  });

  it.each([
    ['a status line that is not HTTP/1.x', 'HTTP/2 200 OK\r\n\r\n'],
    ['a status of two digits', 'HTTP/1.1 20 OK\r\n\r\n'],
    ['a header line without a colon', 'HTTP/1.1 200 OK\r\nbroken\r\n\r\n'],
    ['a header name with a space', 'HTTP/1.1 200 OK\r\nbad name: 1\r\n\r\n'],
    ['a folded header', 'HTTP/1.1 200 OK\r\nx-a: 1\r\n  more\r\n\r\n'],
    ['a bad chunk size', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n'],
    ['a chunk without its CRLF', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}XX'],
    ['an encoding it cannot read', 'HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\n'],
    ['conflicting lengths', 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\n'],
    ['a negative length', 'HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n'],
    ['a switch of protocols', 'HTTP/1.1 101 Switching Protocols\r\n\r\n'],
  ])('refuses %s with UPSTREAM_MALFORMED_RESPONSE and drops the socket', async (_name, raw) => {
    const server = await rawServer((socket) => socket.write(raw));
    const target = pool(server.origin);
    await expect(get(target)).rejects.toMatchObject({
      name: 'Http1Error',
      code: 'UPSTREAM_MALFORMED_RESPONSE',
    });
    expect(target.size).toBe(0);
  });

  it('refuses answers over the size bound, announced or streamed', async () => {
    const big = 'x'.repeat(2048);
    const answers = [
      `HTTP/1.1 200 OK\r\ncontent-length: ${big.length}\r\n\r\n${big}`,
      `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n800\r\n${big}\r\n0\r\n\r\n`,
      `HTTP/1.1 200 OK\r\n\r\n${big}`,
    ];
    const server = await rawServer((socket, _request, index) => socket.write(answers[index] ?? ''));
    const target = pool(server.origin, { maxResponseBytes: 1024 });
    for (let i = 0; i < answers.length; i++) {
      await expect(get(target)).rejects.toMatchObject({ code: 'UPSTREAM_RESPONSE_TOO_LARGE' });
    }
  });

  it('times out a missing head and a stalled body', async () => {
    const server = await rawServer((socket, _request, index) => {
      if (index === 1) socket.write('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n{"a"');
    });
    const target = pool(server.origin, { headersTimeoutMs: 150, bodyTimeoutMs: 150 });
    const started = Date.now();
    await expect(get(target)).rejects.toMatchObject({ code: 'UPSTREAM_HEADERS_TIMEOUT' });
    await expect(get(target)).rejects.toMatchObject({ code: 'UPSTREAM_BODY_TIMEOUT' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(target.size).toBe(0);
  });

  it('fails a request whose socket closes before the answer is whole', async () => {
    const server = await rawServer((socket, _request, index) => {
      if (index === 0) socket.end('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n{"a"');
      else socket.destroy();
    });
    const target = pool(server.origin);
    await expect(get(target)).rejects.toMatchObject({ code: 'UPSTREAM_SOCKET_CLOSED' });
    await expect(get(target)).rejects.toSatisfy(
      (error: { code?: string }) =>
        error.code === 'UPSTREAM_SOCKET_CLOSED' || error.code === 'ECONNRESET',
    );
  });

  it('reports a refused connection with Node’s code', async () => {
    const server = await rawServer(() => {});
    const origin = server.origin;
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    await expect(get(pool(origin))).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('opens at most `connections` sockets and answers the queued requests in turn', async () => {
    let busy = 0;
    let most = 0;
    const server = await rawServer((socket, request) => {
      busy += 1;
      most = Math.max(most, busy);
      setTimeout(() => {
        busy -= 1;
        socket.write(lengthAnswer(`"${request.head.split(' ')[1]}"`));
      }, 20);
    });
    const target = pool(server.origin, { connections: 2 });
    const answers = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => get(target, `/v2/n${n}`)));
    expect(answers.map((a) => a.text)).toEqual([1, 2, 3, 4, 5, 6].map((n) => `"/v2/n${n}"`));
    expect(most).toBe(2);
    expect(server.connections).toBe(2);
  });

  it('aborts a queued request without touching the others, and an in-flight one by its socket', async () => {
    const server = await rawServer((socket, request) => {
      if (!request.head.includes('/v2/hang')) setTimeout(() => socket.write(lengthAnswer()), 30);
    });
    const target = pool(server.origin, { connections: 1 });
    const first = get(target, '/v2/slow');
    const queued = new AbortController();
    const dropped = get(target, '/v2/dropped', queued.signal);
    const third = get(target, '/v2/third');
    queued.abort(new Error('caller left'));
    await expect(dropped).rejects.toThrow('caller left');
    expect((await first).text).toBe(BODY);
    expect((await third).text).toBe(BODY);
    expect(server.requests.map((r) => r.head.split(' ')[1])).toEqual(['/v2/slow', '/v2/third']);

    const inFlight = new AbortController();
    const hanging = get(target, '/v2/hang', inFlight.signal);
    await new Promise((resolve) => setTimeout(resolve, 50));
    inFlight.abort(new Error('deadline'));
    await expect(hanging).rejects.toThrow('deadline');
    expect(target.size).toBe(0);
    const already = new AbortController();
    already.abort(new Error('before'));
    await expect(get(target, '/v2/x', already.signal)).rejects.toThrow('before');
  });

  it('refuses a header or path that could split the request, sending nothing', async () => {
    const server = await rawServer((socket) => socket.write(lengthAnswer()));
    const target = pool(server.origin);
    for (const [path, headers] of [
      ['/v2/x', { 'x-currency': 'USD\r\nx-evil: 1' }],
      ['/v2/x', { 'bad name': 'v' }],
      ['/v2/x', { 'x-currency': 'USD\u2028' }],
      ['/v2/x y', {}],
      ['/v2/x\r\n', {}],
    ] as const) {
      await expect(
        target.request('GET', path, headers, undefined, undefined),
      ).rejects.toMatchObject({
        code: 'UPSTREAM_INVALID_HEADER',
      });
    }
    expect(server.connections).toBe(0);
  });

  it('closes idle sockets after the keep-alive time', async () => {
    const server = await rawServer((socket) => socket.write(lengthAnswer()));
    const target = pool(server.origin, { keepAliveTimeoutMs: 100 });
    await get(target);
    expect(target.size).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(target.size).toBe(0);
    expect(server.open.size).toBe(0);
  });

  it('drops a socket the server closed while idle and uses a new one', async () => {
    const server = await rawServer((socket) =>
      socket.end(lengthAnswer(BODY, 'connection: keep-alive\r\n')),
    );
    const target = pool(server.origin);
    expect((await get(target)).text).toBe(BODY);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await get(target)).text).toBe(BODY);
    expect(server.connections).toBe(2);
  });

  it('close() ends idle sockets, refuses new requests and lets in-flight ones finish', async () => {
    const server = await rawServer((socket) => setTimeout(() => socket.write(lengthAnswer()), 50));
    const target = pool(server.origin, { connections: 1 });
    const inFlight = get(target);
    const queued = get(target).catch((error: unknown) => error);
    const closing = target.close();
    expect((await inFlight).text).toBe(BODY);
    expect(await queued).toMatchObject({ code: 'UPSTREAM_POOL_CLOSED' });
    await closing;
    expect(target.size).toBe(0);
    await expect(get(target)).rejects.toBeInstanceOf(Http1Error);
  });

  it('speaks HTTP/1.1 over TLS to an https origin, checking its certificate', async () => {
    const server = await rawServer((socket) => socket.write(chunkedAnswer()), true);
    const ca = readFileSync(join(import.meta.dirname, '../support/tls/localhost-cert.pem'));
    const trusting = pool(server.origin, { ca });
    expect((await get(trusting)).text).toBe(BODY);
    expect((await get(trusting)).text).toBe(BODY);
    expect(server.connections).toBe(1);
    await expect(get(pool(server.origin))).rejects.toMatchObject({
      code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
    });
  });
});
