/**
 * The address book of an account or a customer (`/v2/accounts/{id}/addresses`,
 * `/v2/customers/{id}/addresses`): `addresses` on `Account` and `Customer`, and
 * `createAddress` / `updateAddress` / `deleteAddress`, whose input names the owner (exactly one
 * of accountId and customerId). Who may read or write a book is the upstream's to decide: the
 * store's token any, an account member their account's (with their account token), a customer
 * their own (with their customer token). `checkoutCart` takes an address of the book by id
 * (checkout-addresses.ts).
 */
import { expectList, expectResource, type JsonObject } from '../upstream/client.ts';
import { BadUserInputError, NotFoundError } from '../upstream/errors.ts';
import { listQuery } from '../upstream/paging/query.ts';
import type { GatewayContext } from '../upstream/session.ts';
import { Accounts } from './account.ts';
import { builder } from './builder.ts';
import { ADDRESS, type Owner } from './checkout-addresses.ts';
import { Customers } from './customer.ts';
import { idInput, idKind, judgeId, optionalIdInput } from './kit/ids.ts';
import { defineMutation } from './kit/mutation.ts';
import { answerPayload, deletePayload, writeAnswer } from './kit/writes.ts';
import { readOptionalString, readString, readTimestamps } from './rows.ts';

const ACCOUNT = idKind('Account');
const CUSTOMER = idKind('Customer');

/** A book holds at most 500 (the upstream's bound): five pages at most. */
const MAX_BOOK = 500;
const PAGE = 100;

/** The attributes: GraphQL name, v2 name, at most how many characters. */
const ATTRIBUTES = [
  ['name', 'name', 255],
  ['firstName', 'first_name', 255],
  ['lastName', 'last_name', 255],
  ['companyName', 'company_name', 255],
  ['phoneNumber', 'phone_number', 255],
  ['line1', 'line_1', 255],
  ['line2', 'line_2', 255],
  ['city', 'city', 255],
  ['county', 'county', 255],
  ['region', 'region', 255],
  ['postcode', 'postcode', 255],
  ['country', 'country', 2],
  ['instructions', 'instructions', 1000],
] as const;
type AttributeName = (typeof ATTRIBUTES)[number][0];
/** What a create needs (the upstream's choice; production's specification marks none). */
const REQUIRED: ReadonlySet<AttributeName> = new Set(['firstName', 'lastName', 'line1', 'country']);
const COUNTRY = /^[A-Za-z]{2}$/;

export type AddressShape = { upstreamId: string; createdAt: string; updatedAt: string } & Record<
  AttributeName,
  string | null
>;

/** The v2 row as an address; `v2` is what a checkout sends as its billing or shipping address. */
export function readAddress(row: JsonObject): AddressShape {
  const shape: Record<string, string | null> = {};
  for (const [name, v2] of ATTRIBUTES) shape[name] = readOptionalString(row, v2);
  return {
    ...(shape as Record<AttributeName, string | null>),
    upstreamId: readString(row, 'id', 'address'),
    ...readTimestamps(row, 'address'),
  };
}

const DESCRIPTIONS: Record<AttributeName, string> = {
  name: 'A name for the address (“Home”, “Office”).',
  firstName: 'First name.',
  lastName: 'Last name.',
  companyName: 'Company name.',
  phoneNumber: 'Phone number.',
  line1: 'First line.',
  line2: 'Second line.',
  city: 'City.',
  county: 'County.',
  region: 'Region or state.',
  postcode: 'Postal code.',
  country: 'Country (ISO 3166-1 alpha-2, e.g. GB).',
  instructions: 'Delivery instructions.',
};

