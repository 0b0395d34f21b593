/**
 * Demo orders and their items, generated straight into a sink (seed.ts writes them): bursts of
 * orders sharing one created_at and bulk-update groups sharing one updated_at, so that keyset
 * paging across equal timestamps is exercised.
 */
import { iso, type Random, SEED_EPOCH } from './random.ts';
import { CITIES, FIRST_NAMES, LAST_NAMES, PRODUCTS } from './vocabulary.ts';

/** Receives generated rows, in the column order of the orders / order_items inserts. */
export interface OrderSink {
  order(
    id: string,
    status: string,
    payment: string,
    shipping: string,
    customerName: string,
    customerEmail: string,
    billingAddress: string,
    currency: string,
    withTax: number,
    withoutDiscount: number,
    discount: number,
    createdAt: string,
    updatedAt: string,
  ): void;
  item(
    id: string,
    orderId: string,
    name: string,
    sku: string,
    quantity: number,
    unitAmount: number,
    discount: number,
    currency: string,
    createdAt: string,
  ): void;
}

/**
 * Generates orders (and their items) straight into a sink, keeping nothing in memory, so that
 * 100,000 orders cost little more than their inserts. created_at advances in gaps of seconds to
 * minutes, with every so often a burst of 300–600 orders sharing one instant; updated_at is
 * created_at plus a little, except for bulk-update groups of 150–400 orders sharing one value.
 * Totals follow money.ts's rules (discounts capped at what they apply to).
 */
export function generateOrders(random: Random, count: number, sink: OrderSink): void {
  let clock = SEED_EPOCH;
  // Bursts and bulk updates are scheduled (not left to chance) so every seed of a few thousand
  // orders or more is guaranteed to contain them.
  let untilBurst = random.int(400, 1200);
  let burstLeft = 0;
  let untilBulk = random.int(800, 2000);
  let bulkLeft = 0;
  let bulkUpdatedAt = '';
  const lineName: string[] = [];
  const lineSku: string[] = [];
  const lineQty: number[] = [];
  const linePrice: number[] = [];
  const lineDiscount: number[] = [];
  for (let i = 0; i < count; i++) {
    if (burstLeft > 0) {
      burstLeft--;
    } else {
      clock += random.int(1, 600) * 1000 + random.int(0, 999);
      if (--untilBurst <= 0) {
        burstLeft = random.int(300, 600) - 1;
        untilBurst = random.int(800, 1600);
      }
    }
    if (bulkLeft === 0 && --untilBulk <= 0) {
      bulkLeft = random.int(150, 400);
      untilBulk = random.int(1500, 2500);
      // Two weeks on: later than every created_at in the group (at most 400 × ~10 minutes).
      bulkUpdatedAt = iso(clock + 14 * 86_400_000);
    }
    const created = iso(clock);
    const first = random.pick(FIRST_NAMES);
    const last = random.pick(LAST_NAMES);
    const place = random.pick(CITIES);
    const id = random.uuid();
    const lineCount = random.int(1, 3);
    let withoutDiscount = 0;
    let afterItems = 0;
    for (let l = 0; l < lineCount; l++) {
      const product = random.pick(PRODUCTS);
      const quantity = random.int(1, 4);
      const value = product[2] * quantity;
      const discount = random.next() < 0.15 ? Math.max(-random.int(1, 5) * 100, -value) : 0;
      lineName[l] = product[0];
      lineSku[l] = product[1];
      linePrice[l] = product[2];
      lineQty[l] = quantity;
      lineDiscount[l] = discount;
      withoutDiscount += value;
      afterItems += value + discount;
    }
    const cartDiscount = random.next() < 0.1 ? Math.max(-500, -afterItems) : 0;
    const total = afterItems + cartDiscount;
    const paid = random.next() < 0.7;
    const address = `{"first_name":"${first}","last_name":"${last}","line_1":"${random.int(1, 999)} Market Street","city":"${place[0]}","region":"${place[1]}","postcode":"${random.int(10000, 99999)}","country":"${place[2]}"}`;
    let updated: string;
    if (bulkLeft > 0) {
      updated = bulkUpdatedAt;
      bulkLeft--;
    } else {
      updated = paid ? iso(clock + random.int(1, 300_000)) : created;
    }
    sink.order(
      id,
      paid ? 'complete' : 'incomplete',
      paid ? 'paid' : 'unpaid',
      paid && random.next() < 0.8 ? 'fulfilled' : 'unfulfilled',
      `${first} ${last}`,
      `${first}.${last}.${i}@example.com`.toLowerCase(),
      address,
      'USD',
      total,
      withoutDiscount,
      total - withoutDiscount,
      created,
      updated,
    );
    for (let l = 0; l < lineCount; l++) {
      sink.item(
        random.uuid(),
        id,
        lineName[l] ?? '',
        lineSku[l] ?? '',
        lineQty[l] ?? 0,
        linePrice[l] ?? 0,
        lineDiscount[l] ?? 0,
        'USD',
        created,
      );
    }
  }
}
