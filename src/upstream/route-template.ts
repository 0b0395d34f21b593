/**
 * The roots an upstream call may address, and the route of a call with its ids replaced:
 * `['orders', 'f3a…']` → `/v2/orders/{id}`, `['/pcm', 'products', 'f3a…']` →
 * `/pcm/products/{id}`. Metrics label upstream calls and traces name their spans with it, so it
 * must never carry an id, a slug, a SKU or any other value from a caller or a store: only the
 * API's own path words below are kept, every other segment becomes `{id}`, and paths deeper than
 * MAX_DEPTH end in `/…`.
 */

/**
 * The roots of the commerce API: v2, Product Experience Manager (admin), the rule-resolved
 * shopper catalog and the release-addressed one. A request names one by its first segment
 * (`['/pcm', 'products']`); a first segment that is not one of these is below `/v2`, so every
 * caller written for `/v2` alone is unchanged. A root starts with '/', which no real segment
 * can carry unencoded, and only the first segment is read as one.
 */
export const UPSTREAM_ROOTS = ['/v2', '/pcm', '/catalog', '/catalogs'] as const;
export type UpstreamRoot = (typeof UPSTREAM_ROOTS)[number];

const ROOTS: ReadonlySet<string> = new Set(UPSTREAM_ROOTS);

/** The root a request's segments name, and the segments below it. */
export function splitRoot(segments: readonly string[]): {
  root: UpstreamRoot;
  below: readonly string[];
} {
  const first = segments[0];
  if (first !== undefined && ROOTS.has(first)) {
    return { root: first as UpstreamRoot, below: segments.slice(1) };
  }
  return { root: '/v2', below: segments };
}

/** Every literal path word of the routes the gateway calls (src/schema, src/upstream). */
const ROUTE_WORDS: ReadonlySet<string> = new Set([
  // v2
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
  // Product Experience Manager, price books, catalogs, the shopper catalog, inventory
  'build',
  'catalog',
  'catalogs',
  'children',
  'component_products',
  'hierarchies',
  'inventories',
  'jobs',
  'latest',
  'locations',
  'main_image',
  'modifiers',
  'multi-search',
  'multiple',
  'nodes',
  'options',
  'parent',
  'pcm',
  'pricebooks',
  'prices',
  'products',
  'relationships',
  'releases',
  'rules',
  'transactions',
  'variations',
]);

/** Segments kept in a template; deeper ones are folded into `/…`. */
const MAX_DEPTH = 8;

export function routeTemplate(segments: readonly string[]): string {
  const { root, below } = splitRoot(segments);
  let template: string = root;
  for (let i = 0; i < below.length; i++) {
    if (i === MAX_DEPTH) return `${template}/…`;
    const segment = below[i] as string;
    template += ROUTE_WORDS.has(segment) ? `/${segment}` : '/{id}';
  }
  return template;
}

/** The budget's name for a call: its method, root and first word (`GET /pcm/products`). */
export function budgetKey(method: string, segments: readonly string[]): string {
  const { root, below } = splitRoot(segments);
  const first = below[0];
  return `${method} ${root}/${first !== undefined && ROUTE_WORDS.has(first) ? first : '{id}'}`;
}
