/**
 * A promotion's usages connection walked past the 10,000 offset limit, as orders are: 20,500
 * usages (in bursts sharing one time of use) behind the gateway, walked whole by time of use
 * in both directions and within a usedOn range; each walk must give exactly the REST API's
 * order, and no request may reach the service with an offset above 10,000. The usages are
 * written straight into the service's database file (20,500 checkouts would take minutes);
 * everything read goes through the gateway.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/commerce-service/db.ts';
import { type Stack, startStack } from '../support/harness.ts';

// Past twice the offset limit: the front and the back are served by offset (the back counted
// from the end), the middle only by keyset.
const USAGES = 20_500;
let dir: string;
let stack: Stack;
let promotionId: string;
/** Ids by (time of use, id), the order sortKey CREATED_AT promises. */
let ascending: { id: string; usedOn: string }[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'usages-'));
  const dbPath = join(dir, 'service.db');
  stack = await startStack({ dbPath });
  const token = await stack.token();
  const created = await fetch(`${stack.serviceUrl}/v2/promotions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      data: {
        name: 'Deep',
        enabled: true,
        promotion_type: 'percent_discount',
        schema: { percent: 5 },
        start: '2020-01-01',
        end: '2099-01-01',
      },
    }),
  });
  promotionId = ((await created.json()) as { data: { id: string } }).data.id;
  const db = openDatabase(dbPath);
  const storeId = db
    .prepare('SELECT store_id FROM promotions WHERE id = ?')
    .pluck()
    .get(promotionId);
  const insert = db.prepare(
    `INSERT INTO promotion_usages (id, store_id, promotion_id, code_id, code, code_key, order_id,
       customer_id, customer_email, times_used, anonymized, created_at, updated_at)
     VALUES (?, ?, ?, NULL, 'DEEP', 'deep', ?, NULL, 'x@example.com', 1, 0, ?, ?)`,
  );
  const rows: { id: string; usedOn: string }[] = [];
  db.transaction(() => {
    for (let i = 0; i < USAGES; i++) {
      // Bursts of 250 usages share one time of use: ties are broken by id.
      const usedOn = new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 250) * 60_000).toISOString();
      const id = randomUUID();
      insert.run(id, storeId, promotionId, randomUUID(), usedOn, usedOn);
      rows.push({ id, usedOn });
    }
  })();
  db.close();
  ascending = rows.sort((a, b) =>
    a.usedOn === b.usedOn ? (a.id < b.id ? -1 : 1) : a.usedOn < b.usedOn ? -1 : 1,
  );
}, 60_000);

afterAll(async () => {
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function walk(reverse: boolean, filter?: Record<string, unknown>): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  for (;;) {
    const { body } = await stack.graphql(
      `query($id: ID!, $after: String, $reverse: Boolean, $filter: PromotionUsageFilter) {
        promotion(id: $id) { usages(first: 1000, after: $after, sortKey: CREATED_AT,
          reverse: $reverse, filter: $filter) {
          pageInfo { hasNextPage endCursor } nodes { upstreamId } } } }`,
      { id: promotionId, after, reverse, filter },
    );
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    const page = body.data.promotion.usages;
    ids.push(...page.nodes.map((n: { upstreamId: string }) => n.upstreamId));
    if (!page.pageInfo.hasNextPage) return ids;
    after = page.pageInfo.endCursor;
  }
}

const maxOffset = () =>
  Math.max(
    0,
    ...stack.upstreamRequests
      .filter((r) => r.url.includes('/usages'))
      .map((r) => Number(new URL(r.url, 'http://x').searchParams.get('page[offset]') ?? 0)),
  );

describe('usages past 10,000, by time of use', () => {
  it('walks all of them in order, both ways, never past the offset limit', async () => {
    expect(await walk(false)).toEqual(ascending.map((r) => r.id));
    expect(await walk(true)).toEqual(ascending.map((r) => r.id).reverse());
    expect(maxOffset()).toBeLessThanOrEqual(10_000);
    // Past the offset limit the middle was served by keyset: `gt`/`lt` on the id at a tie.
    const keyset = stack.upstreamRequests.filter((r) =>
      /(gt|lt)\(id,/.test(decodeURIComponent(r.url)),
    );
    expect(keyset.length).toBeGreaterThan(0);
  }, 60_000);

  it('walks a usedOn range', async () => {
    const from = ascending[3_000]?.usedOn as string;
    const before = ascending[19_000]?.usedOn as string;
    const expected = ascending.filter((r) => r.usedOn >= from && r.usedOn < before);
    expect(await walk(false, { usedOn: { ge: from, lt: before } })).toEqual(
      expected.map((r) => r.id),
    );
  }, 60_000);
});
