/**
 * Price books, prices and price modifiers (`/pcm/pricebooks…`) over real HTTP: every route,
 * every refused body with a JSON:API error naming the field, nothing written by a refused or
 * failed request (a replicate that fails half-way included), and the store-only scope.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, type ServiceUnderTest, startService } from './service-helpers.ts';

const BOOKS = '/pcm/pricebooks';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

let service: ServiceUnderTest;
beforeAll(async () => {
  service = await startService();
});
afterAll(() => service?.close());

async function createBook(attributes: Record<string, unknown> = { name: 'Retail' }) {
  const result = await service.call('POST', BOOKS, {
    json: { data: { type: 'pricebook', attributes } },
  });
  if (result.status !== 201) throw new Error(JSON.stringify(result.body));
  return result.body.data as { id: string; attributes: Record<string, unknown> };
}

const usd = (amount: number, extra: Record<string, unknown> = {}) => ({
  USD: { amount, includes_tax: false, ...extra },
});

async function createPrice(bookId: string, attributes: Record<string, unknown>) {
  return service.call('POST', `${BOOKS}/${bookId}/prices`, {
    json: { data: { type: 'product-price', attributes } },
  });
}

describe('price books', () => {
  it('creates, reads, lists, filters, updates and deletes a price book', async () => {
    const created = await service.call('POST', BOOKS, {
      json: {
        data: {
          type: 'pricebook',
          attributes: { name: 'Wholesale', description: 'B2B', external_ref: 'erp-7' },
        },
      },
    });
    expect(created.status).toBe(201);
    const book = created.body.data;
    expect(book).toMatchObject({
      type: 'pricebook',
      attributes: { name: 'Wholesale', description: 'B2B', external_ref: 'erp-7' },
      meta: { owner: 'store' },
      links: { self: `${BOOKS}/${book.id}` },
    });
    expect(book.attributes.created_at).toBe(book.attributes.updated_at);

    const read = await service.call('GET', `${BOOKS}/${book.id}`);
    expect(read.body.data).toEqual(book);

    const filtered = await service.call('GET', `${BOOKS}?filter=eq(external_ref,erp-7)`);
    expect(filtered.body.data.map((b: { id: string }) => b.id)).toEqual([book.id]);
    expect(filtered.body.meta.results.total).toBe(1);
    const byName = await service.call('GET', `${BOOKS}?filter=like(name,whole*)`);
    expect(byName.body.data.map((b: { id: string }) => b.id)).toEqual([book.id]);

    const updated = await service.call('PUT', `${BOOKS}/${book.id}`, {
      json: { data: { type: 'pricebook', id: book.id, attributes: { description: null } } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.attributes).not.toHaveProperty('description');
    expect(updated.body.data.attributes.name).toBe('Wholesale');
    expect(updated.body.data.attributes.updated_at > book.attributes.updated_at).toBe(true);

    expect((await service.call('DELETE', `${BOOKS}/${book.id}`)).status).toBe(204);
    expect((await service.call('GET', `${BOOKS}/${book.id}`)).status).toBe(404);
  });

  it('pages the list in creation order with the list envelope', async () => {
    const names = ['Page A', 'Page B', 'Page C'];
    for (const name of names) await createBook({ name, external_ref: 'paged' });
    const first = await service.call('GET', `${BOOKS}?filter=eq(external_ref,paged)&page[limit]=2`);
    expect(first.body.data.map((b: { attributes: { name: string } }) => b.attributes.name)).toEqual(
      names.slice(0, 2),
    );
    expect(first.body.meta).toEqual({
      page: { limit: 2, offset: 0, current: 1, total: 2 },
      results: { total: 3 },
    });
    expect(first.body.links.next).toContain('page[offset]=2');
    expect(errorOf(await service.call('GET', `${BOOKS}?page[limit]=101`)).source).toBe(
      'page[limit]',
    );
    const badFilter = errorOf(await service.call('GET', `${BOOKS}?filter=eq(sku,x)`));
    expect(badFilter).toMatchObject({ status: 400, source: 'filter' });
    expect(badFilter.detail).toContain('external_ref (eq)');
  });

  it('refuses bad bodies and ids with a 400 naming the field, and writes nothing', async () => {
    const before = (await service.call('GET', BOOKS)).body.meta.results.total;
    const cases: [unknown, string][] = [
      [{ data: { type: 'pricebook', attributes: {} } }, 'data.attributes.name'],
      [{ data: { type: 'pricebook', attributes: { name: '  ' } } }, 'data.attributes.name'],
      [{ data: { type: 'pricebook', attributes: { name: 7 } } }, 'data.attributes.name'],
      [{ data: { type: 'pricebook', name: 'Flat' } }, 'data.name'],
      [{ data: { type: 'pricebooks', attributes: { name: 'x' } } }, 'data.type'],
      [{ data: { type: 'pricebook' } }, 'data.attributes'],
      [{ data: { attributes: { name: 'x', colour: 'red' } } }, 'data.attributes.colour'],
      [
        { data: { attributes: { name: 'x', external_ref: 'e'.repeat(2049) } } },
        'data.attributes.external_ref',
      ],
      [
        { data: { attributes: { name: 'x', description: 'd'.repeat(1025) } } },
        'data.attributes.description',
      ],
      [{ data: [] }, 'data'],
    ];
    for (const [json, source] of cases) {
      const result = await service.call('POST', BOOKS, { json });
      expect(result.status, JSON.stringify(json).slice(0, 80)).toBe(400);
      expect(errorOf(result).source).toBe(source);
    }
    expect((await service.call('GET', BOOKS)).body.meta.results.total).toBe(before);

    const book = await createBook();
    const wrongId = await service.call('PUT', `${BOOKS}/${book.id}`, {
      json: { data: { type: 'pricebook', id: UNKNOWN, attributes: { name: 'Other' } } },
    });
    expect(errorOf(wrongId)).toMatchObject({ status: 400, source: 'data.id' });
    expect((await service.call('GET', `${BOOKS}/${book.id}`)).body.data.attributes.name).toBe(
      'Retail',
    );
    expect(errorOf(await service.call('GET', `${BOOKS}/not-a-uuid`)).status).toBe(400);
    expect(errorOf(await service.call('GET', `${BOOKS}/${UNKNOWN}`)).status).toBe(404);
    expect(errorOf(await service.call('GET', `${BOOKS}/${book.id}?include=files`))).toMatchObject({
      status: 400,
      source: 'include',
    });
  });

  it('includes its prices on request, and deleting it deletes its prices and modifiers', async () => {
    const book = await createBook();
    await createPrice(book.id, { sku: 'inc-1', currencies: usd(100) });
    await createPrice(book.id, { sku: 'inc-2', currencies: usd(200) });
    await service.call('POST', `${BOOKS}/${book.id}/modifiers`, {
      json: {
        data: {
          attributes: { name: 'large', modifier_type: 'price_increment', currencies: usd(50) },
        },
      },
    });
    const plain = await service.call('GET', `${BOOKS}/${book.id}`);
    expect(plain.body).not.toHaveProperty('included');
    const withPrices = await service.call('GET', `${BOOKS}/${book.id}?include=prices`);
    expect(
      withPrices.body.included.map((p: { attributes: { sku: string } }) => p.attributes.sku),
    ).toEqual(['inc-1', 'inc-2']);
    expect((await service.call('DELETE', `${BOOKS}/${book.id}`)).status).toBe(204);
    const left = await service.call('GET', `${BOOKS}/prices?filter=in(sku,inc-1,inc-2)`);
    expect(left.body.meta.results.total).toBe(0);
    expect((await service.call('GET', `${BOOKS}/${book.id}/modifiers`)).status).toBe(404);
  });
});

describe('replicating a price book', () => {
  it('copies the book with every price and modifier, under new ids', async () => {
    const source = await createBook({ name: 'Summer', description: 'S', external_ref: 'summer' });
    const sales = {
      july: {
        schedule: { valid_from: '2030-07-01T00:00:00Z', valid_to: '2030-08-01T00:00:00Z' },
        currencies: usd(80),
      },
    };
    const price = (await createPrice(source.id, { sku: 'rep-1', currencies: usd(100), sales })).body
      .data;
    await createPrice(source.id, { sku: 'rep-2', currencies: usd(300) });
    await service.call('POST', `${BOOKS}/${source.id}/modifiers`, {
      json: {
        data: { attributes: { name: 'xl', modifier_type: 'price_equals', currencies: usd(999) } },
      },
    });
    const result = await service.call('POST', `${BOOKS}/${source.id}/replicate`, {
      json: { data: { type: 'pricebook', attributes: { name: 'Summer copy' } } },
    });
    expect(result.status).toBe(201);
    const copy = result.body.data;
    expect(copy.id).not.toBe(source.id);
    expect(copy.attributes).toMatchObject({
      name: 'Summer copy',
      description: 'S',
      external_ref: 'summer',
    });
    const prices = (await service.call('GET', `${BOOKS}/${copy.id}/prices`)).body.data;
    // The copies share one creation time, so the list orders them by id: compare by SKU.
    type Listed = {
      id: string;
      attributes: { sku: string; sales: unknown };
      meta: { pricebook_id: string };
    };
    const bySku = new Map((prices as Listed[]).map((p) => [p.attributes.sku, p]));
    expect([...bySku.keys()].sort()).toEqual(['rep-1', 'rep-2']);
    const copied = bySku.get('rep-1');
    expect(copied?.id).not.toBe(price.id);
    expect(copied?.attributes.sales).toEqual(price.attributes.sales);
    expect(copied?.meta.pricebook_id).toBe(copy.id);
    const modifiers = (await service.call('GET', `${BOOKS}/${copy.id}/modifiers`)).body.data;
    expect(modifiers.map((m: { attributes: { name: string } }) => m.attributes.name)).toEqual([
      'xl',
    ]);
    // The source is untouched.
    expect(
      (await service.call('GET', `${BOOKS}/${source.id}/prices`)).body.meta.results.total,
    ).toBe(2);
  });

  it('refuses a bad body, an unknown book, and writes nothing', async () => {
    const source = await createBook({ name: 'Refused' });
    const before = (await service.call('GET', BOOKS)).body.meta.results.total;
    const bad = await service.call('POST', `${BOOKS}/${source.id}/replicate`, {
      json: { data: { type: 'pricebook', attributes: { name: '' } } },
    });
    expect(errorOf(bad)).toMatchObject({ status: 400, source: 'data.attributes.name' });
    expect(errorOf(await service.call('POST', `${BOOKS}/${UNKNOWN}/replicate`)).status).toBe(404);
    expect((await service.call('GET', BOOKS)).body.meta.results.total).toBe(before);
  });
});

describe('a replicate that fails half-way', () => {
  it('leaves no book, price or modifier behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replicate-'));
    const dbPath = join(dir, 'service.db');
    const own = await startService({ dbPath });
    try {
      const book = (
        await own.call('POST', BOOKS, { json: { data: { attributes: { name: 'Big' } } } })
      ).body.data;
      for (let i = 0; i < 5; i++) {
        await own.call('POST', `${BOOKS}/${book.id}/prices`, {
          json: { data: { attributes: { sku: `half-${i}`, currencies: usd(100 + i) } } },
        });
      }
      // The fourth copied price fails, after the book and three prices were inserted.
      const side = new DatabaseSync(dbPath);
      side.exec(`CREATE TRIGGER fail_fourth BEFORE INSERT ON prices
        WHEN NEW.sku = 'half-3' AND NEW.pricebook_id != '${book.id}'
        BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
      side.close();
      const result = await own.call('POST', `${BOOKS}/${book.id}/replicate`);
      expect(result.status).toBe(500);
      const books = await own.call('GET', BOOKS);
      expect(books.body.data.map((b: { id: string }) => b.id)).toEqual([book.id]);
      const prices = await own.call('GET', `${BOOKS}/prices`);
      expect(prices.body.meta.results.total).toBe(5);
    } finally {
      await own.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('who may use price books', () => {
  it('refuses an implicit token every route, reads included', async () => {
    const book = await createBook();
    const implicit = await service.token('alpha', 'implicit');
    for (const [method, path] of [
      ['GET', BOOKS],
      ['GET', `${BOOKS}/${book.id}`],
      ['GET', `${BOOKS}/${book.id}/prices`],
      ['GET', `${BOOKS}/prices`],
      ['GET', `${BOOKS}/${book.id}/modifiers`],
      ['POST', BOOKS],
      ['DELETE', `${BOOKS}/${book.id}`],
    ] as const) {
      const result = await service.call(method, path, { token: implicit });
      expect(result.status, `${method} ${path}`).toBe(403);
      expect(errorOf(result).detail).toContain('client_credentials');
    }
    expect((await service.call('GET', BOOKS, { token: null })).status).toBe(401);
  });

  it('keeps each store’s price books its own', async () => {
    const book = await createBook();
    const beta = await service.token('beta');
    expect((await service.call('GET', `${BOOKS}/${book.id}`, { token: beta })).status).toBe(404);
    const list = await service.call('GET', BOOKS, { token: beta });
    expect(list.body.data).toEqual([]);
  });
});
