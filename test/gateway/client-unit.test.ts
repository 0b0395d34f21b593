/** In-process tests of the REST client's pure parts: path building, Retry-After, credentials. */
import { describe, expect, it } from 'vitest';
import { readAuthorization } from '../../src/gateway/context.ts';
import { buildPath, parseRetryAfter } from '../../src/upstream/client.ts';

describe('buildPath', () => {
  it('percent-encodes every segment and the query', () => {
    expect(
      buildPath('', ['carts', 'a b', 'items'], { 'page[limit]': '5', filter: 'in(id,a,b)' }),
    ).toBe('/v2/carts/a%20b/items?page%5Blimit%5D=5&filter=in%28id%2Ca%2Cb%29');
    expect(buildPath('/base', ['x/../y', '?#'])).toBe('/base/v2/x%2F..%2Fy/%3F%23');
  });

  it('refuses segments that would move up or vanish', () => {
    for (const segment of ['..', '.', '']) {
      expect(() => buildPath('', ['carts', segment])).toThrow(/path segment/);
    }
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
