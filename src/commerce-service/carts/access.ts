/**
 * Who may use a cart: anyone with its id for a guest cart (as in production); for a customer's
 * cart, a request with that customer's token; for an account's cart, a request with an account
 * token of that account (any of its members); for either, a client_credentials token with no
 * customer or account token (the store acting). The cart routes answer anything else with 404,
 * as if the cart did not exist; a merge judges the cart it merges from by the same rule.
 */
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db.ts';
import { cartOwner } from './storage.ts';

/** Whether `request` may use cart `cartId` (a uuid); true when there is no such cart. */
export function mayUseCart(db: Db, request: FastifyRequest, cartId: string): boolean {
  const owner = cartOwner(db, request.store.id, cartId);
  if (owner === undefined || (owner.customer_id === null && owner.account_id === null)) {
    return true;
  }
  return request.customer
    ? request.customer.id === owner.customer_id
    : request.accountMember
      ? request.accountMember.accountId === owner.account_id
      : request.store.grant === 'client_credentials';
}
