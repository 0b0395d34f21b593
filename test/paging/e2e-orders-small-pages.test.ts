/**
 * End to end, pages of 7 and 1: for every sort key, both directions, forwards (first/after)
 * and backwards (last/before), each walk the whole 25,000-order connection, through the offset
 * region at the front, keyset past offset 10,000 and the offset region counted from the back,
 * through every burst of hundreds of orders sharing one created_at or updated_at. Each walk
 * must give exactly the ground truth, and no request may reach the service with an offset
 * above 10,000. (Larger pages: e2e-orders.test.ts; the same matrix in process against a
 * contract-exact fake, pages of 1 and 7 included: walks.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectSequence,
  matrix,
  OFFSET_LIMIT,
  ORDERS,
  type OrdersStack,
  startOrdersStack,
  type WalkSpec,
  walkAll,
  walkName,
} from './e2e-orders-support.ts';

let orders: OrdersStack;

beforeAll(async () => {
  orders = await startOrdersStack();
}, 120_000);

afterAll(async () => {
  await orders?.close();
});

/**
 * Pages of 1 cost one GraphQL field and one upstream call per record: a whole walk is 25,000 of
 * each, over a minute of CPU on a 2-core CI machine. `npm test` walks created_at (bursts of
 * hundreds) ascending forwards in pages of 1; `npm run test:walks` (PAGING_E2E_FULL=1) walks
 * all 12 combinations. Pages of 7 always walk all 12.
 */
const FULL = process.env.PAGING_E2E_FULL === '1';

describe('whole-connection walks over 25,000 orders in small pages', () => {
  const cases: [string, WalkSpec[]][] = [
    ['pages of 7: 12 walks (3 sort keys × 2 directions × forwards/backwards)', matrix(7)],
    FULL
      ? ['pages of 1: 12 walks (3 sort keys × 2 directions × forwards/backwards)', matrix(1)]
      : [
          'pages of 1: created_at ascending forwards',
          [{ sortKey: 'created_at', reverse: false, size: 1, backward: false }],
        ],
  ];
  for (const [name, specs] of cases) {
    it(name, async () => {
      const keyset = orders.keysetCalls();
      const walked = await walkAll(orders, specs);
      specs.forEach((spec, i) => {
        expect.soft(walked[i]?.length, walkName(spec)).toBe(ORDERS);
        expectSequence(walked[i] as string[], orders.expected(spec.sortKey, spec.reverse));
      });
      // Never an offset past the hard limit; the middle of the list was served by keyset.
      expect(orders.maxOffset()).toBeLessThanOrEqual(OFFSET_LIMIT);
      expect(orders.keysetCalls()).toBeGreaterThan(keyset);
    }, 3_600_000);
  }
});
