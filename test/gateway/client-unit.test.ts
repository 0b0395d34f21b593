/**
 * In-process tests of the REST client: its pure parts (path building, Retry-After, credentials)
 * and how one attempt reads a response body from a real socket.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/upstream/answers.ts';
import { buildPath, sendUpstreamAttempt } from '../../src/upstream/client.ts';
import { UpstreamUnavailableError } from '../../src/upstream/errors.ts';
import { budgetKey, routeTemplate } from '../../src/upstream/route-template.ts';
import { readAuthorization } from '../../src/upstream/session.ts';
import { createUpstreamTransport, type UpstreamTransport } from '../../src/upstream/transport.ts';

describe('buildPath', () => {
  it('percent-encodes every segment and the query', () => {
    expect(
      buildPath('', ['carts', 'a b', 'items'], { 'page[limit]': '5', filter: 'in(id,a,b)' }),
    ).toBe('/v2/carts/a%20b/items?page%5Blimit%5D=5&filter=in%28id%2Ca%2Cb%29');
    expect(buildPath('/base', ['x/../y', '?#'])).toBe('/base/v2/x%2F..%2Fy/%3F%23');
  });

  it('writes every query value byte for byte as URLSearchParams does', () => {
    const values = [
      // Every ASCII character alone, then all of them in one value.
      ...Array.from({ length: 128 }, (_, code) => String.fromCharCode(code)),
      Array.from({ length: 128 }, (_, code) => String.fromCharCode(code)).join(''),
      'le(created_at,2026-11-27T08:00:00.000Z):eq(status,"paid")',
      "a b+c~d!e*f(g)h'i",
      'tée ☕ 🍵',
      // A lone surrogate: URLSearchParams writes U+FFFD for it.
      `x${'\uD800'}y`,
    ];
    for (const value of values) {
      const expected = new URLSearchParams([[value, value]]).toString();
      expect(buildPath('', ['orders'], { [value]: value })).toBe(`/v2/orders?${expected}`);
    }
  });

  it('refuses segments that would move up or vanish', () => {
    for (const segment of ['..', '.', '']) {
      expect(() => buildPath('', ['carts', segment])).toThrow(/path segment/);
      expect(() => buildPath('', ['/pcm', segment])).toThrow(/path segment/);
    }
  });

  it('addresses the root a first segment names, and only the first', () => {
    expect(buildPath('', ['/pcm', 'products', 'a b'])).toBe('/pcm/products/a%20b');
    expect(buildPath('/base', ['/catalog', 'nodes'], { 'page[offset]': '10' })).toBe(
      '/base/catalog/nodes?page%5Boffset%5D=10',
    );
    expect(buildPath('', ['/catalogs', 'c', 'releases', 'r'])).toBe('/catalogs/c/releases/r');
    expect(buildPath('', ['/v2', 'orders'])).toBe('/v2/orders');
    // A root later in the path, or one not in the list, is a segment like any other.
    expect(buildPath('', ['orders', '/pcm'])).toBe('/v2/orders/%2Fpcm');
    expect(buildPath('', ['/v3', 'x'])).toBe('/v2/%2Fv3/x');
  });
});

describe('routeTemplate and the budget key', () => {
  it('keeps only API words, whatever the root: no id, slug or SKU in a label', () => {
    const id = 'f3a1c2d4-0000-4000-8000-000000000001';
    expect(routeTemplate(['orders', id])).toBe('/v2/orders/{id}');
    expect(routeTemplate(['/pcm', 'products', id, 'relationships', 'children'])).toBe(
      '/pcm/products/{id}/relationships/children',
    );
    expect(routeTemplate(['/pcm', 'pricebooks', id, 'prices', id])).toBe(
      '/pcm/pricebooks/{id}/prices/{id}',
    );
    expect(routeTemplate(['/catalog', 'products', 'red-shoes-sku-42'])).toBe(
      '/catalog/products/{id}',
    );
    expect(
      routeTemplate(['/catalogs', id, 'releases', id, 'nodes', id, 'relationships', 'products']),
    ).toBe('/catalogs/{id}/releases/{id}/nodes/{id}/relationships/products');
    expect(routeTemplate(['inventories', id, 'transactions'])).toBe(
      '/v2/inventories/{id}/transactions',
    );
    expect(budgetKey('GET', ['/pcm', 'products', id])).toBe('GET /pcm/products');
    expect(budgetKey('GET', ['/catalogs', id, 'releases'])).toBe('GET /catalogs/{id}');
    expect(budgetKey('POST', ['carts'])).toBe('POST /v2/carts');
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    const now = Date.parse('2024-01-01T00:00:00Z');
    expect(parseRetryAfter('Mon, 01 Jan 2024 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});

describe('readAuthorization', () => {
  it('accepts a Bearer credential verbatim and refuses anything else', () => {
    expect(readAuthorization('Bearer abc.DEF-123_~+/==')).toEqual({
      ok: true,
      authorization: 'Bearer abc.DEF-123_~+/==',
    });
    for (const header of [null, '', 'Bearer', 'Bearer  abc', 'Basic abc', 'Bearer a\r\nx: y']) {
      expect(readAuthorization(header).ok).toBe(false);
    }
    expect(readAuthorization(`Bearer ${'a'.repeat(5000)}`).ok).toBe(false);
  });
});

describe('reading a response body', () => {
  /** What the server does for each path: write pieces of a body, or misbehave. */
  const routes: Record<string, (res: ServerResponse) => void> = {};
  let server: Server;
  let transport: UpstreamTransport;
  const json = { 'content-type': 'application/json' };
  const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
  const send = (path: string, signal?: AbortSignal) =>
    sendUpstreamAttempt(
      transport,
      { method: 'GET', segments: [path] },
      { authorization: 'Bearer test-token', requestId: 'r1', signal },
    );
  const failure = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      return error as UpstreamUnavailableError;
    }
    throw new Error('expected the attempt to fail');
  };

  beforeAll(async () => {
    server = createServer((req, res) => routes[req.url?.replace('/v2/', '') ?? '']?.(res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    transport = createUpstreamTransport(`http://127.0.0.1:${port}`, { maxResponseBytes: 1000 });
  });

  afterAll(async () => {
    await transport.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('joins a body sent in pieces, a character split between two of them', async () => {
    const bytes = Buffer.from(JSON.stringify({ data: { id: 'a', city: 'Auvergne-Rhône-Alpes' } }));
    const split = bytes.indexOf(Buffer.from('ô')) + 1;
    routes.pieces = async (res) => {
      res.writeHead(200, json);
      res.write(bytes.subarray(0, split));
      await tick();
      res.write(bytes.subarray(split, split + 5));
      await tick();
      res.end(bytes.subarray(split + 5));
    };
    const response = await send('pieces');
    expect(response.body).toEqual({ data: { id: 'a', city: 'Auvergne-Rhône-Alpes' } });
  });

  it('refuses a body over maxResponseBytes, and the next call still works', async () => {
    routes.big = async (res) => {
      res.writeHead(200, json);
      res.write(`{"data":[${'"x",'.repeat(200)}`);
      await tick();
      res.end(`${'"x",'.repeat(200)}"x"]}`);
    };
    const error = await failure(send('big'));
    expect(error).toBeInstanceOf(UpstreamUnavailableError);
    expect(error.reason).toBe('invalid-body');
    expect(error.message).toContain('oversized');
    routes.small = (res) => res.writeHead(200, json).end('{"data":{"id":"b"}}');
    expect((await send('small')).body).toEqual({ data: { id: 'b' } });
  });

  it('a body cut short by the upstream is a reset', async () => {
    routes.cut = (res) => {
      res.writeHead(200, { ...json, 'content-length': '500' });
      res.write('{"data":[', () => setTimeout(() => res.socket?.destroy(), 5));
    };
    const error = await failure(send('cut'));
    expect(error).toBeInstanceOf(UpstreamUnavailableError);
    expect(error.reason).toBe('reset');
  });

  it('a call cancelled while its body arrives is aborted', async () => {
    const controller = new AbortController();
    routes.slow = (res) => {
      res.writeHead(200, json);
      res.write('{"data":[', () => setTimeout(() => controller.abort(), 5));
    };
    const error = await failure(send('slow', controller.signal));
    expect(error).toBeInstanceOf(UpstreamUnavailableError);
    expect(error.reason).toBe('aborted');
  });
});

describe('buildPath query encoding', () => {
  it('writes every query byte for byte as URLSearchParams does', () => {
    const values = [
      'page[limit]',
      'in(id,a,b)',
      'le(created_at,2026-11-24T19:14:01.200Z)',
      'a b+c&d=e',
      "!'()~*-._",
      'é€😀',
      'x/y?z#',
      '\u0000\n\t%',
      'lone \ud800 surrogate',
    ];
    for (const value of values) {
      const expected = new URLSearchParams([[value, value]]).toString();
      expect(buildPath('', ['orders'], { [value]: value })).toBe(`/v2/orders?${expected}`);
    }
    expect(buildPath('', ['orders'], { a: undefined, b: '1' })).toBe('/v2/orders?b=1');
  });
});
