/**
 * `checkoutCart`'s `billingAddressId` / `shippingAddressId`: an address of the shopper's book
 * (addresses.ts), read before the checkout call and sent as the order's address. The book is
 * the one of `customerId` when the input names one, else the signed-in shopper's: the account
 * of the account member's token, or the customer of the customer token (one GET finds which).
 */
import { expectList, expectResource, type JsonObject } from '../upstream/client.ts';
import { BadUserInputError, NotFoundError } from '../upstream/errors.ts';
import { ACCOUNT_TOKEN_HEADER, CUSTOMER_TOKEN_HEADER } from '../upstream/forwarded-headers.ts';
import { FIRST_ROW } from '../upstream/paging/query.ts';
import { forwardedHeaders, type GatewayContext } from '../upstream/session.ts';
import { idKind } from './kit/ids.ts';

/** An address has no global id: its upstream id (a uuid), in its owner's book. */
export const ADDRESS = idKind('Address', false);

/** Whose book: `['accounts', id]` or `['customers', id]`. */
export type Owner = readonly ['accounts' | 'customers', string];

/** The v2 address attributes an order keeps (an address's `name` is the book's label only). */
const ORDER_ADDRESS = [
  'first_name',
  'last_name',
  'company_name',
  'phone_number',
  'line_1',
  'line_2',
  'city',
  'county',
  'region',
  'postcode',
  'country',
  'instructions',
] as const;

/** What checkout needs of an address (as `AddressInput` requires): v2 key, GraphQL name. */
const ORDER_NEEDS = [
  ['first_name', 'firstName'],
  ['last_name', 'lastName'],
  ['line_1', 'line1'],
  ['region', 'region'],
  ['postcode', 'postcode'],
  ['country', 'country'],
] as const;

/** The book of the order's shopper. */
async function bookOf(
  context: GatewayContext,
  customerId: string | undefined,
  field: string,
): Promise<Owner> {
  if (customerId !== undefined) return ['customers', customerId];
  const headers = forwardedHeaders(context);
  const kind =
    headers?.[ACCOUNT_TOKEN_HEADER] !== undefined
      ? 'accounts'
      : headers?.[CUSTOMER_TOKEN_HEADER] !== undefined
        ? 'customers'
        : undefined;
  if (kind === undefined) {
    throw new BadUserInputError(
      'An address id names an address of the shopper’s book: sign in (a customer or account ' +
        'member token) or give input.customerId; a guest gives input.billingAddress',
      { field },
    );
  }
  // Under the shopper's token the list is their own record alone.
  const [row] = expectList(await context.get([kind], FIRST_ROW)).data;
  if (row === undefined || typeof row.id !== 'string') {
    throw new NotFoundError(`The signed-in shopper has no ${kind.slice(0, -1)} record`, { field });
  }
  return [kind, row.id];
}

async function addressBody(
  context: GatewayContext,
  [kind, id]: Owner,
  addressId: string,
  field: string,
): Promise<JsonObject> {
  const response = await context.get([kind, id, 'addresses', addressId]).catch((error) => {
    throw error instanceof NotFoundError
      ? new NotFoundError(`${field} names no address of the shopper’s book`, {
          upstreamStatus: 404,
          field,
          cause: error,
        })
      : error;
  });
  const row = expectResource(response);
  const body: JsonObject = {};
  for (const key of ORDER_ADDRESS) {
    const value = row[key];
    if (typeof value === 'string' && value !== '') body[key] = value;
  }
  // An order's address needs more than a book's: say so here, before the checkout call.
  const missing = ORDER_NEEDS.filter(([key]) => body[key] === undefined).map(([, name]) => name);
  if (missing.length > 0) {
    throw new BadUserInputError(
      `${field} names an address without ${missing.join(', ')}, which an order needs: ` +
        'complete it with updateAddress',
      { field },
    );
  }
  return body;
}

/** The addresses the ids name, read from the book (in parallel), as the checkout sends them. */
export async function bookAddresses(
  context: GatewayContext,
  ids: { billing?: string; shipping?: string; customerId?: string },
): Promise<{ billing?: JsonObject; shipping?: JsonObject }> {
  const field = ids.billing === undefined ? 'input.shippingAddressId' : 'input.billingAddressId';
  const owner = await bookOf(context, ids.customerId, field);
  const [billing, shipping] = await Promise.all([
    ids.billing === undefined
      ? undefined
      : addressBody(context, owner, ids.billing, 'input.billingAddressId'),
    ids.shipping === undefined
      ? undefined
      : addressBody(context, owner, ids.shipping, 'input.shippingAddressId'),
  ]);
  return {
    ...(billing === undefined ? {} : { billing }),
    ...(shipping === undefined ? {} : { shipping }),
  };
}
