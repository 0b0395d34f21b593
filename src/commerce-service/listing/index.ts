/**
 * The one module that serves list endpoints: every list route calls `listResources` (see its
 * JSDoc for an example); none parses paging or filters itself. Its rooms, under listing/:
 * parse.ts (page, sort and filter parameters, and the `ListSpec` a list allows), sql.ts (the
 * page and count statements), count.ts and laddered-read.ts (results.total and deep pages,
 * exact and cheap), envelope.ts (links and meta).
 */
import type { FastifyRequest } from 'fastify';
import { cachedStatement, type Db } from '../db.ts';
import { countResults, keptTotal } from './count.ts';
import { buildEnvelope, type ListEnvelope } from './envelope.ts';
import { readWithLadder } from './laddered-read.ts';
import { type ListSpec, parseListQuery, type SqlCondition } from './parse.ts';
import { buildListSql } from './sql.ts';

// What a list route needs besides listResources: the vocabulary of a ListSpec.
export {
  type AttributeKind,
  creationOrderListSpec,
  type FilterOpName,
  type ListAttribute,
  type ListSpec,
  MAX_PAGE_LIMIT,
  OFFSET_LIMIT,
  type SqlCondition,
  standardListSpec,
} from './parse.ts';

export interface ListResourcesOptions<Row, Item> {
  request: FastifyRequest;
  db: Db;
  /** Table (or view) name; trusted. */
  table: string;
  /** Columns to select, default `*`; trusted. */
  columns?: string;
  /** Equality conditions every row must meet, in index order: `{ store_id, custom_api_id }`. */
  scope: Record<string, string | number>;
  spec: ListSpec;
  /** Turns a row into the JSON item. */
  map: (row: Row) => Item;
  /**
   * Total of the unfiltered list when it is kept elsewhere (a counter). Default: the
   * store_row_counts counter for the tables that have one (scope `{ store_id }`), else count(*).
   */
  countAll?: () => number;
  /**
   * Conditions from code (trusted SQL, bound parameters) every row must also meet, beyond what
   * an equality scope says: e.g. the members not in an account. The total is then counted.
   */
  conditions?: SqlCondition[];
}

/**
 * Serves one list request end to end: parses `page[limit]`, `page[offset]`, `sort` and
 * `filter` (400 on anything invalid), reads the page and the total in one read transaction and
 * returns the envelope. The store's `page_length` setting is the default limit.
 *
 * @example
 * app.get('/orders', async (request) =>
 *   listResources({
 *     request, db: ctx.db, table: 'orders',
 *     scope: { store_id: request.store.id },
 *     spec: standardListSpec({ hardOffsetLimit: OFFSET_LIMIT }),
 *     map: (row: OrderRow) => orderJson(row),
 *   }));
 */
export function listResources<Row, Item>(
  options: ListResourcesOptions<Row, Item>,
): ListEnvelope<Item> {
  const { request, db, spec } = options;
  const parsed = parseListQuery(request.query, spec, request.store.settings.pageLength);
  const extra = options.conditions ?? [];
  const query =
    extra.length === 0 ? parsed : { ...parsed, conditions: [...parsed.conditions, ...extra] };
  const built = buildListSql(
    options.table,
    options.columns ?? '*',
    options.scope,
    query,
    spec.idColumn ?? 'id',
  );
  const countAll = extra.length === 0 ? keptTotal(options) : undefined;
  const read = db.transaction(() => {
    const laddered = countAll && readWithLadder<Row>(db, options, query, built, countAll);
    if (laddered) return laddered;
    const rows = cachedStatement(db, built.sql).all(...built.params) as Row[];
    const total = countResults(db, options.table, options.scope, query, built, spec, countAll);
    return { rows, total };
  });
  const { rows, total } = read();
  return buildEnvelope(request, query, rows.map(options.map), total, spec.hardOffsetLimit);
}
