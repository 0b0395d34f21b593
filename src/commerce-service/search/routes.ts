/**
 * Catalog Search (production's catalog-search API):
 * - `GET /catalog/search` and `POST /catalog/multi-search` (also under `/pcm/catalog/…`, the
 *   specification's paths; the official SDK calls `/catalog/multi-search`): the catalog the
 *   request's context resolves to, exactly as `/catalog` resolves it (channel, tags, customer
 *   or account token, time: catalogs/resolve.ts), for any token of the store;
 * - `GET /catalogs/{c}/releases/{r}/search` and `POST …/multi-search` (also under
 *   `/pcm/catalogs`; `latest`/`latestPublished` name the newest release): one release, for the
 *   store's token.
 * A hit's document is the product as /catalog/products shows it, priced for the caller by the
 * same presentation (catalogs/views.ts: currency, sales, `include=main_image,files`).
 * The release must have a search index (its catalog has `enable_search`), else 404.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { findCatalog, findRelease, type ReleaseRow } from '../catalogs/records.ts';
import { resolvedRelease } from '../catalogs/shopper-routes.ts';
import { displayCurrency, presentProducts, type ReleaseProductRow } from '../catalogs/views.ts';
import type { ServiceContext } from '../context.ts';
import { cachedStatement } from '../db.ts';
import { ApiError, notFound } from '../errors.ts';
import type { QueryContext } from './compile.ts';
import { executeSearch, type SearchOutcome } from './execute.ts';
import { escapeHtml, highlightProduct, highlightText } from './highlight.ts';
import {
  MAX_OFFSET,
  MAX_PER_PAGE,
  parseSearch,
  type SearchDefaults,
  type SearchParams,
} from './params.ts';
import { type ReleaseIndex, releaseIndex } from './release-index.ts';
import { type StockColumns, stockColumns } from './stock-column.ts';

/** Searches one multi-search may hold. */
export const MAX_SEARCHES = 10;
/** Where the shopper search is served: the SDK's path and the specification's. */
export const SHOPPER_SEARCH_BASES = ['/catalog', '/pcm/catalog'] as const;
/** Where a release's search is served (the store's token). */
export const RELEASE_SEARCH_BASES = [
  '/catalogs/:catalogId/releases/:releaseId',
  '/pcm/catalogs/:catalogId/releases/:releaseId',
] as const;
const PROFILE = 'SYSTEMS_DEFAULT_PROFILE';

const bad = (source: string, detail: string, title?: string) =>
  new ApiError(400, `${source}: ${detail}`, { source, ...(title ? { title } : {}) });

/** `include` as the SDK sends it (repeated, or a comma list): one comma list for the presenter. */
function normaliseInclude(request: FastifyRequest) {
  const query = request.query as Record<string, unknown>;
  if (Array.isArray(query.include)) {
    if (query.include.some((v) => typeof v !== 'string')) {
      throw bad('include', 'must be a comma list of main_image, files, component_products.');
    }
    query.include = query.include.join(',');
  }
}

/**
 * `search_profile`: production resolves a profile by slug; this service has only the built-in
 * default, so any other non-blank slug is production's 400.
 */
function checkProfile(request: FastifyRequest) {
  const value = (request.query as Record<string, unknown>).search_profile;
  if (value === undefined) return;
  if (typeof value !== 'string') throw bad('search_profile', 'give it once.');
  const slug = value.trim();
  if (slug === '' || slug === PROFILE) return;
  if (!/^[a-zA-Z0-9_.-]{1,200}$/.test(slug)) {
    throw bad('search_profile', 'a slug holds A-Z, a-z, 0-9, "-", "_" and ".".');
  }
  throw new ApiError(400, `Search profile '${slug}' not found`, { source: 'search_profile' });
}

/** `page[limit]` and `page[offset]` of a multi-search: defaults for its searches. */
function pagingDefaults(request: FastifyRequest): SearchDefaults {
  const query = request.query as Record<string, unknown>;
  const read = (key: string, min: number, max: number) => {
    const value = query[key];
    if (value === undefined || value === '') return undefined;
    if (typeof value !== 'string' || !/^\d{1,9}$/.test(value)) {
      throw bad(key, 'must be a whole number.', 'Invalid Pagination');
    }
    const n = Number(value);
    if (n < min || n > max) {
      throw bad(key, `must be from ${min} to ${max}.`, 'Invalid Pagination');
    }
    return n;
  };
  const perPage = read('page[limit]', 1, MAX_PER_PAGE);
  const offset = read('page[offset]', 0, MAX_OFFSET);
  return {
    ...(perPage === undefined ? {} : { perPage }),
    ...(offset === undefined ? {} : { offset }),
  };
}

