/**
 * What `catalog { search }` sends to the service's Catalog Search, judged before any call: the
 * typed filter rendered as `filter_by`, the facets as `facet_by`, the sort key as `sort_by`, and
 * the Relay window (first/after/last/before) planned as `page`/`per_page` searches of one
 * multi-search. Pure: no GraphQL, no upstream; the unit of test/gateway/storefront-search.
 *
 * Cursors carry the hit's offset in the result list, bound to a hash of the search (query,
 * filter, sort, direction): a cursor of another search is refused rather than silently misread.
 */
import { createHash } from 'node:crypto';
import { BadUserInputError } from '../../upstream/errors.ts';

/** The service's page size and result window (production's Catalog Search bounds). */
export const SEARCH_PER_PAGE_MAX = 100;
export const SEARCH_WINDOW = 10_000;
/** Searches in one multi-search: a connection page of up to 10 × 100 hits is one call. */
export const SEARCH_MULTI_MAX = 10;
export const SEARCH_DEFAULT_FIRST = 25;
/** Values of one facet the service returns (its `max_facet_values`, 1–100). */
export const FACET_VALUES_DEFAULT = 20;

export type SearchSortKey = 'RELEVANCE' | 'PRICE' | 'NAME' | 'CREATED_AT' | 'UPDATED_AT';
export type FacetField =
  | 'PRODUCT_TYPE'
  | 'TAGS'
  | 'COMMODITY_TYPE'
  | 'PRICE'
  | 'NODE'
  | 'CATEGORY'
  | 'ATTRIBUTE'
  | 'IN_STOCK';

export interface FacetRequest {
  field: FacetField;
  /** `template.field` of an ATTRIBUTE facet. */
  attribute?: string | null;
  /** Depth of a CATEGORY facet (0 = hierarchy, 1 = its top nodes, …); default 0. */
  level?: number | null;
}

export interface SearchFilterInput {
  nodeId?: string | null;
  category?: string | null;
  price?: { min?: number | null; max?: number | null } | null;
  tags?: readonly string[] | null;
  productType?: readonly string[] | null;
  commodityType?: string | null;
  attributes?: readonly { key: string; values: readonly string[] }[] | null;
  inStock?: boolean | null;
}

const fail = (message: string, field: string) => new BadUserInputError(message, { field });

const ATTRIBUTE_KEY = /^[A-Za-z0-9_-]{1,100}\.[A-Za-z0-9_-]{1,100}$/;
const PRODUCT_TYPES = new Set(['standard', 'parent', 'child', 'bundle']);
const CATEGORY_LEVELS = 5;
const MAX_VALUES = 100;

/** A value as `filter_by` reads it: always backticked, so commas and brackets stay values. */
function quoted(value: string, field: string): string {
  if (value.includes('`')) throw fail(`${field}: a value may not contain "\`"`, field);
  if (value.trim() === '' || value.length > 255) {
    throw fail(`${field}: a value is 1 to 255 characters`, field);
  }
  return `\`${value}\``;
}

function list(values: readonly string[], field: string): string {
  if (values.length === 0) throw fail(`${field}: give at least one value`, field);
  if (values.length > MAX_VALUES) throw fail(`${field}: at most ${MAX_VALUES} values`, field);
  return `[${values.map((v) => quoted(v, field)).join(', ')}]`;
}

/** `template.field` → the index's name for an extension field. */
export function attributeField(key: string, field: string): string {
  if (!ATTRIBUTE_KEY.test(key)) {
    throw fail(`${field}: "${key.slice(0, 100)}" is not template.field`, field);
  }
  const dot = key.indexOf('.');
  return `attributes.extensions.products(${key.slice(0, dot)}).${key.slice(dot + 1)}`;
}

/** The CATEGORY path's level: "Departments > Apparel" is level 1. */
export function categoryClause(path: string, field: string): string {
  const parts = path.split(' > ');
  if (parts.length > CATEGORY_LEVELS || parts.some((p) => p.trim() === '')) {
    throw fail(`${field}: a path of 1 to ${CATEGORY_LEVELS} names joined by " > "`, field);
  }
  return `meta.search.categories.lvl${parts.length - 1}:=${quoted(path, field)}`;
}

