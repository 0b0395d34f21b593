/**
 * Integrations that really deliver: a webhook receiver (node:http on port 0) gets the event of
 * a checkout with the secret header; failures are retried and every attempt is logged; the
 * request that caused the event never waits for the receiver; an event committed before the
 * service stops is delivered after it starts again on the same database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ServiceUnderTest, startService } from './service-helpers.ts';

interface Received {
  headers: IncomingMessage['headers'];
  body: any;
}

/** What the receiver does with a request: answer with a status, or never answer. */
type Behaviour = (count: number) => number | 'hang';

interface Receiver {
  url: string;
  received: Received[];
  behave: Behaviour;
  close(): Promise<void>;
}

async function startReceiver(behave: Behaviour = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const receiver = { received, behave } as Receiver;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        headers: request.headers,
        body: JSON.parse(Buffer.concat(chunks).toString()),
      });
      const answer = receiver.behave(received.length);
      if (answer === 'hang') {
        hanging.push(response);
        return;
      }
      response.writeHead(answer, { 'content-type': 'text/plain' }).end(`answer ${answer}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  receiver.close = async () => {
    for (const response of hanging) response.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}

async function waitFor<T>(
  what: string,
  read: () => Promise<T | false> | T | false,
  ms = 5000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const FAST = { timeoutMs: 2000, retryDelayMs: 20, pollMs: 50, maxAttempts: 4 };
const ADDRESS = {
  first_name: 'A',
  last_name: 'B',
  line_1: '1 Road',
  region: 'R',
  postcode: 'P1',
  country: 'GB',
};

async function createWebhook(
  service: ServiceUnderTest,
  url: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const result = await service.call('POST', '/v2/integrations', {
    json: {
      data: {
        type: 'integration',
        name: 'Order feed',
        integration_type: 'webhook',
        observes: ['order.created'],
        configuration: { url, secret_key: 'shh-its-a-secret' },
        ...extra,
      },
    },
  });
  if (result.status !== 201) throw new Error(JSON.stringify(result.body));
  return result.body.data.id;
}

/** A cart with one item, checked out by a guest; returns the order's id and the time it took. */
async function checkout(service: ServiceUnderTest): Promise<{ orderId: string; ms: number }> {
  const cart = (await service.call('POST', '/v2/carts', { json: { data: { name: 'c' } } })).body
    .data.id;
  await service.call('POST', `/v2/carts/${cart}/items`, {
    json: {
      data: { type: 'custom_item', name: 'Mug', sku: 'mug', quantity: 1, price: { amount: 900 } },
    },
  });
  const started = performance.now();
  const result = await service.call('POST', `/v2/carts/${cart}/checkout`, {
    json: {
      data: { customer: { name: 'Gus', email: 'gus@example.com' }, billing_address: ADDRESS },
    },
  });
  const ms = performance.now() - started;
  if (result.status !== 201) throw new Error(JSON.stringify(result.body));
  return { orderId: result.body.data.id, ms };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(behave?: Behaviour, webhooks = FAST) {
  const receiver = await startReceiver(behave);
  const service = await startService({ webhooks });
  cleanups.push(
    () => receiver.close(),
    () => service.close(),
  );
  return { receiver, service };
}

describe('webhook delivery', () => {
  it('posts order.created for a checkout with the secret header and the documented payload', async () => {
    const { receiver, service } = await setUp();
    const integrationId = await createWebhook(service, receiver.url);
    const { orderId } = await checkout(service);

    const [got] = await waitFor(
      'the event',
      () => receiver.received.length > 0 && receiver.received,
    );
    expect(got?.headers['x-moltin-secret-key']).toBe('shh-its-a-secret');
    expect(got?.headers['content-type']).toBe('application/json');
    const body = got?.body;
    expect(body.triggered_by).toBe('order.created');
    expect(body.attempt).toBe(1);
    expect(body.integration).toEqual({
      id: integrationId,
      integration_type: 'webhook',
      name: 'Order feed',
      description: '',
    });
    expect(body.payload.data.id).toBe(orderId);
    expect(body.payload.data.type).toBe('order');
    expect(body.payload.included.items[0].sku).toBe('mug');
    expect(JSON.parse(body.resources)).toEqual(body.payload);

    const logs = await waitFor('the log', async () => {
      const list = await service.call('GET', `/v2/integrations/${integrationId}/logs`);
      return list.body.data.length > 0 && list.body;
    });
    expect(logs.data).toHaveLength(1);
    expect(logs.data[0]).toMatchObject({
      type: 'integration-log',
      succeeded: true,
      attempt: 1,
      status_code: 200,
      body: 'answer 200',
      relationships: { job: { data: { id: body.id } } },
    });
    expect(logs.meta.results.total).toBe(1);

    // Only one event was observed: only one delivery.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(receiver.received).toHaveLength(1);
  });

  it('never shows the secret key back', async () => {
    const { receiver, service } = await setUp();
    const id = await createWebhook(service, receiver.url);
    for (const path of [`/v2/integrations/${id}`, '/v2/integrations']) {
      const result = await service.call('GET', path);
      expect(result.status).toBe(200);
      expect(JSON.stringify(result.body)).not.toContain('shh-its-a-secret');
    }
    const one = await service.call('GET', `/v2/integrations/${id}`);
    expect(one.body.data.configuration).toEqual({ url: receiver.url });
    // An update that leaves the key out keeps it.
    const renamed = await service.call('PUT', `/v2/integrations/${id}`, {
      json: {
        data: { type: 'integration', name: 'Renamed', configuration: { url: receiver.url } },
      },
    });
    expect(renamed.status).toBe(200);
    expect(JSON.stringify(renamed.body)).not.toContain('shh-its-a-secret');
    await checkout(service);
    const [got] = await waitFor(
      'the event',
      () => receiver.received.length > 0 && receiver.received,
    );
    expect(got?.headers['x-moltin-secret-key']).toBe('shh-its-a-secret');
    expect(got?.body.integration.name).toBe('Renamed');
  });

  it('retries a receiver that fails twice: three logs, the last successful', async () => {
    const { receiver, service } = await setUp((count) => (count <= 2 ? 503 : 204));
    const integrationId = await createWebhook(service, receiver.url);
    await checkout(service);

    await waitFor('three attempts', () => receiver.received.length >= 3);
    expect(receiver.received.map((r) => r.body.attempt)).toEqual([1, 2, 3]);
    expect(new Set(receiver.received.map((r) => r.body.id)).size).toBe(1);

    const logs = await waitFor('three logs', async () => {
      const list = await service.call('GET', '/v2/integrations/logs');
      return list.body.data.length === 3 && list.body.data;
    });
    expect(logs.map((log: any) => [log.attempt, log.succeeded, log.status_code])).toEqual([
      [1, false, 503],
      [2, false, 503],
      [3, true, 204],
    ]);
    expect(logs[0].error_detail).toBe('The receiver answered 503.');
    const picked = await service.call(
      'GET',
      `/v2/integrations/logs?filter=in(id,${logs[2].id},${logs[0].id})`,
    );
    expect(picked.body.data.map((log: any) => log.attempt)).toEqual([1, 3]);

    const jobs = await service.call('GET', `/v2/integrations/${integrationId}/jobs`);
    expect(jobs.body.data).toHaveLength(1);
    expect(jobs.body.data[0]).toMatchObject({
      triggered_by: 'order.created',
      status: 'succeeded',
      attempts: 3,
    });
    const jobId = jobs.body.data[0].id;
    const jobLogs = await service.call(
      'GET',
      `/v2/integrations/${integrationId}/jobs/${jobId}/logs`,
    );
    expect(jobLogs.body.data.map((log: any) => log.id)).toEqual(logs.map((log: any) => log.id));
    const job = await service.call('GET', `/v2/integrations/${integrationId}/jobs/${jobId}`);
    expect(job.body.data.status).toBe('succeeded');
  });

  it('gives up after the configured attempts and marks the job failed', async () => {
    const { receiver, service } = await setUp(() => 500, { ...FAST, maxAttempts: 2 });
    const integrationId = await createWebhook(service, receiver.url);
    await checkout(service);
    const jobs = await waitFor('the job to fail', async () => {
      const list = await service.call('GET', `/v2/integrations/${integrationId}/jobs`);
      return list.body.data[0]?.status === 'failed' && list.body.data;
    });
    expect(jobs[0].attempts).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toHaveLength(2);
  });

  it('never makes the request that caused the event wait for the receiver', async () => {
    const { receiver, service } = await setUp(() => 'hang', { ...FAST, timeoutMs: 800 });
    const integrationId = await createWebhook(service, receiver.url);
    const { ms } = await checkout(service);
    // The receiver holds the delivery for the whole timeout; the checkout did not wait for it.
    await waitFor('the delivery', () => receiver.received.length > 0);
    expect(ms).toBeLessThan(500);
    const logs = await waitFor('the timed-out attempt', async () => {
      const list = await service.call('GET', `/v2/integrations/${integrationId}/logs`);
      return list.body.data.length > 0 && list.body.data;
    });
    expect(logs[0]).toMatchObject({ succeeded: false, status_code: null });
    expect(logs[0].error_detail).toBe('No answer within 800 ms.');
  });

  it('records nothing for a change that was refused, a disabled webhook or a non-webhook', async () => {
    const { receiver, service } = await setUp();
    const webhook = await createWebhook(service, receiver.url, {
      observes: ['order.created', 'cart.updated'],
      enabled: false,
    });
    const queue = await createWebhook(service, receiver.url, {
      integration_type: 'aws_sqs',
      configuration: {
        url: 'https://sqs.example.com/q',
        aws_access_key_id: 'AKIA',
        aws_secret_access_key: 'sqs-secret',
        region: 'eu-west-1',
      },
    });
    await checkout(service);
    const empty = (await service.call('POST', '/v2/carts', { json: { data: { name: 'e' } } })).body
      .data.id;
    const refused = await service.call('POST', `/v2/carts/${empty}/checkout`, {
      json: { data: { customer: { name: 'G', email: 'g@example.com' }, billing_address: ADDRESS } },
    });
    expect(refused.status).toBe(400);
    for (const id of [webhook, queue]) {
      const jobs = await service.call('GET', `/v2/integrations/${id}/jobs`);
      expect(jobs.body.data).toEqual([]);
    }
    const sqs = await service.call('GET', `/v2/integrations/${queue}`);
    expect(JSON.stringify(sqs.body)).not.toContain('sqs-secret');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(receiver.received).toEqual([]);
  });
});

describe('the outbox across a restart', () => {
  it('delivers after a restart an event committed before the service stopped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webhooks-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const dbPath = join(dir, 'commerce.db');
    // The receiver holds the first delivery until the service is gone.
    const receiver = await startReceiver(() => 'hang');
    cleanups.push(() => receiver.close());

    const first = await startService({ dbPath, webhooks: { ...FAST, timeoutMs: 60_000 } });
    const integrationId = await createWebhook(first, receiver.url);
    const { orderId } = await checkout(first);
    await waitFor('the first delivery to be in flight', () => receiver.received.length === 1);
    const stopping = performance.now();
    await first.close();
    // Stopping does not wait for the hanging receiver.
    expect(performance.now() - stopping).toBeLessThan(2000);

    receiver.behave = () => 200;
    const second = await startService({ dbPath, webhooks: FAST });
    cleanups.push(() => second.close());
    await waitFor('the redelivery', () => receiver.received.length === 2);
    const again = receiver.received[1]?.body;
    expect(again.payload.data.id).toBe(orderId);
    expect(again.id).toBe(receiver.received[0]?.body.id);
    const logs = await waitFor('the log', async () => {
      const list = await second.call('GET', `/v2/integrations/${integrationId}/logs`);
      return list.body.data.length > 0 && list.body.data;
    });
    // The attempt cut short by the stop was never logged: the one log is the delivery.
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ succeeded: true, attempt: 1, status_code: 200 });
  });
});
