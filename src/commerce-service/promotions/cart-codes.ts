/**
 * Promotions in carts: the codes a shopper applies (`promotion_item`) and removes
 * (`DELETE /v2/carts/{id}/discounts/{code}`), the promotions a cart may get (its codes' and the
 * store's automatic ones, live now), and checkout's part: each code that took something off
 * the order uses one of its uses and leaves a usage, in checkout's transaction, or the
 * checkout is refused whole (422) when a code has no use left.
 */
import { cachedStatement, type Db } from '../db.ts';
import { type ApiError, badRequest, notFound, unprocessable } from '../errors.ts';
import { newId } from '../ids.ts';
import { isObject } from '../request-body.ts';
import type { CartPromotion, PromotionLine } from './engine.ts';
import { type CodeRow, codeKey, type PromotionRow, readOffer } from './records.ts';
import { shopperRefusal, type UsageShopper } from './shopper-uses.ts';

export type { UsageShopper } from './shopper-uses.ts';

/** A promotion code as shoppers type it: letters, digits, `-`, `_` and `.`, 1 to 64. */
export const CODE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Judges a code given by a shopper (`source` names where); returns it. */
export function judgeCode(code: unknown, source: string): string {
  if (typeof code !== 'string' || !CODE_PATTERN.test(code)) {
    throw badRequest(
      `${source} must be a promotion code: 1 to 64 letters, digits, "-", "_" or ".", ` +
        'starting with a letter or a digit.',
      source,
    );
  }
  return code;
}

/** The code of a `promotion_item` body (judged); undefined for any other item body. */
export function promotionItemCode(body: unknown): string | undefined {
  if (!isObject(body) || !isObject(body.data) || body.data.type !== 'promotion_item') {
    return undefined;
  }
  return judgeCode(body.data.code, 'data.code');
}

type Joined = PromotionRow & { code: string | null; code_id: string | null };

function toCandidate(row: Joined): CartPromotion {
  return {
    promotionId: row.id,
    kind: row.kind,
    name: row.name,
    code: row.code,
    codeId: row.code_id,
    priority: row.priority,
    stackable: row.stackable === 1,
    overrideStacking: row.override_stacking === 1,
    offer: readOffer(row),
    createdAt: row.created_at,
  };
}

/**
 * The promotions a cart may get at `now`: those of its applied codes, then the store's
 * automatic ones, each promotion once, enabled and within its start and end.
 */
export function cartPromotions(
  db: Db,
  storeId: string,
  cartId: string,
  now: string,
): CartPromotion[] {
  const coded = cachedStatement(
    db,
    `SELECT p.*, c.code AS code, c.id AS code_id FROM cart_promotion_codes cp
       JOIN promotion_codes c ON c.id = cp.code_id
       JOIN promotions p ON p.id = c.promotion_id
     WHERE cp.cart_id = ? AND p.enabled = 1 AND p.starts_at <= ? AND p.ends_at > ?
     ORDER BY cp.created_at, c.id`,
  ).all(cartId, now, now) as Joined[];
  const automatic = cachedStatement(
    db,
    `SELECT p.*, NULL AS code, NULL AS code_id FROM promotions p
     WHERE p.store_id = ? AND p.automatic = 1 AND p.enabled = 1 AND p.starts_at <= ?
       AND p.ends_at > ?
     ORDER BY p.created_at, p.id`,
  ).all(storeId, now, now) as Joined[];
  const seen = new Set<string>();
  return [...coded, ...automatic].flatMap((row) => {
    if (seen.has(row.id)) return [];
    seen.add(row.id);
    return [toCandidate(row)];
  });
}

/** The codes applied to a cart, whether their promotion applies now or not. */
export function appliedCodes(db: Db, cartId: string): string[] {
  return cachedStatement(
    db,
    `SELECT c.code FROM cart_promotion_codes cp JOIN promotion_codes c ON c.id = cp.code_id
     WHERE cp.cart_id = ? ORDER BY cp.created_at, c.id`,
  )
    .pluck()
    .all(cartId) as string[];
}

const exhausted = (code: string) =>
  unprocessable(`The promotion code "${code}" has no uses left.`, 'data.code');

/**
 * Applies `code` to the cart: the live promotions' codes of that name (any case), each with a
 * use left (for this customer too). 422 when there is none; nothing is written then.
 */
