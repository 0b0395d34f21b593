/**
 * The official `@elasticpath/js-sdk`, unchanged, against the embedded service: its Promotions
 * and RulePromotions calls (create, list, read, update, codes added, listed and deleted,
 * delete) and its cart calls for codes (AddPromotion, RemovePromotion), with the bodies and
 * paths the SDK itself builds.
 */
import { gateway, MemoryStorageFactory } from '@elasticpath/js-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
let sdk: ReturnType<typeof gateway>;
// The SDK's types describe production's promotion bodies partly; the calls are what is tested.
let anySdk: any;

beforeAll(async () => {
  service = await startService();
  const url = new URL(service.url);
  sdk = gateway({
    client_id: 'alpha',
    client_secret: 'alpha-secret',
    host: url.host,
    protocol: 'http',
    storage: new MemoryStorageFactory(),
    fetchMaxAttempts: 1,
  } as Parameters<typeof gateway>[0]);
  anySdk = sdk;
});
afterAll(() => service?.close());

const WINDOW = { start: '2020-01-01T00:00:00Z', end: '2099-01-01T00:00:00Z' };

describe('js-sdk Promotions', () => {
  it('creates, lists, reads, updates a promotion, manages its codes, deletes it', async () => {
    const created = await anySdk.Promotions.Create({
      name: 'SDK ten',
      description: 'made by the SDK',
      enabled: true,
      automatic: false,
      promotion_type: 'fixed_discount',
      schema: { currencies: [{ currency: 'USD', amount: 1000 }] },
      ...WINDOW,
    });
    const id = created.data.id;
    expect(created.data).toMatchObject({ type: 'promotion', name: 'SDK ten' });
    const listed = await anySdk.Promotions.All();
    expect(listed.data.map((p: { id: string }) => p.id)).toContain(id);
    expect((await anySdk.Promotions.Get(id)).data.name).toBe('SDK ten');
    const updated = await anySdk.Promotions.Update(id, { name: 'SDK ten off' });
    expect(updated.data.name).toBe('SDK ten off');

    const added = await anySdk.Promotions.AddCodes(id, [
      { code: 'SDK10', uses: 5 },
      { code: 'X1' },
    ]);
    expect(added.data.map((c: { code: string }) => c.code)).toEqual(['SDK10', 'X1']);
    const codes = await anySdk.Promotions.Codes(id);
    expect(codes.data.find((c: { code: string }) => c.code === 'SDK10')).toMatchObject({
      uses: 5,
      max_uses: 5,
    });
    await anySdk.Promotions.DeleteCodes(id, [{ code: 'X1' }]);
    expect((await anySdk.Promotions.Codes(id)).data.map((c: { code: string }) => c.code)).toEqual([
      'SDK10',
    ]);

    // A shopper's cart takes the code and gives it back, through the SDK's cart calls.
    const made = await sdk.Cart().CreateCart({ name: 'SDK cart' } as never);
    const cart = sdk.Cart(made.data.id);
    await cart.AddCustomItem({
      type: 'custom_item',
      name: 'Kettle',
      sku: 'KET',
      quantity: 1,
      price: { amount: 5000 },
    } as never);
    const applied = await cart.AddPromotion('sdk10');
    expect(applied.meta.display_price.with_tax.amount).toBe(4000);
    const removed = await cart.RemovePromotion('SDK10');
    expect((removed as any).meta.display_price.with_tax.amount).toBe(5000);

    const [first] = (await anySdk.Promotions.Codes(id)).data;
    await anySdk.Promotions.DeleteCode(id, first.id);
    expect((await anySdk.Promotions.Codes(id)).data).toEqual([]);
    await anySdk.Promotions.Delete(id);
    await expect(anySdk.Promotions.Get(id)).rejects.toMatchObject({
      errors: [expect.objectContaining({ status: 404 })],
    });
  });
});

describe('js-sdk RulePromotions', () => {
  it('creates, reads, updates a rule promotion and manages its codes', async () => {
    const created = await anySdk.RulePromotions.Create({
      name: 'SDK rule',
      description: '',
      enabled: true,
      automatic: false,
      priority: 2,
      stackable: true,
      rule_set: {
        currencies: ['USD'],
        rules: { strategy: 'cart_total', operator: 'gte', args: [1000] },
        actions: [{ strategy: 'cart_discount', args: ['percent', 15] }],
      },
      ...WINDOW,
    });
    const id = created.data.id;
    expect(created.data).toMatchObject({ type: 'rule_promotion', priority: 2 });
    const updated = await anySdk.RulePromotions.Update(id, { priority: 3 });
    expect(updated.data.priority).toBe(3);
    await anySdk.RulePromotions.AddCodes(id, [{ code: 'Rule15' }]);
    const codes = await anySdk.RulePromotions.Codes(id);
    expect(codes.data.map((c: { code: string }) => c.code)).toEqual(['Rule15']);
    expect((await anySdk.RulePromotions.Get(id)).data.rule_set.actions).toHaveLength(1);
    const listed = await anySdk.RulePromotions.All();
    expect(listed.data.map((p: { id: string }) => p.id)).toContain(id);
  });
});
