/**
 * The route of an upstream call with its ids replaced: `['orders', 'f3a…']` → `/v2/orders/{id}`.
 * Metrics label upstream calls and traces name their spans with it, so it must never carry an id,
 * a slug or any other value from a caller or a store: only the v2 API's own path words below are
 * kept, every other segment becomes `{id}`, and paths deeper than MAX_DEPTH end in `/…`.
 */

/** Every literal path word of the v2 routes the gateway calls (src/schema, src/upstream). */
const ROUTE_WORDS: ReadonlySet<string> = new Set([
  'accounts',
  'carts',
  'checkout',
  'custom-apis',
  'custom-discounts',
  'customers',
  'entries',
  'extensions',
  'files',
  'items',
  'orders',
  'settings',
  'tokens',
]);

/** Segments kept in a template; deeper ones are folded into `/…`. */
const MAX_DEPTH = 8;

export function routeTemplate(segments: readonly string[]): string {
  let template = '/v2';
  for (let i = 0; i < segments.length; i++) {
    if (i === MAX_DEPTH) return `${template}/…`;
    const segment = segments[i] as string;
    template += ROUTE_WORDS.has(segment) ? `/${segment}` : '/{id}';
  }
  return template;
}
