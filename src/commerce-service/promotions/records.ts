/**
 * Promotions, their codes and their usages in SQLite, and their JSON. Both engines share the
 * tables (promotions.kind); each route reads only its own kind, so a rule promotion's id is a
 * 404 under /v2/promotions and the other way round.
 */
import type { Db } from '../db.ts';
import { notFound } from '../errors.ts';
import { isUuid } from '../ids.ts';
import type { JsonObject } from '../request-body.ts';
import type { PromotionInput, PromotionKind } from './bodies.ts';
import type { Offer } from './offer.ts';

export interface PromotionRow {
  id: string;
  store_id: string;
  kind: PromotionKind;
  name: string;
  enabled: number;
  automatic: number;
  starts_at: string;
  ends_at: string;
  priority: number;
  stackable: number;
  override_stacking: number;
  offer: string;
  document: string;
  created_at: string;
  updated_at: string;
}

export interface CodeRow {
  id: string;
  store_id: string;
  promotion_id: string;
  code: string;
  code_key: string;
  max_uses: number | null;
  used: number;
  max_uses_per_shopper: number | null;
  includes_guests: number;
  created_at: string;
  updated_at: string;
}

export interface UsageRow {
  id: string;
  promotion_id: string;
  code_id: string | null;
  code: string;
  order_id: string;
  customer_id: string | null;
  customer_email: string | null;
  times_used: number;
  anonymized: number;
  created_at: string;
  updated_at: string;
}

/** A code is the same code whatever its case (shoppers type them). */
export function codeKey(code: string): string {
  return code.toLowerCase();
}

export const TYPE_OF: Record<PromotionKind, string> = {
  standard: 'promotion',
  rule: 'rule_promotion',
};

export function findPromotion(
  db: Db,
  storeId: string,
  kind: PromotionKind,
  id: string,
): PromotionRow {
  const row = isUuid(id)
    ? (db
        .prepare('SELECT * FROM promotions WHERE store_id = ? AND kind = ? AND id = ?')
        .get(storeId, kind, id.toLowerCase()) as PromotionRow | undefined)
    : undefined;
  if (!row) throw notFound(`No ${TYPE_OF[kind].replace('_', ' ')} with id ${id}.`);
  return row;
}

/** The columns of a promotion from its judged body. */
export function promotionColumns(input: PromotionInput) {
  return {
    name: input.name,
    enabled: input.enabled ? 1 : 0,
    automatic: input.automatic ? 1 : 0,
    starts_at: input.start,
    ends_at: input.end,
    priority: input.priority,
    stackable: input.stackable ? 1 : 0,
    override_stacking: input.overrideStacking ? 1 : 0,
    offer: JSON.stringify(input.offer),
    document: JSON.stringify(input.document),
  };
}

export function readOffer(row: Pick<PromotionRow, 'offer'>): Offer {
  return JSON.parse(row.offer) as Offer;
}

export function readDocument(row: Pick<PromotionRow, 'document'>): JsonObject {
  return JSON.parse(row.document) as JsonObject;
}

export function presentPromotion(row: PromotionRow) {
  return {
    id: row.id,
    type: TYPE_OF[row.kind],
    ...readDocument(row),
    meta: { timestamps: { created_at: row.created_at, updated_at: row.updated_at } },
  };
}

export function presentCode(row: CodeRow) {
  return {
    id: row.id,
    type: 'promotion_code',
    code: row.code,
    // Production shows the uses left as `uses`, the limit as `max_uses`; null: unlimited.
    uses: row.max_uses === null ? null : row.max_uses - row.used,
    max_uses: row.max_uses,
    consume_unit: 'per_checkout',
    ...(row.max_uses_per_shopper === null
      ? {}
      : {
          max_uses_per_shopper: {
            max_uses: row.max_uses_per_shopper,
            includes_guests: row.includes_guests === 1,
          },
        }),
    meta: { timestamps: { created_at: row.created_at, updated_at: row.updated_at } },
  };
}

export function presentUsage(row: UsageRow) {
  return {
    id: row.id,
    type: 'promotion_usage',
    order_id: row.order_id,
    code_id: row.code_id,
    code: row.code,
    times_used: row.times_used,
    used_on: row.created_at,
    customer_id: row.customer_id,
    customer_email: row.customer_email,
    anonymized: row.anonymized === 1,
    meta: { timestamps: { created_at: row.created_at, updated_at: row.updated_at } },
  };
}
