import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Pool } from 'undici';

/**
 * A controllable upstream for fault injection: real HTTP on 127.0.0.1, port 0. By default it
 * proxies every request to `target` (usually the embedded commerce service), so the gateway sees
 * real data; rules make chosen requests fail in chosen ways, per route and per attempt.
 */

export type Fault =
  /** Forward to the target unchanged. */
  | { kind: 'pass' }
  /** Answer this status (default JSON:API error body), optionally with headers. */
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: string }
  /** Forward to the target, but answer only after `ms`. */
  | { kind: 'delay'; ms: number }
  /** Accept the request and never answer (until the client gives up). */
  | { kind: 'hang' }
  /** Send headers at once, then the target's body a few bytes at a time. */
  | { kind: 'drip'; intervalMs: number; bytesPerTick?: number }
  /** Destroy the socket without any answer. */
  | { kind: 'reset' }
  /** Send headers and half of the target's body, then destroy the socket. */
  | { kind: 'reset-mid-body' }
  /** A 200 whose body is not JSON. */
  | { kind: 'garbage'; body?: string; contentType?: string }
  /** A 200 with this JSON body (wrongly shaped on purpose). */
  | { kind: 'json'; body: unknown; status?: number }
  /** Forward to the target (the write happens), then answer its status with this body instead. */
  | { kind: 'rewrite'; body: (text: string) => string };

export interface FaultRule {
  method?: string;
  /** Matched against the path (without the query string). */
  path?: RegExp;
  /** Matched against the whole request target, query string included (one page of a list). */
  target?: RegExp;
  /** Fault for the n-th matching request (0-based); later requests get `otherwise`. */
  sequence?: Fault[];
  /** After the sequence (or without one): this fault, applied with probability `rate`. */
  otherwise?: Fault;
  /** Probability in [0,1] that `otherwise` applies to a request past the sequence. Default 1. */
  rate?: number;
  /**
   * Transient faults: a call (same x-request-id, method and URL) that got `otherwise` passes when it
   * is retried, so retries always recover. Without it every attempt draws again.
   */
  transient?: boolean;
}

export interface RecordedRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  /** The `x-request-id` the gateway forwarded, to attribute calls to one GraphQL request. */
  requestId: string | undefined;
  fault: Fault['kind'];
  at: number;
  /** When the connection of this exchange closed or the answer finished. */
  closedAt?: number;
}

export interface FaultUpstream {
  /** Base URL (no /v2), e.g. `http://127.0.0.1:54321`. */
  url: string;
  requests: RecordedRequest[];
  /** Adds a rule; the first matching rule wins. Returns a remover. */
  add(rule: FaultRule): () => void;
  clear(): void;
  /** Requests recorded for a method and path pattern. */
  count(method: string, path: RegExp): number;
  /** Told the fault chosen for each request (benchmarks count with it instead of recording). */
  onAnswer: ((method: string, fault: Fault['kind']) => void) | undefined;
  close(): Promise<void>;
}

const errorBody = (status: number) =>
  JSON.stringify({ errors: [{ status, title: 'Injected fault', detail: `status ${status}` }] });

