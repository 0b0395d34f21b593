/**
 * The service's side of the bad-input corpus for the PXM admin API: every /pcm write route
 * (fastify's own list, so a new route joins the walk) is sent each hostile body, with real
 * records in its path, and answers a 4xx JSON:API error — never a 5xx — and leaves every
 * record as it was.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommerceService, serviceRoutes } from '../../src/commerce-service/app.ts';

let app: FastifyInstance;
let url: string;
let headers: Record<string, string>;
const ids: Record<string, string> = {};

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? undefined : JSON.parse(text) };
}

async function made(path: string, data: unknown) {
  const result = await call('POST', path, { data });
  if (result.status !== 201) throw new Error(`${path}: ${JSON.stringify(result.json)}`);
  return result.json.data.id as string;
}

beforeAll(async () => {
  app = await createCommerceService({
    dbPath: ':memory:',
    clients: [{ id: 'alpha', secret: 'alpha-secret' }],
    seed: false,
  });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: 'alpha',
    client_secret: 'alpha-secret',
  });
  const token = await fetch(`${url}/oauth/access_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  headers = {
    authorization: `Bearer ${((await token.json()) as { access_token: string }).access_token}`,
  };
  ids.variationId = await made('/pcm/variations', {
    type: 'product-variation',
    attributes: { name: 'V' },
  });
  ids.optionId = await made(`/pcm/variations/${ids.variationId}/options`, {
    type: 'product-variation-option',
    attributes: { name: 'O' },
  });
  ids.modifierId = await made(
    `/pcm/variations/${ids.variationId}/options/${ids.optionId}/modifiers`,
    {
      type: 'product-variation-modifier',
      attributes: { type: 'sku_append', value: '-O' },
    },
  );
  ids.productId = await made('/pcm/products', {
    type: 'product',
    attributes: { name: 'P', commodity_type: 'physical', sku: 'P', status: 'live' },
    relationships: { variations: { data: [{ type: 'product-variation', id: ids.variationId }] } },
  });
  ids.hierarchyId = await made('/pcm/hierarchies', {
    type: 'hierarchy',
    attributes: { name: 'H' },
  });
  ids.nodeId = await made(`/pcm/hierarchies/${ids.hierarchyId}/nodes`, {
    type: 'node',
    attributes: { name: 'N' },
  });
  ids.jobId = (await call('POST', `/pcm/products/${ids.productId}/build`)).json.data.id;
});
afterAll(() => app?.close());

const HOSTILE: unknown[] = [
  '{not json',
  '[]',
  'null',
  '"text"',
  {},
  { data: null },
  { data: [] },
  { data: 'x' },
  { data: { type: 7 } },
  { data: { type: 'product', id: 5, attributes: {} } },
  { data: { attributes: [] } },
  { data: { attributes: 'x', relationships: 'y', meta: 'z' } },
  { data: { attributes: { name: {}, sku: [], slug: 7, tags: 'a', locales: [], status: true } } },
  {
    data: {
      attributes: {
        name: 'x'.repeat(300),
        commodity_type: 'physical',
        build_rules: { default: 'x' },
      },
    },
  },
  { data: { attributes: { name: 'ok', commodity_type: 'digital', components: { a: 1 } } } },
  { data: { attributes: { type: 'sku_builder', seek: {}, set: [] } } },
  { data: { relationships: { parent: 5, variations: { data: 'x' }, main_image: { data: [] } } } },
  { data: { relationships: { parent: { data: { type: 'node', id: 'nope' } } } } },
  { data: { meta: { sort_order: 'first' } } },
  { data: { meta: { sort_order: 2 ** 40 } } },
  { data: [{ type: 'product' }, { id: 7 }] },
  {
    data: [{ type: 'node', id: '00000000-0000-4000-8000-000000000000', meta: { sort_order: 'x' } }],
  },
  { data: Array.from({ length: 101 }, () => ({ type: 'product', id: crypto.randomUUID() })) },
  { data: { type: 'node', id: '00000000-0000-4000-8000-000000000000' } },
];

describe('PXM writes under hostile bodies', () => {
  it('answers every /pcm write with a 4xx JSON:API error, never a 5xx, and changes nothing', async () => {
    const snapshot = async () =>
      JSON.stringify(
        await Promise.all(
          [
            `/pcm/products?page[limit]=100`,
            `/pcm/variations/${ids.variationId}`,
            `/pcm/variations/${ids.variationId}/options/${ids.optionId}/modifiers`,
            `/pcm/hierarchies/${ids.hierarchyId}/nodes`,
            `/pcm/hierarchies/${ids.hierarchyId}/nodes/${ids.nodeId}/products`,
          ].map(async (path) => (await call('GET', path)).json),
        ),
        // A meta-only PUT (allowed below) is still a write: it may move updated_at, nothing else.
        (key, value) => (key === 'updated_at' ? undefined : value),
      );
    const before = await snapshot();
    const writes = serviceRoutes(app).filter(
      (r) => r.url.startsWith('/pcm/') && ['POST', 'PUT', 'DELETE'].includes(r.method),
    );
    expect(writes.length).toBeGreaterThan(30);
    const problems: string[] = [];
    for (const route of writes) {
      // Deletes and the build take no body: they are walked elsewhere.
      if (route.method === 'DELETE' && !route.url.endsWith('/relationships/products')) continue;
      if (route.url.endsWith('/build')) continue;
      const path = route.url.replace(/:(\w+)/g, (_m, name: string) => ids[name] ?? 'missing');
      for (const body of HOSTILE) {
        // PUT {"data":[]} empties a relationship list: a valid write, walked in pxm-products.
        const emptyList = JSON.stringify(body) === '{"data":[]}';
        if (route.method === 'PUT' && route.url.includes('/relationships/') && emptyList) continue;
        const result = await call(route.method, path, body);
        const error = result.json?.errors?.[0];
        // `meta` is read-only where a resource keeps nothing there (a client may echo it back):
        // such a body is an update of nothing, and may succeed without changing anything.
        const metaOnly = JSON.stringify(body).startsWith('{"data":{"meta"');
        if (metaOnly && result.status < 300) continue;
        if (result.status < 400 || result.status >= 500 || typeof error?.detail !== 'string') {
          problems.push(
            `${route.method} ${route.url} ${JSON.stringify(body).slice(0, 80)} → ${result.status}`,
          );
        }
      }
    }
    expect(problems).toEqual([]);
    expect(await snapshot()).toBe(before);
  });
});
