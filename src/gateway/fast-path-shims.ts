/**
 * The Fetch API objects the fast path (./fast-path.ts) hands to Yoga's hooks, over node:http:
 * a request whose body was already read, its headers read in place from Node's header object,
 * and a response held as data that `writeResponse` writes back. They implement only what Yoga's
 * hooks, its result processor and the session read; @whatwg-node's adapter builds the full
 * objects for every other request.
 */

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { LightAbortSignal } from '../upstream/index.ts';

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
 * The request's signal: aborted when the response closes before it was written in full (the
 * client went away). A light signal of the upstream layer's (src/upstream/light-signal.ts: what
 * the session reads of a signal, without an AbortController and EventTarget per request), with
 * one 'close' listener ('close' comes last whatever happened: after 'finish', or after 'error'),
 * made when the signal is first read.
 */
class ClientGoneSignal extends LightAbortSignal {
  constructor(res: ServerResponse) {
    super();
    const gone = () => {
      if (!res.writableFinished) this.abort(res.errored ?? undefined);
    };
    // Read after the client left: aborted already.
    if (res.closed) gone();
    else res.once('close', gone);
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
  #signal: ClientGoneSignal | undefined;
  constructor(req: IncomingMessage, res: ServerResponse) {
    this.headers = new IncomingHeaders(req.headers);
    this.#res = res;
  }
  /** Aborts when the client goes away before the response is written (as Yoga's adapter). */
  get signal(): ClientGoneSignal {
    this.#signal ??= new ClientGoneSignal(this.#res);
    return this.#signal;
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
  const real = response as Response;
  const type = real.headers.get('content-type') ?? '';
  if (
    real.body !== null &&
    (type.startsWith('multipart/') || type.startsWith('text/event-stream'))
  ) {
    writeParts(res, real, real.body);
    return;
  }
  // A hook answered with a real Response (none of ours does for a JSON POST).
  void real.arrayBuffer().then((body) => {
    const headers: Record<string, string> = {};
    real.headers.forEach((value, name) => {
      headers[name] = value;
    });
    res.writeHead(real.status, real.statusText, headers);
    res.end(Buffer.from(body));
  });
}

/**
 * An answer in parts (`@defer`/`@stream` from a client that sent no Accept, or any type: Yoga picks
 * multipart/mixed) written part by part as Yoga's processor yields them, not buffered to the end;
 * the client going away cancels the body, which returns the operation's iterator.
 */
function writeParts(res: ServerResponse, real: Response, body: ReadableStream<Uint8Array>): void {
  const headers: Record<string, string> = {};
  real.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(real.status, real.statusText, headers);
  res.flushHeaders();
  const reader = body.getReader();
  const cancel = () => {
    reader.cancel().catch(() => undefined);
  };
  res.once('close', cancel);
  const pump = (): void => {
    reader.read().then(
      ({ done, value }) => {
        if (done) {
          res.removeListener('close', cancel);
          res.end();
        } else if (res.write(value)) {
          pump();
        } else {
          res.once('drain', pump);
        }
      },
      () => res.destroy(),
    );
  };
  pump();
}
