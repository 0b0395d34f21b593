/**
 * The reference the hot path is judged against: the gateway anyone would write in an afternoon
 * with the same stack — one file, graphql-yoga + Pothos (relay plugin) + an undici Pool, the
 * caller's Authorization forwarded, an `orders` connection paged by offset (first ≤ 100), and
 * none of commerce-gateway's features: no resilience, budget, pinned cursors, loaders, limits,
 * CSRF, masking of its own, health or logs. Bench use only (bench/peers.ts), never product code.
 *
 *   UPSTREAM_URL=http://127.0.0.1:4010 PORT=4100 node scripts/ts.mjs bench/naive-gateway.ts
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import SchemaBuilder from '@pothos/core';
import RelayPlugin, { resolveOffsetConnection } from '@pothos/plugin-relay';
import { createYoga } from 'graphql-yoga';
import { Pool } from 'undici';

interface Money {
  amount: number;
  currency: string;
  formatted: string;
}
interface Order {
  id: string;
  status: string;
  payment?: string;
  shipping?: string;
  customer?: { name?: string; email?: string };
  meta: {
    display_price: { with_tax: Money };
    timestamps: { created_at: string; updated_at: string };
  };
}

const upstreamUrl = new URL(process.env.UPSTREAM_URL ?? 'http://127.0.0.1:4010');
const pool = new Pool(upstreamUrl.origin, { connections: 64 });

const builder = new SchemaBuilder<{ Context: { authorization: string } }>({
  plugins: [RelayPlugin],
  relay: {},
});

const MoneyRef = builder.objectRef<Money>('Money').implement({
  fields: (t) => ({
    amount: t.exposeInt('amount'),
    currency: t.exposeString('currency'),
    formatted: t.exposeString('formatted'),
  }),
});

const OrderRef = builder.objectRef<Order>('Order').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    upstreamId: t.exposeID('id'),
    status: t.exposeString('status'),
    payment: t.string({ nullable: true, resolve: (o) => o.payment }),
    shipping: t.string({ nullable: true, resolve: (o) => o.shipping }),
    customerName: t.string({ nullable: true, resolve: (o) => o.customer?.name }),
    customerEmail: t.string({ nullable: true, resolve: (o) => o.customer?.email }),
    total: t.field({ type: MoneyRef, resolve: (o) => o.meta.display_price.with_tax }),
    createdAt: t.string({ resolve: (o) => o.meta.timestamps.created_at }),
    updatedAt: t.string({ resolve: (o) => o.meta.timestamps.updated_at }),
  }),
});

builder.queryType({
  fields: (t) => ({
    orders: t.connection(
      {
        type: OrderRef,
        resolve: (_root, args, context) =>
          resolveOffsetConnection(
            { args, defaultSize: 25, maxSize: 100 },
            async ({ offset, limit }) => {
              const { statusCode, body } = await pool.request({
                method: 'GET',
                // Pothos asks for one more than `first` to learn hasNextPage; the API's page
                // stops at 100, so a page of 100 cannot tell (the naive gateway does not try).
                path: `/v2/orders?page[limit]=${Math.min(limit, 100)}&page[offset]=${offset}`,
                headers: { authorization: context.authorization },
              });
              const json = (await body.json()) as { data?: Order[] };
              if (statusCode !== 200 || !json.data)
                throw new Error(`upstream answered ${statusCode}`);
              return json.data;
            },
          ),
      },
      { name: 'OrderConnection' },
      { name: 'OrderEdge' },
    ),
  }),
});

const yoga = createYoga<Record<string, unknown>, { authorization: string }>({
  schema: builder.toSchema(),
  graphiql: false,
  landingPage: false,
  context: ({ request }) => ({ authorization: request.headers.get('authorization') ?? '' }),
});

const server = createServer(yoga);
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(JSON.stringify({ url: `http://127.0.0.1:${port}/graphql` }));
});
process.on('SIGTERM', () => process.exit(0));