function indexOf(ctx: ServiceContext, release: ReleaseRow): ReleaseIndex {
  const index = releaseIndex(ctx.db, release.id);
  if (index === undefined) {
    throw notFound(
      `Release ${release.id} of catalog ${release.catalog_id} has no search index: publish the catalog with enable_search set to true.`,
    );
  }
  return index;
}

function rowsOf(ctx: ServiceContext, release: ReleaseRow, index: ReleaseIndex, docs: number[]) {
  const ids = docs.map((doc) => index.ids[doc] as string);
  const rows = cachedStatement(
    ctx.db,
    `SELECT * FROM release_products WHERE release_id = ? AND id IN (SELECT value FROM json_each(?))`,
  ).all(release.id, JSON.stringify(ids)) as ReleaseProductRow[];
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

function requestParams(params: SearchParams) {
  return { collection_name: 'search', first_q: params.q, per_page: params.perPage, q: params.q };
}

interface Answer {
  result: Record<string, unknown>;
  included: Record<string, unknown[]>;
}

function searchAnswer(
  ctx: ServiceContext,
  request: FastifyRequest,
  release: ReleaseRow,
  index: ReleaseIndex,
  params: SearchParams,
  outcome: SearchOutcome,
  started: number,
): Answer {
  const rows = rowsOf(ctx, release, index, outcome.page);
  const { data, included } = presentProducts(ctx.db, request, release, rows, ctx.clock());
  const full = new Set(params.highlightFull);
  const hits = data.map((document, i) => {
    const marks = highlightProduct(document.attributes, outcome.words, full);
    const score = outcome.scores?.get(outcome.page[i] as number);
    const tokens = new Set(
      marks.highlights.flatMap((h) => h.matched_tokens.map((t) => t.toLowerCase())),
    );
    return {
      document,
      highlight: marks.highlight,
      highlights: marks.highlights,
      ...(score === undefined
        ? {}
        : {
            text_match_info: {
              best_field_score: String(Math.round(score * 1e6)),
              best_field_weight: 10,
              fields_matched: marks.highlights.length,
              num_tokens_dropped: 0,
              score: String(Math.round(score * 1e6)),
              tokens_matched: Math.min(tokens.size, outcome.words.length),
              typo_prefix_score: outcome.corrected ? 1 : 0,
            },
          }),
    };
  });
  return {
    result: {
      type: 'search',
      facet_counts: outcome.facets,
      found: outcome.hits.length,
      hits,
      out_of: index.size,
      page: params.page,
      request_params: requestParams(params),
      search_cutoff: false,
      search_time_ms: Math.round(performance.now() - started),
    },
    included,
  };
}

/** Autocomplete: the names of the matching products as suggestions, the most common first. */
function autocompleteAnswer(
  index: ReleaseIndex,
  params: SearchParams,
  outcome: SearchOutcome,
  started: number,
): Answer {
  const groups = new Map<string, { q: string; count: number; first: number }>();
  for (const doc of outcome.hits) {
    const name = index.names[doc] as string;
    const key = name.toLowerCase();
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { q: name, count: 1, first: doc });
    else {
      group.count++;
      if (doc < group.first) group.first = doc;
    }
  }
  const suggestions = [...groups.values()].sort((a, b) => b.count - a.count || a.first - b.first);
  const offset = (params.page - 1) * params.perPage;
  const hits = suggestions.slice(offset, offset + params.perPage).map((s) => {
    const mark = highlightText(s.q, outcome.words, true) ?? {
      snippet: escapeHtml(s.q),
      matched_tokens: [],
    };
    const id = s.q
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-|-$/g, '');
    return {
      document: { id, q: s.q, count: s.count },
      highlight: { q: { snippet: mark.snippet, matched_tokens: mark.matched_tokens } },
      highlights: [{ field: 'q', snippet: mark.snippet, matched_tokens: mark.matched_tokens }],
    };
  });
  return {
    result: {
      type: 'autocomplete',
      facet_counts: outcome.facets,
      found: suggestions.length,
      hits,
      out_of: index.size,
      page: params.page,
      request_params: requestParams(params),
      search_cutoff: false,
      search_time_ms: Math.round(performance.now() - started),
    },
    included: {},
  };
}

