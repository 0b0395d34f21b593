/**
 * The official `@elasticpath/js-sdk`, unchanged, against the embedded service: its
 * Integrations calls (CRUD, logs store-wide, per integration and per job, jobs) and its Jobs
 * calls (order export: create, list, get, the file's href), with the bodies and paths the SDK
 * builds. A receiver on port 0 takes the deliveries.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gateway, MemoryStorageFactory } from '@elasticpath/js-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
let sdk: ReturnType<typeof gateway>;
let hookUrl: string;
let deliveries = 0;
const receiver = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    deliveries += 1;
    response.writeHead(200).end('ok');
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  service = await startService({ webhooks: { retryDelayMs: 20, pollMs: 50 } });
  const url = new URL(service.url);
  sdk = gateway({
    client_id: 'alpha',
    client_secret: 'alpha-secret',
    host: url.host,
    protocol: 'http',
    storage: new MemoryStorageFactory(),
    fetchMaxAttempts: 1,
  } as Parameters<typeof gateway>[0]);
});
afterAll(async () => {
  await service?.close();
  receiver.closeAllConnections();
  receiver.close();
});

async function until<T>(read: () => Promise<T | false>): Promise<T> {
  for (let i = 0; i < 250; i += 1) {
    const value = await read();
    if (value !== false) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('timed out');
}

describe('js-sdk Integrations', () => {
  it('creates, lists, reads, updates and deletes a webhook, and reads its jobs and logs', async () => {
    const created = await sdk.Integrations.Create({
      type: 'integration',
      name: 'SDK hook',
      description: 'made by the SDK',
      enabled: true,
      integration_type: 'webhook',
      observes: ['customer.created'],
      configuration: { url: hookUrl, secret_key: 'sdk-secret' },
    });
    const id = created.data.id;
    expect(created.data).toMatchObject({ name: 'SDK hook', observes: ['customer.created'] });
    expect(JSON.stringify(created)).not.toContain('sdk-secret');
    expect((await sdk.Integrations.All()).data.map((i) => i.id)).toContain(id);
    expect((await sdk.Integrations.Get(id)).data.name).toBe('SDK hook');
    const updated = await sdk.Integrations.Update(id, { name: 'SDK hook 2' });
    expect(updated.data.name).toBe('SDK hook 2');

    await sdk.Customers.Create({
      type: 'customer',
      name: 'Sid',
      email: 'sid@example.com',
      password: 'sid-password-1',
    });
    const logs = await until(async () => {
      const page = await sdk.Integrations.GetLogs(id);
      return page.data.length > 0 && page;
    });
    expect(logs.data[0]).toMatchObject({ type: 'integration-log', succeeded: true, attempt: 1 });
    expect(typeof logs.data[0]?.processing_time).toBe('number');
    expect((await sdk.Integrations.GetAllLogs()).data.map((l) => l.id)).toContain(logs.data[0]?.id);
    const jobs = await sdk.Integrations.GetJobs(id);
    expect(jobs.data).toHaveLength(1);
    const jobId = jobs.data[0]?.id ?? '';
    expect((await sdk.Integrations.GetAllLogsForJob(id, jobId)).data).toHaveLength(1);
    expect(deliveries).toBe(1);

    await sdk.Integrations.Delete(id);
    const gone = await service.call('GET', `/v2/integrations/${id}`);
    expect(gone.status).toBe(404);
  });
});

describe('js-sdk Jobs', () => {
  it('creates an order export, lists and reads it, and gets its file link', async () => {
    const created = await sdk.Jobs.Create({ type: 'job', job_type: 'order_export', filter: '' });
    const id = created.data.id;
    expect(created.data.job_type).toBe('order_export');
    expect((await sdk.Jobs.All()).data.map((j) => j.id)).toContain(id);
    const job = await until(async () => {
      const read = await sdk.Jobs.Get(id);
      return read.data.status === 'complete' && read.data;
    });
    expect(job.link.href).toBe(`/v2/jobs/${id}/file/content`);
    const file = await sdk.Jobs.GetFile(id);
    expect(file.href).toBe(`${service.url}/v2/jobs/${id}/file/content`);
  });
});
