/**
 * The planner's contract beyond plain walks: bad arguments, forged cursors and bad filter values
 * are refused before any upstream call; budgets are checked up front; call counts and
 * concurrency; pinned walks; walks that stay exact while the list changes underneath.
 */
import { describe, expect, it } from 'vitest';
import { createCallBudget, DEFAULT_CALL_BUDGET } from '../../src/upstream/budget.ts';
import {
  BadUserInputError,
  UpstreamBudgetExceededError,
  UpstreamUnavailableError,
} from '../../src/upstream/errors.ts';
import {
  type CursorIdentity,
  createCursorEncoder,
  decodeCursor,
  encodeCursor,
  filterHash,
  normalizeTimestamp,
} from '../../src/upstream/paging/cursor.ts';
import {
  type Connection,
  DEFAULT_PAGING_LIMITS,
  type FilterClause,
  type PaginateOptions,
} from '../../src/upstream/paging/plan.ts';
import { paginate } from '../../src/upstream/paging/planner.ts';
import {
  bumpVersion,
  compareRecords,
  createFakeList,
  createRandom,
  type FakeList,
  type FakeRecord,
  generateRecords,
} from './fake-list.ts';

const records = generateRecords(12_000, { seed: 11 });

function options(
  list: FakeList,
  extra: Partial<PaginateOptions<FakeRecord>> = {},
): PaginateOptions<FakeRecord> {
  return {
    connection: 'orders',
    args: { first: 10 },
    sortKey: 'created_at',
    reverse: false,
    filters: [],
    fetchPage: list.fetchPage,
    keyOf: (r) => r,
    budget: createCallBudget(DEFAULT_CALL_BUDGET),
    ...extra,
  };
}

async function refusal(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a refusal');
}

