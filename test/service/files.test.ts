import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FILE_SIZE } from '../../src/commerce-service/files/routes.ts';
import { errorOf, type ServiceUnderTest, startService } from './service-helpers.ts';

describe('files over HTTP', () => {
  let service: ServiceUnderTest;
  let token: string;

  beforeAll(async () => {
    service = await startService();
    token = await service.token();
  });
  afterAll(async () => {
    await service.close();
  });

  async function upload(
    form: FormData,
    bearer: string = token,
  ): Promise<{ status: number; body: any }> {
    const response = await fetch(`${service.url}/v2/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}` },
      body: form,
    });
    return { status: response.status, body: await response.json() };
  }

  function formWith(
    bytes: Uint8Array<ArrayBuffer>,
    name: string,
    type: string,
    extra?: Record<string, string>,
  ) {
    const form = new FormData();
    for (const [k, v] of Object.entries(extra ?? {})) form.append(k, v);
    form.append('file', new Blob([bytes], { type }), name);
    return form;
  }

  it('uploads a file (multipart) and gives back the same bytes', async () => {
    const bytes = new Uint8Array(70_000).map((_, i) => (i * 31) % 256);
    const result = await upload(formWith(bytes, 'photo.png', 'image/png', { public: 'true' }));
    expect(result.status).toBe(201);
    const file = result.body.data;
    expect(file).toMatchObject({
      type: 'file',
      file_name: 'photo.png',
      mime_type: 'image/png',
      file_size: 70_000,
      public: true,
    });
    expect(file.id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(file.meta.timestamps.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // A public file's href is its tokenless public address, as production's CDN URL is.
    expect(file.link.href).toBe(`${service.url}/files/${file.id}/photo.png`);

    const read = await service.call('GET', `/v2/files/${file.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(file);

    const content = await fetch(`${service.url}/v2/files/${file.id}/content`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(content.status).toBe(200);
    expect(content.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await content.arrayBuffer())).toEqual(bytes);
    const anonymous = await fetch(file.link.href);
    expect(anonymous.status).toBe(200);
    expect(new Uint8Array(await anonymous.arrayBuffer())).toEqual(bytes);
    expect((await fetch(`${service.url}/v2/files/${file.id}/content`)).status).toBe(401);

    expect((await service.call('DELETE', `/v2/files/${file.id}`)).status).toBe(204);
    expect((await service.call('GET', `/v2/files/${file.id}`)).status).toBe(404);
    expect((await service.call('DELETE', `/v2/files/${file.id}`)).status).toBe(404);
  });

  it('defaults public to false and accepts an empty file', async () => {
    const result = await upload(formWith(new Uint8Array(0), 'empty.txt', 'text/plain'));
    expect(result.status).toBe(201);
    expect(result.body.data).toMatchObject({ public: false, file_size: 0 });
  });

  it('refuses a file over 10 MiB with 413 and stores nothing', async () => {
    const before = await service.call('GET', '/v2/files');
    const result = await upload(
      formWith(new Uint8Array(MAX_FILE_SIZE + 1), 'big.bin', 'application/octet-stream'),
    );
    expect(result.status).toBe(413);
    expect(result.body.errors[0].detail).toMatch(/10 MiB/);
    const after = await service.call('GET', '/v2/files');
    expect(after.body.meta.results.total).toBe(before.body.meta.results.total);
    // Exactly the limit is fine.
    const atLimit = await upload(
      formWith(new Uint8Array(MAX_FILE_SIZE), 'edge.bin', 'application/octet-stream'),
    );
    expect(atLimit.status).toBe(201);
    expect(atLimit.body.data.file_size).toBe(MAX_FILE_SIZE);
  });

  it('rejects bodies without a usable file field', async () => {
    const noFile = new FormData();
    noFile.append('public', 'true');
    const missing = await upload(noFile);
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].source).toBe('file');

    const wrongField = new FormData();
    wrongField.append('upload', new Blob(['x']), 'x.txt');
    expect((await upload(wrongField)).status).toBe(400);

    const badPublic = formWith(new Uint8Array([1]), 'x.bin', 'application/octet-stream', {
      public: 'maybe',
    });
    expect((await upload(badPublic)).status).toBe(400);

    const json = await service.call('POST', '/v2/files', { json: { data: { file_name: 'x' } } });
    expect(json.status).toBe(400);
    expect(errorOf(json).detail).toMatch(/multipart\/form-data/);

    const implicit = await service.token('alpha', 'implicit');
    expect(
      (await upload(formWith(new Uint8Array([1]), 'x.bin', 'text/plain'), implicit)).status,
    ).toBe(403);
  });

  it('lists with the envelope and the hard offset limit; other stores see nothing', async () => {
    for (let i = 0; i < 3; i++) {
      expect(
        (await upload(formWith(new Uint8Array([i]), `n${i}.bin`, 'application/octet-stream')))
          .status,
      ).toBe(201);
    }
    const list = await service.call('GET', '/v2/files?sort=created_at&page[limit]=2');
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(2);
    expect(list.body.meta.page).toMatchObject({ limit: 2, offset: 0, current: 1 });
    const total = list.body.meta.results.total as number;
    expect(total).toBeGreaterThanOrEqual(3);
    const last = list.body.data[1];
    const next = await service.call(
      'GET',
      `/v2/files?sort=created_at&filter=gt(created_at,${last.meta.timestamps.created_at})`,
    );
    expect(next.body.data.map((f: { id: string }) => f.id)).not.toContain(last.id);
    expect(next.body.meta.results.total).toBe(total - 2);

    const deep = await service.call('GET', '/v2/files?page[offset]=10000');
    expect(deep.status).toBe(200);
    expect(deep.body.data).toEqual([]);
    const tooDeep = await service.call('GET', '/v2/files?page[offset]=10001');
    expect(tooDeep.status).toBe(400);
    expect(errorOf(tooDeep).source).toBe('page[offset]');

    const beta = await service.token('beta');
    const betaList = await service.call('GET', '/v2/files', { token: beta });
    expect(betaList.body.data).toEqual([]);
    expect(betaList.body.meta).toEqual({
      page: { limit: 25, offset: 0, current: 1, total: 0 },
      results: { total: 0 },
    });
    expect((await service.call('GET', `/v2/files/${last.id}`, { token: beta })).status).toBe(404);
    expect((await service.call('DELETE', `/v2/files/${last.id}`, { token: beta })).status).toBe(
      404,
    );
    expect(
      (await service.call('GET', `/v2/files/${last.id}/content`, { token: beta })).status,
    ).toBe(404);
  });
});
