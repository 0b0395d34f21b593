/**
 * A cart's customer and account associations (production's "Customer Cart Associations" and
 * "Account Cart Associations"): `POST|DELETE /v2/carts/{id}/relationships/customers` and
 * `…/relationships/accounts`. The cart shows them as production's cart does,
 * `relationships.customers` / `relationships.accounts` `{data:[{type, id}]}` (carts/present.ts).
 *
 * The body is a list of one `{type, id}`, sent bare (as the reference storefront sends it) or
 * under `data` (as the specification's schema has it). A customer token associates its own
 * customer, an account token its own account; the store's token any of the store's. A cart has
 * at most one owner: a cart of another customer or account, or a customer's cart asked to take
 * an account (and the reverse), is a 403, production's "Cannot associate more than one …".
 * Associating the cart's owner again answers 204, as production does; deleting the association
 * makes the cart a guest cart again (anyone with its id may use it). A cart made with a
 * customer's or account's token is already associated with it.
 *
 * Registered by carts.ts, behind its check of who may use the cart.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.ts';
import type { Db } from '../db.ts';
import { badRequest, forbidden } from '../errors.ts';
import { isUuid } from '../ids.ts';
import { describeValue, isObject } from '../request-body.ts';
import { emitCartUpdated } from './events.ts';
import type { CartParams } from './rows.ts';
import { loadCart } from './storage.ts';

type Kind = 'customer' | 'account';

const OWNER = {
  customer: { column: 'customer_id', table: 'customers', header: 'X-Moltin-Customer-Token' },
  account: {
    column: 'account_id',
    table: 'accounts',
    header: 'EP-Account-Management-Authentication-Token',
  },
} as const;

/** The one `{type, id}` of the body; `data[0]` in the sources either way. */
function parseOwner(body: unknown, kind: Kind): string {
  const list = Array.isArray(body) ? body : isObject(body) ? body.data : undefined;
  if (!Array.isArray(list)) {
    throw badRequest(
      `The body must be a list of one {"type": "${kind}", "id": "<${kind} id>"} (or that list ` +
        'under "data").',
      'data',
    );
  }
  if (list.length === 0) throw badRequest(`The list names no ${kind}.`, 'data');
  if (list.length > 1) throw forbidden(`Cannot associate more than one ${kind}.`);
  const entry: unknown = list[0];
  if (!isObject(entry)) {
    throw badRequest(
      `data[0] must be {"type": "${kind}", "id": …}, got ${describeValue(entry)}.`,
      'data[0]',
    );
  }
  for (const key of Object.keys(entry)) {
    if (key !== 'type' && key !== 'id') {
      throw badRequest(`Unknown attribute "${key}"; allowed: type, id.`, `data[0].${key}`);
    }
  }
  if (entry.type !== kind) {
    throw badRequest(`data[0].type must be "${kind}".`, 'data[0].type');
  }
  if (typeof entry.id !== 'string' || !isUuid(entry.id)) {
    throw badRequest(`data[0].id must be a ${kind} id (a uuid).`, 'data[0].id');
  }
  return entry.id.toLowerCase();
}

/** 403 unless the request may act for `id`: its own customer or account, or the store. */
function checkActor(db: Db, request: FastifyRequest, kind: Kind, id: string): void {
  const own = kind === 'customer' ? request.customer?.id : request.accountMember?.accountId;
  if (own !== undefined) {
    if (own !== id) {
      const who = kind === 'customer' ? 'Customer' : 'Account';
      throw forbidden(`${who} does not have the required permissions to fulfill this request.`);
    }
    return;
  }
  if (request.store.grant !== 'client_credentials' || request.customer || request.accountMember) {
    throw forbidden(
      `Associating a cart with a ${kind} needs that ${kind}'s ${OWNER[kind].header}, or the ` +
        "store's client_credentials token.",
    );
  }
  const exists = db
    .prepare(`SELECT 1 FROM ${OWNER[kind].table} WHERE store_id = ? AND id = ?`)
    .get(request.store.id, id);
  if (exists === undefined)
    throw badRequest(`No ${kind} with id ${id} in this store.`, 'data[0].id');
}

export function cartRelationshipRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const { db } = ctx;
  const other = (kind: Kind): Kind => (kind === 'customer' ? 'account' : 'customer');

  return async (app) => {
    for (const kind of ['customer', 'account'] as const) {
      const path = `/carts/:cartId/relationships/${kind}s`;
      const { column } = OWNER[kind];

      app.post<{ Params: CartParams }>(path, async (request, reply) => {
        const id = parseOwner(request.body, kind);
        checkActor(db, request, kind, id);
        const done = db.transaction(() => {
          const { cart } = loadCart(db, request.store.id, request.params.cartId, ctx.clock());
          if (cart[column] === id) return false;
          if (cart[column] !== null) throw forbidden(`Cannot associate more than one ${kind}.`);
          if (cart[OWNER[other(kind)].column] !== null) {
            throw forbidden(
              `Cart ${cart.id} belongs to a${kind === 'customer' ? 'n account' : ' customer'}: ` +
                `a cart is associated with one owner, so it cannot take a ${kind} too.`,
            );
          }
          db.prepare(`UPDATE carts SET ${column} = ?, updated_at = ? WHERE id = ?`).run(
            id,
            ctx.timestamp(),
            cart.id,
          );
          emitCartUpdated(db, request.store.id, cart.id, ctx.clock());
          return true;
        })();
        // Production: 204 when the cart is already associated with it.
        if (!done) return reply.code(204).send();
        return { data: [{ type: kind, id }] };
      });

      app.delete<{ Params: CartParams }>(path, async (request, reply) => {
        const id = parseOwner(request.body, kind);
        checkActor(db, request, kind, id);
        db.transaction(() => {
          const { cart } = loadCart(db, request.store.id, request.params.cartId, ctx.clock());
          if (cart[column] !== id) return;
          db.prepare(`UPDATE carts SET ${column} = NULL, updated_at = ? WHERE id = ?`).run(
            ctx.timestamp(),
            cart.id,
          );
          emitCartUpdated(db, request.store.id, cart.id, ctx.clock());
        })();
        return reply.code(204).send();
      });
    }
  };
}
