/**
 * A code's per-shopper limit (`max_uses_per_shopper {max_uses, includes_guests}`): who a shopper
 * is, and how often they have used a code.
 *
 * One shopper is one person however they check out: their customer record, their account
 * member, and every email address they check out with or sign in under. A use counts against a
 * checkout when it shares any of these with it: the same customer, the same account member, or
 * the same email (trimmed, any case), including the email of the customer or member who made it.
 * So a customer's use counts for a guest checking out with that customer's email and the other
 * way round, and signing out does not reset the limit.
 *
 * Production (promotions-builder spec, MaxUsesPerShopper): with `includes_guests: true` a guest
 * needs an email to use the code; with `false` guests cannot use it at all. A guest cart has no
 * email until checkout, so a guest is judged there; a signed-in customer's cart is judged when
 * the code is applied too.
 */
import { cachedStatement, type Db } from '../db.ts';
import { type ApiError, unprocessable } from '../errors.ts';
import type { CodeRow } from './records.ts';

/** Who checks out: the order's customer, account member and email. */
export interface UsageShopper {
  customerId: string | null;
  /** The account member of an account token's checkout. */
  memberId: string | null;
  /** The order's email; a guest's only identity. */
  email: string | null;
}

/** How emails compare: trimmed, any case. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

interface Identity {
  customerIds: string[];
  memberIds: string[];
  emails: string[];
}

/** Everything a shopper is known by: their ids, their emails, and the ids of those emails. */
function identityOf(db: Db, storeId: string, shopper: UsageShopper): Identity {
  const emails = new Set<string>();
  if (shopper.email !== null) emails.add(emailKey(shopper.email));
  if (shopper.customerId !== null) {
    const own = cachedStatement(db, 'SELECT email FROM customers WHERE store_id = ? AND id = ?')
      .pluck()
      .get(storeId, shopper.customerId) as string | undefined;
    if (own !== undefined) emails.add(emailKey(own));
  }
  if (shopper.memberId !== null) {
    const own = cachedStatement(
      db,
      'SELECT email FROM user_authentication_info WHERE store_id = ? AND id = ?',
    )
      .pluck()
      .get(storeId, shopper.memberId) as string | null | undefined;
    if (typeof own === 'string' && own !== '') emails.add(emailKey(own));
  }
  // The customers and members of those emails: they may have used the code under another email
  // (a member's order carries its contact's) or one they have since changed.
  const keys = JSON.stringify([...emails]);
  const customers = cachedStatement(
    db,
    // email_key is lower(email) (its unique index), and a judged email has no spaces.
    `SELECT id FROM customers
     WHERE store_id = ? AND email_key IN (SELECT value FROM json_each(?))`,
  )
    .pluck()
    .all(storeId, keys) as string[];
  const members = cachedStatement(
    db,
    `SELECT id FROM user_authentication_info
     WHERE store_id = ? AND lower(trim(email)) IN (SELECT value FROM json_each(?))`,
  )
    .pluck()
    .all(storeId, keys) as string[];
  const ids = (own: string | null, found: string[]) => [
    ...new Set(own === null ? found : [own, ...found]),
  ];
  return {
    customerIds: ids(shopper.customerId, customers),
    memberIds: ids(shopper.memberId, members),
    emails: [...emails],
  };
}

/** The shopper's uses of a code, made as a customer, an account member or a guest. */
export function shopperUses(
  db: Db,
  storeId: string,
  codeId: string,
  shopper: UsageShopper,
): number {
  const who = identityOf(db, storeId, shopper);
  return cachedStatement(
    db,
    `SELECT count(*) FROM promotion_usages u
       LEFT JOIN orders o ON o.id = u.order_id AND o.store_id = u.store_id
     WHERE u.store_id = ? AND u.code_id = ?
       AND (u.customer_id IN (SELECT value FROM json_each(?))
         OR lower(trim(u.customer_email)) IN (SELECT value FROM json_each(?))
         OR o.account_member_id IN (SELECT value FROM json_each(?)))`,
  )
    .pluck()
    .get(
      storeId,
      codeId,
      JSON.stringify(who.customerIds),
      JSON.stringify(who.emails),
      JSON.stringify(who.memberIds),
    ) as number;
}

/** A guest: neither a customer nor an account member checks out. */
function isGuest(shopper: UsageShopper): boolean {
  return shopper.customerId === null && shopper.memberId === null;
}

/**
 * Why this shopper may not use the code (a 422 to throw), or null when they may: guests when the
 * limit does not include them, and anyone who has used it `max_uses_per_shopper` times.
 */
export function shopperRefusal(
  db: Db,
  storeId: string,
  row: CodeRow,
  shopper: UsageShopper,
): ApiError | null {
  const limit = row.max_uses_per_shopper;
  if (limit === null) return null;
  if (isGuest(shopper) && row.includes_guests !== 1) {
    return unprocessable(
      `The promotion code "${row.code}" is for signed-in shoppers only: sign in to use it, or ` +
        'remove it from the cart to check out as a guest.',
      'data.code',
    );
  }
  if (isGuest(shopper) && shopper.email === null) return null;
  if (shopperUses(db, storeId, row.id, shopper) < limit) return null;
  return unprocessable(
    `The promotion code "${row.code}" has no uses left for this shopper: it may be used ` +
      `${limit === 1 ? 'once' : `${limit} times`} per shopper, signed in or as a guest with ` +
      'the same email.',
    'data.code',
  );
}
