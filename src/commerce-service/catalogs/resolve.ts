/**
 * Which catalog a shopper sees (v2-catalog-notes §6): every rule whose criteria all hold for
 * the request's context is a candidate, scored by how many criteria it has (channels, tags,
 * customer ids, account ids, account tag ids, schedules; an empty list matches anything and
 * scores nothing); the highest score wins, ties go to the rule created first. A rule whose
 * catalog has no published release is skipped. When no rule applies (or there are none), the
 * oldest catalog with a published release is used. The catalog is then read from its newest
 * release, priced from the winning rule's `pricebook_ids` when it has any (release-prices.ts).
 */
import type { FastifyRequest } from 'fastify';
import { cachedStatement, type Db } from '../db.ts';
import type { PricebookPriority } from '../pricebooks/resolve.ts';
import { formatTimestamp } from '../time.ts';
import type { RuleSchedule } from './bodies.ts';
import type { ReleaseRow, RuleRow } from './records.ts';

export interface CatalogContext {
  channel?: string | undefined;
  tags?: readonly string[];
  customerId?: string | undefined;
  accountId?: string | undefined;
  /** ms since the epoch. */
  now: number;
}

export interface ResolvedCatalog {
  catalogId: string;
  release: ReleaseRow;
  /** The rule that chose it; undefined for the default (oldest published) catalog. */
  ruleId?: string;
  /** That rule's price books (none or empty: the catalog's own books price the shopper). */
  rulePricebooks?: PricebookPriority[];
}

const NEWEST_RELEASE = `SELECT * FROM catalog_releases WHERE store_id = ? AND catalog_id = ?
  ORDER BY created_at DESC, id DESC LIMIT 1`;

function inSchedule(schedules: RuleSchedule[], at: string): boolean {
  return schedules.some(
    (s) =>
      (s.valid_from === null || s.valid_from <= at) && (s.valid_to === null || at < s.valid_to),
  );
}

/** The rule's score for the context, or -1 when one of its criteria does not hold. */
export function ruleScore(rule: RuleRow, context: CatalogContext): number {
  const list = (text: string) => JSON.parse(text) as string[];
  let score = 0;
  const criteria: [string[], (values: string[]) => boolean][] = [
    [list(rule.channels), (v) => context.channel !== undefined && v.includes(context.channel)],
    [list(rule.tags), (v) => (context.tags ?? []).some((tag) => v.includes(tag))],
    [
      list(rule.customer_ids),
      (v) => context.customerId !== undefined && v.includes(context.customerId),
    ],
    [
      list(rule.account_ids),
      (v) => context.accountId !== undefined && v.includes(context.accountId),
    ],
    // Account tags would come from the account token's account; this service keeps no account
    // tags, so a rule that requires one never applies.
    [list(rule.account_tag_ids), () => false],
  ];
  for (const [values, holds] of criteria) {
    if (values.length === 0) continue;
    if (!holds(values)) return -1;
    score++;
  }
  const schedules = JSON.parse(rule.schedules) as RuleSchedule[];
  if (schedules.length > 0) {
    if (!inSchedule(schedules, formatTimestamp(context.now))) return -1;
    score++;
  }
  return score;
}

export function resolveCatalog(
  db: Db,
  storeId: string,
  context: CatalogContext,
): ResolvedCatalog | undefined {
  const newest = cachedStatement(db, NEWEST_RELEASE);
  const rules = cachedStatement(
    db,
    'SELECT * FROM catalog_rules WHERE store_id = ? ORDER BY created_at, id',
  ).all(storeId) as RuleRow[];
  let best: ResolvedCatalog | undefined;
  let bestScore = -1;
  for (const rule of rules) {
    const score = ruleScore(rule, context);
    if (score <= bestScore) continue;
    const release = newest.get(storeId, rule.catalog_id) as ReleaseRow | undefined;
    if (release === undefined) continue;
    best = {
      catalogId: rule.catalog_id,
      release,
      ruleId: rule.id,
      rulePricebooks: JSON.parse(rule.pricebook_ids) as PricebookPriority[],
    };
    bestScore = score;
  }
  if (best !== undefined) return best;
  const fallback = cachedStatement(
    db,
    `SELECT c.id FROM catalogs c WHERE c.store_id = ?
       AND EXISTS (SELECT 1 FROM catalog_releases r WHERE r.catalog_id = c.id)
     ORDER BY c.created_at, c.id LIMIT 1`,
  )
    .pluck()
    .get(storeId) as string | undefined;
  if (fallback === undefined) return undefined;
  return { catalogId: fallback, release: newest.get(storeId, fallback) as ReleaseRow };
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first.trim() === '' ? undefined : first.trim();
}

/**
 * The shopper context of a request: `EP-Channel`, `EP-Context-Tag` (comma-separated tags), the
 * customer of `X-Moltin-Customer-Token` or the account of `EP-Account-Management-Authentication-Token`
 * (both resolved by the auth hook) and the time.
 */
export function requestContext(request: FastifyRequest, now: number): CatalogContext {
  const tags = header(request, 'ep-context-tag');
  return {
    channel: header(request, 'ep-channel'),
    tags:
      tags === undefined
        ? []
        : tags
            .split(',')
            .map((t) => t.trim())
            .filter((t) => t !== ''),
    customerId: request.customer?.id,
    accountId: request.accountMember?.accountId,
    now,
  };
}
