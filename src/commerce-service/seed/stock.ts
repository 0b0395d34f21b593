/**
 * Stock for every demo product: the catalog seed stocks one product in five (some at zero, to
 * show "out of stock"); every other product gets 20 to 120 units here, drawn from a hash of its
 * id (not from a PRNG stream, so no other seeded row moves), so a storefront's product page
 * shows stock for all of them and a shopper can buy any of them.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../db.ts';
import { uuidFromBytes } from '../ids.ts';

export function seedStock(db: Db, storeId: string): number {
  const products = db
    .prepare(
      `SELECT id, created_at FROM pcm_products p WHERE store_id = ?
         AND NOT EXISTS (SELECT 1 FROM stock s WHERE s.store_id = p.store_id AND s.product_id = p.id)
       ORDER BY created_at, id`,
    )
    .all(storeId) as { id: string; created_at: string }[];
  const insert = db.prepare(
    `INSERT INTO stock (store_id, product_id, stock_id, total, available, allocated, created_at,
       updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)`,
  );
  for (const product of products) {
    const hash = createHash('sha256').update(`commerce-seed-stock:${product.id}`).digest();
    const available = 20 + ((hash[16] ?? 0) % 101);
    insert.run(
      storeId,
      product.id,
      uuidFromBytes(hash),
      available,
      available,
      product.created_at,
      product.created_at,
    );
  }
  return products.length;
}
