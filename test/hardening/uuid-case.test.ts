/**
 * Upstream ids are uuids, and uuids are case-insensitive: an id written in upper case finds the
 * same record as the lower-case one on every field that takes one (lookups, `node`/`nodes`,
 * `_entities`, entries, filters), and comes back in the upstream's lower case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/harness.ts';

let stack: Stack;
let ids: { order: string; api: string; entry: string; file: string; account: string };

const globalId = (type: string, id: string) => Buffer.from(`${type}:${id}`).toString('base64');
const upper = (id: string) => id.toUpperCase();

beforeAll(async () => {
  stack = await startStack({ seed: true, seedOptions: { orders: 20 } });
  const first = await stack.graphql(`{
    orders(first: 1) { nodes { upstreamId } }
    customApis(first: 1) { nodes { upstreamId entries(first: 1) { nodes { upstreamId } } } }
    files(first: 1) { nodes { upstreamId } }
    accounts(first: 1) { nodes { upstreamId } }
  }`);
  expect(first.body.errors).toBeUndefined();
  const data = first.body.data;
  ids = {
    order: data.orders.nodes[0].upstreamId,
    api: data.customApis.nodes[0].upstreamId,
    entry: data.customApis.nodes[0].entries.nodes[0].upstreamId,
    file: data.files.nodes[0].upstreamId,
    account: data.accounts.nodes[0].upstreamId,
  };
  for (const id of Object.values(ids)) expect(id).toMatch(/^[0-9a-f-]{36}$/);
});
afterAll(() => stack?.close());

describe('upper-case uuids', () => {
  it('find the record on every field that takes an id, answered in lower case', async () => {
    const result = await stack.graphql(
      `query($order: ID!, $api: ID!, $entry: ID!, $file: ID!, $account: ID!,
             $orderNode: ID!, $entryNode: ID!, $representations: [_Any!]!) {
        order(id: $order) { upstreamId }
        customApi(id: $api) { upstreamId }
        customApiEntry(customApiId: $api, id: $entry) { upstreamId }
        file(id: $file) { upstreamId }
        account(id: $account) { upstreamId }
        node(id: $orderNode) { ... on Order { upstreamId } }
        nodes(ids: [$orderNode, $entryNode]) {
          ... on Order { upstreamId }
          ... on CustomApiEntry { upstreamId }
        }
        _entities(representations: $representations) {
          ... on Order { upstreamId }
          ... on CustomApi { upstreamId }
          ... on CustomApiEntry { upstreamId }
        }
        byFilter: orders(first: 5, filter: { id: { eq: $order } }) { nodes { upstreamId } }
        byIn: orders(first: 5, filter: { id: { in: [$order] } }) { nodes { upstreamId } }
      }`,
      {
        order: upper(ids.order),
        api: upper(ids.api),
        entry: upper(ids.entry),
        file: upper(ids.file),
        account: upper(ids.account),
        orderNode: globalId('Order', upper(ids.order)),
        entryNode: globalId('CustomApiEntry', `${upper(ids.api)}:${upper(ids.entry)}`),
        representations: [
          { __typename: 'Order', upstreamId: upper(ids.order) },
          { __typename: 'CustomApi', upstreamId: upper(ids.api) },
          {
            __typename: 'CustomApiEntry',
            customApiId: upper(ids.api),
            upstreamId: upper(ids.entry),
          },
        ],
      },
    );
    expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
    expect(result.body.data).toEqual({
      order: { upstreamId: ids.order },
      customApi: { upstreamId: ids.api },
      customApiEntry: { upstreamId: ids.entry },
      file: { upstreamId: ids.file },
      account: { upstreamId: ids.account },
      node: { upstreamId: ids.order },
      nodes: [{ upstreamId: ids.order }, { upstreamId: ids.entry }],
      _entities: [{ upstreamId: ids.order }, { upstreamId: ids.api }, { upstreamId: ids.entry }],
      byFilter: { nodes: [{ upstreamId: ids.order }] },
      byIn: { nodes: [{ upstreamId: ids.order }] },
    });
  });
});
