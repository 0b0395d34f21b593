/**
 * The Fetch API objects the fast path (./fast-path.ts) hands to Yoga's hooks, over node:http:
 * a request whose body was already read, its headers read in place from Node's header object,
 * and a response held as data that `writeResponse` writes back. They implement only what Yoga's
 * hooks, its result processor and the session read; @whatwg-node's adapter builds the full
 * objects for every other request.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

/** Headers over Node's incoming header object: the part of the Fetch API plugins use. */
export class IncomingHeaders {
  readonly #raw: IncomingHttpHeaders;
  constructor(raw: IncomingHttpHeaders) {
    this.#raw = raw;
  }
  get(name: string): string | null {
    const value = this.#raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }
  has(name: string): boolean {
    return this.#raw[name.toLowerCase()] !== undefined;
  }
  forEach(callback: (value: string, name: string, headers: IncomingHeaders) => void): void {
    for (const name of Object.keys(this.#raw)) {
      const value = this.get(name);
      if (value !== null) callback(value, name, this);
    }
  }
  *entries(): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.#raw)) {
      const value = this.get(name);
      if (value !== null) yield [name, value];
    }
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
  set(): never {
    throw new TypeError('Request headers are immutable');
  }
  append(): never {
    throw new TypeError('Request headers are immutable');
  }
  delete(): never {
    throw new TypeError('Request headers are immutable');
  }
}

/**
 * What the upstream session reads of a request (its headers, and a signal that aborts when the
 * client goes away), over node:http: the direct lane of compiled documents gives its context
 * no more (./compiled/lane.ts).
 */
export class IncomingRequest {
  readonly headers: IncomingHeaders;
  readonly #res: ServerResponse;
  #controller: AbortController | undefined;
  constructor(req: IncomingMessage, res: ServerResponse) {
    this.headers = new IncomingHeaders(req.headers);
    this.#res = res;
  }
  /** Aborts when the client goes away before the response is written (as Yoga's adapter). */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      this.#controller = controller;
      const res = this.#res;
      const onClose = () => {
        if (!controller.signal.aborted) controller.abort(res.errored ?? undefined);
      };
      res.once('close', onClose);
      res.once('error', onClose);
      res.once('finish', () => res.removeListener('close', onClose));
    }
    return this.#controller.signal;
  }
}

/** A request whose body has been read: what Yoga's hooks and the session read of a Request. */
export class BufferedRequest extends IncomingRequest {
  readonly method = 'POST';
  readonly url: string;
  readonly body = null;
  readonly bodyUsed = false;
  readonly #text: string;
  constructor(url: string, req: IncomingMessage, res: ServerResponse, text: string) {
    super(req, res);
    this.url = url;
    this.#text = text;
  }
  text(): Promise<string> {
    return Promise.resolve(this.#text);
  }
  json(): Promise<unknown> {
    try {
      return Promise.resolve(JSON.parse(this.#text));
    } catch (error) {
      // The parser's own message; the answer (request-checks.ts, withoutBodyEcho) keeps only
      // its position.
      return Promise.reject(error);
    }
  }
}

/** Response headers: names lower-cased like Fetch Headers, kept in insertion order. */
class OutgoingHeaders {
  readonly map = new Map<string, [name: string, value: string]>();
  constructor(init?: Record<string, string>) {
    if (init)
      for (const name of Object.keys(init))
        this.map.set(name.toLowerCase(), [name, init[name] as string]);
  }
  get(name: string): string | null {
    return this.map.get(name.toLowerCase())?.[1] ?? null;
  }
  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }
  set(name: string, value: string): void {
    const key = name.toLowerCase();
    this.map.set(key, [this.map.get(key)?.[0] ?? key, String(value)]);
  }
  append(name: string, value: string): void {
    const current = this.get(name);
    this.set(name, current === null ? value : `${current}, ${value}`);
  }
  delete(name: string): void {
    this.map.delete(name.toLowerCase());
  }
  forEach(callback: (value: string, name: string) => void): void {
    for (const [key, [, value]] of this.map) callback(value, key);
  }
}

/** The Response Yoga's result processor builds, as data the fast path writes itself. */
export class BufferedResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: OutgoingHeaders;
  readonly bodyText: string | null;
  constructor(
    body?: unknown,
    init?: { status?: number; statusText?: string; headers?: Record<string, string> },
  ) {
    if (body != null && typeof body !== 'string') {
      throw new TypeError('the fast path writes string bodies only');
    }
    this.bodyText = body ?? null;
    this.status = init?.status ?? 200;
    this.statusText = init?.statusText ?? '';
    this.headers = new OutgoingHeaders(init?.headers);
  }
}

/** Writes what the pipeline answered: a BufferedResponse, or a real Response a hook made. */
export function writeResponse(res: ServerResponse, response: unknown): void {
  if (res.destroyed || res.writableEnded) return;
  if (response instanceof BufferedResponse) {
    const headers: Record<string, string> = {};
    for (const [name, value] of response.headers.map.values()) headers[name] = value;
    if (response.bodyText !== null && !response.headers.has('content-length')) {
      headers['content-length'] = String(Buffer.byteLength(response.bodyText));
    }
    if (response.statusText) res.writeHead(response.status, response.statusText, headers);
    else res.writeHead(response.status, headers);
    res.end(response.bodyText ?? undefined);
    return;
  }
  // A hook answered with a real Response (none of ours does for a JSON POST).
  const real = response as Response;
  void real.arrayBuffer().then((body) => {
    const headers: Record<string, string> = {};
    real.headers.forEach((value, name) => {
      headers[name] = value;
    });
    res.writeHead(real.status, real.statusText, headers);
    res.end(Buffer.from(body));
  });
}
