/**
 * `catalog { search, autocomplete }`: the service's Catalog Search (`POST
 * /catalog/multi-search`), as the caller's catalog rules, headers and prices resolve it.
 *
 * One connection page is one upstream call: its window of hits is planned into at most ten
 * `page`/`per_page` searches of one multi-search (./search-params.ts), facets asked only of the
 * first (they are counted over every hit, not the page), `include=main_image,files` on the call
 * so images need no further read. A node filter (category and its descendants) is resolved to the
 * category path the index keeps, reading the node and its path's names first.
 */
import { decodeGlobalID } from '@pothos/plugin-relay';
import { INCLUDED, isJsonObject, type JsonObject } from '../../upstream/client.ts';
import { BadUserInputError } from '../../upstream/errors.ts';
import type { GatewayContext } from '../../upstream/session.ts';
import { builder } from '../builder.ts';
import { judgeUuid } from '../rows.ts';
import {
  categoryClause,
  encodeSearchCursor,
  FACET_VALUES_DEFAULT,
  type FacetRequest,
  facetField,
  filterClauses,
  planPages,
  type SearchFilterInput,
  type SearchSortKey,
  searchHash,
  searchWindow,
  sortBy,
} from './search-params.ts';
import {
  ConnectionRef,
  type EdgeShape,
  FacetInput,
  type FacetShape,
  FilterInput,
  type HighlightShape,
  SEARCH_MAX_FIRST,
  type SearchShape,
  SortKeyRef,
  SuggestionRef,
} from './search-types.ts';
import { PRODUCT_INCLUDE, Products } from './storefront.ts';
import { ShopperCatalogRef } from './views.ts';

/** A node's category path ("Hierarchy > Parent > Node"), read through the caller's catalog. */
async function nodeCategory(context: GatewayContext, raw: string): Promise<string> {
  let id = raw;
  if (!/^[0-9a-f-]{36}$/i.test(raw)) {
    let decoded: { typename: string; id: string };
    try {
      decoded = decodeGlobalID(raw);
    } catch {
      throw new BadUserInputError('filter.nodeId: a CatalogNode id', { field: 'filter.nodeId' });
    }
    if (decoded.typename !== 'CatalogNode') {
      throw new BadUserInputError('filter.nodeId: a CatalogNode id', { field: 'filter.nodeId' });
    }
    id = decoded.id;
  }
  id = judgeUuid(id, 'filter.nodeId');
  const nodes = context.byIdLoader(['/catalog', 'nodes']);
  const node = await nodes.load(id);
  const crumb = isJsonObject(node?.meta) ? node.meta.bread_crumb : undefined;
  if (node == null || !Array.isArray(crumb) || crumb.length < 2) {
    throw new BadUserInputError('filter.nodeId: the catalog has no such node', {
      field: 'filter.nodeId',
    });
  }
  const [hierarchyId, ...path] = crumb as string[];
  const [hierarchy, ...rows] = await Promise.all([
    context.byIdLoader(['/catalog', 'hierarchies']).load(hierarchyId as string),
    ...path.map((nodeId) => (nodeId === id ? node : nodes.load(nodeId))),
  ]);
  const nameOf = (row: JsonObject | null | undefined) =>
    isJsonObject(row?.attributes) && typeof row.attributes.name === 'string'
      ? row.attributes.name
      : undefined;
  const names = [hierarchy, ...rows].map(nameOf);
  if (names.some((n) => n === undefined)) {
    throw new BadUserInputError('filter.nodeId: the catalog has no such node', {
      field: 'filter.nodeId',
    });
  }
  return names.join(' > ');
}

const toNumber = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