export function applyCode(
  db: Db,
  storeId: string,
  cart: { id: string; customer_id: string | null },
  code: string,
  now: string,
): void {
  // Live by the wall clock, as the cart's promotions are (carts/storage.ts).
  const live = new Date().toISOString();
  const rows = db
    .prepare(
      `SELECT c.* FROM promotion_codes c JOIN promotions p ON p.id = c.promotion_id
       WHERE c.store_id = ? AND c.code_key = ? AND p.enabled = 1 AND p.starts_at <= ?
         AND p.ends_at > ?
       ORDER BY c.created_at, c.id`,
    )
    .all(storeId, codeKey(code), live, live) as CodeRow[];
  if (rows.length === 0) {
    throw unprocessable(`No live promotion has the code "${code}".`, 'data.code');
  }
  // A signed-in customer's cart is judged for them now; a guest's (no email yet) and an
  // account's (no member yet) at checkout, where the order says who.
  const shopper: UsageShopper | null =
    cart.customer_id === null
      ? null
      : { customerId: cart.customer_id, memberId: null, email: null };
  const refusals: ApiError[] = [];
  const usable = rows.filter((row) => {
    if (row.max_uses !== null && row.used >= row.max_uses) return false;
    const refusal = shopper === null ? null : shopperRefusal(db, storeId, row, shopper);
    if (refusal !== null) refusals.push(refusal);
    return refusal === null;
  });
  if (usable.length === 0) throw refusals[0] ?? exhausted(code);
  const insert = db.prepare(
    'INSERT OR IGNORE INTO cart_promotion_codes (cart_id, code_id, created_at) VALUES (?, ?, ?)',
  );
  for (const row of usable) insert.run(cart.id, row.id, now);
}

/** Removes `code` (any case) from the cart; 404 when the cart does not hold it. */
export function removeCode(db: Db, cartId: string, code: string): void {
  const removed = db
    .prepare(
      `DELETE FROM cart_promotion_codes WHERE cart_id = ? AND code_id IN
         (SELECT id FROM promotion_codes WHERE code_key = ?)`,
    )
    .run(cartId, codeKey(code)).changes;
  if (removed === 0) throw notFound(`Cart ${cartId} has no promotion code "${code}".`);
}

/** Removes every promotion code of the cart (emptying it: `DELETE /v2/carts/{id}/items`). */
export function removeAllCodes(db: Db, cartId: string): void {
  db.prepare('DELETE FROM cart_promotion_codes WHERE cart_id = ?').run(cartId);
}

/**
 * Checkout's part, inside its transaction: each code whose promotion took something off the
 * order uses one use (422, and so no order, when it has none left, or none left for this
 * shopper: shopper-uses.ts) and leaves one usage row.
 */
export function consumeCodes(
  db: Db,
  storeId: string,
  lines: readonly PromotionLine[],
  orderId: string,
  shopper: UsageShopper,
  now: string,
): void {
  const codeIds = new Map<string, string>();
  for (const line of lines) {
    const { codeId, code } = line.promotion;
    if (codeId !== null && code !== null) codeIds.set(codeId, code);
  }
  const take = cachedStatement(
    db,
    `UPDATE promotion_codes SET used = used + 1, updated_at = ?
     WHERE id = ? AND (max_uses IS NULL OR used < max_uses) RETURNING *`,
  );
  const insert = cachedStatement(
    db,
    `INSERT INTO promotion_usages (id, store_id, promotion_id, code_id, code, code_key, order_id,
       customer_id, customer_email, times_used, anonymized, created_at, updated_at)
     VALUES (@id, @store_id, @promotion_id, @code_id, @code, @code_key, @order_id, @customer_id,
       @customer_email, 1, 0, @now, @now)`,
  );
  for (const [codeId, code] of codeIds) {
    const row = take.get(now, codeId) as CodeRow | undefined;
    if (row === undefined) throw exhausted(code);
    const refusal = shopperRefusal(db, storeId, row, shopper);
    if (refusal !== null) throw refusal;
    insert.run({
      id: newId(),
      store_id: storeId,
      promotion_id: row.promotion_id,
      code_id: codeId,
      code: row.code,
      code_key: row.code_key,
      order_id: orderId,
      customer_id: shopper.customerId,
      customer_email: shopper.email,
      now,
    });
  }
}
