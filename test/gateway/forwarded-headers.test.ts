/**
 * The allow-list of caller headers forwarded upstream beside Authorization: what is judged
 * (in process), what the config accepts, what reaches the upstream (over real sockets: the
 * listed headers on every call of their request, nothing else of the caller's), and that the
 * values stay out of logs and errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseForwardHeaders } from '../../src/config/index.ts';
import { createLogger, scrubSecrets } from '../../src/gateway/logging.ts';
import {
  DEFAULT_FORWARDED_HEADERS,
  readForwardedHeaders,
} from '../../src/upstream/forwarded-headers.ts';
import { type HardeningStack, startHardeningStack } from '../support/hardening-stack.ts';

const headersOf = (entries: Record<string, string>) => ({
  get: (name: string) => entries[name] ?? null,
});

describe('readForwardedHeaders', () => {
  it('returns undefined when none of the listed headers is present', () => {
    expect(readForwardedHeaders(headersOf({ cookie: 'a=b' }), DEFAULT_FORWARDED_HEADERS)).toBe(
      undefined,
    );
  });

  it('returns the listed headers present, and only those', () => {
    expect(
      readForwardedHeaders(
        headersOf({ 'x-moltin-customer-token': 'abc.def-1', 'x-moltin-currency': 'eur', x: 'y' }),
        DEFAULT_FORWARDED_HEADERS,
      ),
    ).toEqual({ 'x-moltin-customer-token': 'abc.def-1', 'x-moltin-currency': 'eur' });
  });

  it('refuses CR, LF, NUL, spaces, non-ASCII, empty and over-long values without echoing them', () => {
    for (const value of [
      'abc\r\nX-Injected: 1',
      'a\rb',
      'a\nb',
      'a\u0000b',
      'two words',
      'tökén',
      '',
      's'.repeat(4097),
    ]) {
      let caught: unknown;
      try {
        readForwardedHeaders(headersOf({ 'x-moltin-customer-token': value }), [
          'x-moltin-customer-token',
        ]);
      } catch (error) {
        caught = error;
      }
      expect(caught, JSON.stringify(value)).toMatchObject({
        code: 'BAD_USER_INPUT',
        extensions: { code: 'BAD_USER_INPUT', field: 'headers.x-moltin-customer-token' },
      });
      if (value.length > 3) expect((caught as Error).message).not.toContain(value);
    }
    expect(() =>
      readForwardedHeaders(headersOf({ 'x-moltin-currency': 'EURO' }), DEFAULT_FORWARDED_HEADERS),
    ).toThrow(/3-letter/);
  });

  it('forwards the catalog channel, context tag and locales, each judged by its grammar', () => {
    expect(
      readForwardedHeaders(
        headersOf({
          'ep-channel': 'mobile',
          'ep-context-tag': 'vip:eu-2026',
          'accept-language': 'fr-CH, fr;q=0.9, en;q=0.8, *;q=0.5',
        }),
        DEFAULT_FORWARDED_HEADERS,
      ),
    ).toEqual({
      'ep-channel': 'mobile',
      'ep-context-tag': 'vip:eu-2026',
      'accept-language': 'fr-CH, fr;q=0.9, en;q=0.8, *;q=0.5',
    });
    const refused: [string, string][] = [
      ['ep-channel', 'two words'],
      ['ep-channel', 'm'.repeat(257)],
      ['ep-channel', ''],
      ['ep-channel', 'a"b'],
      ['ep-context-tag', 'tag,other'],
      ['ep-context-tag', 'tág'],
      ['accept-language', 'en"<script>'],
      ['accept-language', `en,${'x'.repeat(300)}`],
      ['accept-language', 'en\u0000'],
    ];
    for (const [name, value] of refused) {
      let caught: unknown;
      try {
        readForwardedHeaders(headersOf({ [name]: value }), DEFAULT_FORWARDED_HEADERS);
      } catch (error) {
        caught = error;
      }
      expect(caught, `${name}: ${JSON.stringify(value)}`).toMatchObject({
        code: 'BAD_USER_INPUT',
        extensions: { code: 'BAD_USER_INPUT', field: `headers.${name}` },
      });
      if (value.length > 3) expect((caught as Error).message).not.toContain(value);
    }
  });
});

describe('FORWARD_HEADERS', () => {
  it('defaults to the v2 customer, account-member and currency headers and the catalog ones', () => {
    expect(loadConfig({}).upstream.forwardHeaders).toEqual([
      'x-moltin-customer-token',
      'ep-account-management-authentication-token',
      'x-moltin-currency',
      'ep-channel',
      'ep-context-tag',
      'accept-language',
    ]);
  });

  it('takes a list (any case), or none, and refuses what the gateway sets itself', () => {
    expect(parseForwardHeaders('X-Moltin-Customer-Token, x-tenant')).toEqual([
      'x-moltin-customer-token',
      'x-tenant',
    ]);
    expect(parseForwardHeaders('none')).toEqual([]);
    for (const bad of ['authorization', 'Host', 'x-request-id', 'content-length', 'a b', 'x:y']) {
      expect(() => parseForwardHeaders(bad), bad).toThrow(ConfigError);
    }
  });
});

describe('logging', () => {
  it('redacts customer and account tokens and passwords', () => {
    const lines: string[] = [];
    const logger = createLogger({ write: (line) => lines.push(line) });
    logger.log('info', 'headers', {
      headers: { 'x-moltin-customer-token': 'secret1', 'x-moltin-currency': 'EUR' },
    });
    logger.log('info', 'headers', {
      headers: { 'ep-account-management-authentication-token': 'secret2' },
      upper: { 'X-Moltin-Customer-Token': 'secret3' },
    });
    expect(JSON.parse(lines[0] as string).headers).toEqual({
      'x-moltin-customer-token': '[redacted]',
      'x-moltin-currency': 'EUR',
    });
    expect(JSON.parse(lines[1] as string)).toMatchObject({
      headers: { 'ep-account-management-authentication-token': '[redacted]' },
      upper: { 'X-Moltin-Customer-Token': '[redacted]' },
    });
    for (const secret of ['secret1', 'secret2', 'secret3']) {
      expect(lines.join('')).not.toContain(secret);
    }
    const line = scrubSecrets(
      '{"x-moltin-customer-token":"abc123secret","password":"hunter22","ok":"EUR"}',
    );
    expect(line).not.toMatch(/abc123secret|hunter22/);
    expect(line).toContain('"ok":"EUR"');
  });
});

describe('over real sockets', () => {
  let stack: HardeningStack;
  let restricted: HardeningStack;
  beforeAll(async () => {
    stack = await startHardeningStack({ faults: false });
    restricted = await startHardeningStack({
      faults: false,
      gateway: { forwardHeaders: ['x-moltin-currency'] },
    });
  });
  afterAll(async () => {
    await stack.close();
    await restricted.close();
  });

  const CALLER_HEADERS = {
    'x-moltin-customer-token': 'a'.repeat(40),
    'ep-account-management-authentication-token': 'b'.repeat(40),
    'x-moltin-currency': 'GBP',
    cookie: 'session=secret-cookie',
    'x-api-key': 'secret-key',
    'x-forwarded-for': '10.0.0.1',
    'x-tenant': 'other',
  };

  // The stacks' first graphql() fetches a token from the service: not a call of a GraphQL request.
  const v2Calls = (calls: HardeningStack['serviceRequests']) =>
    calls.filter((call) => call.url.startsWith('/v2'));

  it('forwards exactly the listed headers on every call of the request, nothing else', async () => {
    await stack.token();
    const before = stack.serviceRequests.length;
    const response = await stack.graphql('{ orders(first: 1) { totalCount } }', undefined, {
      headers: { ...CALLER_HEADERS, 'x-request-id': 'fwd-1' },
    });
    // The customer token is unknown upstream: 401, without the token in the error.
    expect(response.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(JSON.stringify(response.body)).not.toContain('a'.repeat(40));
    const calls = v2Calls(stack.serviceRequests.slice(before));
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.headers['x-moltin-customer-token']).toBe('a'.repeat(40));
      expect(call.headers['ep-account-management-authentication-token']).toBe('b'.repeat(40));
      expect(call.headers['x-moltin-currency']).toBe('GBP');
      for (const name of ['cookie', 'x-api-key', 'x-forwarded-for', 'x-tenant']) {
        expect(call.headers[name], name).toBeUndefined();
      }
    }
    // A request without them: none on its calls (nothing carried over from the one before).
    const after = stack.serviceRequests.length;
    await stack.graphql('{ orders(first: 1) { totalCount } }');
    for (const call of v2Calls(stack.serviceRequests.slice(after))) {
      expect(call.headers['x-moltin-customer-token']).toBeUndefined();
      expect(call.headers['x-moltin-currency']).toBeUndefined();
    }
    expect(stack.rawLogs.join('')).not.toMatch(/a{40}|b{40}|secret-cookie|secret-key/);
  });

  it('forwards only what FORWARD_HEADERS lists; viewer is null when the customer token is not', async () => {
    await restricted.token();
    const before = restricted.serviceRequests.length;
    const response = await restricted.graphql(
      '{ viewer { customer { email } } orders(first: 1) { totalCount } }',
      undefined,
      { headers: CALLER_HEADERS },
    );
    expect(response.body).toEqual({ data: { viewer: null, orders: { totalCount: 0 } } });
    const calls = v2Calls(restricted.serviceRequests.slice(before));
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.headers['x-moltin-currency']).toBe('GBP');
      expect(call.headers['x-moltin-customer-token']).toBeUndefined();
      expect(call.headers['ep-account-management-authentication-token']).toBeUndefined();
    }
  });
});
