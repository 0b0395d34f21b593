/**
 * The upstream's HTTP/1.1 connection pool: keep-alive sockets to one origin, one request at a
 * time on each, the whole response body collected into one string.
 *
 * Why not undici: every GraphQL connection field is one list call, and the profile of the gateway
 * on a 25-order page put undici's parser (llhttp in WebAssembly, a callback per header field and
 * value, header names looked up in a tree, the keep-alive hint parsed on every answer) and its
 * deferred write (`setImmediate`) at about 150 µs of the request's CPU, against about 25 µs for
 * the little this client does: one `write` of the request head, the response head found with
 * `indexOf`, the body framed by `content-length` or `chunked`, the chunks joined once. The rest
 * of what the gateway relied on is kept: a bounded number of sockets (callers queue beyond it),
 * connect, headers and body timeouts, idle sockets closed before the server's keep-alive hint,
 * TLS for `https:` origins, the caller's AbortSignal, a size bound. No redirects are followed and
 * nothing is decoded (no `accept-encoding` is sent).
 *
 * Failures are `Http1Error`s with a stable `code` (or Node's own socket errors: `ECONNREFUSED`,
 * `ECONNRESET`, …); src/upstream/client.ts turns them into the gateway's errors.
 */
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface Http1PoolOptions {
  /** Maximum sockets to the origin; requests beyond them wait in order. */
  connections: number;
  connectTimeoutMs: number;
  /** From the request written to the whole response head received. */
  headersTimeoutMs: number;
  /** Longest silence between two pieces of a response body. */
  bodyTimeoutMs: number;
  /** How long an idle socket is kept (shortened by the server's `keep-alive: timeout=`). */
  keepAliveTimeoutMs: number;
  /** Largest response body accepted. */
  maxResponseBytes: number;
  /** Trust anchors for an `https:` origin instead of Node's (a private CA; the tests' own). */
  ca?: string | Buffer | undefined;
}

export type Http1ErrorCode =
  | 'UPSTREAM_CONNECT_TIMEOUT'
  | 'UPSTREAM_HEADERS_TIMEOUT'
  | 'UPSTREAM_BODY_TIMEOUT'
  /** The socket ended or closed before the whole response came. */
  | 'UPSTREAM_SOCKET_CLOSED'
  /** Not HTTP/1.x as this client reads it (status line, header, framing, chunk size). */
  | 'UPSTREAM_MALFORMED_RESPONSE'
  | 'UPSTREAM_RESPONSE_TOO_LARGE'
  /** A header this client will not write (CR, LF, NUL or a non-Latin-1 character). */
  | 'UPSTREAM_INVALID_HEADER'
  | 'UPSTREAM_POOL_CLOSED';

export class Http1Error extends Error {
  override readonly name = 'Http1Error';
  constructor(
    readonly code: Http1ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface Http1Answer {
  status: number;
  /** Lower-case names; a header sent more than once is an array, in order. */
  headers: Record<string, string | string[]>;
  text: string;
}

interface Pending {
  /** Request head (Latin-1) and body (UTF-8), written together. */
  head: string;
  body: string | undefined;
  resolve: (answer: Http1Answer) => void;
  reject: (error: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  connection: Connection | undefined;
  settled: boolean;
}

const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');
const CRLF = Buffer.from('\r\n', 'latin1');
const MAX_HEAD_BYTES = 64 * 1024;
const MAX_CHUNK_LINE_BYTES = 4096;
/** Server hints within this margin of their end are not trusted to leave time for a request. */
const KEEP_ALIVE_MARGIN_MS = 1_000;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** 1 for the characters of an HTTP token (RFC 9110 §5.6.2), by char code. */
const TOKEN_CHARS = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") {
  TOKEN_CHARS[c.charCodeAt(0)] = 1;
}

function isToken(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code >= 128 || TOKEN_CHARS[code] === 0) return false;
  }
  return true;
}

