/**
 * What of the catalog callers may share for a while (src/upstream/shared-reads.ts): a product's
 * breadcrumb nodes (./breadcrumbs.ts) and the pages of its children (./product-fields.ts),
 * because a storefront shows the same category names and the same variations on page after
 * page. Only under `catalog` in a query, and only after the upstream, with the caller's own
 * credentials, served them the product itself (never shared): a shared answer is used only
 * for the catalog and release that product answer named (`meta.catalog_id`,
 * `meta.release_id`), so nobody sees what their catalog rules would not show them.
 *
 * Each entry is keyed by everything that decides it upstream:
 * - a node carries no price, and a release's nodes are the same for every caller the upstream
 *   sends to that release: catalog, release and `Accept-Language`;
 * - a children page carries prices, and production prices by the catalog rule that won for the
 *   caller (its own price books), so two callers on one catalog and release can see different
 *   prices: catalog, release, a digest of every forwarded header the caller sent (currency,
 *   language, `EP-Channel`, `EP-Context-Tag`, the customer token, the account member's token,
 *   and any header the operator forwards: whatever a rule can match on), and a digest of the
 *   parent's own pricing (`meta.pricebook_id`, the price maps, the sale), so a rule schedule
 *   that re-prices the parent is seen at once. The bearer token is not in the key: no rule
 *   names it, and guests of a store all hold the same kind of token, so guests of the same
 *   channel and tag share one entry; a signed-in customer or account member shares only with
 *   requests carrying the same token.
 *
 * A release never changes once published, so a new publish is seen at once (another release,
 * another key); what does change with time inside a release is a sale's window, so a page is
 * kept no longer than the earliest sale end in any currency it holds (`saleEnds`; a sale that
 * starts shows once the entry expires). Entries live CATALOG_CACHE_SECONDS (default 60; 0
 * keeps none).
 */
import { createHash } from 'node:crypto';
import { type GraphQLResolveInfo, Kind } from 'graphql';
import { isJsonObject, type JsonObject } from '../../upstream/client.ts';
import { forwardedHeaders, type GatewayContext } from '../../upstream/session.ts';

/** What a node's key is made of: the product's catalog and release. */
export interface CatalogSource {
  readonly catalogId: string;
  readonly releaseId: string | null;
}

/** What a children page's key is made of besides: the parent's own answer. */
export interface PricedSource extends CatalogSource {
  readonly row: JsonObject;
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

/** Whether this read may use shared answers: sharing on, a catalog named, under `catalog`. */
function sharing(product: CatalogSource, context: GatewayContext, info: GraphQLResolveInfo) {
  return (
    context.shared.enabled &&
    product.catalogId !== '' &&
    info.operation.operation === 'query' &&
    rootFieldName(info) === 'catalog'
  );
}

/** Digests of the materials seen lately: a page's few callers and price lists recur. */
const digests = new Map<string, string>();
const DIGESTS_KEPT = 1_000;

/** The sha256 of a value's JSON (base64url); a sha256 per key and request cost more than the read. */
const digest = (value: unknown) => {
  const material = JSON.stringify(value);
  let hash = digests.get(material);
  if (hash === undefined) {
    hash = createHash('sha256').update(material).digest('base64url');
    if (digests.size >= DIGESTS_KEPT) digests.clear();
    digests.set(material, hash);
  }
  return hash;
};

/**
 * The prefix of the shared keys of a product's breadcrumb nodes, or undefined when they are
 * not shared: sharing off, a product whose answer named no catalog, or not read under
 * `catalog` in a query.
 */
export function nodeShareKey(
  product: CatalogSource,
  context: GatewayContext,
  info: GraphQLResolveInfo,
): string | undefined {
  if (!sharing(product, context, info)) return undefined;
  const language = forwardedHeaders(context)?.['accept-language'] ?? '';
  return ['node', product.catalogId, product.releaseId ?? '', language, ''].join('\u0000');
}

/** What of the parent's answer says how the upstream priced this caller. */
function pricing(row: JsonObject): unknown {
  const meta = isJsonObject(row.meta) ? row.meta : {};
  const attributes = isJsonObject(row.attributes) ? row.attributes : {};
  return [
    meta.pricebook_id,
    attributes.price,
    meta.original_price,
    meta.display_price,
    meta.sale_id,
    meta.sale_expires,
    meta.sales,
  ];
}

/**
 * The prefix of the shared keys of a parent product's children pages, or undefined when they
 * are not shared (as `nodeShareKey`).
 */
export function childrenShareKey(
  product: PricedSource,
  context: GatewayContext,
  info: GraphQLResolveInfo,
): string | undefined {
  if (!sharing(product, context, info)) return undefined;
  const headers = forwardedHeaders(context) ?? {};
  // Sorted, so the same headers in another order are the same caller; hashed, so no token is
  // kept in a key.
  const caller = Object.keys(headers)
    .sort()
    .map((name) => [name, headers[name]]);
  return [
    'children',
    product.catalogId,
    product.releaseId ?? '',
    digest(caller),
    digest(pricing(product.row)),
    '',
  ].join('\u0000');
}

/** The currency codes of a price map whose amount differs from the list price's. */
function onSaleIn(row: JsonObject): string[] {
  const attributes = isJsonObject(row.attributes) ? row.attributes : {};
  const meta = isJsonObject(row.meta) ? row.meta : {};
  const price = isJsonObject(attributes.price) ? attributes.price : {};
  const original = isJsonObject(meta.original_price) ? meta.original_price : {};
  return Object.keys(original).filter((code) => {
    const is = price[code];
    const was = original[code];
    return isJsonObject(is) && isJsonObject(was) && is.amount !== was.amount;
  });
}

/** The display currency of an answer: the one `meta.display_price` is in. */
function displayed(meta: JsonObject): string | undefined {
  const shown = isJsonObject(meta.display_price) ? meta.display_price : {};
  for (const half of [shown.without_tax, shown.with_tax]) {
    if (isJsonObject(half) && typeof half.currency === 'string') return half.currency;
  }
  return undefined;
}

/**
 * When a page of catalog rows stops being shareable (epoch ms): the earliest end of any sale
 * among them in any currency (`meta.sale_expires` for the display currency, the sales of
 * `meta.sales` for every currency), or undefined when none ends. A row on sale in a currency
 * whose sale's end the answer does not tell (production writes `sale_expires` for the display
 * currency only) makes the page not shareable at all (0): `price(currency:)` reads every
 * currency, and the gateway cannot tell when that price stops being true.
 */
export function saleEnds(rows: readonly JsonObject[]): number | undefined {
  let earliest: number | undefined;
  const ends = (text: unknown) => {
    if (typeof text !== 'string') return;
    const at = Date.parse(text);
    if (Number.isFinite(at) && (earliest === undefined || at < earliest)) earliest = at;
  };
  for (const row of rows) {
    const meta = isJsonObject(row.meta) ? row.meta : {};
    const told = new Set<string>();
    ends(meta.sale_expires);
    const shown = displayed(meta);
    if (typeof meta.sale_id === 'string' && shown !== undefined) told.add(shown);
    const sales = isJsonObject(meta.sales) ? meta.sales : {};
    for (const sale of Object.values(sales)) {
      if (!isJsonObject(sale)) continue;
      ends(isJsonObject(sale.schedule) ? sale.schedule.valid_to : undefined);
      for (const code of Object.keys(isJsonObject(sale.currencies) ? sale.currencies : {})) {
        told.add(code);
      }
    }
    if (onSaleIn(row).some((code) => !told.has(code))) return 0;
  }
  return earliest;
}
