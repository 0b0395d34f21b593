/**
 * Every event the service sends reaches a webhook observing it, with the resource the change
 * produced: customers, accounts, carts, catalog releases, stock transactions and Custom API
 * entries (created, updated, deleted with only type and id). Over real sockets to a receiver
 * on port 0.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomApi, type ServiceUnderTest, startService } from './service-helpers.ts';

let service: ServiceUnderTest;
const received: { triggered_by: string; payload: any }[] = [];
const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    received.push(JSON.parse(Buffer.concat(chunks).toString()));
    response.writeHead(200).end();
  });
});

const EVENTS = [
  'customer.created',
  'account.created',
  'account-member.created',
  'account-membership.created',
  'cart.updated',
  'catalog-release.created',
  'stock-transaction.created',
  'order.created',
  'wishlist_ext.created',
  'wishlist_ext.updated',
  'wishlist_ext.deleted',
];

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  service = await startService({ webhooks: { retryDelayMs: 20, pollMs: 50 } });
  const port = (server.address() as AddressInfo).port;
  const made = await service.call('POST', '/v2/integrations', {
    json: {
      data: {
        type: 'integration',
        name: 'Everything',
        integration_type: 'webhook',
        observes: EVENTS,
        configuration: { url: `http://127.0.0.1:${port}/` },
      },
    },
  });
  expect(made.status).toBe(201);
});
afterAll(async () => {
  await service?.close();
  server.closeAllConnections();
  server.close();
});

async function eventFor(name: string, match: (payload: any) => boolean) {
  const until = Date.now() + 5000;
  for (;;) {
    const found = received.find((event) => event.triggered_by === name && match(event.payload));
    if (found) return found.payload;
    if (Date.now() > until) throw new Error(`no ${name} event`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function create(path: string, data?: unknown): Promise<any> {
  const result = await service.call('POST', path, data === undefined ? {} : { json: { data } });
  if (result.status >= 300) throw new Error(`${path}: ${JSON.stringify(result.body)}`);
  return result.body.data;
}

describe('the events a webhook observes', () => {
  it('sends customer.created and account.created with the new record', async () => {
    const customer = await create('/v2/customers', {
      type: 'customer',
      name: 'Ann',
      email: 'ann@example.com',
      password: 'secret-pw-1',
    });
    const payload = await eventFor('customer.created', (p) => p.data.id === customer.id);
    expect(payload.data.email).toBe('ann@example.com');
    expect(JSON.stringify(payload)).not.toContain('secret-pw-1');
    const account = await create('/v2/accounts', { type: 'account', name: 'Acme' });
    expect((await eventFor('account.created', (p) => p.data.id === account.id)).data.name).toBe(
      'Acme',
    );
  });

  it('sends account-member.created and account-membership.created', async () => {
    const settings = await service.call('GET', '/v2/settings/account-authentication');
    const realm = settings.body.data.relationships.authentication_realm.data.id;
    const member = await create(`/v2/authentication-realms/${realm}/user-authentication-info`, {
      type: 'user_authentication_info',
      name: 'Mia',
      email: 'mia@example.com',
    });
    const memberEvent = await eventFor('account-member.created', (p) => p.data.id === member.id);
    expect(memberEvent.data).toMatchObject({ type: 'account_member', email: 'mia@example.com' });
    const account = await create('/v2/accounts', { type: 'account', name: 'Mia Co' });
    const membership = await create(`/v2/accounts/${account.id}/account-memberships`, {
      type: 'account_membership',
      account_member_id: member.id,
    });
    const joined = await eventFor('account-membership.created', (p) => p.data.id === membership.id);
    expect(joined.data.relationships.account_member.data.id).toBe(member.id);
  });

  it('sends cart.updated with the cart and its items after an item is added', async () => {
    const cart = await create('/v2/carts', { name: 'c' });
    await create(`/v2/carts/${cart.id}/items`, {
      type: 'custom_item',
      name: 'Mug',
      sku: 'mug',
      quantity: 2,
      price: { amount: 500 },
    });
    const payload = await eventFor(
      'cart.updated',
      (p) => p.data.id === cart.id && p.included.items.length === 1,
    );
    expect(payload.included.items[0].quantity).toBe(2);
    expect(payload.data.meta.display_price.with_tax.amount).toBe(1000);
  });

  it('sends catalog-release.created and stock-transaction.created', async () => {
    const hierarchy = await create('/pcm/hierarchies', {
      type: 'hierarchy',
      attributes: { name: 'Range' },
    });
    const catalog = await create('/catalogs', {
      type: 'catalog',
      attributes: { name: 'Shop', hierarchy_ids: [hierarchy.id] },
    });
    const release = await create(`/catalogs/${catalog.id}/releases`);
    expect(
      (await eventFor('catalog-release.created', (p) => p.data.id === release.id)).data.type,
    ).toBe('catalog-release');

    const product = await create('/pcm/products', {
      type: 'product',
      attributes: { name: 'Stocked', commodity_type: 'physical', status: 'draft' },
    });
    await create(`/v2/inventories/${product.id}`, { quantity: 5 });
    const move = await create(`/v2/inventories/${product.id}/transactions`, {
      type: 'stock-transaction',
      action: 'allocate',
      quantity: 2,
    });
    const payload = await eventFor('stock-transaction.created', (p) => p.data.id === move.id);
    expect(payload.data).toMatchObject({ action: 'allocate', quantity: 2, product_id: product.id });
  });

  it('sends the Custom API entry events; a deletion carries only type and id', async () => {
    await createCustomApi(service);
    const entry = await create('/v2/extensions/wishlists', { type: 'wishlist_ext' });
    await eventFor('wishlist_ext.created', (p) => p.data.id === entry.id);
    const put = await service.call('PUT', `/v2/extensions/wishlists/${entry.id}`, {
      json: { data: { type: 'wishlist_ext' } },
    });
    expect(put.status).toBe(200);
    await eventFor('wishlist_ext.updated', (p) => p.data.id === entry.id);
    expect((await service.call('DELETE', `/v2/extensions/wishlists/${entry.id}`)).status).toBe(204);
    const gone = await eventFor('wishlist_ext.deleted', (p) => p.data.id === entry.id);
    expect(gone.data).toEqual({ type: 'wishlist_ext', id: entry.id });
  });
});