function isDigit(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return code >= 48 && code <= 57;
}
const UNSAFE_VALUE = /[\r\n\0]|[^\u0000-\u00ff]/;

function malformed(why: string): Http1Error {
  return new Http1Error('UPSTREAM_MALFORMED_RESPONSE', `Malformed upstream response: ${why}`);
}

/** Builds the request head; throws on a header that could split or corrupt it. */
function requestHead(
  method: string,
  path: string,
  host: string,
  headers: Readonly<Record<string, string>>,
  bodyBytes: number | undefined,
): string {
  if (UNSAFE_VALUE.test(path) || path.includes(' ') || path[0] !== '/') {
    throw new Http1Error('UPSTREAM_INVALID_HEADER', 'The request path cannot be sent');
  }
  let head = `${method} ${path} HTTP/1.1\r\nhost: ${host}\r\nconnection: keep-alive\r\n`;
  for (const name in headers) {
    const value = headers[name] as string;
    if (!TOKEN.test(name) || UNSAFE_VALUE.test(value)) {
      throw new Http1Error('UPSTREAM_INVALID_HEADER', `The header "${name}" cannot be sent`);
    }
    head += `${name}: ${value}\r\n`;
  }
  if (bodyBytes !== undefined) head += `content-length: ${bodyBytes}\r\n`;
  return `${head}\r\n`;
}

type Phase = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'eof';

