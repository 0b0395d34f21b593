/**
 * Addresses of accounts and of customers (production's Addresses API,
 * AccountAddresses.OpenAPISpec.yaml, and the customer addresses of the older docs): one table,
 * each row owned by exactly one account or one customer, deleted with its owner.
 */
import { cachedStatement, type Db } from '../db.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';

/** The attributes of an address, in the specification's order; every one is optional text. */
export const ADDRESS_FIELDS = [
  'name',
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
export type AddressField = (typeof ADDRESS_FIELDS)[number];

/** An owner has at most this many addresses: an address book, not a mailing list. */
export const MAX_ADDRESSES_PER_OWNER = 500;

/** Whose address book: an account's or a customer's. */
export interface AddressOwner {
  kind: 'account' | 'customer';
  id: string;
}

export type AddressRow = Record<AddressField, string | null> & {
  id: string;
  store_id: string;
  account_id: string | null;
  customer_id: string | null;
  created_at: string;
  updated_at: string;
};

export const ownerColumn = (owner: AddressOwner) =>
  owner.kind === 'account' ? 'account_id' : 'customer_id';

const ownerPath = (owner: AddressOwner) => `/v2/${owner.kind}s/${owner.id}/addresses`;

/** An address as the API shows it: its attributes, its owner, links and timestamps. */
export function presentAddress(row: AddressRow) {
  const owner: AddressOwner =
    row.account_id !== null
      ? { kind: 'account', id: row.account_id }
      : { kind: 'customer', id: row.customer_id ?? '' };
  const attributes: Partial<Record<AddressField, string>> = {};
  for (const field of ADDRESS_FIELDS) {
    const value = row[field];
    if (value !== null) attributes[field] = value;
  }
  return {
    id: row.id,
    type: 'address',
    ...attributes,
    links: { self: `${ownerPath(owner)}/${row.id}` },
    meta: { timestamps: { created_at: row.created_at, updated_at: row.updated_at } },
    relationships: { [owner.kind]: relationship(owner) },
  };
}

/**
 * The owner as a relationship. The account-addresses specification (AccountAddressResponse)
 * puts the account's id and type straight under `relationships.account`; the JSON:API `data`
 * form stays beside them for the clients that read it (and is the customer addresses' only one).
 */
function relationship(owner: AddressOwner) {
  const data = { id: owner.id, type: owner.kind };
  return owner.kind === 'account' ? { ...data, data } : { data };
}

/** The owner's address `id`; 404 when it has none by that id. */
export function findAddress(db: Db, storeId: string, owner: AddressOwner, id: string): AddressRow {
  const row = isUuid(id)
    ? (cachedStatement(
        db,
        `SELECT * FROM addresses WHERE store_id = ? AND ${ownerColumn(owner)} = ? AND id = ?`,
      ).get(storeId, owner.id, id.toLowerCase()) as AddressRow | undefined)
    : undefined;
  if (!row) throw notFound(`No address with id ${id} for ${owner.kind} ${owner.id}.`);
  return row;
}

export function countAddresses(db: Db, storeId: string, owner: AddressOwner): number {
  const row = cachedStatement(
    db,
    `SELECT count(*) AS n FROM addresses WHERE store_id = ? AND ${ownerColumn(owner)} = ?`,
  ).get(storeId, owner.id) as { n: number };
  return row.n;
}
