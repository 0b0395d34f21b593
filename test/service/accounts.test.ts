import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, type ServiceUnderTest, startService } from './service-helpers.ts';

describe('accounts over HTTP', () => {
  let service: ServiceUnderTest;

  beforeAll(async () => {
    service = await startService();
  });
  afterAll(async () => {
    await service.close();
  });

  async function create(data: Record<string, unknown>) {
    return service.call('POST', '/v2/accounts', { json: { data: { type: 'account', ...data } } });
  }

  it('creates, reads, updates (partially) and deletes an account', async () => {
    const created = await create({ name: 'Acme', legal_name: 'Acme Ltd.', registration_id: 'R-1' });
    expect(created.status).toBe(201);
    const account = created.body.data;
    expect(account).toMatchObject({
      type: 'account',
      name: 'Acme',
      legal_name: 'Acme Ltd.',
      registration_id: 'R-1',
    });
    expect(account.meta.timestamps.created_at).toBe(account.meta.timestamps.updated_at);

    const read = await service.call('GET', `/v2/accounts/${account.id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(account);

    const put = await service.call('PUT', `/v2/accounts/${account.id}`, {
      json: { data: { type: 'account', legal_name: 'Acme Holdings Ltd.' } },
    });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({
      name: 'Acme',
      legal_name: 'Acme Holdings Ltd.',
      registration_id: 'R-1',
    });
    expect(put.body.data.meta.timestamps.updated_at > account.meta.timestamps.updated_at).toBe(
      true,
    );
    expect(put.body.data.meta.timestamps.created_at).toBe(account.meta.timestamps.created_at);

    const cleared = await service.call('PUT', `/v2/accounts/${account.id}`, {
      json: { data: { registration_id: null } },
    });
    expect(cleared.body.data.registration_id).toBeUndefined();

    expect((await service.call('DELETE', `/v2/accounts/${account.id}`)).status).toBe(204);
    expect((await service.call('GET', `/v2/accounts/${account.id}`)).status).toBe(404);
    expect(
      (await service.call('PUT', `/v2/accounts/${account.id}`, { json: { data: { name: 'x' } } }))
        .status,
    ).toBe(404);
  });

  it('validates bodies with 400s that name the field, and writes nothing', async () => {
    const before = (await service.call('GET', '/v2/accounts')).body.meta.results.total;
    const cases: [Record<string, unknown>, string][] = [
      [{ name: undefined }, 'data.name'],
      [{ name: '' }, 'data.name'],
      [{ name: 42 }, 'data.name'],
      [{ name: 'x'.repeat(256) }, 'data.name'],
      [{ name: 'ok', legal_name: 7 }, 'data.legal_name'],
      [{ name: 'ok', type: 'customer' }, 'data.type'],
    ];
    for (const [data, source] of cases) {
      const result = await create(data);
      expect(result.status, JSON.stringify(data).slice(0, 60)).toBe(400);
      expect(errorOf(result).source).toBe(source);
    }
    const noType = await service.call('POST', '/v2/accounts', { json: { data: { name: 'x' } } });
    expect(noType.status).toBe(400);
    expect((await service.call('POST', '/v2/accounts', { json: { nope: 1 } })).status).toBe(400);
    expect((await service.call('GET', '/v2/accounts')).body.meta.results.total).toBe(before);

    const ok = await create({ name: 'Valid' });
    const badPut = await service.call('PUT', `/v2/accounts/${ok.body.data.id}`, {
      json: { data: { name: null } },
    });
    expect(badPut.status).toBe(400);
    expect(errorOf(badPut).source).toBe('data.name');
  });

  it('lists with filters and sorts; the offset limit is soft (10001 served)', async () => {
    for (const name of ['L1', 'L2', 'L3']) expect((await create({ name })).status).toBe(201);
    const asc = await service.call('GET', '/v2/accounts?sort=created_at&page[limit]=100');
    const names = asc.body.data.map((a: { name: string }) => a.name);
    expect(names.slice(-3)).toEqual(['L1', 'L2', 'L3']);
    const desc = await service.call('GET', '/v2/accounts?page[limit]=100');
    expect(desc.body.data.map((a: { name: string }) => a.name)).toEqual([...names].reverse());

    const pivot = asc.body.data.at(-2);
    const after = await service.call(
      'GET',
      `/v2/accounts?sort=created_at&filter=gt(created_at,${pivot.meta.timestamps.created_at})`,
    );
    expect(after.body.data.map((a: { name: string }) => a.name)).toEqual(['L3']);
    const byId = await service.call('GET', `/v2/accounts?filter=eq(id,${pivot.id})`);
    expect(byId.body.data).toEqual([pivot]);

    const deep = await service.call('GET', '/v2/accounts?page[offset]=10001');
    expect(deep.status).toBe(200);
    expect(deep.body.data).toEqual([]);
    expect(deep.body.meta.page.offset).toBe(10_001);
    expect((await service.call('GET', '/v2/accounts?sort=name')).status).toBe(400);
  });

  it("keeps stores apart: another store's account is a 404", async () => {
    const created = await create({ name: 'Private' });
    const beta = await service.token('beta');
    const id = created.body.data.id;
    for (const [method, json] of [
      ['GET', undefined],
      ['PUT', { data: { name: 'Taken' } }],
      ['DELETE', undefined],
    ] as const) {
      const result = await service.call(method, `/v2/accounts/${id}`, {
        token: beta,
        ...(json ? { json } : {}),
      });
      expect(result.status, method).toBe(404);
    }
    const list = await service.call('GET', '/v2/accounts', { token: beta });
    expect(list.body.data).toEqual([]);
    expect(list.body.meta.results.total).toBe(0);
    expect((await service.call('GET', `/v2/accounts/${id}`)).body.data.name).toBe('Private');
  });
});