/** Runs the searches against the release in one read transaction. */
function run(
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
  releaseOf: () => ReleaseRow,
  searches: { params: SearchParams; prefix: string }[],
) {
  return ctx.db.transaction(() => {
    const release = releaseOf();
    const index = indexOf(ctx, release);
    let stock: StockColumns | undefined;
    const context: QueryContext = {
      currency: displayCurrency(request),
      now: ctx.clock(),
      // Read once per request, and only when a search names a stock field.
      stock: () => {
        stock ??= stockColumns(ctx.db, index, release.store_id);
        return stock;
      },
    };
    const answers = searches.map(({ params, prefix }) => {
      const started = performance.now();
      const outcome = executeSearch(ctx.db, index, params, context, prefix);
      return params.type === 'autocomplete'
        ? autocompleteAnswer(index, params, outcome, started)
        : searchAnswer(ctx, request, release, index, params, outcome, started);
    });
    // One `included`, each resource once.
    const included: Record<string, unknown[]> = {};
    for (const answer of answers) {
      for (const [key, list] of Object.entries(answer.included)) {
        const kept = included[key] ?? [];
        const seen = new Set(kept.map((r) => (r as { id: string }).id));
        for (const resource of list) {
          if (!seen.has((resource as { id: string }).id)) kept.push(resource);
        }
        included[key] = kept;
      }
    }
    reply.header('EP-Search-Profile', PROFILE);
    return { results: answers.map((a) => a.result), included };
  })();
}

function readSearches(body: unknown, defaults: SearchDefaults) {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw bad('searches', 'the body is {"searches": [ … ]}.');
  }
  const searches = (body as Record<string, unknown>).searches;
  if (!Array.isArray(searches) || searches.length === 0) {
    throw bad('searches', 'must be a list of one or more searches.');
  }
  if (searches.length > MAX_SEARCHES) {
    throw bad('searches', `at most ${MAX_SEARCHES} searches in one request.`);
  }
  return searches.map((search, i) => {
    const prefix = `searches[${i}].`;
    return { params: parseSearch(search, prefix, defaults), prefix };
  });
}

export function searchRoutes(ctx: ServiceContext): FastifyPluginAsync {
  const single =
    (releaseOf: (request: FastifyRequest) => ReleaseRow) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      checkProfile(request);
      normaliseInclude(request);
      const params = parseSearch(request.query, '');
      const answer = run(ctx, request, reply, () => releaseOf(request), [{ params, prefix: '' }]);
      const [result] = answer.results;
      return {
        ...result,
        ...(Object.keys(answer.included).length > 0 ? { included: answer.included } : {}),
      };
    };
  const multi =
    (releaseOf: (request: FastifyRequest) => ReleaseRow) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      checkProfile(request);
      normaliseInclude(request);
      const searches = readSearches(request.body, pagingDefaults(request));
      const answer = run(ctx, request, reply, () => releaseOf(request), searches);
      return {
        results: answer.results,
        ...(Object.keys(answer.included).length > 0 ? { included: answer.included } : {}),
      };
    };
  const shopper = (request: FastifyRequest) => resolvedRelease(ctx, request);
  const named = (request: FastifyRequest) => {
    const params = request.params as { catalogId: string; releaseId: string };
    return findRelease(
      ctx.db,
      findCatalog(ctx.db, request.store.id, params.catalogId),
      params.releaseId,
    );
  };
  return async (app) => {
    for (const base of SHOPPER_SEARCH_BASES) {
      app.get(`${base}/search`, single(shopper));
      app.post(`${base}/multi-search`, multi(shopper));
    }
    for (const base of RELEASE_SEARCH_BASES) {
      app.get(`${base}/search`, single(named));
      app.post(`${base}/multi-search`, multi(named));
    }
  };
}
