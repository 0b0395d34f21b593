/**
 * Checkout by an account member (`POST /v2/carts/{id}/checkout` with
 * `EP-Account-Management-Authentication-Token`): the order belongs to the token's account and
 * member. Production's body is `{data:{account:{id, member_id}, contact:{name, email},
 * billing_address, shipping_address}}`; the official SDK's CheckoutWithAccountManagementToken
 * sends `contact` without `account`, and a customer-style `customer:{name, email}` is read as the
 * contact too. `account`, when given, must name the token's own account and member. Without a
 * contact the member's own name and email are the order's.
 */
import type { FastifyRequest } from 'fastify';
import { findAccountMember } from '../account-members/records.ts';
import type { Db } from '../db.ts';
import { badRequest, forbidden } from '../errors.ts';
import {
  isObject,
  type JsonObject,
  requireData,
  requireEmail,
  requireText,
} from '../request-body.ts';
import { type CheckoutInput, parseCheckout } from './bodies.ts';

export interface AccountCheckout {
  accountId: string;
  memberId: string;
  /** Who the order is for: its `customer`/`contact` name and email. */
  contact: { name: string; email: string };
  input: CheckoutInput;
}

function sameId(value: unknown, expected: string, source: string): void {
  if (value === undefined) return;
  if (typeof value !== 'string') throw badRequest(`${source} must be a uuid.`, source);
  if (value.toLowerCase() !== expected) {
    throw forbidden(
      `With an account token, checkout is made for the token's own account and member; ${source} names another.`,
    );
  }
}

function contactOf(data: JsonObject, key: 'contact' | 'customer') {
  const prefix = `data.${key}`;
  const value = data[key] as JsonObject;
  return {
    name: requireText(value, 'name', { prefix }),
    email: requireEmail(value, 'email', prefix),
  };
}

/** Reads an account member's checkout body; the caller has an account token (request.accountMember). */
export function parseAccountCheckout(
  db: Db,
  request: FastifyRequest,
  body: unknown,
): AccountCheckout {
  const member = request.accountMember;
  if (member === null) throw new Error('parseAccountCheckout needs an account token');
  const data = requireData(body);
  if (data.account !== undefined && data.account !== null) {
    if (!isObject(data.account)) {
      throw badRequest('data.account must be an object: {id, member_id}.', 'data.account');
    }
    sameId(data.account.id, member.accountId, 'data.account.id');
    sameId(data.account.member_id, member.memberId, 'data.account.member_id');
  }
  let contact: { name: string; email: string };
  if (isObject(data.contact)) {
    contact = contactOf(data, 'contact');
  } else if (data.contact !== undefined && data.contact !== null) {
    throw badRequest('data.contact must be an object: {name, email}.', 'data.contact');
  } else if (isObject(data.customer)) {
    if (data.customer.id !== undefined) {
      throw forbidden(
        'With an account token, checkout is made for the token’s account: name no customer id (send data.contact {name, email}).',
      );
    }
    contact = contactOf(data, 'customer');
  } else {
    const row = findAccountMember(db, request.store.id, member.memberId);
    if (!row.name || !row.email) {
      throw badRequest(
        'data.contact {name, email} is required: the account member has no name and email of their own.',
        'data.contact',
      );
    }
    contact = { name: row.name, email: row.email };
  }
  // The addresses as every checkout reads them; `customer` is the contact, read above.
  const { customer: _ignored, ...rest } = data;
  const input = parseCheckout({ data: rest }, true);
  return { accountId: member.accountId, memberId: member.memberId, contact, input };
}