describe('arguments', () => {
  const list = createFakeList(records);
  const cases: [string, PaginateOptions<FakeRecord>['args'], string][] = [
    ['negative first', { first: -1 }, 'first'],
    ['first above maxFirst', { first: 1001 }, 'first'],
    ['fractional last', { last: 2.5 }, 'last'],
    ['first and last together', { first: 5, last: 5 }, 'last'],
    ['empty after', { after: '' }, 'after'],
  ];
  for (const [name, args, field] of cases) {
    it(`${name} → BAD_USER_INPUT naming \`${field}\`, no fetch`, async () => {
      list.reset();
      const error = await refusal(paginate(options(list, { args })));
      expect(error).toBeInstanceOf(BadUserInputError);
      expect((error as BadUserInputError).field).toBe(field);
      expect(error.message).toContain(field);
      expect(list.calls).toHaveLength(0);
    });
  }

  it('maxFirst is configurable', async () => {
    const error = await refusal(
      paginate(options(list, { args: { first: 300 }, limits: { maxFirst: 200 } })),
    );
    expect(error.message).toContain('at most 200');
  });

  it('neither first nor last: the default page size (25), from the front', async () => {
    const c = await paginate(options(list, { args: {} }));
    expect(c.edges).toHaveLength(DEFAULT_PAGING_LIMITS.defaultFirst);
    expect(c.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
  });

  it('first: 0 gives no edges but the total, in one call', async () => {
    list.reset();
    const c = await paginate(options(list, { args: { first: 0 } }));
    expect(c.edges).toEqual([]);
    expect(c.totalCount).toBe(records.length);
    expect(c.pageInfo).toMatchObject({ hasNextPage: true, startCursor: null, endCursor: null });
    expect(list.calls).toHaveLength(1);
  });
});

describe('cursors are input', () => {
  const list = createFakeList(records);
  const identity = {
    connection: 'orders',
    sortKey: 'created_at' as const,
    direction: 'asc' as const,
    filterHash: filterHash([], undefined),
  };
  const state = {
    pin: '2026-01-01T00:00:00.000Z',
    index: 5,
    total: 12_000,
    sortValue: '2025-01-06T09:00:01.000Z',
    id: 'abc',
  };
  const wire = (patch: Record<string, unknown>) => {
    const base = JSON.parse(Buffer.from(encodeCursor(identity, state), 'base64url').toString());
    return Buffer.from(JSON.stringify({ ...base, ...patch })).toString('base64url');
  };
  const forged: [string, string][] = [
    ['not base64url', 'abc$%^'],
    ['not JSON', Buffer.from('hello').toString('base64url')],
    ['a JSON array', Buffer.from('[1,2]').toString('base64url')],
    ['wrong version', wire({ v: 2 })],
    ['another connection', wire({ c: 'files' })],
    ['another sort key', wire({ k: 'id' })],
    ['another direction', wire({ d: 'desc' })],
    ['other filters', wire({ f: 'x' })],
    ['filter injection in the id', wire({ id: 'a),gt(created_at,1' })],
    ['a colon in the id', wire({ id: 'a:b' })],
    ['an overlong id', wire({ id: 'a'.repeat(65) })],
    ['a non-canonical sort value', wire({ s: '2025-01-06T09:00:01Z' })],
    ['an impossible date', wire({ s: '2025-02-30T09:00:01.000Z' })],
    ['a sort value with injection', wire({ s: '2025-01-06T09:00:01.000Z),le(id,z' })],
    ['a malformed pin', wire({ p: 'yesterday' })],
    ['an index beyond the total', wire({ i: 12_000 })],
    ['a negative index', wire({ i: -1 })],
    ['a fractional index', wire({ i: 1.5 })],
    ['an unknown field', wire({ x: 1 })],
    ['too long', 'A'.repeat(2000)],
  ];
  for (const [name, cursor] of forged) {
    for (const argument of ['after', 'before'] as const) {
      it(`${name} in \`${argument}\` → BAD_USER_INPUT, no fetch`, async () => {
        list.reset();
        const args =
          argument === 'after' ? { first: 5, after: cursor } : { last: 5, before: cursor };
        const error = await refusal(paginate(options(list, { args })));
        expect(error).toBeInstanceOf(BadUserInputError);
        expect((error as BadUserInputError).field).toBe(argument);
        expect(list.calls).toHaveLength(0);
      });
    }
  }

  it('a genuine cursor round-trips and is bound to its filters', async () => {
    const filters: FilterClause[] = [
      { attr: 'created_at', op: 'ge', value: '2025-01-06T12:00:00Z' },
    ];
    const page1 = await paginate(options(list, { filters }));
    const cursor = page1.pageInfo.endCursor as string;
    const decoded = decodeCursor(
      cursor,
      {
        ...identity,
        filterHash: filterHash(['ge(created_at,2025-01-06T12:00:00.000Z)']),
      },
      'after',
    );
    expect(decoded.index).toBe(9);
    // The same cursor without the filter is refused.
    list.reset();
    const error = await refusal(paginate(options(list, { args: { first: 5, after: cursor } })));
    expect(error.message).toContain('other filters');
    expect(list.calls).toHaveLength(0);
  });

  it('after and before from two different walks are refused', async () => {
    const a = await paginate(options(list, { now: () => Date.parse('2026-01-01T00:00:00Z') }));
    const b = await paginate(options(list, { now: () => Date.parse('2026-01-02T00:00:00Z') }));
    list.reset();
    const error = await refusal(
      paginate(
        options(list, {
          args: { first: 5, after: a.pageInfo.startCursor, before: b.pageInfo.endCursor },
        }),
      ),
    );
    expect((error as BadUserInputError).field).toBe('before');
    expect(list.calls).toHaveLength(0);
  });
});

/** A cursor as the wire format defines it: the base64url of its JSON, keys in this order. */
function referenceCursor(
  identity: CursorIdentity,
  pin: string,
  total: number,
  index: number,
  sortValue: string | undefined,
  id: string,
): string {
  const wire: Record<string, unknown> = {
    v: 1,
    c: identity.connection,
    k: identity.sortKey,
    d: identity.direction,
    f: identity.filterHash,
    p: pin,
    i: index,
    n: total,
    id,
  };
  if (sortValue !== undefined) wire.s = sortValue;
  return Buffer.from(JSON.stringify(wire), 'utf8').toString('base64url');
}

describe('cursor encoding', () => {
  const list = createFakeList(records);

  it('a page encoder writes exactly the wire format, whatever the length of its prefix', () => {
    // Connection names of every length modulo 3 (and one with multi-byte characters) move the
    // boundary between the shared prefix and each record's own fields across base64 groups.
    for (const connection of [
      'o',
      'or',
      'ord',
      'orders',
      'entries:ab',
      'entrées',
      'x'.repeat(40),
    ]) {
      for (const sortKey of ['created_at', 'id'] as const) {
        const identity: CursorIdentity = {
          connection,
          sortKey,
          direction: 'desc',
          filterHash: filterHash(['ge(created_at,2025-01-06T12:00:00.000Z)']),
        };
        const encode = createCursorEncoder(identity, '2026-01-01T00:00:00.000Z', 12_345);
        for (const [index, id] of [
          [0, 'a'],
          [7, 'ab'],
          [12_344, '0f6c1f7e-7b0a-4c4e-a8a3-9d1f5e2b7c61'],
        ] as const) {
          const sortValue = sortKey === 'id' ? undefined : '2025-01-06T09:00:01.000Z';
          const cursor = encode(index, sortValue, id);
          expect(cursor).toBe(
            referenceCursor(identity, '2026-01-01T00:00:00.000Z', 12_345, index, sortValue, id),
          );
          expect(decodeCursor(cursor, identity, 'after')).toEqual({
            pin: '2026-01-01T00:00:00.000Z',
            index,
            total: 12_345,
            sortValue,
            id,
          });
        }
      }
    }
  });

  for (const sortKey of ['created_at', 'id'] as const) {
    for (const backward of [false, true]) {
      it(`${sortKey} ${backward ? 'last/before' : 'first/after'}: every edge cursor is its position's cursor, the one pageInfo gives`, async () => {
        const ordered = [...records].sort(compareRecords(sortKey));
        const now = () => Date.parse('2026-01-01T00:00:00Z');
        const start = await paginate(options(list, { sortKey, now, args: { first: 40 } }));
        const anchor = start.edges[30]?.cursor as string;
        const page = await paginate(
          options(list, {
            sortKey,
            now,
            args: backward ? { last: 7, before: anchor } : { first: 7, after: anchor },
          }),
        );
        const firstIndex = backward ? 23 : 31;
        expect(page.edges.map((e) => e.node.id)).toEqual(
          ordered.slice(firstIndex, firstIndex + 7).map((r) => r.id),
        );
        const identity: CursorIdentity = {
          connection: 'orders',
          sortKey,
          direction: 'asc',
          filterHash: filterHash([], undefined),
        };
        page.edges.forEach((edge, k) => {
          const record = ordered[firstIndex + k] as FakeRecord;
          expect(edge.cursor).toBe(
            referenceCursor(
              identity,
              '2026-01-01T00:00:00.000Z',
              records.length,
              firstIndex + k,
              sortKey === 'id' ? undefined : record.created_at,
              record.id,
            ),
          );
          // The same position reached by another page has the same cursor.
          expect(edge.cursor).toBe(start.edges[firstIndex + k]?.cursor);
        });
        expect(page.pageInfo.startCursor).toBe(page.edges[0]?.cursor);
        expect(page.pageInfo.endCursor).toBe(page.edges[6]?.cursor);
        // An edge cursor continues the walk like a pageInfo cursor.
        const next = await paginate(
          options(list, { sortKey, now, args: { first: 3, after: page.edges[2]?.cursor } }),
        );
        expect(next.edges.map((e) => e.node.id)).toEqual(
          ordered.slice(firstIndex + 3, firstIndex + 6).map((r) => r.id),
        );
      });
    }
  }
});

describe('normalizeTimestamp', () => {
  it('returns canonical instants as they are, leap days and the extreme years included', () => {
    for (const value of [
      '2025-01-06T09:00:01.000Z',
      '2024-02-29T23:59:59.999Z',
      '2000-02-29T00:00:00.000Z',
      '0000-02-29T00:00:00.000Z',
      '0000-01-01T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
    ]) {
      expect(normalizeTimestamp(value)).toBe(value);
    }
  });

  it('renders other ISO-8601 forms in the canonical one', () => {
    expect(normalizeTimestamp('2024-01-01T01:00:00+01:00')).toBe('2024-01-01T00:00:00.000Z');
    expect(normalizeTimestamp('2024-01-01T00:00:00Z')).toBe('2024-01-01T00:00:00.000Z');
    expect(normalizeTimestamp('2024-01-01T00:00:00.5Z')).toBe('2024-01-01T00:00:00.500Z');
  });

  it('refuses impossible instants and anything not strictly ISO-8601', () => {
    for (const value of [
      '2023-02-29T00:00:00.000Z',
      '1900-02-29T00:00:00.000Z',
      '2024-04-31T00:00:00.000Z',
      '2024-00-10T00:00:00.000Z',
      '2024-13-10T00:00:00.000Z',
      '2024-01-00T00:00:00.000Z',
      '2024-01-01T24:00:00.000Z',
      '2024-01-01T00:60:00.000Z',
      '2024-12-31T23:59:60.000Z',
      '2024-01-01T00:00:00.0000Z',
      '2024-01-01 00:00:00.000Z',
      '2024-01-01T00:00:00.000z',
      '2024-01-01T00:00:00,000Z',
      '2024-01-0١T00:00:00.000Z',
      '+02024-01-01T00:00:00.000Z',
      '2024',
      '',
      undefined,
      1_704_067_200_000,
    ]) {
      expect(normalizeTimestamp(value)).toBeUndefined();
    }
  });

  it('keeps a canonical-looking string exactly when Date renders it back unchanged', () => {
    const random = createRandom(7);
    const pad = (n: number, width: number) => String(n).padStart(width, '0');
    for (let k = 0; k < 20_000; k++) {
      const value =
        `${pad(random.int(0, 9999), 4)}-${pad(random.int(0, 13), 2)}-${pad(random.int(0, 32), 2)}` +
        `T${pad(random.int(0, 25), 2)}:${pad(random.int(0, 61), 2)}:${pad(random.int(0, 61), 2)}` +
        `.${pad(random.int(0, 999), 3)}Z`;
      const ms = Date.parse(value);
      const roundTrips = !Number.isNaN(ms) && new Date(ms).toISOString() === value;
      expect(normalizeTimestamp(value)).toBe(roundTrips ? value : undefined);
    }
  });
});

describe('filter values', () => {
  const list = createFakeList(records);
  const bad: [string, FilterClause[], string][] = [
    ['an id with a parenthesis', [{ attr: 'id', op: 'eq', value: 'x)' }], 'filter.id.eq'],
    ['an id with a colon', [{ attr: 'id', op: 'gt', value: 'a:le(id' }], 'filter.id.gt'],
    [
      'a timestamp that is not ISO',
      [{ attr: 'created_at', op: 'ge', value: 'today' }],
      'filter.createdAt.ge',
    ],
    [
      'a timestamp with microseconds',
      [{ attr: 'updated_at', op: 'lt', value: '2025-01-01T00:00:00.000001Z' }],
      'filter.updatedAt.lt',
    ],
    ['an empty in list', [{ attr: 'id', op: 'in', value: [] }], 'filter.id.in'],
    [
      'an in list over 100',
      [{ attr: 'id', op: 'in', value: Array.from({ length: 101 }, (_, i) => `id${i}`) }],
      'filter.id.in',
    ],
    [
      'an in list with a comma smuggled in',
      [{ attr: 'id', op: 'in', value: ['a,b'] }],
      'filter.id.in',
    ],
    [
      'too many conditions',
      Array.from({ length: 8 }, () => ({ attr: 'id' as const, op: 'gt' as const, value: 'a' })),
      'filter',
    ],
  ];
  for (const [name, filters, field] of bad) {
    it(`${name} → BAD_USER_INPUT \`${field}\`, no fetch`, async () => {
      list.reset();
      const error = await refusal(paginate(options(list, { filters })));
      expect(error).toBeInstanceOf(BadUserInputError);
      expect((error as BadUserInputError).field).toBe(field);
      expect(list.calls).toHaveLength(0);
    });
  }

  it('updatedSince must be a timestamp', async () => {
    list.reset();
    const error = await refusal(paginate(options(list, { updatedSince: '1 week ago' })));
    expect((error as BadUserInputError).field).toBe('updatedSince');
    expect(list.calls).toHaveLength(0);
  });

  it('valid values are normalised into the v2 syntax', async () => {
    list.reset();
    const c = await paginate(
      options(list, {
        filters: [
          { attr: 'created_at', op: 'ge', value: '2025-01-06T10:00:00+01:00' },
          { attr: 'id', op: 'in', value: records.slice(0, 3).map((r) => r.id) },
        ],
      }),
    );
    const filter = list.calls[0]?.filter ?? '';
    expect(filter).toContain('ge(created_at,2025-01-06T09:00:00.000Z)');
    expect(filter).toContain(
      `in(id,${records
        .slice(0, 3)
        .map((r) => r.id)
        .join(',')})`,
    );
    expect(c.totalCount).toBe(3);
  });
});

describe('budget', () => {
  it('a plan over the budget is refused before any call, saying why', async () => {
    const list = createFakeList(records);
    const error = await refusal(
      paginate(options(list, { args: { first: 1000 }, budget: createCallBudget(5) })),
    );
    expect(error).toBeInstanceOf(UpstreamBudgetExceededError);
    expect(error.message).toContain('needs 10 upstream call(s)');
    expect(error.message).toContain('first: 1000');
    expect(list.calls).toHaveLength(0);
  });

  it('keyset pages are budgeted for their extra call', async () => {
    const list = createFakeList(records);
    let after: string | null = null;
    for (let i = 0; i < 5; i++) {
      const c: Connection<FakeRecord> = await paginate(
        options(list, { args: { first: 1000, after } }),
      );
      after = c.pageInfo.endCursor;
    }
    // From index 5,000 with the offset limit scaled down to 1,000, neither end is in offset reach.
    list.reset();
    const error = await refusal(
      paginate(
        options(list, {
          args: { first: 1000, after },
          budget: createCallBudget(10),
          limits: { offsetLimit: 1000 },
        }),
      ),
    );
    expect(error).toBeInstanceOf(UpstreamBudgetExceededError);
    expect(error.message).toContain('needs 11 upstream call(s)');
    expect(error.message).toContain('keyset');
    expect(list.calls).toHaveLength(0);
  });
});

describe('call counts and concurrency', () => {
  it('first: 250 in the offset region is exactly 3 concurrent calls', async () => {
    const list = createFakeList(records, { delayMs: 20 });
    const c = await paginate(options(list, { args: { first: 250 } }));
    expect(c.edges).toHaveLength(250);
    expect(list.calls.map((q) => [q.offset, q.limit])).toEqual([
      [0, 100],
      [100, 100],
      [200, 50],
    ]);
    expect(list.maxInFlight).toBe(3);
    // And after a cursor too.
    list.reset();
    await paginate(options(list, { args: { first: 250, after: c.pageInfo.endCursor } }));
    expect(list.calls.map((q) => q.offset)).toEqual([250, 350, 450]);
    expect(list.maxInFlight).toBe(3);
  });

  it('first: 1000 is 10 calls, at most `concurrency` in flight', async () => {
    const list = createFakeList(records, { delayMs: 10 });
    await paginate(options(list, { args: { first: 1000 } }));
    expect(list.calls).toHaveLength(10);
    expect(list.maxInFlight).toBe(10);
    list.reset();
    await paginate(options(list, { args: { first: 1000 }, limits: { concurrency: 2 } }));
    expect(list.maxInFlight).toBe(2);
  });

  it('never asks for a 101st record: totals answer hasNextPage', async () => {
    const list = createFakeList(records);
    const c = await paginate(options(list, { args: { first: 100 } }));
    expect(list.calls).toEqual([expect.objectContaining({ offset: 0, limit: 100 })]);
    expect(c.pageInfo.hasNextPage).toBe(true);
  });

  it('last: n with no cursor is one round of reversed-sort pages, no total probe', async () => {
    const list = createFakeList(records);
    const c = await paginate(options(list, { args: { last: 150 } }));
    expect(list.calls.map((q) => [q.sort, q.offset, q.limit])).toEqual([
      ['-created_at', 0, 100],
      ['-created_at', 100, 50],
    ]);
    const expected = [...records].sort(compareRecords('created_at')).slice(-150);
    expect(c.edges.map((e) => e.node.id)).toEqual(expected.map((r) => r.id));
    expect(c.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });

  it('a cursor at the end of the walk answers without a call', async () => {
    const list = createFakeList(records);
    const c = await paginate(options(list, { args: { last: 1 } }));
    list.reset();
    const next = await paginate(
      options(list, { args: { first: 10, after: c.pageInfo.endCursor } }),
    );
    expect(next.edges).toEqual([]);
    expect(next.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    expect(list.calls).toHaveLength(0);
  });

  it('keyset pages: one call for the rest of the instant, then the rest in parallel', async () => {
    const list = createFakeList(records, { delayMs: 5 });
    const limits = { offsetLimit: 500, maxFirst: 500 };
    let after: string | null = null;
    for (let i = 0; i < 6; i++) {
      const c: Connection<FakeRecord> = await paginate(
        options(list, { args: { first: 100, after }, limits }),
      );
      after = c.pageInfo.endCursor;
    }
    list.reset();
    await paginate(options(list, { args: { first: 500, after }, limits }));
    expect(list.calls.length).toBeLessThanOrEqual(6);
    expect(list.calls[0]?.filter).toMatch(/eq\(created_at,[^)]+\):gt\(id,/);
    expect(Math.max(...list.calls.map((q) => q.offset))).toBeLessThan(500);
  });
});

describe('consistent walks', () => {
  it('records created after the first page are not in the walk (pinned bound)', async () => {
    const data = generateRecords(3000, { seed: 5 });
    const list = createFakeList(data);
    const pinnedNow = Date.parse('2026-01-01T00:00:00.000Z');
    const first = await paginate(options(list, { args: { first: 1000 }, now: () => pinnedNow }));
    expect(first.pinnedAt).toBe('2026-01-01T00:00:00.000Z');
    // New records arrive, some sorting before the current position by id.
    for (let i = 0; i < 50; i++) {
      data.push({
        id: `000new${i}`,
        created_at: '2026-01-01T00:00:00.001Z',
        updated_at: '2026-01-01T00:00:00.001Z',
      });
    }
    bumpVersion(data);
    const seen = first.edges.map((e) => e.node.id);
    let after = first.pageInfo.endCursor;
    for (;;) {
      const c = await paginate(
        options(list, { args: { first: 1000, after }, sortKey: 'created_at' }),
      );
      seen.push(...c.edges.map((e) => e.node.id));
      expect(c.totalCount).toBe(3000);
      after = c.pageInfo.endCursor;
      if (!c.pageInfo.hasNextPage) break;
    }
    expect(seen).toHaveLength(3000);
    expect(seen.some((id) => id.startsWith('000new'))).toBe(false);
  });

  it('consistencyBufferMs moves the pinned bound back', async () => {
    const list = createFakeList(records);
    const now = Date.parse('2026-01-01T00:00:10.000Z');
    const c = await paginate(
      options(list, { now: () => now, limits: { consistencyBufferMs: 5000 } }),
    );
    expect(c.pinnedAt).toBe('2026-01-01T00:00:05.000Z');
    expect(list.calls[0]?.filter).toContain('le(created_at,2026-01-01T00:00:05.000Z)');
  });

  it('updatedSince syncs incrementally; an update during the walk is seen once, in the next sync', async () => {
    const data = generateRecords(2500, { seed: 9 });
    const list = createFakeList(data);
    const since = '2025-01-06T10:00:00.000Z';
    const matching = data.filter((r) => r.updated_at >= since);
    const sync = async (updatedSince: string, now: number, onPage?: () => void) => {
      const ids: string[] = [];
      let after: string | null = null;
      let pin = '';
      for (;;) {
        const c: Connection<FakeRecord> = await paginate(
          options(list, {
            args: { first: 250, after },
            sortKey: 'updated_at',
            updatedSince,
            now: () => now,
          }),
        );
        ids.push(...c.edges.map((e) => e.node.id));
        pin = c.pinnedAt;
        onPage?.();
        after = c.pageInfo.endCursor;
        if (!c.pageInfo.hasNextPage) break;
      }
      return { ids, pin };
    };
    const order = [...matching].sort(compareRecords('updated_at'));
    // The last record of the order is updated while the first page is being read.
    const moved = order[order.length - 1] as FakeRecord;
    const early = order[10] as FakeRecord;
    let pages = 0;
    const first = await sync(since, Date.parse('2026-01-01T00:00:00.000Z'), () => {
      if (pages++ === 0) {
        moved.updated_at = '2026-01-01T00:00:30.000Z';
        early.updated_at = '2026-01-01T00:00:31.000Z';
        bumpVersion(data);
      }
    });
    // `early` was already delivered; `moved` left the pinned set before it was reached.
    expect(new Set(first.ids).size).toBe(first.ids.length);
    expect(first.ids).toContain(early.id);
    expect(first.ids).not.toContain(moved.id);
    expect(first.ids).toHaveLength(matching.length - 1);
    // The next sync from the pinned bound delivers exactly the two updated records.
    const second = await sync(first.pin, Date.parse('2026-01-01T00:01:00.000Z'));
    expect(second.ids).toEqual([moved.id, early.id]);
  });

  it('deletions during a walk: no record skipped or repeated (totals detect the shift)', async () => {
    for (const sortKey of ['created_at', 'id'] as const) {
      const data = generateRecords(4000, { seed: 13 });
      const list = createFakeList(data);
      const order = [...data].sort(compareRecords(sortKey)).map((r) => r.id);
      const seen: string[] = [];
      let after: string | null = null;
      const deleted = new Set<string>();
      for (let page = 0; ; page++) {
        const c: Connection<FakeRecord> = await paginate(
          options(list, { args: { first: 250, after }, sortKey, limits: { offsetLimit: 1500 } }),
        );
        seen.push(...c.edges.map((e) => e.node.id));
        after = c.pageInfo.endCursor;
        // Delete 3 already-seen records (shifting every offset) and 1 not yet seen.
        if (page % 2 === 0 && c.pageInfo.hasNextPage) {
          const victims = [seen[page * 10], seen[page * 10 + 1], seen[page * 10 + 2]];
          const ahead = order[seen.length + 5];
          for (const id of [...victims, ahead]) if (id !== undefined) deleted.add(id);
          for (let i = data.length - 1; i >= 0; i--) {
            if (deleted.has((data[i] as FakeRecord).id)) data.splice(i, 1);
          }
          bumpVersion(data);
        }
        if (!c.pageInfo.hasNextPage) break;
      }
      const seenSet = new Set(seen);
      expect(seenSet.size).toBe(seen.length);
      const expected = order.filter((id) => seenSet.has(id) || !deleted.has(id));
      expect(seen).toEqual(expected);
    }
  });
});

describe('a misbehaving upstream', () => {
  it('ids that could alter a filter never reach one', async () => {
    const data = generateRecords(300, { seed: 1 });
    (data[0] as FakeRecord).id = 'x),le(id,z';
    const list = createFakeList(data);
    const error = await refusal(paginate(options(list, { args: { first: 300 }, sortKey: 'id' })));
    expect(error).toBeInstanceOf(UpstreamUnavailableError);
  });

  it('records out of order are detected rather than paged over', async () => {
    const list = createFakeList(records);
    const fetchPage: PaginateOptions<FakeRecord>['fetchPage'] = async (q, query) => {
      const page = await list.fetchPage(q, query);
      return { ...page, data: [...page.data].reverse() };
    };
    const error = await refusal(paginate(options(list, { args: { first: 100 }, fetchPage })));
    expect(error).toBeInstanceOf(UpstreamUnavailableError);
  });
});