function readFacets(asked: FacetRequest[], names: string[], result: JsonObject): FacetShape[] {
  const counts = Array.isArray(result.facet_counts) ? result.facet_counts : [];
  return asked.map((facet, i) => {
    const name = names[i] as string;
    const found = counts.find((c) => isJsonObject(c) && c.field_name === name);
    const entry = isJsonObject(found) ? found : {};
    const values = (Array.isArray(entry.counts) ? entry.counts : []).flatMap((c) =>
      isJsonObject(c) && typeof c.value === 'string' && typeof c.count === 'number'
        ? [{ value: c.value, count: c.count }]
        : [],
    );
    const s = isJsonObject(entry.stats) ? entry.stats : undefined;
    const stats =
      s !== undefined && typeof s.min === 'number'
        ? { min: toNumber(s.min), max: toNumber(s.max), avg: toNumber(s.avg), sum: toNumber(s.sum) }
        : null;
    return { field: facet.field, name, values, stats };
  });
}

function highlightsOf(hit: JsonObject): HighlightShape[] {
  const list = Array.isArray(hit.highlights) ? hit.highlights : [];
  return list.flatMap((h) =>
    isJsonObject(h) && typeof h.field === 'string' && typeof h.snippet === 'string'
      ? [
          {
            field: h.field,
            snippet: h.snippet,
            matchedTokens: Array.isArray(h.matched_tokens)
              ? h.matched_tokens.filter((x): x is string => typeof x === 'string')
              : [],
          },
        ]
      : [],
  );
}

function includedMap(body: JsonObject): Map<string, JsonObject> {
  const byId = new Map<string, JsonObject>();
  const included = isJsonObject(body.included) ? Object.values(body.included) : [];
  for (const list of included) {
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (isJsonObject(item) && typeof item.id === 'string') byId.set(item.id, item);
    }
  }
  return byId;
}