/**
 * The filter's clauses, joined by `&&`, except the node (resolved to a category path by the
 * caller, which may cost a read). Bad input throws BAD_USER_INPUT naming the field.
 */
export function filterClauses(filter: SearchFilterInput | null | undefined): string[] {
  if (filter == null) return [];
  const clauses: string[] = [];
  if (filter.category != null) clauses.push(categoryClause(filter.category, 'filter.category'));
  const price = filter.price;
  if (price != null) {
    const { min, max } = price;
    for (const [bound, value] of [
      ['min', min],
      ['max', max],
    ] as const) {
      if (value != null && (!Number.isSafeInteger(value) || value < 0)) {
        throw fail(
          `filter.price.${bound}: a whole amount in minor units, 0 or more`,
          'filter.price',
        );
      }
    }
    if (min != null && max != null && min > max) {
      throw fail('filter.price: min is above max', 'filter.price');
    }
    if (min != null) clauses.push(`price.amount:>=${min}`);
    if (max != null) clauses.push(`price.amount:<=${max}`);
  }
  if (filter.tags != null) clauses.push(`attributes.tags:=${list(filter.tags, 'filter.tags')}`);
  if (filter.productType != null) {
    for (const type of filter.productType) {
      if (!PRODUCT_TYPES.has(type)) {
        throw fail(
          `filter.productType: "${type.slice(0, 40)}" is not standard, parent, child or bundle`,
          'filter.productType',
        );
      }
    }
    clauses.push(`meta.product_types:=${list(filter.productType, 'filter.productType')}`);
  }
  if (filter.commodityType != null) {
    if (filter.commodityType !== 'physical' && filter.commodityType !== 'digital') {
      throw fail('filter.commodityType: physical or digital', 'filter.commodityType');
    }
    clauses.push(`attributes.commodity_type:=${filter.commodityType}`);
  }
  // Stock is the service's live field (not frozen at publish): the next search sees a sale.
  if (filter.inStock != null) clauses.push(`meta.stock.in_stock:=${String(filter.inStock)}`);
  const attributes = filter.attributes ?? [];
  if (attributes.length > 10) throw fail('filter.attributes: at most 10', 'filter.attributes');
  for (const attribute of attributes) {
    const name = attributeField(attribute.key, 'filter.attributes');
    clauses.push(`${name}:=${list(attribute.values, 'filter.attributes')}`);
  }
  return clauses;
}

/** `facet_by` names, in the order asked; each facet's answer is matched back by this name. */
export function facetField(facet: FacetRequest, index: number): string {
  const field = `facets[${index}]`;
  switch (facet.field) {
    case 'PRODUCT_TYPE':
      return 'meta.product_types';
    case 'TAGS':
      return 'attributes.tags';
    case 'COMMODITY_TYPE':
      return 'attributes.commodity_type';
    case 'PRICE':
      return 'price.amount';
    case 'NODE':
      return 'meta.search.nodes.name';
    case 'CATEGORY': {
      const level = facet.level ?? 0;
      if (!Number.isInteger(level) || level < 0 || level >= CATEGORY_LEVELS) {
        throw fail(`${field}.level: 0 to ${CATEGORY_LEVELS - 1}`, field);
      }
      return `meta.search.categories.lvl${level}`;
    }
    case 'IN_STOCK':
      return 'meta.stock.in_stock';
    case 'ATTRIBUTE':
      if (facet.attribute == null) throw fail(`${field}.attribute: name template.field`, field);
      return attributeField(facet.attribute, `${field}.attribute`);
  }
}

/** `sort_by` for a key; relevance ties and the other keys' ties keep the release's order. */
export function sortBy(key: SearchSortKey, reverse: boolean): string | undefined {
  const dir = (ascending: boolean) => (ascending !== reverse ? 'asc' : 'desc');
  switch (key) {
    case 'RELEVANCE':
      // The service's default order is relevance, best first; reversed, worst first.
      return reverse ? '_text_match:asc' : undefined;
    case 'PRICE':
      return `price.amount:${dir(true)}`;
    case 'NAME':
      return `attributes.name:${dir(true)}`;
    case 'CREATED_AT':
      return `created_at:${dir(true)}`;
    case 'UPDATED_AT':
      return `updated_at:${dir(true)}`;
  }
}

