/**
 * Integrations through the gateway only: a merchandiser creates a webhook, a shopper checks out,
 * the receiver (node:http on port 0) gets `order.created` with the secret header; the webhook is
 * listed, looked up, changed and deleted; bad inputs are refused before any upstream call; the
 * secret is never readable. Export jobs are listed and looked up.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KNOWN_EVENTS } from '../../src/commerce-service/integrations/events.ts';
import { INTEGRATION_EVENTS } from '../../src/schema/integration-mutations.ts';
import { type Stack, startStack } from '../support/harness.ts';
import { type Json, rest, userError } from './fixtures.ts';

let stack: Stack;
let hookUrl: string;
const received: { headers: IncomingMessage['headers']; body: Json }[] = [];
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    received.push({ headers: request.headers, body: JSON.parse(Buffer.concat(chunks).toString()) });
    response.writeHead(200).end();
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/orders`;
  stack = await startStack();
});
afterAll(async () => {
  await stack?.close();
  receiver.closeAllConnections();
  receiver.close();
});

const FIELDS = 'id upstreamId name description enabled integrationType url observes';
const CREATE = `mutation($input: CreateIntegrationInput!) {
  createIntegration(input: $input) { integration { ${FIELDS} } userErrors { code field message } }
}`;
const ADDRESS = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  line1: '1 Road',
  region: 'London',
  postcode: 'N1',
  country: 'GB',
};

async function gql(query: string, variables?: Record<string, unknown>, token?: string) {
  const result = await stack.graphql(query, variables, token ? { token } : {});
  return result.body;
}

describe('integrations through the gateway', () => {
  it('creates a webhook that receives order.created for a checkout made through the gateway', async () => {
    const created = await gql(CREATE, {
      input: {
        name: 'Order feed',
        observes: ['order.created', 'order.created'],
        url: hookUrl,
        secretKey: 'gateway-secret',
      },
    });
    expect(created.errors).toBeUndefined();
    const integration = created.data.createIntegration.integration;
    expect(integration).toMatchObject({
      name: 'Order feed',
      enabled: true,
      integrationType: 'webhook',
      url: hookUrl,
      observes: ['order.created'],
    });
    expect(JSON.stringify(created)).not.toContain('gateway-secret');

    const cart = await gql('mutation { createCart(input: { name: "c" }) { cart { upstreamId } } }');
    const cartId = cart.data.createCart.cart.upstreamId;
    await gql(
      `mutation($id: ID!) { addCartCustomItem(input: { cartId: $id, name: "Mug", sku: "mug",
        quantity: 1, price: { amount: 700 } }) { cart { upstreamId } } }`,
      { id: cartId },
    );
    const order = await gql(
      `mutation($input: CheckoutCartInput!) { checkoutCart(input: $input) { order { upstreamId } } }`,
      {
        input: {
          cartId,
          customer: { name: 'Ada', email: 'ada@example.com' },
          billingAddress: ADDRESS,
        },
      },
    );
    expect(order.errors).toBeUndefined();
    const orderId = order.data.checkoutCart.order.upstreamId;
    for (let i = 0; i < 250 && received.length === 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(received).toHaveLength(1);
    expect(received[0]?.headers['x-moltin-secret-key']).toBe('gateway-secret');
    expect(received[0]?.body).toMatchObject({
      triggered_by: 'order.created',
      integration: { id: integration.upstreamId, name: 'Order feed' },
      payload: { data: { id: orderId } },
    });

    const listed = await gql(`{ integrations(first: 10) { totalCount nodes { ${FIELDS} } } }`);
    expect(listed.data.integrations.totalCount).toBe(1);
    expect(listed.data.integrations.nodes[0].id).toBe(integration.id);
    const one = await gql(
      `query($id: ID!) { integration(id: $id) { name } node(id: "${
        integration.id
      }") { ... on Integration { url } } }`,
      { id: integration.upstreamId },
    );
    expect(one.data).toEqual({ integration: { name: 'Order feed' }, node: { url: hookUrl } });

    const updated = await gql(
      `mutation($input: UpdateIntegrationInput!) {
        updateIntegration(input: $input) { integration { name enabled observes } } }`,
      {
        input: {
          integrationId: integration.upstreamId,
          name: 'Renamed',
          enabled: false,
          observes: ['cart.updated', 'wishlist_ext.created'],
        },
      },
    );
    expect(updated.data.updateIntegration.integration).toEqual({
      name: 'Renamed',
      enabled: false,
      observes: ['cart.updated', 'wishlist_ext.created'],
    });
    const deleted = await gql(
      `mutation($id: ID!) { deleteIntegration(input: { integrationId: $id }) { deletedId } }`,
      { id: integration.upstreamId },
    );
    expect(deleted.data.deleteIntegration.deletedId).toBe(integration.upstreamId);
    expect(
      (await gql(`{ integrations(first: 10) { totalCount } }`)).data.integrations.totalCount,
    ).toBe(0);
  });

  it('refuses bad integration input before any upstream call', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ url: 'ftp://example.com/' }, 'input.url'],
      [{ url: 'javascript:alert(1)' }, 'input.url'],
      [{ url: 'http://user:pass@example.com/' }, 'input.url'],
      [{ url: `http://example.com/${'a'.repeat(2100)}` }, 'input.url'],
      [{ observes: [] }, 'input.observes'],
      [{ observes: ['order.exploded'] }, 'input.observes[0]'],
      [{ observes: Array.from({ length: 51 }, () => 'order.created') }, 'input.observes'],
      [{ name: ' ' }, 'input.name'],
      [{ name: 'n'.repeat(256) }, 'input.name'],
      [{ description: 'd'.repeat(1001) }, 'input.description'],
      [{ secretKey: '' }, 'input.secretKey'],
    ];
    const before = stack.upstreamRequests.length;
    for (const [change, field] of bad) {
      const input = { name: 'x', observes: ['order.created'], url: hookUrl, ...change };
      const result = await gql(CREATE, { input });
      expect(userError(result, 'createIntegration'), JSON.stringify(change)).toMatchObject({
        code: 'BAD_USER_INPUT',
        field,
      });
    }
    const noChange = await gql(
      `mutation { updateIntegration(input: { integrationId: "00000000-0000-4000-8000-000000000000" }) { integration { id } userErrors { code } } }`,
    );
    expect(userError(noChange, 'updateIntegration')?.code).toBe('BAD_USER_INPUT');
    // Only the token was fetched (once, for the first operation).
    const calls = stack.upstreamRequests.slice(before).filter((r) => !r.url.startsWith('/oauth'));
    expect(calls).toEqual([]);
  });

  it('lists and looks up order export jobs', async () => {
    const queued = await rest(stack, 'POST', '/jobs', {
      data: { type: 'job', job_type: 'order_export' },
    });
    expect(queued.status).toBe(202);
    let job: Json;
    for (let i = 0; i < 250; i += 1) {
      const read = await gql(`query($id: ID!) { exportJob(id: $id) { status jobType fileHref } }`, {
        id: queued.body.data.id,
      });
      job = read.data.exportJob;
      if (job.status === 'complete') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(job).toEqual({
      status: 'complete',
      jobType: 'order_export',
      fileHref: `/v2/jobs/${queued.body.data.id}/file/content`,
    });
    const listed = await gql('{ exportJobs(first: 5) { totalCount nodes { upstreamId } } }');
    expect(listed.data.exportJobs.nodes.map((n: Json) => n.upstreamId)).toContain(
      queued.body.data.id,
    );
  });
});

describe('the events an integration may observe', () => {
  it('are the ones the embedded service sends, no more and no fewer', () => {
    expect([...INTEGRATION_EVENTS].sort()).toEqual([...KNOWN_EVENTS].sort());
  });
});
