/**
 * The official `@elasticpath/js-sdk`, unchanged, against the embedded service: its PriceBooks
 * (with Prices and PriceModifiers), Inventories and MultiLocationInventories calls, each with
 * the bodies, paths and headers the SDK itself builds. Where the SDK's forms differ from the
 * notes (the multi-location transaction with its type inside `attributes`, the
 * `ep-inventories-multi-location` header), the service accepts the SDK's.
 */
import { randomUUID } from 'node:crypto';
import { gateway, MemoryStorageFactory } from '@elasticpath/js-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
let sdk: ReturnType<typeof gateway>;

beforeAll(async () => {
  service = await startService();
  const url = new URL(service.url);
  // `protocol` is read by the SDK but missing from its ConfigOptions type.
  const config = {
    client_id: 'alpha',
    client_secret: 'alpha-secret',
    host: url.host,
    protocol: 'http',
    storage: new MemoryStorageFactory(),
    // A refusal is an answer, not a reason to retry.
    fetchMaxAttempts: 1,
  };
  sdk = gateway(config);
});
afterAll(() => service?.close());

/** The error document an SDK call rejected with. */
async function rejection(
  call: Promise<unknown>,
): Promise<{ errors: { status: number; source?: string }[] }> {
  try {
    await call;
  } catch (error) {
    return error as { errors: { status: number; source?: string }[] };
  }
  throw new Error('expected the call to be refused');
}

describe('js-sdk PriceBooks', () => {
  it('creates, lists, reads, updates and deletes a price book', async () => {
    const created = await sdk.PriceBooks.Create({
      type: 'pricebook',
      attributes: { name: 'SDK book', description: 'made by the SDK', external_ref: 'sdk-1' },
    });
    const id = created.data.id;
    expect(created.data.attributes).toMatchObject({ name: 'SDK book', external_ref: 'sdk-1' });
    const listed = await sdk.PriceBooks.Filter({ eq: { external_ref: 'sdk-1' } }).All();
    expect(listed.data.map((b) => b.id)).toEqual([id]);
    expect((await sdk.PriceBooks.Get(id)).data.attributes.name).toBe('SDK book');
    const updated = await sdk.PriceBooks.Update(id, {
      id,
      type: 'pricebook',
      attributes: { name: 'SDK book 2' },
    });
    expect(updated.data.attributes).toMatchObject({
      name: 'SDK book 2',
      description: 'made by the SDK',
    });
    await sdk.PriceBooks.Delete(id);
    const gone = await rejection(sdk.PriceBooks.Get(id));
    expect(gone.errors[0]?.status).toBe(404);
  });

  it('manages prices and price modifiers through PriceBooks.Prices and PriceBooks.PriceModifiers', async () => {
    const pricebookId = (
      await sdk.PriceBooks.Create({ type: 'pricebook', attributes: { name: 'Prices' } })
    ).data.id;
    const body = {
      type: 'product-price' as const,
      attributes: {
        sku: 'sdk-mug',
        currencies: {
          USD: {
            amount: 1500,
            includes_tax: false,
            tiers: { bulk: { minimum_quantity: 10, amount: 1200 } },
          },
          EUR: { amount: 1400, includes_tax: true },
        },
        sales: {
          spring: {
            schedule: { valid_from: '2030-03-01T00:00:00Z', valid_to: '2030-04-01T00:00:00Z' },
            currencies: { USD: { amount: 1300, includes_tax: false } },
          },
        },
      },
    };
    const price = (await sdk.PriceBooks.Prices.Create({ pricebookId, body } as never)).data;
    expect(price.attributes.currencies.USD?.tiers?.bulk?.amount).toBe(1200);
    const duplicate = await rejection(sdk.PriceBooks.Prices.Create({ pricebookId, body } as never));
    expect(duplicate.errors[0]?.status).toBe(409);
    // The SDK types the include as 'price'; the API (and this service) takes 'prices'.
    const withPrices = (await sdk.PriceBooks.With('prices' as never).Get(
      pricebookId,
    )) as unknown as {
      included: { id: string }[];
    };
    expect(withPrices.included.map((p) => p.id)).toEqual([price.id]);
    const all = await sdk.PriceBooks.Prices.Filter({ eq: { sku: 'sdk-mug' } } as never).All({
      pricebookId,
    });
    expect(all.data.map((p) => p.id)).toEqual([price.id]);
    expect(
      (await sdk.PriceBooks.Prices.Get({ pricebookId, priceId: price.id })).data.attributes.sku,
    ).toBe('sdk-mug');
    const updated = await sdk.PriceBooks.Prices.Update({
      pricebookId,
      priceId: price.id,
      body: {
        ...price,
        attributes: {
          ...price.attributes,
          currencies: { USD: { amount: 1600, includes_tax: false } },
        },
      },
    } as never);
    expect(updated.data.attributes.currencies).toEqual({
      USD: { amount: 1600, includes_tax: false },
    });
    await sdk.PriceBooks.Prices.Delete({ pricebookId, priceId: price.id });

    const modifier = (
      await sdk.PriceBooks.PriceModifiers.Create({
        pricebookId,
        body: {
          type: 'product-price',
          attributes: {
            name: 'large',
            modifier_type: 'price_increment',
            currencies: { USD: { amount: 200, includes_tax: false } },
          },
        },
      } as never)
    ).data;
    expect(modifier.type).toBe('price-modifier');
    expect(
      (await sdk.PriceBooks.PriceModifiers.All({ pricebookId })).data.map((m) => m.id),
    ).toEqual([modifier.id]);
    const changed = await sdk.PriceBooks.PriceModifiers.Update({
      pricebookId,
      priceModifierId: modifier.id,
      body: {
        ...modifier,
        attributes: { ...modifier.attributes, modifier_type: 'price_decrement' },
      },
    } as never);
    expect(changed.data.attributes.modifier_type).toBe('price_decrement');
    expect(
      (await sdk.PriceBooks.PriceModifiers.Get({ pricebookId, priceModifierId: modifier.id })).data
        .id,
    ).toBe(modifier.id);
    await sdk.PriceBooks.PriceModifiers.Delete({ pricebookId, priceModifierId: modifier.id });
    expect((await sdk.PriceBooks.PriceModifiers.All({ pricebookId })).data).toEqual([]);
  });
});

