/**
 * Address books: `POST|GET /v2/accounts/{accountId}/addresses`, `GET|PUT|DELETE
 * …/addresses/{addressId}`, and the same under `/v2/customers/{customerId}`. An account's are
 * its members' to read and write with the implicit token and the account token (scopes.ts
 * `account`; another account's book is a 404), a customer's are theirs with the customer token
 * (`customer`), and the store's token reaches every book. The list filters eq, in and like on
 * every attribute, newest last like every list of this service.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { findAccount } from '../accounts/routes.ts';
import type { ServiceContext } from '../context.ts';
import { findCustomer } from '../customers/routes.ts';
import type { Db } from '../db.ts';
import { notFound, unprocessable } from '../errors.ts';
import { newId } from '../ids.ts';
import { type ListAttribute, listResources, standardListSpec } from '../listing/index.ts';
import { parseAddress } from './bodies.ts';
import {
  ADDRESS_FIELDS,
  type AddressOwner,
  type AddressRow,
  countAddresses,
  findAddress,
  MAX_ADDRESSES_PER_OWNER,
  ownerColumn,
  presentAddress,
} from './records.ts';

interface OwnerParams {
  accountId?: string;
  customerId?: string;
  addressId?: string;
}

/** The account of the path, when this request may use its book (else 404). */
function accountOwner(db: Db, request: FastifyRequest<{ Params: OwnerParams }>): AddressOwner {
  const own = request.accountMember?.accountId;
  const accountId = request.params.accountId ?? '';
  if (own !== undefined && accountId.toLowerCase() !== own) {
    throw notFound(`No account with id ${accountId}.`);
  }
  return { kind: 'account', id: findAccount(db, request.store.id, accountId).id };
}

/** The customer of the path, when this request may use its book (else 404). */
function customerOwner(db: Db, request: FastifyRequest<{ Params: OwnerParams }>): AddressOwner {
  return { kind: 'customer', id: findCustomer(db, request, request.params.customerId ?? '').id };
}

export function addressRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const filters: Record<string, ListAttribute> = {};
  for (const field of ADDRESS_FIELDS) {
    filters[field] = { column: field, kind: 'string', ops: ['eq', 'in', 'like'] };
  }
  const spec = standardListSpec({ filters });

  const book =
    (
      base: string,
      ownerOf: (db: Db, request: FastifyRequest<{ Params: OwnerParams }>) => AddressOwner,
    ): FastifyPluginAsync =>
    async (app) => {
      app.post<{ Params: OwnerParams }>(base, async (request, reply) => {
        const input = parseAddress(request.body, true);
        const row = db.transaction(() => {
          const owner = ownerOf(db, request);
          if (countAddresses(db, request.store.id, owner) >= MAX_ADDRESSES_PER_OWNER) {
            throw unprocessable(
              `${owner.kind === 'account' ? 'An account' : 'A customer'} has at most ${MAX_ADDRESSES_PER_OWNER} addresses; delete one first.`,
            );
          }
          const now = ctx.timestamp();
          const next = {
            ...Object.fromEntries(ADDRESS_FIELDS.map((field) => [field, input[field] ?? null])),
            id: newId(),
            store_id: request.store.id,
            account_id: owner.kind === 'account' ? owner.id : null,
            customer_id: owner.kind === 'customer' ? owner.id : null,
            created_at: now,
            updated_at: now,
          } as AddressRow;
          const columns = Object.keys(next);
          db.prepare(
            `INSERT INTO addresses (${columns.join(', ')})
             VALUES (${columns.map((column) => `@${column}`).join(', ')})`,
          ).run(next);
          return next;
        })();
        reply.code(201);
        return { data: presentAddress(row) };
      });

      app.get<{ Params: OwnerParams }>(base, async (request) => {
        const owner = ownerOf(db, request);
        return listResources({
          request,
          db,
          table: 'addresses',
          scope: { store_id: request.store.id, [ownerColumn(owner)]: owner.id },
          spec,
          map: presentAddress,
        });
      });

      app.get<{ Params: OwnerParams }>(`${base}/:addressId`, async (request) => {
        const owner = ownerOf(db, request);
        const row = findAddress(db, request.store.id, owner, request.params.addressId ?? '');
        return { data: presentAddress(row) };
      });

      app.put<{ Params: OwnerParams }>(`${base}/:addressId`, async (request) => {
        const input = parseAddress(request.body, false);
        const row = db.transaction(() => {
          const owner = ownerOf(db, request);
          const current = findAddress(db, request.store.id, owner, request.params.addressId ?? '');
          const next: AddressRow = { ...current, ...input, updated_at: ctx.timestamp() };
          db.prepare(
            `UPDATE addresses SET ${[...ADDRESS_FIELDS, 'updated_at']
              .map((column) => `${column} = @${column}`)
              .join(', ')} WHERE id = @id`,
          ).run(next);
          return next;
        })();
        return { data: presentAddress(row) };
      });

      app.delete<{ Params: OwnerParams }>(`${base}/:addressId`, async (request, reply) => {
        const owner = ownerOf(db, request);
        const row = findAddress(db, request.store.id, owner, request.params.addressId ?? '');
        db.prepare('DELETE FROM addresses WHERE id = ?').run(row.id);
        return reply.code(204).send();
      });
    };

  return async (app) => {
    await app.register(book('/accounts/:accountId/addresses', accountOwner));
    await app.register(book('/customers/:customerId/addresses', customerOwner));
  };
}
