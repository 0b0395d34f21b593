/**
 * One search's parameters, from the query string (GET …/search) or from one entry of a
 * multi-search body, judged before anything is read: each parameter in the wrong shape or out
 * of bounds is a 400 naming it. Parameters the service does not use (`query_by`,
 * `include_fields`, `override_tags`, …: the reference storefront's adapter sends them) are
 * ignored, as production ignores what its search profile decides.
 */
import { ApiError } from '../errors.ts';
import { type FilterNode, parseFilter } from './filter.ts';

export const MAX_QUERY_LENGTH = 512;
export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 10;
/** Production's deepest offset: page × per_page may not start past it. */
export const MAX_OFFSET = 10_000;
export const MAX_FACET_FIELDS = 10;
export const MAX_FACET_VALUES = 100;
export const DEFAULT_FACET_VALUES = 10;
export const MAX_SORT_FIELDS = 3;
export const MAX_HIGHLIGHT_FIELDS = 10;

export interface SortClause {
  field: string;
  desc: boolean;
}

export interface SearchParams {
  type: 'search' | 'autocomplete';
  /** The query text; '*' (or empty) matches every product. */
  q: string;
  filter: FilterNode | undefined;
  facetBy: string[];
  sortBy: SortClause[];
  page: number;
  perPage: number;
  maxFacetValues: number;
  highlightFull: string[];
  facetQuery: { field: string; text: string } | undefined;
}

/** Defaults a request sets for all its searches (`page[limit]`, `page[offset]`). */
export interface SearchDefaults {
  perPage?: number;
  offset?: number;
}

function fail(source: string, detail: string, title?: string): ApiError {
  return new ApiError(400, `${source}: ${detail}`, { source, ...(title ? { title } : {}) });
}

function text(input: Record<string, unknown>, key: string, prefix: string): string | undefined {
  const value = input[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    throw fail(`${prefix}${key}`, Array.isArray(value) ? 'give it once.' : 'must be a string.');
  }
  return value;
}

function integer(
  input: Record<string, unknown>,
  key: string,
  prefix: string,
  bounds: { min: number; max: number; title?: string },
): number | undefined {
  const value = input[key];
  if (value === undefined || value === null || value === '') return undefined;
  const source = `${prefix}${key}`;
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^\d{1,9}$/.test(value.trim())) n = Number(value.trim());
  else throw fail(source, 'must be a whole number.', bounds.title);
  if (!Number.isSafeInteger(n) || n < bounds.min || n > bounds.max) {
    throw fail(source, `must be a whole number from ${bounds.min} to ${bounds.max}.`, bounds.title);
  }
  return n;
}

/** A comma list of field names (facet_by, highlight_full_fields). */
function fieldList(value: string | undefined, source: string, max: number, title?: string) {
  if (value === undefined || value.trim() === '') return [];
  const fields = value
    .split(',')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  if (fields.length > max) throw fail(source, `at most ${max} fields.`, title);
  for (const field of fields) {
    if (field.length > 200 || !/^[A-Za-z0-9_.()-]+$/.test(field)) {
      throw fail(source, `"${field.slice(0, 100)}" is not a field name.`, title);
    }
  }
  return [...new Set(fields)];
}

function parseSort(value: string | undefined, source: string): SortClause[] {
  if (value === undefined || value.trim() === '') return [];
  const parts = value.split(',').map((p) => p.trim());
  if (parts.length > MAX_SORT_FIELDS) throw fail(source, `at most ${MAX_SORT_FIELDS} fields.`);
  return parts.map((part) => {
    const match = /^([A-Za-z0-9_.()-]{1,200}):(asc|desc)$/i.exec(part);
    if (match === null) {
      throw fail(source, `"${part.slice(0, 100)}" is not field:asc or field:desc.`);
    }
    return { field: match[1] as string, desc: (match[2] as string).toLowerCase() === 'desc' };
  });
}

/**
 * Reads one search. `prefix` names where it came from in errors (`searches[2].` for a
 * multi-search entry, '' for the query string).
 */
export function parseSearch(
  input: unknown,
  prefix: string,
  defaults: SearchDefaults = {},
): SearchParams {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw fail(prefix.replace(/\.$/, '') || 'search', 'must be an object.');
  }
  const body = input as Record<string, unknown>;
  const type = text(body, 'type', prefix) ?? 'search';
  if (type !== 'search' && type !== 'autocomplete') {
    throw fail(`${prefix}type`, 'must be search or autocomplete.');
  }
  const q = (text(body, 'q', prefix) ?? '*').trim();
  if (q.length > MAX_QUERY_LENGTH) {
    throw fail(`${prefix}q`, `at most ${MAX_QUERY_LENGTH} characters.`);
  }
  const filterText = text(body, 'filter_by', prefix);
  const filter =
    filterText === undefined || filterText.trim() === ''
      ? undefined
      : parseFilter(filterText, `${prefix}filter_by`);
  const facetBy = fieldList(
    text(body, 'facet_by', prefix),
    `${prefix}facet_by`,
    MAX_FACET_FIELDS,
    'Invalid Facet',
  );
  const sortBy = parseSort(text(body, 'sort_by', prefix), `${prefix}sort_by`);
  const paging = 'Invalid Pagination';
  const perPage =
    integer(body, 'per_page', prefix, { min: 0, max: MAX_PER_PAGE, title: paging }) ??
    defaults.perPage ??
    DEFAULT_PER_PAGE;
  const defaultPage =
    defaults.offset === undefined || perPage === 0 ? 1 : Math.floor(defaults.offset / perPage) + 1;
  const page =
    integer(body, 'page', prefix, { min: 1, max: MAX_OFFSET + 1, title: paging }) ?? defaultPage;
  if ((page - 1) * perPage > MAX_OFFSET) {
    throw fail(
      `${prefix}page`,
      `the page would start past result ${MAX_OFFSET.toLocaleString('en')} (page ${page} of ${perPage}); narrow the search instead.`,
      paging,
    );
  }
  const maxFacetValues =
    integer(body, 'max_facet_values', prefix, {
      min: 1,
      max: MAX_FACET_VALUES,
      title: 'Invalid Facet',
    }) ?? DEFAULT_FACET_VALUES;
  const highlightFull = fieldList(
    text(body, 'highlight_full_fields', prefix),
    `${prefix}highlight_full_fields`,
    MAX_HIGHLIGHT_FIELDS,
  );
  const facetQueryText = text(body, 'facet_query', prefix);
  let facetQuery: SearchParams['facetQuery'];
  if (facetQueryText !== undefined && facetQueryText.trim() !== '') {
    const colon = facetQueryText.indexOf(':');
    const field = colon < 0 ? '' : facetQueryText.slice(0, colon).trim();
    if (!facetBy.includes(field)) {
      throw fail(
        `${prefix}facet_query`,
        'must be field:text, for a field facet_by names.',
        'Invalid Facet',
      );
    }
    facetQuery = {
      field,
      text: facetQueryText
        .slice(colon + 1)
        .trim()
        .toLowerCase(),
    };
  }
  return {
    type,
    q,
    filter,
    facetBy,
    sortBy,
    page,
    perPage,
    maxFacetValues,
    highlightFull,
    facetQuery,
  };
}