export async function createFaultUpstream(options: {
  target?: string;
  /**
   * Draws in [0, 1) for `rate`; told the call's key (x-request-id, method and URL, the same for
   * its retries), so a test can make the draws depend on the call and not on arrival order.
   */
  random?: (key: string) => number;
  /** Keep `requests` (default true); a long benchmark turns it off. */
  record?: boolean;
}): Promise<FaultUpstream> {
  const random = options.random ?? Math.random;
  const pool = options.target
    ? new Pool(options.target, { connections: 64, pipelining: 1 })
    : undefined;
  const rules: { rule: FaultRule; seen: number }[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();

  // Calls that got a transient fault, so that their retry passes.
  const faulted = new Set<string>();

  const pick = (req: IncomingMessage): Fault => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    for (const entry of rules) {
      const { rule } = entry;
      if (rule.method && rule.method !== req.method) continue;
      if (rule.path && !rule.path.test(path)) continue;
      if (rule.target && !rule.target.test(req.url ?? '/')) continue;
      const n = entry.seen++;
      const fromSequence = rule.sequence?.[n];
      if (fromSequence) return fromSequence;
      if (!rule.otherwise) return { kind: 'pass' };
      const key = `${req.headers['x-request-id'] ?? ''} ${req.method} ${req.url}`;
      if (rule.transient && faulted.delete(key)) return { kind: 'pass' };
      if (random(key) < (rule.rate ?? 1)) {
        if (rule.transient) faulted.add(key);
        return rule.otherwise;
      }
      return { kind: 'pass' };
    }
    return { kind: 'pass' };
  };

  const forward = async (req: IncomingMessage, body: Buffer) => {
    if (!pool) {
      return { status: 404, headers: { 'content-type': 'application/json' }, body: errorBody(404) };
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || name === 'host' || name === 'connection') continue;
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const response = await pool.request({
      method: req.method as 'GET',
      path: req.url ?? '/',
      headers,
      body: body.length > 0 ? body : null,
    });
    const text = await response.body.text();
    const outHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (value === undefined || ['connection', 'transfer-encoding', 'keep-alive'].includes(name)) {
        continue;
      }
      outHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    outHeaders['content-length'] = String(Buffer.byteLength(text));
    return { status: response.statusCode, headers: outHeaders, body: text };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const fault = pick(req);
    upstream.onAnswer?.(req.method ?? 'GET', fault.kind);
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      authorization: req.headers.authorization,
      requestId: req.headers['x-request-id'] as string | undefined,
      fault: fault.kind,
      at: Date.now(),
    };
    if (options.record !== false) requests.push(record);
    res.on('close', () => {
      record.closedAt = Date.now();
    });
    switch (fault.kind) {
      case 'pass': {
        const answer = await forward(req, body);
        res.writeHead(answer.status, answer.headers).end(answer.body);
        return;
      }
      case 'delay': {
        const answer = await forward(req, body);
        await new Promise((resolve) => setTimeout(resolve, fault.ms));
        if (!res.destroyed) res.writeHead(answer.status, answer.headers).end(answer.body);
        return;
      }
      case 'status': {
        const text = fault.body ?? errorBody(fault.status);
        res
          .writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers })
          .end(text);
        return;
      }
      case 'hang':
        // Keep the socket open; close() destroys it.
        return;
      case 'reset':
        req.socket.destroy();
        return;
      case 'reset-mid-body': {
        const answer = await forward(req, body);
        const half = Buffer.from(answer.body).subarray(0, Math.max(1, answer.body.length >> 1));
        res.writeHead(answer.status, answer.headers);
        res.write(half, () => setImmediate(() => req.socket.destroy()));
        return;
      }
      case 'drip': {
        const answer = await forward(req, body);
        const bytes = Buffer.from(answer.body);
        const step = fault.bytesPerTick ?? 1;
        res.writeHead(answer.status, answer.headers);
        let offset = 0;
        const timer = setInterval(() => {
          if (res.destroyed || offset >= bytes.length) {
            clearInterval(timer);
            if (!res.destroyed) res.end();
            return;
          }
          res.write(bytes.subarray(offset, offset + step));
          offset += step;
        }, fault.intervalMs);
        res.on('close', () => clearInterval(timer));
        return;
      }
      case 'garbage':
        res
          .writeHead(200, { 'content-type': fault.contentType ?? 'application/json' })
          .end(fault.body ?? '<html>502 Bad Gateway</html>');
        return;
      case 'rewrite': {
        const answer = await forward(req, body);
        const text = fault.body(answer.body);
        answer.headers['content-length'] = String(Buffer.byteLength(text));
        res.writeHead(answer.status, answer.headers).end(text);
        return;
      }
      case 'json':
        res
          .writeHead(fault.status ?? 200, { 'content-type': 'application/json' })
          .end(JSON.stringify(fault.body));
        return;
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  const upstream: FaultUpstream = {
    url: `http://127.0.0.1:${port}`,
    requests,
    onAnswer: undefined,
    add(rule) {
      const entry = { rule, seen: 0 };
      rules.push(entry);
      return () => {
        const index = rules.indexOf(entry);
        if (index >= 0) rules.splice(index, 1);
      };
    },
    clear() {
      rules.length = 0;
    },
    count(method, path) {
      return requests.filter((r) => r.method === method && path.test(r.url.split('?')[0] ?? ''))
        .length;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool?.close();
    },
  };
  return upstream;
}

/** A loopback URL on which nothing listens: connections are refused. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
