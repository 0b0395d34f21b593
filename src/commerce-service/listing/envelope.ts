/**
 * The envelope of every list answer: the page's `data`, `links` to the same list at other
 * offsets (keeping sort, filter and every other parameter) and `meta` with the page and the
 * results.total. Present with zero results too.
 */
import type { FastifyRequest } from 'fastify';
import type { ListQuery } from './parse.ts';

export interface ListLinks {
  current: string;
  first: string;
  last: string;
  next: string | null;
  prev: string | null;
}

/** The list envelope of every list endpoint, present with zero results too. */
export interface ListEnvelope<T> {
  data: T[];
  links: ListLinks;
  meta: {
    page: { limit: number; offset: number; current: number; total: number };
    results: { total: number };
  };
}

/** Absolute link to the same list at another offset, keeping sort, filter and other params. */
function linkBuilder(request: FastifyRequest, limit: number): (offset: number) => string {
  const path = request.url.split('?')[0] ?? '/';
  // HTTP/1.0 clients may send no Host; fall back to the address the request arrived on.
  const host = request.host || `${request.socket.localAddress}:${request.socket.localPort}`;
  const base = `${request.protocol}://${host}${path}`;
  const kept: string[] = [];
  const query = (request.query ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(query)) {
    if (key === 'page[limit]' || key === 'page[offset]') continue;
    for (const v of Array.isArray(value) ? value : [value]) {
      kept.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(v))}`);
    }
  }
  const rest = kept.length > 0 ? `&${kept.join('&')}` : '';
  return (offset) => `${base}?page[limit]=${limit}&page[offset]=${offset}${rest}`;
}

/** Builds the envelope for a page already read. */
export function buildEnvelope<T>(
  request: FastifyRequest,
  query: ListQuery,
  data: T[],
  total: number,
  hardOffsetLimit?: number,
): ListEnvelope<T> {
  const { limit, offset } = query;
  const link = linkBuilder(request, limit);
  const pages = Math.ceil(total / limit);
  const reachable = hardOffsetLimit ?? Number.POSITIVE_INFINITY;
  const lastOffset = Math.min(Math.max(0, (pages - 1) * limit), reachable);
  const nextOffset = offset + limit;
  return {
    data,
    links: {
      current: link(offset),
      first: link(0),
      last: link(lastOffset),
      next: nextOffset < total && nextOffset <= reachable ? link(nextOffset) : null,
      prev: offset > 0 ? link(Math.max(0, Math.min(offset - limit, lastOffset))) : null,
    },
    meta: {
      page: { limit, offset, current: Math.floor(offset / limit) + 1, total: pages },
      results: { total },
    },
  };
}