/** One search's identity, bound into its cursors. */
export function searchHash(parts: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 16);
}

export function encodeSearchCursor(hash: string, offset: number): string {
  return Buffer.from(JSON.stringify({ v: 1, s: hash, o: offset })).toString('base64url');
}

export function decodeSearchCursor(cursor: string, hash: string, field: string): number {
  let wire: unknown;
  try {
    if (cursor.length > 200) throw new Error('long');
    wire = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw fail(`${field}: not a cursor of this search`, field);
  }
  const w = wire as { v?: unknown; s?: unknown; o?: unknown };
  if (
    typeof wire !== 'object' ||
    wire === null ||
    w.v !== 1 ||
    w.s !== hash ||
    typeof w.o !== 'number' ||
    !Number.isSafeInteger(w.o) ||
    w.o < 0 ||
    w.o >= SEARCH_WINDOW
  ) {
    throw fail(`${field}: not a cursor of this search (same query, filter and sort)`, field);
  }
  return w.o;
}

export interface SearchWindow {
  /** Offset of the first hit wanted and how many; count may be 0. */
  offset: number;
  count: number;
  /** True when the window was cut by `last` (there may be hits before it). */
  fromEnd: boolean;
  /** The end bound from `before` (exclusive), when given. */
  before: number | undefined;
}

export interface ConnectionArgsLike {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/**
 * The window of hits a connection page asks for. `last` without `before` needs the total,
 * which is unknown before the first call: it is refused (a storefront pages forward, or back
 * from a cursor).
 */
export function searchWindow(
  args: ConnectionArgsLike,
  hash: string,
  maxFirst: number,
): SearchWindow {
  for (const name of ['first', 'last'] as const) {
    const value = args[name];
    if (value != null && (value < 0 || value > maxFirst)) {
      throw fail(`\`${name}\` may be from 0 to ${maxFirst}, got ${value}`, name);
    }
  }
  if (args.first != null && args.last != null) {
    throw fail('give `first` or `last`, not both', 'last');
  }
  const after = args.after == null ? undefined : decodeSearchCursor(args.after, hash, 'after');
  const before = args.before == null ? undefined : decodeSearchCursor(args.before, hash, 'before');
  const start = after === undefined ? 0 : after + 1;
  const end = Math.min(before ?? SEARCH_WINDOW, SEARCH_WINDOW);
  if (args.last != null) {
    if (before === undefined) {
      throw fail('`last` needs `before` (search pages forward from the first hit)', 'last');
    }
    const from = Math.max(start, end - args.last);
    return { offset: from, count: Math.max(0, end - from), fromEnd: true, before };
  }
  const first = args.first ?? SEARCH_DEFAULT_FIRST;
  return {
    offset: start,
    count: Math.max(0, Math.min(first, end - start)),
    fromEnd: false,
    before,
  };
}

export interface PagePlan {
  page: number;
  perPage: number;
}

/**
 * The `page`/`per_page` searches covering [offset, offset + count): one page when a page size
 * of at most 100 holds the window (always from offset 0, and whenever the window is aligned),
 * else pages of 100 — at most two for a window of up to 100, so a connection page of 100 is
 * one multi-search of one or two searches: one upstream call.
 */
export function planPages(offset: number, count: number): PagePlan[] {
  if (count === 0) return [];
  const last = offset + count - 1;
  for (let perPage = count; perPage <= SEARCH_PER_PAGE_MAX; perPage++) {
    const page = Math.floor(offset / perPage);
    if (Math.floor(last / perPage) === page) return [{ page: page + 1, perPage }];
  }
  const plans: PagePlan[] = [];
  for (let p = Math.floor(offset / 100); p <= Math.floor(last / 100); p++) {
    plans.push({ page: p + 1, perPage: SEARCH_PER_PAGE_MAX });
  }
  return plans;
}
