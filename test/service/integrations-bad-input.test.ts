/**
 * The service's side of the bad-input corpus for integrations and export jobs: every write of
 * /v2/integrations and /v2/jobs (fastify's own list) is sent each hostile body and answers a
 * 400 JSON:API error with a detail — never a 5xx — before any work: no integration, job or
 * outbox row appears or changes, and no secret sent is echoed in the error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
let integrationId: string;

const GOOD = {
  type: 'integration',
  name: 'Feed',
  integration_type: 'webhook',
  observes: ['order.created'],
  configuration: { url: 'http://127.0.0.1:9/hook', secret_key: 'kept-secret' },
};
const withData = (data: Record<string, unknown>) => ({ data: { ...GOOD, ...data } });
const withConfig = (configuration: unknown) => withData({ configuration });

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
  withData({ type: 'webhook' }),
  withData({ name: 5 }),
  withData({ name: '   ' }),
  withData({ name: 'x'.repeat(256) }),
  withData({ description: 'd'.repeat(1001) }),
  withData({ enabled: 'yes' }),
  withData({ integration_type: 'email' }),
  withData({ integration_type: ['webhook'] }),
  withData({ observes: [] }),
  withData({ observes: 'order.created' }),
  withData({ observes: ['order.created', 7] }),
  withData({ observes: ['order.exploded'] }),
  withData({ observes: ['wishlist.created'] }),
  withData({ observes: ['x'.repeat(200)] }),
  withData({ observes: Array.from({ length: 51 }, () => 'order.created') }),
  withData({ surprise: true }),
  withConfig('http://127.0.0.1/hook'),
  withConfig([]),
  withConfig({ url: 'ftp://example.com/hook' }),
  withConfig({ url: 'javascript:alert(1)' }),
  withConfig({ url: 'not a url' }),
  withConfig({ url: 'file:///etc/passwd' }),
  withConfig({ url: 'http://user:pw-in-url@example.com/' }),
  withConfig({ url: `http://example.com/${'a'.repeat(2100)}` }),
  withConfig({ url: 42 }),
  withConfig({ url: null, secret_key: 'no-url-secret' }),
  withConfig({ url: 'http://example.com/', secret_key: 12345 }),
  withConfig({ url: 'http://example.com/', secret_key: 's'.repeat(300) }),
  withConfig({ url: 'http://example.com/', region: 'eu-west-1' }),
  withData({
    integration_type: 'stomp',
    configuration: { url: 'http://example.com/', addresses: 'a' },
  }),
  { data: { type: 'job', job_type: 'product_export' } },
  { data: { type: 'job', job_type: 'order_export', filter: 'eq(nope,1)' } },
  { data: { type: 'job', job_type: 'order_export', filter: 'x'.repeat(9000) } },
  { data: { type: 'job', job_type: 'order_export', filter: { created_at: 1 } } },
];

beforeAll(async () => {
  service = await startService();
  const created = await service.call('POST', '/v2/integrations', { json: { data: GOOD } });
  integrationId = created.body.data.id;
});
afterAll(() => service?.close());

describe('integration and job writes under hostile bodies', () => {
  it('answers each with a 4xx JSON:API error, never a 5xx, and changes nothing', async () => {
    const snapshot = async () =>
      JSON.stringify(
        await Promise.all(
          ['/v2/integrations', '/v2/jobs', `/v2/integrations/${integrationId}/jobs`].map(
            async (path) => (await service.call('GET', path)).body,
          ),
        ),
      );
    const before = await snapshot();
    const writes = [
      ['POST', '/v2/integrations'],
      ['PUT', `/v2/integrations/${integrationId}`],
      ['POST', '/v2/jobs'],
    ] as const;
    const problems: string[] = [];
    for (const [method, path] of writes) {
      for (const body of HOSTILE) {
        // An integration's body sent to /v2/jobs (and the reverse) is refused as well.
        const result = await service.call(
          method,
          path,
          typeof body === 'string'
            ? { raw: body, contentType: 'application/json' }
            : { json: body },
        );
        const error = result.body?.errors?.[0];
        const text = JSON.stringify(result.body);
        if (result.status !== 400 || typeof error?.detail !== 'string' || error.detail === '') {
          problems.push(
            `${method} ${path} ${JSON.stringify(body).slice(0, 80)} → ${result.status}`,
          );
        }
        for (const secret of ['pw-in-url', 'no-url-secret', 'kept-secret']) {
          if (text.includes(secret)) problems.push(`${method} ${path}: echoed ${secret}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(await snapshot()).toBe(before);
  });
});
