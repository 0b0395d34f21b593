/**
 * What of the catalog callers may share for a while (src/upstream/shared-reads.ts): a product's
 * breadcrumb nodes (./breadcrumbs.ts) and the pages of its children (./product-fields.ts),
 * because a storefront shows the same category names and the same variations on page after
 * page.
 *
 * An entry is keyed by what served it: the catalog and release the product's own answer named
 * (`meta.catalog_id`, `meta.release_id`), the caller's forwarded `Accept-Language` and currency,
 * and it is used only when the product was read under `catalog` (the catalog the upstream
 * resolved for this caller, which its relations are read from too). A caller is therefore given a
 * shared answer only after the upstream, with their own credentials, served them a product of
 * that catalog and release: nobody sees what their catalog rules would not show them. A release
 * never changes once published, so a new publish is seen at once (another release, another key);
 * what does change with time inside a release is a sale's window, so a page with a sale is kept
 * no longer than the sale lasts (a sale that starts shows once the entry expires). Entries live
 * CATALOG_CACHE_SECONDS (default 60; 0 keeps none).
 */
import { type GraphQLResolveInfo, Kind } from 'graphql';
import type { JsonObject } from '../../upstream/client.ts';
import { CURRENCY_HEADER } from '../../upstream/forwarded-headers.ts';
import { forwardedHeaders, type GatewayContext } from '../../upstream/session.ts';

/** What the key is made of: the product's catalog and release. */
export interface CatalogSource {
  readonly catalogId: string;
  readonly releaseId: string | null;
}

/** The root field the value was read under (`catalog`, `catalogReleaseView`…), if plain. */
function rootFieldName(info: GraphQLResolveInfo): string | undefined {
  let path = info.path;
  while (path.prev !== undefined) path = path.prev;
  for (const selection of info.operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) continue;
    if ((selection.alias?.value ?? selection.name.value) === path.key) return selection.name.value;
  }
  // Under a fragment spread at the root: not told, so not shared.
  return undefined;
}

/**
 * The prefix of the shared keys of what `what` reads for this product (`node`, `children`), or
 * undefined when it is not shared: sharing off, a product whose answer named no catalog, or not
 * read under `catalog` in a query.
 */
export function catalogShareKey(
  what: string,
  product: CatalogSource,
  context: GatewayContext,
  info: GraphQLResolveInfo,
): string | undefined {
  if (!context.shared.enabled || product.catalogId === '') return undefined;
  if (info.operation.operation !== 'query' || rootFieldName(info) !== 'catalog') return undefined;
  const headers = forwardedHeaders(context);
  return [
    what,
    product.catalogId,
    product.releaseId ?? '',
    headers?.['accept-language'] ?? '',
    headers?.[CURRENCY_HEADER] ?? '',
    '',
  ].join('\u0000');
}

/**
 * When a page of catalog rows stops being shareable: the end of the earliest sale among them
 * (`meta.sale_expires`), or undefined when none is on sale.
 */
export function saleEnds(rows: readonly JsonObject[]): number | undefined {
  let earliest: number | undefined;
  for (const row of rows) {
    const meta = row.meta;
    if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) continue;
    const expires = (meta as JsonObject).sale_expires;
    if (typeof expires !== 'string') continue;
    const at = Date.parse(expires);
    if (Number.isFinite(at) && (earliest === undefined || at < earliest)) earliest = at;
  }
  return earliest;
}