/** Stock is kept for products of the store: one made through the SDK's PCM calls. */
async function sdkProduct(name: string): Promise<string> {
  const created = await (sdk.PCM.Create as (body: unknown) => Promise<{ data: { id: string } }>)({
    attributes: { name, commodity_type: 'physical', status: 'live' },
  });
  return created.data.id;
}

describe('js-sdk Inventories', () => {
  it('creates stock, moves it with each transaction call, and reads it back', async () => {
    const productId = await sdkProduct('SDK stocked');
    const created = await sdk.Inventories.Create(productId, 10);
    expect(created.data).toMatchObject({
      id: productId,
      type: 'stock',
      total: 10,
      available: 10,
      allocated: 0,
    });
    await sdk.Inventories.IncrementStock(productId, 5);
    await sdk.Inventories.AllocateStock(productId, 4);
    await sdk.Inventories.DeallocateStock(productId, 1);
    const decrement = await sdk.Inventories.DecrementStock(productId, 2);
    expect(decrement.data).toMatchObject({
      action: 'decrement',
      product_id: productId,
      quantity: 2,
    });
    const short = await rejection(sdk.Inventories.AllocateStock(productId, 100));
    expect(short.errors[0]).toMatchObject({ status: 400, source: 'data.quantity' });
    expect((await sdk.Inventories.Get(productId)).data).toMatchObject({
      total: 13,
      available: 10,
      allocated: 3,
    });
    const transactions = await sdk.Inventories.GetTransactions(productId);
    expect(transactions.data.map((t) => t.action)).toEqual([
      'increment',
      'allocate',
      'deallocate',
      'decrement',
    ]);
    const one = await sdk.Inventories.GetTransaction(productId, decrement.data.id);
    expect(one.data.id).toBe(decrement.data.id);
    const several = await sdk.Inventories.GetMultipleStock([productId, randomUUID()]);
    expect(several.data.map((s) => s.id)).toEqual([productId]);
    expect((await sdk.Inventories.All()).data.map((s) => s.id)).toContain(productId);
    await sdk.Inventories.Delete(productId);
    expect((await rejection(sdk.Inventories.Get(productId))).errors[0]?.status).toBe(404);
  });

  it('reads stock and locations the multi-location way, as the reference storefront does', async () => {
    const productId = await sdkProduct('SDK located');
    const created = await sdk.MultiLocationInventories.Create({ available: 8 }, productId);
    expect(created.data.attributes).toMatchObject({ available: 8, allocated: 0, total: 8 });
    await sdk.MultiLocationInventories.AllocateStock(productId, 3);
    const stock = await sdk.MultiLocationInventories.Get(productId);
    expect(stock.data).toMatchObject({
      id: productId,
      type: 'stock',
      attributes: { available: 5, allocated: 3, total: 8, locations: {} },
    });
    const moves = await sdk.MultiLocationInventories.GetTransactions(productId);
    expect(moves.data.map((t) => t.attributes.action)).toEqual(['allocate']);
    const location = await sdk.MultiLocationInventories.Locations.Create({
      name: 'Leeds depot',
      slug: 'leeds',
    } as never);
    const locations = await sdk.MultiLocationInventories.Locations.All();
    expect(locations.data.map((l) => l.id)).toEqual([location.data.id]);
    const perLocation = await rejection(
      sdk.MultiLocationInventories.IncrementStock(productId, 1, 'leeds'),
    );
    expect(perLocation.errors[0]).toMatchObject({
      status: 400,
      source: 'data.attributes.location',
    });
    await sdk.MultiLocationInventories.Locations.Delete(location.data.id);
  });
});
