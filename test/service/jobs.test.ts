/**
 * Jobs: an order export (`/v2/jobs`) is queued with 202, runs in the background and produces a
 * CSV of the orders its filter selects, cells a spreadsheet cannot run as formulas; PXM jobs
 * (`/pcm/jobs`) can be cancelled only while unfinished. Over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
const ADDRESS = {
  first_name: 'A',
  last_name: 'B',
  line_1: '1 Road',
  region: 'R',
  postcode: 'P1',
  country: 'GB',
};

async function order(name: string, amount: number): Promise<string> {
  const cart = (await service.call('POST', '/v2/carts', { json: { data: { name: 'c' } } })).body
    .data.id;
  await service.call('POST', `/v2/carts/${cart}/items`, {
    json: {
      data: { type: 'custom_item', name: 'Mug', sku: 'mug', quantity: 1, price: { amount } },
    },
  });
  const placed = await service.call('POST', `/v2/carts/${cart}/checkout`, {
    json: { data: { customer: { name, email: 'x@example.com' }, billing_address: ADDRESS } },
  });
  expect(placed.status).toBe(201);
  return placed.body.data.id;
}

async function finished(id: string): Promise<any> {
  for (let i = 0; i < 200; i += 1) {
    const job = await service.call('GET', `/v2/jobs/${id}`);
    if (['complete', 'failed'].includes(job.body.data.status)) return job.body.data;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the job never finished');
}

/** RFC 4180 rows of a CSV text (quoted fields with "" and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const pair = text.slice(i, i + 2);
    if (quoted && pair === '""') {
      field += '"';
      i += 2;
      continue;
    }
    if (quoted) {
      if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') {
      quoted = true;
    } else if (c === ',') {
      row.push(field);
      field = '';
    } else if (pair === '\r\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += 1;
    } else {
      field += c;
    }
    i += 1;
  }
  return rows;
}

let first: string;
beforeAll(async () => {
  service = await startService();
  first = await order('Plain Name', 100);
  await order('Comma, "Quoted"', 200);
  await order('=HYPERLINK("http://evil")', 300);
});
afterAll(() => service?.close());

describe('order export jobs', () => {
  it('queues with 202, runs in the background and produces a CSV of every order', async () => {
    const queued = await service.call('POST', '/v2/jobs', {
      json: { data: { type: 'job', job_type: 'order_export' } },
    });
    expect(queued.status).toBe(202);
    expect(queued.body.data).toMatchObject({ type: 'job', job_type: 'order_export' });
    expect(['pending', 'processing', 'complete']).toContain(queued.body.data.status);
    const job = await finished(queued.body.data.id);
    expect(job.status).toBe('complete');
    expect(job.link.href).toBe(`/v2/jobs/${job.id}/file/content`);

    // As production: the file endpoint answers where the file is.
    const where = await service.call('GET', `/v2/jobs/${job.id}/file`);
    expect(where.body).toEqual({ href: `${service.url}/v2/jobs/${job.id}/file/content` });
    const file = await service.call('GET', new URL(where.body.href).pathname);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toMatch(/^text\/csv/);
    const rows = parseCsv(file.body);
    expect(rows[0]).toContain('customer_name');
    expect(rows).toHaveLength(4);
    const names = rows.slice(1).map((r) => r[rows[0]?.indexOf('customer_name') ?? -1]);
    expect(names).toEqual(['Plain Name', 'Comma, "Quoted"', `'=HYPERLINK("http://evil")`]);
    const totals = rows.slice(1).map((r) => r[rows[0]?.indexOf('total_amount') ?? -1]);
    expect(totals).toEqual(['100', '200', '300']);

    const list = await service.call('GET', '/v2/jobs');
    expect(list.body.data.map((j: any) => j.id)).toContain(job.id);
  });

  it('exports only the orders its filter selects', async () => {
    const queued = await service.call('POST', '/v2/jobs', {
      json: { data: { type: 'job', job_type: 'order_export', filter: `eq(id,${first})` } },
    });
    const job = await finished(queued.body.data.id);
    const rows = parseCsv((await service.call('GET', `/v2/jobs/${job.id}/file/content`)).body);
    expect(rows).toHaveLength(2);
    expect(rows[1]?.[0]).toBe(first);
  });

  it('refuses a bad export before queuing anything', async () => {
    const before = (await service.call('GET', '/v2/jobs')).body.meta.results.total;
    for (const data of [
      { type: 'job', job_type: 'product_export' },
      { type: 'job' },
      { type: 'job', job_type: 'order_export', filter: 'eq(nope,1)' },
      { type: 'job', job_type: 'order_export', filter: 42 },
      { type: 'job', job_type: 'order_export', surprise: true },
      { type: 'order', job_type: 'order_export' },
    ]) {
      const result = await service.call('POST', '/v2/jobs', { json: { data } });
      expect(result.status, JSON.stringify(data)).toBe(400);
      expect(errorOf(result).detail).not.toBe('');
    }
    expect((await service.call('GET', '/v2/jobs')).body.meta.results.total).toBe(before);
    const missing = await service.call('GET', '/v2/jobs/00000000-0000-4000-8000-000000000000/file');
    expect(missing.status).toBe(404);
  });
});

describe('PXM jobs', () => {
  it('cancels nothing that has finished, and lists the build as a job', async () => {
    const variation = (
      await service.call('POST', '/pcm/variations', {
        json: { data: { type: 'product-variation', attributes: { name: 'Size' } } },
      })
    ).body.data.id;
    await service.call('POST', `/pcm/variations/${variation}/options`, {
      json: { data: { type: 'product-variation-option', attributes: { name: 'L' } } },
    });
    const product = (
      await service.call('POST', '/pcm/products', {
        json: {
          data: {
            type: 'product',
            attributes: { name: 'Tee', commodity_type: 'physical', sku: 'TEE', status: 'live' },
            relationships: { variations: { data: [{ type: 'product-variation', id: variation }] } },
          },
        },
      })
    ).body.data.id;
    const build = await service.call('POST', `/pcm/products/${product}/build`);
    expect(build.status).toBe(201);
    const jobId = build.body.data.id;
    const cancel = await service.call('POST', `/pcm/jobs/${jobId}/cancel`);
    expect(cancel.status).toBe(422);
    expect(errorOf(cancel).detail).toMatch(/already finished \(success\)/);
    const jobs = await service.call('GET', '/pcm/jobs');
    expect(jobs.body.data.map((j: any) => j.id)).toContain(jobId);
    const unknown = await service.call(
      'POST',
      '/pcm/jobs/00000000-0000-4000-8000-000000000000/cancel',
    );
    expect(unknown.status).toBe(404);
  });
});