export const AddressRef = builder.objectRef<AddressShape>('Address').implement({
  description: 'An address of an account’s or a customer’s address book.',
  fields: (t) => ({
    upstreamId: t.exposeID('upstreamId', {
      description: 'The address id upstream; pass it as `addressId`, `billingAddressId`, ….',
    }),
    ...Object.fromEntries(
      ATTRIBUTES.map(([name]) => [
        name,
        t.exposeString(name, { nullable: true, description: DESCRIPTIONS[name] }),
      ]),
    ),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'Creation time.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'Last update time.' }),
  }),
});

/** Every address of a book (a page per 100, at most five). */
export async function fetchAddresses(
  context: GatewayContext,
  [kind, id]: Owner,
): Promise<AddressShape[]> {
  const addresses: AddressShape[] = [];
  for (let offset = 0; offset < MAX_BOOK; offset += PAGE) {
    const list = expectList(
      await context.get([kind, id, 'addresses'], listQuery({ limit: PAGE, offset })),
    );
    addresses.push(...list.data.map(readAddress));
    if (list.data.length < PAGE) break;
  }
  return addresses;
}

const listAbout = (owner: string) =>
  `The ${owner}’s address book, oldest first (GET /v2/${owner}s/{id}/addresses; one upstream ` +
  'call per 100 addresses, at most 500).';

builder.objectFields(Accounts.ref, (t) => ({
  addresses: t.field({
    type: [AddressRef],
    description: listAbout('account'),
    resolve: (account, _args, context) =>
      fetchAddresses(context, ['accounts', (account as { upstreamId: string }).upstreamId]),
    extensions: { upstreamCalls: 1 },
  }),
}));

builder.objectFields(Customers.ref, (t) => ({
  addresses: t.field({
    type: [AddressRef],
    description: listAbout('customer'),
    resolve: (customer, _args, context) =>
      fetchAddresses(context, ['customers', (customer as { upstreamId: string }).upstreamId]),
    extensions: { upstreamCalls: 1 },
  }),
}));

// ---- writes ----------------------------------------------------------------------------------

type InputBuilder = Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0];

function ownerFields(t: InputBuilder) {
  return {
    accountId: optionalIdInput(t, ACCOUNT, 'The account whose book it is (or customerId)'),
    customerId: optionalIdInput(t, CUSTOMER, 'The customer whose book it is (or accountId)'),
  };
}

/** The book an input names: exactly one of accountId and customerId. */
export function judgeOwner(input: {
  accountId?: string | number | null;
  customerId?: string | number | null;
}): Owner {
  const account = input.accountId !== null && input.accountId !== undefined;
  const customer = input.customerId !== null && input.customerId !== undefined;
  if (account === customer) {
    throw new BadUserInputError('Give exactly one of input.accountId and input.customerId', {
      field: 'input.accountId',
    });
  }
  return account
    ? ['accounts', judgeId(String(input.accountId), 'input.accountId', ACCOUNT)]
    : ['customers', judgeId(String(input.customerId), 'input.customerId', CUSTOMER)];
}

function attributeFields(t: InputBuilder, create: boolean) {
  return Object.fromEntries(
    ATTRIBUTES.map(([name, , max]) => [
      name,
      t.string({
        required: create && REQUIRED.has(name),
        description: `${DESCRIPTIONS[name]} At most ${max} characters${
          create ? '' : '; null clears it'
        }.`,
      }),
    ]),
  ) as Record<AttributeName, ReturnType<InputBuilder['string']>>;
}

/** The v2 body of the input's attributes: each judged; on update, null clears an optional one. */
function addressBody(input: Record<string, unknown>, create: boolean): JsonObject {
  const data: JsonObject = { type: 'address' };
  for (const [name, v2, max] of ATTRIBUTES) {
    const value = input[name];
    const field = `input.${name}`;
    if (value === undefined) continue;
    if (value === null) {
      if (REQUIRED.has(name)) {
        throw new BadUserInputError(`${field} cannot be cleared`, { field });
      }
      if (!create) data[v2] = null;
      continue;
    }
    const text = String(value).trim();
    if (text === '' || text.length > max) {
      throw new BadUserInputError(`${field} must be 1 to ${max} characters`, { field });
    }
    if (name === 'country' && !COUNTRY.test(text)) {
      throw new BadUserInputError(`${field} must be a two-letter ISO 3166-1 code, e.g. GB`, {
        field,
      });
    }
    data[v2] = name === 'country' ? text.toUpperCase() : text;
  }
  return { data };
}

