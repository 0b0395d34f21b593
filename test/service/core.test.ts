/**
 * The service's foundation over real HTTP: tokens and their expiry, what an implicit token may
 * not do, store isolation, the JSON:API error body for every kind of bad request, and settings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommerceService } from '../../src/commerce-service/app.ts';
import { storeIdForClient } from '../../src/commerce-service/ids.ts';
import {
  CUSTOM_APIS,
  createCustomApi,
  errorOf,
  type ServiceUnderTest,
  startService,
} from './service-helpers.ts';

describe('POST /oauth/access_token', () => {
  let service: ServiceUnderTest;
  beforeAll(async () => {
    service = await startService();
  });
  afterAll(() => service.close());

  const post = (body: string, contentType = 'application/x-www-form-urlencoded') =>
    service.call('POST', '/oauth/access_token', { token: null, raw: body, contentType });

  it('issues an unwrapped client_credentials token that expires in an hour', async () => {
    const before = Math.floor(Date.now() / 1000);
    const result = await post(
      'grant_type=client_credentials&client_id=alpha&client_secret=alpha-secret',
    );
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3600,
      identifier: 'client_credentials',
    });
    expect(result.body.access_token).toMatch(/^[0-9a-f]{40}$/);
    expect(result.body.expires).toBeGreaterThanOrEqual(before + 3600);
    expect(result.body.expires).toBeLessThanOrEqual(before + 3602);
  });

  it('issues an implicit token from the client id alone, and a fresh token every time', async () => {
    const a = await post('grant_type=implicit&client_id=alpha');
    const b = await post('grant_type=implicit&client_id=alpha');
    expect(a.status).toBe(200);
    expect(a.body.identifier).toBe('implicit');
    expect(a.body.access_token).not.toBe(b.body.access_token);
  });

  it('accepts a JSON body too', async () => {
    const result = await post(
      JSON.stringify({
        grant_type: 'client_credentials',
        client_id: 'beta',
        client_secret: 'beta-secret',
      }),
      'application/json',
    );
    expect(result.status).toBe(200);
  });

  it('rejects a wrong secret and an unknown client with 401', async () => {
    for (const body of [
      'grant_type=client_credentials&client_id=alpha&client_secret=nope',
      'grant_type=client_credentials&client_id=ghost&client_secret=alpha-secret',
      'grant_type=implicit&client_id=ghost',
    ]) {
      const result = await post(body);
      expect(result.status).toBe(401);
      expect(errorOf(result).detail).toMatch(/client/);
      expect(JSON.stringify(result.body)).not.toContain('alpha-secret');
    }
  });

  it('rejects missing or unsupported fields with 400 naming the field', async () => {
    const cases: [string, string][] = [
      ['client_id=alpha&client_secret=alpha-secret', 'grant_type'],
      ['grant_type=password&client_id=alpha', 'grant_type'],
      ['grant_type=client_credentials&client_secret=x', 'client_id'],
      ['grant_type=client_credentials&client_id=alpha', 'client_secret'],
    ];
    for (const [body, field] of cases) {
      const result = await post(body);
      expect(result.status).toBe(400);
      expect(errorOf(result).source).toBe(field);
      expect(errorOf(result).detail).toContain(field);
    }
  });
});

describe('bearer tokens on /v2', () => {
  let now = Date.parse('2025-03-01T12:00:00.000Z');
  let service: ServiceUnderTest;
  beforeAll(async () => {
    service = await startService({ now: () => now });
  });
  afterAll(() => service.close());

  it('401s a missing, malformed or unknown token with a JSON:API body', async () => {
    const missing = await service.call('GET', '/v2/settings', { token: null });
    expect(missing.status).toBe(401);
    expect(errorOf(missing)).toMatchObject({ status: 401, title: 'Unauthorized' });
    expect(errorOf(missing).detail).toMatch(/Authorization/);

    const basic = await service.call('GET', '/v2/settings', {
      token: null,
      headers: { authorization: 'Basic YWxwaGE6eA==' },
    });
    expect(basic.status).toBe(401);

    const unknown = await service.call('GET', '/v2/settings', { token: 'f'.repeat(40) });
    expect(unknown.status).toBe(401);
    expect(errorOf(unknown).detail).toMatch(/not valid/);
  });

  it('401s a token once its hour has passed, and only then', async () => {
    const token = await service.token();
    now += 3599_000;
    expect((await service.call('GET', '/v2/settings', { token })).status).toBe(200);
    now += 1000;
    const expired = await service.call('GET', '/v2/settings', { token });
    expect(expired.status).toBe(401);
    expect(errorOf(expired).detail).toMatch(/expired/);
  });

  it('keeps the store’s settings from an implicit token: 403 to its reads and writes', async () => {
    const writer = await service.token('alpha');
    const id = await createCustomApi(service, {}, writer);
    const reader = await service.token('alpha', 'implicit');
    for (const path of [`${CUSTOM_APIS}/${id}`, CUSTOM_APIS, '/v2/settings']) {
      const read = await service.call('GET', path, { token: reader });
      expect(read.status).toBe(403);
      expect(errorOf(read).detail).toMatch(/client_credentials/);
    }
    for (const [method, path] of [
      ['POST', CUSTOM_APIS],
      ['PUT', `${CUSTOM_APIS}/${id}`],
      ['DELETE', `${CUSTOM_APIS}/${id}`],
      ['PUT', '/v2/settings'],
    ] as const) {
      const result = await service.call(method, path, {
        token: reader,
        json: { data: { name: 'x' } },
      });
      expect(result.status).toBe(403);
      expect(errorOf(result).detail).toMatch(/read-only/);
    }
    expect((await service.call('GET', `${CUSTOM_APIS}/${id}`, { token: writer })).status).toBe(200);
  });

  it('checks the token before reading the body', async () => {
    const result = await service.call('POST', CUSTOM_APIS, {
      token: null,
      raw: '{not json',
      contentType: 'application/json',
    });
    expect(result.status).toBe(401);
  });
});

describe('stores', () => {
  let service: ServiceUnderTest;
  let alpha: string;
  let beta: string;
  beforeAll(async () => {
    service = await startService();
    alpha = await service.token('alpha');
    beta = await service.token('beta');
  });
  afterAll(() => service.close());

  it('derives a uuid store id from the client id, the same on every start', () => {
    expect(storeIdForClient('alpha')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(storeIdForClient('alpha')).toBe(storeIdForClient('alpha'));
    expect(storeIdForClient('alpha')).not.toBe(storeIdForClient('beta'));
  });

  it("never shows one store's records to another: 404 by id, absent from lists", async () => {
    const id = await createCustomApi(service, {}, alpha);
    const entry = await service.call('POST', `${CUSTOM_APIS}/${id}/entries`, {
      token: alpha,
      json: { data: { type: 'wishlist_ext', name: 'secret' } },
    });
    expect(entry.status).toBe(201);
    const entryId = entry.body.data.id;

    for (const [method, path] of [
      ['GET', `${CUSTOM_APIS}/${id}`],
      ['PUT', `${CUSTOM_APIS}/${id}`],
      ['DELETE', `${CUSTOM_APIS}/${id}`],
      ['GET', `${CUSTOM_APIS}/${id}/entries`],
      ['GET', `${CUSTOM_APIS}/${id}/entries/${entryId}`],
      ['PUT', `${CUSTOM_APIS}/${id}/entries/${entryId}`],
      ['DELETE', `${CUSTOM_APIS}/${id}/entries/${entryId}`],
      ['GET', `/v2/extensions/wishlists/${entryId}`],
      ['GET', '/v2/extensions/wishlists'],
    ] as const) {
      const result = await service.call(method, path, {
        token: beta,
        ...(method === 'PUT' ? { json: { data: { name: 'stolen' } } } : {}),
      });
      expect(result.status, `${method} ${path}`).toBe(404);
    }
    const betaList = await service.call('GET', CUSTOM_APIS, { token: beta });
    expect(betaList.body.data).toEqual([]);
    expect(betaList.body.meta.results.total).toBe(0);

    // The other store may reuse the slug and api_type: uniqueness is per store.
    await createCustomApi(service, {}, beta);
    const betaEntries = await service.call('GET', '/v2/extensions/wishlists', { token: beta });
    expect(betaEntries.body.meta.results.total).toBe(0);
    const still = await service.call('GET', `/v2/extensions/wishlists/${entryId}`, {
      token: alpha,
    });
    expect(still.body.data.name).toBe('secret');
  });
});

describe('error bodies', () => {
  let service: ServiceUnderTest;
  beforeAll(async () => {
    service = await startService();
  });
  afterAll(() => service.close());

  it('answers malformed JSON with 400', async () => {
    const result = await service.call('POST', CUSTOM_APIS, {
      raw: '{"data": {',
      contentType: 'application/json',
    });
    expect(result.status).toBe(400);
    expect(result.headers.get('content-type')).toMatch(/^application\/json/);
    expect(errorOf(result)).toEqual({
      status: 400,
      title: 'Bad Request',
      detail: 'The request body is not valid JSON.',
    });
  });

  it('answers an empty JSON body and a prototype-poisoning body with 400', async () => {
    const empty = await service.call('POST', CUSTOM_APIS, {
      raw: '',
      contentType: 'application/json',
    });
    expect(empty.status).toBe(400);
    expect(errorOf(empty).detail).toMatch(/no body/);
    const poisoned = await service.call('POST', CUSTOM_APIS, {
      raw: '{"data":{"__proto__":{"admin":true}}}',
      contentType: 'application/json',
    });
    expect(poisoned.status).toBe(400);
  });

  it('answers a wrong content type with 415 saying what to send', async () => {
    for (const contentType of [
      'text/plain',
      'application/xml',
      'application/x-www-form-urlencoded',
    ]) {
      const result = await service.call('POST', CUSTOM_APIS, { raw: 'name=x', contentType });
      expect(result.status, contentType).toBe(415);
      expect(errorOf(result).detail).toContain('application/json');
      expect(errorOf(result).detail).toContain(contentType);
    }
  });

  it('takes a bodiless DELETE that still says Content-Type: application/json (as the SDK sends)', async () => {
    const id = await createCustomApi(service, { slug: 'sdk-delete', api_type: 'sdk_delete_ext' });
    const result = await service.call('DELETE', `${CUSTOM_APIS}/${id}`, {
      raw: '',
      contentType: 'application/json',
    });
    expect(result.status).toBe(204);
  });

  it('accepts the JSON:API media type as JSON', async () => {
    const result = await service.call('POST', CUSTOM_APIS, {
      raw: JSON.stringify({
        data: { type: 'custom_api', name: 'N', slug: 'jsonapi', api_type: 'jsonapi_ext' },
      }),
      contentType: 'application/vnd.api+json',
    });
    expect(result.status).toBe(201);
  });

  it('answers a body that is not {"data":{…}} with 400', async () => {
    for (const json of [[], 'x', 42, { data: [] }, { name: 'x' }, { data: null }]) {
      const result = await service.call('POST', CUSTOM_APIS, { json });
      expect(result.status, JSON.stringify(json)).toBe(400);
      expect(errorOf(result).detail).toMatch(/data/);
    }
    const none = await service.call('POST', CUSTOM_APIS);
    expect(none.status).toBe(400);
  });

  it('answers unknown routes and methods with a JSON:API 404', async () => {
    for (const [method, path] of [
      ['GET', '/v2/nope'],
      ['GET', '/nope'],
      ['PATCH', CUSTOM_APIS],
    ] as const) {
      const result = await service.call(method, path);
      expect(result.status).toBe(404);
      expect(errorOf(result).title).toBe('Not Found');
      expect(errorOf(result).detail).toContain(path);
    }
  });

  it('answers a malformed URL with 400 and a body over 1 MiB with 413', async () => {
    const badUrl = await service.call('GET', '/v2/extensions/%E0%A4%A');
    expect(badUrl.status).toBe(400);
    expect(errorOf(badUrl).detail).toMatch(/URL/);
    const huge = await service.call('POST', CUSTOM_APIS, {
      json: { data: { name: 'x'.repeat(1024 * 1024 + 10) } },
    });
    expect(huge.status).toBe(413);
    expect(errorOf(huge).title).toBe('Request Entity Too Large');
  });

  it('answers an unexpected failure with a generic 500 that leaks nothing', async () => {
    const app = await createCommerceService({
      dbPath: ':memory:',
      clients: [{ id: 'x', secret: 'y' }],
      seed: false,
    });
    // Silence the (intended) error log of this one request.
    app.log.level = 'silent';
    app.get('/explode', async () => {
      throw new Error('database password is hunter2');
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const response = await fetch(`${url}/explode`);
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(text).not.toMatch(/hunter2|at |\.ts/);
      expect(JSON.parse(text)).toEqual({
        errors: [
          {
            status: 500,
            title: 'Internal Server Error',
            detail: 'The service failed to handle this request; it has been logged.',
          },
        ],
      });
    } finally {
      await app.close();
    }
  });

  it('keeps serving after every kind of bad request', async () => {
    expect((await service.call('GET', '/v2/settings')).status).toBe(200);
  });
});

describe('settings', () => {
  let service: ServiceUnderTest;
  beforeAll(async () => {
    service = await startService();
  });
  afterAll(() => service.close());

  it('reads and changes page_length, which becomes the default page size', async () => {
    expect((await service.call('GET', '/v2/settings')).body).toEqual({
      data: { type: 'settings', page_length: 25 },
    });
    const put = await service.call('PUT', '/v2/settings', {
      json: { data: { type: 'settings', page_length: 2 } },
    });
    expect(put.status).toBe(200);
    expect(put.body.data.page_length).toBe(2);
    for (const slug of ['a', 'b', 'c']) {
      await createCustomApi(service, { slug, api_type: `${slug}_ext` });
    }
    const list = await service.call('GET', CUSTOM_APIS);
    expect(list.body.data).toHaveLength(2);
    expect(list.body.meta.page).toEqual({ limit: 2, offset: 0, current: 1, total: 2 });
    // The other store keeps its own setting.
    const beta = await service.token('beta');
    expect((await service.call('GET', '/v2/settings', { token: beta })).body.data.page_length).toBe(
      25,
    );
  });

  it('rejects a page_length outside 1..100, a wrong type and unknown settings', async () => {
    for (const data of [
      { page_length: 0 },
      { page_length: 101 },
      { page_length: 2.5 },
      { page_length: '10' },
      { type: 'cart', page_length: 10 },
      { page_lenght: 10 },
    ]) {
      const result = await service.call('PUT', '/v2/settings', { json: { data } });
      expect(result.status, JSON.stringify(data)).toBe(400);
      expect(errorOf(result).source).toMatch(/^data\./);
    }
    expect((await service.call('GET', '/v2/settings')).body.data.page_length).toBe(2);
  });

  it('reads and changes the cart default for custom discounts', async () => {
    expect((await service.call('GET', '/v2/settings/cart')).body).toEqual({
      data: { type: 'settings', discounts: { custom_discounts_enabled: false } },
    });
    const put = await service.call('PUT', '/v2/settings/cart', {
      json: { data: { type: 'settings', discounts: { custom_discounts_enabled: true } } },
    });
    expect(put.status).toBe(200);
    expect(put.body.data.discounts.custom_discounts_enabled).toBe(true);
    expect((await service.call('GET', '/v2/settings/cart')).body.data.discounts).toEqual({
      custom_discounts_enabled: true,
    });
    const bad = await service.call('PUT', '/v2/settings/cart', {
      json: { data: { discounts: { custom_discounts_enabled: 'yes' } } },
    });
    expect(bad.status).toBe(400);
    expect(errorOf(bad).source).toBe('data.discounts.custom_discounts_enabled');
  });
});