interface SearchArgs {
  query?: string | null;
  filter?: SearchFilterInput | null;
  facets?: readonly FacetRequest[] | null;
  sort?: SearchSortKey | null;
  reverse?: boolean | null;
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

export async function runSearch(context: GatewayContext, args: SearchArgs): Promise<SearchShape> {
  const q = (args.query ?? '').trim() || '*';
  if (q.length > 512)
    throw new BadUserInputError('query: at most 512 characters', { field: 'query' });
  const clauses = filterClauses(args.filter);
  const asked = [...(args.facets ?? [])];
  if (asked.length > 10) throw new BadUserInputError('facets: at most 10', { field: 'facets' });
  const facetNames = asked.map(facetField);
  const sort = sortBy(args.sort ?? 'RELEVANCE', args.reverse === true);
  const nodeId = args.filter?.nodeId;
  // The cursor binds what decides the order and the hits; the node is bound by its id.
  const hash = searchHash([q, clauses, nodeId ?? null, sort ?? null]);
  const window = searchWindow(args, hash, SEARCH_MAX_FIRST);
  if (nodeId != null) {
    clauses.push(categoryClause(await nodeCategory(context, String(nodeId)), 'filter.nodeId'));
  }
  const base: Record<string, unknown> = { q };
  if (clauses.length > 0) base.filter_by = clauses.join(' && ');
  if (sort !== undefined) base.sort_by = sort;
  const pages = planPages(window.offset, window.count);
  // Facets and the total ride on the first search; with no hits wanted, a page of none.
  const searches = (pages.length === 0 ? [{ page: 1, perPage: 0 }] : pages).map((p, i) => ({
    ...base,
    page: p.page,
    per_page: p.perPage,
    ...(i === 0 && facetNames.length > 0
      ? { facet_by: facetNames.join(','), max_facet_values: FACET_VALUES_DEFAULT }
      : {}),
  }));
  const response = await context.postRead({
    segments: ['/catalog', 'multi-search'],
    query: PRODUCT_INCLUDE,
    body: { searches },
  });
  const body = isJsonObject(response.body) ? response.body : {};
  const results = (Array.isArray(body.results) ? body.results : []).filter(isJsonObject);
  const first = results[0] ?? {};
  const totalCount = typeof first.found === 'number' ? first.found : 0;
  const included = includedMap(body);
  const edges: EdgeShape[] = [];
  let position =
    pages.length === 0 ? window.offset : ((pages[0]?.page ?? 1) - 1) * (pages[0]?.perPage ?? 0);
  for (const result of results) {
    const hits = Array.isArray(result.hits) ? result.hits : [];
    for (const hit of hits) {
      const at = position++;
      if (!isJsonObject(hit) || !isJsonObject(hit.document)) continue;
      if (at < window.offset || at >= window.offset + window.count) continue;
      const document = hit.document;
      if (included.size > 0) (document as Record<symbol, unknown>)[INCLUDED] = included;
      edges.push({
        cursor: encodeSearchCursor(hash, at),
        node: Products.read(document),
        highlights: highlightsOf(hit),
      });
    }
  }
  const end = window.offset + edges.length;
  const reachable = Math.min(totalCount, 10_000, window.before ?? Number.POSITIVE_INFINITY);
  return {
    edges,
    totalCount,
    facets: readFacets(asked, facetNames, first),
    pageInfo: {
      hasNextPage: end < reachable,
      hasPreviousPage: window.offset > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}

builder.objectFields(ShopperCatalogRef, (t) => ({
  search: t.field({
    type: ConnectionRef,
    description:
      'Products matching `query` (words; the last one also as a prefix; typos forgiven when ' +
      'nothing matches), filtered, faceted and sorted by the service’s Catalog Search over the ' +
      'catalog that applies to the caller, with the caller’s prices. One upstream call per ' +
      'page (plus the node’s reads for `filter.nodeId`); `first`/`last` at most 900; hits ' +
      'beyond the 10,000th are not served (narrow the search).',
    args: {
      query: t.arg.string({ required: false, description: 'What the shopper typed; none: all.' }),
      filter: t.arg({ type: FilterInput, required: false, description: 'Which hits to keep.' }),
      facets: t.arg({
        type: [FacetInput],
        required: false,
        description: 'Facets to count over every hit (up to 10).',
      }),
      sort: t.arg({
        type: SortKeyRef,
        required: false,
        defaultValue: 'RELEVANCE',
        description: 'The order.',
      }),
      reverse: t.arg.boolean({
        required: false,
        defaultValue: false,
        description: 'Reverse the order.',
      }),
      first: t.arg.int({ required: false, description: 'At most this many hits after `after`.' }),
      after: t.arg.string({ required: false, description: 'Start after this cursor.' }),
      last: t.arg.int({ required: false, description: 'At most this many hits before `before`.' }),
      before: t.arg.string({ required: false, description: 'End before this cursor.' }),
    },
    resolve: (_view, args, context) => runSearch(context, args as SearchArgs),
    extensions: { upstreamCalls: 1 },
  }),
  autocomplete: t.field({
    type: [SuggestionRef],
    description:
      'Suggestions for what the shopper is typing (product names matching it, the most common ' +
      'first). One upstream call.',
    args: {
      query: t.arg.string({ required: true, description: 'What has been typed so far.' }),
      first: t.arg.int({
        required: false,
        defaultValue: 10,
        description: 'At most this many (1 to 100).',
      }),
    },
    resolve: async (_view, args, context) => {
      const q = args.query.trim();
      if (q === '' || q.length > 512) {
        throw new BadUserInputError('query: 1 to 512 characters', { field: 'query' });
      }
      const first = args.first ?? 10;
      if (first < 1 || first > 100) {
        throw new BadUserInputError('first: 1 to 100', { field: 'first' });
      }
      const response = await context.postRead({
        segments: ['/catalog', 'multi-search'],
        body: { searches: [{ type: 'autocomplete', q, per_page: first }] },
      });
      const body = isJsonObject(response.body) ? response.body : {};
      const result = Array.isArray(body.results) ? body.results[0] : undefined;
      const hits = isJsonObject(result) && Array.isArray(result.hits) ? result.hits : [];
      return hits.flatMap((hit) => {
        if (!isJsonObject(hit) || !isJsonObject(hit.document)) return [];
        const { q: text, count } = hit.document;
        if (typeof text !== 'string') return [];
        const mark =
          isJsonObject(hit.highlight) && isJsonObject(hit.highlight.q) ? hit.highlight.q : {};
        return [
          {
            text,
            highlighted: typeof mark.snippet === 'string' ? mark.snippet : text,
            count: typeof count === 'number' ? count : 1,
          },
        ];
      });
    },
    extensions: { upstreamCalls: 1 },
  }),
}));