/** One socket and the response being read on it. */
class Connection {
  readonly socket: Socket;
  pending: Pending | undefined;
  /** performance.now() after which the current wait has lasted too long. */
  deadline: number;
  state: 'connecting' | 'busy' | 'idle' | 'closed' = 'connecting';
  /** Idle time allowed after the last response (the server may ask for less). */
  idleMs: number;
  private phase: Phase = 'head';
  /** Bytes of an unfinished head, chunk-size line or trailer section. */
  private carry: Buffer | undefined;
  private status = 0;
  private headers: Record<string, string | string[]> = {};
  private reusable = true;
  /** Body bytes still expected: of the body (`length`) or of the current chunk. */
  private remaining = 0;
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly pool: Http1Pool,
    url: URL,
  ) {
    const options = this.pool.options;
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const host = url.hostname.replace(/^\[|\]$/g, '');
    this.idleMs = options.keepAliveTimeoutMs;
    this.deadline = performance.now() + options.connectTimeoutMs;
    if (url.protocol === 'https:') {
      this.socket = tlsConnect({
        host,
        port,
        // SNI carries host names only, never an address.
        ...(isIP(host) === 0 ? { servername: host } : {}),
        ALPNProtocols: ['http/1.1'],
        ...(options.ca === undefined ? {} : { ca: options.ca }),
      });
      this.socket.once('secureConnect', () => this.connected());
    } else {
      this.socket = netConnect({ host, port });
      this.socket.once('connect', () => this.connected());
    }
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('end', () => this.onEnd());
    this.socket.on('error', (error) => this.fail(error));
    this.socket.on('close', () => this.fail(this.closedEarly()));
  }

  private connected(): void {
    if (this.state !== 'connecting') return;
    this.socket.setKeepAlive(true, 60_000);
    const pending = this.pending;
    if (pending === undefined) this.pool.release(this);
    else this.send(pending);
  }

  /** Writes a request on this (connected, free) socket. */
  send(pending: Pending): void {
    this.state = 'busy';
    this.pending = pending;
    pending.connection = this;
    this.phase = 'head';
    this.status = 0;
    this.headers = {};
    this.reusable = true;
    this.chunks = [];
    this.size = 0;
    this.carry = undefined;
    this.deadline = performance.now() + this.pool.options.headersTimeoutMs;
    if (pending.body === undefined) {
      this.socket.write(pending.head, 'latin1');
    } else {
      this.socket.cork();
      this.socket.write(pending.head, 'latin1');
      this.socket.write(pending.body, 'utf8');
      this.socket.uncork();
    }
  }

  /** Ends this socket; a request on it fails with `error`. */
  destroy(error: unknown): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.pool.forget(this);
    const pending = this.pending;
    this.pending = undefined;
    this.socket.destroy();
    if (pending !== undefined) this.pool.settle(pending, error, undefined);
  }

  private fail(error: unknown): void {
    this.destroy(error);
  }

  private closedEarly(): Http1Error {
    return new Http1Error(
      'UPSTREAM_SOCKET_CLOSED',
      'The upstream closed the connection before the response was complete',
    );
  }

  /** The sweeper's check: a wait that has lasted past its deadline ends the socket. */
  expire(now: number): void {
    if (now <= this.deadline) return;
    if (this.state === 'idle') {
      this.destroy(undefined);
    } else if (this.state === 'connecting') {
      this.destroy(
        new Http1Error('UPSTREAM_CONNECT_TIMEOUT', 'Connecting to the upstream timed out'),
      );
    } else if (this.state === 'busy') {
      this.destroy(
        this.phase === 'head'
          ? new Http1Error('UPSTREAM_HEADERS_TIMEOUT', 'The upstream response head timed out')
          : new Http1Error('UPSTREAM_BODY_TIMEOUT', 'The upstream response body timed out'),
      );
    }
  }

  private onEnd(): void {
    if (this.state === 'busy' && this.phase === 'eof') {
      this.reusable = false;
      this.complete();
      return;
    }
    this.destroy(this.state === 'busy' ? this.closedEarly() : undefined);
  }

  private onData(chunk: Buffer): void {
    if (this.state !== 'busy') {
      // Bytes nobody asked for: the socket cannot be trusted with the next request.
      this.destroy(undefined);
      return;
    }
    try {
      this.read(chunk);
    } catch (error) {
      this.destroy(error);
    }
  }

  private read(input: Buffer): void {
    let buffer = input;
    if (this.carry !== undefined) {
      buffer = Buffer.concat([this.carry, input]);
      this.carry = undefined;
    }
    let at = 0;
    while (this.state === 'busy') {
      switch (this.phase) {
        case 'head': {
          const end = buffer.indexOf(HEAD_END, at);
          if (end < 0) {
            if (buffer.length - at > MAX_HEAD_BYTES) throw malformed('response head too large');
            this.carry = buffer.subarray(at);
            return;
          }
          if (end - at > MAX_HEAD_BYTES) throw malformed('response head too large');
          const head = buffer.toString('latin1', at, end);
          at = end + 4;
          if (this.parseHead(head)) {
            // No body (204, 304, `content-length: 0`): the response is whole now.
            this.complete(buffer.length - at);
            return;
          }
          break;
        }
        case 'length': {
          const take = Math.min(this.remaining, buffer.length - at);
          if (take > 0) this.body(buffer.subarray(at, at + take));
          at += take;
          this.remaining -= take;
          if (this.remaining === 0) {
            this.complete(buffer.length - at);
            return;
          }
          this.touch();
          return;
        }
        case 'eof': {
          if (at < buffer.length) this.body(at === 0 ? buffer : buffer.subarray(at));
          this.touch();
          return;
        }
        case 'chunk-size': {
          const end = buffer.indexOf(CRLF, at);
          if (end < 0) {
            if (buffer.length - at > MAX_CHUNK_LINE_BYTES)
              throw malformed('chunk size line too long');
            this.carry = buffer.subarray(at);
            this.touch();
            return;
          }
          const line = buffer.toString('latin1', at, end);
          const semicolon = line.indexOf(';');
          const hex = (semicolon < 0 ? line : line.slice(0, semicolon)).trim();
          if (!/^[0-9a-fA-F]{1,8}$/.test(hex)) throw malformed('bad chunk size');
          this.remaining = Number.parseInt(hex, 16);
          at = end + 2;
          this.phase = this.remaining === 0 ? 'trailers' : 'chunk-data';
          break;
        }
        case 'chunk-data': {
          const take = Math.min(this.remaining, buffer.length - at);
          if (take > 0) this.body(buffer.subarray(at, at + take));
          at += take;
          this.remaining -= take;
          if (this.remaining > 0) {
            this.touch();
            return;
          }
          this.phase = 'chunk-end';
          break;
        }
        case 'chunk-end': {
          if (buffer.length - at < 2) {
            if (at < buffer.length) this.carry = buffer.subarray(at);
            this.touch();
            return;
          }
          if (buffer[at] !== 13 || buffer[at + 1] !== 10) throw malformed('chunk without CRLF');
          at += 2;
          this.phase = 'chunk-size';
          break;
        }
        case 'trailers': {
          const end = buffer.indexOf(CRLF, at);
          if (end < 0) {
            if (buffer.length - at > MAX_HEAD_BYTES) throw malformed('trailers too large');
            this.carry = buffer.subarray(at);
            this.touch();
            return;
          }
          // An empty line ends the message; a trailer field is read past (never used).
          const empty = end === at;
          at = end + 2;
          if (empty) {
            this.complete(buffer.length - at);
            return;
          }
          break;
        }
      }
      if (at >= buffer.length) {
        this.touch();
        return;
      }
    }
  }

  /** Body bytes arrived: the body timeout starts again. */
  private touch(): void {
    if (this.phase !== 'head') {
      this.deadline = performance.now() + this.pool.options.bodyTimeoutMs;
    }
  }

  private body(piece: Buffer): void {
    this.size += piece.length;
    if (this.size > this.pool.options.maxResponseBytes) {
      throw new Http1Error('UPSTREAM_RESPONSE_TOO_LARGE', 'The upstream response is too large');
    }
    this.chunks.push(piece);
  }

  /** Reads a response head; true when it ends the response (no body follows). */
  private parseHead(head: string): boolean {
    // `HTTP/1.x NNN[ reason]`, read by position: this runs once per upstream answer.
    const lineEnd = head.indexOf('\r\n');
    const statusLine = lineEnd < 0 ? head : head.slice(0, lineEnd);
    if (
      !statusLine.startsWith('HTTP/1.') ||
      (statusLine[7] !== '0' && statusLine[7] !== '1') ||
      statusLine[8] !== ' ' ||
      !isDigit(statusLine, 9) ||
      !isDigit(statusLine, 10) ||
      !isDigit(statusLine, 11) ||
      (statusLine.length > 12 && statusLine[12] !== ' ')
    ) {
      throw malformed('bad status line');
    }
    const status = Number(statusLine.slice(9, 12));
    const headers: Record<string, string | string[]> = {};
    let at = lineEnd < 0 ? head.length : lineEnd + 2;
    while (at < head.length) {
      let end = head.indexOf('\r\n', at);
      if (end < 0) end = head.length;
      const colon = head.indexOf(':', at);
      if (colon <= at || colon > end || !isToken(head, at, colon)) {
        throw malformed('bad header line');
      }
      const key = head.slice(at, colon).toLowerCase();
      const value = head.slice(colon + 1, end).trim();
      at = end + 2;
      const previous = headers[key];
      if (previous === undefined) headers[key] = value;
      else if (typeof previous === 'string') headers[key] = [previous, value];
      else previous.push(value);
    }
    if (status < 200) {
      // 100 Continue, 103 Early Hints: informational, the real answer follows. 101 is refused.
      if (status === 101 || status < 100) throw malformed(`unexpected status ${status}`);
      return false;
    }
    this.status = status;
    this.headers = headers;
    const connection = String(headers.connection ?? '').toLowerCase();
    const http10 = statusLine[7] === '0';
    this.reusable = http10 ? connection.includes('keep-alive') : !connection.includes('close');
    this.idleMs = this.pool.options.keepAliveTimeoutMs;
    const hint = /timeout=(\d+)/i.exec(String(headers['keep-alive'] ?? ''));
    if (hint !== null) {
      const allowed = Number(hint[1]) * 1000 - KEEP_ALIVE_MARGIN_MS;
      if (allowed <= 0) this.reusable = false;
      else this.idleMs = Math.min(this.idleMs, allowed);
    }
    const encoding = headers['transfer-encoding'];
    const length = headers['content-length'];
    if (status === 204 || status === 304) {
      this.phase = 'length';
      this.remaining = 0;
    } else if (encoding !== undefined) {
      const codings = (Array.isArray(encoding) ? encoding.join(',') : encoding).toLowerCase();
      if (codings.trim() !== 'chunked') throw malformed(`unsupported transfer-encoding`);
      // With both, transfer-encoding wins and the socket is not reused (RFC 9112 §6.3).
      if (length !== undefined) this.reusable = false;
      this.phase = 'chunk-size';
    } else if (length !== undefined) {
      const values = (Array.isArray(length) ? length.join(',') : length).split(',');
      const first = (values[0] as string).trim();
      if (!/^\d{1,15}$/.test(first) || values.some((v) => v.trim() !== first)) {
        throw malformed('bad content-length');
      }
      this.remaining = Number(first);
      if (this.remaining > this.pool.options.maxResponseBytes) {
        throw new Http1Error('UPSTREAM_RESPONSE_TOO_LARGE', 'The upstream response is too large');
      }
      this.phase = 'length';
    } else {
      this.phase = 'eof';
      this.reusable = false;
    }
    this.touch();
    return this.phase === 'length' && this.remaining === 0;
  }

  /** The response is whole: answer it and give the socket back (or end it). */
  private complete(extraBytes = 0): void {
    const pending = this.pending as Pending;
    this.pending = undefined;
    const chunks = this.chunks;
    const whole = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, this.size);
    this.chunks = [];
    const answer: Http1Answer = {
      status: this.status,
      headers: this.headers,
      text: whole.toString('utf8'),
    };
    if (this.reusable && extraBytes === 0 && this.phase !== 'eof') {
      this.state = 'idle';
      this.deadline = performance.now() + this.idleMs;
      this.pool.settle(pending, undefined, answer);
      this.pool.release(this);
    } else {
      this.state = 'closed';
      this.pool.forget(this);
      this.socket.destroy();
      this.pool.settle(pending, undefined, answer);
    }
  }
}