const addressPayload = (name: string, description: string) =>
  answerPayload<AddressShape>(name, {
    description,
    field: 'address',
    type: AddressRef,
    about:
      'The address as written; null, with a WRITE_COMMITTED error, when it was written but the ' +
      'answer was unusable.',
  });

defineMutation('createAddress', {
  description:
    'Adds an address to an account’s or a customer’s book (POST ' +
    '/v2/accounts/{id}/addresses or /v2/customers/{id}/addresses).',
  input: {
    description: 'The book (exactly one of accountId and customerId) and the address.',
    fields: (t) => ({ ...ownerFields(t), ...attributeFields(t, true) }),
  },
  payload: addressPayload('CreateAddressPayload', 'The address that was added.'),
  resolve: (input, context) => {
    const [kind, id] = judgeOwner(input);
    const body = addressBody(input as Record<string, unknown>, true);
    return writeAnswer(
      context,
      { method: 'POST', segments: [kind, id, 'addresses'], body },
      (response) => readAddress(expectResource(response)),
    );
  },
});

defineMutation('updateAddress', {
  description:
    'Changes an address of a book (PUT /v2/accounts|customers/{id}/addresses/{addressId}); ' +
    'sends only the fields the input names.',
  input: {
    description: 'The book (exactly one of accountId and customerId), the address and its changes.',
    fields: (t) => ({
      ...ownerFields(t),
      addressId: idInput(t, ADDRESS, 'The address'),
      ...attributeFields(t, false),
    }),
  },
  payload: addressPayload('UpdateAddressPayload', 'The address after the change.'),
  resolve: (input, context) => {
    const [kind, id] = judgeOwner(input);
    const addressId = judgeId(String(input.addressId), 'input.addressId', ADDRESS);
    const body = addressBody(input as Record<string, unknown>, false);
    return writeAnswer(
      context,
      { method: 'PUT', segments: [kind, id, 'addresses', addressId], body },
      (response) => readAddress(expectResource(response)),
    ).catch(onAddress([kind, id]));
  },
});

defineMutation('deleteAddress', {
  description:
    'Removes an address from a book (DELETE /v2/accounts|customers/{id}/addresses/{addressId}).',
  input: {
    description: 'The book (exactly one of accountId and customerId) and the address to delete.',
    fields: (t) => ({ ...ownerFields(t), addressId: idInput(t, ADDRESS, 'The address') }),
  },
  payload: deletePayload('DeleteAddressPayload', 'address'),
  resolve: async (input, context) => {
    const [kind, id] = judgeOwner(input);
    const addressId = judgeId(String(input.addressId), 'input.addressId', ADDRESS);
    await context
      .write({ method: 'DELETE', segments: [kind, id, 'addresses', addressId] })
      .catch(onAddress([kind, id]));
    return { deletedId: addressId };
  },
});

/** A 404 of a write on one address: the address's, unless the upstream says it is the owner's. */
function onAddress([kind]: Owner) {
  return (error: unknown): never => {
    if (error instanceof NotFoundError && error.field === undefined) {
      const owner = kind === 'accounts' ? 'account' : 'customer';
      const ofOwner =
        new RegExp(`\\b${owner}\\b`, 'i').test(error.message) &&
        !/\baddress\b/i.test(error.message);
      throw new NotFoundError(error.message, {
        upstreamStatus: 404,
        field: ofOwner ? `input.${owner}Id` : 'input.addressId',
        cause: error,
      });
    }
    throw error;
  };
}
