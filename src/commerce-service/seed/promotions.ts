/**
 * The demo store's promotion with a code (the README's): "Welcome 10%", a standard promotion
 * taking 10% off the cart, applied only with the code WELCOME10 (any case), as often as
 * shoppers like, live from before the demo data to 2099. Not automatic: no seeded cart or
 * order changes because of it.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../db.ts';
import { uuidFromBytes } from '../ids.ts';
import { parsePromotion } from '../promotions/bodies.ts';
import { codeKey, promotionColumns } from '../promotions/records.ts';
import { ruleSetFields } from '../promotions/rule-bodies.ts';
import { iso, SEED_EPOCH } from './random.ts';

/** The code the README's cart example applies. */
export const DEMO_PROMOTION_CODE = 'WELCOME10';

const derived = (what: string) => uuidFromBytes(createHash('sha256').update(what).digest());

export function seedPromotions(db: Db, storeId: string): void {
  const at = iso(SEED_EPOCH - 60 * 86_400_000);
  const input = parsePromotion(
    {
      data: {
        type: 'promotion',
        name: 'Welcome 10%',
        description: `10% off the cart with the code ${DEMO_PROMOTION_CODE}.`,
        enabled: true,
        automatic: false,
        promotion_type: 'percent_discount',
        schema: { percent: 10 },
        start: at,
        end: '2099-01-01T00:00:00.000Z',
      },
    },
    'standard',
    ruleSetFields,
  );
  const promotionId = derived(`commerce-seed-promotion:${storeId}:welcome`);
  db.prepare(
    `INSERT INTO promotions (id, store_id, kind, name, enabled, automatic, starts_at, ends_at,
       priority, stackable, override_stacking, offer, document, created_at, updated_at)
     VALUES (@id, @store_id, 'standard', @name, @enabled, @automatic, @starts_at, @ends_at,
       @priority, @stackable, @override_stacking, @offer, @document, @at, @at)
     ON CONFLICT (id) DO NOTHING`,
  ).run({ id: promotionId, store_id: storeId, ...promotionColumns(input), at });
  db.prepare(
    `INSERT INTO promotion_codes (id, store_id, promotion_id, code, code_key, max_uses, used,
       max_uses_per_shopper, includes_guests, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, NULL, 0, NULL, 0, ?, ?) ON CONFLICT (id) DO NOTHING`,
  ).run(
    derived(`commerce-seed-promotion-code:${storeId}:${DEMO_PROMOTION_CODE}`),
    storeId,
    promotionId,
    DEMO_PROMOTION_CODE,
    codeKey(DEMO_PROMOTION_CODE),
    at,
    at,
  );
}