export class Http1Pool {
  readonly options: Http1PoolOptions;
  private readonly url: URL;
  private readonly host: string;
  /** Free sockets, the most recently used last (taken first: it is the least likely stale). */
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  private queue: Pending[] = [];
  private queueHead = 0;
  private sweeper: NodeJS.Timeout | undefined;
  private closed = false;
  private drained: (() => void) | undefined;

  constructor(origin: string, options: Http1PoolOptions) {
    this.url = new URL(origin);
    if (this.url.protocol !== 'http:' && this.url.protocol !== 'https:') {
      throw new Error(`The upstream URL must be http: or https:, got "${this.url.protocol}"`);
    }
    this.host = this.url.host;
    this.options = options;
  }

  /** Sockets open now (busy, idle or connecting). */
  get size(): number {
    return this.all.size;
  }

  request(
    method: string,
    path: string,
    headers: Readonly<Record<string, string>>,
    body: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Http1Answer> {
    return new Promise((resolve, reject) => {
      if (this.closed) {
        reject(new Http1Error('UPSTREAM_POOL_CLOSED', 'The upstream pool is closed'));
        return;
      }
      if (signal?.aborted) {
        reject(signal.reason ?? new Error('aborted'));
        return;
      }
      const head = requestHead(
        method,
        path,
        this.host,
        headers,
        body === undefined ? undefined : Buffer.byteLength(body),
      );
      const pending: Pending = {
        head,
        body,
        resolve,
        reject,
        signal,
        onAbort: undefined,
        connection: undefined,
        settled: false,
      };
      if (signal !== undefined) {
        pending.onAbort = () => this.abort(pending);
        signal.addEventListener('abort', pending.onAbort, { once: true });
      }
      const free = this.idle.pop();
      if (free !== undefined) free.send(pending);
      else if (this.all.size < this.options.connections) this.open().pending = pending;
      else this.queue.push(pending);
    });
  }

  /** Called once per request with its answer or failure; removes the abort listener. */
  settle(pending: Pending, error: unknown, answer: Http1Answer | undefined): void {
    if (pending.settled) return;
    pending.settled = true;
    if (pending.onAbort !== undefined) {
      pending.signal?.removeEventListener('abort', pending.onAbort);
    }
    if (answer !== undefined) pending.resolve(answer);
    else pending.reject(error ?? new Http1Error('UPSTREAM_SOCKET_CLOSED', 'The upstream closed'));
  }

  /** A socket is free: it takes the next waiting request, or waits itself. */
  release(connection: Connection): void {
    if (connection.state === 'closed') return;
    if (this.closed) {
      connection.destroy(undefined);
      return;
    }
    const next = this.nextQueued();
    if (next !== undefined) {
      connection.send(next);
      return;
    }
    connection.state = 'idle';
    connection.deadline = performance.now() + connection.idleMs;
    this.idle.push(connection);
  }

  /** A socket has ended: it leaves the pool, and a waiting request may open another. */
  forget(connection: Connection): void {
    if (!this.all.delete(connection)) return;
    const index = this.idle.indexOf(connection);
    if (index >= 0) this.idle.splice(index, 1);
    if (!this.closed) {
      const next = this.queue.length > this.queueHead ? this.nextQueued() : undefined;
      if (next !== undefined) this.open().pending = next;
    }
    if (this.all.size === 0) {
      if (this.sweeper !== undefined) clearInterval(this.sweeper);
      this.sweeper = undefined;
      this.drained?.();
    }
  }

  /** Ends idle sockets now and the others once their response is read. */
  close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.slice(this.queueHead)) {
      this.settle(
        pending,
        new Http1Error('UPSTREAM_POOL_CLOSED', 'The upstream pool is closed'),
        undefined,
      );
    }
    this.queue = [];
    this.queueHead = 0;
    for (const connection of [...this.idle]) connection.destroy(undefined);
    for (const connection of [...this.all]) {
      if (connection.state === 'connecting' && connection.pending === undefined) {
        connection.destroy(undefined);
      }
    }
    if (this.all.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.drained = resolve;
    });
  }

  private nextQueued(): Pending | undefined {
    while (this.queueHead < this.queue.length) {
      const next = this.queue[this.queueHead] as Pending;
      this.queue[this.queueHead] = undefined as unknown as Pending;
      this.queueHead += 1;
      if (this.queueHead === this.queue.length) {
        this.queue = [];
        this.queueHead = 0;
      }
      if (!next.settled) return next;
    }
    return undefined;
  }

  private open(): Connection {
    const connection = new Connection(this, this.url);
    this.all.add(connection);
    if (this.sweeper === undefined) {
      const o = this.options;
      const shortest = Math.min(
        o.connectTimeoutMs,
        o.headersTimeoutMs,
        o.bodyTimeoutMs,
        o.keepAliveTimeoutMs,
      );
      const every = Math.max(10, Math.min(1_000, Math.floor(shortest / 4)));
      this.sweeper = setInterval(() => {
        const now = performance.now();
        for (const one of [...this.all]) one.expire(now);
      }, every);
      this.sweeper.unref();
    }
    return connection;
  }

  private abort(pending: Pending): void {
    if (pending.settled) return;
    const reason = pending.signal?.reason ?? new Error('aborted');
    const connection = pending.connection;
    if (connection !== undefined) connection.destroy(reason);
    else {
      // Waiting in the queue, or for its socket to connect: only the request is dropped.
      for (const one of this.all) {
        if (one.pending === pending) one.pending = undefined;
      }
      this.settle(pending, reason, undefined);
    }
  }
}
